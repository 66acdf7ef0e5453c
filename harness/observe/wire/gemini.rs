//! Gemini replies: a `GenerateContentResponse` with `functionCall` or
//! `text` parts; streamed (`?alt=sse`) as one `data:` event holding the same
//! response. Gemini's function calls carry no id: the AI SDK makes one up,
//! so a reply's call ids do not reach the wire on this route.

use super::{data_events, Turn};
use crate::js::json::Json;

pub fn response(turn: &Turn) -> Json {
    let parts: Vec<Json> = match turn {
        Turn::Calls(calls) => calls
            .iter()
            .map(|c| {
                Json::object([(
                    "functionCall",
                    Json::object([
                        ("name", Json::String(c.name.clone())),
                        ("args", c.arguments.clone()),
                    ]),
                )])
            })
            .collect(),
        Turn::Text(text) => vec![Json::object([("text", Json::String((*text).clone()))])],
    };
    Json::object([
        (
            "candidates",
            Json::Array(vec![Json::object([
                (
                    "content",
                    Json::object([("role", Json::str("model")), ("parts", Json::Array(parts))]),
                ),
                ("finishReason", Json::str("STOP")),
                ("index", Json::int(0)),
            ])]),
        ),
        (
            "usageMetadata",
            Json::object([
                ("promptTokenCount", Json::int(1)),
                ("candidatesTokenCount", Json::int(1)),
                ("totalTokenCount", Json::int(2)),
            ]),
        ),
        ("modelVersion", Json::str("gemini-2.5-flash")),
    ])
}

pub fn events(turn: &Turn) -> String {
    data_events([response(turn)])
}
