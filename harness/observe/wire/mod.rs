//! `WireReply`: a scripted `Reply` written in one route's provider format,
//! as the capture listener sends it back (`docs/case-format.md`, REPLY).
//!
//! In: the case's `Route`, one `Reply`, and whether the request asked to
//! stream (`wants_stream`). Out: status, content type and body text. Every
//! route can answer text, tool calls with their ids, and errors, as one JSON
//! document or as server-sent events, so that `replies` and history mean the
//! same on every route. Pure: the listener turns a `WireReply` into HTTP.
//!
//! One file per provider API: `chat` (OpenAI-compatible, Mistral, Groq),
//! `responses` (OpenAI Responses), `messages` (Anthropic), `gemini` (Google).

mod chat;
mod gemini;
mod messages;
mod responses;

use crate::case::{Reply, ToolCallReply};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::route::{Route, Wire};

/// What the listener sends for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireReply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
}

pub const JSON: &str = "application/json";
pub const EVENT_STREAM: &str = "text/event-stream";

/// Whether a request on `route` asked for server-sent events: `"stream":
/// true` in the body, except on Gemini, which says it in the path
/// (`:streamGenerateContent?alt=sse`) and not in the body.
pub fn wants_stream(route: Route, path: &str, body: Option<&Json>) -> bool {
    match route.wire() {
        Wire::GenerateContent => path.contains(":streamGenerateContent"),
        _ => body.and_then(|b| b.get("stream")).and_then(Json::as_bool) == Some(true),
    }
}

/// The answer to one scripted reply on `route`.
pub fn answer(route: Route, reply: &Reply, stream: bool) -> WireReply {
    match reply {
        // An error is an HTTP error with the provider's own error document,
        // streamed or not (each provider reports errors before a stream).
        Reply::Error { status, body } => WireReply {
            status: *status,
            content_type: JSON,
            body: body
                .clone()
                .unwrap_or_else(|| route.error_document())
                .to_compact(),
        },
        Reply::Text(text) => {
            let turn = Turn::Text(text);
            written(route, &turn, stream)
        }
        Reply::ToolCalls(calls) => written(route, &Turn::Calls(calls), stream),
    }
}

/// What the model says in one scripted turn.
pub(crate) enum Turn<'a> {
    Text(&'a JsString),
    Calls(&'a [ToolCallReply]),
}

fn written(route: Route, turn: &Turn, stream: bool) -> WireReply {
    let (content_type, body) = match (route.wire(), stream) {
        (Wire::ChatCompletions, false) => (JSON, chat::completion(turn).to_compact()),
        (Wire::ChatCompletions, true) => (EVENT_STREAM, chat::events(turn, route)),
        (Wire::Responses, false) => (JSON, responses::response(turn).to_compact()),
        (Wire::Responses, true) => (EVENT_STREAM, responses::events(turn)),
        (Wire::Messages, false) => (JSON, messages::message(turn).to_compact()),
        (Wire::Messages, true) => (EVENT_STREAM, messages::events(turn)),
        (Wire::GenerateContent, false) => (JSON, gemini::response(turn).to_compact()),
        (Wire::GenerateContent, true) => (EVENT_STREAM, gemini::events(turn)),
    };
    WireReply {
        status: 200,
        content_type,
        body,
    }
}

/// `data: JSON` events, one per value.
pub(crate) fn data_events(values: impl IntoIterator<Item = Json>) -> String {
    let mut text = String::new();
    for v in values {
        text.push_str("data: ");
        text.push_str(&v.to_compact());
        text.push_str("\n\n");
    }
    text
}

/// A tool call's arguments as the JSON text the APIs carry them in.
pub(crate) fn arguments_text(c: &ToolCallReply) -> Json {
    Json::String(JsString::from(c.arguments.to_compact()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call() -> ToolCallReply {
        ToolCallReply {
            id: JsString::from("call_1"),
            name: JsString::from("search_web"),
            arguments: Json::object([("city", Json::str("Paris"))]),
        }
    }

    #[test]
    fn stream_is_asked_in_the_body_except_on_gemini() {
        let streaming = Json::object([("stream", Json::Bool(true))]);
        assert!(wants_stream(
            Route::Anthropic,
            "/v1/messages",
            Some(&streaming)
        ));
        assert!(!wants_stream(Route::Groq, "/v1/chat/completions", None));
        let path = "/v1/models/gemini-2.5-flash:streamGenerateContent";
        assert!(wants_stream(Route::Google, path, None));
        assert!(!wants_stream(
            Route::Google,
            "/v1/models/g:generateContent",
            Some(&streaming)
        ));
    }

    #[test]
    fn every_route_answers_every_reply_in_json_and_events() {
        let replies = [
            Reply::Text(JsString::from("done")),
            Reply::ToolCalls(vec![call()]),
            Reply::Error {
                status: 429,
                body: None,
            },
        ];
        for route in Route::ALL {
            for reply in &replies {
                for stream in [false, true] {
                    let w = answer(route, reply, stream);
                    if matches!(reply, Reply::Error { .. }) {
                        assert_eq!((w.status, w.content_type), (429, JSON));
                        assert!(Json::parse(&w.body).is_ok());
                        continue;
                    }
                    assert_eq!(w.status, 200);
                    if stream {
                        assert_eq!(w.content_type, EVENT_STREAM, "{route}");
                        for line in w.body.lines().filter(|l| l.starts_with("data: ")) {
                            let data = &line[6..];
                            assert!(
                                data == "[DONE]" || Json::parse(data).is_ok(),
                                "{route}: {line}"
                            );
                        }
                    } else {
                        assert!(Json::parse(&w.body).is_ok(), "{route}");
                    }
                    if matches!(reply, Reply::ToolCalls(_)) {
                        assert!(w.body.contains("search_web"), "{route}: {}", w.body);
                        // Gemini has no call ids: the AI SDK makes its own.
                        assert_eq!(w.body.contains("call_1"), route != Route::Google, "{route}");
                    }
                }
            }
        }
    }
}
