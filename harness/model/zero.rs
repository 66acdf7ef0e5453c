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

use super::releases::Release;
use super::rewrite::FormatError;
use super::steps::{Resolved, Runs};
use super::validate::{validate, Schema};
use super::ToolOrigin;
use crate::case::{Case, Reply};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::projection::{ErrorView, Projection, RequestView};
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
}

impl Zero {
    /// The switches of `version`, or `None` on 1.x.
    pub fn of(version: MastraVersion) -> Option<Zero> {
        if version.major != 0 {
            return None;
        }
        Some(Zero {
            format_tools: version >= FORMAT_TOOLS_SINCE,
            active_tools_applied: (ACTIVE_TOOLS_SINCE..=LAST_ZERO).contains(&version),
            v5_loop: version >= V5_LOOP_SINCE,
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
/// `cases/replies/bad-arguments.json` on 0.21.1 and 0.24.9).
pub fn worded(rel: &Release, mut report: Json) -> Json {
    if rel.zero.is_none() {
        return report;
    }
    if let Json::Object(members) = &mut report {
        for (k, v) in members.iter_mut() {
            if *k == JsString::from("message") {
                if let Json::String(m) = v {
                    let old = JsString::from("Tool input validation failed");
                    if m.units().starts_with(old.units()) {
                        let rest = JsString::from_units(m.units()[old.len()..].to_vec());
                        *m = JsString::from("Tool validation failed").concat(&rest);
                    }
                }
            }
        }
    }
    report
}

/// Whether an API error of `status` is retried (`Release::retries` times):
/// as on 1.x before `releases::NO_RETRIES` (408, 409, 429, 5xx).
pub fn is_retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || status >= 500
}

/// What a 0.x call does once its loop is over. With memory options, a
/// call that ended in an answer asks the model for its thread's title: one
/// more request, without tools and with no tool history, answered by the
/// next reply (the default 400 when they ran out, which the call ignores).
/// Measured on 0.24.9: `cases/sources/working-memory-call-updates-memory.json`
/// (three requests, the third the title's), and no such request where the
/// call ended in an error (`cases/sources/memory-without-working-memory-adds-no-tool.json`).
pub fn after_loop(
    case: &Case,
    rel: &Release,
    z: &Zero,
    projections: Vec<Projection>,
) -> Result<Vec<Projection>, String> {
    if case.sources.memory.is_none() || !z.v5_loop {
        return Ok(projections);
    }
    if case.sources.agents.as_ref().is_some_and(|a| !a.is_empty()) {
        return Err(
            "memory with sub-agents on 0.x: which agent's replies the title request takes".into(),
        );
    }
    let max_steps = case.call.max_steps.unwrap_or(super::DEFAULT_MAX_STEPS) as usize;
    let replies = case.replies.clone();
    let reply = |i: usize| replies.get(i).cloned().unwrap_or_else(Reply::default_reply);
    projections
        .into_iter()
        .map(|mut p| {
            if p.error.is_some() {
                return Ok(p);
            }
            let asked = p.requests.len();
            let answered = match reply(asked.wrapping_sub(1)) {
                Reply::Text(_) => true,
                Reply::ToolCalls(_) => asked >= max_steps,
                Reply::Error { .. } => false,
            };
            if asked == 0 || !answered {
                return Ok(p);
            }
            let title = RequestView {
                tools: None,
                tool_choice: None,
                history: Vec::new(),
            };
            let mut next = asked;
            for attempt in 0..=rel.retries {
                p.requests.push(title.clone());
                let retried =
                    matches!(reply(next), Reply::Error { status, .. } if is_retryable(status));
                next += 1;
                if !retried || attempt == rel.retries {
                    break;
                }
            }
            Ok(p)
        })
        .collect()
}

/// A call of a client tool or a workflow on 0.x. A client tool has no
/// `execute` there either, but the loop does not stop for it: its result
/// is `undefined`, sent as `null`, and the loop goes on
/// (`cases/calls/client-and-server-tool-in-one-step.json` on 0.21.1 and
/// 0.24.9). A workflow's input schema is the workflow's own (`{ city }`),
/// not `{ inputData }`: the probe's `{ inputData: { city } }` is rejected
/// (`cases/sources/workflow-call-*.json` on 0.24.9), and a run's result
/// carries each step's start and end times, which the model cannot give.
pub(super) fn client_or_workflow_run(
    rel: &Release,
    origin: &ToolOrigin,
    named: &JsString,
    arguments: &Json,
) -> Result<Runs, String> {
    match origin {
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

/// The result a client tool's call gets on 0.x (`undefined`, sent as
/// JSON `null`).
const CLIENT_RESULT: &str = "null";

/// Whether a 0.x step ends the loop for the client: when no call of it
/// runs anything but client tools (`cases/replies/client-tool-call-stops-the-loop.json`
/// on 0.24.9: one request); a client call beside a tool that runs is
/// answered `null` and the loop goes on.
pub(super) fn step_stops(resolved: &[Resolved]) -> bool {
    let client = |r: &Resolved| {
        matches!(r, Resolved::Stop)
            || matches!(r, Resolved::Run { runs: Runs::Fixed(t), .. } if *t == CLIENT_RESULT)
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
