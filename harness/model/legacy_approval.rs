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

use super::approval;
use super::record::{Lookup, Record};
use super::releases::{Release, APPROVAL_DECLINED_MESSAGE};
use super::{Prediction, ToolOrigin, ToolValue};
use crate::case::{Approval, ApprovalPolicy, Case, Method, Reply, Tool, ToolCallReply};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::projection::{ErrorView, Executed, HistoryItem, Projection};

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

/// The prediction of an approval case on a 0.x release; `plain_of` gives
/// the model's prediction of a case without its approval options.
///
/// Every call of a step goes through the tool-call step at once
/// (`foreach(toolCallStep, { concurrency: 10 })`, 0.22.2
/// `dist/chunk-T2RDWNN6.js:421`, 0.24.9 `dist/chunk-GSQD3QNR.js:428`); a
/// call is held where it reaches a tool with an `execute` (a client tool
/// has none and is handed back before the check) and
/// `requireToolApproval` or the tool's own `requireApproval` is set. The
/// first step with a held call suspends the run once its calls have
/// settled: the others run as they would without approval.
pub(super) fn predict(
    case: &Case,
    rel: &Release,
    plain_of: &dyn Fn(&Case) -> Prediction,
) -> Prediction {
    let plain = plain_of(case);
    if !rel.approval_read_on_0x {
        return plain;
    }
    let p = match single(plain, rel) {
        Ok(p) => p,
        Err(other) => return *other,
    };
    // Nothing was sent: nothing reached a call to hold.
    if !p.applicable || p.requests.is_empty() {
        return Prediction::Projection(p);
    }
    let mut tools = super::merged_tools_on(case, Some(rel));
    if super::error_before_requests(case, rel, &mut tools).is_some() {
        return Prediction::Projection(p);
    }
    let policy = matches!(
        case.call.require_tool_approval,
        Some(ApprovalPolicy::Flag(true) | ApprovalPolicy::Names(_))
    );
    let holds = |c: &ToolCallReply| held_call(case, rel, &tools, policy, c);
    // The first step with a held call that the run reaches (request `k`
    // is the one that returned step `k`).
    let Some(k) = case.replies.iter().enumerate().position(|(i, r)| {
        i < p.requests.len() && matches!(r, Reply::ToolCalls(list) if list.iter().any(holds))
    }) else {
        return Prediction::Projection(p);
    };
    let Reply::ToolCalls(calls) = &case.replies[k] else {
        return unmodelled(rel, "a held step that is no step of calls");
    };
    let (held, let_through): (Vec<_>, Vec<_>) = calls.iter().cloned().partition(|c| holds(c));
    let ran = rel.approval_held_call_runs;
    let stream = case.call.method == Method::Stream;
    if ran && held.iter().any(|c| sub_agent(&tools, c)) {
        return unmodelled(
            rel,
            "a held sub-agent call, which runs before its answer, its requests among the run's",
        );
    }
    let no_tool = calls.iter().position(|c| names_no_tool(&tools, c));
    // Once a call naming no tool throws "Tool X not found" (where
    // `NO_TOOL_ENDS_SILENTLY` ends), it fails the step and nothing is
    // held: `bisect invented-name-before-a-held-call-generate.json --good
    // 0.23.1 --bad 0.24.9 --route openai-compatible`: 0.24.7 (last the
    // same 0.24.6, 3 steps). Before, the step suspends as if it were not
    // there.
    if no_tool.is_some() && !rel.no_tool_ends_silently {
        return plain_of(&cut(case, k, Some(let_through)));
    }
    let parts = match Parts::of(case, k, (&held, &let_through), plain_of, rel) {
        Ok(parts) => parts,
        Err(other) => return *other,
    };
    // The probe answers the first `tool-call-approval` chunk, in the
    // step's order, whose call has an answer; Gemini's calls have no
    // scripted ids, so no answer reaches them.
    let answered = (stream && case.route.call_ids_scripted())
        .then(|| first_answered(case, &held))
        .flatten();
    let waiting = |executed: Vec<Executed>| waiting_at(&p, k, stream, executed);
    let Some((i, answer)) = answered else {
        return Prediction::Projection(waiting(parts.first_pass(ran)));
    };
    let id = &held[i].id;
    let reused = calls.iter().filter(|c| c.id == *id).count() > 1;
    if reused && ran {
        return unmodelled(rel, "an answer to a call id used twice in a held step");
    }
    // Resumed by its id, the answer finds the last held call of it: the
    // second of two calls `call_1` runs (0.23.1 and 0.24.9, every route with
    // scripted ids, `cases/approval/reused-call-id-answered-*-stream.json`).
    let i = held.iter().rposition(|c| c.id == *id).unwrap_or(i);
    if held.len() > 1 && !ran && no_tool.is_none() {
        // Of a step of several held calls, the answered one alone is
        // resumed: approved it runs, and the stream ends there, the other
        // held calls never run and nothing more is sent, whatever their
        // answers (0.23.1 and 0.24.9, every route with scripted ids,
        // `cases/approval/two-calls-both-approved-stream.json` and the
        // `resumed-step-holding-two-later-calls-*` streams).
        let mut executed = parts.first_pass(false);
        if answer == Approval::Approve {
            match runs_alone(case, k, &held[i], &parts.before, plain_of, rel) {
                Ok(e) => executed.extend(e),
                Err(other) => return *other,
            }
        }
        return Prediction::Projection(waiting(executed));
    }
    if let Some(first) = no_tool {
        // Answered, the step is run again. In the fail-open band, with
        // the held call ahead of every call naming no tool, it runs again
        // and the stream ends as a call naming no tool ends it, silently;
        // otherwise the resumed stream never ends (the probe times out:
        // 0.20.0 to 0.23.1, every route with scripted ids,
        // `invented-name-before-a-held-call-stream.json`,
        // `declined-call-after-an-invented-name-stream.json`;
        // `invented-name-after-a-held-call-stream.json` on 0.23.1).
        let ahead = calls.iter().position(|c| c.id == *id) < Some(first);
        if !(ran && ahead) {
            return unmodelled(
                rel,
                "an answer to a held call beside a call naming no tool: the resumed stream never ends",
            );
        }
        let mut executed = parts.first_pass(true);
        executed.extend(parts.step);
        return Prediction::Projection(Projection {
            executed,
            ..waiting(Vec::new())
        });
    }
    if later_held(case, k, &holds) {
        return each_held_step_answered(case, (k, ran), &p, &holds, plain_of, rel);
    }
    if ran && case.sources.memory.is_some() {
        return unmodelled(
            rel,
            "an answered call with memory, whose resumed run asks no title",
        );
    }
    // The resumed run's requests and later runs, where it differs from
    // the call's own.
    let (p, parts) = match answered_beside(case) {
        false => (p.clone(), parts),
        true => match resumed_beside(case, k, &p, parts, plain_of, rel) {
            Ok(resumed) => resumed,
            Err(other) => return *other,
        },
    };
    let mut executed = parts.first_pass(ran || answer == Approval::Approve);
    match answer {
        // A decline of a call only the tool's own flag held resumes
        // nothing in the fail-open band: the run ends where it waited.
        Approval::Decline if ran && !policy => Prediction::Projection(waiting(executed)),
        // The resumed step runs every call of it again, in the step's
        // order, and the run goes on as without approval.
        _ if ran => {
            executed.extend(parts.step);
            executed.extend(parts.after);
            Prediction::Projection(Projection {
                executed,
                ..resumed_from_the_held_step(p, k)
            })
        }
        Approval::Approve => {
            executed.extend(parts.after);
            Prediction::Projection(Projection { executed, ..p })
        }
        Approval::Decline => {
            executed.extend(parts.after);
            Prediction::Projection(declined(Projection { executed, ..p }, k, id))
        }
    }
}

/// In the fail-open band the resumed run's history starts at the held
/// step: the requests after it carry none of the steps before it (0.20.0
/// to 0.22.2, every route with scripted ids,
/// `cases/approval/held-in-a-later-step-*-approved-stream.json`), where
/// from 0.23.1 they carry the whole run.
fn resumed_from_the_held_step(mut p: Projection, k: usize) -> Projection {
    let before = p.requests.get(k).map_or(0, |r| r.history.len());
    if let Some(resumed) = p.requests.get_mut(k + 1..) {
        for r in resumed {
            r.history.drain(..before.min(r.history.len()));
        }
    }
    p
}

/// The run waiting at step `k`, `p` being the run without approval:
/// `generate()` throws its unresolved promise.
fn waiting_at(p: &Projection, k: usize, stream: bool, executed: Vec<Executed>) -> Projection {
    let error = (!stream).then(|| ErrorView {
        id: None,
        message: JsString::from(GENERATE_SUSPENDED_MESSAGE),
        cause_code: None,
    });
    Projection {
        requests: p.requests[..=k].to_vec(),
        executed,
        error,
        ..p.clone()
    }
}

/// `q` with the result of the call `id`, declined at step `k`, written as
/// the model is told it.
fn declined(mut q: Projection, k: usize, id: &JsString) -> Projection {
    for r in &mut q.requests[k + 1..] {
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

/// The one projection of a prediction; a race, or an unmodelled one, as
/// the prediction to give.
fn single(plain: Prediction, rel: &Release) -> Result<Projection, Box<Prediction>> {
    match plain {
        Prediction::Projection(p) => Ok(p),
        Prediction::Unmodelled(r) => Err(Box::new(Prediction::Unmodelled(r))),
        _ => Err(Box::new(unmodelled(
            rel,
            "a case whose run without approval races",
        ))),
    }
}

/// Whether `call` waits for approval: it reaches a tool that runs in the
/// agent, and the policy or the tool's own `requireApproval` is set (a
/// function only tested for truth on 0.x).
fn held_call(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    policy: bool,
    call: &ToolCallReply,
) -> bool {
    let Some((_, value)) = approval::reached(tools, &call.name) else {
        return false;
    };
    if value.origin == ToolOrigin::Client {
        return false;
    }
    // Before `TOOLSET_TOOL_APPROVAL_SINCE` a toolset's tool loses its own
    // `requireApproval`: only the agent's own tools keep it.
    let own = approval::tool_called(case, tools, &call.name)
        .filter(|t| rel.toolset_tool_approval || case.tools.iter().any(|o| std::ptr::eq(o, *t)))
        .and_then(approval::own_approval);
    policy || own.is_some()
}

/// Whether `call` finds nothing: an inherited name finds the prototype's
/// function, which has no `execute` and is handed back as a client tool's
/// call is (`tools?.[name] || ...find(t => t.id === name)`).
fn names_no_tool(tools: &Record<ToolValue>, call: &ToolCallReply) -> bool {
    matches!(tools.get(&call.name), Lookup::Missing)
        && approval::reached(tools, &call.name).is_none()
}

/// Whether `call` reaches a sub-agent.
fn sub_agent(tools: &Record<ToolValue>, call: &ToolCallReply) -> bool {
    approval::reached(tools, &call.name)
        .is_some_and(|(_, v)| matches!(v.origin, ToolOrigin::SubAgent(_)))
}

/// Whether a step after `k` holds a call.
fn later_held(case: &Case, k: usize, holds: &dyn Fn(&ToolCallReply) -> bool) -> bool {
    case.replies[k + 1..]
        .iter()
        .any(|r| matches!(r, Reply::ToolCalls(list) if list.iter().any(holds)))
}

/// Whether the call has options a resumed run does not keep: on 0.x as on
/// 1.x, the run an answer resumes is the agent's own (`approval::as_resumed`;
/// docs/figures.md, "An answer beside the call's options on 0.x").
fn answered_beside(case: &Case) -> bool {
    case.toolsets.is_some()
        || case.client_tools.is_some()
        || case.tool_search.is_some()
        || case.call.active_tools.is_some()
        || case.call.max_steps.is_some()
}

/// The requests after the held first step and the runs after it, where an
/// answer resumes the run without the call's options: the agent's own run
/// (`approval::as_resumed`) from the request after the held step on. Its
/// first step must be the call's own, the same requests' histories and
/// the same runs, since the step ran under the call's options. The resumed
/// run counts five steps from the held one, as measured on 1.x.
fn resumed_beside(
    case: &Case,
    k: usize,
    p: &Projection,
    parts: Parts,
    plain_of: &dyn Fn(&Case) -> Prediction,
    rel: &Release,
) -> Result<(Projection, Parts), Box<Prediction>> {
    let Some(mut own) = approval::as_resumed(case) else {
        return Err(Box::new(unmodelled(
            rel,
            "an answered call beside a toolSearch processor",
        )));
    };
    // Five steps counted from the held one, as on 1.x.
    own.call.max_steps = Some(k as u32 + 5);
    let r = single(plain_of(&own), rel)?;
    let through = parts.before.len() + parts.step.len();
    let same_step = r.requests.len() > k
        && r.requests[..=k]
            .iter()
            .map(|q| &q.history)
            .eq(p.requests[..=k].iter().map(|q| &q.history))
        && r.executed.len() >= through
        && r.executed[..through] == p.executed[..through];
    if !same_step {
        return Err(Box::new(unmodelled(
            rel,
            "an answered call whose step runs otherwise without the call's options",
        )));
    }
    let mut requests = p.requests[..=k].to_vec();
    requests.extend_from_slice(r.requests.get(k + 1..).unwrap_or_default());
    let after = r.executed[through..].to_vec();
    Ok((
        Projection {
            requests,
            ..p.clone()
        },
        Parts { after, ..parts },
    ))
}

/// A stream whose held steps, from step `k`, each hold one call alone,
/// after the fail-open band (`ran` false): each approved call's answer resumes the run
/// up to the next held step, which waits for its own answer; every one
/// approved, the run is the one without approval, and the first held step
/// with no answer is where the run waits (0.24.9, every route with
/// scripted ids: `cases/approval/resumed-run-forgets-the-policy-stream.json`,
/// `sub-agent-call-held-under-true-stream.json`).
fn each_held_step_answered(
    case: &Case,
    (k, ran): (usize, bool),
    p: &Projection,
    holds: &dyn Fn(&ToolCallReply) -> bool,
    plain_of: &dyn Fn(&Case) -> Prediction,
    rel: &Release,
) -> Prediction {
    if ran || answered_beside(case) || case.sources.memory.is_some() {
        return unmodelled(rel, "an answered call before a later step's held call");
    }
    // The steps from `k` that the run reaches (request `j` returned step `j`).
    let reached = case.replies.len().min(p.requests.len());
    for (j, reply) in (k..reached).map(|j| (j, &case.replies[j])) {
        let Reply::ToolCalls(list) = reply else {
            continue;
        };
        if !list.iter().any(holds) {
            continue;
        }
        if list.len() != 1 {
            return unmodelled(
                rel,
                "an answered call before a later step of several calls, one held",
            );
        }
        match first_answered(case, list) {
            Some((_, Approval::Approve)) => {}
            Some((_, Approval::Decline)) => {
                return unmodelled(rel, "a declined call before a later step's held call");
            }
            None => {
                let mut c = case.clone();
                c.replies.truncate(j);
                c.replies.push(Reply::Text(JsString::from("done")));
                let before = match single(plain_of(&c), rel) {
                    Ok(q) => q.executed,
                    Err(other) => return *other,
                };
                if !p.executed.starts_with(&before) {
                    return unmodelled(rel, "a step whose runs change the steps before it");
                }
                return Prediction::Projection(waiting_at(p, j, true, before));
            }
        }
    }
    Prediction::Projection(p.clone())
}

/// The first of the `held` calls, in the step's order, that the case
/// answers, and its answer.
fn first_answered(case: &Case, held: &[ToolCallReply]) -> Option<(usize, Approval)> {
    held.iter().enumerate().find_map(|(i, c)| {
        let answer = case.approvals.iter().flatten().find(|(id, _)| *id == c.id);
        answer.map(|(_, a)| (i, *a))
    })
}

/// The case cut after step `k`, whose calls are `step` where given (text
/// where none is left), answered with text after it: its run without
/// approval ends there.
fn cut(case: &Case, k: usize, step: Option<Vec<ToolCallReply>>) -> Case {
    let mut c = case.clone();
    c.replies.truncate(k + 1);
    if let Some(step) = step {
        c.replies[k] = if step.is_empty() {
            Reply::Text(JsString::from("done"))
        } else {
            Reply::ToolCalls(step)
        };
    }
    c.replies.push(Reply::Text(JsString::from("done")));
    c
}

/// What `call` runs as the one call of step `k`, after the steps before
/// it ran `before`.
fn runs_alone(
    case: &Case,
    k: usize,
    call: &ToolCallReply,
    before: &[Executed],
    plain_of: &dyn Fn(&Case) -> Prediction,
    rel: &Release,
) -> Result<Vec<Executed>, Box<Prediction>> {
    let e = single(plain_of(&cut(case, k, Some(vec![call.clone()]))), rel)?.executed;
    if e.len() < before.len() || e[..before.len()] != *before {
        return Err(Box::new(unmodelled(
            rel,
            "a step whose runs change the steps before it",
        )));
    }
    Ok(e[before.len()..].to_vec())
}

/// What the case's calls run without approval, split where a held step
/// `k` puts them: before it, its calls let through, its held calls, the
/// whole step in its own order, and after it.
struct Parts {
    before: Vec<Executed>,
    let_through: Vec<Executed>,
    held: Vec<Executed>,
    step: Vec<Executed>,
    after: Vec<Executed>,
}

impl Parts {
    fn of(
        case: &Case,
        k: usize,
        (held, let_through): (&[ToolCallReply], &[ToolCallReply]),
        plain_of: &dyn Fn(&Case) -> Prediction,
        rel: &Release,
    ) -> Result<Parts, Box<Prediction>> {
        let runs = |c: &Case| single(plain_of(c), rel).map(|p| p.executed);
        let before = match k {
            0 => Vec::new(),
            _ => {
                let mut c = case.clone();
                c.replies.truncate(k);
                c.replies.push(Reply::Text(JsString::from("done")));
                runs(&c)?
            }
        };
        let n = before.len();
        let tail = |c: &Case| -> Result<Vec<Executed>, Box<Prediction>> {
            let e = runs(c)?;
            if e.len() < n || e[..n] != before[..] {
                return Err(Box::new(unmodelled(
                    rel,
                    "a step whose runs change the steps before it",
                )));
            }
            Ok(e[n..].to_vec())
        };
        let let_through = tail(&cut(case, k, Some(let_through.to_vec())))?;
        let held = tail(&cut(case, k, Some(held.to_vec())))?;
        let step = tail(&cut(case, k, None))?;
        let all = runs(case)?;
        let through = n + step.len();
        if all.len() < through || all[n..through] != step[..] {
            return Err(Box::new(unmodelled(
                rel,
                "a run whose later steps change the held one",
            )));
        }
        let after = all[through..].to_vec();
        Ok(Parts {
            before,
            let_through,
            held,
            step,
            after,
        })
    }

    /// The runs up to the suspension: the steps before, the calls let
    /// through, and (`with_held`) the held calls, which await the
    /// suspension first.
    fn first_pass(&self, with_held: bool) -> Vec<Executed> {
        let mut e = self.before.clone();
        e.extend(self.let_through.iter().cloned());
        if with_held {
            e.extend(self.held.iter().cloned());
        }
        e
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

    fn parse(text: &str) -> Case {
        Case::parse(Path::new("cases/x.json"), text).unwrap()
    }

    fn ids(p: &Projection) -> Vec<String> {
        p.executed.iter().map(|e| e.id.to_lossy()).collect()
    }

    /// A step of a held call and one let through: the one let through
    /// runs, and in the fail-open band the held one too, after it; the run
    /// waits after the step's one request.
    #[test]
    fn a_held_call_beside_one_let_through() {
        let c = parse(
            r#"{"about":"a","tools":[{"key":"files.delete","id":"delete-file","description":"d","requireApproval":true},"search.web"],
            "call":{"method":"stream"},
            "replies":[{"toolCalls":[{"id":"c1","name":"files_delete","arguments":{"city":"P"}},
              {"id":"c2","name":"search_web","arguments":{"city":"R"}}]},{"text":"done"}]}"#,
        );
        let open = on(&c, "0.22.2");
        assert_eq!(ids(&open), ["get-weather", "delete-file"]);
        assert_eq!(open.requests.len(), 1);
        let held = on(&c, "0.23.1");
        assert_eq!(ids(&held), ["get-weather"]);
        assert_eq!(held.requests.len(), 1);
        assert_eq!(ids(&on(&c, "0.19.1")).len(), 2);
    }

    /// Two held calls of one step, both answered: after the fail-open band
    /// only the first answered call runs and nothing more is sent; in it,
    /// both ran before the answer and run again, and the run goes on.
    #[test]
    fn two_held_calls_answered_on_a_stream() {
        let c = parse(
            r#"{"about":"a","tools":[{"key":"files.delete","id":"delete-file","description":"d"},{"key":"files.read","id":"read-file","description":"r"}],
            "call":{"method":"stream","requireToolApproval":true},
            "replies":[{"toolCalls":[{"id":"call_1","name":"files_read","arguments":{"city":"P"}},
              {"id":"call_2","name":"files_delete","arguments":{"city":"P"}}]},{"text":"done"}],
            "approvals":{"call_2":"approve","call_1":"approve"}}"#,
        );
        let held = on(&c, "0.24.9");
        assert_eq!(ids(&held), ["read-file"]);
        assert_eq!(shape(&held).1, 1);
        let open = on(&c, "0.22.2");
        assert_eq!(
            ids(&open),
            ["read-file", "delete-file", "read-file", "delete-file"]
        );
        assert_eq!(open.requests.len(), 2);
    }

    /// Two held steps of one call each: both approved, the run is the one
    /// without approval; the second unanswered, the run waits there.
    #[test]
    fn each_held_step_waits_for_its_own_answer() {
        let text = |answers: &str| {
            format!(
                r#"{{"about":"a","tools":["search.web"],"call":{{"method":"stream","requireToolApproval":true}},
                "replies":[{{"toolCalls":[{{"id":"call_1","name":"search_web","arguments":{{"city":"P"}}}}]}},
                  {{"toolCalls":[{{"id":"call_2","name":"search_web","arguments":{{"city":"R"}}}}]}},{{"text":"done"}}],
                "approvals":{answers}}}"#
            )
        };
        let both = on(
            &parse(&text(r#"{"call_1":"approve","call_2":"approve"}"#)),
            "0.24.9",
        );
        assert_eq!(shape(&both), (2, 3, None));
        let first = on(&parse(&text(r#"{"call_1":"approve"}"#)), "0.24.9");
        assert_eq!(shape(&first), (1, 2, None));
    }

    /// An answer beside `activeTools`: the request after the held first
    /// step offers every tool, the agent's own run's.
    #[test]
    fn an_answer_beside_active_tools_resumes_the_agents_own_run() {
        let c = parse(
            r#"{"about":"a","tools":["search.web",{"key":"files.delete","id":"delete-file","description":"d"}],
            "call":{"method":"stream","requireToolApproval":true,"activeTools":["files_delete"]},
            "replies":[{"toolCalls":[{"id":"call_1","name":"files_delete","arguments":{"city":"P"}}]},{"text":"done"}],
            "approvals":{"call_1":"approve"}}"#,
        );
        let p = on(&c, "0.24.9");
        let offered = |i: usize| p.requests[i].tools.as_ref().map_or(0, Vec::len);
        assert_eq!((offered(0), offered(1)), (1, 2));
        assert_eq!(ids(&p), ["delete-file"]);
    }

    /// A first step's call of `search.web`, then one of `files.delete`,
    /// which its own `requireApproval` holds; `extra` ends the case's object.
    fn held_in_the_second_step(method: &str, extra: &str) -> Case {
        parse(&format!(
            r#"{{"about":"a","tools":["search.web",{{"key":"files.delete","id":"delete-file","description":"d","requireApproval":true}}],
            "call":{{"method":"{method}"}},
            "replies":[{{"toolCalls":[{{"id":"c1","name":"search_web","arguments":{{"city":"P"}}}}]}},
              {{"toolCalls":[{{"id":"c2","name":"files_delete","arguments":{{"city":"P"}}}}]}},{{"text":"done"}}]{extra}}}"#
        ))
    }

    /// A call held in a second step: the first step's call ran, the run
    /// waits after the second request; `generate()` throws.
    #[test]
    fn a_call_held_in_a_later_step() {
        let c = held_in_the_second_step("generate", "");
        let thrown = Some(super::GENERATE_SUSPENDED_MESSAGE.to_string());
        let p = on(&c, "0.24.9");
        assert_eq!(shape(&p), (1, 2, thrown.clone()));
        assert_eq!(ids(&p), ["get-weather"]);
        assert_eq!(shape(&on(&c, "0.21.1")), (2, 2, thrown));
    }

    /// Answered in the fail-open band, a call held in the second step runs
    /// again and the resumed run's history starts at it; from 0.23.1 it
    /// runs once and the history keeps the first step.
    #[test]
    fn an_answer_to_a_call_held_in_a_later_step() {
        let c = held_in_the_second_step("stream", r#","approvals":{"c2":"approve"}"#);
        let first_call = |p: &Projection| match p.requests[2].history.first() {
            Some(HistoryItem::Call(name)) => name.to_rust().unwrap_or_default(),
            other => format!("{other:?}"),
        };
        let open = on(&c, "0.22.2");
        assert_eq!(ids(&open), ["get-weather", "delete-file", "delete-file"]);
        assert_eq!(first_call(&open), "files_delete");
        let held = on(&c, "0.23.1");
        assert_eq!(ids(&held), ["get-weather", "delete-file"]);
        assert_eq!(first_call(&held), "search_web");
    }

    /// A call naming no tool beside a held call fails the step from
    /// 0.24.7; before, the step waits unanswered, and answered the
    /// resumed stream never ends (unmodelled, with that reason).
    #[test]
    fn a_call_naming_no_tool_beside_a_held_call() {
        let text = |answer: &str| {
            format!(
                r#"{{"about":"a","tools":["search.web"],"call":{{"method":"stream","requireToolApproval":true}},
                "replies":[{{"toolCalls":[{{"id":"c1","name":"nope","arguments":{{"city":"P"}}}},
                  {{"id":"c2","name":"search_web","arguments":{{"city":"P"}}}}]}},{{"text":"done"}}]{answer}}}"#
            )
        };
        let c = parse(&text(""));
        let p = on(&c, "0.24.9");
        assert_eq!(p.executed.len(), 0);
        assert!(p
            .error
            .is_some_and(|e| e.message.to_lossy() == "Tool nope not found"));
        assert_eq!(shape(&on(&c, "0.23.1")), (0, 1, None));
        let answered = parse(&text(r#","approvals":{"c2":"approve"}"#));
        let v = predict(&answered, MastraVersion::parse("0.23.1").unwrap());
        assert!(matches!(v, Prediction::Unmodelled(r) if r.contains("never ends")));
    }
}
