//! `mcp-server-policy-ignored`: a server's own `requireToolApproval` in
//! `MCPClient({ servers })` (`true`, or a function) is accepted by the
//! `@mastra/mcp` that installs beside a core before `MCP_SERVER_APPROVAL`
//! (1.25.0) and never read, so the server's tools run without approval,
//! with no error (the ledger's `mcp-server-policy-ignored`, security,
//! `cases/mcp-names/server-policy-true-holds-every-name-*`).
//!
//! What holds there instead, checked on every route with a real run on
//! 1.0.4, 1.10.0 and 1.24.1 (and 1.25.0, 1.67.0, 1.71.0 beside it): the
//! agent-level `requireToolApproval: true` holds the server's tool's call
//! (`cases/mcp-names/fix-agent-policy-true-holds-where-the-server-policy-is-ignored-*`),
//! and before `APPROVAL_POLICY_ASKED` any agent-level function does too.
//! So an agent whose default options carry a policy is no finding: its
//! policy holds every call of the server's tools on these releases.
//!
//! In: a `ProjectAgent`, the `LintReport` that says what each key is sent
//! as, and the installed release. Out: one `Finding` per server, at its
//! `requireToolApproval`, else at its key.

use super::basis::{quote, Finding};
use super::rules::Rule;
use super::{McpStatus, OwnApproval, ProjectAgent, ToolSource};
use crate::lint::LintReport;
use crate::model::releases::{APPROVAL_POLICY_ASKED, MCP_SERVER_APPROVAL};
use crate::version::spec::MastraVersion;

/// Each of AGENT's MCP servers whose own approval setting the installed
/// release ignores, where no policy of the agent's default options holds
/// its tools' calls instead. 1.x before `MCP_SERVER_APPROVAL` only: the
/// ledger's range (0.x was not measured).
pub fn server_policy_findings(
    agent: &ProjectAgent,
    report: &LintReport,
    version: MastraVersion,
) -> Vec<Finding> {
    let release = version.release();
    if version.major == 0 || release >= MCP_SERVER_APPROVAL.first {
        return Vec::new();
    }
    // Before the release that asks it, any agent-level function (and
    // `true`) holds every call.
    if release < APPROVAL_POLICY_ASKED.first && !agent.approval.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for server in agent
        .mcp
        .iter()
        .filter(|s| s.approval != OwnApproval::None && s.status == McpStatus::Listed)
    {
        let sent: Vec<String> = agent
            .tools
            .iter()
            .filter(|t| t.source == ToolSource::Mcp && t.server.as_ref() == Some(&server.name))
            .filter_map(|t| report.keys.iter().find(|k| k.key == t.key))
            .filter_map(|k| k.sent_as.as_ref().map(quote))
            .collect();
        if sent.is_empty() {
            continue;
        }
        let what = match server.approval {
            OwnApproval::Always => "requireToolApproval: true",
            _ => "requireToolApproval function",
        };
        out.push(Finding {
            severity: Rule::McpServerPolicyIgnored.severity(),
            rule: Rule::McpServerPolicyIgnored,
            subject: server.name.clone(),
            message: format!(
                "MCP server {}'s tools run without approval: its {what} is ignored, as @mastra/core {version} (as every release before {first}) installs an @mastra/mcp that never reads it, with no error; {} run unapproved; hold them with the agent's requireToolApproval (true in its defaultOptions or in the call's options), or upgrade to @mastra/core {first} or later, whose @mastra/mcp holds them",
                quote(&server.name),
                sent.join(", "),
                first = MCP_SERVER_APPROVAL.first,
            ),
            at: server.approval_at.clone().or_else(|| server.at.clone()),
        });
    }
    out
}
