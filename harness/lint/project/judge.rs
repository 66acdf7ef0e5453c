//! `lint_project`: every agent of a `LoadedProject` judged by `lint`, the
//! problems turned into `Finding`s with their fix and source location.
//!
//! In: a `LoadedProject`. Out: a `ProjectLint`, per agent its `LintReport`,
//! its findings (errors first) and a note when an option was not judged;
//! `counts` and `worst` summarise it for the renderings and the exit status.

use super::{LoadedProject, Location, ModelRoute, ProjectAgent, ToolSource};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::judge::provider::NamePattern;
use crate::lint::{describe, lint, KeyFinding, KeyProblem, LintInput, LintReport};
use crate::lint::{NameFinding, Reference, Severity};
use crate::route::Route;
use crate::versions::spec::MastraVersion;

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

pub(super) fn quote(s: &JsString) -> String {
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
}
