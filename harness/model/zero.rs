//! `Zero`: what a `@mastra/core` 0.x release does differently from the 1.x
//! line the rest of the model describes, as switches computed from the
//! version (`Release::of` holds them as `Release::zero`; `None` on 1.x).
//!
//! Every boundary was measured on the corpus (docs/0x.md records the runs
//! and the sweep): each names the first release that has it and what
//! measured it. The 1.x switches in `releases` keep their meaning on 0.x,
//! where every one of them is before its boundary, with two exceptions
//! taken here: `activeTools` (applied on 0.21.0 to 0.24.9) and
//! `formatTools` (absent before 0.13.2).

use super::record::Record;
use super::releases::Release;
use super::rewrite::FormatError;
use super::steps::{Agent, Ending, Resolved, Runs, State, Taken, World};
use super::validate::{validate, Schema};
use super::{sources, ToolOrigin, ToolValue};
use crate::case::script::Requester;
use crate::case::{Case, Method, Reply};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::projection::{ErrorView, RequestView};
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
}

impl Zero {
    /// On the `openai` route, earlier calls go back in history by name
    /// (`function_call` items), not as `item_reference`s: with the v4
    /// provider (`@ai-sdk/openai` 1.3.24) and on the first v5 releases
    /// (every `replies/` case `@openai` on 0.13.1, 0.13.2 and 0.21.1; 0.24.9
    /// refers to them, as 1.x before `RESPONSES_CALLS_BY_NAME`).
    pub fn calls_by_name(&self) -> bool {
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

/// What a 0.x call does once its loop is over. With memory options, a
/// call that ended in an answer (or ran out of steps) asks the model for
/// its thread's title: one more request by the case's agent, without tools
/// and with no tool history, answered by the agent's next reply (the
/// default 400 when they ran out, which the call ignores), retried as any
/// request. Measured on 0.24.9 (`cases/sources/working-memory-call-updates-memory.json`:
/// three requests, the third the title's) and 0.21.1 (five: the title's
/// 400 sent three times); none where the call ended in an error
/// (`cases/sources/memory-without-working-memory-adds-no-tool.json`) and
/// none on the v4 loop.
pub(super) fn after_loop(case: &Case, rel: &Release, s: &mut State) {
    if s.error.is_some() {
        return;
    }
    let ended = s.ended.clone().unwrap_or(Ending::Answer(JsString::new()));
    title(case, rel, &Requester::Parent, &ended, &mut s.world);
}

/// The title request of an agent whose loop `ended`, if it makes one
/// (`after_loop`). A sub-agent makes its own: it borrows the parent's
/// memory and is called with its own thread (`cases/found/seed1-case3392-*`
/// `@anthropic` on 0.24.9: the sub-agent's title request follows its
/// answer).
pub(super) fn title(
    case: &Case,
    rel: &Release,
    who: &Requester,
    ended: &Ending,
    world: &mut World,
) {
    let Some(z) = rel.zero else {
        return;
    };
    if case.sources.memory.is_none() || !z.v5_loop || !matches!(ended, Ending::Answer(_)) {
        return;
    }
    let title = RequestView {
        tools: None,
        tool_choice: None,
        history: Vec::new(),
    };
    for attempt in 0..=rel.retries {
        world.arrived.push((who.clone(), title.clone()));
        let retried = matches!(world.script.next(who),
            Reply::Error { status, .. } if retryable(rel, status));
        if !retried || attempt == rel.retries {
            break;
        }
    }
}

/// A call of a client tool or a workflow on 0.x. A client tool has no
/// `execute` there either; the v4 loop stops for it as 1.x does, the v5
/// loop answers it (`CLIENT_RESULT`) and goes on unless nothing else of
/// the step runs (`step_stops`). A workflow's input schema is the
/// workflow's own (`{ city }`), not `{ inputData }`: the probe's `{
/// inputData: { city } }` is rejected (`cases/sources/workflow-call-*.json`
/// on 0.24.9), and a run's result carries each step's start and end
/// times, which the model cannot give.
pub(super) fn client_or_workflow_run(
    rel: &Release,
    origin: &ToolOrigin,
    named: &JsString,
    arguments: &Json,
) -> Result<Runs, String> {
    match origin {
        // The v4 loop stops for a client tool, as 1.x does (the same case
        // on 0.13.1 and 0.13.2: one request).
        ToolOrigin::Client if !rel.zero.is_some_and(|z| z.v5_loop) => Ok(Runs::Fixed(CLIENT_STOPS)),
        ToolOrigin::Client if rel.zero.is_some_and(|z| z.sources_by_key) => {
            Ok(Runs::Fixed(CLIENT_RESULT_EARLY))
        }
        ToolOrigin::Client => Ok(Runs::Fixed(CLIENT_RESULT)),
        _ => match validate(rel, Schema::City, named, arguments)? {
            Ok(_) => Err(
                "a workflow run on 0.x: its result carries each step's start and end times".into(),
            ),
            Err(report) => Ok(Runs::Fails {
                report,
                sub_agent: false,
            }),
        },
    }
}

/// The result a client tool's call gets on the later v5 releases
/// (`undefined`, sent as JSON `null`), and on the first ones (the empty
/// text: `cases/calls/client-and-server-tool-in-one-step.json` on 0.21.1).
const CLIENT_RESULT: &str = "null";
const CLIENT_RESULT_EARLY: &str = "";
/// Marks a client tool's call on the v4 loop, which stops the loop (never
/// written back: a stopped step is not).
const CLIENT_STOPS: &str = "\u{0}client tool";

/// Whether a 0.x step ends the loop for the client: when no call of it
/// runs anything but client tools (`cases/replies/client-tool-call-stops-the-loop.json`
/// on 0.24.9: one request); a client call beside a tool that runs is
/// answered `null` and the loop goes on.
pub(super) fn step_stops(resolved: &[Resolved]) -> bool {
    let stops_v4 = |r: &Resolved| matches!(r, Resolved::Run { runs: Runs::Fixed(t), .. } if *t == CLIENT_STOPS);
    if resolved.iter().any(stops_v4) {
        return true;
    }
    let client = |r: &Resolved| {
        matches!(r, Resolved::Stop)
            || matches!(r, Resolved::Run { runs: Runs::Fixed(t), .. }
                if *t == CLIENT_RESULT || *t == CLIENT_RESULT_EARLY)
    };
    !resolved.is_empty() && resolved.iter().all(client)
        || resolved.iter().any(|r| matches!(r, Resolved::Stop))
}

/// The orders a 0.x call can list its MCP servers' tools in, as cases
/// whose `mcp` is in that order; `None` where there is one order. 0.x's
/// `@mastra/mcp` connects every server at once and adds each one's tools
/// as its list arrives (`eachClientTools`: `Promise.all` over the servers,
/// `connectedTools[...] = ...` in each callback; `@mastra/mcp` 0.14.5
/// `dist/index.js:1510`, `:1656`), so with several servers the order is a
/// race (observed on 0.24.9: `cases/sources/mcp-servers-in-object-key-order.json`
/// sent `stockPrice_*` ahead of `weather_*`).
pub fn mcp_orders(case: &Case, rel: &Release) -> Option<Result<Vec<Case>, String>> {
    rel.zero?;
    let servers = case.sources.mcp.as_deref().filter(|s| s.len() > 1)?;
    if servers.iter().any(|s| s.name.array_index().is_some()) {
        return Some(Err(
            "several MCP servers on 0.x, one with an index-like name: the race and the key order together".into(),
        ));
    }
    if servers.len() > 4 {
        return Some(Err("more than four MCP servers racing on 0.x".into()));
    }
    let mut orders = Vec::new();
    permutations(servers.to_vec(), 0, &mut orders);
    Some(Ok(orders
        .into_iter()
        .map(|order| {
            let mut c = case.clone();
            c.sources.mcp = Some(order);
            c
        })
        .collect()))
}

fn permutations<T: Clone>(mut items: Vec<T>, from: usize, out: &mut Vec<Vec<T>>) {
    if from + 1 >= items.len() {
        out.push(items);
        return;
    }
    for i in from..items.len() {
        items.swap(from, i);
        permutations(items.clone(), from + 1, out);
        items.swap(from, i);
    }
}

/// `convertTools` on 0.x: the record of every source's tools, before
/// `formatTools`, in 1.x's order (the agent's tools, memory, toolsets,
/// client tools, sub-agents, workflows). On the v4 loop sub-agents are not
/// tools at all, and workflows are named by their key
/// (`cases/sources/merge-order-of-every-source.json` on 0.13.1: `w` last);
/// on the first v5 releases (`EARLY_V5`) both are named by their key (`a`,
/// `w`; `cases/sources/later-source-replaces-an-equal-key-silently.json` on
/// 0.21.1); later, as on 1.x, `agent-KEY` and `workflow-KEY`.
pub(super) fn convert_tools(
    z: &Zero,
    case: &Case,
    agent: &Record<ToolValue>,
    toolsets: &Record<ToolValue>,
    client: &Record<ToolValue>,
) -> Record<ToolValue> {
    let src = &case.sources;
    let agents = src.agents.as_deref().unwrap_or_default();
    let workflows = src.workflows.as_deref().unwrap_or_default();
    let by_key = !z.v5_loop || z.sources_by_key;
    let sub_agents = if by_key {
        keyed(agents, |k| ToolOrigin::SubAgent(k.clone()))
    } else {
        sources::agent_tools(agents)
    };
    let workflows = if by_key {
        keyed(workflows, |_| ToolOrigin::Workflow)
    } else {
        sources::workflow_tools(workflows)
    };
    let mut all = Record::new();
    all.spread_from(agent);
    all.spread_from(&sources::memory_tools(src.memory));
    all.spread_from(toolsets);
    all.spread_from(client);
    if z.v5_loop {
        all.spread_from(&sub_agents);
    }
    all.spread_from(&workflows);
    all
}

/// One tool per key of a registration object, named and identified by the
/// key itself.
fn keyed(keys: &[JsString], origin: impl Fn(&JsString) -> ToolOrigin) -> Record<ToolValue> {
    let registered = Record::from_entries(keys.iter().map(|k| (k.clone(), ())));
    let mut out = Record::new();
    for (key, ()) in registered.entries() {
        out.assign(
            key.clone(),
            ToolValue {
                id: key.clone(),
                key: key.clone(),
                origin: origin(key),
            },
        );
    }
    out
}

/// Whether an API error of `status` is retried: every error on the first
/// v5 releases (a scripted 400 is sent three times on 0.21.1:
/// `cases/active-tools/*`), else the retryable ones as on 1.x.
pub fn retryable(rel: &Release, status: u16) -> bool {
    rel.zero.is_some_and(|z| z.sources_by_key) || is_retryable(status)
}

/// The error an API error ends the call in, where it is not the AI SDK's
/// `APICallError` (which the projection writes as no error): on the first
/// v5 releases a plain `Error` with the error document's message,
/// "captured" in every reply the listener writes (`observe/wire`), except
/// on mistral, whose error handler does not read the listener's document
/// and gives the status's reason phrase ("Bad Request" for the default
/// 400: every case `@mistral` on 0.21.1).
pub fn api_error(rel: &Release, route: Route, status: u16) -> Option<ErrorView> {
    rel.zero.filter(|z| z.sources_by_key)?;
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
/// on the first v5 releases (`cases/replies/parallel-calls.json` on
/// 0.21.1). The v4 loop writes each step's calls, then its results, as 1.x
/// from `HISTORY_PER_STEP` (`Release::of`; `loop-stops-at-*` and
/// `parallel-calls` on 0.13.2); 0.24.9 every call ahead of every result,
/// as 1.x before it.
pub fn history_per_call(rel: &Release) -> bool {
    rel.zero.is_some_and(|z| z.sources_by_key)
}

/// Whether a call id used again replaces the earlier invocation: not on
/// the v4 loop, which keeps both (`cases/calls/reused-call-id.json` on
/// 0.13.2).
pub fn merges_call_ids(rel: &Release) -> bool {
    rel.zero.is_none_or(|z| z.v5_loop)
}

/// On the v4 loop the AI SDK checks every call of a step before any runs:
/// a step with a call it refuses runs none (`step_fails`).
pub(super) fn throws_before_running(rel: &Release, resolved: &[Resolved]) -> bool {
    rel.zero.is_some_and(|z| !z.v5_loop) && resolved.iter().any(refused_on_v4)
}

fn refused_on_v4(r: &Resolved) -> bool {
    matches!(
        r,
        Resolved::NotFound { .. }
            | Resolved::Stop
            | Resolved::Run {
                runs: Runs::Fails { .. },
                ..
            }
    )
}

/// How a 0.x step ends the call before its calls are written back, if it
/// does:
/// - on the v4 loop, at the first call the AI SDK refuses: a name no tool
///   has, "Model tried to call unavailable tool 'NAME'. Available tools:
///   A, B." (the sent names; `NoSuchToolError`), a name of
///   `Object.prototype`, "Cannot read properties of undefined (reading
///   '_def')"; as `LLM_GENERATE_TEXT_AI_SDK_EXECUTION_FAILED` on
///   `generate`, without an id on `stream` (`cases/replies/call-by-*` on
///   0.13.1 and 0.13.2); arguments the schema rejects end it in the AI
///   SDK's `InvalidToolArgumentsError`, whose text quotes zod's issues,
///   which the model does not give;
/// - on the first v5 releases, a call naming no tool ends the loop: on
///   `generate` in "promise 'text' was not resolved or rejected when
///   stream finished", on `stream` silently (`cases/replies/call-by-unknown-name*`
///   on 0.21.1); what a sub-agent or a workflow named by its key runs
///   there is not measured.
pub(super) fn step_fails(
    case: &Case,
    rel: &Release,
    agent: &Agent,
    taken: &Taken,
) -> Result<Option<Ending>, String> {
    let Some(z) = rel.zero else {
        return Ok(None);
    };
    let generate = case.call.method == Method::Generate;
    if !z.v5_loop {
        let Some(i) = taken.resolved.iter().position(refused_on_v4) else {
            return Ok(None);
        };
        if !generate && !taken.resolved.iter().all(refused_on_v4) {
            // The stream drops the refused call and runs the others
            // (`cases/found/stream-call-by-id-executes-after-call-by-key-on-1.71.0.json`
            // on 0.13.2); where its error goes then is not measured.
            return Err("a refused call beside calls that run on 0.x's AI SDK v4 stream".into());
        }
        let name = &taken.calls[i].name;
        let message = match &taken.resolved[i] {
            Resolved::NotFound { .. } => {
                let mut m = JsString::from("Model tried to call unavailable tool '");
                m = m.concat(name);
                m.push_str("'. Available tools: ");
                for (k, n) in agent.tools.keys().iter().enumerate() {
                    if k > 0 {
                        m.push_str(", ");
                    }
                    m = m.concat(n);
                }
                m.push_str(".");
                m
            }
            Resolved::Stop => JsString::from("Cannot read properties of undefined (reading '_def')"),
            _ => {
                return Err(
                    "arguments the schema rejects on 0.x's AI SDK v4 loop: the error quotes zod's issues"
                        .into(),
                )
            }
        };
        let id = generate.then_some("LLM_GENERATE_TEXT_AI_SDK_EXECUTION_FAILED");
        return Ok(Some(Ending::Error(ErrorView {
            id: id.map(JsString::from),
            message,
            cause_code: None,
        })));
    }
    if !z.sources_by_key {
        return Ok(None);
    }
    let by_key = |r: &Resolved| {
        matches!(
            r,
            Resolved::Run {
                runs: Runs::SubAgent { .. },
                ..
            }
        ) || matches!(
            r,
            Resolved::Run {
                runs: Runs::Fails {
                    report: _,
                    sub_agent: true
                },
                ..
            }
        )
    };
    if taken.resolved.iter().any(by_key) {
        return Err(
            "a sub-agent called by its key on 0.x's first v5 releases: not measured".into(),
        );
    }
    if taken
        .resolved
        .iter()
        .any(|r| matches!(r, Resolved::NotFound { .. }))
    {
        return Ok(Some(if generate {
            Ending::Error(ErrorView {
                id: None,
                message: JsString::from(
                    "promise 'text' was not resolved or rejected when stream finished",
                ),
                cause_code: None,
            })
        } else {
            // The stream ends with no answer: no title request follows
            // (found by the fuzzer on 0.21.1, seed 1 cases 70 and 124).
            Ending::Stopped
        }));
    }
    Ok(None)
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

/// A call by a name of `Object.prototype` on the later v5 releases: found
/// (a method, without `execute`), answered as a client tool is, and the
/// loop goes on beside calls that run (found by the fuzzer on 0.24.9, seed
/// 1 case 154: `__proto__` beside a sub-agent's call). `None`: it stops
/// the loop, as on 1.x (and on 0.21.1, measured by the same fuzz run).
pub(super) fn inherited(rel: &Release) -> Option<Resolved> {
    let z = rel.zero?;
    (z.v5_loop && !z.sources_by_key).then(|| Resolved::Run {
        id: JsString::new(),
        by_name: true,
        runs: Runs::Fixed(CLIENT_RESULT),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{predict, Prediction};
    use crate::projection::Projection;
    use std::path::Path;

    fn case(json: &str) -> Case {
        Case::parse(Path::new("test.json"), json).unwrap()
    }

    fn ver(s: &str) -> MastraVersion {
        MastraVersion::parse(s).unwrap()
    }

    fn projection(c: &Case, version: &str) -> Projection {
        match predict(c, ver(version)) {
            Prediction::Projection(p) => p,
            other => panic!("{version}: {other:?}"),
        }
    }

    fn sent(p: &Projection) -> Vec<String> {
        let tools = p.requests[0].tools.as_ref();
        tools.map_or_else(Vec::new, |t| t.iter().map(JsString::to_lossy).collect())
    }

    /// Each switch on both sides of its boundary, and none on 1.x.
    #[test]
    fn each_switch_on_both_sides_of_its_boundary() {
        let z = |s: &str| Zero::of(ver(s)).unwrap();
        assert!(!z("0.13.1").format_tools && z("0.13.2").format_tools);
        assert!(!z("0.19.1").active_tools_applied && z("0.21.0").active_tools_applied);
        assert!(z("0.24.9").active_tools_applied);
        assert!(!z("0.19.1").v5_loop && z("0.20.0").v5_loop);
        assert!(!z("0.19.1").sources_by_key && z("0.20.0").sources_by_key);
        assert!(z("0.21.1").sources_by_key && !z("0.22.0").sources_by_key);
        assert_eq!(Zero::of(ver("1.0.4")), None);
        let rel = |s: &str| Release::of(ver(s));
        assert!(!rel("0.1.26").is_modelled() && rel("0.2.0").is_modelled());
        assert!(
            !rel("1.0.4").active_tools_applied,
            "1.0.4 ignores activeTools again"
        );
        let mistral = |s: &str| offering_route(&rel(s), Route::Mistral);
        assert_eq!(mistral("0.24.0"), Route::OpenAiCompatible);
        assert_eq!(mistral("0.24.1"), Route::Mistral);
        assert_eq!(
            mistral("0.13.2"),
            Route::Mistral,
            "the v4 loop takes @ai-sdk/mistral"
        );
    }

    /// Before `formatTools` the keys go out as registered, a collision
    /// included; from it, rewritten, and the collision ends the call in
    /// the form of its loop.
    #[test]
    fn format_tools_from_0_13_2_and_its_error_per_loop() {
        let dotted = case(r#"{"about": "a", "tools": ["search.web"]}"#);
        assert_eq!(sent(&projection(&dotted, "0.13.1")), ["search.web"]);
        assert_eq!(sent(&projection(&dotted, "0.13.2")), ["search_web"]);
        let clash = case(r#"{"about": "a", "tools": ["x.y", "x_y"]}"#);
        assert_eq!(sent(&projection(&clash, "0.13.1")), ["x.y", "x_y"]);
        let v4 = projection(&clash, "0.13.2").error.unwrap();
        assert_eq!(v4.id.unwrap().to_lossy(), "AGENT_TOOL_NAME_COLLISION");
        assert_eq!(v4.cause_code, None);
        let v5 = projection(&clash, "0.24.9").error.unwrap();
        assert_eq!(v5.id.unwrap().to_lossy(), "AGENT_STREAM_FAILED");
        assert!(v5
            .message
            .to_lossy()
            .starts_with("Error: Two or more tools"));
    }

    /// 0.1.x has no Agent: no case applies, whatever it holds.
    #[test]
    fn no_case_applies_before_the_agent() {
        let p = projection(&case(r#"{"about": "a", "tools": ["a"]}"#), "0.1.26");
        assert!(!p.applicable);
    }

    /// The first v5 releases retry the default 400 twice and end in the
    /// error document's message; 0.24.9 sends it once, as an API error.
    #[test]
    fn the_default_400_on_the_first_v5_releases_and_after() {
        let c = case(r#"{"about": "a", "tools": ["a"]}"#);
        let early = projection(&c, "0.21.1");
        assert_eq!(early.requests.len(), 3);
        assert_eq!(early.error.unwrap().message.to_lossy(), "captured");
        let late = projection(&c, "0.24.9");
        assert_eq!((late.requests.len(), late.error), (1, None));
    }

    /// Several MCP servers race: every order is a projection.
    #[test]
    fn mcp_servers_race_on_0_x() {
        let c = case(r#"{"about": "a", "mcp": {"a": ["x"], "b": ["y"]}}"#);
        match predict(&c, ver("0.24.9")) {
            Prediction::Races(ps) => assert_eq!(ps.len(), 2),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            predict(&c, ver("1.0.4")),
            Prediction::Projection(_)
        ));
    }

    /// The title request follows an answer with memory, on the v5 loop only.
    #[test]
    fn memory_asks_for_a_title_after_an_answer() {
        let c = case(
            r#"{"about": "a", "tools": ["a"], "memory": {"workingMemory": false}, "replies": [{"text": "hi"}]}"#,
        );
        let title = projection(&c, "0.24.9");
        assert_eq!(title.requests.len(), 2);
        assert_eq!(title.requests[1].tools, None);
        assert_eq!(projection(&c, "0.13.2").requests.len(), 1);
        assert_eq!(projection(&c, "1.0.4").requests.len(), 1);
    }
}
