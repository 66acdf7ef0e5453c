//! The three parts together, on a small loader document.

use super::*;
use crate::js::json::Json;
use crate::lint::Severity;
use crate::route::Route;

fn js(s: &str) -> JsString {
    JsString::from(s)
}

/// What `project.mjs` prints for a small project (lone surrogate included).
fn doc(version: &str) -> Json {
    Json::parse(&format!(
        r#"{{"project":"/p","entry":"src/mastra/index.ts","node":"v24.22.3",
        "mastra":{{"version":"{version}","dir":"/p/node_modules/@mastra/core"}},"loader":"node","isolation":"guard",
        "agents":[{{"registeredAs":"a","id":"a-id","route":{{"kind":"router","provider":"openai","model":"openai/gpt-4o-mini"}},
          "tools":[
            {{"key":"search.web","source":"tool","at":{{"file":"src/a.ts","line":3,"column":5}}}},
            {{"key":"search web","source":"tool","at":{{"file":"src/a.ts","line":4,"column":5}}}},
            {{"key":"\ud800x","source":"mcp","at":null}},
            {{"key":"agent-r.b","source":"agent","at":{{"file":"src/a.ts","line":6,"column":9}}}}],
          "toolChoice":{{"tool":"search.web","at":{{"file":"src/a.ts","line":8,"column":40}}}},
          "activeTools":[{{"name":"search_web","at":null}},{{"name":"gone","at":{{"file":"src/a.ts","line":9,"column":3}}}}]}}],
        "blocked":["https://example.com/"]}}"#
    ))
    .unwrap()
}

fn load(version: &str) -> LoadedProject {
    parse_loaded(&doc(version)).unwrap()
}

#[test]
fn the_loader_document_is_read_exactly() {
    let p = load("1.67.0");
    assert_eq!(p.mastra, MastraVersion::new(1, 67, 0));
    assert_eq!(p.blocked, ["https://example.com/"]);
    let a = &p.agents[0];
    assert_eq!(
        a.tools[2].key,
        JsString::from_units(vec![0xD800, u16::from(b'x')])
    );
    assert_eq!(a.tools[2].source, ToolSource::Mcp);
    assert_eq!(a.tools[3].at.as_ref().unwrap().line, 6);
    assert_eq!(
        a.route,
        ModelRoute::Router {
            provider: "openai".into(),
            model: "openai/gpt-4o-mini".into()
        }
    );
    assert_eq!(a.tool_choice.as_ref().unwrap().name, js("search.web"));
}

#[test]
fn every_problem_is_a_finding_at_its_line_errors_first() {
    let l = lint_project(load("1.67.0"), LintConfig::default());
    let found: Vec<(Rule, Option<u64>)> = l.agents[0]
        .findings
        .iter()
        .map(|f| (f.rule, f.at.as_ref().map(|a| a.line)))
        .collect();
    assert_eq!(
        found,
        [
            (Rule::Collision, Some(4)),
            (Rule::ToolChoiceNotSent, Some(8)),
            (Rule::ActiveToolsNotSent, Some(9)),
            (Rule::Rewritten, Some(3)),
            (Rule::Rewritten, None),
            (Rule::Rewritten, Some(6)),
        ]
    );
    assert_eq!(l.worst(), Severity::Error);
    let c = l.counts();
    assert_eq!((c.agents, c.tools, c.errors, c.warnings), (1, 4, 3, 3));
    let text = l.to_text(&TextStyle::plain());
    assert!(
        text.contains("error   src/a.ts:4:5: \"search web\" -> (not sent): collision"),
        "{text}"
    );
    assert!(
        text.contains("(not written in the source): \"\\ud800x\" -> \"_x\""),
        "{text}"
    );
    assert!(text.ends_with("1 agent, 4 tools: 3 errors, 3 warnings (@mastra/core 1.67.0, Node v24.22.3, loaded with node under the JavaScript guard)\n"), "{text}");
}

#[test]
fn active_tools_before_1_1_0_break_nothing() {
    let l = lint_project(load("1.0.4"), LintConfig::default());
    let a = &l.agents[0];
    assert!(a
        .findings
        .iter()
        .all(|f| f.rule != Rule::ActiveToolsNotSent));
    assert!(a.notes[0].contains("ignored by @mastra/core 1.0.4"));
}

#[test]
fn mastras_names_pass_the_openai_compatible_rule() {
    // Every name Mastra sends matches ^[a-zA-Z0-9_-]{1,64}$; the rule is
    // still asked, and a name outside it is rejected.
    let route = ModelRoute::Unknown;
    assert!(provider_accepts(&route, &js("_1tool")));
    assert!(!provider_accepts(&route, &js("search.web")));
    assert!(!provider_accepts(&route, &js(&"k".repeat(65))));
}

#[test]
fn a_loader_error_keeps_its_status() {
    let e = Json::parse(
        r#"{"error":{"kind":"no-mastra","message":"x exports no Mastra instance","status":2}}"#,
    )
    .unwrap();
    let DecodeError::Reported(failure) = parse_loaded(&e).unwrap_err() else {
        panic!("a reported failure");
    };
    assert_eq!((failure.kind.as_str(), failure.status), ("no-mastra", 2));
    let e = Json::parse(r#"{"error":{"kind":"loader","message":"bug"}}"#).unwrap();
    assert!(matches!(
        parse_loaded(&e).unwrap_err(),
        DecodeError::Reported(LoadFailure { status: 3, .. })
    ));
    assert_eq!(
        parse_loaded(&Json::parse("{}").unwrap()).unwrap_err(),
        DecodeError::NoMastra
    );
}

fn router(provider: &str) -> ModelRoute {
    ModelRoute::Router {
        provider: provider.into(),
        model: "m".into(),
    }
}

#[test]
fn each_agent_is_judged_by_its_own_providers_name_rule() {
    let long = JsString::from("a".repeat(100).as_str());
    let dotted = JsString::from("search.web");
    assert!(provider_accepts(&router("anthropic"), &long));
    assert!(!provider_accepts(&router("openai"), &long));
    assert!(provider_accepts(&router("google"), &dotted));
    assert!(!provider_accepts(&router("mistral"), &dotted));
    let sdk = ModelRoute::Sdk {
        provider: "anthropic.messages".into(),
        model: "m".into(),
    };
    assert_eq!(sdk.wire_route(), Route::Anthropic);
    assert_eq!(router("no-such").wire_route(), Route::OpenAiCompatible);
    assert!(!provider_accepts(&ModelRoute::Unknown, &long));
}

#[test]
fn a_document_the_loader_does_not_write_names_what_is_missing() {
    let mut text = doc("1.67.0").to_compact();
    text = text.replacen(r#""source":"mcp""#, r#""source":"plugin""#, 1);
    let e = parse_loaded(&Json::parse(&text).unwrap()).unwrap_err();
    assert_eq!(e, DecodeError::NoToolSource);
    assert_eq!(e.to_string(), "a tool has no known `source`");
    let text = doc("latest").to_compact();
    let e = parse_loaded(&Json::parse(&text).unwrap()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "@mastra/core latest is not a version lint knows"
    );
}

/// A loader document with one agent, two tools (`files.delete`, id
/// `delete-file`; `disk.wipe`, which waits of its own), a policy that
/// names the key, instructions and a stream handler that name it too.
fn names_doc(version: &str, answer_for_key: &str) -> LoadedProject {
    let doc = Json::parse(&format!(
        r#"{{"project":"/p","entry":"src/mastra/index.ts","node":"v24.22.3",
        "mastra":{{"version":"{version}","dir":"/p"}},"loader":"node","isolation":"guard",
        "agents":[{{"registeredAs":"a","id":"a","route":{{"kind":"router","provider":"openai","model":"openai/gpt-4o"}},
          "tools":[
            {{"key":"files.delete","id":"delete-file","approval":"none","source":"tool","at":{{"file":"src/t.ts","line":3,"column":3}}}},
            {{"key":"disk.wipe","id":"wipe","approval":"always","source":"tool","at":null}}],
          "approval":[{{"option":"defaultOptions","at":{{"file":"src/a.ts","line":12,"column":5}},
            "answers":[{{"name":"files.delete","answer":"{answer_for_key}"}},{{"name":"delete-file","answer":"false"}},
              {{"name":"files_delete","answer":"false"}},{{"name":"disk.wipe","answer":"true"}},{{"name":"disk_wipe","answer":"false"}}],
            "written":[{{"name":"files.delete","at":{{"file":"src/a.ts","line":12,"column":57}}}}]}}],
          "instructions":{{"text":"Tools:\nCall files.delete, never wipe.","at":{{"file":"src/a.ts","line":8,"column":17,"template":true}}}}}}],
        "comparisons":[{{"name":"files.delete","at":{{"file":"src/a.ts","line":12,"column":57}}}},
          {{"name":"delete-file","at":{{"file":"src/s.ts","line":4,"column":30}}}},
          {{"name":"files_delete","at":{{"file":"src/s.ts","line":5,"column":30}}}}],
        "approvalCalls":[{{"method":"generate","receiver":"a","at":{{"file":"src/run.ts","line":5,"column":36}}}}]}}"#
    ))
    .unwrap();
    parse_loaded(&doc).unwrap()
}

/// A finding as the tests compare it: its rule, its subject, its line and column.
type Placed = (Rule, String, Option<(u64, u64)>);

fn rules_at(l: &ProjectLint) -> Vec<Placed> {
    l.all_findings()
        .map(|f| {
            (
                f.rule,
                f.subject.to_lossy(),
                f.at.as_ref().map(|a| (a.line, a.column)),
            )
        })
        .filter(|f| {
            matches!(
                f.0,
                Rule::ApprovalByKey | Rule::InstructionsNameNotSent | Rule::ToolNameComparedToKey
            )
        })
        .collect()
}

/// From the release that asks the policy, a policy that approves the key
/// and not the sent name lets the tool run unapproved; before it, every
/// tool waits and the finding says from when it will not; a policy that
/// throws for the key decides as approval does; a tool that waits of its
/// own is never a finding; on 0.x a note says the policy is not judged.
#[test]
fn an_approval_policy_is_judged_by_the_installed_releases_rule() {
    let on = |v: &str, key: &str| lint_project(names_doc(v, key), LintConfig::default());
    let asked = on("1.38.0", "true");
    let found = rules_at(&asked);
    assert_eq!(
        found,
        [
            (Rule::ApprovalByKey, "files.delete".into(), Some((12, 57))),
            (
                Rule::InstructionsNameNotSent,
                "files.delete".into(),
                Some((9, 6))
            ),
            (
                Rule::ToolNameComparedToKey,
                "delete-file".into(),
                Some((4, 30))
            ),
        ],
        "the comparison inside the policy is the policy's finding"
    );
    let says = &asked.agents[0].findings[0].message;
    assert!(
        says.starts_with("\"files.delete\" runs without approval"),
        "{says}"
    );
    let before = on("1.37.1", "true");
    let says = &before.agents[0].findings[0].message;
    assert!(
        says.starts_with("@mastra/core 1.37.1 takes any requireToolApproval function as true, so every tool waits for approval; from 1.38.0"),
        "{says}"
    );
    assert!(on("1.67.0", "throws").agents[0].findings[0]
        .message
        .contains("answers throws (approve first) for the key"));
    assert!(rules_at(&on("1.67.0", "false"))
        .iter()
        .all(|f| f.0 != Rule::ApprovalByKey));
    // Approving the sent name and not the key is a policy written for the
    // sent name, unless it writes the key; but a call by the id finds the
    // tool and is asked with the id, where that policy lets it run.
    let mut wire = names_doc("1.67.0", "false");
    let policy = &mut wire.agents[0].approval[0];
    for (name, answer) in policy.answers.iter_mut() {
        if *name == js("files_delete") {
            *answer = PolicyAnswer::True;
        }
    }
    policy.written.clear();
    let judged = lint_project(wire.clone(), LintConfig::default());
    assert_eq!(
        rules_at(&judged)
            .into_iter()
            .filter(|f| f.0 == Rule::ApprovalByKey)
            .collect::<Vec<_>>(),
        [(Rule::ApprovalByKey, "files.delete".into(), Some((12, 5)))]
    );
    let says = &judged.agents[0].findings[0].message;
    assert!(
        says.starts_with("\"files.delete\" runs without approval when the model calls it by its id \"delete-file\": its defaultOptions answers true for the name the tool is sent as, \"files_delete\""),
        "{says}"
    );
    assert!(
        says.contains("give the tool requireApproval: true in createTool")
            && says.contains("(\"files_delete\", \"delete-file\")"),
        "the fix holds whatever name the model calls: {says}"
    );
    // A policy that holds every name a call can carry is no finding.
    let mut every = wire.clone();
    for (_, answer) in every.agents[0].approval[0].answers.iter_mut() {
        *answer = PolicyAnswer::True;
    }
    let judged = lint_project(every, LintConfig::default());
    assert!(rules_at(&judged).iter().all(|f| f.0 != Rule::ApprovalByKey));
    // Before the release that asks the policy every call waits; the
    // finding says what happens from it.
    let mut early = wire.clone();
    early.mastra = crate::version::spec::MastraVersion::new(1, 37, 1);
    let judged = lint_project(early, LintConfig::default());
    assert!(judged.agents[0].findings[0]
        .message
        .starts_with("@mastra/core 1.37.1 takes any requireToolApproval function as true"));
    wire.agents[0].approval[0].written.push(NameUse {
        name: js("files.delete"),
        at: None,
    });
    let judged = lint_project(wire, LintConfig::default());
    let says = &judged.agents[0].findings[0].message;
    assert!(
        says.starts_with("\"files.delete\" waits for approval"),
        "{says}"
    );
    let zero = on("0.24.9", "true");
    assert!(rules_at(&zero).iter().all(|f| f.0 != Rule::ApprovalByKey));
    assert!(
        zero.agents[0]
            .notes
            .iter()
            .any(|n| n.contains("not judged on @mastra/core 0.24.9")),
        "{:?}",
        zero.agents[0].notes
    );
}

/// A finding as the resume tests compare it: its subject, its severity,
/// its line and column.
type Lost = (String, Severity, Option<(u64, u64)>);

/// The `approval-policy-lost-on-resume` findings of a judged project.
fn lost_on_resume(l: &ProjectLint) -> Vec<Lost> {
    l.all_findings()
        .filter(|f| f.rule == Rule::PolicyLostOnResume)
        .map(|f| {
            (
                f.subject.to_lossy(),
                f.severity,
                f.at.as_ref().map(|a| (a.line, a.column)),
            )
        })
        .collect()
}

/// From the table line's first release, a resumed run has lost the
/// `requireToolApproval` function passed to `generate`: an error at the
/// function, its subject the agent the call is made on, with the fix;
/// the agent's default-options function is kept and no finding. Before
/// that release a function held every call.
#[test]
fn a_policy_function_is_lost_on_resume_from_the_table_lines_release() {
    use crate::model::releases::APPROVAL_POLICY_LOST_ON_RESUME;
    let first = APPROVAL_POLICY_LOST_ON_RESUME.first;
    let on = |v: &str| lint_project(names_doc(v, "true"), LintConfig::default());
    for version in [first.to_string(), "1.67.0".to_string()] {
        let judged = on(&version);
        assert_eq!(judged.agents[0].agent.approval.len(), 1, "{version}");
        assert_eq!(
            lost_on_resume(&judged),
            [("a".to_string(), Severity::Error, Some((5, 36)))],
            "{version}"
        );
        let says = &judged.findings[0].message;
        assert!(
            says.starts_with("after an approval resumes the run, later calls run without approval")
                && says.contains("passed to a.generate()")
                && says.contains("`requireApproval: true` in createTool")
                && says.contains("`requireToolApproval: true`"),
            "{says}"
        );
        // 1.67.0 honours a decline again (APPROVAL_DECLINE_LOST_ON_RESUME).
        assert_eq!(
            says.contains("declines runs all the same"),
            version == first.to_string(),
            "{says}"
        );
    }
    let before = MastraVersion::new(first.major, first.minor - 1, 1);
    assert_eq!(lost_on_resume(&on(&before.to_string())), []);
    assert_eq!(lost_on_resume(&on("0.24.9")), []);
}

/// `requireToolApproval: true` in a call is no function, so the loader
/// lists no call for it and nothing is lost.
#[test]
fn approval_that_holds_across_a_resume_is_no_finding() {
    let mut flag = names_doc("1.67.0", "true");
    flag.approval_calls.clear();
    let judged = lint_project(flag, LintConfig::default());
    assert_eq!(lost_on_resume(&judged), []);
}

/// The `tool-approval-fn-overrides-agent-policy` findings: subject and place.
fn overridden(l: &ProjectLint) -> Vec<(String, Option<(u64, u64)>)> {
    l.all_findings()
        .filter(|f| f.rule == Rule::ToolApprovalFnOverridesPolicy)
        .map(|f| {
            (
                f.subject.to_lossy(),
                f.at.as_ref().map(|a| (a.line, a.column)),
            )
        })
        .collect()
}

/// A tool with its own approval function beside an agent policy that holds
/// it: a finding at the tool from the release that asks the tool's
/// function, none before; from the release that asks the policy, only
/// where the policy holds the name the tool is sent as.
#[test]
fn a_tools_own_approval_function_beside_a_policy_that_holds_it_is_a_finding() {
    let doc = |version: &str, sent_answer: &str| {
        let mut d = names_doc(version, "true");
        let tool = d.agents[0]
            .tools
            .iter_mut()
            .find(|t| t.key.to_lossy() == "files.delete")
            .unwrap();
        tool.approval = OwnApproval::Function;
        for (name, answer) in &mut d.agents[0].approval[0].answers {
            if name.to_lossy() == "files_delete" {
                *answer = if sent_answer == "true" {
                    PolicyAnswer::True
                } else {
                    PolicyAnswer::False
                };
            }
        }
        lint_project(d, LintConfig::default())
    };
    let at_tool = vec![("files.delete".to_string(), Some((3, 3)))];
    assert_eq!(overridden(&doc("1.67.0", "true")), at_tool);
    assert_eq!(overridden(&doc("1.67.0", "false")), []);
    // 1.26.0 to 1.37.1 hold every call for any policy function.
    assert_eq!(overridden(&doc("1.30.0", "false")), at_tool);
    assert_eq!(overridden(&doc("1.25.0", "true")), []);
    // Without its own function the tool is the policy's alone.
    let mut plain = names_doc("1.67.0", "true");
    for (name, answer) in &mut plain.agents[0].approval[0].answers {
        if name.to_lossy() == "files_delete" {
            *answer = PolicyAnswer::True;
        }
    }
    assert_eq!(overridden(&lint_project(plain, LintConfig::default())), []);
}

/// A loader document with one agent taking MCP server `fs`'s tools by
/// LISTING (`tools` or `toolsets`), its toolChoice, activeTools and policy
/// naming `delete.file` by NAMES (toolChoice, activeTools, the name its
/// policy holds), and server `vault` whose own `requireToolApproval` is
/// `true`.
fn mcp_doc(version: &str, listing: &str, names: [&str; 3], agent_policy: bool) -> LoadedProject {
    let [choice, active, held] = names;
    let (key, sent, other, other_sent) = if listing == "toolsets" {
        (
            "delete.file",
            "delete_file",
            "fs_delete.file",
            "fs_delete_file",
        )
    } else {
        (
            "fs_delete.file",
            "fs_delete_file",
            "delete.file",
            "delete_file",
        )
    };
    let answers: Vec<String> = [key, sent, other, other_sent, "fs_delete.file"]
        .iter()
        .map(|n| format!(r#"{{"name":"{n}","answer":"{}"}}"#, n == &held))
        .collect();
    let policy = if agent_policy {
        format!(
            r#"[{{"option":"defaultOptions","at":{{"file":"src/a.ts","line":15,"column":5}},"answers":[{}],
            "written":[{{"name":"{held}","at":{{"file":"src/a.ts","line":15,"column":60}}}}]}}]"#,
            answers.join(",")
        )
    } else {
        "[]".to_string()
    };
    let doc = Json::parse(&format!(
        r#"{{"project":"/p","entry":"src/mastra/index.ts","node":"v24.22.3",
        "mastra":{{"version":"{version}","dir":"/p"}},"loader":"node","isolation":"sandbox",
        "agents":[{{"registeredAs":"a","id":"a","route":{{"kind":"router","provider":"openai","model":"openai/gpt-4o"}},
          "tools":[
            {{"key":"{key}","id":"fs_delete.file","approval":"none","source":"mcp","server":"fs","listing":"{listing}",
              "other":{{"key":"{other}","sentAs":"{other_sent}"}},"at":null}},
            {{"key":"vault_list","id":"vault_list","approval":"none","source":"mcp","server":"vault","listing":"tools",
              "other":{{"key":"list","sentAs":"list"}},"at":null}}],
          "toolChoice":{{"tool":"{choice}","at":{{"file":"src/a.ts","line":13,"column":44}}}},
          "activeTools":[{{"name":"{active}","at":{{"file":"src/a.ts","line":14,"column":19}}}},{{"name":"vault_list","at":null}}],
          "approval":{policy},
          "mcp":[{{"server":"fs","status":"listed","tools":["delete.file"],"approval":null}},
            {{"server":"vault","status":"listed","tools":["list"],"approval":"always",
              "approvalAt":{{"file":"src/mcp.ts","line":26,"column":7}},"at":{{"file":"src/mcp.ts","line":21,"column":5}}}}]}}]}}"#
    ))
    .unwrap();
    parse_loaded(&doc).unwrap()
}

/// The findings of RULE: subject and line.
fn of_rule(l: &ProjectLint, rule: Rule) -> Vec<(String, Option<u64>)> {
    l.all_findings()
        .filter(|f| f.rule == rule)
        .map(|f| (f.subject.to_lossy(), f.at.as_ref().map(|a| a.line)))
        .collect()
}

/// Names written with the other listing's spelling are the listing rule's
/// findings, in place of the generic ones, on the releases that apply
/// each option: on 1.67.0 toolChoice, activeTools and the policy; on
/// 1.0.4 toolChoice alone (activeTools ignored, the policy not asked); on
/// 0.x the rule is not applied. Names that agree are nothing, both ways.
#[test]
fn an_mcp_tool_named_by_the_other_listing_is_a_finding_at_the_name() {
    let judged = |v: &str, listing: &str, names: [&str; 3]| {
        lint_project(mcp_doc(v, listing, names, true), LintConfig::default())
    };
    let toolsets = ["fs_delete_file", "fs_delete.file", "fs_delete_file"];
    let on_1_67 = judged("1.67.0", "toolsets", toolsets);
    assert_eq!(
        of_rule(&on_1_67, Rule::McpListingName),
        [
            ("fs_delete_file".to_string(), Some(13)),
            ("fs_delete.file".to_string(), Some(14)),
            ("delete.file".to_string(), Some(15)),
        ]
    );
    assert_eq!(of_rule(&on_1_67, Rule::ToolChoiceNotSent), []);
    assert_eq!(of_rule(&on_1_67, Rule::ActiveToolsNotSent), []);
    let says = &on_1_67.agents[0].findings[0].message;
    assert!(
        says.contains("as listTools() sends it")
            && says.contains("by listToolsets(), which sends it as \"delete_file\""),
        "{says}"
    );
    let on_1_0_4 = judged("1.0.4", "toolsets", toolsets);
    assert_eq!(
        of_rule(&on_1_0_4, Rule::McpListingName),
        [("fs_delete_file".to_string(), Some(13))]
    );
    let tools = judged(
        "1.67.0",
        "tools",
        ["delete_file", "delete.file", "delete_file"],
    );
    assert_eq!(
        of_rule(&tools, Rule::McpListingName),
        [
            ("delete_file".to_string(), Some(13)),
            ("delete.file".to_string(), Some(14)),
            ("fs_delete.file".to_string(), Some(15)),
        ]
    );
    let zero = judged("0.24.9", "toolsets", toolsets);
    assert_eq!(of_rule(&zero, Rule::McpListingName), []);
    assert_eq!(of_rule(&zero, Rule::ToolChoiceNotSent).len(), 1);
    for (listing, names) in [
        ("toolsets", ["delete_file", "delete_file", "delete_file"]),
        (
            "tools",
            ["fs_delete_file", "fs_delete_file", "fs_delete_file"],
        ),
    ] {
        assert_eq!(
            of_rule(&judged("1.67.0", listing, names), Rule::McpListingName),
            []
        );
    }
}

/// A server's own `requireToolApproval` on a release whose `@mastra/mcp`
/// ignores it is a finding at the option, up to the release before
/// `MCP_SERVER_APPROVAL`; none from it, none on 0.x, and none where the
/// agent's own policy holds every call.
#[test]
fn a_server_policy_the_release_ignores_is_a_finding_at_the_option() {
    use crate::model::releases::MCP_SERVER_APPROVAL;
    let names = ["delete_file", "delete_file", "delete_file"];
    let judged = |v: &str, policy: bool| {
        lint_project(mcp_doc(v, "toolsets", names, policy), LintConfig::default())
    };
    let first = MCP_SERVER_APPROVAL.first;
    let before = MastraVersion::new(first.major, first.minor - 1, 1).to_string();
    for v in ["1.0.4", before.as_str()] {
        let l = judged(v, false);
        assert_eq!(
            of_rule(&l, Rule::McpServerPolicyIgnored),
            [("vault".to_string(), Some(26))],
            "{v}"
        );
        let says = &l.agents[0]
            .findings
            .iter()
            .find(|f| f.rule == Rule::McpServerPolicyIgnored)
            .unwrap()
            .message;
        assert!(
            says.contains("\"vault_list\" run unapproved")
                && says.contains(&format!("upgrade to @mastra/core {first} or later")),
            "{says}"
        );
        assert_eq!(of_rule(&judged(v, true), Rule::McpServerPolicyIgnored), []);
    }
    for v in [first.to_string(), "1.67.0".into(), "0.24.9".into()] {
        assert_eq!(
            of_rule(&judged(&v, false), Rule::McpServerPolicyIgnored),
            [],
            "{v}"
        );
    }
}

/// A `requireToolApproval: true` passed to a call on the agent holds a
/// tool's own approval function's calls no more than the default options
/// do: a finding at the tool from `TOOL_APPROVAL_FN_ASKED`; none for a
/// call on another agent, nor before that release. The call is no
/// function, so nothing is lost on resume.
#[test]
fn a_calls_require_tool_approval_true_beside_a_tools_function_is_a_finding() {
    let doc = |version: &str, agent: &str| {
        let mut d = names_doc(version, "false");
        d.agents[0].approval.clear();
        d.agents[0].tools[0].approval = OwnApproval::Function;
        d.approval_calls[0].always = true;
        d.approval_calls[0].agent = Some(js(agent));
        lint_project(d, LintConfig::default())
    };
    let l = doc("1.67.0", "a");
    assert_eq!(overridden(&l), [("files.delete".to_string(), Some((3, 3)))]);
    assert!(
        l.agents[0].findings[0]
            .message
            .contains("the requireToolApproval: true passed to a.generate() holds it"),
        "{}",
        l.agents[0].findings[0].message
    );
    assert_eq!(lost_on_resume(&l), []);
    assert_eq!(overridden(&doc("1.67.0", "b")), []);
    assert_eq!(overridden(&doc("1.25.0", "a")), []);
}

/// The default options' `requireToolApproval: true`, which the loader
/// writes as a policy answering true for every name, holds a tool's own
/// approval function's calls no more than a policy function does: a
/// finding at the tool, and on 0.x no note that a function went unjudged.
#[test]
fn default_options_require_tool_approval_true_beside_a_tools_function_is_a_finding() {
    let doc = |version: &str| {
        let mut d = names_doc(version, "true");
        let policy = &mut d.agents[0].approval[0];
        policy.always = true;
        policy.written.clear();
        for (_, answer) in &mut policy.answers {
            *answer = PolicyAnswer::True;
        }
        d.agents[0].tools[0].approval = OwnApproval::Function;
        lint_project(d, LintConfig::default())
    };
    let l = doc("1.67.0");
    assert_eq!(overridden(&l), [("files.delete".to_string(), Some((3, 3)))]);
    assert!(l.agents[0]
        .findings
        .iter()
        .all(|f| f.rule != Rule::ApprovalByKey));
    let zero = doc("0.24.9");
    assert_eq!(overridden(&zero), []);
    assert!(zero.agents[0]
        .notes
        .iter()
        .all(|n| !n.contains("not judged")));
}

/// On the releases where a held call runs before its answer (0.20.0 to
/// 0.22.2), every approval setting is a finding at its option: the
/// default options' policy, a tool's own `requireApproval` (at the tool),
/// a function passed to a call; each message names the first release that
/// holds. Before the band the option is not read, after it the call waits:
/// nothing either side, nor on 1.x.
#[test]
fn every_approval_setting_is_an_error_where_a_held_call_runs_before_its_answer() {
    use crate::model::releases::{APPROVAL_HELD_CALL_RUNS, APPROVAL_READ_ON_0X};
    let on = |v: &str| lint_project(names_doc(v, "true"), LintConfig::default());
    let first = APPROVAL_HELD_CALL_RUNS.first;
    let last = APPROVAL_HELD_CALL_RUNS.last.unwrap();
    let fixed = APPROVAL_HELD_CALL_RUNS.ended.unwrap();
    assert_eq!(first, APPROVAL_READ_ON_0X.first);
    for v in [first.to_string(), "0.21.1".into(), last.to_string()] {
        let judged = on(&v);
        let mut found = of_rule(&judged, Rule::HeldCallRuns);
        found.sort();
        assert_eq!(
            found,
            [
                ("a".to_string(), Some(5)),
                ("a".to_string(), Some(12)),
                ("disk.wipe".to_string(), None),
            ],
            "{v}"
        );
        let all: Vec<&Finding> = judged
            .all_findings()
            .filter(|f| f.rule == Rule::HeldCallRuns)
            .collect();
        assert!(all.iter().all(|f| f.severity == Severity::Error));
        let says: Vec<&str> = all.iter().map(|f| f.message.as_str()).collect();
        for s in &says {
            assert!(
                s.contains(&format!(
                    "@mastra/core {v} (as every release from {first} to {last})"
                )) && s.contains(&format!("upgrade @mastra/core to {fixed} or later")),
                "{s}"
            );
        }
        assert!(says.iter().any(|s| s.starts_with(
            "the agent's defaultOptions requireToolApproval function does not stop the tool"
        )));
        assert!(says
            .iter()
            .any(|s| s
                .starts_with("the requireApproval of tool \"disk.wipe\" does not stop the tool")));
        assert!(says.iter().any(|s| s.starts_with(
            "the requireToolApproval function passed to a.generate() does not stop the tool"
        )));
    }
    let before = MastraVersion::new(0, first.minor - 1, 1);
    for v in [
        before.to_string(),
        fixed.to_string(),
        "0.24.9".into(),
        "1.67.0".into(),
    ] {
        assert_eq!(of_rule(&on(&v), Rule::HeldCallRuns), [], "{v}");
    }
}
