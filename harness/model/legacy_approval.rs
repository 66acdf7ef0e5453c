//! Approval on 0.x: what a release before 1.0 does with
//! `requireToolApproval`, a tool's own `requireApproval` and the answers to
//! a held call, in three bands (`docs/seen.md`, "0.x"):
//!
//! - before `APPROVAL_READ_ON_0X` the options are not read: the case runs as
//!   it would without them;
//! - from it, a held call waits for an answer (a `tool-call-approval`
//!   chunk on a stream; `generate()` throws), and through
//!   `APPROVAL_HELD_CALL_RUNS` its tool has run already, and an answer runs
//!   it again: approval fails open;
//! - after that band the call is held: unanswered it never runs, declined
//!   the model is told so, approved it runs once.
//!
//! Each is predicted from the case as it runs without approval (`plain`),
//! for a held call of a case tool in the first step, the rest of the
//! script text or errors; anything else on the bands that read the options
//! is unmodelled, with its reason. `seen` is not projected on 0.x, so the
//! user's side is what `executed`, `requests` and `error` show.

use super::releases::{Release, APPROVAL_DECLINED_MESSAGE};
use super::Prediction;
use crate::case::{Approval, ApprovalPolicy, Case, Method, Reply, Tool};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::projection::{ErrorView, HistoryItem, Projection};

/// What `generate()` throws under approval from `APPROVAL_READ_ON_0X` on
/// 0.x: its promise of the text is never settled once the run suspends
/// (0.20.0 to 0.24.9, every route).
pub const GENERATE_SUSPENDED_MESSAGE: &str =
    "promise 'text' was not resolved or rejected when stream finished";

/// The case with every approval option taken out: what a release that
/// does not read them runs.
pub(super) fn without_approval(case: &Case) -> Case {
    let mut c = case.clone();
    c.call.require_tool_approval = None;
    if let Some(turns) = c.turns.as_mut() {
        for t in turns {
            t.require_tool_approval = None;
        }
    }
    c.approvals = None;
    c.sources.mcp_approval = None;
    let strip = |list: &mut Vec<Tool>| {
        for t in list {
            if let Tool::Custom {
                require_approval, ..
            } = t
            {
                *require_approval = None;
            }
        }
    };
    strip(&mut c.tools);
    c.toolsets.iter_mut().flatten().for_each(|(_, l)| strip(l));
    c.client_tools.iter_mut().for_each(strip);
    c.tool_search.iter_mut().for_each(|s| strip(&mut s.tools));
    c
}

/// The prediction of an approval case on a 0.x release, `plain` being the
/// model's prediction of the case without its approval options.
pub(super) fn predict(case: &Case, rel: &Release, plain: Prediction) -> Prediction {
    if !rel.approval_read_on_0x {
        return plain;
    }
    let Prediction::Projection(p) = plain else {
        return unmodelled(rel, "a case whose run without approval races");
    };
    // Nothing was sent: nothing reached a call to hold.
    if !p.applicable || p.requests.is_empty() {
        return Prediction::Projection(p);
    }
    let calls_later = case
        .replies
        .iter()
        .enumerate()
        .any(|(i, r)| i > 0 && matches!(r, Reply::ToolCalls(_)));
    let first = match case.replies.first() {
        Some(Reply::ToolCalls(list)) if list.len() == 1 && !calls_later => &list[0],
        _ if !case
            .replies
            .iter()
            .any(|r| matches!(r, Reply::ToolCalls(_))) =>
        {
            return Prediction::Projection(p);
        }
        _ => return unmodelled(rel, "a script other than one call in its first step"),
    };
    let s = &case.sources;
    let beside = case.toolsets.is_some()
        || case.client_tools.is_some()
        || case.tool_search.is_some()
        || s.agents.is_some()
        || s.workflows.is_some()
        || s.mcp.is_some()
        || s.memory.is_some()
        || s.dynamic_tools
        || case.call.active_tools.is_some()
        || case.call.max_steps.is_some();
    if beside || p.executed.len() != 1 || p.requests.len() < 2 {
        return unmodelled(
            rel,
            "a call beside other tool sources, activeTools, maxSteps, or one that does not run",
        );
    }
    let policy = match &case.call.require_tool_approval {
        Some(ApprovalPolicy::Flag(true) | ApprovalPolicy::Names(_)) => true,
        Some(ApprovalPolicy::Flag(false)) | None => false,
    };
    let own = match own_approval(case, &p.executed[0].id) {
        Ok(own) => own,
        Err(reason) => return unmodelled(rel, &reason),
    };
    if !policy && !own {
        return Prediction::Projection(p);
    }
    let answer = if case.route.call_ids_scripted() {
        case.approvals
            .iter()
            .flatten()
            .find(|(id, _)| *id == first.id)
            .map(|(_, a)| *a)
    } else {
        // Without scripted ids (Gemini) no answer can name the call.
        None
    };
    Prediction::Projection(held(case, rel, p, policy, answer, &first.id))
}

/// What a held call gives, `p` being the run without approval.
fn held(
    case: &Case,
    rel: &Release,
    p: Projection,
    policy: bool,
    answer: Option<Approval>,
    id: &JsString,
) -> Projection {
    let ran = rel.approval_held_call_runs;
    let waiting = Projection {
        requests: p.requests[..1].to_vec(),
        executed: if ran { p.executed.clone() } else { Vec::new() },
        error: None,
        ..p.clone()
    };
    if case.call.method == Method::Generate {
        return Projection {
            error: Some(ErrorView {
                id: None,
                message: JsString::from(GENERATE_SUSPENDED_MESSAGE),
                cause_code: None,
            }),
            ..waiting
        };
    }
    match answer {
        None => waiting,
        // A decline of a call only the tool's own flag held resumes
        // nothing in the fail-open band: the run ends where it waited.
        Some(Approval::Decline) if ran && !policy => waiting,
        // The call runs again on the answer, and the run goes on.
        Some(_) if ran => {
            let mut q = p;
            let again = q.executed[0].clone();
            q.executed.insert(0, again);
            q
        }
        Some(Approval::Approve) => p,
        Some(Approval::Decline) => {
            let mut q = p;
            q.executed.clear();
            for r in &mut q.requests[1..] {
                for h in &mut r.history {
                    if let HistoryItem::Result { id: rid, content } = h {
                        if rid == id {
                            *content = Json::String(JsString::from(APPROVAL_DECLINED_MESSAGE));
                        }
                    }
                }
            }
            q
        }
    }
}

/// Whether the tool the call ran (by its id) has its own
/// `requireApproval`; an error where that is not one tool of `tools`.
fn own_approval(case: &Case, id: &JsString) -> Result<bool, String> {
    let mut found = case.tools.iter().filter(|t| t.id() == *id);
    let (Some(tool), None) = (found.next(), found.next()) else {
        return Err("a call of one of several tools with one id".into());
    };
    match tool {
        // A function is only tested for truth: `{ returns: false }` holds
        // the call as `true` does (0.20.0 to 0.24.9, measured).
        Tool::Custom {
            require_approval: Some(_),
            ..
        } => Ok(true),
        _ => Ok(false),
    }
}

fn unmodelled(rel: &Release, what: &str) -> Prediction {
    Prediction::Unmodelled(format!("approval on @mastra/core {}: {what}", rel.version))
}

#[cfg(test)]
mod tests {
    use crate::case::Case;
    use crate::model::{predict, Prediction};
    use crate::projection::{HistoryItem, Projection};
    use crate::version::spec::MastraVersion;
    use std::path::Path;

    fn case(method: &str, policy: &str, tool: &str, answer: &str) -> Case {
        let text = format!(
            r#"{{"about":"a","tools":[{{"key":"files.delete","id":"delete-file","description":"d"{tool}}}],
            "call":{{"method":"{method}"{policy}}},
            "replies":[{{"toolCalls":[{{"id":"call_1","name":"files_delete","arguments":{{"city":"Paris"}}}}]}},{{"text":"done"}}]
            {answer}}}"#
        );
        Case::parse(Path::new("cases/x.json"), &text).unwrap()
    }

    fn on(c: &Case, v: &str) -> Projection {
        match predict(c, MastraVersion::parse(v).unwrap()) {
            Prediction::Projection(p) => p,
            other => panic!("{v}: {other:?}"),
        }
    }

    /// (runs, requests, the error's message) of a prediction.
    fn shape(p: &Projection) -> (usize, usize, Option<String>) {
        let error = p.error.as_ref().map(|e| e.message.to_lossy());
        (p.executed.len(), p.requests.len(), error)
    }

    const TRUE: &str = r#","requireToolApproval":true"#;
    const DECLINE: &str = r#","approvals":{"call_1":"decline"}"#;

    /// The three bands of a declined call under `true` on a stream: not
    /// read (the tool runs once, the run goes on), fail-open (it runs
    /// before the answer and again on it), held (never runs; the model is
    /// told it was not approved).
    #[test]
    fn a_declined_stream_call_by_band() {
        let c = case("stream", TRUE, "", DECLINE);
        assert_eq!(shape(&on(&c, "0.19.1")), (1, 2, None));
        assert_eq!(shape(&on(&c, "0.21.1")), (2, 2, None));
        let held = on(&c, "0.23.1");
        assert_eq!(shape(&held), (0, 2, None));
        assert!(held.requests[1].history.iter().any(|h| matches!(
            h,
            HistoryItem::Result { content, .. }
                if content.as_str().is_some_and(|s| s.to_lossy() == super::super::releases::APPROVAL_DECLINED_MESSAGE)
        )));
        assert!(held.seen.is_none(), "no seen on 0.x");
    }

    /// `generate()` throws once a call is held, from 0.20.0: the tool run
    /// in the fail-open band, not after it. A tool's own flag holds as
    /// `true` does, `false` beside it too; a decline of a call only the
    /// tool's flag held ends the fail-open run where it waited.
    #[test]
    fn generate_throws_and_a_tools_own_flag_holds() {
        let thrown = Some(super::GENERATE_SUSPENDED_MESSAGE.to_string());
        let flag = r#","requireApproval":true"#;
        for (policy, tool) in [
            (TRUE, ""),
            ("", flag),
            (r#","requireToolApproval":false"#, flag),
        ] {
            let c = case("generate", policy, tool, "");
            assert_eq!(shape(&on(&c, "0.22.2")), (1, 1, thrown.clone()));
            assert_eq!(shape(&on(&c, "0.24.9")), (0, 1, thrown.clone()));
            assert_eq!(shape(&on(&c, "0.14.0")), (1, 2, None));
        }
        let own = case("stream", "", flag, DECLINE);
        assert_eq!(shape(&on(&own, "0.20.0")), (1, 1, None));
        let nothing = case("stream", r#","requireToolApproval":false"#, "", "");
        assert_eq!(shape(&on(&nothing, "0.21.1")), (1, 2, None));
    }

    /// A script with a second step of calls is not predicted from 0.20.0.
    #[test]
    fn later_calls_are_unmodelled_where_approval_is_read() {
        let text = r#"{"about":"a","tools":["search.web"],"call":{"method":"stream","requireToolApproval":true},
            "replies":[{"toolCalls":[{"id":"c1","name":"search_web","arguments":{"city":"P"}}]},
              {"toolCalls":[{"id":"c2","name":"search_web","arguments":{"city":"P"}}]},{"text":"done"}]}"#;
        let c = Case::parse(Path::new("cases/x.json"), text).unwrap();
        let v = |s: &str| predict(&c, MastraVersion::parse(s).unwrap());
        assert!(
            matches!(v("0.21.1"), Prediction::Unmodelled(r) if r.starts_with("approval on @mastra/core 0.21.1"))
        );
        assert!(matches!(v("0.19.1"), Prediction::Projection(_)));
    }
}
