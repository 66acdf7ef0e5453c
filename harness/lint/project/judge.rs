//! `lint_project`: every agent of a `LoadedProject` judged by `lint`, the
//! problems turned into `Finding`s with their rule, their fix and their
//! source location, then settled against the project's `LintConfig` and
//! its inline comments.
//!
//! In: a `LoadedProject` and a `LintConfig`. Out: a `ProjectLint`: per agent
//! its `LintReport`, its findings (errors first), the findings suppressed
//! (and by what), and notes where an option was not judged; the project's
//! own findings (an MCP server no agent names, an approval function
//! passed to a call); `counts` and `worst`
//! summarise it for the renderings and the exit status.
//!
//! Beyond the keys: an MCP server whose key Mastra rewrites makes one
//! finding at the server key, with the rename that fixes all its tools,
//! instead of one per tool; an MCP server that gave no tools (it failed to
//! start, or lint could not reach it) is a finding, so that an agent whose
//! tools are not all known is never called clean; an approval function
//! passed to `generate` or `stream` on a release whose resumed runs lose it
//! is a project finding at the function (`resume`), since every call after
//! its first answer runs unapproved.

pub use super::basis::Finding;
use super::basis::{agent_input, provider_accepts, quote};
use super::config::{Level, LintConfig};
use super::names::{
    approval_findings, comparison_findings, instructions_findings, sent_name_use_findings,
};
use super::resume::resume_findings;
pub use super::rules::{Rule, RULES_URI};
use super::upgrade::{upgrade, Upgrade};
use super::{
    InlineSuppression, LoadedProject, Location, McpServer, McpStatus, ModelRoute, ProjectAgent,
    ToolSource,
};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::lint::paint::count;
use crate::lint::{describe, lint, KeyFinding, KeyProblem, LintReport};
use crate::lint::{NameFinding, Reference, Severity};
use crate::model::rewrite::{is_valid_name, rewrite, Rewrite, MAX_NAME};
use crate::route::Route;

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

/// Why a finding is not counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SuppressedBy {
    /// The configuration sets the rule off.
    RuleOff { origin: String },
    /// The configuration's `allow` names the subject.
    Allowed { origin: String, pattern: String },
    /// A `mastra-conform-ignore` comment covers the finding's line.
    Comment { file: String, line: u64 },
}

impl SuppressedBy {
    pub fn describe(&self) -> String {
        match self {
            SuppressedBy::RuleOff { origin } => format!("rule off in {origin}"),
            SuppressedBy::Allowed { origin, pattern } => {
                format!("allowed by {} in {origin}", Json::str(pattern).to_compact())
            }
            SuppressedBy::Comment { file, line } => format!("comment at {file}:{line}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppressed {
    pub finding: Finding,
    pub by: SuppressedBy,
}

/// One agent, judged.
#[derive(Debug, Clone)]
pub struct AgentLint {
    pub agent: ProjectAgent,
    pub report: LintReport,
    /// Every problem counted, errors first, then in the order of the record.
    pub findings: Vec<Finding>,
    pub suppressed: Vec<Suppressed>,
    /// What was not judged, and why (an option the version ignores).
    pub notes: Vec<String>,
    /// On a 0.x core, what moving to the newest 1.x changes on the wire.
    pub upgrade: Option<Upgrade>,
}

#[derive(Debug, Clone)]
pub struct ProjectLint {
    pub project: LoadedProject,
    pub config: LintConfig,
    pub agents: Vec<AgentLint>,
    /// Problems of no one agent: an MCP server no agent's record names, an
    /// approval function passed to a call.
    pub findings: Vec<Finding>,
    pub suppressed: Vec<Suppressed>,
}

pub fn lint_project(project: LoadedProject, config: LintConfig) -> ProjectLint {
    let agents: Vec<AgentLint> = project
        .agents
        .iter()
        .map(|a| lint_agent(a, &project, &config))
        .collect();
    let mut own: Vec<Finding> = project
        .mcp
        .iter()
        .filter(|s| s.status == McpStatus::Failed)
        .map(|s| server_unavailable(s, None))
        .collect();
    own.extend(resume_findings(&project.approval_calls, project.mastra));
    own.extend(super::held_call::call_findings(
        &project.approval_calls,
        project.mastra,
    ));
    // A comparison inside an approval policy that already has its finding
    // is that finding's.
    let approvals: Vec<Location> = agents
        .iter()
        .flat_map(|a| {
            a.findings
                .iter()
                .chain(a.suppressed.iter().map(|s| &s.finding))
        })
        .filter(|f| f.rule == Rule::ApprovalByKey)
        .filter_map(|f| f.at.clone())
        .collect();
    let judged: Vec<(&ProjectAgent, &LintReport)> =
        agents.iter().map(|a| (&a.agent, &a.report)).collect();
    own.extend(comparison_findings(
        &project.comparisons,
        &judged,
        &approvals,
    ));
    own.extend(sent_name_use_findings(&project.sent_name_uses, &judged));
    let (findings, suppressed) = settle(own, &config, &project.suppressions);
    ProjectLint {
        project,
        config,
        agents,
        findings,
        suppressed,
    }
}

fn lint_agent(agent: &ProjectAgent, project: &LoadedProject, config: &LintConfig) -> AgentLint {
    let keys = agent.tools.iter().map(|t| t.key.clone()).collect();
    let report = lint(&agent_input(agent, keys, Some(project.mastra)));
    let tool_of = |key: &JsString| agent.tools.iter().find(|t| t.key == *key);
    let at_key = |key: &JsString| tool_of(key).and_then(|t| t.at.clone());
    let source_of = |key: &JsString| tool_of(key).map_or(ToolSource::Other, |t| t.source);

    // An MCP server whose key rewrites: its tools' plain rewrites are one
    // finding at the server key, with the rename.
    let renames = server_renames(agent, &report);
    let subsumed = |k: &KeyFinding| renames.iter().any(|r| r.keys.contains(&k.key));

    let mut findings = Vec::new();
    for k in &report.keys {
        if let Some(rule) = key_rule(k) {
            if !subsumed(k) {
                findings.push(Finding {
                    severity: k.severity,
                    rule,
                    subject: k.key.clone(),
                    message: key_message(k, source_of(&k.key)),
                    at: at_key(&k.key),
                });
            }
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
    for r in &renames {
        findings.push(r.finding(&report));
    }
    // A name written with the other MCP listing's spelling: its own finding
    // in place of the generic one.
    let listing = super::mcp_listing::listing_findings(agent, &report, project.mastra);
    for n in report.names.iter().filter(|n| {
        n.severity != Severity::Ok && !listing.replaced.contains(&(n.used_in, n.name.clone()))
    }) {
        let at = agent.reference_at(n.used_in, &n.name);
        let rule = match n.used_in {
            Reference::ToolChoice => Rule::ToolChoiceNotSent,
            _ => Rule::ActiveToolsNotSent,
        };
        findings.push(Finding {
            severity: n.severity,
            rule,
            subject: n.name.clone(),
            message: name_message(n),
            at,
        });
    }
    for s in agent.mcp.iter().filter(|s| s.status != McpStatus::Listed) {
        findings.push(server_unavailable(s, Some(agent)));
    }
    let (approval, approval_notes) = approval_findings(agent, &report, project.mastra);
    findings.extend(approval);
    findings.extend(super::mcp_names::mcp_policy_findings(
        agent,
        &report,
        project.mastra,
    ));
    findings.extend(listing.findings);
    findings.extend(super::mcp_server_policy::server_policy_findings(
        agent,
        &report,
        project.mastra,
    ));
    findings.extend(super::own_approval::own_approval_findings(
        agent,
        &report,
        project.mastra,
        &project.approval_calls,
    ));
    findings.extend(super::held_call::agent_findings(agent, project.mastra));
    findings.extend(instructions_findings(agent, &report, project.mastra));
    let (findings, suppressed) = settle(findings, config, &project.suppressions);
    AgentLint {
        agent: agent.clone(),
        notes: assembly_note(agent)
            .into_iter()
            .chain(report.notes.iter().cloned())
            .chain(approval_notes)
            .collect(),
        upgrade: upgrade(agent, project.mastra, &report),
        report,
        findings,
        suppressed,
    }
}

/// Where Mastra could not assemble the agent's tools for its model: what
/// was judged instead, so a clean result is not read as the whole agent's.
fn assembly_note(agent: &ProjectAgent) -> Option<String> {
    agent.assembly_threw.as_ref().map(|threw| {
        format!(
            "Mastra's own assembly of its tools threw ({threw}), as a call would with this model; \
             judged on its own tools record alone (no memory, toolset, client, sub-agent or workflow tools)"
        )
    })
}

/// Each finding against the configuration and the inline comments: counted
/// (at the severity the configuration sets), or suppressed and by what.
/// Counted ones come errors first, then in their own order.
fn settle(
    found: Vec<Finding>,
    config: &LintConfig,
    comments: &[InlineSuppression],
) -> (Vec<Finding>, Vec<Suppressed>) {
    let origin = || config.origin.clone().unwrap_or_default();
    let mut kept = Vec::new();
    let mut suppressed = Vec::new();
    for mut f in found {
        let by = match config.level(f.rule) {
            Some(Level::Off) => Some(SuppressedBy::RuleOff { origin: origin() }),
            level => {
                match level {
                    Some(Level::Warning) => f.severity = Severity::Warning,
                    Some(Level::Error) => f.severity = Severity::Error,
                    _ => {}
                }
                config
                    .allowed(&f.subject)
                    .map(|p| SuppressedBy::Allowed {
                        origin: origin(),
                        pattern: p.to_string(),
                    })
                    .or_else(|| {
                        let at = f.at.as_ref()?;
                        comments
                            .iter()
                            .find(|c| {
                                c.file == at.file
                                    && c.line == at.line
                                    && c.rules
                                        .as_ref()
                                        .is_none_or(|r| r.iter().any(|r| r == f.rule.id()))
                            })
                            .map(|c| SuppressedBy::Comment {
                                file: c.file.clone(),
                                line: at.line,
                            })
                    })
            }
        };
        match by {
            Some(by) => suppressed.push(Suppressed { finding: f, by }),
            None => kept.push(f),
        }
    }
    kept.sort_by_key(|f| std::cmp::Reverse(f.severity));
    (kept, suppressed)
}

/// An MCP server whose key Mastra rewrites, the name that would not be, and
/// the keys of its tools that renaming it fixes.
struct ServerRename<'a> {
    server: &'a JsString,
    renamed: JsString,
    at: Option<Location>,
    keys: Vec<JsString>,
}

impl ServerRename<'_> {
    fn finding(&self, report: &LintReport) -> Finding {
        let sent: Vec<String> = self
            .keys
            .iter()
            .filter_map(|k| report.keys.iter().find(|f| f.key == *k))
            .filter_map(|f| f.sent_as.as_ref().map(quote))
            .collect();
        let keys: Vec<String> = self.keys.iter().map(quote).collect();
        Finding {
            severity: Severity::Warning,
            rule: Rule::McpServerKeyRewritten,
            subject: self.server.clone(),
            message: format!(
                "MCP server {} is registered under a key Mastra rewrites: {} of its tools are sent as {}; rename the server {} to {} (it affects {})",
                quote(self.server),
                self.keys.len(),
                sent.join(", "),
                quote(self.server),
                quote(&self.renamed),
                keys.join(", ")
            ),
            at: self.at.clone(),
        }
    }
}

/// The servers of an agent's MCP tools whose key rewrites, each with the
/// keys a rename fixes: those only rewritten (not cut, not colliding) whose
/// tool part is fine as it is.
fn server_renames<'a>(agent: &'a ProjectAgent, report: &LintReport) -> Vec<ServerRename<'a>> {
    let mut out: Vec<ServerRename> = Vec::new();
    for t in &agent.tools {
        let Some(server) = t.server.as_ref().filter(|_| t.source == ToolSource::Mcp) else {
            continue;
        };
        let Rewrite::Renamed(renamed) = rewrite(server) else {
            continue;
        };
        let only_rewritten = report
            .keys
            .iter()
            .any(|k| k.key == t.key && matches!(k.problem, KeyProblem::Rewritten { cut: false }));
        let prefix = server.concat(&JsString::from("_"));
        if !only_rewritten || !t.key.units().starts_with(prefix.units()) {
            continue;
        }
        let tool_part = t.key.slice(prefix.len(), t.key.len());
        let fixed = renamed.concat(&JsString::from("_")).concat(&tool_part);
        if !is_valid_name(&fixed) || fixed.len() > MAX_NAME {
            continue;
        }
        match out.iter_mut().find(|r| r.server == server) {
            Some(r) => r.keys.push(t.key.clone()),
            None => out.push(ServerRename {
                server,
                renamed,
                at: agent
                    .mcp
                    .iter()
                    .find(|s| s.name == *server)
                    .and_then(|s| s.at.clone()),
                keys: vec![t.key.clone()],
            }),
        }
    }
    out
}

/// An MCP server that gave no tools, said for AGENT (or for the project).
fn server_unavailable(s: &McpServer, agent: Option<&ProjectAgent>) -> Finding {
    let how = match (s.transport.as_deref(), &s.target) {
        (Some(t), Some(target)) if !target.is_empty() => format!(" ({t} {target})"),
        _ => String::new(),
    };
    let why = match (s.status, s.transport.as_deref(), &s.error) {
        (McpStatus::Unasked, _, _) => {
            "nothing asked it for its tools while the project loaded".to_string()
        }
        (_, Some("url"), _) => {
            "lint reaches no URL while it loads a project, so it listed no tools".to_string()
        }
        (_, _, Some(e)) if e.contains("refused spawn") => {
            format!("it was not started: without its OS sandbox lint starts no process ({e})")
        }
        (_, _, Some(e)) => format!("it failed: {e}"),
        (_, _, None) => "it gave no tools".to_string(),
    };
    let whom = match agent {
        Some(_) => "this agent's tools were not all checked",
        None => "no agent's tools were checked against them",
    };
    Finding {
        severity: Severity::Warning,
        rule: Rule::McpServerUnavailable,
        subject: s.name.clone(),
        message: format!(
            "MCP server {}{how}: {why}; its tools are unknown, so {whom}",
            quote(&s.name)
        ),
        at: s.at.clone(),
    }
}

fn key_rule(k: &KeyFinding) -> Option<Rule> {
    Some(match k.problem {
        // Sent as registered: whether that breaks is the provider's rule,
        // judged apart (`Rule::ProviderRejects`).
        KeyProblem::None | KeyProblem::Unformatted => return None,
        KeyProblem::Rewritten { .. } => Rule::Rewritten,
        KeyProblem::Cut => Rule::Cut,
        KeyProblem::Collision { .. } => Rule::Collision,
        KeyProblem::FalseCollision => Rule::FalseCollision,
        KeyProblem::Crash => Rule::EmptyKey,
        KeyProblem::Dropped => Rule::Dropped,
    })
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
    pub suppressed: usize,
}

impl Counts {
    /// `2 agents, 7 tools: 2 errors, 4 warnings` (and `, 1 suppressed`).
    pub fn line(&self) -> String {
        let mut s = format!(
            "{}, {}: {}, {}",
            count(self.agents, "agent"),
            count(self.tools, "tool"),
            count(self.errors, "error"),
            count(self.warnings, "warning")
        );
        if self.suppressed > 0 {
            s.push_str(&format!(", {} suppressed", self.suppressed));
        }
        s
    }
}

impl ProjectLint {
    /// Every counted finding: each agent's, then the project's own.
    pub fn all_findings(&self) -> impl Iterator<Item = &Finding> {
        self.agents
            .iter()
            .flat_map(|a| a.findings.iter())
            .chain(self.findings.iter())
    }

    pub fn counts(&self) -> Counts {
        let mut c = Counts {
            agents: self.agents.len(),
            tools: self.agents.iter().map(|a| a.agent.tools.len()).sum(),
            suppressed: self.suppressed.len()
                + self
                    .agents
                    .iter()
                    .map(|a| a.suppressed.len())
                    .sum::<usize>(),
            ..Counts::default()
        };
        for f in self.all_findings() {
            match f.severity {
                Severity::Error => c.errors += 1,
                Severity::Warning => c.warnings += 1,
                Severity::Ok => {}
            }
        }
        c
    }

    pub fn worst(&self) -> Severity {
        self.all_findings()
            .map(|f| f.severity)
            .max()
            .unwrap_or(Severity::Ok)
    }
}
