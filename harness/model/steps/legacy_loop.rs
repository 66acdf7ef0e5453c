//! What the 0.x agent loop does differently, by the switches of
//! lines of the release table (`releases`; docs/0x.md records the runs that
//! measured each).

use super::{Agent, Ending, Resolved, Runs, State, Taken, World};
use crate::case::script::Requester;
use crate::case::{Case, Method, Reply, ToolCallReply};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::model::record::{Lookup, Record};
use crate::model::releases::legacy::*;
use crate::model::releases::Release;
use crate::model::route::ResultContent;
use crate::model::validate::{validate, zod_issues, Schema};
use crate::model::{sources, ToolOrigin, ToolValue};
use crate::projection::{ErrorView, RequestView};

/// What a 0.x call does once its loop is over. With memory options, a
/// call that ended in an answer, ran out of steps or stopped for a client
/// tool (`cases/zero/client-call-alone-asks-the-title.json` on 0.21.1 and
/// 0.24.9; found by the fuzzer on 0.21.1, seed 1 cases 385 and 390) asks the model for
/// its thread's title: one more request by the case's agent, without tools
/// and with no tool history, answered by the agent's next reply (the
/// default 400 when they ran out, which the call ignores), retried as any
/// request. Measured on 0.24.9 (`cases/sources/working-memory-call-updates-memory.json`:
/// three requests, the third the title's) and 0.21.1 (five: the title's
/// 400 sent three times); none where the call ended in an error
/// (`cases/sources/memory-without-working-memory-adds-no-tool.json`), none
/// on the v4 loop, and none after a call of working memory that did not
/// run (`WorkingMemoryCalls`).
pub(in crate::model) fn after_loop(case: &Case, rel: &Release, s: &mut State) {
    // On the v4 stream the first error part is the call's error, a later
    // step's refusal too; an API error ends the stream by throwing instead
    // (`cases/zero/v4-stream-*` on 0.13.2: the refused call's part, then
    // the default 400, gives the API error).
    if let Some(first) = &s.parent.first_error_part {
        if !matches!(s.ended, Some(Ending::ApiError(_))) {
            s.error = Some(first.clone());
        }
    }
    if s.error.is_some() {
        return;
    }
    let ended = s.ended.clone().unwrap_or(Ending::Answer(JsString::new()));
    title(case, rel, &s.parent, &ended, &mut s.world);
}

/// The title request of an agent whose loop `ended`, if it makes one
/// (`after_loop`). A sub-agent makes its own: it borrows the parent's
/// memory and is called with its own thread (`cases/found/seed1-case3392-*`
/// `@anthropic` on 0.24.9: the sub-agent's title request follows its
/// answer).
pub(in crate::model) fn title(
    case: &Case,
    rel: &Release,
    agent: &Agent,
    ended: &Ending,
    world: &mut World,
) {
    if !rel.on_0x() {
        return;
    }
    if case.sources.memory.is_none()
        || !rel.v5_loop
        || !matches!(ended, Ending::Answer(_) | Ending::Stopped)
        || !agent.working_memory.thread_found()
    {
        return;
    }
    let title = RequestView {
        tools: None,
        tool_choice: None,
        history: Vec::new(),
    };
    // The title request carries no agent's instructions, so the listener
    // takes it for the parent's and answers it with the parent's next
    // reply, a sub-agent's too (found by the fuzzer on 0.24.9, seed 1 case
    // 714: a sub-agent's title took the parent's call of a name no tool
    // has, and the parent's next step the default 400, an API error;
    // `cases/zero/sub-agent-title-takes-the-parents-reply.json`).
    let who = &Requester::Parent;
    for attempt in 0..=rel.retries() {
        world.arrived.push((who.clone(), title.clone()));
        let retried = matches!(world.script.next(who),
            Reply::Error { status, .. } if retryable(rel, status));
        if !retried || attempt == rel.retries() {
            break;
        }
    }
}

/// A tool result as 0.20.0's own OpenAI-compatible client writes it back:
/// the AI SDK v5 output object made JSON text (`content:
/// JSON.stringify(toolResponse.output)`, 0.20.0 `dist/chunk-AND6J5LG.js:1469`),
/// `{"type":"json","value":...}` for a value and `{"type":"text","value":...}`
/// for a string (the sweep of every 0.x: `calls/client-and-server-tool-in-one-step`
/// on 0.20.0, `{"type":"text","value":""}` for the client tool's answer).
/// Elsewhere the content as it is.
pub(in crate::model) fn own_client_output(rel: &Release, content: ResultContent) -> ResultContent {
    if !rel.own_client() {
        return content;
    }
    let output = |kind: &str, value: Json| {
        ResultContent::Object(Json::object([("type", Json::str(kind)), ("value", value)]))
    };
    match content {
        ResultContent::Output(text) => match Json::parse(text) {
            Ok(value) if !matches!(value, Json::String(_)) => output("json", value),
            _ => output("text", Json::str(text)),
        },
        ResultContent::Object(value) => output("json", value),
        ResultContent::Message(m) => output("text", Json::String(m)),
    }
}

/// Why `case` cannot be built on `rel`'s 0.x install, as the probe finds
/// (`node-probe/legacy.mjs`, `missing`): a package its sources need that
/// the install goes without, the registry serving no release of it that
/// fits the core (`version::extras`), memory where it needs the network
/// (`MEMORY_EMBEDS_BY_DEFAULT`), or workflows before
/// `CREATE_WORKFLOW_SINCE`. Found by the sweep of every 0.x (0.14.0,
/// 0.15.x: no `@mastra/memory`; 0.19.1 and most releases before 0.10.5:
/// no `@mastra/mcp`).
pub(in crate::model) fn install_reason(case: &Case, rel: &Release) -> Option<String> {
    if !rel.on_0x() {
        return None;
    }
    let version = rel.version;
    let extras = crate::version::extras::extras(version);
    let lacks = |pkg: &str| !extras.iter().any(|(name, _)| *name == pkg);
    let src = &case.sources;
    if src.mcp.as_ref().is_some_and(|m| !m.is_empty()) && lacks("@mastra/mcp") {
        return Some(format!(
            "no @mastra/mcp release the registry serves accepts @mastra/core {version}"
        ));
    }
    if src.memory.is_some() && lacks("@mastra/memory") {
        return Some(format!(
            "no @mastra/memory release the registry serves accepts @mastra/core {version}"
        ));
    }
    if src.memory.is_some() && rel.memory_embeds_by_default {
        return Some(format!(
            "@mastra/core {version}'s memory embeds each message with its default embedder, fastembed, which downloads its model from storage.googleapis.com first: the call needs the network"
        ));
    }
    if src.workflows.is_some() && !rel.create_workflow {
        return Some(format!(
            "@mastra/core {version} does not export createWorkflow from @mastra/core/workflows"
        ));
    }
    None
}

/// An agent's calls of working memory, as 0.x's end of a call reads them.
/// When a tool message of the response names `updateWorkingMemory`, the
/// thread the title is saved on is read back from storage rather than
/// taken from the call (`usedWorkingMemory`: 0.24.9
/// `dist/chunk-GSQD3QNR.js:967`, 0.21.1 `dist/chunk-HBJVAMCS.js:917`).
/// Only working memory's own run saves the thread before that point, so
/// after calls of it none of which ran (rejected arguments, a name not
/// found) there is no thread: nothing is saved and no title asked for
/// (measured on 0.21.1 and 0.24.9: `cases/calls/reused-call-id-with-memory.json`,
/// `cases/zero/rejected-working-memory-call-asks-no-title.json`).
#[derive(Debug, Clone, Copy, Default)]
pub(in crate::model) struct WorkingMemoryCalls {
    called: bool,
    ran: bool,
}

impl WorkingMemoryCalls {
    /// Count one call written back under `name`, resolved as `r`.
    pub(in crate::model) fn note(&mut self, name: &JsString, r: &Resolved) {
        if *name == JsString::from(sources::WORKING_MEMORY_KEY) {
            self.called = true;
        }
        if matches!(r, Resolved::Run { runs: Runs::Fixed(t), .. } if *t == sources::WORKING_MEMORY_RESULT)
        {
            self.ran = true;
        }
    }

    /// Whether the end of the call finds a thread to save and title.
    fn thread_found(&self) -> bool {
        !self.called || self.ran
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
pub(in crate::model) fn client_or_workflow_run(
    rel: &Release,
    origin: &ToolOrigin,
    named: &JsString,
    arguments: &Json,
) -> Result<Runs, String> {
    match origin {
        // The v4 loop stops for a client tool, as 1.x does (the same case
        // on 0.13.1 and 0.13.2: one request), once the AI SDK has validated
        // its arguments: it refuses them as it refuses any tool's (found by
        // the fuzzer on 0.13.2, seed 1 cases 171 and 328).
        ToolOrigin::Client if on_v4_loop(rel) => {
            match validate(rel, Schema::City, named, arguments)? {
                Ok(_) => Ok(Runs::Fixed(CLIENT_STOPS)),
                Err(report) => Ok(Runs::Fails {
                    report,
                    sub_agent: false,
                }),
            }
        }
        ToolOrigin::Client if rel.history_per_call => Ok(Runs::Fixed(CLIENT_RESULT_EARLY)),
        ToolOrigin::Client => Ok(Runs::Fixed(CLIENT_RESULT)),
        _ => match validate(rel, Schema::City, named, arguments)? {
            Ok(input) => Ok(Runs::Output(workflow_result(rel, &input))),
            Err(report) => Ok(Runs::Fails {
                report,
                sub_agent: false,
            }),
        },
    }
}

/// What a workflow tool's run answers on 0.x: the whole run result, with
/// each step's payload, status, output and times (the probe's workflow has
/// one step, `weather`), then the run id; the times are compared zeroed
/// (`projection::zero_step_times_within`). Observed on every route of
/// 0.21.1 and 0.24.9 (the fuzzer, seed 1: cases 74, 491, 682, 853, 890,
/// 955 and four more, unmodelled while the model gave up on the times).
/// Earlier releases leave out the `input` and the wrapping with the run id
/// (`WORKFLOW_RESULT_WRAPPED_SINCE`, `WORKFLOW_RESULT_HAS_INPUT_SINCE`).
fn workflow_result(rel: &Release, input: &Json) -> Json {
    let success = || Json::str("success");
    let output = || Json::object([("tempC", Json::Number("20".to_string()))]);
    let weather = Json::object([
        ("payload", input.clone()),
        ("startedAt", Json::Number("0".to_string())),
        ("status", success()),
        ("output", output()),
        ("endedAt", Json::Number("0".to_string())),
    ]);
    let steps = Json::object([("input", input.clone()), ("weather", weather)]);
    let mut result = vec![("status", success()), ("steps", steps)];
    if rel.workflow_result_has_input {
        result.push(("input", input.clone()));
    }
    result.push(("result", output()));
    let result = Json::object(result);
    if !rel.workflow_result_wrapped {
        return result;
    }
    Json::object([("result", result), ("runId", Json::str("<uuid>"))])
}

/// The result a client tool's call gets on the later v5 releases
/// (`undefined`, sent as JSON `null`), and within `HISTORY_PER_CALL` (the
/// empty text: `cases/calls/client-and-server-tool-in-one-step.json` on
/// 0.21.1 to 0.24.2, the sweep in docs/figures/sweep-0x.md).
const CLIENT_RESULT: &str = "null";
const CLIENT_RESULT_EARLY: &str = "";
/// Marks a client tool's call on the v4 loop, which stops the loop (never
/// written back: a stopped step is not).
const CLIENT_STOPS: &str = "\u{0}client tool";

/// Whether a 0.x step ends the loop for the client: when no call of it
/// runs anything but client tools (`cases/replies/client-tool-call-stops-the-loop.json`
/// on 0.24.9: one request); a client call beside a tool that runs is
/// answered `null` and the loop goes on.
pub(in crate::model) fn step_stops(resolved: &[Resolved]) -> bool {
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
/// sent `stockPrice_*` ahead of `weather_*`). An index-like server name
/// has no place of its own then: its tools join when its listing arrives,
/// like any server's (`sources::mcp_tools_in`; found by the fuzzer on
/// 0.21.1 and 0.24.9, seed 1 cases 113, 330, 405 and four more,
/// `cases/zero/index-like-mcp-server-races-too.json`).
pub(in crate::model) fn mcp_orders(
    case: &Case,
    rel: &Release,
) -> Option<Result<Vec<Case>, String>> {
    // One `MastraMCPClient` per server is connected in turn: no race.
    if !rel.on_0x() || rel.mcp_client_of_one_server() {
        return None;
    }
    let servers = case.sources.mcp.as_deref().filter(|s| s.len() > 1)?;
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
/// client tools, sub-agents, workflows). Before `SUB_AGENT_TOOLS_SINCE`
/// sub-agents are not tools at all; on the v4 loop workflows are named by their key
/// (`cases/sources/merge-order-of-every-source.json` on 0.13.1: `w` last);
/// on the first v5 releases (`EARLY_V5`) both are named by their key (`a`,
/// `w`; `cases/sources/later-source-replaces-an-equal-key-silently.json` on
/// 0.21.1); later, as on 1.x, `agent-KEY` and `workflow-KEY`.
pub(in crate::model) fn convert_tools(
    rel: &Release,
    case: &Case,
    agent: &Record<ToolValue>,
    toolsets: &Record<ToolValue>,
    client: &Record<ToolValue>,
) -> Record<ToolValue> {
    let src = &case.sources;
    let agents = src.agents.as_deref().unwrap_or_default();
    let workflows = src.workflows.as_deref().unwrap_or_default();
    let by_key = rel.names_sources_by_key();
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
    if rel.client_tools {
        all.spread_from(client);
    }
    if rel.sub_agent_tools {
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

/// Whether `rel` runs the AI SDK v4 loop (0.x before 0.20.0).
fn on_v4_loop(rel: &Release) -> bool {
    !rel.v5_loop
}

/// Whether `case` is streamed on the AI SDK v4 loop.
fn on_v4_stream(case: &Case, rel: &Release) -> bool {
    case.call.method == Method::Stream && on_v4_loop(rel)
}

/// On the v4 loop's `generate` the AI SDK checks every call of a step
/// before any runs: a step with a call it refuses runs none (`step_fails`).
pub(in crate::model) fn throws_before_running(
    case: &Case,
    rel: &Release,
    resolved: &[Resolved],
) -> bool {
    case.call.method == Method::Generate && on_v4_loop(rel) && resolved.iter().any(refused_on_v4)
}

/// The step's calls without the ones the v4 stream refused, where it
/// refused some and went on (`step_fails`): those are not run, not
/// written back and stop nothing (sub-agents are no tools on the v4 loop,
/// so no sub-agent run is indexed by a call dropped here). `None` where
/// the step is what it was.
pub(in crate::model) fn calls_that_ran(case: &Case, rel: &Release, taken: &Taken) -> Option<Taken> {
    if !on_v4_stream(case, rel) || !taken.resolved.iter().any(refused_on_v4) {
        return None;
    }
    let (calls, resolved): (Vec<ToolCallReply>, Vec<Resolved>) = taken
        .calls
        .iter()
        .zip(&taken.resolved)
        .filter(|(_, r)| !refused_on_v4(r))
        .map(|(c, r)| (c.clone(), r.clone()))
        .unzip();
    Some(Taken {
        result_names: calls.iter().map(|c| c.name.clone()).collect(),
        calls,
        resolved,
        sent: taken.sent.clone(),
    })
}

/// Whether a call's result is written after the rest of its step's: on
/// the v4 stream the results go back in the order they settle, and an MCP
/// tool's crosses a process, so it settles after every run that does not
/// (found by the fuzzer on 0.13.2, seed 1 cases 1676 and 2247: an MCP call
/// ahead of a case tool's call, its result after the case tool's;
/// `cases/zero/v4-stream-mcp-result-settles-last.json`). Several MCP
/// results keep their calls' order, as every fuzz run of 0.13.2 has seen.
pub(in crate::model) fn settles_late(case: &Case, rel: &Release, r: &Resolved) -> bool {
    on_v4_stream(case, rel)
        && matches!(r, Resolved::Run { runs: Runs::Fixed(text), .. } if *text == sources::MCP_RESULT)
}

/// Whether the AI SDK v4 refuses a call before it runs (`refusal`).
pub(in crate::model) fn refused_on_v4(r: &Resolved) -> bool {
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

/// The error the AI SDK v4 refuses `call` with (`parseToolCall`):
/// - a name no tool has: "Model tried to call unavailable tool 'NAME'.
///   Available tools: A, B." (the sent names; `NoSuchToolError`);
/// - a name of `Object.prototype`: "Cannot read properties of undefined
///   (reading '_def')";
/// - arguments the schema rejects: `InvalidToolArgumentsError`, "Invalid
///   arguments for tool NAME: Type validation failed: Value: ARGS.\nError
///   message: ISSUES", the arguments as `JSON.stringify` writes them and
///   zod's issues as its error message does, indented by 2
///   (`cases/replies/bad-arguments.json`, `cases/calls/wrong-argument-type.json`,
///   `cases/calls/null-arguments.json` on 0.13.2).
fn refusal(agent: &Agent, call: &ToolCallReply, resolved: &Resolved) -> Result<JsString, String> {
    let name = &call.name;
    Ok(match resolved {
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
            // The AI SDK validates with the tool's own schema: the case
            // tools', a client tool's, an MCP tool's and a workflow's
            // `{ city }`, working memory's `{ memory }`.
            let schema = match agent.tools.get(name) {
                Lookup::Own(v) => match v.origin {
                    ToolOrigin::Ours
                    | ToolOrigin::Mcp(_)
                    | ToolOrigin::Workflow
                    | ToolOrigin::Client => Some(Schema::City),
                    ToolOrigin::WorkingMemory => Some(Schema::WorkingMemory),
                    _ => None,
                },
                _ => None,
            };
            let Some(field) = schema.and_then(Schema::string_field) else {
                return Err(
                    "arguments a sub-agent's or a builtin's schema rejects on 0.x's AI SDK v4 loop"
                        .into(),
                );
            };
            let mut m = JsString::from("Invalid arguments for tool ");
            m = m.concat(name);
            m.push_str(": Type validation failed: Value: ");
            m = m.concat(&JsString::from(call.arguments.to_compact().as_str()));
            m.push_str(".\nError message: ");
            m = m.concat(&JsString::from(
                Json::Array(zod_issues(field, &call.arguments))
                    .to_pretty()
                    .as_str(),
            ));
            m
        }
    })
}

/// How a 0.x step ends the call before its calls are written back, if it
/// does:
/// - on the v4 loop, at the first call the AI SDK refuses (`refusal`); as
///   `LLM_GENERATE_TEXT_AI_SDK_EXECUTION_FAILED` on `generate`, without an
///   id on `stream` (`cases/replies/call-by-*` on 0.13.1 and 0.13.2). On
///   `stream` each refused call is only an error part and the step's other
///   calls run: with any, the step is written back without the refused
///   ones and the loop goes on, the first part kept for the call's error
///   (`Agent::first_error_part`, `after_loop`; `cases/zero/v4-stream-*`
///   and the reused-id cases on 0.13.2);
/// - within `NO_TOOL_ENDS_SILENTLY`, a call naming no tool ends the loop: on
///   `generate` in "promise 'text' was not resolved or rejected when
///   stream finished", on `stream` silently (`cases/replies/call-by-unknown-name*`
///   on 0.21.1), after the step's other calls ran, a sub-agent's among
///   them.
pub(in crate::model) fn step_fails(
    case: &Case,
    rel: &Release,
    agent: &mut Agent,
    taken: &Taken,
) -> Result<Option<Ending>, String> {
    if !rel.on_0x() {
        return Ok(None);
    }
    let generate = case.call.method == Method::Generate;
    if !rel.v5_loop {
        let Some(i) = taken.resolved.iter().position(refused_on_v4) else {
            return Ok(None);
        };
        let id = (generate && rel.generate_error_id)
            .then_some("LLM_GENERATE_TEXT_AI_SDK_EXECUTION_FAILED");
        let error = ErrorView {
            id: id.map(JsString::from),
            message: refusal(agent, &taken.calls[i], &taken.resolved[i])?,
            cause_code: None,
        };
        if generate || taken.resolved.iter().all(refused_on_v4) {
            return Ok(Some(Ending::Error(error)));
        }
        agent.first_error_part.get_or_insert(error);
        return Ok(None);
    }
    if !rel.no_tool_ends_silently {
        return Ok(None);
    }
    // The step's other calls have run by then, a sub-agent's too (its
    // requests are sent), and none is written back (found by the fuzzer on
    // 0.21.1, seed 1: case 1808, a sub-agent called by its key beside a
    // call naming no tool, sends its request and the stream ends; case
    // 1217, the sub-agent's call rejected, nothing more is sent).
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
            Ending::Unanswered
        }));
    }
    Ok(None)
}

/// The tool result of a sub-agent whose own loop ends in an error (an API
/// error, "Tool X not found", the unresolved promise of
/// `NO_TOOL_ENDS_SILENTLY`) or with no answer. A sub-agent that is
/// streamed (on `stream`, and on `generate` before
/// `SUB_AGENT_GENERATED_SINCE`) is read from its `fullStream`, which ends
/// without throwing: the result is the empty text (0.24.9
/// `dist/chunk-GSQD3QNR.js:924`, `result={text:fullText,...}`). Run
/// through its `generate`, it throws; the agent tool's `execute` wraps it
/// (`AGENT_AGENT_TOOL_EXECUTION_FAILED`), and `createExecute` returns, not
/// throws, a `TOOL_EXECUTION_FAILED` `MastraError` with no text of its own
/// (0.24.9 `dist/chunk-BBE22VBK.js:552`), whose `toJSON` is `{ message,
/// details: toJSONDetails(), code }` (0.24.9 `dist/chunk-PZUZNPFM.js:150`):
/// the message is the wrapped error's, the cause is not written.
/// `argsJson` is the validated input, `model` the route's model id. Found
/// by the fuzzer on 0.24.9, seed 1 (cases 609 and 1608;
/// `cases/zero/sub-agent-failing-on-stream-answers-empty-text.json`).
pub(in crate::model) fn sub_agent_failed(
    case: &Case,
    rel: &Release,
    by_name: bool,
    key: &JsString,
    input: &Json,
) -> ResultContent {
    if case.call.method == Method::Stream || !rel.sub_agent_generated {
        return sources::sub_agent_result(
            rel,
            by_name,
            key,
            &JsString::new(),
            sources::SubAgentIds::of(rel, input, false),
            &[],
        );
    }
    let message = JsString::from("[Agent:probe] - Failed agent tool execution for ").concat(key);
    let details = Json::object([
        ("message", Json::String(message.clone())),
        ("domain", Json::str("TOOL")),
        ("category", Json::str("USER")),
        (
            "details",
            Json::object([
                (
                    "errorMessage",
                    Json::str("[Agent:probe] - Failed tool execution"),
                ),
                (
                    "argsJson",
                    Json::String(JsString::from(input.to_compact().as_str())),
                ),
                ("model", Json::str(sources::model_id(case.route))),
            ]),
        ),
    ]);
    ResultContent::Object(Json::object([
        ("message", Json::String(message)),
        ("details", details),
        ("code", Json::str("TOOL_EXECUTION_FAILED")),
    ]))
}

/// A call by a name of `Object.prototype` on the v5 loop: found (a
/// method, or the prototype itself, without `execute`), answered as a
/// client tool is (`step_stops`: alone it ends the loop), and the loop goes
/// on beside calls that run or are rejected (found by the fuzzer: on 0.24.9,
/// seed 1 case 154, `__proto__` beside a sub-agent's call; on 0.21.1, seed
/// 1 cases 750 and 830, `__proto__` beside a rejected `updateWorkingMemory`
/// call and `valueOf` beside a tool that runs, each answered `""`).
/// `None`: it stops the loop, as on 1.x.
pub(in crate::model) fn inherited(rel: &Release) -> Option<Resolved> {
    if !rel.on_0x() {
        return None;
    }
    let answer = if rel.history_per_call {
        CLIENT_RESULT_EARLY
    } else {
        CLIENT_RESULT
    };
    rel.v5_loop.then(|| Resolved::Run {
        id: JsString::new(),
        key: JsString::new(),
        by_name: true,
        runs: Runs::Fixed(answer),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{predict, Prediction};
    use crate::projection::Projection;
    use crate::route::Route;
    use crate::version::spec::MastraVersion;
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

    /// The last result the parent's last request carries, as text.
    fn last_result(p: &Projection) -> String {
        let history = &p.requests.last().unwrap().history;
        history
            .iter()
            .rev()
            .find_map(|h| match h {
                crate::projection::HistoryItem::Result { content, .. } => {
                    Some(content.to_compact())
                }
                _ => None,
            })
            .unwrap()
    }

    /// A sub-agent whose loop ends in an error answers the empty text where
    /// it is streamed, and Mastra's error object where it runs through its
    /// `generate` (under `generate` from `SUB_AGENT_GENERATED_SINCE`).
    #[test]
    fn a_failing_sub_agent_answers_by_how_it_ran() {
        let failing = |method: &str| {
            case(&format!(
                r#"{{"about": "a", "tools": ["b"], "agents": ["a"], "call": {{"method": "{method}"}},
                "replies": [{{"toolCalls": [{{"id": "call_1", "name": "agent-a", "arguments": {{"prompt": "Paris"}}}}]}}, {{"text": "done"}}],
                "subAgentReplies": {{"a": [{{"status": 400}}]}}}}"#
            ))
        };
        // The empty text, with the sub-agent's thread and resource.
        let empty = |p: &Projection| {
            let r = last_result(p);
            r.contains("subAgentThreadId") && !r.contains("TOOL_EXECUTION_FAILED")
        };
        assert!(empty(&projection(&failing("stream"), "0.24.9")));
        assert!(empty(&projection(&failing("generate"), "0.24.5")));
        let thrown = last_result(&projection(&failing("generate"), "0.24.6"));
        assert!(thrown.contains("TOOL_EXECUTION_FAILED"), "{thrown}");
        assert!(!thrown.contains("cause"), "{thrown}");
    }

    /// Memory on 0.4.2 to 0.9.4 needs the network (its default embedder's
    /// download): not applicable, with that reason; later releases run it.
    #[test]
    fn memory_that_downloads_its_embedder_is_not_applicable() {
        let c = case(r#"{"about": "a", "tools": ["a"], "memory": {"workingMemory": false}}"#);
        for v in ["0.4.2", "0.8.3", "0.9.1", "0.9.4"] {
            let p = projection(&c, v);
            assert!(!p.applicable, "{v}");
            assert!(p.reason.as_ref().unwrap().contains("fastembed"), "{v}");
        }
        assert!(projection(&c, "0.21.1").applicable);
    }

    /// Each switch on both sides of its boundary, and none on 1.x.
    #[test]
    fn each_switch_on_both_sides_of_its_boundary() {
        let z = |s: &str| Release::of(ver(s));
        assert!(!z("0.13.1").formats_tools && z("0.13.2").formats_tools);
        assert!(!z("0.19.1").active_tools_applied() && z("0.21.0").active_tools_applied());
        assert!(z("0.24.9").active_tools_applied());
        assert!(!z("0.19.1").v5_loop && z("0.20.0").v5_loop);
        assert!(!z("0.19.1").early_v5 && z("0.20.0").early_v5);
        assert!(z("0.21.1").early_v5 && !z("0.22.0").early_v5);
        assert!(!z("1.0.4").on_0x() && !z("1.0.4").early_v5);
        let rel = |s: &str| Release::of(ver(s));
        assert!(!rel("0.1.26").is_modelled() && rel("0.2.0").is_modelled());
        assert!(
            !rel("1.0.4").active_tools_applied(),
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

    /// 0.20.0 names no model on the routes whose AI SDK v5 provider its
    /// core does not bundle; 0.20.2 sends no `{ id, url }` model to its url.
    #[test]
    fn routes_without_a_model_on_the_first_v5_releases() {
        let rel = |s: &str| Release::of(ver(s));
        let reason = |s: &str, r: Route| route_reason(&rel(s), r).is_some();
        assert!(reason("0.20.0", Route::OpenAi) && reason("0.20.0", Route::Google));
        assert!(!reason("0.20.0", Route::Groq) && !reason("0.20.0", Route::OpenAiCompatible));
        assert!(reason("0.20.2", Route::OpenAiCompatible) && !reason("0.20.2", Route::Anthropic));
        assert!(!reason("0.21.0", Route::OpenAiCompatible));
        assert!(
            !reason("0.19.1", Route::OpenAi),
            "the v4 loop takes @ai-sdk/openai"
        );
        assert!(!reason("1.0.4", Route::OpenAiCompatible));
        let c = case(r#"{"about": "a", "tools": ["a"], "route": "openai-compatible"}"#);
        assert!(!projection(&c, "0.20.2").applicable);
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
