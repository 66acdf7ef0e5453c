//! Anthropic Messages replies: a `message` with `tool_use` or `text`
//! content blocks, or the `message_start` ... `message_stop` events (each
//! with its `event:` line, as Anthropic sends them).

use super::Turn;
use crate::js::json::Json;

fn blocks(turn: &Turn) -> Vec<Json> {
    match turn {
        Turn::Calls(calls) => calls
            .iter()
            .map(|c| {
                Json::object([
                    ("type", Json::str("tool_use")),
                    ("id", Json::String(c.id.clone())),
                    ("name", Json::String(c.name.clone())),
                    ("input", c.arguments.clone()),
                ])
            })
            .collect(),
        Turn::Text(text) => vec![Json::object([
            ("type", Json::str("text")),
            ("text", Json::String((*text).clone())),
        ])],
    }
}

fn stop_reason(turn: &Turn) -> &'static str {
    match turn {
        Turn::Calls(_) => "tool_use",
        Turn::Text(_) => "end_turn",
    }
}

fn envelope(content: Vec<Json>, stop: Option<&str>) -> Json {
    Json::object([
        ("id", Json::str("msg_conform")),
        ("type", Json::str("message")),
        ("role", Json::str("assistant")),
        ("model", Json::str("claude-sonnet-4-5")),
        ("content", Json::Array(content)),
        ("stop_reason", stop.map_or(Json::Null, Json::str)),
        ("stop_sequence", Json::Null),
        (
            "usage",
            Json::object([
                ("input_tokens", Json::int(1)),
                ("output_tokens", Json::int(1)),
            ]),
        ),
    ])
}

pub fn message(turn: &Turn) -> Json {
    envelope(blocks(turn), Some(stop_reason(turn)))
}

/// Per block: `content_block_start` (a tool_use with empty input, or empty
/// text), one delta (`input_json_delta` with the whole arguments, or
/// `text_delta`), `content_block_stop`.
pub fn events(turn: &Turn) -> String {
    let mut events = vec![Json::object([
        ("type", Json::str("message_start")),
        ("message", envelope(Vec::new(), None)),
    ])];
    for (i, block) in blocks(turn).into_iter().enumerate() {
        let index = Json::int(i as i64);
        let (start, delta) = match turn {
            Turn::Calls(calls) => (
                Json::object([
                    ("type", Json::str("tool_use")),
                    ("id", Json::String(calls[i].id.clone())),
                    ("name", Json::String(calls[i].name.clone())),
                    ("input", Json::object(Vec::<(&str, Json)>::new())),
                ]),
                Json::object([
                    ("type", Json::str("input_json_delta")),
                    ("partial_json", super::arguments_text(&calls[i])),
                ]),
            ),
            Turn::Text(_) => (
                Json::object([("type", Json::str("text")), ("text", Json::str(""))]),
                Json::object([
                    ("type", Json::str("text_delta")),
                    ("text", block.get("text").cloned().unwrap_or(Json::Null)),
                ]),
            ),
        };
        events.push(Json::object([
            ("type", Json::str("content_block_start")),
            ("index", index.clone()),
            ("content_block", start),
        ]));
        events.push(Json::object([
            ("type", Json::str("content_block_delta")),
            ("index", index.clone()),
            ("delta", delta),
        ]));
        events.push(Json::object([
            ("type", Json::str("content_block_stop")),
            ("index", index),
        ]));
    }
    events.push(Json::object([
        ("type", Json::str("message_delta")),
        (
            "delta",
            Json::object([
                ("stop_reason", Json::str(stop_reason(turn))),
                ("stop_sequence", Json::Null),
            ]),
        ),
        ("usage", Json::object([("output_tokens", Json::int(1))])),
    ]));
    events.push(Json::object([("type", Json::str("message_stop"))]));
    let mut text = String::new();
    for e in events {
        let kind = e
            .get("type")
            .and_then(Json::as_str)
            .map(|s| s.to_lossy())
            .unwrap_or_default();
        text.push_str("event: ");
        text.push_str(&kind);
        text.push_str("\ndata: ");
        text.push_str(&e.to_compact());
        text.push_str("\n\n");
    }
    text
}
