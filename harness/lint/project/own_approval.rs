//! `tool-approval-fn-overrides-agent-policy`: from `TOOL_APPROVAL_FN_ASKED`
//! a tool's own `requireApproval` function decides in place of the agent's
//! `requireToolApproval`, so where the agent's policy holds the tool and
//! the tool's function answers false, the call runs unapproved
//! (`cases/approval/tool-approval-fn-false-overrides-policy-*`, the
//! ledger's `tool-approval-fn-overrides-agent-policy`). The function is
//! given the call's arguments, which lint cannot know, so the finding says
//! where the two meet, not what the function would answer.
//!
//! In: a `ProjectAgent`, the `LintReport` that says what each key is sent
//! as, and the installed release. Out: `Finding`s, each at the tool.

use super::basis::{quote, Finding};
use super::rules::Rule;
use super::{OwnApproval, PolicyAnswer, ProjectAgent};
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
) -> Vec<Finding> {
    let release = version.release();
    if release < TOOL_APPROVAL_FN_ASKED.first {
        return Vec::new();
    }
    let asked = release >= APPROVAL_POLICY_ASKED.first;
    let mut findings = Vec::new();
    for tool in agent
        .tools
        .iter()
        .filter(|t| t.approval == OwnApproval::Function)
    {
        let sent = report
            .keys
            .iter()
            .find(|k| k.key == tool.key)
            .and_then(|k| k.sent_as.as_ref());
        let holds = |answer: Option<PolicyAnswer>| {
            matches!(answer, Some(PolicyAnswer::True | PolicyAnswer::Throws))
        };
        let Some(policy) = agent
            .approval
            .iter()
            .find(|p| !asked || sent.is_some_and(|s| holds(p.answer(s))))
        else {
            continue;
        };
        findings.push(Finding {
            severity: Rule::ToolApprovalFnOverridesPolicy.severity(),
            rule: Rule::ToolApprovalFnOverridesPolicy,
            subject: tool.key.clone(),
            message: format!(
                "{} can run without approval: the agent's {} holds it, but @mastra/core {version} (as every release from {}) lets the tool's own requireApproval function decide in its place, and where that function answers false the call runs unapproved, even under requireToolApproval: true; give the tool requireApproval: true, or make its function answer true wherever the agent's policy holds the call",
                quote(&tool.key),
                policy.option,
                TOOL_APPROVAL_FN_ASKED.first,
            ),
            at: tool.at.clone(),
        });
    }
    findings
}
