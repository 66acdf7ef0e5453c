//! `Zero`: what a `@mastra/core` 0.x release does differently from the 1.x
//! line, as switches computed from the version (`Release::of` holds them
//! as `Release::zero`; `None` on 1.x), and what follows from them alone.
//! What the 0.x agent loop does with them is `steps::zero`.
//!
//!
//! Every boundary was measured on the corpus (docs/0x.md records the runs
//! and the sweep): each names the first release that has it and what
//! measured it. The 1.x switches in `releases` keep their meaning on 0.x,
//! where every one of them is before its boundary, with two exceptions
//! taken here: `activeTools` (applied on 0.21.0 to 0.24.9) and
//! `formatTools` (absent before 0.13.2).

use super::Release;
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::model::rewrite::FormatError;
use crate::projection::ErrorView;
use crate::route::Route;
use crate::versions::spec::MastraVersion;

const fn v(major: u32, minor: u32, patch: u32) -> MastraVersion {
    MastraVersion::new(major, minor, patch)
}

/// The first release with an `Agent`: 0.1.x is an integrations framework
/// whose entry exports none (its install's probe says so), and no case
/// applies there.
pub const AGENT_SINCE: MastraVersion = v(0, 2, 0);

/// `formatTools` and its rewrite (`search.web` sent as `search_web`): first
/// in 0.13.2; 0.13.1 and earlier send every key as registered, a collision
/// or the empty key included, and the provider rule judges the names
/// (`bisect cases/report/search-web-is-sent-as-search_web.json --good
/// 0.12.1 --bad 0.21.1`: 0.13.1 same as 0.12.1, 0.13.2 differs; the corpus
/// on 0.13.1 and 0.13.2, every `merge/collision-*` and `js/empty-key-*`).
pub const FORMAT_TOOLS_SINCE: MastraVersion = v(0, 13, 2);

/// `activeTools` filters the tools sent, by sent name: first in 0.21.0 as
/// measured (`bisect cases/active-tools/order-is-the-tools-order.json
/// --good 0.12.1 --bad 0.21.1`: 0.19.1 ignores it; 0.20.0 and 0.20.2 are not
/// probed, docs/0x.md says why). A call of a tool it hides still runs
/// (`cases/replies/call-hidden-by-activetools.json` on 0.21.1 and 0.24.9).
pub const ACTIVE_TOOLS_SINCE: MastraVersion = v(0, 21, 0);

/// The last 0.x release; 1.0.4 ignores `activeTools` until
/// `releases::ACTIVE_TOOLS_APPLIED` (`bisect
/// cases/active-tools/by-rewritten-name.json --good 0.24.9 --bad 1.0.4`).
pub const LAST_ZERO: MastraVersion = v(0, 24, 9);

/// The AI SDK v5 loop (`generate` and `stream` take v5 models only, 0.20.0
/// `dist/chunk-DQISKQDE.js:713`). Before it the AI SDK v4 loop runs, and
/// what differs there (a call naming no tool, arguments the schema
/// rejects) is the AI SDK's own error, which ends the call.
pub const V5_LOOP_SINCE: MastraVersion = v(0, 20, 0);

/// The first v5 releases, which differ from the later ones in how
/// sub-agents and workflows are named, API errors retried, a call naming
/// no tool ended and history written (each switch below). Measured on
/// 0.21.1 (the corpus, every route), against 0.24.9; the ends are the
/// sweep's (docs/0x.md, "Boundaries measured").
pub const EARLY_V5: (MastraVersion, MastraVersion) = (v(0, 20, 0), v(0, 21, 1));

/// Every API error retried twice and ended in a plain `Error`: from the v5
/// loop through 0.22.2 (`sweep --versions 0.21.1,0.22.0,...,0.24.9 --route
/// openai-compatible`, docs/figures/sweep-0x.md: `active-tools/*` send the
/// scripted 400 three times and end in "captured" on 0.22.0 and 0.22.2,
/// once on 0.23.1).
pub const EVERY_ERROR_RETRIED: (MastraVersion, MastraVersion) = (v(0, 20, 0), v(0, 22, 2));

/// History written call by call (each call, then its result): from the v5
/// loop through 0.24.2 (the same sweep: `replies/parallel-calls` changes at
/// 0.24.2 to 0.24.5, every call ahead of every result after).
pub const HISTORY_PER_CALL: (MastraVersion, MastraVersion) = (v(0, 20, 0), v(0, 24, 2));

/// A call naming no tool ends the stream with no answer (`generate`:
/// "promise 'text' was not resolved ..."): from the v5 loop through 0.24.6
/// (the same sweep: `replies/call-by-unknown-name*` change at 0.24.6 to
/// 0.24.8, "Tool X not found" after).
pub const NO_TOOL_ENDS_SILENTLY: (MastraVersion, MastraVersion) = (v(0, 20, 0), v(0, 24, 6));

fn within((first, last): (MastraVersion, MastraVersion), version: MastraVersion) -> bool {
    (first..=last).contains(&version)
}

/// The switches for one 0.x version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zero {
    /// `formatTools` runs: keys are rewritten, a collision or the empty key
    /// fails the call before any request.
    pub format_tools: bool,
    /// `activeTools` filters what is sent (a hidden call still runs).
    pub active_tools_applied: bool,
    /// The v5 loop (else the v4 one).
    pub v5_loop: bool,
    /// The first v5 releases (`EARLY_V5`): sub-agents and workflows named
    /// by their key, every API error retried and ending the call, a call
    /// naming no tool ending the loop silently, history per call.
    pub sources_by_key: bool,
    /// `EVERY_ERROR_RETRIED`.
    pub every_error_retried: bool,
    /// `HISTORY_PER_CALL`.
    pub history_per_call: bool,
    /// `NO_TOOL_ENDS_SILENTLY`.
    pub no_tool_ends_silently: bool,
}

impl Zero {
    /// On the `openai` route, earlier calls go back in history by name
    /// (`function_call` items), not as `item_reference`s: with the v4
    /// provider (`@ai-sdk/openai` 1.3.24) and within `HISTORY_PER_CALL`
    /// (every `replies/` case `@openai` on 0.13.1, 0.13.2 and 0.21.1;
    /// `found/seed1-case421-*` and `-case550-*` `@openai` on 0.22.0 to
    /// 0.24.2; 0.24.5 on refers to them, as 1.x before
    /// `RESPONSES_CALLS_BY_NAME`).
    pub fn calls_by_name(&self) -> bool {
        !self.v5_loop || self.history_per_call
    }

    /// Whether a sub-agent or workflow is a tool under its key alone (`a`,
    /// `w`), not `agent-KEY` / `workflow-KEY`: on the v4 loop (workflows;
    /// sub-agents are no tools there) and on the first v5 releases
    /// (`steps::zero::convert_tools` cites the cases).
    pub fn names_sources_by_key(&self) -> bool {
        !self.v5_loop || self.sources_by_key
    }

    /// The switches of `version`, or `None` on 1.x.
    pub fn of(version: MastraVersion) -> Option<Zero> {
        if version.major != 0 {
            return None;
        }
        Some(Zero {
            format_tools: version >= FORMAT_TOOLS_SINCE,
            active_tools_applied: (ACTIVE_TOOLS_SINCE..=LAST_ZERO).contains(&version),
            v5_loop: version >= V5_LOOP_SINCE,
            sources_by_key: within(EARLY_V5, version),
            every_error_retried: within(EVERY_ERROR_RETRIED, version),
            history_per_call: within(HISTORY_PER_CALL, version),
            no_tool_ends_silently: within(NO_TOOL_ENDS_SILENTLY, version),
        })
    }
}

/// Why no case applies to `rel`'s version, on the releases without an
/// `Agent`.
pub fn no_agent(rel: &Release) -> Option<String> {
    let version = rel.version;
    (rel.zero.is_some() && version < AGENT_SINCE)
        .then(|| format!("@mastra/core {version} has no Agent (no @mastra/core/agent module)"))
}

/// The error a `formatTools` failure ends the call in on 0.x. On the v4
/// loop (0.13.2 to 0.19.1) the error itself: a collision is a
/// `MastraError` with its own id `AGENT_TOOL_NAME_COLLISION` and no cause,
/// the empty key a bare `TypeError`. On the v5 loop it is wrapped as
/// `AGENT_STREAM_FAILED` for `generate` too (which runs the stream), the
/// message being the thrown error's stack, whose first line is
/// `NAME: MESSAGE` (the frames are not compared: `projection::without_stack`).
pub fn format_error(z: &Zero, e: &FormatError) -> ErrorView {
    let message = e.message();
    let (id, message) = match (z.v5_loop, e) {
        (false, FormatError::Collision { .. }) => (Some("AGENT_TOOL_NAME_COLLISION"), message),
        (false, FormatError::EmptyKey) => (None, message),
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

/// Whether an array of arguments reaches the validator as an object with
/// its indices as keys: on 1.x; on 0.x the array itself is validated, and
/// rejected (`root: Expected object, received array`, with the array
/// quoted: `cases/calls/null-arguments.json` on 0.24.9).
pub fn spreads_arrays(rel: &Release) -> bool {
    rel.zero.is_none()
}

/// A validation report as `rel` words it: on 0.x its message begins "Tool
/// validation failed for" (1.x: "Tool input validation failed for";
/// `cases/replies/bad-arguments.json` on 0.21.1 and 0.24.9) and quotes the
/// arguments whole, where 1.x cuts them at 200 code units (found by the
/// fuzzer on 0.21.1, seed 1 case 82).
pub fn worded(rel: &Release, report: Json, name: &JsString, input: &Json) -> Json {
    if rel.zero.is_none() {
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
    rel.zero.is_some_and(|z| z.every_error_retried) || is_retryable(status)
}

/// The error an API error ends the call in, where it is not the AI SDK's
/// `APICallError` (which the projection writes as no error): within
/// `EVERY_ERROR_RETRIED` a plain `Error` with the error document's message,
/// "captured" in every reply the listener writes (`observe/wire`), except
/// on mistral, whose error handler does not read the listener's document
/// and gives the status's reason phrase ("Bad Request" for the default
/// 400: every case `@mistral` on 0.21.1).
pub fn api_error(rel: &Release, route: Route, status: u16) -> Option<ErrorView> {
    rel.zero.filter(|z| z.every_error_retried)?;
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
    rel.zero.is_none_or(|z| z.v5_loop)
}

/// Whether history writes each call followed by its result, call by call:
/// within `HISTORY_PER_CALL` (`cases/replies/parallel-calls.json` on
/// 0.21.1 to 0.24.2). The v4 loop writes each step's calls, then its results, as 1.x
/// from `HISTORY_PER_STEP` (`Release::of`; `loop-stops-at-*` and
/// `parallel-calls` on 0.13.2); 0.24.9 every call ahead of every result,
/// as 1.x before it.
pub fn history_per_call(rel: &Release) -> bool {
    rel.zero.is_some_and(|z| z.history_per_call)
}

/// Whether a call id used again in a later step moves its invocation to
/// the end of the history (1.x replaces it in place): on the v5 loop
/// (found by the fuzzer on 0.21.1, seed 1 case 623;
/// `cases/zero/reused-id-in-a-later-step-moves-to-the-end.json` on 0.21.1
/// and 0.24.9, every route: `call_2`'s result ahead of `call_1`'s in the
/// third request; on the `openai` route of 0.24.9 the moved call still
/// refers to its earlier output item). The v4 loop keeps both
/// (`merges_call_ids`). With memory options the invocation is replaced in
/// place, as on 1.x (found by the fuzzer on 0.21.1, seed 1 case 56:
/// `cases/zero/reused-id-in-a-later-step-with-memory-stays-in-place.json`).
pub fn reused_id_moves_across_steps(rel: &Release) -> bool {
    rel.zero.is_some_and(|z| z.v5_loop)
}

/// Whether a call id used again replaces the earlier invocation: not on
/// the v4 loop, which keeps both (`cases/calls/reused-call-id.json` on
/// 0.13.2).
pub fn merges_call_ids(rel: &Release) -> bool {
    rel.zero.is_none_or(|z| z.v5_loop)
}

/// On the `openai` route with the v4 provider, the one choice name written
/// as an OpenAI tool type: `web_search_preview` (`@ai-sdk/openai` 1.3.24
/// `dist/index.mjs:2024`; `web_search` is a function there:
/// `cases/found/seed1-case1108-*` on 0.13.1 and 0.13.2). `None`: as 1.x.
pub fn openai_tool_types(rel: &Release) -> Option<&'static [&'static str]> {
    rel.zero
        .filter(|z| !z.v5_loop)
        .map(|_| &["web_search_preview"][..])
}

/// The first release whose core bundles `@ai-sdk/mistral-v5` (its
/// `package.json` dependencies, as the registry serves them: absent from
/// 0.24.0, present from 0.24.1).
pub const MISTRAL_BUNDLED_SINCE: MastraVersion = v(0, 24, 1);

/// The route whose `prepareTools` writes a request's tools and choice. On
/// the v5 loop before `MISTRAL_BUNDLED_SINCE` a `"mistral/..."` model goes
/// through Mastra's own OpenAI-compatible client, which writes them as
/// openai-compatible does (`"required"`, a named choice beside every tool:
/// `cases/toolchoice/*` `@mistral` on 0.21.1).
pub fn offering_route(rel: &Release, route: Route) -> Route {
    let compatible = rel.zero.is_some_and(|z| z.v5_loop) && rel.version < MISTRAL_BUNDLED_SINCE;
    if route == Route::Mistral && compatible {
        Route::OpenAiCompatible
    } else {
        route
    }
}
