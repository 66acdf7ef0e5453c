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
use super::steps::{Left, SpanCall};
use crate::case::{Case, Reply};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::projection::{HistoryItem, Projection, SpanView, Turn};
use crate::route::Route;

/// Where the calls of a case stand between two turns: what the replies
/// have left, what the memory recalls, the turns so far.
#[derive(Clone)]
struct Between {
    left: Left,
    recalled: Vec<HistoryItem>,
    /// What the case's `toolSearch` processor has loaded so far: its store
    /// outlives a call, memory or not.
    loaded: Vec<JsString>,
    turns: Vec<Turn>,
    mutated: Vec<String>,
    /// The id and name of each call the parent's replies made so far: what
    /// a `toolCallFilter` compares for a recalled call the Responses API
    /// sends back by reference, with no name.
    called: Vec<(JsString, JsString)>,
}

/// The projection of a case with `turns`, `memory: true` or `tracing`:
/// each way its calls can go, distinct. Where a turn's requests race
/// (concurrent sub-agents sharing `replies`), each way it went is followed
/// into the later turns, which take the replies and recall the history it
/// left.
pub(super) fn project(case: &Case, rel: &Release) -> Result<Vec<Projection>, String> {
    let start = Between {
        left: (
            case.replies.clone(),
            case.sub_agent_replies.clone().unwrap_or_default(),
        ),
        recalled: Vec::new(),
        loaded: Vec::new(),
        turns: Vec::new(),
        mutated: Vec::new(),
        called: Vec::new(),
    };
    let mut ways = vec![start];
    let calls = case.calls();
    for (i, call) in calls.iter().enumerate() {
        let mut next = Vec::new();
        let later = i + 1 < calls.len();
        for at in ways {
            for way in turn(case, rel, call, &at, later)? {
                next.push(way);
            }
            if next.len() > MAX_WAYS {
                return Err(format!(
                    "concurrent requests racing in more than {MAX_WAYS} ways across turns"
                ));
            }
        }
        ways = next;
    }
    let mut out: Vec<Projection> = Vec::new();
    for way in ways {
        let p = projection_of(case, way);
        if !out.contains(&p) {
            out.push(p);
        }
    }
    Ok(out)
}

/// How many ways a case's turns may go before the model gives up, as the
/// one-call loop does (`steps::MAX_OUTCOMES`).
const MAX_WAYS: usize = 64;

/// Each way the call `call` goes from `at`; `later`, whether a turn
/// follows it.
fn turn(
    case: &Case,
    rel: &Release,
    call: &crate::case::Call,
    at: &Between,
    later: bool,
) -> Result<Vec<Between>, String> {
    let memory = case.sources.memory.is_some();
    // What a memory stores of a turn approval held or resumed differs from
    // the loop's own: a turn suspended at a held call, in a case without
    // `approvals`, is recalled by none of its tool messages (fuzz seed 1,
    // case 123, on 1.0.4, 1.67.0 and 1.71.0;
    // `cases/memory/recall-of-a-turn-approval-held-nothing-in-*` on 1.0.4,
    // where a policy function holds every call); so is one left suspended
    // beside `approvals` that answer none of its held step's calls (whose
    // agent is on a `Mastra` with its storage: fuzz seed 1 case 577 on 1.0.4;
    // `cases/memory/recall-of-a-turn-left-held-beside-approvals-*` on
    // 1.0.4, 1.67.0 and 1.71.0, every route). One an answer resumed is
    // recalled as its last request carried it (`Carried`). A turn where
    // approval held no call is stored as the loop's own.
    let can_hold = {
        let turn = case.turn(call);
        turn.drives_approval() && !super::approval::nothing_waits(&turn)
    };
    // Whether an answer resumed the turn: one names a call it held.
    let resumes = |p: &Projection| {
        let mut pending = p.seen.iter().flat_map(|s| s.pending.iter());
        let answers = case.approvals.iter().flatten();
        pending.any(|(id, _)| answers.clone().any(|(a, _)| Json::String(a.clone()) == *id))
    };
    let held = |p: &Projection| {
        // Where a held call's suspension throws, nothing is pending.
        rel.approval_suspend_throws || p.seen.as_ref().is_none_or(|s| !s.pending.is_empty())
    };
    // `one` has the replies left, a suffix of the case's.
    let mut one = case.clone();
    one.turns = None;
    one.call = call.clone();
    one.replies = or_default(at.left.0.clone());
    if case.sub_agent_replies.is_some() {
        let own = at
            .left
            .1
            .iter()
            .map(|(k, r)| (k.clone(), or_default(r.clone())));
        one.sub_agent_replies = Some(own.collect());
    }
    let mut ways = Vec::new();
    for outcome in super::run_from(&one, rel, at.recalled.clone(), &at.loaded)? {
        let held = memory && later && can_hold && held(&outcome.projection);
        // Where the suspension throws (`APPROVAL_SUSPEND_THROWS`) nothing
        // waits: the turn goes on, and the thread stores each held call
        // with the error it failed with, as the turn's own later requests
        // carry it (1.12.0, every route:
        // `cases/memory/recall-of-a-turn-approval-held-nothing-in-*`).
        let thrown = held && rel.approval_suspend_throws && case.approvals.is_none();
        // The turn took a prefix of the replies it was left.
        let taken = at.left.0.len().saturating_sub(outcome.left.0.len());
        let carried =
            if held && !thrown && (rel.approval_suspend_throws || resumes(&outcome.projection)) {
                let carried = Carried::of(&at.left.0, taken, &outcome.projection);
                Some(carried.ok_or("a memory's later turn after a turn approval can hold")?)
            } else {
                None
            };
        let mut way = at.clone();
        way.called.extend(at.left.0[..taken].iter().flat_map(|r| {
            match r {
                Reply::ToolCalls(calls) => calls
                    .iter()
                    .map(|c| (c.id.clone(), c.name.clone()))
                    .collect(),
                _ => Vec::new(),
            }
        }));
        way.left = outcome.left.clone();
        way.loaded.clone_from(&outcome.loaded);
        // A call that throws stores none of its messages: the thread is
        // written as the run finishes, which one that throws never does
        // (before `NOT_FOUND_IS_A_RESULT`, a call of a name that reaches
        // no tool throws, and the next turn recalls only the turns before:
        // fuzz seed 1, cases 375 and 1898, on 1.0.4 to 1.3.0, streamed or
        // not; `cases/memory/recall-after-a-turn-that-threw-*`). The error
        // a failed call brings on `TOOL_ERROR_ENDS_MEMORY_CALLS` comes once
        // the thread is written: the next turn recalls the call's tool
        // messages (measured on 1.57.0, every route but google, both
        // methods: `cases/memory/recall-of-a-step-*-stops-*`,
        // `recall-of-an-invented-name-is-sanitised.json`,
        // `recall-hides-a-working-memory-call.json`).
        let threw = outcome.projection.error.is_some() && !outcome.error_after_writing;
        let lost = threw || (rel.failed_call_not_stored && outcome.api_error);
        let (lost, answered) = carried.as_ref().map_or((lost, outcome.answered), |c| {
            (rel.failed_call_not_stored && !c.answered, c.answered)
        });
        // What the thread holds matters to a later turn alone.
        if memory && later && !lost && (!held || thrown || carried.is_some()) {
            // The thread holds every tool message of the call (where an
            // API error ended it on `FAILED_CALL_NOT_STORED`, none:
            // `recalled` stays); the next
            // call's prompt replays them, names through the same sanitiser
            // as the call's own history (`HISTORY_NAMES_SANITISED`: an
            // invented name comes back `unknown_tool`).
            let stored = if thrown {
                as_carried(&outcome.stored, &outcome.projection)
            } else {
                outcome.stored.clone()
            };
            way.recalled = match carried {
                Some(c) => c.history,
                None => stored.iter().map(|item| recall(rel, item)).collect(),
            };
            if let Some(exclude) = &case.tool_call_filter {
                // A sub-agent handed the parent's messages
                // (`SUB_AGENT_PARENT_HISTORY`) is handed them filtered, as
                // the parent's request carries them (1.9.0,
                // `cases/tool-call-filter/beside-a-sub-agent-*`); elsewhere
                // it is handed none.
                way.recalled =
                    super::tool_call_filter::recalled(rel, &way.recalled, exclude, &way.called)?;
            }
            // On the Responses API the call's answer is recalled too, by
            // reference to its stored output item (1.0.4, 1.67.0 and
            // 1.71.0 alike; `cases/memory/recall-of-a-rewritten-name.json`
            // on `openai`); elsewhere a text message is no part of `history`.
            if answered && case.route == Route::OpenAi {
                way.recalled
                    .push(HistoryItem::Ref(JsString::from(ANSWER_ITEM_ID)));
            }
        }
        let mut turn = Turn::of(&outcome.projection);
        if case.tracing {
            let seen = turn.seen.get_or_insert_with(Default::default);
            seen.spans = Some(spans(rel, &outcome.spans));
        }
        way.mutated.clone_from(&outcome.projection.mutated);
        way.turns.push(turn);
        ways.push(way);
    }
    if ways.is_empty() {
        return Err("the loop gave no projection".into());
    }
    Ok(ways)
}

/// What a memory recalls of a turn an answer resumed (or, where the
/// suspension throws, one beside `approvals`): the history the turn's last
/// request carried, as sent (a declined call's result as the answer wrote
/// it; a call the resumed run dropped, dropped), and on the Responses API
/// the answer's reference after it where a text answered that request. An
/// error answering it (the listener's default) stores the same, but on
/// `FAILED_CALL_NOT_STORED`, where it stores nothing. Measured on 1.12.0,
/// 1.40.0, 1.57.0, 1.60.0, 1.67.0 and 1.71.0, every route, both methods, a
/// held call approved and declined, the turn ended by a text or by the
/// default error (`cases/memory/recall-of-a-turn-an-answer-resumed-*`;
/// fuzz seed 1 case 577 without its `toolCallFilter`). Beside
/// `toolCallFilter` the thread is recalled through the filter as any other
/// (`tool_call_filter::recalled`): the last request's history, with every
/// excluded call and its result taken out, the resumed run's own too
/// (measured on 1.12.0, 1.40.0, 1.59.0, 1.60.0 and 1.71.0, every route,
/// both methods, `a` let through and `b` held, approved or declined, each
/// excluded, with and without a later step: `cases/memory/recall-of-a-turn-an-answer-resumed-beside-tool-call-filter-*`).
/// Not measured, so not modelled: a turn ended by calls, and one whose
/// replies an error or a sub-agent took out of step with its requests. The
/// `item_reference`s of 1.12.0 and 1.40.0 are recalled as sent (the same
/// cases on `openai`).
struct Carried {
    history: Vec<HistoryItem>,
    /// A text answered the turn's last request.
    answered: bool,
}

impl Carried {
    /// `left`: the replies the turn started with, of which it took `taken`.
    fn of(left: &[Reply], taken: usize, p: &Projection) -> Option<Carried> {
        let last = p.requests.last()?;
        let n = p.requests.len();
        // Each request took one reply, the listener's default once they
        // ran out; no earlier one was an error.
        let in_step = taken == n || (taken == left.len() && n > taken);
        let errors = left[..taken.min(n - 1)]
            .iter()
            .any(|r| matches!(r, Reply::Error { .. }));
        if !in_step || errors {
            return None;
        }
        let answered = match left
            .get(n - 1)
            .cloned()
            .unwrap_or_else(Reply::default_reply)
        {
            Reply::Text(_) => true,
            Reply::Error { status: 400, .. } => false,
            _ => return None,
        };
        Some(Carried {
            history: last.history.clone(),
            answered,
        })
    }
}

/// `stored` with each tool result as the turn's own requests last carried
/// it (a held call's failed suspension in place of its run's output).
fn as_carried(stored: &[HistoryItem], p: &Projection) -> Vec<HistoryItem> {
    let carried = |id: &JsString| {
        p.requests.iter().rev().find_map(|r| {
            r.history.iter().find_map(|item| match item {
                HistoryItem::Result { id: of, content } if of == id => Some(content.clone()),
                _ => None,
            })
        })
    };
    stored
        .iter()
        .map(|item| match item {
            HistoryItem::Result { id, content } => HistoryItem::Result {
                id: id.clone(),
                content: carried(id).unwrap_or_else(|| content.clone()),
            },
            other => other.clone(),
        })
        .collect()
}

/// The projection one way of the case's calls gives: the contract's
/// `turns` with `turns`, the flat projection of its one call without.
fn projection_of(case: &Case, mut way: Between) -> Projection {
    if case.turns.is_none() {
        let turn = way.turns.remove(0);
        return Projection {
            error: turn.error,
            requests: turn.requests,
            executed: turn.executed,
            seen: turn.seen,
            mutated: way.mutated,
            ..Projection::empty()
        };
    }
    Projection {
        turns: Some(way.turns),
        mutated: way.mutated,
        ..Projection::empty()
    }
}

/// A list of replies a later turn takes from: what the earlier turns left
/// (every request, a retry too, took the next reply), and once they ran
/// out the default.
fn or_default(replies: Vec<Reply>) -> Vec<Reply> {
    if replies.is_empty() {
        vec![Reply::default_reply()]
    } else {
        replies
    }
}

/// A stored history item as the next call's prompt carries it.
fn recall(rel: &Release, item: &HistoryItem) -> HistoryItem {
    match item {
        HistoryItem::Call(name) => HistoryItem::Call(super::steps::history_name(rel, name)),
        other => other.clone(),
    }
}

/// The tool spans of a call's runs (a case tool's, a sub-agent's, a
/// workflow's, an MCP tool's, a builtin's), in the order they ended (the
/// order of the calls: each ends when its `execute` or its validation
/// returns, measured on 1.0.4 and 1.67.0). Each is `createChildSpan({ type:
/// "tool_call", name: `tool: '${options.name}'`, entityName: options.name
/// })`, `options.name` the tool's key (1.0.4
/// `dist/chunk-5RBKFP5N.js:158`); its `entityId` is the key from
/// `SPAN_ENTITY_IS_THE_KEY`, before that the parent step span's
/// (`stream-text-step`, on `generate()` too). A call whose arguments were
/// refused ends one from `BAD_ARGUMENTS_END_A_SPAN` only: before, the span
/// was made inside the function that runs after validation. An MCP
/// server's tool has a span type and name of its own from `MCP_TOOL_SPANS`.
fn spans(rel: &Release, calls: &[SpanCall]) -> Vec<SpanView> {
    calls
        .iter()
        .filter(|c| !c.refused || rel.bad_arguments_end_a_span)
        .map(|c| {
            let (kind, mut name) = match &c.mcp_server {
                Some(server) if rel.mcp_tool_spans => {
                    let mut name = JsString::from("mcp_tool: '").concat(&c.key);
                    name.push_str("' on '");
                    name = name.concat(server);
                    ("mcp_tool_call", name)
                }
                _ => ("tool_call", JsString::from("tool: '").concat(&c.key)),
            };
            name.push_str("'");
            let entity_id = if rel.span_entity_is_the_key {
                Json::String(c.key.clone())
            } else {
                Json::str(SPAN_ENTITY_BEFORE_KEY)
            };
            SpanView {
                kind: Json::str(kind),
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
    use crate::model::releases;
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

    /// Two sub-agents sharing `replies` race in the first turn; the
    /// second recalls whichever order they went in (observed as one of
    /// the two on 1.0.4, 1.38.0, 1.57.0, 1.67.0 and 1.71.0, every route).
    #[test]
    fn each_way_a_turn_races_is_followed_into_the_next() {
        let c = case(
            r#"{"about":"a","agents":["a","b"],"memory":true,"turns":[{},{"prompt":"again"}],
                "replies":[{"toolCalls":[{"id":"call_1","name":"agent-a","arguments":{"prompt":"P"}},
                                         {"id":"call_2","name":"agent-b","arguments":{"prompt":"L"}}]},
                           {"text":"one"},{"text":"two"},{"text":"done"},{"text":"ok"}]}"#,
        );
        let Prediction::Races(ways) = predict(&c, MastraVersion::new(1, 71, 0)) else {
            panic!("not a race");
        };
        assert_eq!(ways.len(), 2);
        let recalled = |p: &Projection| p.turns.as_ref().unwrap()[1].requests[0].history.clone();
        assert_ne!(recalled(&ways[0]), recalled(&ways[1]));
    }

    #[test]
    fn a_sub_agents_own_replies_are_taken_across_turns() {
        let c = case(
            r#"{"about":"a","agents":["s"],"turns":[{},{}],
                "replies":[{"toolCalls":[{"id":"call_1","name":"agent-s","arguments":{"prompt":"P"}}]},{"text":"done"},
                           {"toolCalls":[{"id":"call_2","name":"agent-s","arguments":{"prompt":"L"}}]},{"text":"ok"}],
                "subAgentReplies":{"s":[{"text":"sub one"},{"text":"sub two"}]}}"#,
        );
        let turns = projection(&c, (1, 71, 0)).turns.unwrap();
        let result = |t: &Turn| match &t.requests[2].history[1] {
            HistoryItem::Result { content, .. } => content.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(result(&turns[0]), Json::str("sub one"));
        assert_eq!(result(&turns[1]), Json::str("sub two"));
    }

    /// A tool loaded by its id in the first turn: the second turn's
    /// processor still holds it, and from `TOOL_SEARCH_LOADED_LISTED` the
    /// agent lists it among its own tools too, rewritten.
    #[test]
    fn a_later_turn_starts_with_what_the_processor_loaded() {
        let c = case(
            r#"{"about":"a","tools":["weather"],"turns":[{},{}],
                "toolSearch":{"tools":[{"key":"web","id":"search.web","description":"d"}]},
                "replies":[{"toolCalls":[{"id":"call_1","name":"load_tool","arguments":{"toolName":"search.web"}}]},
                           {"text":"loaded"},
                           {"toolCalls":[{"id":"call_2","name":"search_web","arguments":{"city":"Paris"}}]},
                           {"text":"done"}]}"#,
        );
        let offered = |v| {
            let turns = projection(&c, v).turns.unwrap();
            let names = turns[1].requests[0].tools.clone().unwrap();
            let names: Vec<String> = names.iter().map(JsString::to_lossy).collect();
            (names, turns[1].executed.len())
        };
        let first = releases::TOOL_SEARCH_LOADED_LISTED.first;
        let on = offered((first.major, first.minor, first.patch));
        assert_eq!(
            on,
            (
                vec![
                    "search_tools".into(),
                    "load_tool".into(),
                    "weather".into(),
                    "search_web".into(),
                    "search.web".into()
                ],
                1
            )
        );
        let before = offered((1, 33, 1));
        assert_eq!(
            before,
            (
                vec![
                    "search_tools".into(),
                    "load_tool".into(),
                    "weather".into(),
                    "search.web".into()
                ],
                0
            )
        );
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
