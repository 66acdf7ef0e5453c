//! The calls of a case on one agent: `turns` (each a call, with the
//! replies taken across them), `memory: true` (every call on one thread,
//! which recalls the earlier calls' tool messages) and `tracing` (the tool
//! spans each call ends, `seen.spans`).
//!
//! In: a case and its release. Out: the projection, the contract's `{
//! applicable, reason, turns }` with `turns`, the flat one without. Each
//! call is the one-call model's (`super::run`), on the replies the earlier
//! calls left, started from what the memory recalls.

use super::releases::Release;
use super::steps::{Outcome, SpanCall};
use crate::case::{Case, Reply, Tool};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::projection::{HistoryItem, Projection, SpanView, Turn};
use crate::route::Route;

/// Why the case is outside what this module covers, if it is.
fn outside(case: &Case) -> Option<&'static str> {
    let s = &case.sources;
    let other_sources = s.agents.is_some()
        || s.workflows.is_some()
        || s.mcp.is_some()
        || s.dynamic_tools
        || case.sub_agent_replies.is_some();
    if other_sources && (case.turns.is_some() || case.tracing) {
        return Some("turns or tracing beside sub-agents, workflows, MCP servers or dynamic tools");
    }
    if s.memory.is_some_and(|m| m.in_memory) && other_sources {
        return Some("memory: true beside sub-agents, workflows, MCP servers or dynamic tools");
    }
    let not_ours = |t: &Tool| matches!(t, Tool::Builtin { .. });
    if case.tracing
        && (case.toolsets.is_some()
            || case.client_tools.is_some()
            || case.tools.iter().any(not_ours))
    {
        return Some("tracing beside toolsets, client tools or builtins");
    }
    if case.tracing && case.drives_approval() {
        return Some("tracing beside approval");
    }
    None
}

/// The projection of a case with `turns`, `memory: true` or `tracing`.
pub(super) fn project(case: &Case, rel: &Release) -> Result<Projection, String> {
    if let Some(why) = outside(case) {
        return Err(why.into());
    }
    let memory = case.sources.memory.is_some();
    let mut consumed = 0;
    let mut recalled: Vec<HistoryItem> = Vec::new();
    let mut turns = Vec::new();
    let mut mutated = Vec::new();
    for call in case.calls() {
        let mut one = case.clone();
        one.turns = None;
        one.call = call.clone();
        one.replies = remaining(&case.replies, consumed);
        let outcome = only(super::run_from(&one, rel, recalled.clone())?)?;
        consumed += outcome.projection.requests.len();
        let lost = rel.failed_call_not_stored && outcome.api_error;
        if memory && !lost {
            // The thread holds every tool message of the call (where an
            // API error ended it on `FAILED_CALL_NOT_STORED`, none:
            // `recalled` stays); the next
            // call's prompt replays them, names through the same sanitiser
            // as the call's own history (`HISTORY_NAMES_SANITISED`: an
            // invented name comes back `unknown_tool`).
            recalled = outcome
                .stored
                .iter()
                .map(|item| recall(rel, item))
                .collect();
            // On the Responses API the call's answer is recalled too, by
            // reference to its stored output item (1.0.4, 1.67.0 and
            // 1.71.0 alike; `cases/memory/recall-of-a-rewritten-name.json`
            // on `openai`); elsewhere a text message is no part of `history`.
            if outcome.answered && case.route == Route::OpenAi {
                recalled.push(HistoryItem::Ref(JsString::from(ANSWER_ITEM_ID)));
            }
        }
        let mut turn = Turn::of(&outcome.projection);
        if case.tracing {
            let seen = turn.seen.get_or_insert_with(Default::default);
            seen.spans = Some(spans(rel, &outcome.spans));
        }
        mutated.clone_from(&outcome.projection.mutated);
        turns.push(turn);
    }
    if case.turns.is_none() {
        let turn = turns.remove(0);
        return Ok(Projection {
            error: turn.error,
            requests: turn.requests,
            executed: turn.executed,
            seen: turn.seen,
            mutated,
            ..Projection::empty()
        });
    }
    Ok(Projection {
        turns: Some(turns),
        mutated,
        ..Projection::empty()
    })
}

/// The replies left once `consumed` requests took theirs: every request,
/// a retry too, takes the next reply, and once they run out the default.
fn remaining(replies: &[Reply], consumed: usize) -> Vec<Reply> {
    match replies.get(consumed..) {
        Some(rest) if !rest.is_empty() => rest.to_vec(),
        _ => vec![Reply::default_reply()],
    }
}

/// The one way a call goes; a race between concurrent requests inside a
/// turn is not followed across turns.
fn only(mut outcomes: Vec<Outcome>) -> Result<Outcome, String> {
    match outcomes.len() {
        1 => Ok(outcomes.remove(0)),
        0 => Err("the loop gave no projection".into()),
        _ => Err("a turn whose requests race, before a later turn".into()),
    }
}

/// A stored history item as the next call's prompt carries it.
fn recall(rel: &Release, item: &HistoryItem) -> HistoryItem {
    match item {
        HistoryItem::Call(name) => HistoryItem::Call(super::steps::history_name(rel, name)),
        other => other.clone(),
    }
}

/// The tool spans of a call's case tools, in the order they ended (the
/// order of the calls: each ends when its `execute` or its validation
/// returns, measured on 1.0.4 and 1.67.0). Each is `createChildSpan({ type:
/// "tool_call", name: `tool: '${options.name}'`, entityName: options.name
/// })`, `options.name` the tool's key (1.0.4
/// `dist/chunk-5RBKFP5N.js:158`); its `entityId` is the key from
/// `SPAN_ENTITY_IS_THE_KEY`, before that the parent step span's
/// (`stream-text-step`, on `generate()` too). A call whose arguments were
/// refused ends one from `BAD_ARGUMENTS_END_A_SPAN` only: before, the span
/// was made inside the function that runs after validation.
fn spans(rel: &Release, calls: &[SpanCall]) -> Vec<SpanView> {
    calls
        .iter()
        .filter(|c| !c.refused || rel.bad_arguments_end_a_span)
        .map(|c| {
            let mut name = JsString::from("tool: '");
            name = name.concat(&c.key);
            name.push_str("'");
            let entity_id = if rel.span_entity_is_the_key {
                Json::String(c.key.clone())
            } else {
                Json::str(SPAN_ENTITY_BEFORE_KEY)
            };
            SpanView {
                kind: Json::str("tool_call"),
                name: Json::String(name),
                entity_id,
                entity_name: Json::String(c.key.clone()),
            }
        })
        .collect()
}

/// The id of the `message` item the listener answers a Responses API text
/// reply with (`observe::wire::responses`: ids are predictable on purpose).
const ANSWER_ITEM_ID: &str = "msg_0";

/// A tool span's `entityId` before `SPAN_ENTITY_IS_THE_KEY`: the id of the
/// step span it was made under, which the span inherits (1.0.4).
const SPAN_ENTITY_BEFORE_KEY: &str = "stream-text-step";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{predict, Prediction};
    use crate::version::spec::MastraVersion;

    fn case(text: &str) -> Case {
        Case::parse(std::path::Path::new("cases/x.json"), text).unwrap()
    }

    fn projection(c: &Case, v: (u32, u32, u32)) -> Projection {
        match predict(c, MastraVersion::new(v.0, v.1, v.2)) {
            Prediction::Projection(p) => p,
            other => panic!("{other:?}"),
        }
    }

    const RECALL: &str = r#"{"about":"a","tools":["search.web"],"memory":true,
        "turns":[{},{"prompt":"again"}],
        "replies":[{"toolCalls":[{"id":"call_1","name":"NAME","arguments":{"city":"Paris"}}]},
                   {"text":"done"},{"text":"ok"}]}"#;

    #[test]
    fn the_second_turn_recalls_the_first_turns_tool_messages() {
        let c = case(&RECALL.replace("NAME", "search_web"));
        let p = projection(&c, (1, 71, 0));
        let turns = p.turns.unwrap();
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].requests.len(), 2);
        assert_eq!(turns[1].requests.len(), 1);
        assert_eq!(turns[1].requests[0].history, turns[0].requests[1].history);
        assert_eq!(turns[0].executed.len(), 1);
        assert!(turns[1].executed.is_empty());
    }

    #[test]
    fn without_memory_a_turn_starts_from_nothing() {
        let c = case(
            &RECALL
                .replace("NAME", "search_web")
                .replace("\"memory\":true,", ""),
        );
        let turns = projection(&c, (1, 71, 0)).turns.unwrap();
        assert!(turns[1].requests[0].history.is_empty());
    }

    #[test]
    fn an_invented_name_is_recalled_as_unknown_tool_from_1_9_0() {
        let c = case(&RECALL.replace("NAME", "search.web"));
        let later = projection(&c, (1, 9, 0)).turns.unwrap();
        assert_eq!(
            later[1].requests[0].history[0],
            HistoryItem::Call("unknown_tool".into())
        );
        let earlier = projection(&c, (1, 8, 0)).turns.unwrap();
        assert_eq!(
            earlier[1].requests[0].history[0],
            HistoryItem::Call("search.web".into())
        );
    }

    #[test]
    fn a_span_is_named_by_the_key_and_carries_it_as_its_entity_from_1_1_0() {
        let c = case(
            r#"{"about":"a","tools":["search.web"],"tracing":true,
                "replies":[{"toolCalls":[{"id":"call_1","name":"search_web","arguments":{"city":"P"}}]},{"text":"d"}]}"#,
        );
        let spans = |v| projection(&c, v).seen.unwrap().spans.unwrap();
        let on = spans((1, 1, 0));
        assert_eq!(on.len(), 1);
        assert_eq!(on[0].name, Json::str("tool: 'search.web'"));
        assert_eq!(on[0].entity_id, Json::str("search.web"));
        assert_eq!(spans((1, 0, 4))[0].entity_id, Json::str("stream-text-step"));
    }

    #[test]
    fn a_call_with_bad_arguments_ends_a_span_from_1_17_0() {
        let c = case(
            r#"{"about":"a","tools":["search.web"],"tracing":true,
                "replies":[{"toolCalls":[{"id":"call_1","name":"search_web","arguments":{"town":1}}]},{"text":"d"}]}"#,
        );
        let spans = |v| projection(&c, v).seen.unwrap().spans.unwrap();
        assert!(spans((1, 16, 0)).is_empty());
        assert_eq!(spans((1, 17, 0)).len(), 1);
    }

    #[test]
    fn a_traced_stream_may_drop_chunks_before_1_6_0() {
        let c = case(
            r#"{"about":"a","tools":["search.web"],"tracing":true,"call":{"method":"stream"}}"#,
        );
        let at = |v: (u32, u32, u32)| predict(&c, MastraVersion::new(v.0, v.1, v.2));
        assert!(matches!(at((1, 5, 0)), Prediction::Dropping(_)));
        assert!(matches!(at((1, 6, 0)), Prediction::Projection(_)));
        let untraced = case(r#"{"about":"a","tools":["search.web"],"call":{"method":"stream"}}"#);
        let plain = predict(&untraced, MastraVersion::new(1, 5, 0));
        assert!(matches!(plain, Prediction::Projection(_)));
    }
}
