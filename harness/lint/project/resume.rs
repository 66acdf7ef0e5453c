//! `resume_findings`: the `requireToolApproval` functions a project passes
//! to `generate` and `stream`, judged against what a resumed run keeps
//! (`approval-policy-lost-on-resume`).
//!
//! In: the project's `ApprovalCall`s (each function written in a call's
//! options) and the installed release. Out: a `Finding` per call, at its
//! `requireToolApproval`, on a release where the run an approval answer
//! resumes no longer has the function (`APPROVAL_POLICY_LOST_ON_RESUME`):
//! every later call of the resumed run is neither asked nor held, so the
//! policy fails open from its first answer on.
//!
//! Only a function given to the call is lost. Measured on 1.38.0 and
//! 1.67.0, `generate()` and `stream()` alike (three calls of one tool, each
//! approved, the model a listener on 127.0.0.1): the same function in the
//! agent's `defaultOptions` held all three calls, one passed to the call
//! held the first alone; `requireToolApproval: true` held all three. So the
//! default options' policies, which the loader asks, are no finding here.
//!
//! Where the lost function also loses a decline
//! (`APPROVAL_DECLINE_LOST_ON_RESUME`, 1.38.0 to 1.55.0: a call it held and
//! the user declined runs once the run resumes), the finding says so, since
//! that is the worse of the two: the one call the user refused still runs.

use super::basis::Finding;
use super::rules::Rule;
use super::ApprovalCall;
use crate::js::string::JsString;
use crate::model::releases::{APPROVAL_DECLINE_LOST_ON_RESUME, APPROVAL_POLICY_LOST_ON_RESUME};
use crate::version::spec::MastraVersion;

/// Each call that passes a `requireToolApproval` function, on a release
/// whose resumed runs lose it, as one finding whose subject is the agent
/// the call is made on (as the source names it), else the method.
pub fn resume_findings(calls: &[ApprovalCall], version: MastraVersion) -> Vec<Finding> {
    if !APPROVAL_POLICY_LOST_ON_RESUME.holds(version.release()) {
        return Vec::new();
    }
    let declines = if APPROVAL_DECLINE_LOST_ON_RESUME.holds(version.release()) {
        format!(
            ", and a call it held that the user declines runs all the same (every release {})",
            APPROVAL_DECLINE_LOST_ON_RESUME.range()
        )
    } else {
        String::new()
    };
    calls
        .iter()
        .filter(|call| !call.always)
        .map(|call| {
            let callee = match &call.receiver {
                Some(r) => format!("{r}.{}()", call.method),
                None => format!("{}()", call.method),
            };
            Finding {
                severity: Rule::PolicyLostOnResume.severity(),
                rule: Rule::PolicyLostOnResume,
                subject: JsString::from(call.receiver.as_deref().unwrap_or(&call.method)),
                message: format!(
                    "after an approval resumes the run, later calls run without approval: @mastra/core {version} (as every release {}) resumes a run without the requireToolApproval function passed to {callee}, so the resumed run's later tool calls are neither asked nor held{declines}; mark the gated tools `requireApproval: true` in createTool, or pass `requireToolApproval: true`",
                    APPROVAL_POLICY_LOST_ON_RESUME.range(),
                ),
                at: call.at.clone(),
            }
        })
        .collect()
}
