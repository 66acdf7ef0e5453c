//! `Repro`: a case and the known issue it shows, rendered as a standalone
//! ES-module Node script (`mastra-conform repro`) and as a draft upstream
//! report in Markdown.
//!
//! In: a `Case`, its `KnownIssue` and the symptom the case shows, the
//! version the script was made for. Out: text. Pure.
//!
//! The script is `node-probe/repro.template.mjs` with the probe's own
//! modules it imports inlined (the agent and call, the case's sources, the
//! guard, the provider formats, the reading of a body and of a symptom), so
//! it runs the case as the probe does and cannot drift from it; and with one
//! JSON value filled in: the case, the issue, the symptom's check
//! (`SymptomCheck`) and the tables of where each route's body holds its
//! tools and choice (`route::body`, `known::NAMED_CHOICE`), so it judges
//! its own capture server's bodies exactly as the harness judges the
//! listener's.

use crate::case::{Approval, ApprovalPolicy, Case, Reply, Tool, ToolApproval};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::judge::known::{named_choice_json, Advisory, KnownIssue, Severity, Symptom};
use crate::projection::Projection;
use crate::route::body::layouts_json;
use crate::route::Route;
use crate::version::extras::extras;
use crate::version::spec::MastraVersion;
use std::collections::BTreeMap;

/// The script: a module of `node-probe/` that imports from its neighbours.
const TEMPLATE: &str = include_str!("../../node-probe/repro.template.mjs");
/// Where the template has the data.
const DATA: &str = "/* REPRO_JSON */ null";
/// The install line's spec, which `install_line` replaces.
const INSTALL: &str = "@mastra/core@VERSION zod@3.25.76";

/// The `node-probe/` modules a script may import, by file name.
const MODULES: &[(&str, &str)] = &[
    ("agent.mjs", include_str!("../../node-probe/agent.mjs")),
    ("guard.mjs", include_str!("../../node-probe/guard.mjs")),
    ("lookups.mjs", include_str!("../../node-probe/lookups.mjs")),
    (
        "mcp-tools.mjs",
        include_str!("../../node-probe/mcp-tools.mjs"),
    ),
    (
        "project-names.mjs",
        include_str!("../../node-probe/project-names.mjs"),
    ),
    ("reading.mjs", include_str!("../../node-probe/reading.mjs")),
    ("routes.mjs", include_str!("../../node-probe/routes.mjs")),
    ("sources.mjs", include_str!("../../node-probe/sources.mjs")),
    ("tracing.mjs", include_str!("../../node-probe/tracing.mjs")),
    ("wire.mjs", include_str!("../../node-probe/wire.mjs")),
];

/// One `import` statement of a module.
#[derive(Debug, PartialEq)]
enum Import {
    /// `from './NAME'`: a module of `node-probe/`, inlined.
    Local(String),
    /// A Node builtin: its default (or `* as`) binding and its named ones.
    Builtin {
        from: String,
        default: Option<String>,
        named: Vec<String>,
    },
}

/// A module's imports, and its text without them and without `export `.
struct Parsed {
    head: String,
    imports: Vec<Import>,
    body: String,
}

/// Split a module into its leading comment, its imports and the rest. An
/// import is a statement at the start of a line, up to its `;`; an
/// `export ` at the start of a line is dropped (the script has one scope).
fn parse_module(name: &str, text: &str) -> Parsed {
    let mut head = String::new();
    let mut imports = Vec::new();
    let mut body = String::new();
    let mut statement: Option<String> = None;
    let mut in_head = true;
    for line in text.lines() {
        if let Some(s) = statement.as_mut() {
            s.push(' ');
            s.push_str(line.trim());
        } else if line.starts_with("import ") {
            statement = Some(line.to_string());
        } else {
            if in_head && !line.starts_with("//") {
                in_head = false;
            }
            let out = if in_head { &mut head } else { &mut body };
            out.push_str(line.strip_prefix("export ").unwrap_or(line));
            out.push('\n');
            continue;
        }
        if statement.as_deref().is_some_and(|s| s.ends_with(';')) {
            imports.push(parse_import(name, &statement.take().unwrap_or_default()));
        }
    }
    Parsed {
        head,
        imports,
        body: body.trim().to_string(),
    }
}

/// `import D from 'S';`, `import * as N from 'S';`, `import { a, b } from 'S';`,
/// `import D, { a } from 'S';`. Anything else is a module this file cannot
/// inline, which the tests catch.
fn parse_import(module: &str, statement: &str) -> Import {
    let (clause, from) = statement
        .strip_prefix("import ")
        .and_then(|s| s.strip_suffix(';'))
        .and_then(|s| s.rsplit_once(" from "))
        .filter(|(_, from)| from.contains("'./") || from.contains("'node:"))
        .unwrap_or_else(|| panic!("{module}: an import repro.rs cannot inline: {statement}"));
    let from = from.trim().trim_matches('\'').to_string();
    if let Some(local) = from.strip_prefix("./") {
        return Import::Local(local.to_string());
    }
    let (default, named) = match clause.split_once('{') {
        Some((before, names)) => (
            before.trim().trim_end_matches(',').trim(),
            names.trim().trim_end_matches('}'),
        ),
        None => (clause.trim(), ""),
    };
    Import::Builtin {
        from,
        default: (!default.is_empty()).then(|| default.to_string()),
        named: named
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(String::from)
            .collect(),
    }
}

/// The script's text: the template's leading comment, every builtin import
/// of every module it reaches (merged), the modules it imports from
/// `node-probe/` (each after the ones it imports, once), then its own code.
fn assemble(template: &str) -> String {
    let template = parse_module("repro.template.mjs", template);
    let mut builtins: BTreeMap<String, (Option<String>, Vec<String>)> = BTreeMap::new();
    let mut inlined: Vec<&str> = Vec::new();
    let mut bodies = String::new();
    inline_all(&template.imports, &mut builtins, &mut inlined, &mut bodies);
    let mut script = template.head;
    script.push('\n');
    for (from, (default, named)) in &builtins {
        let mut clause = default.clone().unwrap_or_default();
        if !named.is_empty() {
            if !clause.is_empty() {
                clause.push_str(", ");
            }
            clause.push_str(&format!("{{ {} }}", named.join(", ")));
        }
        script.push_str(&format!("import {clause} from '{from}';\n"));
    }
    script.push('\n');
    script.push_str(&bodies);
    script.push_str("// --- the reproduction ---\n\n");
    script.push_str(&template.body);
    script.push('\n');
    script
}

fn inline_all(
    imports: &[Import],
    builtins: &mut BTreeMap<String, (Option<String>, Vec<String>)>,
    inlined: &mut Vec<&'static str>,
    bodies: &mut String,
) {
    for import in imports {
        match import {
            Import::Builtin {
                from,
                default,
                named,
            } => {
                let (d, n) = builtins.entry(from.clone()).or_default();
                if default.is_some() && d.is_some() && d != default {
                    panic!("two modules import {from} under two names: {d:?}, {default:?}");
                }
                if default.is_some() {
                    d.clone_from(default);
                }
                for name in named {
                    if !n.contains(name) {
                        n.push(name.clone());
                    }
                }
                n.sort();
            }
            Import::Local(file) => {
                let Some(&(name, text)) = MODULES.iter().find(|(n, _)| n == file) else {
                    panic!("repro.template.mjs reaches ./{file}: add it to MODULES in repro.rs");
                };
                if inlined.contains(&name) {
                    continue;
                }
                inlined.push(name);
                let module = parse_module(name, text);
                inline_all(&module.imports, builtins, inlined, bodies);
                bodies.push_str(&format!("// --- node-probe/{name} ---\n\n"));
                bodies.push_str(&module.body);
                bodies.push_str("\n\n");
            }
        }
    }
}

/// The tables the script reads bodies and symptoms by
/// (`node-probe/reading.mjs`): where each route's body holds its tools and
/// choice, and the shapes of a choice that names a function.
pub fn reading_tables() -> Json {
    Json::object([
        ("bodies", layouts_json()),
        ("namedChoice", named_choice_json()),
    ])
}

/// What a script checks the case's bodies for.
#[derive(Debug, Clone)]
pub enum Shows<'a> {
    /// A known issue, by the symptom the case shows it with (the ledger's
    /// `shows` for a case it lists, else the symptom it was recognised by).
    Issue {
        issue: &'a KnownIssue,
        symptom: &'a Symptom,
    },
    /// No known issue: the model's prediction, as the script reads a body
    /// (`expected_view`). Any difference is a new divergence.
    Prediction(Json),
}

/// What the script compares of a projection: each request's tool names and
/// tool choice, and the error; the order and number of requests with them.
/// (History and executed tools stay the harness's to compare.)
pub fn expected_view(p: &Projection) -> Json {
    let requests = p
        .requests
        .iter()
        .map(|r| {
            let tools = r.tools.as_ref().map_or(Json::Null, |names| {
                Json::Array(names.iter().cloned().map(Json::String).collect())
            });
            Json::object([
                ("tools", tools),
                ("toolChoice", r.tool_choice.clone().unwrap_or(Json::Null)),
            ])
        })
        .collect();
    Json::object([
        ("requests", Json::Array(requests)),
        (
            "error",
            p.error.as_ref().map_or(Json::Null, |e| e.to_json()),
        ),
    ])
}

/// One case and what its script checks.
#[derive(Debug, Clone)]
pub struct Repro<'a> {
    pub case: &'a Case,
    pub shows: Shows<'a>,
    /// The version (or build) the script is made for: the install line names it.
    pub made_on: String,
    /// The wire route the script's agent takes.
    pub route: Route,
}

impl Repro<'_> {
    fn data(&self) -> Json {
        let common = [
            ("case", self.case_json()),
            ("casePath", Json::str(&self.case.name())),
            ("route", Json::str(self.route.name())),
            ("madeOn", Json::str(&self.made_on)),
            ("reading", reading_tables()),
        ];
        let own: Vec<(&str, Json)> = match &self.shows {
            Shows::Issue { issue, symptom } => vec![
                ("mode", Json::str("issue")),
                (
                    "issue",
                    Json::object([
                        ("id", Json::str(&issue.id)),
                        ("title", Json::str(&issue.title)),
                        ("fixed", Json::str(&issue.fixed)),
                        (
                            "upstream",
                            issue.upstream.as_deref().map_or(Json::Null, Json::str),
                        ),
                    ]),
                ),
                ("symptom", symptom.to_json()),
                (
                    "fixedSymptom",
                    issue
                        .fixed_shows
                        .as_ref()
                        .map_or(Json::Null, Symptom::to_json),
                ),
                ("shows", symptom.check().to_json()),
                (
                    "fixedShows",
                    issue
                        .fixed_shows
                        .as_ref()
                        .map_or(Json::Null, |s| s.check().to_json()),
                ),
            ],
            Shows::Prediction(expected) => vec![
                ("mode", Json::str("prediction")),
                ("expected", expected.clone()),
            ],
        };
        Json::object(own.into_iter().chain(common))
    }

    /// The case as the probe receives it.
    fn case_json(&self) -> Json {
        self.case.to_json()
    }

    /// The standalone script. The JSON is written as `JSON.stringify` would
    /// write it, which is also a JavaScript expression (lone surrogates as
    /// `\udXXX` escapes), so keys reach Mastra exactly as the case has them.
    pub fn script(&self) -> String {
        assemble(TEMPLATE)
            .replace(INSTALL, &self.install_line())
            .replace(DATA, &self.data().to_pretty())
    }

    /// What `npm install` is given: the version (a build by its
    /// package.json version, with a note to install the build itself
    /// instead), zod, and the packages the case's sources need, at the
    /// versions the harness installs beside that core.
    fn install_line(&self) -> String {
        let (release, build) = match self.made_on.split_once('+') {
            Some((release, _)) => (release, true),
            None => (self.made_on.as_str(), false),
        };
        let case = self.case_json();
        let needed = |package: &str| match package {
            "@mastra/mcp" | "@modelcontextprotocol/sdk" => case.get("mcp").is_some(),
            "@mastra/server" => case.get("lookups").is_some(),
            "@mastra/observability" => case.get("tracing").is_some(),
            _ => case.get("memory").is_some(),
        };
        let mut line = format!("@mastra/core@{release} zod@3.25.76");
        if let Some(core) = MastraVersion::parse(release) {
            for (package, version) in extras(core) {
                if needed(package) {
                    line.push_str(&format!(" {package}@{version}"));
                }
            }
        }
        if build {
            line.push_str("  # or the build itself: npm install ./your-build.tgz");
        }
        line
    }

    /// A report a maintainer takes: the title, what happens, a snippet of
    /// plain JavaScript that builds the Agent and prints what it sends, what
    /// was sent and what was expected in the provider's terms, the versions
    /// seen, the environment, and where the fix goes. `sent` is the case's
    /// projection observed on `made_on`; `seen` the versions it was seen on.
    /// Well under `REPORT_MAX_LINES`; `None` for a repro of no known issue.
    pub fn upstream_report(
        &self,
        sent: &Projection,
        seen: &str,
        env: &Environment,
    ) -> Option<String> {
        let Shows::Issue { issue: i, .. } = &self.shows else {
            return None;
        };
        if let (Severity::Security, Some(advisory)) = (i.severity, &i.advisory) {
            if let Some(snippet) = approval_snippet(self.case) {
                return Some(self.advisory(i, advisory, &snippet, seen, env));
            }
        }
        let mut md = format!("# {}\n\n{}\n\n", i.title, i.wrong);
        md.push_str(&format!(
            "## Reproduce\n\n`npm install {}`, save as `repro.mjs`, `node repro.mjs`. A local \
             server stands in for the provider ({}) and prints what Mastra sends; no key, no \
             network.\n\n```js\n{}```\n\n",
            self.install_line(),
            self.route.provider(),
            snippet(self.case, self.route)
        ));
        md.push_str(&format!("## Sent (on {})\n\n", self.made_on));
        for (n, r) in sent.requests.iter().enumerate() {
            let tools = r.tools.as_ref().map_or("none".to_string(), |t| {
                Json::Array(t.iter().cloned().map(Json::String).collect()).to_compact()
            });
            let choice = r
                .tool_choice
                .as_ref()
                .map_or("none".into(), Json::to_compact);
            md.push_str(&format!(
                "- request {}: tools named {tools}; tool_choice {choice}\n",
                n + 1
            ));
        }
        if sent.requests.is_empty() {
            md.push_str("- no request reached the provider\n");
        }
        if let Some(e) = &sent.error {
            md.push_str(&format!("- the call failed: {}\n", e.message.to_lossy()));
        }
        md.push_str(&format!("\n## Expected\n\n{}\n\n", i.fixed));
        md.push_str(&format!("## Versions\n\nSeen on `{seen}`.\n\n"));
        md.push_str(&format!(
            "## Environment\n\n- Node {}\n- @mastra/core {}\n- zod {}\n- {}\n\n",
            env.node, env.core, env.zod, env.provider
        ));
        if let Some(f) = &i.fix_at {
            md.push_str(&format!(
                "## Where the fix goes\n\n`{}`, `{}`: {}.\n\n",
                f.file, f.function, f.change
            ));
        }
        md.push_str(&format!(
            "Found with mastra-conform (case `{}`); `mastra-conform repro {}` writes a script that \
             exits 1 while this shows and 0 once fixed, for a regression test.\n",
            self.case.name(),
            i.id
        ));
        Some(md)
    }
}

impl Repro<'_> {
    /// A security issue's report: a private security advisory, saying no
    /// more than a maintainer needs to confirm and fix it.
    fn advisory(
        &self,
        i: &KnownIssue,
        text: &Advisory,
        snippet: &str,
        seen: &str,
        env: &Environment,
    ) -> String {
        let mut md = format!(
            "# Security advisory (private): {}\n\nReport through the repository's private \
             vulnerability reporting, not a public issue.\n\n## Summary\n\n{}\n\n",
            i.title, i.wrong
        );
        md.push_str(&format!(
            "## Affected versions\n\n`@mastra/core` `{seen}`.\n\n"
        ));
        md.push_str(&format!("## Impact\n\n{}\n\n", text.impact));
        md.push_str(&format!(
            "## Reproduce\n\n`npm install {}`, save as `repro.mjs`, `node repro.mjs`. A local \
             server plays the model; no key, no network.\n\n```js\n{}```\n\n",
            self.install_line(),
            snippet
        ));
        md.push_str(&format!("## Expected\n\n{}\n\n", i.fixed));
        md.push_str(&format!("## Workaround\n\n{}\n\n", text.workaround));
        if let Some(f) = &i.fix_at {
            md.push_str(&format!(
                "## Where the fix goes\n\n`{}`, `{}`: {}.\n\n",
                f.file, f.function, f.change
            ));
        }
        md.push_str(&format!(
            "## Environment\n\n- Node {}\n- @mastra/core {}\n- zod {}\n\n",
            env.node, env.core, env.zod
        ));
        md.push_str(&format!(
            "Found with mastra-conform (case `{}`); `mastra-conform repro {}` exits 1 while this \
             shows.\n",
            self.case.name(),
            i.id
        ));
        md
    }
}

/// A snippet that shows an approval policy's answer: a server that plays
/// the case's replies in order (its tool calls by the names the case
/// writes), the policy as the case writes it, each held call answered as
/// the case's `approvals` say (a call without an answer stays held), and
/// what the policy was asked, which calls waited and how often the tool
/// ran. `None` for a case without a policy by names or `true`, or
/// without a tool call.
fn approval_snippet(case: &Case) -> Option<String> {
    let js = |s: &JsString| Json::String(s.clone()).to_compact();
    let policy = match case.call.require_tool_approval.as_ref()? {
        ApprovalPolicy::Names(names) => format!(
            "const needsApproval = {};\n\
             const requireToolApproval = ({{ toolName }}) => (asked.push(toolName), needsApproval.includes(toolName));",
            Json::Array(names.iter().cloned().map(Json::String).collect()).to_compact()
        ),
        ApprovalPolicy::Flag(true) => "const requireToolApproval = true;".to_string(),
        ApprovalPolicy::Flag(false) => return None,
    };
    let replies: Vec<Json> = case
        .replies
        .iter()
        .filter_map(|r| match r {
            Reply::ToolCalls(calls) => Some(Json::Array(
                calls
                    .iter()
                    .map(|c| {
                        let function = Json::object([
                            ("name", Json::String(c.name.clone())),
                            ("arguments", Json::str(&c.arguments.to_compact())),
                        ]);
                        Json::object([
                            ("id", Json::String(c.id.clone())),
                            ("type", Json::str("function")),
                            ("function", function),
                        ])
                    })
                    .collect(),
            )),
            Reply::Text(t) => Some(Json::String(t.clone())),
            Reply::Error { .. } => None,
        })
        .collect();
    if !replies.iter().any(|r| matches!(r, Json::Array(_))) {
        return None;
    }
    let tool = case.tools.first()?;
    let id = match tool {
        Tool::Custom { id, .. } => js(id),
        _ => js(&JsString::from(crate::case::STANDARD_ID)),
    };
    // The tool's own `requireApproval`, which the loop asks beside the
    // agent's option; the function is given no tool name.
    let own = match tool {
        Tool::Custom {
            require_approval: Some(a),
            ..
        } => match a {
            ToolApproval::Always => ", requireApproval: true".to_string(),
            ToolApproval::Returns(b) => format!(", requireApproval: () => {b}"),
            ToolApproval::Throws(m) => {
                format!(", requireApproval: () => {{ throw new Error({}); }}", js(m))
            }
        },
        _ => String::new(),
    };
    let answers = Json::object(case.approvals.iter().flatten().map(|(call, answer)| {
        let resume = match answer {
            Approval::Approve => "approveToolCallGenerate",
            Approval::Decline => "declineToolCallGenerate",
        };
        (call.clone(), Json::str(resume))
    }));
    Some(format!(
        r#"import http from 'node:http';
import {{ Agent }} from '@mastra/core/agent';
import {{ Mastra }} from '@mastra/core/mastra';
import {{ InMemoryStore }} from '@mastra/core/storage';
import {{ createTool }} from '@mastra/core/tools';
import {{ z }} from 'zod';

// Plays the model: each request gets the next reply, tool calls or text.
const replies = {replies};
let [n, ran] = [0, 0];
const server = http.createServer((req, res) => {{
  req.resume().on('end', () => {{
    const r = replies[Math.min(n++, replies.length - 1)];
    const message = Array.isArray(r) ? {{ role: 'assistant', content: null, tool_calls: r }} : {{ role: 'assistant', content: r }};
    const choices = [{{ index: 0, message, finish_reason: Array.isArray(r) ? 'tool_calls' : 'stop' }}];
    res.writeHead(200, {{ 'content-type': 'application/json' }});
    res.end(JSON.stringify({{ id: 'c', object: 'chat.completion', created: 0, model: 'm', choices }}));
  }});
}});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${{server.address().port}}/v1`;
const inputSchema = z.object({{ city: z.string() }});
const execute = async () => {{ ran += 1; return {{ ok: true }}; }};
const tool = createTool({{ id: {id}, description: 'A tool that needs approval', inputSchema, execute{own} }});
const model = {{ id: 'openai/gpt-4o-mini', url, apiKey: 'sk-fake' }};
const agent = new Agent({{ id: 'a', name: 'a', instructions: 'p', model, tools: {{ {key}: tool }} }});
new Mastra({{ agents: {{ a: agent }}, storage: new InMemoryStore(), logger: false }}); // a resume reads storage
const [asked, held] = [[], []];
{policy}
const answers = {answers}; // the user's answer to each held call
let result = await agent.generate('hi', {{ requireToolApproval }});
while (result.finishReason === 'suspended') {{
  const {{ toolCallId }} = result.suspendPayload;
  held.push(toolCallId);
  if (!answers[toolCallId]) break; // unanswered, it stays held
  result = await agent[answers[toolCallId]]({{ runId: result.runId, toolCallId }});
}}
console.log(JSON.stringify({{ asked, held, toolRan: ran }}));
server.close();
"#,
        replies = Json::Array(replies).to_compact(),
        answers = answers.to_compact(),
        key = js(tool.key()),
    ))
}

/// The most lines an upstream report has, and its snippet.
pub const REPORT_MAX_LINES: usize = 150;
pub const SNIPPET_MAX_LINES: usize = 40;

/// What an upstream report's Environment section names, read from the
/// install the case ran on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    pub node: String,
    pub core: String,
    pub zod: String,
    /// The route's provider package and version, or where @mastra/core
    /// bundles it.
    pub provider: String,
}

/// The tools a case registers under one name, as the snippet writes them:
/// `{ "search.web": tool("get-weather") }`. Keys and ids are written as
/// JSON writes them (lone surrogates as escapes), so they reach Mastra
/// exactly as the case has them.
fn tools_literal(list: &Json) -> String {
    let js = |s: &JsString| Json::String(s.clone()).to_compact();
    let entries: Vec<String> = list
        .as_array()
        .unwrap_or_default()
        .iter()
        .filter_map(|t| match t {
            Json::String(key) => Some(format!("{}: tool(\"get-weather\")", js(key))),
            t => {
                let field = |k: &str| t.get(k).and_then(Json::as_str);
                let key = field("key")?;
                match field("builtin") {
                    Some(b) => Some(format!("{}: tools.{}", js(key), b.to_lossy())),
                    None => Some(format!("{}: tool({})", js(key), js(field("id")?))),
                }
            }
        })
        .collect();
    format!("{{ {} }}", entries.join(", "))
}

/// A plain-JavaScript reproduction of `case` on `route` in a few lines:
/// the Agent with the case's tools, its call, and a capture server that
/// prints each body's tool names and tool choice (Chat Completions' shape:
/// other routes are for the full script). A case's other sources (agents,
/// workflows, MCP, memory) are named in a comment, not built.
pub fn snippet(case: &Case, route: Route) -> String {
    let c = case.to_json();
    let call = c.get("call").cloned().unwrap_or(Json::object::<&str>([]));
    let mut options: Vec<String> = Vec::new();
    for key in ["toolChoice", "activeTools", "maxSteps"] {
        if let Some(v) = call.get(key) {
            options.push(format!("{key}: {}", v.to_compact()));
        }
    }
    if let Some(name) = call.get("stopWhen").and_then(|s| s.get("hasToolCall")) {
        // The AI SDK's `hasToolCall(NAME)`, written out.
        options.push(format!(
            "stopWhen: ({{ steps }}) => steps.at(-1)?.toolCalls?.some((c) => c.toolName === {}) ?? false",
            name.to_compact()
        ));
    }
    if let Some(Json::Object(sets)) = c.get("toolsets") {
        let sets: Vec<String> = sets
            .iter()
            .map(|(k, v)| {
                format!(
                    "{}: {}",
                    Json::String(k.clone()).to_compact(),
                    tools_literal(v)
                )
            })
            .collect();
        options.push(format!("toolsets: {{ {} }}", sets.join(", ")));
    }
    if let Some(list) = c.get("clientTools") {
        options.push(format!("clientTools: {}", tools_literal(list)));
    }
    let others: Vec<&str> = ["agents", "workflows", "mcp", "memory", "dynamicTools"]
        .into_iter()
        .filter(|k| c.get(k).is_some())
        .collect();
    let streams = call
        .get("method")
        .and_then(Json::as_str)
        .map(JsString::to_lossy)
        == Some("stream".into());
    let tools = tools_literal(c.get("tools").unwrap_or(&Json::Array(Vec::new())));
    let mut js = String::from(
        "import http from 'node:http';\n\
         import { Agent } from '@mastra/core/agent';\n\
         import * as tools from '@mastra/core/tools';\n\
         import { z } from 'zod';\n\n\
         // Stands in for the provider: prints what Mastra sends, answers \"ok\".\n\
         const server = http.createServer((req, res) => {\n\
         \x20 let text = '';\n\
         \x20 req.on('data', (c) => (text += c));\n\
         \x20 req.on('end', () => {\n\
         \x20   const { tools, tool_choice } = JSON.parse(text);\n\
         \x20   console.log(JSON.stringify({ tools: tools?.map((t) => t.function.name), tool_choice }));\n\
         \x20   const message = { role: 'assistant', content: 'ok' };\n\
         \x20   const choices = [{ index: 0, message, finish_reason: 'stop' }];\n\
         \x20   res.writeHead(200, { 'content-type': 'application/json' });\n\
         \x20   res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 0, model: 'm', choices }));\n\
         \x20 });\n\
         });\n\
         await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));\n\n\
         const tool = (id) =>\n\
         \x20 tools.createTool({ id, description: 'A tool', inputSchema: z.object({ city: z.string() }), execute: async () => ({}) });\n",
    );
    if route != Route::OpenAiCompatible {
        js.push_str(&format!(
            "// The case is on the {} route; this snippet sends Chat Completions.\n",
            route.name()
        ));
    }
    if !others.is_empty() {
        js.push_str(&format!(
            "// The case also has {}: the full script (mastra-conform repro) builds them.\n",
            others.join(", ")
        ));
    }
    if streams {
        js.push_str("// The case streams; generate() sends the same tools and tool_choice.\n");
    }
    js.push_str(&format!(
        "const agent = new Agent({{\n\
         \x20 id: 'repro',\n\
         \x20 name: 'repro',\n\
         \x20 instructions: 'Use the tools.',\n\
         \x20 model: {{ id: 'openai/gpt-4o-mini', url: `http://127.0.0.1:${{server.address().port}}/v1`, apiKey: 'sk-fake' }},\n\
         \x20 tools: {tools},\n\
         }});\n\
         await agent.generate('Go.', {{ {} }});\n\
         server.close();\n",
        options.join(", ")
    ));
    js
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn issue() -> KnownIssue {
        KnownIssue {
            id: "toolchoice-not-rewritten".into(),
            title: "A named toolChoice does not follow the tool-name rewrite".into(),
            wrong: "wrong".into(),
            severity: crate::judge::known::Severity::Error,
            fixed: "tool_choice names the rewritten name".into(),
            fixed_shows: Some(Symptom::ToolChoiceSent),
            upstream: None,
            seen: ">=1.0.4 <=1.71.0".into(),
            cases: Vec::new(),
            recognise: Vec::new(),
            fix_at: None,
            advisory: None,
        }
    }

    /// The script of `case` showing `symptom`, made on 1.67.0.
    fn repro<'a>(case: &'a Case, issue: &'a KnownIssue, symptom: &'a Symptom) -> Repro<'a> {
        Repro {
            case,
            shows: Shows::Issue { issue, symptom },
            made_on: "1.67.0".into(),
            route: Route::OpenAiCompatible,
        }
    }

    fn every_symptom() -> Vec<Symptom> {
        let every = vec![
            Symptom::ToolChoiceNotSent,
            Symptom::EmptyTools,
            Symptom::ToolChoiceSent,
            Symptom::ToolSent("a".into()),
            Symptom::ToolNotSent("a".into()),
            Symptom::NoTools,
            Symptom::ErrorCause("a".into()),
            Symptom::ErrorMessage("a".into()),
            Symptom::ApprovalAsked("a".into()),
            Symptom::PolicyNotAsked,
            Symptom::ApprovalsHeld(1),
            Symptom::StreamNamed("a".into()),
            Symptom::Executed("a".into()),
            Symptom::NotExecuted("a".into()),
            Symptom::ExecutedTwice("a".into()),
        ];
        for s in &every {
            // A symptom added to the ledger fails to compile here until it
            // is in the list above.
            match s {
                Symptom::ToolChoiceNotSent
                | Symptom::EmptyTools
                | Symptom::ToolChoiceSent
                | Symptom::ToolSent(_)
                | Symptom::ToolNotSent(_)
                | Symptom::NoTools
                | Symptom::ErrorCause(_)
                | Symptom::ErrorMessage(_)
                | Symptom::ApprovalAsked(_)
                | Symptom::PolicyNotAsked
                | Symptom::ApprovalsHeld(_)
                | Symptom::StreamNamed(_)
                | Symptom::Executed(_)
                | Symptom::NotExecuted(_)
                | Symptom::ExecutedTwice(_) => {}
            }
        }
        every
    }

    #[test]
    fn a_security_issue_is_drafted_as_a_private_advisory_within_the_limits() {
        let case = Case::parse(
            Path::new("cases/approval/policy-by-key-generate.json"),
            r#"{"about":"a","tools":[{"key":"files.delete","id":"delete-file","description":"d"}],
                "call":{"requireToolApproval":{"names":["files.delete"]}},
                "replies":[{"toolCalls":[{"id":"call_1","name":"files_delete","arguments":{"city":"Paris"}}]},{"text":"done"}]}"#,
        )
        .unwrap();
        let mut issue = issue();
        issue.severity = crate::judge::known::Severity::Security;
        issue.advisory = Some(Advisory {
            impact: "the tool runs unapproved".into(),
            workaround: "name the wire name".into(),
        });
        let symptom = Symptom::ApprovalAsked("files_delete".into());
        let env = Environment {
            node: "v24.1.0".into(),
            core: "1.71.0".into(),
            zod: "3.25.76".into(),
            provider: "bundled".into(),
        };
        let md = repro(&case, &issue, &symptom)
            .upstream_report(&Projection::empty(), ">=1.38.0 <=1.71.0", &env)
            .unwrap();
        assert!(md.starts_with("# Security advisory (private): "), "{md}");
        assert!(md.lines().count() <= REPORT_MAX_LINES, "{md}");
        let snippet = md
            .split("```js\n")
            .nth(1)
            .unwrap()
            .split("```")
            .next()
            .unwrap();
        assert!(snippet.lines().count() <= SNIPPET_MAX_LINES, "{snippet}");
        for part in [
            r#"tools: { "files.delete": tool }"#,
            r#"const needsApproval = ["files.delete"];"#,
            r#""name":"files_delete""#,
            "`@mastra/core` `>=1.38.0 <=1.71.0`",
            "## Impact\n\nthe tool runs unapproved\n",
            "## Workaround\n\nname the wire name\n",
        ] {
            assert!(md.contains(part), "{part} in:\n{md}");
        }
    }

    /// `requireToolApproval: true` beside a tool's own approval function:
    /// the advisory's snippet passes both, as the case writes them.
    #[test]
    fn an_advisory_passes_true_and_the_tools_own_function() {
        let case = Case::parse(
            Path::new("cases/approval/tool-fn.json"),
            r#"{"about":"a","tools":[{"key":"files.delete","id":"delete-file","description":"d","requireApproval":{"returns":false}}],
                "call":{"requireToolApproval":true},
                "replies":[{"toolCalls":[{"id":"call_1","name":"files_delete","arguments":{"city":"Paris"}}]},{"text":"done"}]}"#,
        )
        .unwrap();
        let snippet = approval_snippet(&case).unwrap();
        for part in [
            "const requireToolApproval = true;",
            "execute, requireApproval: () => false });",
            r#"tools: { "files.delete": tool }"#,
        ] {
            assert!(snippet.contains(part), "{part} in:\n{snippet}");
        }
        assert!(!snippet.contains("needsApproval"), "{snippet}");
        assert!(snippet.lines().count() <= SNIPPET_MAX_LINES, "{snippet}");
    }

    /// Every form name in a check's JSON: the keys of its objects.
    fn forms(v: &Json, out: &mut Vec<String>) {
        match v {
            Json::Object(members) => {
                for (k, v) in members {
                    out.push(k.to_lossy());
                    forms(v, out);
                }
            }
            Json::Array(items) => items.iter().for_each(|v| forms(v, out)),
            _ => {}
        }
    }

    #[test]
    fn the_script_reads_every_form_a_symptom_check_uses() {
        let reading = MODULES.iter().find(|(n, _)| *n == "reading.mjs").unwrap().1;
        for s in every_symptom() {
            let mut used = Vec::new();
            forms(&s.check().to_json(), &mut used);
            for form in used {
                assert!(
                    reading.contains(&format!("case '{form}':")),
                    "node-probe/reading.mjs cannot evaluate {form} (of {s})"
                );
            }
        }
    }

    #[test]
    fn the_script_inlines_each_module_once_in_one_scope() {
        let script = assemble(TEMPLATE);
        assert!(!script.contains("from './"), "a local import is left");
        assert!(script.contains(DATA));
        let mut names: Vec<&str> = Vec::new();
        let mut sources: Vec<&str> = Vec::new();
        for line in script.lines() {
            assert!(!line.starts_with("export "), "{line}");
            if let Some(rest) = line.strip_prefix("import ") {
                let from = rest.rsplit_once(" from ").unwrap().1;
                assert!(!sources.contains(&from), "imported twice: {line}");
                sources.push(from);
            }
            let declared = ["async function ", "function ", "const ", "let ", "class "]
                .iter()
                .find_map(|k| line.strip_prefix(k));
            if let Some(rest) = declared {
                let name = rest
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .next()
                    .unwrap();
                assert!(
                    !names.contains(&name),
                    "{name} is declared twice in the script"
                );
                names.push(name);
            }
        }
        for (name, _) in MODULES {
            let marker = format!("// --- node-probe/{name} ---");
            assert_eq!(script.matches(&marker).count(), 1, "{name}");
        }
        // Builtins merged: one import of node:fs, with every name any module uses.
        let fs = script
            .lines()
            .find(|l| l.ends_with("from 'node:fs';"))
            .unwrap();
        for name in ["mkdtempSync", "readFileSync", "writeFileSync"] {
            assert!(fs.contains(name), "{fs}");
        }
    }

    #[test]
    fn imports_are_read_in_each_form_the_modules_write() {
        assert_eq!(
            parse_import("m", "import http from 'node:http';"),
            Import::Builtin {
                from: "node:http".into(),
                default: Some("http".into()),
                named: Vec::new()
            }
        );
        assert_eq!(
            parse_import("m", "import { a, b as c } from 'node:fs';"),
            Import::Builtin {
                from: "node:fs".into(),
                default: None,
                named: vec!["a".into(), "b as c".into()]
            }
        );
        assert_eq!(
            parse_import("m", "import { x } from './y.mjs';"),
            Import::Local("y.mjs".into())
        );
        let multi = parse_module(
            "m",
            "// head\nimport {\n  a,\n  b,\n} from 'node:fs';\nexport const x = 1;\n",
        );
        assert_eq!(multi.head, "// head\n");
        assert_eq!(multi.body, "const x = 1;");
        assert_eq!(
            multi.imports,
            vec![Import::Builtin {
                from: "node:fs".into(),
                default: None,
                named: vec!["a".into(), "b".into()]
            }]
        );
    }

    #[test]
    fn a_case_with_sources_installs_the_packages_they_need() {
        let case = Case::parse(
            Path::new("cases/x.json"),
            r#"{"about":"sources","tools":["a"],"mcp":{"s":["t"]},"memory":{"workingMemory":true}}"#,
        )
        .unwrap();
        let issue = issue();
        let repro = repro(&case, &issue, &Symptom::NoTools);
        let script = repro.script();
        let line = script
            .lines()
            .find(|l| l.contains("npm install @mastra/core@1.67.0"))
            .unwrap();
        // What MCP and memory need; not the server nor observability, which
        // only `lookups` and `tracing` do.
        for (package, version) in extras(MastraVersion::new(1, 67, 0)) {
            let needed = !matches!(package, "@mastra/server" | "@mastra/observability");
            let named = line.contains(&format!("{package}@{version}"));
            assert_eq!(named, needed, "{package}: {line}");
        }
        let asks = Case::parse(
            Path::new("cases/z.json"),
            r#"{"about":"asks","tools":["a"],"lookups":true,"tracing":true}"#,
        )
        .unwrap();
        let script = Repro {
            case: &asks,
            ..repro.clone()
        }
        .script();
        let line = script
            .lines()
            .find(|l| l.contains("npm install @mastra/core@1.67.0"))
            .unwrap();
        assert!(line.contains(" @mastra/server@1.67.0"), "{line}");
        assert!(line.contains(" @mastra/observability@1.17.8"), "{line}");
        assert!(!line.contains("@mastra/mcp"), "{line}");
        let plain = Case::parse(
            Path::new("cases/y.json"),
            r#"{"about":"plain","tools":["a"]}"#,
        )
        .unwrap();
        let repro = Repro {
            case: &plain,
            made_on: "1.67.0+abc".into(),
            ..repro
        };
        assert!(repro
            .script()
            .contains("npm install @mastra/core@1.67.0 zod@3.25.76  # or the build itself"));
    }

    #[test]
    fn the_script_carries_the_case_exactly() {
        let case = Case::parse(
            Path::new("cases/x.json"),
            r#"{"about":"a lone surrogate","tools":["\ud800x"],"call":{"toolChoice":{"type":"tool","toolName":"\ud800x"}}}"#,
        )
        .unwrap();
        let issue = issue();
        let repro = repro(&case, &issue, &Symptom::ToolChoiceNotSent);
        let script = repro.script();
        assert!(!script.contains(DATA));
        assert!(script.contains("npm install @mastra/core@1.67.0 zod@3.25.76"));
        assert!(script.contains(r#""\ud800x""#), "the key as a JS escape");
        assert!(script.contains(r#""fixedSymptom": {"#), "{script}");
        let sent = Projection {
            requests: vec![crate::projection::RequestView {
                tools: Some(vec!["_ud800x".into()]),
                tool_choice: Some(
                    Json::parse(r#"{"type":"function","function":{"name":"x"}}"#).unwrap(),
                ),
                history: Vec::new(),
            }],
            ..Projection::empty()
        };
        let env = Environment {
            node: "v24.1.0".into(),
            core: "1.67.0".into(),
            zod: "3.25.76".into(),
            provider: "@ai-sdk/openai-compatible: bundled".into(),
        };
        let mut with_fix = issue.clone();
        with_fix.fix_at = Some(crate::judge::known::FixAt {
            file: "packages/core/src/x.ts".into(),
            function: "prepare".into(),
            change: "map the name".into(),
        });
        let repro = Repro {
            shows: Shows::Issue {
                issue: &with_fix,
                symptom: &Symptom::ToolChoiceNotSent,
            },
            ..repro
        };
        let md = repro.upstream_report(&sent, &issue.seen, &env).unwrap();
        assert!(md.lines().count() <= REPORT_MAX_LINES, "{md}");
        let snippet = md
            .split("```js\n")
            .nth(1)
            .unwrap()
            .split("```")
            .next()
            .unwrap();
        assert!(snippet.lines().count() <= SNIPPET_MAX_LINES, "{snippet}");
        for part in [
            "# A named toolChoice",
            "## Expected",
            "## Reproduce",
            "## Environment\n\n- Node v24.1.0\n- @mastra/core 1.67.0\n- zod 3.25.76\n",
            r#"- request 1: tools named ["_ud800x"]; tool_choice {"type":"function","function":{"name":"x"}}"#,
            "`packages/core/src/x.ts`, `prepare`: map the name.",
            r#"tools: { "\ud800x": tool("get-weather") }"#,
            r#"toolChoice: {"type":"tool","toolName":"\ud800x"}"#,
            ">=1.0.4 <=1.71.0",
        ] {
            assert!(md.contains(part), "{part} in:\n{md}");
        }
        let plain = Repro {
            shows: Shows::Prediction(expected_view(&sent)),
            ..repro
        };
        assert_eq!(plain.upstream_report(&sent, "", &env), None);
        assert!(plain.script().contains(r#""mode": "prediction""#));
    }

    /// The script is given the whole case, its sources too: the template
    /// reads what it needs from the same file the probe is sent.
    #[test]
    fn the_script_carries_the_sources_of_the_case() {
        let case = Case::parse(
            Path::new("cases/x.json"),
            r#"{"about":"sources","tools":["a"],"agents":["helper"],"mcp":{"srv":["t.x"]},
                "memory":{"workingMemory":true},"dynamicTools":true}"#,
        )
        .unwrap();
        let issue = issue();
        let repro = repro(&case, &issue, &Symptom::ToolChoiceNotSent);
        assert_eq!(repro.data().get("case"), Some(&case.to_json()));
        let script = repro.script();
        for part in [
            r#""agents": ["#,
            r#""mcp": {"#,
            r#""workingMemory": true"#,
            r#""dynamicTools": true"#,
        ] {
            assert!(script.contains(part), "{part} in the script");
        }
    }
}
