//! The names a project writes outside its tool keys, judged against the
//! name each tool is sent under: its approval policies
//! (`approval-policy-decides-on-the-key`), its instructions
//! (`instructions-name-a-tool-not-sent`) and the strings its source compares
//! a `toolName` with (`tool-name-compared-to-key`).
//!
//! In: a `ProjectAgent` (or every agent, for the comparisons), the
//! `LintReport` that says what each key is sent as, and the installed
//! release. Out: `Finding`s, each at the string that names the key or id.
//! Every `toolName` Mastra hands the project's code is the sent name, so a
//! key or id that differs from it is what each rule looks for.

use super::basis::{quote, Finding};
use super::rules::Rule;
use super::{ApprovalPolicy, Location, NameUse, OwnApproval, PolicyAnswer, ProjectAgent};
use crate::js::string::JsString;
use crate::lint::{lint, LintInput, LintReport, Reference, Severity};
use crate::model::releases::APPROVAL_POLICY_ASKED;
use crate::version::spec::MastraVersion;

/// A tool of the agent's, by the names the project may write for it.
struct Named<'a> {
    key: &'a JsString,
    id: Option<&'a JsString>,
    sent: &'a JsString,
    approval: OwnApproval,
}

/// Each tool that is sent, with its key, id and sent name.
fn named<'a>(agent: &'a ProjectAgent, report: &'a LintReport) -> Vec<Named<'a>> {
    agent
        .tools
        .iter()
        .filter_map(|t| {
            let sent = report
                .keys
                .iter()
                .find(|k| k.key == t.key)?
                .sent_as
                .as_ref()?;
            Some(Named {
                key: &t.key,
                id: t.id.as_ref(),
                sent,
                approval: t.approval,
            })
        })
        .collect()
}

/// Whether an answer makes the call wait for approval on a release that
/// asks the policy: a truthy answer, and one that throws. `None` when it
/// did not settle.
fn waits(answer: PolicyAnswer) -> Option<bool> {
    match answer {
        PolicyAnswer::True | PolicyAnswer::Throws => Some(true),
        PolicyAnswer::False => Some(false),
        PolicyAnswer::Timeout => None,
    }
}

fn says(answer: PolicyAnswer) -> &'static str {
    match answer {
        PolicyAnswer::True => "true",
        PolicyAnswer::False => "false",
        PolicyAnswer::Throws => "throws (approve first)",
        PolicyAnswer::Timeout => "no answer",
    }
}

/// Each tool whose approval the agent's policies decide differently for its
/// key or id than for its sent name, the name Mastra asks them with. On a
/// release before `APPROVAL_POLICY_ASKED` every tool waits (any function is
/// true there), and the finding says what the first release that asks the
/// policy does. A tool with its own `requireApproval` is left out: a true
/// flag always waits, and its own function decides in the policy's place.
/// On 0.x the policy is not judged; a note says so.
pub fn approval_findings(
    agent: &ProjectAgent,
    report: &LintReport,
    version: MastraVersion,
) -> (Vec<Finding>, Vec<String>) {
    if agent.approval.is_empty() {
        return (Vec::new(), Vec::new());
    }
    if version.major == 0 {
        let options: Vec<&str> = agent
            .approval
            .iter()
            .filter(|p| !p.always)
            .map(|p| p.option.as_str())
            .collect();
        if options.is_empty() {
            return (Vec::new(), Vec::new());
        }
        return (
            Vec::new(),
            vec![format!(
                "the requireToolApproval function of {} is not judged on @mastra/core {version}: lint models how 1.x asks it",
                options.join(", ")
            )],
        );
    }
    let mut findings = Vec::new();
    for policy in &agent.approval {
        for tool in named(agent, report) {
            if tool.approval != OwnApproval::None {
                continue;
            }
            let found = policy_finding(policy, &tool, version)
                .or_else(|| id_bypass_finding(policy, &tool, version));
            findings.extend(found);
        }
    }
    (findings, Vec::new())
}

fn policy_finding(
    policy: &ApprovalPolicy,
    tool: &Named,
    version: MastraVersion,
) -> Option<Finding> {
    let asked = policy.answer(tool.sent)?;
    let runs = !waits(asked)?;
    let (what, written, answer) = [("key", Some(tool.key)), ("id", tool.id)]
        .into_iter()
        .filter_map(|(what, name)| Some((what, name?)))
        .filter(|(_, name)| *name != tool.sent)
        .find_map(|(what, name)| {
            let answer = policy.answer(name)?;
            let differs = waits(answer)? == runs;
            // Approving the key and not the sent name can only be a policy
            // written for the key. The other way round is also what a
            // policy written for the sent name answers: it is the key's
            // only where the policy writes the key.
            let on_the_key = runs || policy.written.iter().any(|w| w.name == *name);
            (differs && on_the_key).then_some((what, name, answer))
        })?;
    let at = policy
        .written
        .iter()
        .find(|w| w.name == *written)
        .and_then(|w| w.at.clone())
        .or_else(|| policy.at.clone());
    let outcome = if runs {
        format!("{} runs without approval", quote(tool.key))
    } else {
        format!("{} waits for approval", quote(tool.key))
    };
    let decided = format!(
        "its {} answers {} for the {what} {} but Mastra asks it with the name the tool is sent as, {}, where it answers {}",
        policy.option,
        says(answer),
        quote(written),
        quote(tool.sent),
        says(asked)
    );
    Some(approval_finding(tool, version, &outcome, &decided, at))
}

/// A policy that holds the tool under the name it is sent as but lets it
/// run under its id: every release finds a call by the id (the tool-call
/// step falls back to the tool whose id is the called name), and from
/// `APPROVAL_POLICY_ASKED` asks the policy with the id, so a policy
/// written against the sent name fails open when the model calls the id
/// (`cases/names/call-by-id-fails-open-under-a-policy-by-wire-name-*.json`,
/// the ledger's `approval-policy-bypassed-by-id`).
fn id_bypass_finding(
    policy: &ApprovalPolicy,
    tool: &Named,
    version: MastraVersion,
) -> Option<Finding> {
    let id = tool.id.filter(|id| *id != tool.sent)?;
    let sent = policy.answer(tool.sent)?;
    let by_id = policy.answer(id)?;
    if !waits(sent)? || waits(by_id)? {
        return None;
    }
    let at = [tool.sent, tool.key]
        .into_iter()
        .find_map(|name| policy.written.iter().find(|w| w.name == *name))
        .and_then(|w| w.at.clone())
        .or_else(|| policy.at.clone());
    let outcome = format!(
        "{} runs without approval when the model calls it by its id {}",
        quote(tool.key),
        quote(id)
    );
    let decided = format!(
        "its {} answers {} for the name the tool is sent as, {}, but a call by the id finds the tool too and Mastra asks the policy with {}, where it answers {}",
        policy.option,
        says(sent),
        quote(tool.sent),
        quote(id),
        says(by_id)
    );
    Some(approval_finding(tool, version, &outcome, &decided, at))
}

/// The finding of a policy that gates `tool` by one of its names and lets
/// another through, with the fix that holds whatever name the model calls:
/// comparing with any one name fails open under another.
fn approval_finding(
    tool: &Named,
    version: MastraVersion,
    outcome: &str,
    decided: &str,
    at: Option<Location>,
) -> Finding {
    let mut names = vec![quote(tool.sent)];
    names.extend(tool.id.filter(|id| *id != tool.sent).map(quote));
    let fix = format!(
        "give the tool requireApproval: true in createTool, which holds its calls whatever name the model calls, or have the policy look the tool up and hold every name a call of it can carry ({})",
        names.join(", ")
    );
    let asked = APPROVAL_POLICY_ASKED.first;
    let message = if version.release() >= asked {
        format!("{outcome}: {decided}; {fix} (Mastra asks the policy from {asked})")
    } else {
        format!(
            "@mastra/core {version} takes any requireToolApproval function as true, so every tool waits for approval; from {asked} Mastra asks it, and then {outcome}: {decided}; {fix}"
        )
    };
    Finding {
        severity: Rule::ApprovalByKey.severity(),
        rule: Rule::ApprovalByKey,
        subject: tool.key.clone(),
        message,
        at,
    }
}

/// Whether a name reads as a tool's name rather than a word of prose: it
/// holds a character a sentence's words do not (`.`, `-`, `_`, a digit) or
/// a capital after its first letter. A tool whose id is `search` is not
/// found in "you search the web".
fn reads_as_a_name(name: &JsString) -> bool {
    let s = name.to_lossy();
    s.chars().enumerate().any(|(i, c)| {
        matches!(c, '.' | '-' | '_') || c.is_ascii_digit() || (i > 0 && c.is_uppercase())
    })
}

/// Whether a UTF-16 unit may be part of a tool name's word.
fn in_word(u: u16) -> bool {
    u < 128 && (u as u8 == b'_' || u as u8 == b'-' || (u as u8).is_ascii_alphanumeric())
}

/// Where NAME first stands in TEXT as a whole word, as a unit offset.
fn word_at(text: &JsString, name: &JsString) -> Option<usize> {
    let (t, n) = (text.units(), name.units());
    if n.is_empty() || n.len() > t.len() {
        return None;
    }
    (0..=t.len() - n.len()).find(|&i| {
        t[i..i + n.len()] == *n
            && (i == 0 || !in_word(t[i - 1]))
            && t.get(i + n.len()).is_none_or(|&u| !in_word(u))
    })
}

/// Where in the source the unit at OFFSET of the instructions is: on a
/// template's own lines, else at the literal.
fn place_in(at: &Location, template: bool, text: &JsString, offset: usize) -> Location {
    if !template {
        return at.clone();
    }
    let before = &text.units()[..offset];
    let newline = u16::from(b'\n');
    match before.iter().rposition(|&u| u == newline) {
        None => Location {
            // After the backtick.
            column: at.column + 1 + offset as u64,
            ..at.clone()
        },
        Some(last) => Location {
            file: at.file.clone(),
            line: at.line + before.iter().filter(|&&u| u == newline).count() as u64,
            column: (offset - last) as u64,
        },
    }
}

/// Each key or id the agent's instructions name, as a whole word, where the
/// tool is sent under another name: judged as `lint --prompt-name` judges a
/// name (the model is not offered it), with the sent name to use.
pub fn instructions_findings(
    agent: &ProjectAgent,
    report: &LintReport,
    version: MastraVersion,
) -> Vec<Finding> {
    let Some(instructions) = &agent.instructions else {
        return Vec::new();
    };
    let tools = named(agent, report);
    let mut mentioned: Vec<(JsString, usize, &JsString)> = Vec::new();
    for tool in &tools {
        for name in [Some(tool.key), tool.id].into_iter().flatten() {
            if name == tool.sent || !reads_as_a_name(name) || mentioned.iter().any(|m| m.0 == *name)
            {
                continue;
            }
            if let Some(offset) = word_at(&instructions.text, name) {
                mentioned.push((name.clone(), offset, tool.sent));
            }
        }
    }
    if mentioned.is_empty() {
        return Vec::new();
    }
    let judged = lint(&LintInput {
        keys: agent.tools.iter().map(|t| t.key.clone()).collect(),
        prompt_names: mentioned.iter().map(|m| m.0.clone()).collect(),
        version: Some(version),
        ..LintInput::default()
    });
    judged
        .names
        .iter()
        .filter(|n| n.used_in == Reference::Prompt && !n.matches)
        .filter_map(|n| {
            let (_, offset, sent) = mentioned.iter().find(|m| m.0 == n.name)?;
            let sees = n.meant.as_ref().unwrap_or(sent);
            Some(Finding {
                severity: Severity::Warning,
                rule: Rule::InstructionsNameNotSent,
                subject: n.name.clone(),
                message: format!(
                    "the instructions name {}, which the model is not offered; the model sees {}: use that name",
                    quote(&n.name),
                    quote(sees)
                ),
                at: instructions
                    .at
                    .as_ref()
                    .map(|at| place_in(at, instructions.template, &instructions.text, *offset)),
            })
        })
        .collect()
}

/// What NAME is to one of the agents' tools when it is not the name that
/// tool is sent as: a key Mastra rewrites, or an id; with the sent name.
fn not_the_sent_name(
    name: &JsString,
    agents: &[(&ProjectAgent, &LintReport)],
) -> Option<(&'static str, JsString)> {
    agents.iter().find_map(|(agent, report)| {
        named(agent, report).into_iter().find_map(|t| {
            if t.key == name && t.key != t.sent {
                Some(("a key Mastra rewrites", t.sent.clone()))
            } else if t.id == Some(name) && name != t.sent {
                Some(("a tool's id", t.sent.clone()))
            } else {
                None
            }
        })
    })
}

/// Each string the source compares a `toolName` with that is a key Mastra
/// rewrites, or a tool's id that is not its sent name, in any agent: once
/// per place, with the name the comparison sees. Places in LEAVE (where an
/// approval finding already stands) are left to that finding.
pub fn comparison_findings(
    comparisons: &[NameUse],
    agents: &[(&ProjectAgent, &LintReport)],
    leave: &[Location],
) -> Vec<Finding> {
    comparisons
        .iter()
        .filter(|c| c.at.as_ref().is_none_or(|at| !leave.contains(at)))
        .filter_map(|c| {
            let (what, sent) = not_the_sent_name(&c.name, agents)?;
            Some(Finding {
                severity: Severity::Warning,
                rule: Rule::ToolNameComparedToKey,
                subject: c.name.clone(),
                message: format!(
                    "a toolName is compared with {}, {what}: every toolName Mastra hands your code is the name the tool is sent as, so this never matches; compare with {}",
                    quote(&c.name),
                    quote(&sent)
                ),
                at: c.at.clone(),
            })
        })
        .collect()
}

/// Each name the source hands `ToolCallFilter`, `hasToolCall` or a
/// tool-call accuracy scorer that is a key Mastra rewrites, or a tool's id
/// that is not its sent name: each of those parts compares it with the
/// name a call was made by, the sent name.
pub fn sent_name_use_findings(
    uses: &[(Rule, NameUse)],
    agents: &[(&ProjectAgent, &LintReport)],
) -> Vec<Finding> {
    uses.iter()
        .filter_map(|(rule, u)| {
            let (what, sent) = not_the_sent_name(&u.name, agents)?;
            let (part, so) = match rule {
                Rule::ToolCallFilterNamesKey => (
                    "ToolCallFilter excludes",
                    "no stored call has it, and that tool's calls stay in the history",
                ),
                Rule::HasToolCallNamesKey => (
                    "hasToolCall stops at",
                    "no call has it, and the loop goes on to its step limit",
                ),
                _ => (
                    "the tool-call accuracy scorer expects",
                    "no invocation has it, and the scorer counts the call of that tool as a miss",
                ),
            };
            Some(Finding {
                severity: rule.severity(),
                rule: *rule,
                subject: u.name.clone(),
                message: format!(
                    "{part} {}, {what}: it compares with the name a tool was called by, the name it is sent as, so {so}; write {}",
                    quote(&u.name),
                    quote(&sent)
                ),
                at: u.at.clone(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn js(s: &str) -> JsString {
        JsString::from(s)
    }

    #[test]
    fn a_name_is_found_as_a_whole_word_only() {
        let text = js("Call search.web first, not search.webs or xsearch.web.");
        assert_eq!(word_at(&text, &js("search.web")), Some(5));
        assert_eq!(
            word_at(&js("use delete-file."), &js("delete-file")),
            Some(4)
        );
        assert_eq!(word_at(&js("use delete-files"), &js("delete-file")), None);
        assert!(reads_as_a_name(&js("delete-file")) && reads_as_a_name(&js("getWeather")));
        assert!(!reads_as_a_name(&js("search")));
    }

    #[test]
    fn a_template_places_each_line_where_it_is_written() {
        let at = Location {
            file: "a.ts".into(),
            line: 10,
            column: 20,
        };
        let text = js("one\ntwo delete-file");
        assert_eq!(place_in(&at, true, &text, 8).line, 11);
        assert_eq!(place_in(&at, true, &text, 8).column, 5);
        assert_eq!(place_in(&at, true, &text, 0).column, 21);
        assert_eq!(place_in(&at, false, &text, 8), at);
    }
}
