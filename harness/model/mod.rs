//! The reference model: `predict(Case, MastraVersion) -> Projection`.
//!
//! It replays, step by step, what `@mastra/core` does with a case's tools:
//! 1. build the three tools objects the case describes (`Object.fromEntries`);
//! 2. copy them the way Mastra does (`ensureToolProperties` assigns into `{}`,
//!    `listToolsets` and `listClientTools` assign, `convertTools` spreads
//!    agent tools, memory tools, toolsets, client tools, sub-agents and
//!    workflows into one record; MCP tools join the agent's tools the way
//!    users add them: `sources`);
//! 3. run `formatTools` on that record (`rewrite`);
//! 4. decide `tools` and `tool_choice` (`prepareToolsAndToolChoice`, then the
//!    route's provider `prepareTools`, in `route`);
//! 5. play the scripted replies through the agent loop: which tool each call
//!    finds, what executes, what the next request carries back.
//!
//! Each release's differences are switches in `releases`. Where a case
//! reaches something the model does not cover, the projection says
//! `unmodelled` with the reason, rather than guess.

pub mod record;
pub mod releases;
pub mod rewrite;
pub mod route;
pub mod sources;

use crate::case::{Case, Method, Reply, Tool, ToolCallReply, ToolChoice, STANDARD_ID};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::projection::{ErrorView, Executed, HistoryItem, Projection, RequestView};
use crate::versions::spec::MastraVersion;
use record::{Lookup, Record};
use releases::Release;
use rewrite::{format_tools, FormatError};
use route::ResultContent;

/// The model's answer: a projection, or the reason it cannot give one.
#[derive(Debug, Clone, PartialEq)]
pub enum Prediction {
    Projection(Projection),
    Unmodelled(String),
}

impl Prediction {
    pub fn to_json(&self) -> Json {
        match self {
            Prediction::Projection(p) => p.to_json(),
            Prediction::Unmodelled(reason) => Json::object([("unmodelled", Json::str(reason))]),
        }
    }
}

/// A tool as Mastra holds it once converted.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ToolValue {
    id: JsString,
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// The standard tool or a custom one: same schema, same `execute`.
    Ours,
    Builtin(String),
    /// Given as a client tool: Mastra strips `execute`.
    Client,
    /// A sub-agent registered under this key (`agent-KEY`).
    SubAgent(JsString),
    /// A workflow (`workflow-KEY`).
    Workflow,
    /// A tool an MCP server lists (`SERVER_TOOL`): the server runs it.
    Mcp,
    /// Memory's `updateWorkingMemory`.
    WorkingMemory,
}

fn value_of(tool: &Tool, client: bool) -> ToolValue {
    let (id, kind) = match tool {
        Tool::Standard(_) => (JsString::from(STANDARD_ID), Kind::Ours),
        Tool::Custom { id, .. } => (id.clone(), Kind::Ours),
        Tool::Builtin { name, .. } => (
            JsString::from(releases::builtin_id(name).unwrap_or(name.as_str())),
            Kind::Builtin(name.clone()),
        ),
    };
    ToolValue {
        id,
        kind: if client { Kind::Client } else { kind },
    }
}

fn entries(tools: &[Tool], client: bool) -> Record<ToolValue> {
    Record::from_entries(tools.iter().map(|t| (t.key().clone(), value_of(t, client))))
}

/// Mastra's request record, before `formatTools`.
fn merged_tools(case: &Case) -> Record<ToolValue> {
    let src = &case.sources;
    // The agent's tools: the case's object, then (as users write it)
    // `{ ...tools, ...(await mcp.listTools()) }`; given as is or returned by
    // a function of the request context (`dynamicTools`): both go through
    // the same `ensureToolProperties` (1.0.4 `listTools`, 1.67.0 and 1.71.0
    // `resolveToolList`).
    let mut given = entries(&case.tools, false);
    if let Some(servers) = src.mcp.as_deref().filter(|s| !s.is_empty()) {
        given.spread_from(&sources::mcp_tools(servers));
    }
    // ensureToolProperties: `acc[key] = tool` over Object.keys — an own
    // "__proto__" key is lost to the setter here.
    let mut agent = Record::new();
    for (k, v) in given.entries() {
        agent.assign(k.clone(), v.clone());
    }
    // listToolsets: toolsets in Object.values order (the case's `toolsets`
    // object is built by JSON.parse, so index-like names come first), each
    // toolset's entries assigned into one record.
    let mut toolset_tools = Record::new();
    if let Some(sets) = &case.toolsets {
        let sets = Record::from_entries(sets.iter().cloned());
        for list in sets.values() {
            for (k, v) in entries(list, false).entries() {
                toolset_tools.assign(k.clone(), v.clone());
            }
        }
    }
    let mut client_tools = Record::new();
    for (k, v) in entries(case.client_tools.as_deref().unwrap_or_default(), true).entries() {
        client_tools.assign(k.clone(), v.clone());
    }
    // convertTools: `{ ...assignedTools, ...memoryTools, ...toolsetTools,
    // ...clientSideTools, ...agentTools, ...workflowTools }` on every 1.x
    // (1.67.0 and 1.71.0 spread workspace, skill and browser tools after
    // them, which a case never has). A later source replaces an equal key
    // silently, keeping the first one's position.
    let mut all = Record::new();
    all.spread_from(&agent);
    all.spread_from(&sources::memory_tools(src.memory));
    all.spread_from(&toolset_tools);
    all.spread_from(&client_tools);
    all.spread_from(&sources::agent_tools(
        src.agents.as_deref().unwrap_or_default(),
    ));
    all.spread_from(&sources::workflow_tools(
        src.workflows.as_deref().unwrap_or_default(),
    ));
    all
}

/// What every request of the case carries in `tools` and `tool_choice`.
fn offered(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
) -> (Option<Vec<JsString>>, Option<Json>) {
    if rel.none_drops_tools && case.call.tool_choice == Some(ToolChoice::None) {
        return (None, None);
    }
    let mut names = tools.keys();
    if rel.active_tools_applied {
        if let Some(active) = &case.call.active_tools {
            names.retain(|n| active.contains(n));
        }
    }
    // Mastra returns no tools for an empty record; every provider drops an
    // empty list, and with it `tool_choice`.
    if names.is_empty() {
        return (None, None);
    }
    route::offer_on(case.route, rel, names, &case.call.tool_choice)
}

/// The default `maxSteps` of the agent loop.
pub const DEFAULT_MAX_STEPS: u32 = 5;

/// The one execute result of the case tools, as the tool message carries it.
const TOOL_RESULT: &str = "{\"tempC\":20}";

/// How one call of a scripted reply resolves.
enum Resolved {
    Run {
        id: JsString,
        /// Found under its own name (`stepTools[name]`), not by its id:
        /// such a call can start while a stream is still arriving.
        by_name: bool,
        runs: Runs,
    },
    /// A tool without `execute` (a client tool, or a property of
    /// `Object.prototype`): the loop stops for the client to act.
    Stop,
    NotFound {
        available: Vec<JsString>,
    },
}

/// What a found, executable call runs.
#[derive(Debug, Clone, PartialEq)]
enum Runs {
    /// A case tool's `execute`: listed in `executed`, answers `TOOL_RESULT`.
    Ours,
    /// A run whose result is fixed text (an MCP server's tool, a workflow,
    /// working memory); not a case tool, so not listed in `executed`.
    Fixed(&'static str),
    /// A sub-agent: its own request takes the next reply.
    SubAgent { key: JsString, prompt: JsString },
    /// A run that fails before it starts; its tool result is this report.
    Fails(Json),
}

/// The only arguments a call of each kind is modelled with: the one shape
/// its input schema accepts. Validation messages for other shapes differ
/// between the zod and JSON Schema validators across releases; the fuzzer
/// never sends them (`loops::fuzz::gen::fit_calls`).
fn single_string_member(args: &Json, name: &str) -> Option<JsString> {
    match args.members().as_deref() {
        Some([(k, Json::String(v))]) if **k == JsString::from(name) => Some(v.clone()),
        _ => None,
    }
}

fn runs_of(
    rel: &Release,
    kind: &Kind,
    id: &JsString,
    args: &Json,
    memory: bool,
) -> Result<Runs, String> {
    let shape_error = |shape: &str| {
        format!("tool arguments other than {shape}: validation messages are not modelled")
    };
    match kind {
        Kind::Ours => single_string_member(args, "city")
            .map(|_| Runs::Ours)
            .ok_or_else(|| shape_error("{ city: string }")),
        Kind::Mcp => single_string_member(args, "city")
            .map(|_| Runs::Fixed(sources::MCP_RESULT))
            .ok_or_else(|| shape_error("{ city: string } for an MCP tool")),
        Kind::Workflow => {
            let inner = match args.members().as_deref() {
                Some([(k, v)]) if **k == JsString::from("inputData") => {
                    single_string_member(v, "city")
                }
                _ => None,
            };
            inner
                .map(|_| Runs::Fixed(sources::WORKFLOW_RESULT))
                .ok_or_else(|| shape_error("{ inputData: { city: string } } for a workflow"))
        }
        Kind::WorkingMemory => single_string_member(args, "memory")
            .map(|_| Runs::Fixed(sources::WORKING_MEMORY_RESULT))
            .ok_or_else(|| shape_error("{ memory: string } for updateWorkingMemory")),
        Kind::SubAgent(key) => {
            let prompt = single_string_member(args, "prompt")
                .ok_or_else(|| shape_error("{ prompt: string } for a sub-agent"))?;
            Ok(
                match sources::sub_agent_schema_rejects(rel, id, &prompt, memory) {
                    Some(message) => Runs::Fails(message),
                    None => Runs::SubAgent {
                        key: key.clone(),
                        prompt,
                    },
                },
            )
        }
        Kind::Builtin(_) | Kind::Client => unreachable!("resolved before"),
    }
}

fn resolve(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    call: &ToolCallReply,
) -> Result<Resolved, String> {
    let name = &call.name;
    // `stepTools?.[name] || Object.values(stepTools).find(t => t.id === name)`
    let (key, found) = match tools.get(name) {
        Lookup::Own(v) => (Some(name.clone()), Some(v.clone())),
        Lookup::Inherited => (Some(name.clone()), None),
        Lookup::Missing => match tools.entries().into_iter().find(|(_, v)| v.id == *name) {
            Some((k, v)) => (Some(k.clone()), Some(v.clone())),
            None => (None, None),
        },
    };
    let active = case
        .call
        .active_tools
        .as_ref()
        .filter(|_| rel.active_tools_applied);
    let hidden = rel.hidden_is_not_found
        && key
            .as_ref()
            .is_some_and(|k| active.is_some_and(|a| !a.contains(k)));
    if key.is_none() || hidden {
        // From 1.11.0 the list offered back is activeTools as given (even
        // `[]`); before, every formatted name, activeTools or not.
        let available = match active {
            Some(a) if rel.hidden_is_not_found => a.clone(),
            _ => tools.keys(),
        };
        return Ok(Resolved::NotFound { available });
    }
    match found {
        None => Ok(Resolved::Stop),
        Some(ToolValue {
            kind: Kind::Client, ..
        }) => Ok(Resolved::Stop),
        Some(ToolValue {
            kind: Kind::Builtin(b),
            ..
        }) => Err(format!(
            "a call to the builtin {b}: its execute is Mastra's"
        )),
        Some(ToolValue { id, kind }) => {
            let memory = case.sources.memory.is_some();
            let runs = runs_of(rel, &kind, &id, &call.arguments, memory)?;
            Ok(Resolved::Run {
                id,
                by_name: matches!(tools.get(name), Lookup::Own(_)),
                runs,
            })
        }
    }
}

fn not_found_message(name: &JsString, available: &[JsString]) -> JsString {
    let mut m = JsString::from("Tool \"");
    m = m.concat(name);
    m.push_str("\" not found.");
    if !available.is_empty() {
        m.push_str(" Available tools: ");
        for (i, n) in available.iter().enumerate() {
            if i > 0 {
                m.push_str(", ");
            }
            m = m.concat(n);
        }
    }
    m.push_str(
        ". Call tools by their exact name only — never add prefixes, namespaces, or colons.",
    );
    m
}

/// The name a history entry carries (`sanitizeToolName` in the prompt
/// builder, from 1.9.0).
fn history_name(rel: &Release, name: &JsString) -> JsString {
    let ok = !name.is_empty()
        && name.all_units(|u| matches!(u, 0x30..=0x39 | 0x41..=0x5A | 0x61..=0x7A | 0x5F | 0x2D));
    if rel.history_names_sanitised && !ok {
        JsString::from("unknown_tool")
    } else {
        name.clone()
    }
}

fn is_retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || status >= 500
}

fn error_view(id: Option<&str>, message: JsString, cause: Option<&str>) -> ErrorView {
    ErrorView {
        id: id.map(JsString::from),
        message,
        cause_code: cause.map(JsString::from),
    }
}

/// What a call by some name reaches in a case's formatted record, whatever
/// the version: the fuzzer fits each scripted call's arguments to it, and
/// keeps out of its cases what the model does not cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallTarget {
    /// No tool has that name or id.
    Missing,
    /// A tool without `execute` (a client tool, an `Object.prototype`
    /// name): the loop stops for the client.
    Stops,
    /// A builtin: its `execute` is Mastra's own.
    Builtin,
    /// A case tool; arguments `{ city }`.
    Ours,
    /// An MCP server's tool; arguments `{ city }`.
    Mcp,
    /// A workflow; arguments `{ inputData: { city } }`.
    Workflow,
    /// A sub-agent; arguments `{ prompt }`, and its own request.
    SubAgent,
    /// `updateWorkingMemory`; arguments `{ memory }`.
    WorkingMemory,
}

/// The target of a call by `name` in `case`, or `None` when the case's
/// tools never reach a request (a collision, the empty key).
pub fn call_target(case: &Case, name: &JsString) -> Option<CallTarget> {
    let mut tools = merged_tools(case);
    format_tools(&mut tools).ok()?;
    let found = match tools.get(name) {
        Lookup::Own(v) => Some(v.clone()),
        Lookup::Inherited => return Some(CallTarget::Stops),
        Lookup::Missing => tools.values().into_iter().find(|v| v.id == *name).cloned(),
    };
    Some(match found.map(|v| v.kind) {
        None => CallTarget::Missing,
        Some(Kind::Client) => CallTarget::Stops,
        Some(Kind::Builtin(_)) => CallTarget::Builtin,
        Some(Kind::Ours) => CallTarget::Ours,
        Some(Kind::Mcp) => CallTarget::Mcp,
        Some(Kind::Workflow) => CallTarget::Workflow,
        Some(Kind::SubAgent(_)) => CallTarget::SubAgent,
        Some(Kind::WorkingMemory) => CallTarget::WorkingMemory,
    })
}

/// Predict what `case` does on `version`. A prerelease or a build is
/// predicted as the release it says it is (`MastraVersion::release`): the
/// model knows releases, and a build's package.json is its only claim.
pub fn predict(case: &Case, version: MastraVersion) -> Prediction {
    let version = version.release();
    let rel = Release::of(version);
    if !rel.is_modelled() {
        return Prediction::Unmodelled(format!(
            "@mastra/core {version} is outside the 1.x line the model was swept on"
        ));
    }
    let web_search = |t: &Tool| matches!(t, Tool::Builtin { name, .. } if name == "webSearchTool");
    if rel.exports_builtin("webSearchTool") && case.all_tools().any(web_search) {
        return Prediction::Unmodelled(
            "webSearchTool is swapped for the provider's own web search".into(),
        );
    }
    if let Some(name) = case.all_tools().find_map(|t| match t {
        Tool::Builtin { name, .. } if !rel.exports_builtin(name) => Some(name.clone()),
        _ => None,
    }) {
        return Prediction::Projection(Projection::not_applicable(format!(
            "@mastra/core {version} does not export {name}"
        )));
    }
    match run(case, &rel) {
        Ok(p) => Prediction::Projection(p),
        Err(reason) => Prediction::Unmodelled(reason),
    }
}

/// A call whose tool failed (`output-error` in Mastra's message list): the
/// step it was made in, the call, and the error text its result carries.
struct FailedCall {
    step: usize,
    call: ToolCallReply,
    error: JsString,
}

fn run(case: &Case, rel: &Release) -> Result<Projection, String> {
    let mut failed = Vec::new();
    let mut p = run_steps(case, rel, &mut failed)?;
    if rel.tool_error_ends_memory_calls && case.sources.memory.is_some() {
        if let Some(first) = failed.first() {
            p.error = Some(tool_invocation_error(case, rel, first)?);
        }
    }
    Ok(p)
}

/// The error a call with memory options ends in on the releases where a
/// failed tool call breaks the AI SDK v4 view of the message list
/// (`TOOL_ERROR_ENDS_MEMORY_CALLS`): the first failed call, in step and
/// call order, as `convertToCoreMessages` finds it without a result.
fn tool_invocation_error(
    case: &Case,
    rel: &Release,
    first: &FailedCall,
) -> Result<ErrorView, String> {
    if case.route.wire() == crate::route::Wire::GenerateContent {
        // The invocation names its call id, which on google is the AI SDK's
        // own, random (measured on 1.57.0: "7jsCLftK4XJpsghT").
        return Err("a failed tool call with memory on google on 1.57.0: the error names the AI SDK's random call id".into());
    }
    // (Call ids are unique here: a repeated one is unmodelled in the loop.)
    // `{ step, ...toolInvocation }`: one `step-start` part precedes each
    // step after the first in the response's one assistant message, and
    // the count starts at -1, so the first step has no `step`.
    let mut members = Vec::new();
    if first.step > 0 {
        members.push(("step", Json::int(first.step as i64 - 1)));
    }
    members.extend([
        ("state", Json::str("output-error")),
        ("toolCallId", Json::String(first.call.id.clone())),
        (
            "toolName",
            Json::String(history_name(rel, &first.call.name)),
        ),
        ("args", first.call.arguments.clone()),
        ("errorText", Json::String(first.error.clone())),
    ]);
    let mut message = JsString::from("ToolInvocation must have a result: ");
    message.push_str(&Json::object(members).to_compact());
    Ok(error_view(None, message, None))
}

fn run_steps(
    case: &Case,
    rel: &Release,
    failed: &mut Vec<FailedCall>,
) -> Result<Projection, String> {
    let mut p = Projection::empty();
    let mut tools = merged_tools(case);
    let failed_id = match case.call.method {
        Method::Generate => "AGENT_GENERATE_FAILED",
        Method::Stream => "AGENT_STREAM_FAILED",
    };
    // listAgentTools runs before formatTools: on the releases where it
    // throws for any sub-agent, that is the call's error.
    let has_sub_agents = case.sources.agents.as_ref().is_some_and(|a| !a.is_empty());
    if rel.sub_agents_throw && has_sub_agents {
        let message = JsString::from(releases::SUB_AGENTS_THROW_MESSAGE);
        p.error = Some(error_view(Some(failed_id), message, None));
        return Ok(p);
    }
    if let Err(e) = format_tools(&mut tools) {
        let cause = match e {
            FormatError::Collision { .. } => Some("AGENT_TOOL_NAME_COLLISION"),
            FormatError::EmptyKey => None,
        };
        p.error = Some(error_view(Some(failed_id), e.message(), cause));
        return Ok(p);
    }
    let (names, choice) = offered(case, rel, &tools);
    let max_steps = case.call.max_steps.unwrap_or(DEFAULT_MAX_STEPS);
    let mut replies = case.replies.iter();
    let mut next_reply = || replies.next().cloned().unwrap_or_else(Reply::default_reply);
    // Steps so far: each is the calls the model made and their results.
    let mut steps: Vec<(Vec<HistoryItem>, Vec<HistoryItem>)> = Vec::new();

    let mut call_ids: Vec<JsString> = Vec::new();
    for step in 0..max_steps as usize {
        let history = if rel.history_per_step {
            steps
                .iter()
                .flat_map(|(calls, results)| calls.iter().chain(results))
                .cloned()
                .collect()
        } else {
            let calls = steps.iter().flat_map(|(c, _)| c.iter());
            let results = steps.iter().flat_map(|(_, r)| r.iter());
            calls.chain(results).cloned().collect()
        };
        let request = RequestView {
            tools: names.clone(),
            tool_choice: choice.clone(),
            history,
        };
        // The first attempt, then the retries a retryable error allows;
        // every attempt is a request and takes the next reply.
        let mut reply = None;
        for attempt in 0..=rel.retries {
            p.requests.push(request.clone());
            match next_reply() {
                Reply::Error { status, .. } if is_retryable(status) && attempt < rel.retries => {
                    continue
                }
                Reply::Error { .. } => break,
                ok => {
                    reply = Some(ok);
                    break;
                }
            }
        }
        // An error reply ends the call with the API-call error it caused,
        // which a projection writes as no error.
        let Some(reply) = reply else { return Ok(p) };
        let calls = match reply {
            Reply::Text(_) => return Ok(p),
            Reply::ToolCalls(calls) => calls,
            // Not reached: error replies left the attempt loop without a reply.
            Reply::Error { .. } => return Ok(p),
        };
        // Mastra's message list keeps one tool invocation per call id: a
        // call whose id an earlier call of the run (or of this step) had
        // replaces it in history (measured on every release from 1.0.4 to
        // 1.71.0: the earlier call's name and the later result before
        // 1.16.0, the later call and result from it). Not on google, whose
        // calls carry the AI SDK's own ids. The fuzzer numbers its calls
        // across the whole case, so it never repeats one.
        let ids_are_the_cases = case.route.wire() != crate::route::Wire::GenerateContent;
        for call in calls.iter().filter(|_| ids_are_the_cases) {
            if call_ids.contains(&call.id) {
                return Err(
                    "a tool call id used twice in one run: the message list merges them".into(),
                );
            }
            call_ids.push(call.id.clone());
        }
        let resolved = calls
            .iter()
            .map(|c| resolve(case, rel, &tools, c))
            .collect::<Result<Vec<_>, _>>()?;
        let stops = resolved
            .iter()
            .filter(|r| matches!(r, Resolved::Stop))
            .count();
        if stops > 0 {
            if stops != resolved.len() {
                return Err(
                    "one step mixing calls that execute and calls that wait for the client".into(),
                );
            }
            return Ok(p);
        }
        let missing = resolved
            .iter()
            .any(|r| matches!(r, Resolved::NotFound { .. }));
        if missing && !rel.not_found_is_a_result {
            if calls.len() > 1 {
                return Err("a missing tool among several calls of one step, before 1.4.0".into());
            }
            let mut message = JsString::from("Tool ");
            message = message.concat(&calls[0].name);
            message.push_str(" not found");
            p.error = Some(error_view(None, message, None));
            return Ok(p);
        }
        // Eager execution (stream, from 1.71.0): each call found under its
        // own name starts as its chunk completes; the rest start after the
        // stream, in the step's foreach. History keeps the calls' order.
        let eager = rel.eager_stream_tools && case.call.method == Method::Stream;
        let runs = calls.iter().zip(&resolved).filter_map(|(call, r)| match r {
            Resolved::Run {
                id,
                by_name,
                runs: Runs::Ours,
            } => Some((call, id, *by_name)),
            _ => None,
        });
        let (first, later): (Vec<_>, Vec<_>) = runs.partition(|(_, _, by_name)| !eager || *by_name);
        for (call, id, _) in first.into_iter().chain(later) {
            p.executed.push(Executed {
                id: id.clone(),
                input: call.arguments.clone(),
            });
        }
        // A sub-agent's run is its own agent call: one request (no tools but
        // memory's, no history but the parent's on some releases) that
        // takes the next reply, made while the step executes.
        let sub_agents = resolved
            .iter()
            .filter(|r| {
                matches!(
                    r,
                    Resolved::Run {
                        runs: Runs::SubAgent { .. },
                        ..
                    }
                )
            })
            .count();
        if sub_agents > 1 {
            return Err(
                "several sub-agent calls in one step: their requests race for the replies".into(),
            );
        }
        let mut sub_agent_text = None;
        if sub_agents == 1 {
            // The sub-agent borrows the parent's memory (`__setMemory`) and
            // is called with its thread and resource, so working memory's
            // tool is its one tool (found by the fuzzer, seed 1 case 986).
            // Its request is on the parent's route, so the tool and the
            // (default) choice are written as that route writes them
            // (`{"type":"auto"}` on anthropic: seed 1 case 3392 on 1.0.4).
            let working_memory = case.sources.memory.is_some_and(|m| m.working_memory);
            let (tools, tool_choice) = if working_memory {
                route::offer_on(
                    case.route,
                    rel,
                    vec![JsString::from(sources::WORKING_MEMORY_KEY)],
                    &None,
                )
            } else {
                (None, None)
            };
            // On the releases that hand it the parent's messages, those are
            // the steps before this one, as this step's request carried
            // them (merged or per step, names sanitised or not): calls of
            // this same step, executed or not, are not among them
            // (measured on 1.8.0 and 1.9.0 with a call beside the
            // sub-agent's).
            let history = if rel.sub_agent_parent_history {
                request.history.clone()
            } else {
                Vec::new()
            };
            p.requests.push(RequestView {
                tools,
                tool_choice,
                history,
            });
            match next_reply() {
                Reply::Text(t) => sub_agent_text = Some(t),
                _ => {
                    return Err(
                        "a sub-agent's request answered by something other than text".into(),
                    )
                }
            }
        }
        let mut call_items = Vec::new();
        let mut result_items = Vec::new();
        for (i, (call, r)) in calls.iter().zip(&resolved).enumerate() {
            let name = history_name(rel, &call.name);
            call_items.push(route::call_on(case.route, rel, i, name.clone()));
            let content = match r {
                Resolved::Run { runs, .. } => match runs {
                    Runs::Ours => ResultContent::Output(TOOL_RESULT),
                    Runs::Fixed(text) => ResultContent::Output(text),
                    Runs::Fails(report) => ResultContent::Object(report.clone()),
                    Runs::SubAgent { key, .. } => sources::sub_agent_result(
                        rel,
                        matches!(r, Resolved::Run { by_name: true, .. }),
                        key,
                        sub_agent_text.as_ref().unwrap_or(&JsString::new()),
                        case.sources.memory.is_some(),
                    ),
                },
                Resolved::NotFound { available } => {
                    let message = not_found_message(&call.name, available);
                    failed.push(FailedCall {
                        step,
                        call: call.clone(),
                        error: message.clone(),
                    });
                    ResultContent::Message(message)
                }
                // Not reached: a step with a stop returned above.
                Resolved::Stop => continue,
            };
            result_items.push(route::result_on(case.route, &call.id, &name, content));
        }
        steps.push((call_items, result_items));
    }
    Ok(p)
}

#[cfg(test)]
mod tests;
