//! `resume_findings`: an agent's `requireToolApproval` function judged
//! against what a resumed run keeps (`approval-policy-lost-on-resume`).
//!
//! In: a `ProjectAgent` (its default options' policies that are functions,
//! and its tools' own approval settings), the `LintReport` that says what
//! each key is sent as, and the installed release. Out: a
//! `Finding` per policy, at its `requireToolApproval`, on a release where
//! the run an approval answer resumes no longer has the function
//! (`APPROVAL_POLICY_LOST_ON_RESUME`): every later call of the resumed run
//! is neither asked nor held, so the policy fails open from its first
//! answer on. `requireToolApproval: true` and a tool's own
//! `requireApproval: true` hold across the resume, and are the fix.

use super::basis::{quote, Finding};
use super::rules::Rule;
use super::{ApprovalPolicy, OwnApproval, PolicyAnswer, ProjectAgent};
use crate::js::string::JsString;
use crate::lint::LintReport;
use crate::model::releases::APPROVAL_POLICY_LOST_ON_RESUME;
use crate::version::spec::MastraVersion;

/// A tool the policy decides for: its key, and the name Mastra sends it
/// under, which the policy is asked with.
struct Decided<'a> {
    key: &'a JsString,
    sent: &'a JsString,
}

/// Each of AGENT's approval functions, on a release whose resumed runs lose
/// them, as one finding naming the tools it decides for. A tool with its
/// own `requireApproval` is not the policy's to decide (a true flag waits
/// on a resumed run too), nor is one that is not sent (it is never called),
/// so an agent with no other tool is left out.
pub fn resume_findings(
    agent: &ProjectAgent,
    report: &LintReport,
    version: MastraVersion,
) -> Vec<Finding> {
    if !APPROVAL_POLICY_LOST_ON_RESUME.holds(version.release()) {
        return Vec::new();
    }
    let decided: Vec<Decided> = agent
        .tools
        .iter()
        .filter(|t| t.approval == OwnApproval::None)
        .filter_map(|t| {
            let sent = report
                .keys
                .iter()
                .find(|k| k.key == t.key)?
                .sent_as
                .as_ref()?;
            Some(Decided { key: &t.key, sent })
        })
        .collect();
    if decided.is_empty() {
        return Vec::new();
    }
    agent
        .approval
        .iter()
        .map(|policy| policy_lost(agent, policy, &decided, version))
        .collect()
}

fn policy_lost(
    agent: &ProjectAgent,
    policy: &ApprovalPolicy,
    decided: &[Decided],
    version: MastraVersion,
) -> Finding {
    // The tools the policy held when the loader asked it are the ones a
    // resumed run lets through; a policy that held none with empty
    // arguments may hold some with real ones, so then every tool it
    // decides for is named.
    let held: Vec<&Decided> = decided
        .iter()
        .filter(|t| policy.answer(t.sent) != Some(PolicyAnswer::False))
        .collect();
    let named: Vec<&Decided> = if held.is_empty() {
        decided.iter().collect()
    } else {
        held
    };
    let keys: Vec<String> = named.iter().map(|t| quote(t.key)).collect();
    Finding {
        severity: Rule::PolicyLostOnResume.severity(),
        rule: Rule::PolicyLostOnResume,
        subject: agent.registered_as.clone(),
        message: format!(
            "after an approval resumes the run, later calls run without approval: @mastra/core {version} (as every release {}) resumes a run without the requireToolApproval function of its {}, so the later calls of {} are neither asked nor held; mark the gated tools `requireApproval: true` in createTool, or pass `requireToolApproval: true`",
            APPROVAL_POLICY_LOST_ON_RESUME.range(),
            policy.option,
            keys.join(", ")
        ),
        at: policy.at.clone().or_else(|| agent.at.clone()),
    }
}
