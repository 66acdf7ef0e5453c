//! `tool-approval-fn-overrides-agent-policy`: from `TOOL_APPROVAL_FN_ASKED`
//! a tool's own `requireApproval` function decides in place of the agent's
//! `requireToolApproval`, so where the agent's policy holds the tool and
//! the tool's function answers false, the call runs unapproved
//! (`cases/approval/tool-approval-fn-false-overrides-policy-*`, the
//! ledger's `tool-approval-fn-overrides-agent-policy`). The function is
//! given the call's arguments, which lint cannot know, so the finding says
//! where the two meet, not what the function would answer.
//!
//! The agent's policy is a `requireToolApproval` of its default options (a
//! function, or `true`), or a `requireToolApproval: true` the sources pass
//! to a `generate` or `stream` call on the agent: what
//! `tool-approval-fn-false-overrides-policy-true-*` measures.
//!
//! In: a `ProjectAgent`, the `LintReport` that says what each key is sent
//! as, the installed release, and the approval settings the sources pass to
//! calls. Out: `Finding`s, each at the tool.

use super::basis::{quote, Finding};
use super::rules::Rule;
use super::{ApprovalCall, OwnApproval, PolicyAnswer, ProjectAgent, ToolSource};
use crate::lint::LintReport;
use crate::model::releases::{APPROVAL_POLICY_ASKED, TOOL_APPROVAL_FN_ASKED};
use crate::version::spec::MastraVersion;

/// Each tool with its own approval function that one of the agent's
/// policies holds: before `APPROVAL_POLICY_ASKED` any policy function holds
/// every call; from it, the policy is asked with the name the tool is sent
/// as.
pub fn own_approval_findings(
    agent: &ProjectAgent,
    report: &LintReport,
    version: MastraVersion,
    calls: &[ApprovalCall],
) -> Vec<Finding> {
    let release = version.release();
    if version.major == 0 || release < TOOL_APPROVAL_FN_ASKED.first {
        return Vec::new();
    }
    let asked = release >= APPROVAL_POLICY_ASKED.first;
    // A `requireToolApproval: true` the sources pass to a call on this
    // agent holds every call of that run, as the default options' `true`.
    let call = calls
        .iter()
        .find(|c| c.always && c.agent.as_ref() == Some(&agent.registered_as));
    let mut findings = Vec::new();
    // An MCP tool's function is its server's policy, which
    // `mcp-approval-policy-names-another-spelling` judges.
    for tool in agent
        .tools
        .iter()
        .filter(|t| t.approval == OwnApproval::Function && t.source != ToolSource::Mcp)
    {
        let sent = report
            .keys
            .iter()
            .find(|k| k.key == tool.key)
            .and_then(|k| k.sent_as.as_ref());
        let holds = |answer: Option<PolicyAnswer>| {
            matches!(answer, Some(PolicyAnswer::True | PolicyAnswer::Throws))
        };
        let holder = agent
            .approval
            .iter()
            .find(|p| p.always || !asked || sent.is_some_and(|s| holds(p.answer(s))))
            .map(|p| format!("the agent's {}", p.option))
            .or_else(|| {
                call.map(|c| format!("the requireToolApproval: true passed to {}", callee(c)))
            });
        let Some(holder) = holder else {
            continue;
        };
        findings.push(Finding {
            severity: Rule::ToolApprovalFnOverridesPolicy.severity(),
            rule: Rule::ToolApprovalFnOverridesPolicy,
            subject: tool.key.clone(),
            message: format!(
                "{} can run without approval: {holder} holds it, but @mastra/core {version} (as every release from {}) lets the tool's own requireApproval function decide in its place, and where that function answers false the call runs unapproved, even under requireToolApproval: true; give the tool requireApproval: true, or make its function answer true wherever the agent's policy holds the call",
                quote(&tool.key),
                TOOL_APPROVAL_FN_ASKED.first,
            ),
            at: tool.at.clone(),
        });
    }
    findings
}

/// The call as the source writes it: `ownAgent.generate()`, or
/// `generate()` where the callee's object is no name.
fn callee(call: &ApprovalCall) -> String {
    match &call.receiver {
        Some(r) => format!("{r}.{}()", call.method),
        None => format!("{}()", call.method),
    }
}
