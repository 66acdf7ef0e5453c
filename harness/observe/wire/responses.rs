//! OpenAI Responses replies: a `response` object whose `output` holds
//! `function_call` items or one `message`, or `response.*` events.
//!
//! Item ids are `fc_N` / `msg_0`, predictable on purpose: with the
//! Responses API's default `store`, Mastra 1.0.4 sends earlier calls back
//! as `{ "type": "item_reference", "id": "fc_0" }` rather than by name.

use super::{arguments_text, data_events, Turn};
use crate::js::json::Json;

fn items(turn: &Turn) -> Vec<Json> {
    match turn {
        Turn::Calls(calls) => calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                Json::object([
                    ("type", Json::str("function_call")),
                    ("id", Json::str(&format!("fc_{i}"))),
                    ("call_id", Json::String(c.id.clone())),
                    ("name", Json::String(c.name.clone())),
                    ("arguments", arguments_text(c)),
                    ("status", Json::str("completed")),
                ])
            })
            .collect(),
        Turn::Text(text) => vec![Json::object([
            ("type", Json::str("message")),
            ("id", Json::str("msg_0")),
            ("role", Json::str("assistant")),
            ("status", Json::str("completed")),
            (
                "content",
                Json::Array(vec![Json::object([
                    ("type", Json::str("output_text")),
                    ("text", Json::String((*text).clone())),
                    ("annotations", Json::Array(Vec::new())),
                ])]),
            ),
        ])],
    }
}

fn envelope(status: &str, output: Vec<Json>) -> Json {
    Json::object([
        ("id", Json::str("resp_conform")),
        ("object", Json::str("response")),
        ("created_at", Json::int(0)),
        ("status", Json::str(status)),
        ("model", Json::str("gpt-4o-mini")),
        ("output", Json::Array(output)),
        ("incomplete_details", Json::Null),
        (
            "usage",
            Json::object([
                ("input_tokens", Json::int(1)),
                ("output_tokens", Json::int(1)),
                ("total_tokens", Json::int(2)),
            ]),
        ),
    ])
}

pub fn response(turn: &Turn) -> Json {
    envelope("completed", items(turn))
}

/// `response.created`; per item `output_item.added`, its one delta
/// (arguments or text), `output_item.done`; `response.completed`.
pub fn events(turn: &Turn) -> String {
    let all = items(turn);
    let mut events = vec![vec![
        ("type", Json::str("response.created")),
        ("response", envelope("in_progress", Vec::new())),
    ]];
    for (i, item) in all.iter().enumerate() {
        let index = Json::int(i as i64);
        let id = item.get("id").cloned().unwrap_or(Json::Null);
        let (added, delta) = match turn {
            Turn::Calls(calls) => (
                with(
                    item,
                    &[
                        ("arguments", Json::str("")),
                        ("status", Json::str("in_progress")),
                    ],
                ),
                vec![
                    ("type", Json::str("response.function_call_arguments.delta")),
                    ("item_id", id),
                    ("output_index", index.clone()),
                    ("delta", arguments_text(&calls[i])),
                ],
            ),
            Turn::Text(text) => (
                with(
                    item,
                    &[
                        ("content", Json::Array(Vec::new())),
                        ("status", Json::str("in_progress")),
                    ],
                ),
                vec![
                    ("type", Json::str("response.output_text.delta")),
                    ("item_id", id),
                    ("output_index", index.clone()),
                    ("content_index", Json::int(0)),
                    ("delta", Json::String((*text).clone())),
                    ("logprobs", Json::Array(Vec::new())),
                ],
            ),
        };
        events.push(vec![
            ("type", Json::str("response.output_item.added")),
            ("output_index", index.clone()),
            ("item", added),
        ]);
        events.push(delta);
        events.push(vec![
            ("type", Json::str("response.output_item.done")),
            ("output_index", index),
            ("item", item.clone()),
        ]);
    }
    events.push(vec![
        ("type", Json::str("response.completed")),
        ("response", response(turn)),
    ]);
    data_events(events.into_iter().enumerate().map(|(n, mut members)| {
        members.push(("sequence_number", Json::int(n as i64)));
        Json::object(members)
    }))
}

/// `item` with some members replaced.
fn with(item: &Json, changes: &[(&str, Json)]) -> Json {
    let members = item.members().unwrap_or_default();
    Json::object(members.into_iter().map(|(k, v)| {
        let v = changes
            .iter()
            .find(|(name, _)| k.to_rust().as_deref() == Some(*name))
            .map_or_else(|| v.clone(), |(_, new)| new.clone());
        (k.clone(), v)
    }))
}
