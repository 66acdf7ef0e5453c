//! Chat Completions replies (OpenAI-compatible, Mistral, Groq): a
//! `chat.completion`, or `chat.completion.chunk` events ending in
//! `data: [DONE]`.

use super::{arguments_text, data_events, Turn};
use crate::js::json::Json;
use crate::route::Route;

const MODEL: &str = "gpt-4o-mini";

fn usage() -> Json {
    Json::object([
        ("prompt_tokens", Json::int(1)),
        ("completion_tokens", Json::int(1)),
        ("total_tokens", Json::int(2)),
    ])
}

fn tool_calls(turn: &Turn, indexed: bool) -> Vec<Json> {
    let Turn::Calls(calls) = turn else {
        return Vec::new();
    };
    calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut members = Vec::new();
            if indexed {
                members.push(("index", Json::int(i as i64)));
            }
            members.extend([
                ("id", Json::String(c.id.clone())),
                ("type", Json::str("function")),
                (
                    "function",
                    Json::object([
                        ("name", Json::String(c.name.clone())),
                        ("arguments", arguments_text(c)),
                    ]),
                ),
            ]);
            Json::object(members)
        })
        .collect()
}

fn finish(turn: &Turn) -> &'static str {
    match turn {
        Turn::Text(_) => "stop",
        Turn::Calls(_) => "tool_calls",
    }
}

pub fn completion(turn: &Turn) -> Json {
    let message = match turn {
        Turn::Text(text) => Json::object([
            ("role", Json::str("assistant")),
            ("content", Json::String((*text).clone())),
        ]),
        Turn::Calls(_) => Json::object([
            ("role", Json::str("assistant")),
            ("content", Json::Null),
            ("tool_calls", Json::Array(tool_calls(turn, false))),
        ]),
    };
    Json::object([
        ("id", Json::str("chatcmpl-conform")),
        ("object", Json::str("chat.completion")),
        ("created", Json::int(0)),
        ("model", Json::str(MODEL)),
        (
            "choices",
            Json::Array(vec![Json::object([
                ("index", Json::int(0)),
                ("message", message),
                ("finish_reason", Json::str(finish(turn))),
            ])]),
        ),
        ("usage", usage()),
    ])
}

fn chunk(choices: Vec<Json>, usage_part: Option<Json>) -> Json {
    let mut members = vec![
        ("id", Json::str("chatcmpl-conform")),
        ("object", Json::str("chat.completion.chunk")),
        ("created", Json::int(0)),
        ("model", Json::str(MODEL)),
        ("choices", Json::Array(choices)),
    ];
    if let Some(u) = usage_part {
        members.push(("usage", u));
    }
    Json::object(members)
}

fn choice(delta: Json, finish: Option<&str>) -> Json {
    Json::object([
        ("index", Json::int(0)),
        ("delta", delta),
        ("finish_reason", finish.map_or(Json::Null, Json::str)),
    ])
}

/// The role delta with the content, or one delta per whole tool call; the
/// finish; the usage. OpenAI sends usage in a last chunk with no choices,
/// but Mistral's stream parser reads `choices[0]` of every chunk (1.67.0:
/// "Cannot read properties of undefined (reading 'delta')"), so on Mistral
/// the usage rides on the finish chunk, as Mistral's API sends it.
pub fn events(turn: &Turn, route: Route) -> String {
    let deltas: Vec<Json> = match turn {
        Turn::Text(text) => vec![Json::object([
            ("role", Json::str("assistant")),
            ("content", Json::String((*text).clone())),
        ])],
        Turn::Calls(_) => tool_calls(turn, true)
            .into_iter()
            .map(|c| {
                Json::object([
                    ("role", Json::str("assistant")),
                    ("tool_calls", Json::Array(vec![c])),
                ])
            })
            .collect(),
    };
    let mut chunks: Vec<Json> = deltas
        .into_iter()
        .map(|d| chunk(vec![choice(d, None)], None))
        .collect();
    let end = choice(Json::object(Vec::<(&str, Json)>::new()), Some(finish(turn)));
    if route == Route::Mistral {
        chunks.push(chunk(vec![end], Some(usage())));
    } else {
        chunks.push(chunk(vec![end], None));
        chunks.push(chunk(Vec::new(), Some(usage())));
    }
    let mut text = data_events(chunks);
    text.push_str("data: [DONE]\n\n");
    text
}
