//! The terminal, JSON and GitHub renderings of a `ProjectLint` (SARIF is
//! `lint::sarif`).
//!
//! In: a `ProjectLint` and, for text and annotations, a `TextStyle` (colour,
//! every key or only problems, the folder paths are shown from). Out:
//! `to_text`, grouped by agent with notes and a summary line, each finding
//! at `file:line:col` with its rule id; `to_json`, every key with its source
//! and location, every finding and suppression, how the project was loaded,
//! and the summary counts; `to_github`, one workflow annotation
//! (`::error file=F,line=L,col=C,title=RULE::MESSAGE`) per finding.

use super::basis::quote;
use super::judge::{AgentLint, Finding, ProjectLint, Suppressed};
use super::upgrade::{KeyFate, Upgrade};
use super::{Location, McpServer, McpStatus, ModelRoute, ProjectAgent};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::lint::paint::{count, Paint};
use crate::lint::{severity_name, KeyProblem, NameFinding, Severity};

/// How text is written: colour, everything or only problems, and the path
/// that leads from where the user is to the project (`""` when the project
/// is not below it: paths are then the project's own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextStyle {
    pub paint: Paint,
    pub all: bool,
    pub prefix: String,
}

impl TextStyle {
    pub fn plain() -> TextStyle {
        TextStyle {
            paint: Paint::plain(),
            all: false,
            prefix: String::new(),
        }
    }

    /// `prefix/file:line:col`.
    pub fn place(&self, l: &Location) -> String {
        format!("{}{}:{}:{}", self.prefix, l.file, l.line, l.column)
    }
}

impl ModelRoute {
    pub fn to_json(&self) -> Json {
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

impl ProjectLint {
    /// Grouped by agent, agents with errors first, each agent's errors
    /// first; `all` adds the keys that are fine and what was suppressed.
    /// Then the project's own findings, the notes on the load, and a
    /// summary line.
    pub fn to_text(&self, style: &TextStyle) -> String {
        let paint = style.paint;
        let mut out = String::new();
        let mut agents: Vec<&AgentLint> = self.agents.iter().collect();
        agents.sort_by_key(|a| std::cmp::Reverse(a.findings.iter().map(|f| f.severity).max()));
        let finding_line = |out: &mut String, f: &Finding| {
            let at = f.at.as_ref().map_or_else(
                || "(not written in the source)".to_string(),
                |l| style.place(l),
            );
            out.push_str(&format!(
                "  {} {}: {}  {}\n",
                paint.severity(f.severity),
                paint.place(&at),
                f.message,
                paint.dim(f.rule.id())
            ));
        };
        let suppressed_lines = |out: &mut String, list: &[Suppressed]| {
            for s in list {
                out.push_str(&format!(
                    "  {} {}: {} ({})\n",
                    paint.dim("ignored"),
                    s.finding.rule.id(),
                    quote(&s.finding.subject),
                    s.by.describe()
                ));
            }
        };
        for a in agents {
            let id = a
                .agent
                .id
                .as_ref()
                .filter(|id| **id != a.agent.registered_as)
                .map(|id| format!(" (id {})", id.to_lossy()))
                .unwrap_or_default();
            out.push_str(&format!(
                "{} · {} · {}\n",
                paint.bold(&format!("agent {}{id}", a.agent.registered_as.to_lossy())),
                a.agent.route.describe(),
                count(a.agent.tools.len(), "tool")
            ));
            for f in &a.findings {
                finding_line(&mut out, f);
            }
            if style.all {
                for k in a
                    .report
                    .keys
                    .iter()
                    .filter(|k| k.problem == KeyProblem::None)
                {
                    out.push_str(&format!(
                        "  {} {} is sent as is\n",
                        paint.severity(Severity::Ok),
                        quote(&k.key)
                    ));
                }
                suppressed_lines(&mut out, &a.suppressed);
            }
            if a.findings.is_empty() && !style.all {
                out.push_str("  no problems\n");
            }
            for note in &a.notes {
                out.push_str(&format!("  {} {note}\n", paint.note("note   ")));
            }
            if let Some(u) = &a.upgrade {
                upgrade_lines(&mut out, u, &a.agent, paint);
            }
        }
        if !self.findings.is_empty() || (style.all && !self.suppressed.is_empty()) {
            out.push_str(&format!("{}\n", paint.bold("project")));
            for f in &self.findings {
                finding_line(&mut out, f);
            }
            if style.all {
                suppressed_lines(&mut out, &self.suppressed);
            }
        }
        for note in self.notes() {
            out.push_str(&format!("{} {note}\n", paint.note("note:")));
        }
        out.push_str(&format!(
            "{} (@mastra/core {}, Node {}, {})\n",
            self.counts().line(),
            self.project.mastra,
            self.project.node,
            self.how_loaded()
        ));
        out
    }

    /// `loaded with esbuild in the OS sandbox`.
    pub fn how_loaded(&self) -> String {
        let isolation = match self.project.isolation.as_str() {
            "sandbox" => "in the OS sandbox",
            _ => "under the JavaScript guard",
        };
        format!("loaded with {} {isolation}", self.project.loader.name())
    }

    /// What the load did that the user should know: requests refused,
    /// files written, env files left unread, sources that could not be read.
    pub fn notes(&self) -> Vec<String> {
        let p = &self.project;
        let mut notes = Vec::new();
        if !p.blocked.is_empty() {
            notes.push(format!(
                "loading the project tried {}, refused: {}",
                count(p.blocked.len(), "outgoing request"),
                p.blocked.join(", ")
            ));
        }
        let (own, scratch): (Vec<&String>, Vec<&String>) = p
            .wrote
            .iter()
            .partition(|w| w.ends_with("(in the project)"));
        if !scratch.is_empty() {
            notes.push(format!(
                "loading the project wrote {}, kept out of the project in a scratch folder: {}",
                count(scratch.len(), "file"),
                scratch
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if !own.is_empty() {
            notes.push(format!(
                "loading the project changed {} of its own: {}",
                count(own.len(), "file"),
                own.iter()
                    .map(|s| s.trim_end_matches(" (in the project)"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if !p.env_not_read.is_empty() {
            notes.push(format!(
                "{} not read: lint reads a project's env files only inside its OS sandbox, where nothing can leave; pass one with --env-file FILE",
                p.env_not_read.join(", ")
            ));
        }
        if !p.unparsed.is_empty() {
            notes.push(format!(
                "{} could not be parsed, so no location comes from {}: {}",
                count(p.unparsed.len(), "source file"),
                if p.unparsed.len() == 1 { "it" } else { "them" },
                p.unparsed.join("; ")
            ));
        }
        notes
    }

    /// One GitHub workflow annotation per finding, then the summary line.
    pub fn to_github(&self, style: &TextStyle) -> String {
        let mut out = String::new();
        let mut annotate = |f: &Finding, agent: Option<&AgentLint>| {
            let level = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Ok => "notice",
            };
            let mut props = Vec::new();
            let file = f.at.as_ref().map(|l| l.file.clone()).or_else(|| {
                agent
                    .and_then(|a| a.agent.at.as_ref())
                    .map(|l| l.file.clone())
            });
            if let Some(file) = file {
                props.push(format!(
                    "file={}",
                    escape_property(&format!("{}{file}", style.prefix))
                ));
            }
            if let Some(l) = &f.at {
                props.push(format!("line={}", l.line));
                props.push(format!("col={}", l.column));
            }
            props.push(format!("title={}", escape_property(f.rule.id())));
            let message = match agent {
                Some(a) => format!("agent {}: {}", quote(&a.agent.registered_as), f.message),
                None => f.message.clone(),
            };
            out.push_str(&format!(
                "::{level} {}::{}\n",
                props.join(","),
                escape_data(&message)
            ));
        };
        for a in &self.agents {
            for f in &a.findings {
                annotate(f, Some(a));
            }
        }
        for f in &self.findings {
            annotate(f, None);
        }
        for note in self.notes() {
            out.push_str(&format!(
                "::notice title=mastra-conform::{}\n",
                escape_data(&note)
            ));
        }
        out.push_str(&format!(
            "{} (@mastra/core {}, Node {}, {})\n",
            self.counts().line(),
            self.project.mastra,
            self.project.node,
            self.how_loaded()
        ));
        out
    }

    pub fn to_json(&self) -> Json {
        let agents = self
            .agents
            .iter()
            .map(|a| {
                // Each key as `lint --json` writes it, with where it came from.
                let tools = a
                    .agent
                    .tools
                    .iter()
                    .zip(&a.report.keys)
                    .map(|(t, k)| {
                        let mut members = k.json_members();
                        members.push(("source".into(), Json::str(t.source.name())));
                        members.push((
                            "server".into(),
                            t.server.clone().map_or(Json::Null, Json::String),
                        ));
                        members.push(("id".into(), t.id.clone().map_or(Json::Null, Json::String)));
                        members.push((
                            "listing".into(),
                            t.listing.map_or(Json::Null, |l| Json::str(l.name())),
                        ));
                        members.push(("at".into(), loc(&t.at)));
                        Json::Object(members)
                    })
                    .collect();
                Json::object([
                    ("registeredAs", Json::String(a.agent.registered_as.clone())),
                    ("id", a.agent.id.clone().map_or(Json::Null, Json::String)),
                    ("at", loc(&a.agent.at)),
                    ("route", a.agent.route.to_json()),
                    ("tools", Json::Array(tools)),
                    (
                        "names",
                        Json::Array(a.report.names.iter().map(NameFinding::to_json).collect()),
                    ),
                    ("mcp", servers_json(&a.agent.mcp)),
                    (
                        "upgrade",
                        a.upgrade
                            .as_ref()
                            .map_or(Json::Null, |u| upgrade_json(u, &a.agent)),
                    ),
                    ("findings", findings_json(&a.findings)),
                    ("suppressed", suppressed_json(&a.suppressed)),
                    (
                        "notes",
                        Json::Array(a.notes.iter().map(|n| Json::str(n)).collect()),
                    ),
                ])
            })
            .collect();
        let c = self.counts();
        let p = &self.project;
        let strings = |v: &[String]| Json::Array(v.iter().map(|b| Json::str(b)).collect());
        Json::object([
            ("project", Json::str(&p.dir)),
            ("entry", Json::str(&p.entry)),
            ("mastra", Json::str(&p.mastra.to_string())),
            ("node", Json::str(&p.node)),
            ("loader", Json::str(p.loader.name())),
            (
                "loaderReason",
                p.loader_reason.as_deref().map_or(Json::Null, Json::str),
            ),
            ("isolation", Json::str(&p.isolation)),
            (
                "config",
                self.config.origin.as_deref().map_or(Json::Null, Json::str),
            ),
            (
                "env",
                Json::object([
                    ("read", strings(&p.env_read)),
                    ("notRead", strings(&p.env_not_read)),
                ]),
            ),
            ("agents", Json::Array(agents)),
            ("mcp", servers_json(&p.mcp)),
            ("findings", findings_json(&self.findings)),
            ("suppressed", suppressed_json(&self.suppressed)),
            ("blocked", strings(&p.blocked)),
            ("wrote", strings(&p.wrote)),
            ("unparsed", strings(&p.unparsed)),
            (
                "notes",
                Json::Array(self.notes().iter().map(|n| Json::str(n)).collect()),
            ),
            (
                "summary",
                Json::object([
                    ("agents", Json::int(c.agents as i64)),
                    ("tools", Json::int(c.tools as i64)),
                    ("errors", Json::int(c.errors as i64)),
                    ("warnings", Json::int(c.warnings as i64)),
                    ("suppressed", Json::int(c.suppressed as i64)),
                ]),
            ),
            ("worst", Json::str(severity_name(self.worst()))),
        ])
    }
}

/// The upgrade view under an agent: each key and name whose outcome moving
/// to the newest 1.x changes, `now -> on 1.x`.
fn upgrade_lines(out: &mut String, u: &Upgrade, agent: &ProjectAgent, paint: Paint) {
    if u.is_empty() {
        out.push_str(&format!(
            "  {} nothing these keys send changes on the newest 1.x\n",
            paint.note("upgrade")
        ));
        return;
    }
    out.push_str(&format!(
        "  {} on the newest 1.x, what changes on the wire:\n",
        paint.note("upgrade")
    ));
    for k in &u.keys {
        let renamed = if k.then.key != k.now.key {
            format!(" (1.x names it {})", quote(&k.then.key))
        } else {
            String::new()
        };
        out.push_str(&format!(
            "    {}{renamed}: {} -> {}\n",
            quote(&k.now.key),
            k.now.describe(agent),
            k.then.describe(agent)
        ));
    }
    for n in &u.names {
        out.push_str(&format!(
            "    {} {}: {} -> {}\n",
            n.used_in.name(),
            quote(&n.name),
            n.now.describe(n.used_in),
            n.then.describe(n.used_in)
        ));
    }
}

fn upgrade_json(u: &Upgrade, agent: &ProjectAgent) -> Json {
    let fate = |f: &KeyFate| {
        Json::object([
            ("key", Json::String(f.key.clone())),
            ("sentAs", f.sent_as.clone().map_or(Json::Null, Json::String)),
            ("problem", Json::str(f.problem.name())),
            ("providerAccepts", Json::Bool(f.provider_accepts)),
            ("says", Json::str(&f.describe(agent))),
        ])
    };
    let keys = u
        .keys
        .iter()
        .map(|k| {
            Json::object([
                ("source", Json::str(k.source.name())),
                ("now", fate(&k.now)),
                ("then", fate(&k.then)),
            ])
        })
        .collect();
    let names = u
        .names
        .iter()
        .map(|n| {
            Json::object([
                ("usedIn", Json::str(n.used_in.name())),
                ("name", Json::String(n.name.clone())),
                ("now", Json::str(n.now.name())),
                ("then", Json::str(n.then.name())),
            ])
        })
        .collect();
    Json::object([
        ("to", Json::str("1.x")),
        ("keys", Json::Array(keys)),
        ("names", Json::Array(names)),
    ])
}

fn loc(l: &Option<Location>) -> Json {
    l.as_ref().map_or(Json::Null, |l| {
        Json::object([
            ("file", Json::str(&l.file)),
            ("line", Json::int(l.line as i64)),
            ("column", Json::int(l.column as i64)),
        ])
    })
}

fn finding_json(f: &Finding) -> Json {
    Json::object([
        ("severity", Json::str(severity_name(f.severity))),
        ("rule", Json::str(f.rule.id())),
        ("subject", Json::String(f.subject.clone())),
        ("message", Json::str(&f.message)),
        ("at", loc(&f.at)),
    ])
}

fn findings_json(list: &[Finding]) -> Json {
    Json::Array(list.iter().map(finding_json).collect())
}

fn suppressed_json(list: &[Suppressed]) -> Json {
    Json::Array(
        list.iter()
            .map(|s| {
                let mut members: Vec<(JsString, Json)> = finding_json(&s.finding)
                    .members()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                members.push(("suppressedBy".into(), Json::str(&s.by.describe())));
                Json::object(members)
            })
            .collect(),
    )
}

fn servers_json(list: &[McpServer]) -> Json {
    let opt = |s: &Option<String>| s.as_deref().map_or(Json::Null, Json::str);
    Json::Array(
        list.iter()
            .map(|s| {
                Json::object([
                    ("server", Json::String(s.name.clone())),
                    ("transport", opt(&s.transport)),
                    ("target", opt(&s.target)),
                    (
                        "status",
                        Json::str(match s.status {
                            McpStatus::Listed => "listed",
                            McpStatus::Failed => "failed",
                            McpStatus::Unasked => "unasked",
                        }),
                    ),
                    ("error", opt(&s.error)),
                    (
                        "tools",
                        Json::Array(s.tools.iter().cloned().map(Json::String).collect()),
                    ),
                    ("at", loc(&s.at)),
                ])
            })
            .collect(),
    )
}

/// A workflow command's message: `%`, CR and LF escaped as GitHub reads them.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: as data, and `:` and `,` too.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotation_text_is_escaped_as_github_reads_it() {
        assert_eq!(escape_data("a%b\nc\r"), "a%25b%0Ac%0D");
        assert_eq!(escape_property("src/a,b:c.ts"), "src/a%2Cb%3Ac.ts");
    }
}
