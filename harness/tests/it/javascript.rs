//! The JavaScript side (`node-probe/`, `npm/`), run with real Node: Biome
//! finds nothing to format or fix (what `make check` runs); the probe passes
//! its own selftest on the pinned versions; the repro script's reading of a
//! body and of a symptom (`node-probe/reading.mjs`, by the tables the Rust
//! side generates) agrees with the harness's on every route; a repro
//! script runs a case's sources with its guard in place; and the probe's MCP
//! server reads the same to the MCP client as the official SDK's server.

use crate::common::{bin, npm_install, root, text};
use mastra_conform::case::Case;
use mastra_conform::install::layout::{default_cache, Installs};
use mastra_conform::js::json::Json;
use mastra_conform::judge::known::{KnownIssue, Severity, Symptom};
use mastra_conform::observation::{projection, Captured};
use mastra_conform::report::repro::{reading_tables, Repro, Shows};
use mastra_conform::route::Route;
use mastra_conform::version::spec::MastraVersion;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn installs() -> Installs {
    Installs {
        cache: default_cache(),
        probe_dir: root().join("node-probe"),
        install_timeout: Duration::from_secs(600),
        cancel: None,
    }
}

fn node() -> PathBuf {
    installs().node().expect("the pinned Node").path
}

fn install(v: &str) -> PathBuf {
    installs()
        .ensure(MastraVersion::parse(v).unwrap(), None)
        .unwrap_or_else(|e| panic!("installing {v}: {e}"))
}

#[test]
fn biome_finds_nothing_to_format_or_fix() {
    let biome = installs()
        .biome()
        .unwrap_or_else(|e| panic!("installing Biome: {e}"));
    let out = Command::new(&biome)
        .args(["ci", "--colors=off"])
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", biome.display()));
    assert!(
        out.status.success(),
        "Biome found problems in node-probe/ or npm/ (biome.json); fix what it lints, \
         and format with:\n  {} check --write\n\n{}",
        biome.display(),
        text(&out)
    );
}

/// The pinned versions' installs.
fn pinned() -> [PathBuf; 2] {
    [install("1.0.4"), install("1.67.0")]
}

/// `node SCRIPT DIR...`, SCRIPT under the repository's root.
fn node_on(script: &str, dirs: &[PathBuf]) -> std::process::Output {
    Command::new(node())
        .arg(root().join(script))
        .args(dirs)
        .output()
        .unwrap_or_else(|e| panic!("node {script}: {e}"))
}

#[test]
fn the_probe_passes_its_selftest_on_the_pinned_versions() {
    let out = node_on("node-probe/selftest.mjs", &pinned());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("ok ") || l.starts_with("FAIL") || l.starts_with("     "))
        .collect();
    assert!(out.status.success(), "{}", report.join("\n"));
    assert!(stderr.contains("all passed"), "{stderr}");
    assert!(report.len() > 40, "{}", report.join("\n"));
}

/// The probe's MCP servers (the harness's `mcp-server` on the Rust SDK, and
/// `node-probe/mcp-server.mjs`) must be indistinguishable from the official
/// TypeScript SDK's `Server` with the same listing to the client installed
/// beside each core: the pinned ones, 0.4.4 (@mastra/mcp 0.2.6) and 1.71.0.
#[test]
fn an_mcp_listing_reads_the_same_from_this_server_and_the_sdks() {
    let mut args = vec![PathBuf::from(env!("CARGO_BIN_EXE_mastra-conform"))];
    args.extend(pinned());
    args.extend([install("0.4.4"), install("1.71.0")]);
    let out = node_on("node-probe/testing/mcp-compare.mjs", &args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", text(&out));
    for which in ["harness", "node"] {
        let same = stdout
            .lines()
            .filter(|l| {
                l.starts_with("ok ") && l.contains(&format!(" {which}: 5 messages identical"))
            })
            .count();
        assert_eq!(same, args.len() - 1, "{which}: {stdout}");
    }
}

/// `hasToolCall` in `stopWhen` and `ToolCallFilter({ exclude })` compare the
/// name the model called, on real runs against a local server: for a tool
/// keyed `search.web` with the id `get-weather`, the wire name `search_web`
/// stops the loop and takes a stored call out; the key and the id do
/// neither (docs/names.md, the lint rules `has-tool-call-names-a-key` and
/// `tool-call-filter-names-a-key`).
#[test]
fn has_tool_call_and_tool_call_filter_compare_the_called_name() {
    every_install_prints(
        "node-probe/testing/names-compare.mjs",
        "hasToolCall stops on [search_web]; ToolCallFilter excludes by [search_web]",
    );
}

/// An agent network's routing prompt lists its sub-agent, workflow and tool
/// by their keys as written (`research.agent`, `flow.one`, `search.web`),
/// its routing requests offer no tools, and a pick runs its member only by
/// that key, not by the wire name or the id, on real runs against a local
/// server (docs/names.md).
#[test]
fn an_agent_network_lists_and_finds_its_members_by_their_keys() {
    every_install_prints(
        "node-probe/testing/network-names.mjs",
        "the routing prompt lists [research.agent, flow.one, search.web]; routing requests offer tools: false; picks that ran: [search.web, research.agent, flow.one]",
    );
}

/// The tool-call accuracy scorer of `@mastra/evals` compares `expectedTool`
/// and `expectedToolOrder` with the name the model called, on a real run
/// against a local server scored from the run's own scoring data: for a
/// tool keyed `search.web` with the id `get-weather`, only `search_web`
/// scores 1 (docs/names.md, the lint rule `expected-tool-names-a-key`). On a
/// plain npm install of 1.71.0 with the newest `@mastra/evals`, as a user
/// installs them (1.0.4 with evals 1.0.0 measured the same by hand).
#[test]
fn the_tool_call_accuracy_scorer_compares_the_called_name() {
    let dir = crate::install_tempdir();
    npm_install(dir.path(), &["@mastra/core@1.71.0", "@mastra/evals@1.10.2"]);
    let out = node_on(
        "node-probe/testing/scorer-names.mjs",
        &[dir.path().to_path_buf()],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).ends_with(
            ": expectedTool scores 1 with [search_web]; expectedToolOrder with [search_web]\n"
        ),
        "{}",
        text(&out)
    );
}

/// A workspace tool renamed by `WorkspaceToolConfig.name` (`files.read` for
/// `mastra_workspace_read_file`) is sent rewritten (`files_read`) and runs
/// by that name or by the name given (the call's fallback to the tool's id,
/// which the rename replaces), never by its own name, on real runs against
/// a local server (docs/names.md; 1.8.0, which ignores the name, and 1.9.0,
/// the first that takes it, measured by hand).
#[test]
fn a_renamed_workspace_tool_is_sent_rewritten_and_runs_by_the_name_given() {
    each_install_prints(
        "node-probe/testing/workspace-names.mjs",
        &[install("1.67.0"), install("1.71.0")],
        "the read tool is sent as [files_read]; calls that ran it: [files.read, files_read]",
    );
}

/// Code Mode names a tool by its id made an identifier
/// (`external_get_weather` for the id `get-weather` under the key
/// `search.web`): the instructions declare that function alone, and a
/// program runs the tool by it alone, on real runs against a local server
/// with the program run on the host (docs/names.md; 1.37.1, which has no
/// `createCodeMode`, and 1.38.0, the first that has, measured by hand).
#[test]
fn code_mode_names_a_tool_by_its_id_made_an_identifier() {
    each_install_prints(
        "node-probe/testing/code-mode-names.mjs",
        &[install("1.67.0"), install("1.71.0")],
        "the instructions declare [external_get_weather]; programs that ran the tool: [external_get_weather]",
    );
}

/// `@mastra/mcp` 1.1.0, the newest that loads beside core 1.0.4, ignores a
/// server-level `requireToolApproval: true`: the call of the server's tool
/// runs unapproved, on a plain npm install as a user makes it, where the
/// harness's 1.71.0 install (`@mastra/mcp` 2.0.0) holds the same call
/// (docs/names.md). Real runs against a local server and the harness's own
/// MCP server.
#[test]
fn mcp_1_1_beside_core_1_0_4_ignores_a_server_level_policy() {
    let dir = crate::install_tempdir();
    npm_install(dir.path(), &["@mastra/core@1.0.4", "@mastra/mcp@1.1.0"]);
    let args = [
        PathBuf::from(env!("CARGO_BIN_EXE_mastra-conform")),
        dir.path().to_path_buf(),
        install("1.71.0"),
    ];
    let out = node_on("node-probe/testing/mcp-policy-names.mjs", &args);
    assert!(out.status.success(), "{}", text(&out));
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            l.split_once(": @mastra/mcp ")
                .map_or(l, |(_, rest)| rest)
                .to_string()
        })
        .collect();
    let policy = "a call under a server-level requireToolApproval: true";
    assert_eq!(
        lines,
        [
            format!("1.1.0: {policy} ran"),
            format!("2.0.0: {policy} was held")
        ],
        "{}",
        text(&out)
    );
}

/// Runs a measuring SCRIPT on the pinned installs and 1.71.0: it must exit 0
/// and print, for every install, a line ending in MEASURED.
fn every_install_prints(script: &str, measured: &str) {
    let mut dirs = pinned().to_vec();
    dirs.push(install("1.71.0"));
    each_install_prints(script, &dirs, measured);
}

/// Runs a measuring SCRIPT on DIRS: it must exit 0 and print, for every
/// install, a line ending in MEASURED.
fn each_install_prints(script: &str, dirs: &[PathBuf], measured: &str) {
    let out = node_on(script, dirs);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", text(&out));
    let agreed = stdout.lines().filter(|l| l.ends_with(measured)).count();
    assert_eq!(agreed, dirs.len(), "{stdout}");
}

/// Bodies as each provider API writes them, and the odd ones: no tools, an
/// empty list, tools that are not a list, entries without a name, a named
/// choice in every shape (and without its name), Gemini's one tool object,
/// a repeated member, a `__proto__` name.
const BODIES: &[&str] = &[
    r#"{"tools":[{"type":"function","function":{"name":"search_web"}}],"tool_choice":{"type":"function","function":{"name":"search.web"}}}"#,
    r#"{"tools":[{"type":"function","function":{"name":"search_web"}},{"function":{}}],"tool_choice":{"type":"function","function":{"name":"search_web"}}}"#,
    r#"{"tools":[],"tool_choice":"any"}"#,
    r#"{"messages":[]}"#,
    r#"{"tools":{"function":{"name":"search_web"}},"tool_choice":null}"#,
    r#"{"tools":[{"function":{"name":7}},{"name":"__proto__"}],"tool_choice":{"function":{"name":null},"type":"tool","name":"x"}}"#,
    r#"{"tools":[{"type":"function","name":"search_web"}],"tool_choice":{"type":"function","name":"search.web"}}"#,
    r#"{"tools":[{"type":"function","name":"search_web"}],"tool_choice":{"type":"function"}}"#,
    r#"{"tools":[{"name":"search_web"},{"name":""}],"tool_choice":{"type":"tool","name":""}}"#,
    r#"{"tools":[{"name":"a"}],"tool_choice":{"type":"auto"}}"#,
    r#"{"tools":[{"functionDeclarations":[{"name":"a"},{"name":"search_web"}]},{"googleSearch":{}}],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["search.web"]}}}"#,
    r#"{"tools":{"functionDeclarations":[{"name":"search_web"}]},"toolConfig":{"functionCallingConfig":{"allowedFunctionNames":["search_web"]}}}"#,
    r#"{"tools":null,"toolConfig":{"functionCallingConfig":{"allowedFunctionNames":[]}}}"#,
    r#"{"tools":[{"functionDeclarations":[{"name":"__proto__"}]}],"tools":[],"toolConfig":{"functionCallingConfig":{"allowedFunctionNames":[5]}}}"#,
];

/// `(the probe's error, the case's replies)`: none; the scripted reply's own
/// API-call error (the default reply, and a scripted one); a status that is
/// not the reply's; failures before any request.
const ERRORS: &[(&str, &str)] = &[
    ("null", "[]"),
    (
        r#"{"id":null,"message":"captured","causeCode":null,"name":"AI_APICallError","statusCode":400}"#,
        "[]",
    ),
    (
        r#"{"id":null,"message":"captured","causeCode":null,"name":"AI_APICallError","statusCode":429}"#,
        r#"[{"status":429},{"text":"done"}]"#,
    ),
    (
        r#"{"id":null,"message":"captured","causeCode":null,"name":"AI_APICallError","statusCode":500}"#,
        r#"[{"text":"done"}]"#,
    ),
    (
        r#"{"id":"AGENT_GENERATE_FAILED","message":"Cannot read properties of undefined (reading 'match')","causeCode":null,"name":"Error","statusCode":null}"#,
        "[]",
    ),
    (
        r#"{"id":"AGENT_STREAM_FAILED","message":"Two or more tools resolve to the same name","causeCode":"AGENT_TOOL_NAME_COLLISION","name":"Error","statusCode":null}"#,
        "[]",
    ),
];

fn symptoms() -> Vec<Symptom> {
    vec![
        Symptom::ToolChoiceNotSent,
        Symptom::EmptyTools,
        Symptom::ToolChoiceSent,
        Symptom::ToolSent("search_web".into()),
        Symptom::ToolSent("".into()),
        Symptom::ToolNotSent("search_web".into()),
        Symptom::ToolNotSent("__proto__".into()),
        Symptom::NoTools,
        Symptom::ErrorCause("AGENT_TOOL_NAME_COLLISION".into()),
        Symptom::ErrorMessage("Cannot read".into()),
        Symptom::ErrorMessage("".into()),
        Symptom::Executed("delete-file".into()),
        Symptom::NotExecuted("delete-file".into()),
        Symptom::ExecutedTwice("delete-file".into()),
    ]
}

const READER: &str = r#"
import { readFileSync } from 'node:fs';
import { holds, projectedError, viewOf } from 'READING';

const { reading, checks, inputs } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const out = inputs.map(({ route, bodies, error, replies, executed }) => {
  const requests = bodies.map((b) => viewOf(reading, route, JSON.parse(b)));
  const projection = { requests, error: projectedError(error, replies, bodies.length), executed };
  return { requests, error: projection.error, shows: checks.map((c) => holds(reading, c, projection)) };
});
process.stdout.write(JSON.stringify(out));
"#;

// A 1.x probe's every result carries `seen` (docs/seen.md); this one is what a
// case with no scripted tool call is handed.
const SEEN: &str =
    r#"{"stream":[],"toolCalls":null,"toolResults":null,"approval":{"asked":[],"pending":[]}}"#;

#[test]
fn the_repro_script_reads_bodies_and_symptoms_as_the_harness_does() {
    // Every body alone and with the next one, on every route, with each error.
    let mut inputs = Vec::new();
    for route in Route::ALL {
        for i in 0..BODIES.len() {
            for bodies in [
                vec![BODIES[i]],
                vec![BODIES[i], BODIES[(i + 1) % BODIES.len()]],
            ] {
                inputs.push((route, bodies, ERRORS[inputs.len() % ERRORS.len()]));
            }
        }
        inputs.push((route, Vec::new(), ERRORS[4]));
    }
    let symptoms = symptoms();
    let mut expected = Vec::new();
    let mut given = Vec::new();
    // The inputs ran the tool never, once and twice in turn, so every
    // answer of `executed`, `notExecuted` and `executedTwice` is read.
    let ran = |i: usize| match i % 3 {
        0 => "[]",
        1 => r#"[{"id":"delete-file","input":{}}]"#,
        _ => r#"[{"id":"delete-file","input":{}},{"id":"delete-file","input":{}}]"#,
    };
    for (i, (route, bodies, (error, replies))) in inputs.iter().enumerate() {
        let case = Case::parse(
            Path::new("cases/x.json"),
            &format!(r#"{{"about":"x","route":"{route}","replies":{replies}}}"#),
        )
        .unwrap();
        let result = Json::parse(&format!(
            r#"{{"applicable":true,"error":{error},"executed":{},"mutated":[],"seen":{SEEN}}}"#,
            ran(i)
        ))
        .unwrap();
        let captured: Vec<Captured> = bodies
            .iter()
            .map(|b| Captured {
                bytes: b.as_bytes().to_vec(),
                problem: None,
            })
            .collect();
        let (p, _) = projection(&case, &result, captured).unwrap();
        let requests = p.requests.iter().map(|r| {
            let v = r.to_json();
            Json::object([
                ("tools", v.get("tools").unwrap().clone()),
                ("toolChoice", v.get("toolChoice").unwrap().clone()),
            ])
        });
        expected.push(Json::object([
            ("requests", Json::Array(requests.collect())),
            (
                "error",
                p.error.as_ref().map_or(Json::Null, |e| e.to_json()),
            ),
            (
                "shows",
                Json::Array(symptoms.iter().map(|s| Json::Bool(s.shows(&p))).collect()),
            ),
        ]));
        given.push(Json::object([
            ("route", Json::str(route.name())),
            (
                "bodies",
                Json::Array(bodies.iter().map(|b| Json::str(b)).collect()),
            ),
            ("error", Json::parse(error).unwrap()),
            ("replies", Json::parse(replies).unwrap()),
            ("executed", Json::parse(ran(i)).unwrap()),
        ]));
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("inputs.json");
    let doc = Json::object([
        ("reading", reading_tables()),
        (
            "checks",
            Json::Array(symptoms.iter().map(|s| s.check().to_json()).collect()),
        ),
        ("inputs", Json::Array(given)),
    ]);
    std::fs::write(&data, doc.to_compact()).unwrap();
    let reading = root().join("node-probe/reading.mjs");
    let script = dir.path().join("read.mjs");
    let url = format!("file://{}", reading.display());
    std::fs::write(&script, READER.replace("READING", &url)).unwrap();
    let out = Command::new(node())
        .arg(&script)
        .arg(&data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let read = Json::parse(&String::from_utf8(out.stdout).unwrap()).unwrap();
    let read = read.as_array().unwrap();
    assert_eq!(read.len(), expected.len());
    let mut shown = 0;
    for (i, (js, rust)) in read.iter().zip(&expected).enumerate() {
        let (route, bodies, _) = &inputs[i];
        assert_eq!(js, rust, "{route}: {bodies:?}");
        shown += rust
            .get("shows")
            .and_then(Json::as_array)
            .unwrap()
            .iter()
            .filter(|b| **b == Json::Bool(true))
            .count();
    }
    // The table covers both answers of every symptom.
    assert!(shown > inputs.len(), "{shown} symptoms shown");
}

/// `repro ISSUE` writes a script Node accepts for every issue of the ledger:
/// the modules it inlines share one scope without a clash.
#[test]
fn the_repro_script_of_every_known_issue_is_valid_javascript() {
    let ledger =
        Json::parse(&std::fs::read_to_string(root().join("known-issues.json")).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let issues = ledger.get("issues").and_then(Json::as_array).unwrap();
    assert!(!issues.is_empty());
    for issue in issues {
        let id = issue.get("id").and_then(Json::as_str).unwrap().to_lossy();
        let out = bin().args(["repro", &id]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{id}: {}", text(&out));
        let script = dir.path().join(format!("{id}.mjs"));
        std::fs::write(&script, &out.stdout).unwrap();
        let check = Command::new(node())
            .arg("--check")
            .arg(&script)
            .output()
            .unwrap();
        assert!(check.status.success(), "{id}: {}", text(&check));
    }
}

/// A repro of a case with every source, on 1.67.0 with its extras beside
/// it: the script lists the MCP server's tool (running itself as the
/// server), the sub-agent, the workflow and the working-memory tool, and its
/// guard refuses the request webFetchTool makes to a real host.
#[test]
fn a_repro_runs_the_cases_sources_and_refuses_a_request_elsewhere() {
    let case = Case::parse(
        Path::new("cases/sources.json"),
        r#"{
          "about": "every source",
          "tools": [{ "key": "web_fetch", "builtin": "webFetchTool" }],
          "agents": ["helper"],
          "workflows": ["wf"],
          "mcp": { "srv": ["mcp.tool"] },
          "memory": { "workingMemory": true },
          "replies": [
            { "toolCalls": [{ "id": "call_1", "name": "web_fetch", "arguments": { "url": "https://example.com/" } }] },
            { "text": "done" }
          ]
        }"#,
    )
    .unwrap();
    let issue = KnownIssue {
        id: "mcp-tool-sent".into(),
        title: "an MCP tool is sent".into(),
        severity: Severity::Warning,
        wrong: "nothing".into(),
        fixed: "nothing".into(),
        fixed_shows: None,
        upstream: None,
        seen: ">=1.0.0".into(),
        cases: Vec::new(),
        recognise: Vec::new(),
        fix_at: None,
        advisory: None,
    };
    let symptom = Symptom::ToolSent("srv_mcp_tool".into());
    let script = Repro {
        case: &case,
        shows: Shows::Issue {
            issue: &issue,
            symptom: &symptom,
        },
        made_on: "1.67.0".into(),
        route: Route::OpenAiCompatible,
    }
    .script();
    assert!(
        script.contains("@mastra/mcp@"),
        "the install line names @mastra/mcp"
    );
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        install("1.67.0").join("node_modules"),
        dir.path().join("node_modules"),
    )
    .unwrap();
    std::fs::write(dir.path().join("repro.mjs"), &script).unwrap();
    let out = Command::new(node())
        .arg("repro.mjs")
        .current_dir(dir.path())
        .output()
        .unwrap();
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    let first = shown
        .lines()
        .find(|l| l.starts_with("sent #1: tools "))
        .unwrap_or_else(|| panic!("{shown}"));
    for tool in [
        "web_fetch",
        "agent-helper",
        "workflow-wf",
        "srv_mcp_tool",
        "updateWorkingMemory",
    ] {
        assert!(first.contains(&format!("\"{tool}\"")), "{tool}: {shown}");
    }
    assert!(
        shown.contains(r#"refused (not this route's provider): ["https://example.com/"]"#),
        "{shown}"
    );
    assert!(
        shown.contains("KNOWN ISSUE SHOWS: mcp-tool-sent"),
        "{shown}"
    );
}

/// node-probe/ with `releases.json` as `plant` rewrites it, in a folder of
/// its own: the loader's and the probe's scripts, and the table they read.
fn probe_copy(plant: impl Fn(String) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(root().join("node-probe")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".mjs") || name == "releases.json" {
            let mut text = std::fs::read_to_string(&path).unwrap();
            if name == "releases.json" {
                text = plant(text);
            }
            std::fs::write(dir.path().join(&name), text).unwrap();
        }
    }
    dir
}

/// A project folder whose installed `@mastra/core` is `manifest` (its
/// package.json) with `files` beside it; its code is never reached.
fn fake_project(manifest: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("package.json"), r#"{"name": "p"}"#).unwrap();
    std::fs::write(dir.path().join("index.mjs"), "").unwrap();
    let core = dir.path().join("node_modules/@mastra/core");
    std::fs::create_dir_all(&core).unwrap();
    std::fs::write(core.join("package.json"), manifest).unwrap();
    for (name, text) in files {
        let path = core.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// What `project.mjs` in `probe` says of `project`: its document's error
/// (kind and message). The loader writes its document on fd 3, here
/// pointed at stdout; `--tools` names no folder, so a project it accepts
/// ends where the loader loads its own tools.
fn loader_says(probe: &Path, project: &Path) -> (String, String) {
    let script = format!(
        "exec '{}' '{}' --tools /nonexistent --loader node --isolation guard '{}' index.mjs 3>&1 1>/dev/null 2>/dev/null <<< '{{\"nonce\": \"n1\"}}'",
        node().display(),
        probe.join("project.mjs").display(),
        project.display()
    );
    let out = Command::new("bash").args(["-c", &script]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find(|l| l.contains("\"n1\""))
        .unwrap_or_else(|| panic!("no document: {}", text(&out)));
    let doc = Json::parse(line).unwrap();
    let error = doc.get("error").unwrap_or_else(|| panic!("{line}"));
    let field = |k: &str| match error.get(k) {
        Some(Json::String(s)) => s.to_lossy(),
        other => panic!("{k}: {other:?} in {line}"),
    };
    (field("kind"), field("message"))
}

/// The project loader decides by the release table in
/// `node-probe/releases.json`: a core before `AGENT_SINCE` is refused with
/// the table's release in the message, and a planted change to that line
/// changes what it refuses.
#[test]
fn the_project_loader_reads_the_release_table() {
    let real = probe_copy(|t| t);
    let old = fake_project(r#"{"name": "@mastra/core", "version": "0.1.26"}"#, &[]);
    let current = fake_project(r#"{"name": "@mastra/core", "version": "1.67.0"}"#, &[]);
    let (kind, message) = loader_says(real.path(), old.path());
    assert_eq!(kind, "mastra-too-old");
    assert!(
        message.ends_with(
            "is @mastra/core 0.1.26, which has no Agent; lint --project needs 0.2.0 or later"
        ),
        "{message}"
    );
    assert_ne!(loader_says(real.path(), current.path()).0, "mastra-too-old");
    // The Agent's first release moved past 1.67.0 in the table alone.
    let planted = probe_copy(|t| {
        let agent = t
            .find("\"name\": \"AGENT_SINCE\"")
            .expect("an AGENT_SINCE line");
        let first = agent + t[agent..].find("\"first\": \"0.2.0\"").unwrap();
        format!(
            "{}\"first\": \"1.68.0\"{}",
            &t[..first],
            &t[first + "\"first\": \"0.2.0\"".len()..]
        )
    });
    let (kind, message) = loader_says(planted.path(), current.path());
    assert_eq!(kind, "mastra-too-old", "{message}");
    assert!(message.ends_with("needs 1.68.0 or later"), "{message}");
    assert_ne!(loader_says(planted.path(), old.path()).1, message);
}

/// A snapshot build (`0.0.0-TAG-TIMESTAMP`) is judged as the release it
/// was cut from, not refused for its 0.0.0: by its CHANGELOG.md's first
/// release heading, or, with none (`@mastra/core`
/// 0.0.0-ai-v5-20250729181825 ships none), by what it ships: an Agent
/// module or not.
#[test]
fn the_project_loader_judges_a_snapshot_as_the_release_it_was_cut_from() {
    let probe = probe_copy(|t| t);
    let snapshot = r#"{"name": "@mastra/core", "version": "0.0.0-ai-v5-20250729181825",
        "dependencies": {"ai": "5.0.0-beta.14"},
        "exports": {"./*": {"import": {"default": "./dist/*/index.js"}}}}"#;
    let with_agent = fake_project(
        snapshot,
        &[
            ("dist/agent/index.js", ""),
            ("dist/runtime-context/index.js", ""),
        ],
    );
    assert_ne!(
        loader_says(probe.path(), with_agent.path()).0,
        "mastra-too-old"
    );
    let without_agent = fake_project(snapshot, &[("dist/tools/index.js", "")]);
    let (kind, message) = loader_says(probe.path(), without_agent.path());
    assert_eq!(kind, "mastra-too-old");
    assert!(
        message.contains("a snapshot build with no Agent"),
        "{message}"
    );
    // A CHANGELOG.md naming a release before the Agent: judged as that one.
    let cut_early = fake_project(
        snapshot,
        &[
            ("dist/agent/index.js", ""),
            (
                "CHANGELOG.md",
                "# @mastra/core\n\n## 0.0.0-ai-v5-20250729181825\n\n## 0.1.26\n",
            ),
        ],
    );
    assert_eq!(
        loader_says(probe.path(), cut_early.path()).0,
        "mastra-too-old"
    );
}

/// The probe's 0.x path (`legacy.mjs`) reads the same table: 0.19.1 names
/// a call's thread as the AI SDK v4 loop takes it, until a planted
/// `V5_LOOP_SINCE` puts 0.19.1 on the v5 loop.
#[test]
fn the_probes_0x_path_reads_the_release_table() {
    let thread_options = |probe: &Path| {
        let script = format!(
            "import {{ legacyOf }} from '{}';\n\
             process.stdout.write(JSON.stringify(legacyOf('0.19.1', {{}}, true).memoryCallOptions('t', 'r')));",
            url(&probe.join("legacy.mjs"))
        );
        let out = Command::new(node())
            .args(["--input-type=module", "-e", &script])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let real = probe_copy(|t| t);
    assert_eq!(
        thread_options(real.path()),
        r#"{"threadId":"t","resourceId":"r"}"#
    );
    let planted = probe_copy(|t| {
        let line = t
            .find("\"name\": \"V5_LOOP_SINCE\"")
            .expect("a V5_LOOP_SINCE line");
        let first = line + t[line..].find("\"first\": \"0.20.0\"").unwrap();
        format!(
            "{}\"first\": \"0.19.0\"{}",
            &t[..first],
            &t[first + "\"first\": \"0.20.0\"".len()..]
        )
    });
    assert_eq!(
        thread_options(planted.path()),
        r#"{"memory":{"thread":"t","resource":"r"}}"#
    );
}

fn url(path: &Path) -> String {
    format!("file://{}", path.display())
}
