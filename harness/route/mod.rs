//! `Route`: which wire route a case's model takes to its provider
//! (`docs/case-format.md`, the ROUTE table), and `RouteSet`, the `--route`
//! value (one route, a comma list, or `all`).
//!
//! Pure data. In: a route name from a case file or a flag. Out: a `Route`,
//! which the probe turns into the agent's `model`, the listener into its
//! reply format, the projection into its body reading, and the model into
//! its provider rules.

pub mod body;

use std::fmt;

use crate::js::json::Json;

/// One of the six ways a Mastra user names a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Route {
    /// `{ id, url, apiKey }`: Mastra's OpenAI-compatible Chat Completions
    /// (the default).
    #[default]
    OpenAiCompatible,
    /// `"openai/gpt-4o-mini"`: the OpenAI Responses API.
    OpenAi,
    /// `"anthropic/claude-sonnet-4-5"`: the Anthropic Messages API.
    Anthropic,
    /// `"google/gemini-2.5-flash"`: Gemini `generateContent`.
    Google,
    /// `"mistral/mistral-small-latest"`: Mistral Chat Completions.
    Mistral,
    /// `"groq/llama-3.3-70b-versatile"`: Groq's OpenAI-style Chat Completions.
    Groq,
}

/// How a route's provider API lays out a request and a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// `messages`, `tools[].function`, `tool_choice`, `chat.completion`.
    ChatCompletions,
    /// `input` items, `tools[].name`, `tool_choice`, `response` objects.
    Responses,
    /// `messages` with content blocks, `tools[].name`, `tool_choice`.
    Messages,
    /// `contents` with parts, `tools[].functionDeclarations`, `toolConfig`.
    GenerateContent,
}

impl Route {
    /// Whether the call ids Mastra hands over are the scripted ones. Gemini's
    /// function calls carry no id, and the AI SDK draws one at random: a
    /// pending call's id is then written `null`, and no case's `approvals`
    /// can name it.
    pub fn call_ids_scripted(self) -> bool {
        self.wire() != Wire::GenerateContent
    }

    /// The listener's default error document, in each provider's own
    /// shape, so that its error handler parses it (the message reads
    /// "captured" everywhere). The model quotes it where a release puts
    /// the body in its error's message.
    pub fn error_document(self) -> Json {
        let captured = || Json::str("captured");
        match self {
            Route::OpenAiCompatible | Route::OpenAi | Route::Groq => {
                Json::object([("error", Json::object([("message", captured())]))])
            }
            Route::Anthropic => Json::object([
                ("type", Json::str("error")),
                (
                    "error",
                    Json::object([
                        ("type", Json::str("invalid_request_error")),
                        ("message", captured()),
                    ]),
                ),
            ]),
            Route::Google => Json::object([(
                "error",
                Json::object([
                    ("code", Json::int(400)),
                    ("message", captured()),
                    ("status", Json::str("INVALID_ARGUMENT")),
                ]),
            )]),
            Route::Mistral => Json::object([
                ("object", Json::str("error")),
                ("message", captured()),
                ("type", Json::str("invalid_request_error")),
                ("param", Json::Null),
                ("code", Json::Null),
            ]),
        }
    }

    /// Every route, in the contract's table order.
    pub const ALL: [Route; 6] = [
        Route::OpenAiCompatible,
        Route::OpenAi,
        Route::Anthropic,
        Route::Google,
        Route::Mistral,
        Route::Groq,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Route::OpenAiCompatible => "openai-compatible",
            Route::OpenAi => "openai",
            Route::Anthropic => "anthropic",
            Route::Google => "google",
            Route::Mistral => "mistral",
            Route::Groq => "groq",
        }
    }

    pub fn parse(name: &str) -> Option<Route> {
        Route::ALL.into_iter().find(|r| r.name() == name)
    }

    pub fn wire(self) -> Wire {
        match self {
            Route::OpenAiCompatible | Route::Mistral | Route::Groq => Wire::ChatCompletions,
            Route::OpenAi => Wire::Responses,
            Route::Anthropic => Wire::Messages,
            Route::Google => Wire::GenerateContent,
        }
    }

    /// The provider a body on this route is sent to, as `provider-rejects`
    /// names it.
    pub fn provider(self) -> &'static str {
        match self {
            Route::OpenAiCompatible => "OpenAI-compatible (Chat Completions)",
            Route::OpenAi => "OpenAI (Responses)",
            Route::Anthropic => "Anthropic (Messages)",
            Route::Google => "Google (Gemini)",
            Route::Mistral => "Mistral",
            Route::Groq => "Groq",
        }
    }
}

impl fmt::Display for Route {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The value of `--route`: which routes a command runs cases on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteSet(Vec<Route>);

impl RouteSet {
    pub fn one(route: Route) -> RouteSet {
        RouteSet(vec![route])
    }

    pub fn all() -> RouteSet {
        RouteSet(Route::ALL.to_vec())
    }

    /// `openai`, `openai,google`, `all`. Repeats are folded; order is the
    /// table's. The error names the bad part and the routes there are.
    pub fn parse(text: &str) -> Result<RouteSet, String> {
        if text.trim() == "all" {
            return Ok(RouteSet::all());
        }
        let mut routes = Vec::new();
        for part in text.split(',') {
            let part = part.trim();
            let route = Route::parse(part).ok_or_else(|| {
                format!(
                    "bad route {part:?}: expected one of {}, a comma-separated list of them, or all",
                    Route::ALL.map(Route::name).join(", ")
                )
            })?;
            routes.push(route);
        }
        routes.sort();
        routes.dedup();
        Ok(RouteSet(routes))
    }

    pub fn routes(&self) -> &[Route] {
        &self.0
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.0.iter().map(|r| r.name()).collect()
    }
}

impl std::str::FromStr for RouteSet {
    type Err = String;
    fn from_str(s: &str) -> Result<RouteSet, String> {
        RouteSet::parse(s)
    }
}

impl std::str::FromStr for Route {
    type Err = String;
    fn from_str(s: &str) -> Result<Route, String> {
        Route::parse(s.trim()).ok_or_else(|| {
            format!(
                "bad route {s:?}: expected one of {}",
                Route::ALL.map(Route::name).join(", ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_parses_back_from_its_name() {
        for r in Route::ALL {
            assert_eq!(Route::parse(r.name()), Some(r));
        }
        assert_eq!(Route::parse("OpenAI"), None);
    }

    #[test]
    fn a_route_set_is_one_a_list_or_all() {
        assert_eq!(
            RouteSet::parse("google").unwrap().routes(),
            &[Route::Google]
        );
        assert_eq!(
            RouteSet::parse("groq, openai,groq").unwrap().routes(),
            &[Route::OpenAi, Route::Groq]
        );
        assert_eq!(RouteSet::parse("all").unwrap().routes().len(), 6);
        let e = RouteSet::parse("openai,gemini").unwrap_err();
        assert!(e.contains("\"gemini\"") && e.contains("anthropic"), "{e}");
    }
}
