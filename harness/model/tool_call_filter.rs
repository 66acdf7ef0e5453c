//! `toolCallFilter`: which calls, with their results, a case's
//! `ToolCallFilter({ exclude })` takes out of a history: out of what a
//! memory recalls for a later call (`recalled`), and, from
//! `TOOL_CALL_FILTER_PER_REQUEST`, out of the requests of a run an approval
//! answer resumed (`resumed`).
//!
//! In: a history (`HistoryItem`s, as a request carries them), the case's
//! list, and the id and name of each call the replies made so far. Out: the
//! history without the excluded calls and results.

use super::releases::{Release, APPROVAL_DECLINED_MESSAGE};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::projection::{HistoryItem, Projection};

/// A memory's recalled history as `ToolCallFilter({ exclude })` lets a
/// later call's requests carry it: each call whose name is excluded goes
/// with its result, the name compared as the history carries it (the wire
/// name the model called; the key and the id exclude nothing). The memory
/// still stores every call, and the list is the case's for every turn, so
/// taking them out here is what each later request carries; the calls of
/// the turn's own run are kept whatever the list (1.71.0
/// `dist/agent-BOxKOk3n.js:16276`, the ids in the prompt before the loop;
/// measured alike on 1.0.4, 1.9.0, 1.40.0 and 1.71.0:
/// `cases/tool-call-filter/`). The k-th call pairs with the k-th result, in
/// both history layouts; a call the Responses API sends back by reference
/// (`route::call_on`) carries no name, so its name is the one the replies
/// called its result's id by. A declined call stays on
/// `DECLINE_KEPT_BY_TOOL_CALL_FILTER`.
pub(super) fn recalled(
    rel: &Release,
    recalled: &[HistoryItem],
    exclude: &[JsString],
    called: &[(JsString, JsString)],
) -> Result<Vec<HistoryItem>, String> {
    let gone: Vec<bool> = pairs(rel, recalled, exclude, called)?
        .into_iter()
        .map(|p| p.excluded && !(rel.decline_kept_by_tool_call_filter && p.declined))
        .collect();
    without(recalled, |k, _| gone[k])
}

/// The requests of a run an approval answer resumed, where the filter runs
/// on each request the loop sends (`TOOL_CALL_FILTER_PER_REQUEST`): the
/// calls the resumed run's first request carries are its history, so each
/// of them whose name is excluded goes, with its result, from that request
/// and every later one of the run; the calls of the run's own later steps
/// stay (1.60.0 `dist/agent-D5C9QXkF.js:14482`, `HISTORY_TOOL_CALL_IDS`
/// taken from the first request the processor sees in a run). `first`: the
/// index of that request. Nothing changes on the releases before, where
/// the filter is an input processor, which a resumed run does not run.
pub(super) fn resumed(
    rel: &Release,
    p: &mut Projection,
    first: usize,
    exclude: &[JsString],
    called: &[(JsString, JsString)],
) -> Result<(), String> {
    if !rel.tool_call_filter_per_request {
        return Ok(());
    }
    let Some(request) = p.requests.get(first) else {
        return Ok(());
    };
    let out_ids: Vec<JsString> = pairs(rel, &request.history, exclude, called)?
        .into_iter()
        .filter(|p| p.excluded)
        .map(|p| p.id)
        .collect();
    // `first` is in range: its request was read above.
    for request in &mut p.requests[first..] {
        request.history = without(&request.history, |_, id| out_ids.contains(id))?;
    }
    Ok(())
}

/// One call of a history and its result.
struct Pair {
    /// The result's id.
    id: JsString,
    /// Whether the call's name is excluded.
    excluded: bool,
    /// Whether its result is a decline's.
    declined: bool,
}

/// The calls of `history` paired with their results: the k-th call with
/// the k-th result.
fn pairs(
    rel: &Release,
    history: &[HistoryItem],
    exclude: &[JsString],
    called: &[(JsString, JsString)],
) -> Result<Vec<Pair>, String> {
    let results: Vec<(&JsString, &Json)> = history
        .iter()
        .filter_map(|item| match item {
            HistoryItem::Result { id, content } => Some((id, content)),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for item in history {
        let name = match item {
            HistoryItem::Call(name) => name.clone(),
            item if is_call_ref(item) => {
                let (id, _) = results.get(out.len()).ok_or_else(unpaired)?;
                let mut names = called.iter().filter(|(of, _)| of == *id).map(|(_, n)| n);
                let name = names
                    .next()
                    .ok_or("toolCallFilter over a recalled call no reply made")?;
                if names.any(|n| n != name) {
                    return Err("toolCallFilter over a recalled call id two names share".into());
                }
                super::steps::history_name(rel, name)
            }
            _ => continue,
        };
        let (id, content) = results.get(out.len()).ok_or_else(unpaired)?;
        out.push(Pair {
            id: (*id).clone(),
            excluded: exclude.contains(&name),
            declined: **content == Json::str(APPROVAL_DECLINED_MESSAGE),
        });
    }
    if results.len() != out.len() {
        return Err(unpaired().into());
    }
    Ok(out)
}

/// `history` without each call, and its result, that `gone` picks by its
/// place among the pairs and its result's id (the k-th call paired with
/// the k-th result).
fn without(
    history: &[HistoryItem],
    gone: impl Fn(usize, &JsString) -> bool,
) -> Result<Vec<HistoryItem>, String> {
    let result_ids: Vec<&JsString> = history
        .iter()
        .filter_map(|item| match item {
            HistoryItem::Result { id, .. } => Some(id),
            _ => None,
        })
        .collect();
    let (mut calls, mut results) = (0, 0);
    let mut out = Vec::new();
    for item in history {
        let out_of = match item {
            HistoryItem::Result { id, .. } => {
                results += 1;
                gone(results - 1, id)
            }
            item if matches!(item, HistoryItem::Call(_)) || is_call_ref(item) => {
                calls += 1;
                gone(calls - 1, result_ids.get(calls - 1).ok_or_else(unpaired)?)
            }
            _ => false,
        };
        if !out_of {
            out.push(item.clone());
        }
    }
    Ok(out)
}

/// A call the Responses API sends back by reference to its output item
/// (`fc_N`), not an answer's (`msg_N`).
fn is_call_ref(item: &HistoryItem) -> bool {
    matches!(item, HistoryItem::Ref(id) if id.units().starts_with(JsString::from("fc_").units()))
}

fn unpaired() -> &'static str {
    "toolCallFilter over a history whose calls and results do not pair"
}

#[cfg(test)]
mod tests {
    use crate::case::Case;
    use crate::model::{predict, Prediction};
    use crate::projection::{HistoryItem, Projection};
    use crate::version::spec::MastraVersion;

    /// `a` let through and `b` held, answered with `ANSWER`, a later step
    /// calling `a`, `b` excluded; `TURNS` the calls.
    const HELD: &str = r#"{"about":"a","tools":["a","b"],"toolCallFilter":{"exclude":["b"]},
        "memory":true,TURNS,
        "replies":[{"toolCalls":[{"id":"call_1","name":"a","arguments":{"city":"Paris"}},
                                 {"id":"call_2","name":"b","arguments":{"city":"Lyon"}}]},
                   {"toolCalls":[{"id":"call_3","name":"a","arguments":{"city":"Rome"}}]},
                   {"text":"done"},{"text":"again"}],
        "approvals":{"call_2":"ANSWER"}}"#;

    fn projection(answer: &str, turns: &str, v: (u32, u32, u32)) -> Projection {
        let text = HELD.replace("ANSWER", answer).replace("TURNS", turns);
        let case = Case::parse(std::path::Path::new("cases/x.json"), &text).unwrap();
        match predict(&case, MastraVersion::new(v.0, v.1, v.2)) {
            Prediction::Projection(p) => p,
            other => panic!("{other:?}"),
        }
    }

    /// The names of a history's calls and the ids of its results.
    fn shown(history: &[HistoryItem]) -> Vec<String> {
        history
            .iter()
            .map(|item| match item {
                HistoryItem::Call(name) => name.to_lossy(),
                HistoryItem::Result { id, .. } => id.to_lossy(),
                HistoryItem::Ref(id) => id.to_lossy(),
            })
            .collect()
    }

    const ONE_CALL: &str = r#""call":{"requireToolApproval":{"names":["b"]}}"#;
    const TWO_TURNS: &str =
        r#""turns":[{"requireToolApproval":{"names":["b"]}},{"prompt":"again?"}]"#;

    #[test]
    fn from_1_60_a_resumed_run_leaves_out_the_held_steps_excluded_calls() {
        let requests = |v| projection("decline", ONE_CALL, v).requests;
        let histories = |v| {
            requests(v)
                .iter()
                .map(|r| shown(&r.history))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            histories((1, 71, 0))[1..],
            [vec!["a", "call_1"], vec!["a", "call_1", "a", "call_3"]]
        );
        assert_eq!(
            histories((1, 59, 0))[1],
            ["a", "b", "call_1", "call_2"],
            "before, the resumed run is not filtered"
        );
    }

    #[test]
    fn a_turn_an_answer_resumed_is_recalled_through_the_filter_but_a_decline_from_1_49_to_1_59() {
        let recalled = |answer, v| {
            let p = projection(answer, TWO_TURNS, v);
            shown(&p.turns.unwrap()[1].requests[0].history)
        };
        let without_b = ["a", "call_1", "a", "call_3"];
        assert_eq!(recalled("approve", (1, 59, 0)), without_b);
        assert_eq!(recalled("decline", (1, 71, 0)), without_b);
        assert_eq!(
            recalled("decline", (1, 59, 0)),
            ["a", "b", "call_1", "call_2", "a", "call_3"]
        );
    }
}
