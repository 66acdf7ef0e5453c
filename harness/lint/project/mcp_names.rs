//! The approval policies that meet an MCP tool under a spelling of its
//! name Mastra never asks them with (`mcp-approval-policy-names-another-spelling`):
//! a server's own `requireToolApproval` (`MCPClient({ servers: { fs: {
//! requireToolApproval } } })`) is asked with the tool's MCP name as the
//! server lists it (`delete.file`), the agent's with the name the tool is
//! sent as (`fs_delete_file`). A policy written against the other side's
//! spelling answers false for the name it is asked with, and the tool runs
//! unapproved; the server's answer also replaces the agent's
//! (`cases/mcp-names/`, the ledger's
//! `mcp-server-policy-overrides-agent-policy-by-another-name`).
//!
//! In: a `ProjectAgent`, the `LintReport` that says what each key is sent
//! as, and the installed release. Out: `Finding`s, each at the string the
//! policy compares, or at the policy.

use super::basis::{quote, Finding};
use super::rules::Rule;
use super::{
    ApprovalPolicy, McpListing, McpServer, McpStatus, OwnApproval, PolicyAnswer, ProjectAgent,
};
use crate::js::string::JsString;
use crate::lint::LintReport;
use crate::model::releases::{APPROVAL_POLICY_ASKED, MCP_SERVER_APPROVAL_FN_ASKED};
use crate::version::spec::MastraVersion;

/// Whether an answer holds the call: `None` where it did not settle.
pub(super) fn waits(answer: PolicyAnswer) -> Option<bool> {
    match answer {
        PolicyAnswer::True | PolicyAnswer::Throws => Some(true),
        PolicyAnswer::False => Some(false),
        PolicyAnswer::Timeout => None,
    }
}

/// One tool of a listed server the agent sends: its MCP name, its key
/// (`SERVER_TOOL`), the name it is sent as, and its own approval.
struct McpTool<'a> {
    mcp_name: &'a JsString,
    key: JsString,
    sent: &'a JsString,
    approval: OwnApproval,
}

fn tools_of<'a>(
    agent: &'a ProjectAgent,
    report: &'a LintReport,
    server: &'a McpServer,
) -> Vec<McpTool<'a>> {
    server
        .tools
        .iter()
        .filter_map(|mcp_name| {
            // `listTools()` keys it SERVER_TOOL, `listToolsets()` TOOL.
            let prefixed = crate::naming::mcp_tool_key(&server.name, mcp_name);
            let tool = agent.tools.iter().find(|t| match t.listing {
                Some(McpListing::Toolsets) => {
                    t.key == *mcp_name && t.server.as_ref() == Some(&server.name)
                }
                _ => t.key == prefixed,
            })?;
            let key = tool.key.clone();
            let sent = report
                .keys
                .iter()
                .find(|k| k.key == key)?
                .sent_as
                .as_ref()?;
            Some(McpTool {
                mcp_name,
                key,
                sent,
                approval: tool.approval,
            })
        })
        .collect()
}

/// Where POLICY writes NAME, else where the policy is written.
pub(super) fn written_at(policy: &ApprovalPolicy, name: &JsString) -> Option<super::Location> {
    policy
        .written
        .iter()
        .find(|w| w.name == *name)
        .and_then(|w| w.at.clone())
        .or_else(|| policy.at.clone())
}

/// Each MCP tool a policy holds under one spelling of its name and lets
/// run under the spelling Mastra asks it with. Nothing before the release
/// that asks the function (`MCP_SERVER_APPROVAL_FN_ASKED` for a server's,
/// `APPROVAL_POLICY_ASKED` for the agent's): there any function holds
/// every call.
pub fn mcp_policy_findings(
    agent: &ProjectAgent,
    report: &LintReport,
    version: MastraVersion,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for server in agent.mcp.iter().filter(|s| s.status == McpStatus::Listed) {
        for tool in tools_of(agent, report, server) {
            if version.release() >= MCP_SERVER_APPROVAL_FN_ASKED.first {
                findings.extend(
                    server
                        .policy
                        .as_ref()
                        .and_then(|p| server_finding(server, p, &tool)),
                );
            }
            if version.release() >= APPROVAL_POLICY_ASKED.first
                && tool.approval == OwnApproval::None
            {
                findings.extend(
                    agent
                        .approval
                        .iter()
                        .filter_map(|p| agent_finding(server, p, &tool)),
                );
            }
        }
    }
    findings
}

/// A server's policy that holds the tool's sent name or key but not its
/// MCP name, which is what Mastra asks it with.
fn server_finding(server: &McpServer, policy: &ApprovalPolicy, tool: &McpTool) -> Option<Finding> {
    let asked = policy.answer(tool.mcp_name)?;
    if waits(asked)? {
        return None;
    }
    let written = [tool.sent, &tool.key]
        .into_iter()
        .filter(|n| *n != tool.mcp_name)
        .find(|n| policy.answer(n).and_then(waits) == Some(true))?;
    Some(Finding {
        severity: Rule::McpPolicyName.severity(),
        rule: Rule::McpPolicyName,
        subject: tool.key.clone(),
        message: format!(
            "{} runs without approval: the requireToolApproval of MCP server {} holds {}, but Mastra asks it with the tool's MCP name {}, where it answers false, and its answer replaces the agent's requireToolApproval; compare with {} (the name the server lists), or give the server requireToolApproval: true",
            quote(&tool.key),
            quote(&server.name),
            quote(written),
            quote(tool.mcp_name),
            quote(tool.mcp_name),
        ),
        at: written_at(policy, written),
    })
}

/// An agent's policy that holds the tool's MCP name but not the name it is
/// sent as, which is what Mastra asks it with.
fn agent_finding(server: &McpServer, policy: &ApprovalPolicy, tool: &McpTool) -> Option<Finding> {
    // Under `listToolsets()` the MCP name is the key, which
    // `approval-policy-decides-on-the-key` judges.
    if tool.mcp_name == tool.sent
        || tool.key == *tool.mcp_name
        || !policy.written.iter().any(|w| w.name == *tool.mcp_name)
    {
        return None;
    }
    if !waits(policy.answer(tool.mcp_name)?)? || waits(policy.answer(tool.sent)?)? {
        return None;
    }
    Some(Finding {
        severity: Rule::McpPolicyName.severity(),
        rule: Rule::McpPolicyName,
        subject: tool.key.clone(),
        message: format!(
            "{} runs without approval: the agent's {} holds the MCP name {} that server {} lists, but Mastra asks it with the name the tool is sent as, {}, where it answers false; compare with {}, or give the server requireToolApproval: true",
            quote(&tool.key),
            policy.option,
            quote(tool.mcp_name),
            quote(&server.name),
            quote(tool.sent),
            quote(tool.sent),
        ),
        at: written_at(policy, tool.mcp_name),
    })
}
