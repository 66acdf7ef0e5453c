//! The projection's `seen` for a case outside approval: the names the
//! stream's chunks and the result's `toolCalls` and `toolResults` hand the
//! user's code, from the parent's steps as `steps` played them
//! (docs/seen.md).
//!
//! Every name is the one the model called: Mastra hands back the wire
//! name (or whatever the model sent), never the key.

use super::{Agent, Ending, Resolved, Runs, Taken};
use crate::case::{Case, Method, ToolCallReply};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::model::releases::Release;
use crate::projection::{Projection, Seen};
use crate::route::Route;

/// The chunks a call's streamed input gives, in order: its start and
/// delta as its arguments arrive, then the call itself.
pub(in crate::model) const INPUT_CHUNKS: [&str; 2] =
    ["tool-call-input-streaming-start", "tool-call-delta"];

/// One parent step that made calls: the calls as sent, as run, how each
/// resolved, and how each sub-agent run it started ended.
#[derive(Debug, Clone)]
pub(crate) struct StepSeen {
    sent: Vec<ToolCallReply>,
    calls: Vec<ToolCallReply>,
    resolved: Vec<Resolved>,
    /// The name each call's result is handed back under (`Taken`).
    result_names: Vec<JsString>,
    /// The ending of the sub-agent run started by call `i`, by `i`, and
    /// how many chunks its stream gave (`count_nested`).
    subs: Vec<(usize, Option<Ending>, Option<usize>)>,
    /// Whether each call reaches a builtin that suspends the run.
    suspends: Vec<bool>,
}

impl StepSeen {
    /// The sub-agent run call `i` started: its ending and chunk count.
    fn sub(&self, i: usize) -> Option<&(usize, Option<Ending>, Option<usize>)> {
        self.subs.iter().find(|(at, _, _)| *at == i)
    }

    /// How the sub-agent run call `i` started ended, if it started one.
    fn sub_ending(&self, i: usize) -> Option<&Ending> {
        self.sub(i).and_then(|(_, e, _)| e.as_ref())
    }

    pub(super) fn of(
        taken: &Taken,
        subs: Vec<(usize, Option<Ending>, Option<usize>)>,
        suspends: Vec<bool>,
    ) -> StepSeen {
        StepSeen {
            sent: taken.sent.clone(),
            calls: taken.calls.clone(),
            resolved: taken.resolved.clone(),
            result_names: taken.result_names.clone(),
            subs,
            suspends,
        }
    }
}

/// What a call hands back once it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// A result: a `tool-result` chunk and an entry of `toolResults`.
    Result,
    /// A failed call: a `tool-error` chunk, no entry.
    Error,
    /// A call that waits for the client or suspends: neither.
    Stop,
}

fn outcome(rel: &Release, case: &Case, r: &Resolved, ending: Option<&Ending>) -> Outcome {
    match r {
        Resolved::Stop => Outcome::Stop,
        Resolved::NotFound { .. } => Outcome::Error,
        Resolved::Run { runs, .. } => match runs {
            Runs::Refused(_) => Outcome::Error,
            Runs::SubAgent { .. } => match ending {
                Some(Ending::ApiError(_) | Ending::Error(_)) => {
                    let thrown = match case.call.method {
                        Method::Stream => rel.sub_agent_stream_error_thrown,
                        Method::Generate => rel.sub_agent_error_as_text,
                    };
                    if thrown {
                        Outcome::Error
                    } else {
                        Outcome::Result
                    }
                }
                _ => Outcome::Result,
            },
            _ => Outcome::Result,
        },
    }
}

/// The chunks of a streamed step's calls: each call's input as `sent`,
/// and the `tool-call` of each call as it runs (`calls`, where a reused id
/// merged some), after its own input or, from `STREAM_CALLS_AFTER_INPUTS`
/// (`GROQ_STREAM_CALLS_AFTER_INPUTS` on groq) on the Chat Completions routes whose deltas name calls by index
/// (measured on openai-compatible and groq; the other routes keep each
/// `tool-call` after its input on 1.67.0 and 1.71.0), after every input.
pub(in crate::model) fn call_chunks(
    case: &Case,
    rel: &Release,
    sent: &[ToolCallReply],
    calls: &[ToolCallReply],
    out: &mut Vec<(JsString, Json)>,
) {
    let grouped = match case.route {
        Route::OpenAiCompatible => rel.stream_calls_after_inputs,
        Route::Groq => rel.groq_stream_calls_after_inputs,
        _ => false,
    };
    // From `GOOGLE_NULL_ARGUMENTS_EMPTY` a Gemini call with `null` args
    // streams no delta (its start, then the call: 1.51.0 and 1.71.0; 1.50.0
    // has the delta), while `{}` still has one.
    let no_delta = |c: &ToolCallReply| {
        rel.google_null_arguments_empty
            && case.route.wire() == crate::route::Wire::GenerateContent
            && c.arguments == Json::Null
    };
    for c in sent {
        let name = Json::String(c.name.clone());
        for kind in INPUT_CHUNKS {
            if kind == "tool-call-delta" && no_delta(c) {
                continue;
            }
            out.push((JsString::from(kind), name.clone()));
        }
        if !grouped {
            out.push((JsString::from("tool-call"), name));
        }
    }
    if grouped {
        for c in calls {
            out.push((JsString::from("tool-call"), Json::String(c.name.clone())));
        }
    }
}

/// The chunks of a workflow's run as its `fullStream` gives them:
/// `workflow-start`, `workflow-step-start`, `workflow-step-result`,
/// `workflow-finish` (the probe's one-step workflow).
pub(in crate::model) const WORKFLOW_CHUNKS: usize = 4;

/// Count what a sub-agent's `fullStream` gives for one step of its loop
/// (`taken`, where it made calls) or its ending: its own `start`, per step
/// `step-start`, each call's `tool-call-input-streaming-start`,
/// `tool-call-delta`, `tool-call-input-streaming-end` and `tool-call`, each
/// `tool-result` or `tool-error`, `step-finish`; a text answer's step
/// `text-start`, `text-delta` and `text-end` inside its own, an API error's
/// an `error` inside its own; then `finish`. An error of Mastra's own (a
/// call naming no tool, before `NOT_FOUND_IS_A_RESULT`) ends it at its
/// `error`, with no `step-finish` or `finish`. Measured on 1.0.4, 1.40.0
/// and 1.71.0, every route (the nested chunk types recorded on
/// openai-compatible and openai): a text
/// answer (`cases/sources/sub-agent-call-on-stream.json`), an API error
/// (`cases/calls/sub-agent-api-error-on-stream-before-1.5.0.json`), a call
/// naming no tool (`cases/calls/sub-agent-calls-a-missing-tool-on-stream-before-1.4.0.json`),
/// and `cases/sources/nested-*.json`. Other endings (the steps running
/// out, a stop) are not measured: `None`.
pub(in crate::model) fn count_nested(
    agent: &mut Agent,
    taken: Option<&Taken>,
    ending: Option<&Ending>,
) {
    let Some(so_far) = agent.nested else {
        return;
    };
    let more = match (taken, ending) {
        (Some(t), None) => {
            let handed = t
                .resolved
                .iter()
                .filter(|r| !matches!(r, Resolved::Stop))
                .count();
            Some(2 + 4 * t.sent.len() + handed)
        }
        (Some(t), Some(Ending::Error(_))) => Some(2 + 4 * t.sent.len()),
        (None, Some(Ending::Answer(text))) if !text.is_empty() => Some(5 + 1),
        (None, Some(Ending::ApiError(_))) => Some(3 + 1),
        _ => None,
    };
    agent.nested = more.map(|k| so_far + k);
}

/// The `tool-output` chunks a streamed step's nested runs hand over, each
/// named by the tool's key as registered (`agent-KEY`, `workflow-KEY`,
/// before `formatTools`), not by the name the model called: a sub-agent's
/// chunks (`count_nested`) and a workflow's (`WORKFLOW_CHUNKS`), while it
/// runs, after the step's calls and before its results, a call naming no
/// tool's `tool-error` after them (`cases/sources/nested-*.json`). Workflows
/// ahead of one sub-agent in a step give theirs in call order, each
/// workflow's whole (measured on 1.0.4, 1.40.0 and 1.71.0, every route:
/// `nested-workflow-and-sub-agent-in-one-step-stream.json`); two
/// sub-agents of different names, or a workflow after a sub-agent, would
/// interleave as they run: not modelled.
fn nested_chunks(step: &StepSeen) -> Result<Vec<(JsString, Json)>, String> {
    let mut out: Vec<(JsString, Json)> = Vec::new();
    let mut sub_agent: Option<Json> = None;
    for (i, r) in step.resolved.iter().enumerate() {
        let Resolved::Run { key, runs, .. } = r else {
            continue;
        };
        let name = Json::String(key.clone());
        let count = match runs {
            Runs::SubAgent { .. } if sub_agent.as_ref().is_some_and(|n| *n != name) => {
                return Err("the tool-output chunks of two sub-agents in one step".into())
            }
            Runs::SubAgent { .. } => step
                .sub(i)
                .and_then(|(_, _, n)| *n)
                .ok_or("a sub-agent's stream with an ending not measured")?,
            Runs::Fixed(text) if *text == crate::model::sources::WORKFLOW_RESULT => {
                if sub_agent.is_some() {
                    return Err(
                        "the tool-output chunks of a workflow after a sub-agent in one step".into(),
                    );
                }
                WORKFLOW_CHUNKS
            }
            _ => continue,
        };
        if matches!(runs, Runs::SubAgent { .. }) {
            sub_agent = Some(name.clone());
        }
        out.extend(std::iter::repeat_n(
            (JsString::from("tool-output"), name),
            count,
        ));
    }
    Ok(out)
}

/// `seen` for `case` once its loop is over: `log` its parent's steps,
/// `ended` how the loop ended, `p` the projection so far.
pub(in crate::model) fn predict(
    case: &Case,
    rel: &Release,
    log: &[StepSeen],
    ended: Option<&Ending>,
    p: &Projection,
) -> Result<Seen, String> {
    // 0.x is not projected; reaching here with it is the caller's slip.
    if rel.on_0x() {
        return Err("seen on 0.x".into());
    }
    let stream = case.call.method == Method::Stream;
    let mut seen = Seen::default();
    let mut calls = Vec::new();
    let mut results = Vec::new();
    for step in log {
        let stops = step.resolved.iter().any(|r| matches!(r, Resolved::Stop));
        // Before the loop went on past a call naming no tool, such a call
        // ends the run with the step's calls handed over and none of its
        // results.
        let failed = !rel.not_found_is_a_result
            && step
                .resolved
                .iter()
                .any(|r| matches!(r, Resolved::NotFound { .. }));
        if stream {
            call_chunks(case, rel, &step.sent, &step.calls, &mut seen.stream);
            seen.stream.extend(nested_chunks(step)?);
        }
        calls.extend(step.calls.iter().map(|c| Json::String(c.name.clone())));
        // A run suspended by a builtin (`askUserTool`, `submitPlanTool`)
        // hands over the first suspended call, on `generate()` its
        // `suspendPayload`, on a stream a `tool-call-suspended` chunk after
        // the step's calls, and lists none of the step's results (measured
        // on 1.67.0 and 1.71.0, the suspending call first and last).
        let suspended = step
            .resolved
            .iter()
            .zip(&step.calls)
            .zip(&step.suspends)
            .find(|((r, _), s)| **s && matches!(r, Resolved::Stop));
        if let Some(((_, c), _)) = suspended {
            // Gemini's calls carry no id the case wrote (the AI SDK's own).
            let id = if case.route.call_ids_scripted() {
                Json::String(c.id.clone())
            } else {
                Json::Null
            };
            let name = Json::String(c.name.clone());
            if stream {
                seen.stream
                    .push((JsString::from("tool-call-suspended"), name));
            } else {
                seen.pending.push((id, name));
            }
            continue;
        }
        if failed {
            continue;
        }
        // A call naming no tool, and one whose `null` arguments are refused,
        // fails at once, ahead of every run's result, in call order
        // (measured on 1.67.0 and 1.71.0, every route:
        // `cases/zero/v4-stream-api-error-after-a-refused-call-is-the-error.json`,
        // and fuzz seed 1 case 145 on mistral).
        let at_once = |r: &Resolved| {
            matches!(
                r,
                Resolved::NotFound { .. }
                    | Resolved::Run {
                        runs: Runs::Refused(_),
                        ..
                    }
            )
        };
        if stops && !rel.stop_step_lists_results {
            // A step a client's call stops lists and streams no run's result
            // before STOP_STEP_LISTS_RESULTS, but a call that fails at once
            // has failed by then: its `tool-error` is streamed (measured from
            // 1.4.0, where such a call stopped ending the run, to 1.59.0:
            // `cases/calls/client-tool-beside-an-invented-name-on-stream.json`;
            // found by the nightly, fuzz seed 20261207 case 75, shrunk).
            if stream {
                for (c, r) in step.calls.iter().zip(&step.resolved) {
                    if at_once(r) {
                        seen.stream
                            .push((JsString::from("tool-error"), Json::String(c.name.clone())));
                    }
                }
            }
            continue;
        }
        // A sub-agent whose loop failed, where that throws on a stream
        // (`SUB_AGENT_STREAM_ERROR_THROWN`), fails as it ends, ahead of the
        // step's results too (fuzz seed 1 case 1764 on 1.71.0: its
        // `tool-error` before the other run's `tool-result`).
        let ending = |i: usize| step.sub_ending(i);
        let fails = |i: usize| {
            let r = &step.resolved[i];
            at_once(r) || outcome(rel, case, r, ending(i)) == Outcome::Error
        };
        let mut order: Vec<usize> = (0..step.calls.len()).collect();
        order.sort_by_key(|&i| !fails(i));
        for i in order {
            let r = &step.resolved[i];
            let ending = ending(i);
            let named = step.result_names.get(i).unwrap_or(&step.calls[i].name);
            let name = Json::String(named.clone());
            match outcome(rel, case, r, ending) {
                Outcome::Result => {
                    results.push(name.clone());
                    if stream {
                        seen.stream.push((JsString::from("tool-result"), name));
                    }
                }
                Outcome::Error if stream => {
                    seen.stream.push((JsString::from("tool-error"), name));
                }
                Outcome::Error | Outcome::Stop => {}
            }
        }
    }
    // A call that threw hands over no result: `generate()` for any error
    // (the scripted API error included), a stream for an error of
    // Mastra's own (its promised lists reject).
    let threw = match case.call.method {
        Method::Generate => p.error.is_some() || matches!(ended, Some(Ending::ApiError(_))),
        Method::Stream => p.error.is_some(),
    };
    // `generate()`'s `toolCalls` before GENERATE_LISTS_EVERY_CALL, on a
    // traced call that neither drives approval nor has memory: the last
    // step's only (without tracing, 1.0.4 lists every step's: the corpus's
    // `loop-stops-at-maxsteps.json`).
    let last_step_only = !rel.generate_lists_every_call
        && case.tracing
        && !stream
        && !case.drives_approval()
        && case.sources.memory.is_none();
    if last_step_only {
        // A text answer's step is the last, and it has no calls; a step
        // stopped by a client tool's call is not listed either (1.0.4,
        // `cases/tracing/span-of-a-client-tool-call-generate.json`).
        let answered = matches!(ended, Some(Ending::Answer(_) | Ending::Stopped));
        calls = log
            .last()
            .filter(|_| !answered)
            .map_or_else(Vec::new, |step| {
                step.calls
                    .iter()
                    .map(|c| Json::String(c.name.clone()))
                    .collect()
            });
    }
    if !threw {
        seen.tool_calls = Some(calls);
        seen.tool_results = Some(results);
    }
    Ok(seen)
}

/// `seen` of a call that threw before its first request: nothing handed
/// over.
pub(in crate::model) fn before_requests() -> Seen {
    Seen::default()
}

#[cfg(test)]
mod tests {
    use crate::case::Case;
    use crate::js::json::Json;
    use crate::model::{predict, Prediction};
    use crate::projection::Seen;
    use crate::version::spec::MastraVersion;
    use std::path::Path;

    fn seen(text: &str, version: MastraVersion) -> Seen {
        let case = Case::parse(Path::new("cases/x.json"), text).unwrap();
        match predict(&case, version) {
            Prediction::Projection(p) => *p.seen.expect("seen projected"),
            other => panic!("{other:?}"),
        }
    }

    fn names(list: &[&str]) -> Option<Vec<Json>> {
        Some(list.iter().map(|n| Json::str(n)).collect())
    }

    fn kinds(seen: &Seen) -> Vec<String> {
        seen.stream
            .iter()
            .map(|(k, n)| format!("{}:{}", k.to_lossy(), n.as_str().unwrap().to_lossy()))
            .collect()
    }

    const BY_KEY: &str = r#"{"about":"a","tools":["search.web"],
        "replies":[{"toolCalls":[{"id":"call_1","name":"search.web","arguments":{"city":"Paris"}}]},{"text":"done"}]}"#;

    #[test]
    fn a_call_by_the_key_is_handed_back_by_the_key_and_gives_no_result() {
        let s = seen(BY_KEY, MastraVersion::new(1, 67, 0));
        assert_eq!(s.tool_calls, names(&["search.web"]));
        assert_eq!(s.tool_results, names(&[]));
        // Before the loop went on past it, the call threw: nothing handed over.
        let s = seen(BY_KEY, MastraVersion::new(1, 0, 4));
        assert_eq!((s.tool_calls, s.tool_results), (None, None));
    }

    const CLIENT_STEP: &str = r#"{"about":"a","tools":["ok"],"clientTools":["ask"],"call":{"method":"stream"},
        "replies":[{"toolCalls":[{"id":"call_1","name":"ok","arguments":{"city":"Paris"}},{"id":"call_2","name":"ask","arguments":{"city":"Lyon"}}]},{"text":"done"}]}"#;

    #[test]
    fn a_streamed_step_groups_its_calls_from_1_52_and_lists_beside_a_client_call_from_1_60() {
        let s = seen(CLIENT_STEP, MastraVersion::new(1, 51, 0));
        let input = ["tool-call-input-streaming-start", "tool-call-delta"];
        let mut want: Vec<String> = Vec::new();
        for n in ["ok", "ask"] {
            want.extend(input.iter().map(|k| format!("{k}:{n}")));
            want.push(format!("tool-call:{n}"));
        }
        assert_eq!(kinds(&s), want);
        assert_eq!(s.tool_results, names(&[]));
        let s = seen(CLIENT_STEP, MastraVersion::new(1, 59, 0));
        assert_eq!(kinds(&s)[4], "tool-call:ok", "{:?}", kinds(&s));
        assert_eq!(s.tool_results, names(&[]));
        let s = seen(CLIENT_STEP, MastraVersion::new(1, 60, 0));
        assert_eq!(kinds(&s).last().unwrap(), "tool-result:ok");
        assert_eq!(s.tool_calls, names(&["ok", "ask"]));
        assert_eq!(s.tool_results, names(&["ok"]));
    }

    #[test]
    fn a_call_naming_no_tool_fails_ahead_of_its_steps_results() {
        let text = r#"{"about":"a","tools":["a"],"call":{"method":"stream"},"route":"openai",
            "replies":[{"toolCalls":[{"id":"c1","name":"a","arguments":{"city":"Paris"}},{"id":"c2","name":"nope","arguments":{}}]},{"text":"done"}]}"#;
        let s = seen(text, MastraVersion::new(1, 71, 0));
        let k = kinds(&s);
        assert_eq!(k[k.len() - 2..], ["tool-error:nope", "tool-result:a"]);
    }

    const NESTED: &str = r#"{"about":"a","tools":["a"],"agents":["my helper"],"workflows":["w.x"],
        "call":{"method":"stream"},
        "replies":[{"toolCalls":[{"id":"c1","name":"workflow-w_x","arguments":{"inputData":{"city":"Paris"}}},
            {"id":"c2","name":"agent-my_helper","arguments":{"prompt":"Paris"}}]},{"text":"done"}],
        "subAgentReplies":{"my helper":[{"toolCalls":[{"id":"c3","name":"nope","arguments":{}}]},{"text":"sub done"}]}}"#;

    #[test]
    fn nested_runs_stream_tool_output_chunks_named_by_the_registered_key() {
        let s = seen(NESTED, MastraVersion::new(1, 67, 0));
        let k = kinds(&s);
        let count = |name: &str| k.iter().filter(|c| *c == name).count();
        // The workflow's four, then the sub-agent's: start, a step with one
        // call failed (7), a text step (5), finish.
        assert_eq!(count("tool-output:workflow-w.x"), 4, "{k:?}");
        assert_eq!(count("tool-output:agent-my helper"), 14, "{k:?}");
        let first = k.iter().position(|c| c.starts_with("tool-output")).unwrap();
        assert!(k[..first].iter().all(|c| !c.starts_with("tool-result")));
        assert_eq!(k.last().unwrap(), "tool-result:agent-my_helper");
        // Before `NOT_FOUND_IS_A_RESULT` the sub-agent's loop throws at its
        // call: no `step-finish`, no `finish` (1 + 1 + 4 + 1).
        let s = seen(NESTED, MastraVersion::new(1, 0, 4));
        assert_eq!(
            kinds(&s)
                .iter()
                .filter(|c| *c == "tool-output:agent-my helper")
                .count(),
            7
        );
    }

    #[test]
    fn two_sub_agents_in_one_streamed_step_are_unmodelled() {
        let text = r#"{"about":"a","agents":["x","y"],"call":{"method":"stream"},
            "replies":[{"toolCalls":[{"id":"c1","name":"agent-x","arguments":{"prompt":"P"}},
                {"id":"c2","name":"agent-y","arguments":{"prompt":"P"}}]},{"text":"done"}],
            "subAgentReplies":{"x":[{"text":"sub done"}],"y":[{"text":"sub done"}]}}"#;
        let case = Case::parse(Path::new("cases/x.json"), text).unwrap();
        match predict(&case, MastraVersion::new(1, 71, 0)) {
            Prediction::Unmodelled(why) => assert!(why.contains("two sub-agents"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn zero_x_projects_no_seen() {
        let case = Case::parse(Path::new("cases/x.json"), BY_KEY).unwrap();
        if let Prediction::Projection(p) = predict(&case, MastraVersion::new(0, 24, 9)) {
            assert!(p.seen.is_none());
        }
    }
}
