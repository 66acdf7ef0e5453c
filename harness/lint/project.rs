//! `ProjectLint`: a user's Mastra project through the model.
//!
//! In: a `LoadedProject`, what `node-probe/project.mjs` read from the
//! project (each agent's tool keys before Mastra's rewrite, in the order
//! Mastra merges them, with where each came from and where it is written;
//! its default `toolChoice` and `activeTools`; its model's route; the
//! installed `@mastra/core` version). Out: per agent, the `LintReport` of
//! the keys lint already knows how to judge, and `Finding`s, one per
//! problem, each with its fix and source location, which the terminal, JSON
//! and SARIF renderings share. Pure: loading the project is `load.rs`.

use super::{describe, lint, severity_name, KeyFinding, KeyProblem, LintInput, LintReport};
use super::{NameFinding, Reference, Severity};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::judge::provider::NamePattern;
use crate::route::Route;
use crate::versions::spec::MastraVersion;

/// Where a key or name is written in the project (relative path, 1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: u64,
    pub column: u64,
}

/// Where a tool in an agent's record came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolSource {
    /// `new Agent({ tools })`, static or resolved from a function.
    Tool,
    /// A tool an MCP client listed, given in `tools`.
    Mcp,
    /// `agents: { KEY }`: sent as `agent-KEY`.
    Agent,
    /// `workflows: { KEY }`: sent as `workflow-KEY`.
    Workflow,
    /// The agent's memory (working memory and the like).
    Memory,
    /// A toolset or client tool in the agent's default options.
    Toolset,
    Client,
    /// Anything else Mastra added (workspace, skills, browser, processors).
    Other,
}

impl ToolSource {
    fn parse(s: &str) -> Option<ToolSource> {
        Some(match s {
            "tool" => ToolSource::Tool,
            "mcp" => ToolSource::Mcp,
            "agent" => ToolSource::Agent,
            "workflow" => ToolSource::Workflow,
            "memory" => ToolSource::Memory,
            "toolset" => ToolSource::Toolset,
            "client" => ToolSource::Client,
            "other" => ToolSource::Other,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            ToolSource::Tool => "tool",
            ToolSource::Mcp => "mcp",
            ToolSource::Agent => "agent",
            ToolSource::Workflow => "workflow",
            ToolSource::Memory => "memory",
            ToolSource::Toolset => "toolset",
            ToolSource::Client => "client",
            ToolSource::Other => "other",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectTool {
    pub key: JsString,
    pub source: ToolSource,
    pub at: Option<Location>,
}

/// How an agent names its model, which decides the provider's rules
/// (shared/case-format.md, ROUTE).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelRoute {
    /// `{ id, url }`: an OpenAI-compatible Chat Completions endpoint.
    OpenAiCompatible { id: String, url: String },
    /// A router string, `"provider/model"`.
    Router { provider: String, model: String },
    /// An AI SDK model object (`openai("gpt-4o")`).
    Sdk { provider: String, model: String },
    /// A model the loader could not read.
    Unknown,
}

impl ModelRoute {
    pub fn describe(&self) -> String {
        match self {
            ModelRoute::OpenAiCompatible { id, url } => {
                format!("openai-compatible ({id} at {url})")
            }
            ModelRoute::Router { provider, model } => format!("{provider} (\"{model}\")"),
            ModelRoute::Sdk { provider, model } => format!("{provider} (AI SDK model {model})"),
            ModelRoute::Unknown => "unknown model".into(),
        }
    }

    fn to_json(&self) -> Json {
        match self {
            ModelRoute::OpenAiCompatible { id, url } => Json::object([
                ("kind", Json::str("openai-compatible")),
                ("id", Json::str(id)),
                ("url", Json::str(url)),
            ]),
            ModelRoute::Router { provider, model } | ModelRoute::Sdk { provider, model } => {
                let kind = if matches!(self, ModelRoute::Router { .. }) {
                    "router"
                } else {
                    "sdk"
                };
                Json::object([
                    ("kind", Json::str(kind)),
                    ("provider", Json::str(provider)),
                    ("model", Json::str(model)),
                ])
            }
            ModelRoute::Unknown => Json::object([("kind", Json::str("unknown"))]),
        }
    }
}

/// A name an option uses (`toolChoice`, `activeTools`), and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameUse {
    pub name: JsString,
    pub at: Option<Location>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectAgent {
    /// The key it is registered under in `new Mastra({ agents })`.
    pub registered_as: JsString,
    pub id: Option<JsString>,
    pub route: ModelRoute,
    pub tools: Vec<ProjectTool>,
    /// A named default `toolChoice` (a mode like `"auto"` names nothing).
    pub tool_choice: Option<NameUse>,
    pub active_tools: Option<Vec<NameUse>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedProject {
    pub dir: String,
    pub entry: String,
    pub node: String,
    pub mastra: MastraVersion,
    /// `node` (type stripping) or `tsx` (the project's own).
    pub loader: String,
    pub agents: Vec<ProjectAgent>,
    /// Requests the project tried to make while loading, all refused.
    pub blocked: Vec<String>,
}

/// What the loader document says went wrong, with the exit status it deserves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadFailure {
    pub kind: String,
    pub message: String,
    pub status: u8,
}

/// Read the loader's document (`node-probe/project.mjs`).
pub fn parse_loaded(doc: &Json) -> Result<LoadedProject, Result<LoadFailure, String>> {
    if let Some(e) = doc.get("error") {
        let s = |k: &str| e.get(k).and_then(Json::as_str).map(JsString::to_lossy);
        let status = match e.get("status").and_then(Json::as_f64) {
            Some(2.0) => 2,
            _ => 3,
        };
        return Err(Ok(LoadFailure {
            kind: s("kind").unwrap_or_default(),
            message: s("message").unwrap_or_else(|| "the loader failed".into()),
            status,
        }));
    }
    parse_project(doc).map_err(Err)
}

fn parse_project(doc: &Json) -> Result<LoadedProject, String> {
    let text = |v: &Json, k: &str| -> Result<String, String> {
        v.get(k)
            .and_then(Json::as_str)
            .map(JsString::to_lossy)
            .ok_or_else(|| format!("the loader's document has no string `{k}`"))
    };
    let version_text = doc
        .get("mastra")
        .map(|m| text(m, "version"))
        .transpose()?
        .ok_or("the loader's document has no `mastra`")?;
    let mastra = MastraVersion::parse(&version_text)
        .ok_or_else(|| format!("@mastra/core {version_text} is not a version lint knows"))?;
    let agents = doc
        .get("agents")
        .and_then(Json::as_array)
        .ok_or("the loader's document has no `agents` array")?
        .iter()
        .map(parse_agent)
        .collect::<Result<Vec<_>, _>>()?;
    let blocked = doc
        .get("blocked")
        .and_then(Json::as_array)
        .unwrap_or(&[])
        .iter()
        .filter_map(|b| b.as_str().map(JsString::to_lossy))
        .collect();
    Ok(LoadedProject {
        dir: text(doc, "project")?,
        entry: text(doc, "entry")?,
        node: text(doc, "node")?,
        mastra,
        loader: text(doc, "loader")?,
        agents,
        blocked,
    })
}

fn parse_location(v: Option<&Json>) -> Option<Location> {
    let v = v?;
    Some(Location {
        file: v.get("file")?.as_str()?.to_lossy(),
        line: v.get("line")?.as_f64()? as u64,
        column: v.get("column")?.as_f64()? as u64,
    })
}

fn parse_agent(v: &Json) -> Result<ProjectAgent, String> {
    let string = |k: &str| v.get(k).and_then(Json::as_str).cloned();
    let registered_as = string("registeredAs").ok_or("an agent has no `registeredAs`")?;
    let tools = v
        .get("tools")
        .and_then(Json::as_array)
        .ok_or("an agent has no `tools` array")?
        .iter()
        .map(|t| {
            let key = t
                .get("key")
                .and_then(Json::as_str)
                .cloned()
                .ok_or("a tool has no `key`")?;
            let source = t
                .get("source")
                .and_then(Json::as_str)
                .and_then(|s| ToolSource::parse(&s.to_lossy()))
                .ok_or("a tool has no known `source`")?;
            Ok(ProjectTool {
                key,
                source,
                at: parse_location(t.get("at")),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let route = parse_route(v.get("route"));
    let tool_choice = v.get("toolChoice").and_then(|c| {
        Some(NameUse {
            name: c.get("tool")?.as_str()?.clone(),
            at: parse_location(c.get("at")),
        })
    });
    let active_tools = v.get("activeTools").and_then(Json::as_array).map(|names| {
        names
            .iter()
            .filter_map(|n| {
                Some(NameUse {
                    name: n.get("name")?.as_str()?.clone(),
                    at: parse_location(n.get("at")),
                })
            })
            .collect()
    });
    Ok(ProjectAgent {
        registered_as,
        id: string("id"),
        route,
        tools,
        tool_choice,
        active_tools,
    })
}

fn parse_route(v: Option<&Json>) -> ModelRoute {
    let s = |k: &str| {
        v.and_then(|v| v.get(k))
            .and_then(Json::as_str)
            .map(JsString::to_lossy)
    };
    match s("kind").as_deref() {
        Some("openai-compatible") => ModelRoute::OpenAiCompatible {
            id: s("id").unwrap_or_default(),
            url: s("url").unwrap_or_default(),
        },
        Some("router") => ModelRoute::Router {
            provider: s("provider").unwrap_or_default(),
            model: s("model").unwrap_or_default(),
        },
        Some("sdk") => ModelRoute::Sdk {
            provider: s("provider").unwrap_or_default(),
            model: s("model").unwrap_or_default(),
        },
        _ => ModelRoute::Unknown,
    }
}

// ---------------------------------------------------------------------------
// Judging

/// The provider's rule for a function name, on the agent's route: the same
/// per-provider patterns the judge applies to captured bodies
/// (`judge::provider::NamePattern`, each rule cited there). A model the
/// loader could not place, or an AI SDK provider the harness has no route
/// for, is judged by the OpenAI-compatible rule, `^[a-zA-Z0-9_-]{1,64}$`.
pub fn provider_accepts(route: &ModelRoute, name: &JsString) -> bool {
    NamePattern::of(route.wire_route()).accepts(name)
}

impl ModelRoute {
    /// The harness's route for this model (`openai-compatible` when unknown).
    pub fn wire_route(&self) -> Route {
        match self {
            ModelRoute::Router { provider, .. } | ModelRoute::Sdk { provider, .. } => {
                // AI SDK providers name themselves `openai.responses`,
                // `anthropic.messages`, `google.generative-ai`, ...
                let family = provider.split('.').next().unwrap_or(provider);
                Route::parse(family).unwrap_or(Route::OpenAiCompatible)
            }
            ModelRoute::OpenAiCompatible { .. } | ModelRoute::Unknown => Route::OpenAiCompatible,
        }
    }
}

/// One problem, ready for any rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub severity: Severity,
    /// A stable rule id (SARIF `ruleId`).
    pub rule: Rule,
    /// The key or name it is about.
    pub subject: JsString,
    /// The full sentence, with the fix.
    pub message: String,
    pub at: Option<Location>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    Collision,
    FalseCollision,
    EmptyKey,
    ToolChoiceNotSent,
    ActiveToolsNotSent,
    ProviderRejects,
    Rewritten,
    Cut,
    Dropped,
}

impl Rule {
    pub const ALL: [Rule; 9] = [
        Rule::Collision,
        Rule::FalseCollision,
        Rule::EmptyKey,
        Rule::ToolChoiceNotSent,
        Rule::ActiveToolsNotSent,
        Rule::ProviderRejects,
        Rule::Rewritten,
        Rule::Cut,
        Rule::Dropped,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Rule::Collision => "tool-name-collision",
            Rule::FalseCollision => "tool-name-false-collision",
            Rule::EmptyKey => "empty-tool-key",
            Rule::ToolChoiceNotSent => "tool-choice-names-no-tool-sent",
            Rule::ActiveToolsNotSent => "active-tools-names-no-tool-sent",
            Rule::ProviderRejects => "provider-rejects-tool-name",
            Rule::Rewritten => "tool-key-rewritten",
            Rule::Cut => "tool-key-cut",
            Rule::Dropped => "tool-key-dropped",
        }
    }

    pub fn summary(self) -> &'static str {
        match self {
            Rule::Collision => "Two tool keys rewrite to one name: Mastra throws AGENT_TOOL_NAME_COLLISION",
            Rule::FalseCollision => "A tool key rewrites onto a name every JS object inherits: Mastra throws AGENT_TOOL_NAME_COLLISION",
            Rule::EmptyKey => "The empty tool key makes Mastra throw a TypeError",
            Rule::ToolChoiceNotSent => "toolChoice names no tool that is sent: the provider rejects the request",
            Rule::ActiveToolsNotSent => "activeTools names no tool that is sent: that tool is not offered",
            Rule::ProviderRejects => "The provider rejects a tool name Mastra sends",
            Rule::Rewritten => "Mastra rewrites the tool key before the model sees it",
            Rule::Cut => "Mastra cuts the tool key to 63 characters",
            Rule::Dropped => "Mastra's copy of the tools object drops the key \"__proto__\"",
        }
    }

    pub fn severity(self) -> Severity {
        match self {
            Rule::Rewritten | Rule::Cut | Rule::Dropped => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

/// One agent, judged.
#[derive(Debug, Clone)]
pub struct AgentLint {
    pub agent: ProjectAgent,
    pub report: LintReport,
    /// Every problem, errors first, then in the order of the record.
    pub findings: Vec<Finding>,
    /// Why activeTools was not judged (a version that ignores it).
    pub note: Option<String>,
}

#[derive(Debug, Clone)]
pub struct ProjectLint {
    pub project: LoadedProject,
    pub agents: Vec<AgentLint>,
}

pub fn lint_project(project: LoadedProject) -> ProjectLint {
    let agents = project
        .agents
        .iter()
        .map(|a| lint_agent(a, project.mastra))
        .collect();
    ProjectLint { project, agents }
}

fn lint_agent(agent: &ProjectAgent, version: MastraVersion) -> AgentLint {
    // activeTools is ignored before 1.1.0: its names break nothing there.
    let (active_tools, note) = match &agent.active_tools {
        Some(names) if version < crate::model::releases::ACTIVE_TOOLS_APPLIED => (
            Vec::new(),
            (!names.is_empty()).then(|| {
                format!("activeTools is ignored by @mastra/core {version} (applied from 1.1.0)")
            }),
        ),
        Some(names) => (names.iter().map(|n| n.name.clone()).collect(), None),
        None => (Vec::new(), None),
    };
    let input = LintInput {
        keys: agent.tools.iter().map(|t| t.key.clone()).collect(),
        tool_choice: agent.tool_choice.as_ref().map(|n| n.name.clone()),
        active_tools,
        prompt_names: Vec::new(),
    };
    let report = lint(&input);
    let at_key = |key: &JsString| {
        agent
            .tools
            .iter()
            .find(|t| t.key == *key)
            .and_then(|t| t.at.clone())
    };
    let mut findings = Vec::new();
    let source_of = |key: &JsString| {
        agent
            .tools
            .iter()
            .find(|t| t.key == *key)
            .map_or(ToolSource::Other, |t| t.source)
    };
    for k in &report.keys {
        if let Some(rule) = key_rule(k) {
            findings.push(Finding {
                severity: k.severity,
                rule,
                subject: k.key.clone(),
                message: key_message(k, source_of(&k.key)),
                at: at_key(&k.key),
            });
        }
        if let Some(sent) = &k.sent_as {
            if !provider_accepts(&agent.route, sent) {
                findings.push(Finding {
                    severity: Severity::Error,
                    rule: Rule::ProviderRejects,
                    subject: k.key.clone(),
                    message: format!(
                        "{} -> {}: {} rejects this function name",
                        quote(&k.key),
                        quote(sent),
                        agent.route.describe()
                    ),
                    at: at_key(&k.key),
                });
            }
        }
    }
    for n in report.names.iter().filter(|n| n.severity != Severity::Ok) {
        let (rule, at) = match n.used_in {
            Reference::ToolChoice => (
                Rule::ToolChoiceNotSent,
                agent.tool_choice.as_ref().and_then(|u| u.at.clone()),
            ),
            _ => (
                Rule::ActiveToolsNotSent,
                agent
                    .active_tools
                    .iter()
                    .flatten()
                    .find(|u| u.name == n.name)
                    .and_then(|u| u.at.clone()),
            ),
        };
        findings.push(Finding {
            severity: n.severity,
            rule,
            subject: n.name.clone(),
            message: name_message(n),
            at,
        });
    }
    // Errors first; within a severity, the record's order.
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    AgentLint {
        agent: agent.clone(),
        report,
        findings,
        note,
    }
}

fn key_rule(k: &KeyFinding) -> Option<Rule> {
    Some(match k.problem {
        KeyProblem::None => return None,
        KeyProblem::Rewritten { .. } => Rule::Rewritten,
        KeyProblem::Cut => Rule::Cut,
        KeyProblem::Collision { .. } => Rule::Collision,
        KeyProblem::FalseCollision => Rule::FalseCollision,
        KeyProblem::Crash => Rule::EmptyKey,
        KeyProblem::Dropped => Rule::Dropped,
    })
}

fn quote(s: &JsString) -> String {
    Json::String(s.clone()).to_compact()
}

/// The key's problem and its fix. A sub-agent or workflow is fixed where it
/// is registered (`agents: { KEY }`), so its fix drops Mastra's prefix.
fn key_message(k: &KeyFinding, source: ToolSource) -> String {
    let sent = k
        .sent_as
        .as_ref()
        .map_or_else(|| "(not sent)".into(), quote);
    let mut m = format!("{} -> {sent}: {}", quote(&k.key), describe(k));
    let prefix = match source {
        ToolSource::Agent => Some(("agent-", "agents")),
        ToolSource::Workflow => Some(("workflow-", "workflows")),
        _ => None,
    };
    match (&k.suggestion, prefix) {
        (Some(s), Some((prefix, option)))
            if s.units().starts_with(JsString::from(prefix).units()) =>
        {
            let key = s.slice(prefix.len(), s.len());
            m.push_str(&format!(
                "; register it in {option} under the key {}",
                quote(&key)
            ));
        }
        (Some(s), _) => m.push_str(&format!("; use the key {}", quote(s))),
        (None, _) => {}
    }
    m
}

fn name_message(n: &NameFinding) -> String {
    let why = match n.used_in {
        Reference::ToolChoice => "names no tool that is sent; the provider rejects the request",
        _ => "matches no tool that is sent (activeTools compares rewritten names); that tool is not offered",
    };
    let mut m = format!("{} {} {why}", n.used_in.name(), quote(&n.name));
    if let Some(meant) = &n.meant {
        m.push_str(&format!("; the model sees {}: use that name", quote(meant)));
    }
    m
}

// ---------------------------------------------------------------------------
// Rendering: the terminal and JSON (SARIF is report::sarif)

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    pub agents: usize,
    pub tools: usize,
    pub errors: usize,
    pub warnings: usize,
}

impl ProjectLint {
    pub fn counts(&self) -> Counts {
        let mut c = Counts {
            agents: self.agents.len(),
            ..Counts::default()
        };
        for a in &self.agents {
            c.tools += a.agent.tools.len();
            for f in &a.findings {
                match f.severity {
                    Severity::Error => c.errors += 1,
                    Severity::Warning => c.warnings += 1,
                    Severity::Ok => {}
                }
            }
        }
        c
    }

    pub fn worst(&self) -> Severity {
        self.agents
            .iter()
            .flat_map(|a| a.findings.iter().map(|f| f.severity))
            .max()
            .unwrap_or(Severity::Ok)
    }

    /// Grouped by agent, agents with errors first, each agent's errors
    /// first; `all` adds the keys that are fine. Ends with a summary line.
    pub fn to_text(&self, all: bool) -> String {
        let mut out = String::new();
        let mut agents: Vec<&AgentLint> = self.agents.iter().collect();
        agents.sort_by_key(|a| std::cmp::Reverse(a.findings.iter().map(|f| f.severity).max()));
        for a in agents {
            let id = a
                .agent
                .id
                .as_ref()
                .filter(|id| **id != a.agent.registered_as)
                .map(|id| format!(" (id {})", id.to_lossy()))
                .unwrap_or_default();
            out.push_str(&format!(
                "agent {}{id} · {} · {} tools\n",
                a.agent.registered_as.to_lossy(),
                a.agent.route.describe(),
                a.agent.tools.len()
            ));
            for f in &a.findings {
                let at = f.at.as_ref().map_or_else(
                    || "(no literal in the source)".into(),
                    |l| format!("{}:{}", l.file, l.line),
                );
                out.push_str(&format!(
                    "  {:<7} {at}: {}\n",
                    severity_name(f.severity),
                    f.message
                ));
            }
            if all {
                for k in a
                    .report
                    .keys
                    .iter()
                    .filter(|k| k.problem == KeyProblem::None)
                {
                    out.push_str(&format!("  ok      {} is sent as is\n", quote(&k.key)));
                }
            }
            if a.findings.is_empty() && !all {
                out.push_str("  no problems\n");
            }
            if let Some(note) = &a.note {
                out.push_str(&format!("  note    {note}\n"));
            }
        }
        if !self.project.blocked.is_empty() {
            out.push_str(&format!(
                "note: loading the project tried {} outgoing request(s), all refused: {}\n",
                self.project.blocked.len(),
                self.project.blocked.join(", ")
            ));
        }
        let c = self.counts();
        out.push_str(&format!(
            "{} agents, {} tools: {} errors, {} warnings (@mastra/core {}, Node {}, loaded with {})\n",
            c.agents, c.tools, c.errors, c.warnings, self.project.mastra, self.project.node, self.project.loader
        ));
        out
    }

    pub fn to_json(&self) -> Json {
        let loc = |l: &Option<Location>| {
            l.as_ref().map_or(Json::Null, |l| {
                Json::object([
                    ("file", Json::str(&l.file)),
                    ("line", Json::int(l.line as i64)),
                    ("column", Json::int(l.column as i64)),
                ])
            })
        };
        let agents = self
            .agents
            .iter()
            .map(|a| {
                let keys = a.report.to_json();
                let tools = a
                    .agent
                    .tools
                    .iter()
                    .zip(keys.get("keys").and_then(Json::as_array).unwrap_or(&[]))
                    .map(|(t, k)| {
                        let mut members: Vec<(JsString, Json)> = k
                            .members()
                            .unwrap_or_default()
                            .into_iter()
                            .map(|(n, v)| (n.clone(), v.clone()))
                            .collect();
                        members.push(("source".into(), Json::str(t.source.name())));
                        members.push(("at".into(), loc(&t.at)));
                        Json::object(members)
                    })
                    .collect();
                let findings = a
                    .findings
                    .iter()
                    .map(|f| {
                        Json::object([
                            ("severity", Json::str(severity_name(f.severity))),
                            ("rule", Json::str(f.rule.id())),
                            ("subject", Json::String(f.subject.clone())),
                            ("message", Json::str(&f.message)),
                            ("at", loc(&f.at)),
                        ])
                    })
                    .collect();
                Json::object([
                    ("registeredAs", Json::String(a.agent.registered_as.clone())),
                    ("id", a.agent.id.clone().map_or(Json::Null, Json::String)),
                    ("route", a.agent.route.to_json()),
                    ("tools", Json::Array(tools)),
                    (
                        "names",
                        keys.get("names").cloned().unwrap_or(Json::Array(vec![])),
                    ),
                    ("findings", Json::Array(findings)),
                    ("note", a.note.as_deref().map_or(Json::Null, Json::str)),
                ])
            })
            .collect();
        let c = self.counts();
        Json::object([
            ("project", Json::str(&self.project.dir)),
            ("entry", Json::str(&self.project.entry)),
            ("mastra", Json::str(&self.project.mastra.to_string())),
            ("node", Json::str(&self.project.node)),
            ("loader", Json::str(&self.project.loader)),
            ("agents", Json::Array(agents)),
            (
                "blocked",
                Json::Array(self.project.blocked.iter().map(|b| Json::str(b)).collect()),
            ),
            (
                "summary",
                Json::object([
                    ("agents", Json::int(c.agents as i64)),
                    ("tools", Json::int(c.tools as i64)),
                    ("errors", Json::int(c.errors as i64)),
                    ("warnings", Json::int(c.warnings as i64)),
                ]),
            ),
            ("worst", Json::str(severity_name(self.worst()))),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn js(s: &str) -> JsString {
        JsString::from(s)
    }

    /// What `project.mjs` prints for a small project (lone surrogate included).
    fn doc(version: &str) -> Json {
        Json::parse(&format!(
            r#"{{"project":"/p","entry":"src/mastra/index.ts","node":"v24.22.3",
            "mastra":{{"version":"{version}","dir":"/p/node_modules/@mastra/core"}},"loader":"node",
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
        let l = lint_project(load("1.67.0"));
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
        let text = l.to_text(false);
        assert!(
            text.contains("error   src/a.ts:4: \"search web\" -> (not sent): collision"),
            "{text}"
        );
        assert!(
            text.contains("(no literal in the source): \"\\ud800x\" -> \"_x\""),
            "{text}"
        );
        assert!(text.ends_with("1 agents, 4 tools: 3 errors, 3 warnings (@mastra/core 1.67.0, Node v24.22.3, loaded with node)\n"), "{text}");
    }

    #[test]
    fn active_tools_before_1_1_0_break_nothing() {
        let l = lint_project(load("1.0.4"));
        let a = &l.agents[0];
        assert!(a
            .findings
            .iter()
            .all(|f| f.rule != Rule::ActiveToolsNotSent));
        assert!(a
            .note
            .as_deref()
            .unwrap()
            .contains("ignored by @mastra/core 1.0.4"));
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
        let failure = parse_loaded(&e).unwrap_err().unwrap();
        assert_eq!((failure.kind.as_str(), failure.status), ("no-mastra", 2));
        let e = Json::parse(r#"{"error":{"kind":"loader","message":"bug"}}"#).unwrap();
        assert_eq!(parse_loaded(&e).unwrap_err().unwrap().status, 3);
        assert!(parse_loaded(&Json::parse("{}").unwrap())
            .unwrap_err()
            .is_err());
    }
}

#[cfg(test)]
mod provider_rule_tests {
    use super::*;

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
}
