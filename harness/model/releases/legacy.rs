//! What a 0.x release does differently from the 1.x line that follows
//! from the table's switches alone (`releases::Release`): where a route has
//! no model, how an error is worded, what is retried. What the 0.x agent
//! loop does with them is `steps::legacy_loop`.
//!
//! Every boundary was measured on the corpus (docs/0x.md records the runs
//! and the sweep) and is a line of the table. The 1.x lines keep their
//! meaning on 0.x, where every one of them is before its boundary, with two
//! exceptions the combined rules take (`Release::active_tools_applied`,
//! `Release::formats_tools` absent before 0.13.2).

use super::Release;
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::model::rewrite::FormatError;
use crate::projection::ErrorView;
use crate::route::Route;

/// Why no case applies to `rel`'s version on `route`, where that release
/// cannot name a model on it: the router routes on the v5 loop before
/// `ROUTER_PROVIDERS_SINCE`, and `openai-compatible` from it until
/// `MODEL_URL_SINCE` (`node-probe/legacy.mjs` says the same).
pub fn route_reason(rel: &Release, route: Route) -> Option<String> {
    if !rel.on_0x() {
        return None;
    }
    let version = rel.version;
    let routed = matches!(route, Route::OpenAi | Route::Anthropic | Route::Google);
    if rel.v5_loop && !rel.router_providers && routed {
        return Some(format!(
            "@mastra/core {version} sends a \"{}/...\" model through its OpenAI-compatible client",
            route.name()
        ));
    }
    if rel.router_providers && !rel.model_url && route == Route::OpenAiCompatible {
        return Some(format!(
            "@mastra/core {version} sends a {{ id, url }} model to the provider its id names, not to its url"
        ));
    }
    None
}

/// Why no case applies to `rel`'s version, on the releases without an
/// `Agent`.
pub fn no_agent(rel: &Release) -> Option<String> {
    let version = rel.version;
    (rel.on_0x() && !rel.has_agent)
        .then(|| format!("@mastra/core {version} has no Agent (no @mastra/core/agent module)"))
}

/// The error a `formatTools` failure ends the call in on 0.x. On the v4
/// loop (0.13.2 to 0.19.1) the error itself: a collision is a
/// `MastraError` with its own id `AGENT_TOOL_NAME_COLLISION` and no cause,
/// the empty key a bare `TypeError`. On the v5 loop it is wrapped as
/// `AGENT_STREAM_FAILED` for `generate` too (which runs the stream), the
/// message being the thrown error's stack, whose first line is
/// `NAME: MESSAGE` (the frames are not compared: `projection::without_stack`).
pub fn format_error(rel: &Release, e: &FormatError) -> ErrorView {
    let message = e.message();
    let (id, message) = match (rel.v5_loop, e) {
        (false, FormatError::Collision { .. }) => (Some("AGENT_TOOL_NAME_COLLISION"), message),
        (false, FormatError::EmptyKey) => (None, message),
        (true, _) if rel.format_error_unknown => {
            (Some("AGENT_STREAM_FAILED"), JsString::from("Unknown error"))
        }
        (true, FormatError::Collision { .. }) => (
            Some("AGENT_STREAM_FAILED"),
            JsString::from("Error: ").concat(&message),
        ),
        (true, FormatError::EmptyKey) => (
            Some("AGENT_STREAM_FAILED"),
            JsString::from("TypeError: ").concat(&message),
        ),
    };
    ErrorView {
        id: id.map(JsString::from),
        message,
        cause_code: None,
    }
}

/// Whether a tool runs with the arguments as the model sent them once they
/// pass validation, unknown keys included: on 0.x, whose
/// `validateToolInput` returns the input itself on success (0.24.9
/// `dist/chunk-WM4RO23J.js:14`; 0.21.1 `dist/chunk-6OLRLZJ3.js:14`), which a sub-agent's error
/// object quotes (`argsJson`: `cases/calls/sub-agent-api-error-before-1.5.0.json`
/// on 0.24.9 keeps `"x":1`); 1.x passes zod's output on.
pub fn passes_arguments_as_given(rel: &Release) -> bool {
    rel.on_0x()
}

/// Whether an array of arguments reaches the validator as an object with
/// its indices as keys: on 1.x; on 0.x the array itself is validated, and
/// rejected (`root: Expected object, received array`, with the array
/// quoted: `cases/calls/null-arguments.json` on 0.24.9).
pub fn spreads_arrays(rel: &Release) -> bool {
    !rel.on_0x()
}

/// A validation report as `rel` words it: on 0.x its message begins "Tool
/// validation failed for" (1.x: "Tool input validation failed for";
/// `cases/replies/bad-arguments.json` on 0.21.1 and 0.24.9) and quotes the
/// arguments whole, where 1.x cuts them at 200 code units (found by the
/// fuzzer on 0.21.1, seed 1 case 82).
pub fn worded(rel: &Release, report: Json, name: &JsString, input: &Json) -> Json {
    if !rel.on_0x() {
        return report;
    }
    let mut message = JsString::from("Tool validation failed for ");
    message = message.concat(name);
    message.push_str(". Please fix the following errors and try again:\n");
    message.push_str(crate::projection::ISSUES);
    message.push_str("\n\nProvided arguments: ");
    message.push_str(&input.to_pretty());
    Json::object([
        ("error", Json::Bool(true)),
        ("message", Json::String(message)),
        ("validationErrors", Json::str(crate::projection::ISSUES)),
    ])
}

/// Whether an API error of `status` is retried (`Release::retries` times):
/// as on 1.x before `releases::NO_RETRIES` (408, 409, 429, 5xx).
pub fn is_retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || status >= 500
}

/// Whether an API error of `status` is retried: every error within
/// `EVERY_ERROR_RETRIED` (a scripted 400 is sent three times on 0.21.1 to
/// 0.22.2: `cases/active-tools/*`), else the retryable ones as on 1.x.
pub fn retryable(rel: &Release, status: u16) -> bool {
    if rel.nothing_retried {
        return false;
    }
    rel.every_error_retried || is_retryable(status)
}

/// The error an API error ends the call in, where it is not the AI SDK's
/// `APICallError` (which the projection writes as no error): within
/// `EVERY_ERROR_RETRIED` a plain `Error` with the error document's message,
/// "captured" in every reply the listener writes (`observe/wire`), except
/// on mistral, whose error handler does not read the listener's document
/// and gives the status's reason phrase ("Bad Request" for the default
/// 400: every case `@mistral` on 0.21.1).
pub fn api_error(
    rel: &Release,
    route: Route,
    status: u16,
    body: Option<&Json>,
) -> Option<ErrorView> {
    if !rel.on_0x() {
        return None;
    }
    if rel.own_client() {
        return Some(own_client_error(route, status, body));
    }
    if !rel.plain_api_error {
        return None;
    }
    let message = match route {
        Route::Mistral => reason_phrase(status)?,
        _ => "captured",
    };
    Some(ErrorView {
        id: None,
        message: JsString::from(message),
        cause_code: None,
    })
}

/// The error Mastra's own OpenAI-compatible client ends an API error in on
/// 0.20.0, every route's model going through it: `OpenAI-compatible API
/// error: STATUS - TEXT`, the text being the reply's body (0.20.0
/// `dist/chunk-AND6J5LG.js:1633`; the sweep of every 0.x: every case
/// answered by the default 400 on 0.20.0). The default body is the
/// listener's error document for the route (`Route::error_document`).
fn own_client_error(route: Route, status: u16, body: Option<&Json>) -> ErrorView {
    let text = body
        .cloned()
        .unwrap_or_else(|| route.error_document())
        .to_compact();
    let mut message = JsString::from(format!("OpenAI-compatible API error: {status} - ").as_str());
    message = message.concat(&JsString::from(text.as_str()));
    ErrorView {
        id: None,
        message,
        cause_code: None,
    }
}

/// The HTTP reason phrase of the statuses the listener answers with.
fn reason_phrase(status: u16) -> Option<&'static str> {
    Some(match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => return None,
    })
}

/// Whether a call naming no tool's name is looked up by tool id: not on
/// the v4 loop (`cases/replies/call-by-tool-id.json` on 0.13.2: "Model
/// tried to call unavailable tool 'get-weather'").
pub fn finds_by_id(rel: &Release) -> bool {
    rel.v5_loop
}

/// Whether history writes each call followed by its result, call by call:
/// within `HISTORY_PER_CALL` (`cases/replies/parallel-calls.json` on
/// 0.21.1 to 0.24.2). The v4 loop writes each step's calls, then its results, as 1.x
/// from `HISTORY_PER_STEP` (`Release::of`; `loop-stops-at-*` and
/// `parallel-calls` on 0.13.2); 0.24.9 every call ahead of every result,
/// as 1.x before it.
pub fn history_per_call(rel: &Release) -> bool {
    rel.history_per_call
}

/// Whether a call id used again replaces the earlier invocation: not on
/// the v4 loop, which keeps both (`cases/calls/reused-call-id.json` on
/// 0.13.2).
pub fn merges_call_ids(rel: &Release) -> bool {
    rel.v5_loop
}

/// On the `openai` route with the v4 provider, the one choice name written
/// as an OpenAI tool type: `web_search_preview` (`@ai-sdk/openai` 1.3.24
/// `dist/index.mjs:2024`; `web_search` is a function there:
/// `cases/found/seed1-case1108-*` on 0.13.1 and 0.13.2). `None`: as 1.x.
pub fn openai_tool_types(rel: &Release) -> Option<&'static [&'static str]> {
    (!rel.v5_loop).then_some(&["web_search_preview"][..])
}

/// The route whose `prepareTools` writes a request's tools and choice. On
/// the v5 loop before `MISTRAL_BUNDLED_SINCE` a `"mistral/..."` model goes
/// through Mastra's own OpenAI-compatible client, which writes them as
/// openai-compatible does (`"required"`, a named choice beside every tool:
/// `cases/toolchoice/*` `@mistral` on 0.21.1).
pub fn offering_route(rel: &Release, route: Route) -> Route {
    let compatible = rel.on_0x() && rel.v5_loop && !rel.mistral_bundled;
    if route == Route::Mistral && compatible {
        Route::OpenAiCompatible
    } else {
        route
    }
}
