//! The terminal and JSON renderings of a `ProjectLint` (SARIF is
//! `lint::sarif`).
//!
//! In: a `ProjectLint`. Out: `to_text`, grouped by agent with a summary
//! line, and `to_json`, every key with its source and location, every
//! finding, and the summary counts.

use super::judge::{quote, AgentLint, ProjectLint};
use super::{Location, ModelRoute};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::lint::{severity_name, KeyProblem};

impl ModelRoute {
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

impl ProjectLint {
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
