//! `approval-held-call-runs-on-0x`: from `APPROVAL_READ_ON_0X` through
//! `APPROVAL_HELD_CALL_RUNS` (0.20.0 to 0.22.2) a call held for approval
//! has run already when the run waits for its answer, and the answer runs
//! it again, a decline included (the ledger's
//! `approval-held-call-runs-on-0x`, security,
//! `cases/approval/legacy-held-call-*`). Every way a project asks for
//! approval fails open there alike: a `requireToolApproval` of the agent's
//! default options or passed to a call (`true` or a function), and a
//! tool's own `requireApproval`. What holds is the release: from 0.23.1
//! the held call waits.
//!
//! In: a `ProjectAgent` (its default options' policies, its tools' own
//! settings), or the project's `ApprovalCall`s, and the installed release.
//! Out: a `Finding` at each policy, at the option where it is written.

use super::basis::{quote, Finding};
use super::rules::Rule;
use super::{ApprovalCall, Location, OwnApproval, ProjectAgent};
use crate::js::string::JsString;
use crate::model::releases::{APPROVAL_HELD_CALL_RUNS, APPROVAL_READ_ON_0X};
use crate::version::spec::MastraVersion;

/// Whether `version` runs a held call before its answer.
fn fails_open(version: MastraVersion) -> bool {
    let release = version.release();
    version.major == 0
        && APPROVAL_READ_ON_0X.holds(release)
        && APPROVAL_HELD_CALL_RUNS.holds(release)
}

fn finding(subject: JsString, what: &str, version: MastraVersion, at: Option<Location>) -> Finding {
    let fixed = APPROVAL_HELD_CALL_RUNS
        .ended
        .expect("the fail-open band ends");
    Finding {
        severity: Rule::HeldCallRuns.severity(),
        rule: Rule::HeldCallRuns,
        subject,
        message: format!(
            "{what} does not stop the tool: @mastra/core {version} (as every release {}) runs a call held for approval before it is answered, and runs it again on the answer, a decline included; upgrade @mastra/core to {fixed} or later, where a held call waits for its answer",
            APPROVAL_HELD_CALL_RUNS.range(),
        ),
        at,
    }
}

/// Each approval setting of AGENT on a fail-open release: the policies of
/// its default options, at their `requireToolApproval`, and each tool's
/// own `requireApproval`, at the tool.
pub fn agent_findings(agent: &ProjectAgent, version: MastraVersion) -> Vec<Finding> {
    if !fails_open(version) {
        return Vec::new();
    }
    let policies = agent.approval.iter().map(|p| {
        let what = if p.always {
            format!("the agent's {} requireToolApproval: true", p.option)
        } else {
            format!("the agent's {} requireToolApproval function", p.option)
        };
        finding(agent.registered_as.clone(), &what, version, p.at.clone())
    });
    let tools = agent
        .tools
        .iter()
        .filter(|t| t.approval != OwnApproval::None)
        .map(|t| {
            let what = format!("the requireApproval of tool {}", quote(&t.key));
            finding(t.key.clone(), &what, version, t.at.clone())
        });
    policies.chain(tools).collect()
}

/// Each `requireToolApproval` the project's code passes to a call, on a
/// fail-open release, at the option; its subject the agent the call is
/// made on (as the source names it), else the method.
pub fn call_findings(calls: &[ApprovalCall], version: MastraVersion) -> Vec<Finding> {
    if !fails_open(version) {
        return Vec::new();
    }
    calls
        .iter()
        .map(|call| {
            let callee = match &call.receiver {
                Some(r) => format!("{r}.{}()", call.method),
                None => format!("{}()", call.method),
            };
            let what = if call.always {
                format!("the requireToolApproval: true passed to {callee}")
            } else {
                format!("the requireToolApproval function passed to {callee}")
            };
            let subject = JsString::from(call.receiver.as_deref().unwrap_or(&call.method));
            finding(subject, &what, version, call.at.clone())
        })
        .collect()
}
