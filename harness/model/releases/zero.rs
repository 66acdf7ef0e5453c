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
//! taken here: `activeTools` (applied on 0.20.0 to 0.24.9) and
//! `formatTools` (absent before 0.13.2).

use super::Release;
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::model::rewrite::FormatError;
use crate::projection::ErrorView;
use crate::route::Route;
use crate::version::spec::MastraVersion;

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

/// `activeTools` filters the tools sent, by sent name: from the v5 loop
/// (`bisect cases/active-tools/order-is-the-tools-order.json --good 0.12.1
/// --bad 0.21.1`: 0.19.1 ignores it; the sweep of every 0.x: every
/// `active-tools/*` case on 0.20.0 and 0.20.2 as on 0.21.0). A call of a
/// tool it hides still runs (`cases/replies/call-hidden-by-activetools.json`
/// on 0.21.1 and 0.24.9).
pub const ACTIVE_TOOLS_SINCE: MastraVersion = v(0, 20, 0);

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

/// Every API error retried twice and ended in a plain `Error`: 0.21.0
/// through 0.22.2 (`sweep --versions 0.21.1,0.22.0,...,0.24.9 --route
/// openai-compatible`, docs/figures/sweep-0x.md: `active-tools/*` send the
/// scripted 400 three times and end in "captured" on 0.22.0 and 0.22.2,
/// once on 0.23.1; the sweep of every 0.x: once on 0.20.0 and 0.20.2, three
/// times on 0.21.0).
pub const EVERY_ERROR_RETRIED: (MastraVersion, MastraVersion) = (v(0, 21, 0), v(0, 22, 2));

/// An API error ends the call in a plain `Error` (`api_error`) from 0.20.2,
/// whose model router replaced 0.20.0's own client, through the end of
/// `EVERY_ERROR_RETRIED` (the sweep of every 0.x: every case answered by
/// the default 400 on 0.20.2 ends in "captured", on mistral "Bad Request").
pub const PLAIN_API_ERROR: (MastraVersion, MastraVersion) = (v(0, 20, 2), v(0, 22, 2));

/// Nothing is retried on 0.20.0 and 0.20.2, not even a 500 (the sweep of
/// every 0.x: `cases/replies/retries-on-500.json` sends one request there,
/// three on 0.19.1 and 0.21.0).
pub const NOTHING_RETRIED: (MastraVersion, MastraVersion) = (v(0, 20, 0), v(0, 20, 2));

/// A `formatTools` failure ends the call as `AGENT_STREAM_FAILED` with the
/// message "Unknown error", the thrown error not being read: on 0.20.0
/// and 0.20.2 (the sweep of every 0.x: every `merge/collision-*`,
/// `report/collision-*` and `js/empty-key-*` case; 0.21.0 gives the error's
/// stack, `Error: Two or more tools ...`).
pub const FORMAT_ERROR_UNKNOWN: (MastraVersion, MastraVersion) = (v(0, 20, 0), v(0, 20, 2));

/// History written call by call (each call, then its result): from the v5
/// loop through 0.24.2 (the same sweep: `replies/parallel-calls` changes at
/// 0.24.2 to 0.24.5, every call ahead of every result after).
pub const HISTORY_PER_CALL: (MastraVersion, MastraVersion) = (v(0, 20, 0), v(0, 24, 2));

/// A call naming no tool ends the stream with no answer (`generate`:
/// "promise 'text' was not resolved ..."): from the v5 loop through 0.24.6
/// (the same sweep: `replies/call-by-unknown-name*` change at 0.24.6 to
/// 0.24.8, "Tool X not found" after; the sweep of every 0.x puts it at
/// 0.24.6 to 0.24.7).
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
    /// `SUB_AGENT_TOOLS_SINCE`.
    pub sub_agent_tools: bool,
    /// `CLIENT_TOOLS_SINCE`.
    pub client_tools: bool,
    /// `DYNAMIC_TOOLS_SINCE`.
    pub dynamic_tools: bool,
    /// `mcp_client_of_one_server`.
    pub mcp_client_of_one_server: bool,
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

    /// Whether a call id used again in a later step merges that step into
    /// the message holding the id's invocation, as 1.x does from
    /// `releases::REUSED_ID_MERGES_STEPS`: on the v5 loop. `MessageList.add`
    /// appends an assistant message to the latest one, a part of a known
    /// call id being an anchor whose invocation takes the later result and
    /// keeps its name, and `addPartsToLatestMessage` places each other part
    /// by the anchors (0.21.1 `dist/chunk-T3PBU7JK.js:1446` and `:1577`). So
    /// the invocation stays where it was and a new call ahead of it in the
    /// step goes in ahead of it. Found by the fuzzer on 0.21.1, seed 1:
    /// case 623 (`cases/zero/reused-id-in-a-later-step-moves-to-the-end.json`,
    /// `call_2`'s result ahead of `call_1`'s), case 56, with memory
    /// (`cases/zero/reused-id-in-a-later-step-with-memory-stays-in-place.json`),
    /// case 452, two calls of one MCP tool and the next step's reuse of the
    /// first id under another tool's name, still written under the first
    /// name, in place (`cases/zero/reused-id-alone-in-a-later-step-keeps-its-place-and-name.json`).
    /// On the `openai` route the merged call still refers to its earlier
    /// output item, as 1.x before `releases::MERGED_STEP_TAKES_LATER_ITEM`.
    pub fn merges_reused_steps(&self) -> bool {
        self.v5_loop
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
            sub_agent_tools: version >= SUB_AGENT_TOOLS_SINCE,
            client_tools: version >= CLIENT_TOOLS_SINCE,
            dynamic_tools: version >= DYNAMIC_TOOLS_SINCE,
            mcp_client_of_one_server: mcp_client_of_one_server(version),
        })
    }
}

/// Whether the install's `@mastra/mcp` (`version::extras`) is from before
/// `MCPConfiguration` (0.3.0): its `MastraMCPClient` reaches one server
/// and lists its tools under their own names, the server's name only in
/// each tool's id (`${name}_${tool.name}`, 0.2.6 `dist/index.js:54` and
/// `:72`). A user connects one per server, in turn, and spreads each
/// listing, so the servers' tools join in the servers object's key order,
/// with no race (`cases/real/mcp-*` on 0.4.4).
pub fn mcp_client_of_one_server(version: MastraVersion) -> bool {
    crate::version::extras::extras(version)
        .iter()
        .find(|(name, _)| *name == "@mastra/mcp")
        .and_then(|(_, at)| MastraVersion::parse(at))
        .is_some_and(|at| at < v(0, 3, 0))
}

/// The first release that calls an agent's `tools` given as a function of
/// the request context (0.9.1 `dist/chunk-H2UWWO4L.js:180`); before it the
/// function is taken as an object with no keys: no tools (the sweep of
/// every 0.x: `cases/sources/dynamic-tools-*` send none on 0.2.0 to 0.9.0).
pub const DYNAMIC_TOOLS_SINCE: MastraVersion = v(0, 9, 1);

/// The first release that takes a call's `clientTools` (0.8.3
/// `dist/chunk-3DJ53HTG.js:1138`); before it they are ignored: neither
/// sent nor found (the sweep of every 0.x: every `clientTools` case on
/// 0.2.0 to 0.8.2 sends the agent's tools alone).
pub const CLIENT_TOOLS_SINCE: MastraVersion = v(0, 8, 3);

/// The first release whose agent offers its sub-agents as tools
/// (`getAgentTools`, 0.21.1 `dist/chunk-HBJVAMCS.js:872`): on 0.21.0 and
/// earlier a sub-agent is no tool, on the v5 loop as on the v4 one (the
/// sweep of every 0.x: every `sources/sub-agent-*` and `calls/sub-agent-*`
/// case sends no tools on 0.21.0, `a` on 0.21.1).
pub const SUB_AGENT_TOOLS_SINCE: MastraVersion = v(0, 21, 1);

/// The releases whose memory recalls semantically by default, embedding
/// each message with the core's default embedder, fastembed, which
/// downloads its model from storage.googleapis.com at the first message
/// (0.4.2 `dist/chunk-M626YCHO.js:115` and `:135`; 0.8.3
/// `dist/chunk-QBQ3CW2R.js:176`; 0.9.1 `dist/chunk-INXNZ5VE.js:119` and
/// `:214`; 0.9.4 `dist/chunk-CIEPFV6B.js:320`): a call with memory needs
/// the network, so no memory case applies (every memory case of the
/// corpus on 0.4.2, 0.8.3, 0.9.1 and 0.9.4 ended in the refused download,
/// `TAR_BAD_ARCHIVE` or, on 0.4.2, which caches the model inside
/// `node_modules`, `EROFS`). 0.10.1's default has no semantic recall
/// (`dist/chunk-2YYOF7DO.js:18`); before 0.4.2 no `@mastra/memory` release
/// fits the core (`version::extras`).
pub const MEMORY_EMBEDS_BY_DEFAULT: (MastraVersion, MastraVersion) = (v(0, 4, 2), v(0, 9, 4));

/// Whether `version`'s memory embeds every message by default
/// (`MEMORY_EMBEDS_BY_DEFAULT`).
pub fn memory_embeds_by_default(version: MastraVersion) -> bool {
    within(MEMORY_EMBEDS_BY_DEFAULT, version)
}

/// The first release whose `generate` tells its loop it is one (0.24.6
/// `dist/chunk-LAQQETGP.js:1006`, `this.stream(messages, { ...,
/// methodType: "generate" })`), so that a sub-agent called under it runs
/// through the sub-agent's `generate`, which throws when its loop ends in
/// an error (`:919`); before, every sub-agent is streamed, and its error
/// ends its stream with no text (`cases/zero/sub-agent-failing-under-generate-answers-mastras-error.json`
/// on 0.24.5: `{"text":""}`, on 0.24.6: Mastra's error object; 0.22.0 to
/// 0.24.5 alike, found by the fuzzer on 0.24.9, seed 1 cases 734, 1608,
/// 2324 and 2624).
pub const SUB_AGENT_GENERATED_SINCE: MastraVersion = v(0, 24, 6);

/// The first release whose `generate` wraps the AI SDK's error in a
/// `MastraError` of id `LLM_GENERATE_TEXT_AI_SDK_EXECUTION_FAILED` (0.10.5
/// `dist/chunk-YDGX5LRI.js:242`); 0.10.3 (0.10.4 is not served) and every
/// earlier release end in the AI SDK's error itself, without an id (the
/// sweep of every 0.x: `cases/calls/reused-call-id-naming-no-tool.json`
/// and every `replies/call-by-*` on `generate`).
pub const GENERATE_ERROR_ID_SINCE: MastraVersion = v(0, 10, 5);

/// What a workflow tool answers its call with, by release: from
/// `CREATE_WORKFLOW_SINCE` the run result alone, `{ status, steps, result
/// }`; from this one wrapped with the run id, `{ result: { status, steps,
/// result }, runId }`; from `WORKFLOW_RESULT_HAS_INPUT_SINCE` the run
/// result carries its `input` too (found by the fuzzer on 0.13.2, seed 1
/// cases 890 and 955; `bisect cases/zero/workflow-run-result-by-release.json`
/// from 0.13.2 to 0.19.1: 0.15.3 the same as 0.13.2, 0.16.0 changed; from
/// 0.16.0: 0.16.3 the same, 0.17.0 changed).
pub const WORKFLOW_RESULT_WRAPPED_SINCE: MastraVersion = v(0, 16, 0);
pub const WORKFLOW_RESULT_HAS_INPUT_SINCE: MastraVersion = v(0, 17, 0);

/// The first release that exports `createWorkflow` from
/// `@mastra/core/workflows`, which the probe builds a case's workflows
/// with; before it a case with workflows is not applicable (the sweep:
/// 0.9.4 lacks it, 0.10.1 has it).
pub const CREATE_WORKFLOW_SINCE: MastraVersion = v(0, 10, 1);

/// The first release whose core bundles the AI SDK v5 providers a router
/// string for `openai`, `anthropic` or `google` reaches its provider's
/// own API through (`@ai-sdk/openai-v5` and the others in its
/// `package.json` dependencies: absent from 0.20.0, present from 0.20.2).
/// Before it, such a string goes through Mastra's own OpenAI-compatible
/// client (0.20.0 `dist/chunk-AND6J5LG.js:1359`), no wire of those routes.
pub const ROUTER_PROVIDERS_SINCE: MastraVersion = v(0, 20, 2);

/// The first release whose model router sends a `{ id, url }` model to its
/// `url` (0.21.0 `dist/chunk-VNVHOWW4.js:2032`). 0.20.2's router reads no
/// url and sends it to the provider its id names (`dist/chunk-BZ6BIHLE.js:1352`;
/// observed: `cases/report/*` on 0.20.2 sent to the OpenAI Responses API),
/// so the `openai-compatible` route has no wire there; 0.20.0's own client
/// posts to the url itself, the whole endpoint (`:1548`).
pub const MODEL_URL_SINCE: MastraVersion = v(0, 21, 0);

/// Why no case applies to `rel`'s version on `route`, where that release
/// cannot name a model on it: the router routes on the v5 loop before
/// `ROUTER_PROVIDERS_SINCE`, and `openai-compatible` from it until
/// `MODEL_URL_SINCE` (`node-probe/legacy.mjs` says the same).
pub fn route_reason(rel: &Release, route: Route) -> Option<String> {
    let z = rel.zero?;
    let version = rel.version;
    let routed = matches!(route, Route::OpenAi | Route::Anthropic | Route::Google);
    if z.v5_loop && version < ROUTER_PROVIDERS_SINCE && routed {
        return Some(format!(
            "@mastra/core {version} sends a \"{}/...\" model through its OpenAI-compatible client",
            route.name()
        ));
    }
    if (ROUTER_PROVIDERS_SINCE..MODEL_URL_SINCE).contains(&version)
        && route == Route::OpenAiCompatible
    {
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
pub fn format_error(z: &Zero, version: MastraVersion, e: &FormatError) -> ErrorView {
    let message = e.message();
    let (id, message) = match (z.v5_loop, e) {
        (false, FormatError::Collision { .. }) => (Some("AGENT_TOOL_NAME_COLLISION"), message),
        (false, FormatError::EmptyKey) => (None, message),
        (true, _) if within(FORMAT_ERROR_UNKNOWN, version) => {
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
    rel.zero.is_some()
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
    if rel.zero.is_some() && within(NOTHING_RETRIED, rel.version) {
        return false;
    }
    rel.zero.is_some_and(|z| z.every_error_retried) || is_retryable(status)
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
    let z = rel.zero?;
    if z.v5_loop && rel.version < ROUTER_PROVIDERS_SINCE {
        return Some(own_client_error(route, status, body));
    }
    if !within(PLAIN_API_ERROR, rel.version) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_install_with_mastra_mcp_0_2_has_a_client_of_one_server() {
        // 0.4.4 gets @mastra/mcp 0.2.6; 0.6.3 0.3.4 (`MCPConfiguration`);
        // 0.5.0 none at all.
        assert!(mcp_client_of_one_server(v(0, 4, 4)));
        assert!(!mcp_client_of_one_server(v(0, 5, 0)));
        assert!(!mcp_client_of_one_server(v(0, 6, 3)));
        assert!(!mcp_client_of_one_server(v(0, 24, 9)));
    }
}
