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
//! 5. play the scripted replies through the agent loop (`steps`): which
//!    tool each call finds, what executes, what the next request carries
//!    back.
//!
//! Each release's differences are switches in `releases`. Where a case
//! reaches something the model does not cover, the projection says
//! `unmodelled` with the reason, rather than guess.

mod approval;
mod builtins;
pub mod code_mode;
mod legacy_approval;
mod lookups;
mod network;
pub mod record;
pub mod releases;
pub mod rewrite;
pub mod route;
pub mod sources;
mod steps;
mod tool_call_filter;
mod tool_search;
mod turns;
mod validate;

pub use steps::DEFAULT_MAX_STEPS;

use crate::case::{Case, Method, Tool, ToolChoice};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::projection::{self, ErrorView, Projection};
use crate::version::spec::MastraVersion;
use record::{Lookup, Record};
use releases::Release;
use rewrite::{format_tools, FormatError};

/// The model's answer: a projection, the projections a case can give when
/// its result depends on the order concurrent requests arrive in, or the
/// reason it cannot give one.
#[derive(Debug, Clone, PartialEq)]
pub enum Prediction {
    Projection(Projection),
    /// Two or more projections, distinct, each what one arrival order of
    /// concurrent requests gives (`steps::run_loop`).
    Races(Vec<Projection>),
    /// The projection, on a release whose `fullStream` may lose chunks
    /// (`TRACED_STREAM_KEEPS_CHUNKS`): what the user's code is handed may
    /// lack some of `seen`'s stream chunks, `toolCalls` and `toolResults`,
    /// which chunks depending on how the streams' queues fill. Everything
    /// else is exact.
    Dropping(Projection),
    Unmodelled(String),
}

impl Prediction {
    pub fn to_json(&self) -> Json {
        match self {
            Prediction::Projection(p) => p.to_json(),
            Prediction::Races(ps) => Json::object([(
                "nondeterministic",
                Json::Array(ps.iter().map(Projection::to_json).collect()),
            )]),
            Prediction::Dropping(p) => Json::object([("mayDropStreamChunks", p.to_json())]),
            Prediction::Unmodelled(reason) => Json::object([("unmodelled", Json::str(reason))]),
        }
    }
}

/// A tool as Mastra holds it once converted.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ToolValue {
    id: JsString,
    /// Its key in Mastra's record before `formatTools`: the name a
    /// validation report gives it (`options.name`, 1.67.0
    /// `dist/utils-CyZ0Xi-1.js:552`; observed on 1.0.4, 1.67.0 and 1.71.0,
    /// `cases/replies/bad-arguments.json`).
    key: JsString,
    origin: ToolOrigin,
}

/// Where a converted tool comes from, which decides what a call of it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ToolOrigin {
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
    /// The server's name, as its tool spans give it (`MCP_TOOL_SPANS`).
    Mcp(JsString),
    /// Memory's `updateWorkingMemory`.
    WorkingMemory,
    /// `search_tools` or `load_tool` of a `toolSearch` processor.
    Search(tool_search::Meta),
    /// The `workspace`'s read tool.
    Workspace,
    /// Code Mode's `execute_typescript` (`codeMode`).
    CodeMode,
}

fn value_of(tool: &Tool, client: bool) -> ToolValue {
    let key = tool.key().clone();
    let origin = match tool {
        Tool::Standard(_) | Tool::Custom { .. } => ToolOrigin::Ours,
        Tool::Builtin { name, .. } => ToolOrigin::Builtin(name.clone()),
    };
    ToolValue {
        id: tool.id(),
        key,
        origin: if client { ToolOrigin::Client } else { origin },
    }
}

fn entries(tools: &[Tool], client: bool) -> Record<ToolValue> {
    Record::from_entries(tools.iter().map(|t| (t.key().clone(), value_of(t, client))))
}

/// Mastra's request record, before `formatTools`, as 1.x builds it (the
/// workspace's tools after the others, as from 1.9.0).
fn merged_tools(case: &Case) -> Record<ToolValue> {
    if case.code_mode.is_some() {
        return code_mode::tools();
    }
    let mut all = merged_tools_on(case, None);
    all.spread_from(&sources::workspace_tools(case.workspace.as_ref(), true));
    all
}

/// Mastra's request record, before `formatTools`, as the release builds
/// it: `merged_tools_on`, then the `workspace`'s tool, under the name given
/// from 1.9.0 (`WORKSPACE_TOOL_RENAMES`), else its own. `formatTools`
/// moves each key it rewrites to the end, so the read tool, whose own name
/// needs no rewrite, comes before the rewritten ones (observed on 1.1.0 to
/// 1.8.0: `cases/workspace/beside-*`).
fn tools_on(case: &Case, rel: &Release) -> Record<ToolValue> {
    if case.code_mode.is_some() {
        return code_mode::tools();
    }
    let mut all = merged_tools_on(case, rel.on_0x().then_some(rel));
    if case.workspace.is_some() {
        let renames = rel.workspace_tool_renames;
        all.spread_from(&sources::workspace_tools(case.workspace.as_ref(), renames));
    }
    all
}

/// Mastra's request record, before `formatTools`, as the release builds it
/// (`legacy_loop::convert_tools` on 0.x, whose `Release` is `zero`).
fn merged_tools_on(case: &Case, zero: Option<&Release>) -> Record<ToolValue> {
    let src = &case.sources;
    let agent = agent_tools_on(case, zero);
    // listToolsets: toolsets in Object.values order (the case's `toolsets`
    // object is built by JSON.parse, so index-like names come first), each
    // toolset's entries assigned into one record.
    // `mcpListing: "listToolsets"`: the servers' toolsets spread after the
    // case's (`{ ...toolsets, ...(await mcp.listToolsets()) }`), a server
    // replacing a toolset of its name in its place.
    let mut sets = Record::from_entries(
        case.toolsets
            .iter()
            .flatten()
            .map(|(name, list)| (name.clone(), entries(list, false))),
    );
    if let Some(servers) = src.mcp.as_deref().filter(|_| src.mcp_toolsets()) {
        for (server, set) in sources::mcp_toolsets_in(servers) {
            sets.assign(server, set);
        }
    }
    let mut toolset_tools = Record::new();
    for set in sets.values() {
        for (k, v) in set.entries() {
            toolset_tools.assign(k.clone(), v.clone());
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
    if let Some(z) = zero {
        return steps::legacy_loop::convert_tools(z, case, &agent, &toolset_tools, &client_tools);
    }
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

/// The agent's own tools record as the release holds it: what its tool
/// listing returns (`lookups`), and where the request record starts.
fn agent_tools_on(case: &Case, zero: Option<&Release>) -> Record<ToolValue> {
    // The agent's tools: the case's object, then (as users write it)
    // `{ ...tools, ...(await mcp.listTools()) }`; given as is or returned by
    // a function of the request context (`dynamicTools`): both go through
    // the same `ensureToolProperties` (1.0.4 `listTools`, 1.67.0 and 1.71.0
    // `resolveToolList`).
    let src = &case.sources;
    let mut given = entries(&case.tools, false);
    if src.dynamic_tools && zero.is_some_and(|z| !z.dynamic_tools) {
        // `releases::DYNAMIC_TOOLS_SINCE`: the function has no keys.
        given = Record::new();
    } else if let Some(servers) = src
        .mcp
        .as_deref()
        .filter(|s| !s.is_empty() && !src.mcp_toolsets())
    {
        let join = match zero {
            None => sources::McpJoin::ByKey,
            Some(z) if z.mcp_client_of_one_server() => sources::McpJoin::OneClientEach,
            Some(_) => sources::McpJoin::OnArrival,
        };
        given.spread_from(&sources::mcp_tools_in(servers, join));
    }
    // ensureToolProperties: `acc[key] = tool` over Object.keys — an own
    // "__proto__" key is lost to the setter here.
    let mut agent = Record::new();
    for (k, v) in given.entries() {
        agent.assign(k.clone(), v.clone());
    }
    agent
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
    if rel.active_tools_applied() {
        if let Some(active) = &case.call.active_tools {
            let active: std::collections::HashSet<&JsString> = active.iter().collect();
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
    /// The `workspace`'s read tool; arguments `{ path: "a.txt" }`.
    Workspace,
    /// Code Mode's `execute_typescript`; arguments `{ code }`.
    CodeMode,
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
    Some(match found.map(|v| v.origin) {
        None => CallTarget::Missing,
        Some(ToolOrigin::Client) => CallTarget::Stops,
        Some(ToolOrigin::Builtin(_)) => CallTarget::Builtin,
        Some(ToolOrigin::Ours) => CallTarget::Ours,
        Some(ToolOrigin::Mcp(_)) => CallTarget::Mcp,
        Some(ToolOrigin::Workflow) => CallTarget::Workflow,
        Some(ToolOrigin::SubAgent(_)) => CallTarget::SubAgent,
        Some(ToolOrigin::WorkingMemory) => CallTarget::WorkingMemory,
        // Not in the record `call_target` builds: the processor adds them
        // per step.
        Some(ToolOrigin::Search(_)) => CallTarget::Builtin,
        Some(ToolOrigin::Workspace) => CallTarget::Workspace,
        Some(ToolOrigin::CodeMode) => CallTarget::CodeMode,
    })
}

/// Predict what `case` does on `version`. A prerelease or a build is
/// predicted as the release it says it is (`MastraVersion::release`): the
/// model knows releases, and a build's package.json is its only claim.
pub fn predict(case: &Case, version: MastraVersion) -> Prediction {
    let mut prediction = predict_calls(case, version);
    if case.has_approval_function() {
        // `seen.approval.toolAsked` is written wherever `seen` is, empty
        // where no function was asked.
        prediction = each_projection(prediction, |mut p| {
            let turns = p.turns.iter_mut().flatten().map(|t| &mut t.seen);
            for seen in std::iter::once(&mut p.seen).chain(turns).flatten() {
                seen.tool_asked.get_or_insert_with(Vec::new);
            }
            Ok(p)
        });
    }
    if case.sources.has_server_approval_function() {
        // `seen.approval.serverAsked` likewise, for a server's function.
        prediction = each_projection(prediction, |mut p| {
            let turns = p.turns.iter_mut().flatten().map(|t| &mut t.seen);
            for seen in std::iter::once(&mut p.seen).chain(turns).flatten() {
                seen.server_asked.get_or_insert_with(Vec::new);
            }
            Ok(p)
        });
    }
    if !case.lookups {
        return prediction;
    }
    let rel = Release::of(version.release());
    // `lookups` stand beside what the calls did, on every projection that
    // has a result; a case that cannot run has none.
    each_projection(prediction, |mut p| {
        if p.applicable {
            p.lookups = Some(Box::new(lookups::predict(case, &rel)?));
        }
        Ok(p)
    })
}

/// `prediction` with `with` applied to each of its projections; an error
/// makes it unmodelled.
fn each_projection(
    prediction: Prediction,
    with: impl Fn(Projection) -> Result<Projection, String>,
) -> Prediction {
    let outcome = match prediction {
        Prediction::Projection(p) => with(p).map(Prediction::Projection),
        Prediction::Dropping(p) => with(p).map(Prediction::Dropping),
        Prediction::Races(ps) => ps
            .into_iter()
            .map(with)
            .collect::<Result<Vec<_>, _>>()
            .map(Prediction::Races),
        unmodelled @ Prediction::Unmodelled(_) => Ok(unmodelled),
    };
    outcome.unwrap_or_else(Prediction::Unmodelled)
}

/// `predict` for what the case's calls do: everything but `lookups`.
fn predict_calls(case: &Case, version: MastraVersion) -> Prediction {
    let version = version.release();
    let rel = Release::of(version);
    if let Some(reason) = releases::legacy::no_agent(&rel)
        .or_else(|| releases::legacy::route_reason(&rel, case.route))
        .or_else(|| steps::legacy_loop::install_reason(case, &rel))
    {
        return Prediction::Projection(Projection::not_applicable(reason));
    }
    if rel.on_0x() && case.calls().iter().any(|c| c.stop_when.is_some()) {
        return Prediction::Projection(Projection::not_applicable(format!(
            "@mastra/core {version}: stopWhen is driven on 1.x only"
        )));
    }
    if let Some(p) = workspace_outside(case, &rel) {
        return p;
    }
    if let Some(p) = code_mode::outside(case, &rel) {
        return p;
    }
    if let Some(p) = network::predict(case, &rel) {
        return p;
    }
    if rel.on_0x() && case.tool_call_filter.is_some() {
        return Prediction::Projection(Projection::not_applicable(format!(
            "@mastra/core {version}: toolCallFilter is driven on 1.x only"
        )));
    }
    if case.drives_approval() && rel.on_0x() {
        // An MCP server's own policy is the 1.x MCP client's option; the
        // probe does not build it on 0.x.
        if case.sources.mcp_approval.is_some() {
            return Prediction::Projection(Projection::not_applicable(format!(
                "@mastra/core {version}: mcpApproval is driven on 1.x only"
            )));
        }
        let plain_of = |c: &Case| predict_calls(&legacy_approval::without_approval(c), version);
        return legacy_approval::predict(case, &rel, &plain_of);
    }
    let one_agent =
        case.turns.is_some() || case.tracing || case.sources.memory.is_some_and(|m| m.in_memory);
    let toolsets = case.sources.mcp_listing == Some(crate::case::McpListing::ListToolsets);
    if (one_agent || toolsets) && rel.on_0x() {
        return Prediction::Projection(Projection::not_applicable(format!(
            "@mastra/core {version}: turns, memory: true, tracing and mcpListing: listToolsets are driven on 1.x only"
        )));
    }
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
    if let Some(p) = tool_search_outside(case, &rel) {
        return p;
    }
    if one_agent {
        // A traced `generate()` under approval reads the same output stream,
        // and its `toolCalls` lose the step's calls too (every `generate()`
        // approval case of `cases/tracing/` on 1.0.4, every route; 1.5.0 by
        // `bisect`): `TRACED_STREAM_KEEPS_CHUNKS`.
        let dropping = case.tracing
            && !rel.traced_stream_keeps_chunks
            && case
                .calls()
                .iter()
                .any(|c| c.method == Method::Stream || case.drives_approval());
        return match turns::project(case, &rel) {
            Ok(mut ps) if ps.len() == 1 && dropping => Prediction::Dropping(ps.remove(0)),
            // Each way a race goes may lose chunks too: not followed.
            Ok(_) if dropping => Prediction::Unmodelled(format!(
                "concurrent requests racing on a traced stream before {}, which may lose chunks",
                releases::TRACED_STREAM_KEEPS_CHUNKS.first
            )),
            Ok(mut ps) if ps.len() == 1 => Prediction::Projection(ps.remove(0)),
            Ok(ps) => Prediction::Races(ps),
            Err(reason) => Prediction::Unmodelled(reason),
        };
    }
    let outcome = match steps::legacy_loop::mcp_orders(case, &rel) {
        Some(orders) => orders.and_then(|cases| {
            let mut all: Vec<Projection> = Vec::new();
            for c in &cases {
                for p in run(c, &rel)? {
                    if !all.contains(&p) {
                        all.push(p);
                    }
                }
            }
            Ok(all)
        }),
        None => run(case, &rel),
    };
    match outcome {
        Ok(mut ps) if ps.len() == 1 => Prediction::Projection(ps.remove(0)),
        Ok(ps) if ps.is_empty() => Prediction::Unmodelled("the loop gave no projection".into()),
        Ok(ps) => Prediction::Races(ps),
        Err(reason) => Prediction::Unmodelled(reason),
    }
}

/// A case of `field` on a 0.x release, or on a 1.x release that does not
/// export `export` (`exported` false): not applicable, with the reason.
pub(super) fn not_served(
    rel: &Release,
    field: &str,
    export: &str,
    exported: bool,
) -> Option<Prediction> {
    let version = &rel.version;
    let reason = if rel.on_0x() {
        format!("@mastra/core {version}: {field} is driven on 1.x only")
    } else if !exported {
        format!("@mastra/core {version} does not export {export}")
    } else {
        return None;
    };
    Some(Prediction::Projection(Projection::not_applicable(reason)))
}

/// A `workspace` case on a release without `Workspace` (not applicable),
/// or beside what was not measured with one: anything but the agent's own
/// tools, toolsets, client tools, workflows, sub-agents and the call's
/// options. On 1.12.0 it throws before its first request
/// (`error_before_requests`).
fn workspace_outside(case: &Case, rel: &Release) -> Option<Prediction> {
    case.workspace.as_ref()?;
    if let Some(not_served) = not_served(rel, "workspace", "Workspace", rel.workspace_tools) {
        return Some(not_served);
    }
    let measured = crate::case::Sources {
        agents: case.sources.agents.clone(),
        workflows: case.sources.workflows.clone(),
        ..Default::default()
    };
    let beside = case.tool_search.is_some()
        || case.tool_call_filter.is_some()
        || case.sources != measured
        || case.turns.is_some()
        || case.tracing
        || case.lookups
        || case.drives_approval();
    beside.then(|| {
        Prediction::Unmodelled(
            "a workspace beside MCP, memory, dynamic tools, toolSearch, toolCallFilter, turns, tracing, lookups or approval: not measured".into(),
        )
    })
}

/// A `toolSearch` case on a release without the processor: not
/// applicable. (Where its schemas throw before any request,
/// `error_before_requests` says so.) Beside memory, tracing, sub-agents, workflows, MCP and dynamic tools
/// and builtins the processor is the agent loop's as it is alone
/// (`cases/toolsearch/beside-*`; fuzz seed 3, 1,500 cases, on 1.11.0 and
/// 1.71.0, every route), beside turns, where a later turn starts with
/// what the earlier ones loaded (`tool_search::list_loaded`), and beside
/// tracing (`TOOL_SEARCH_TOOL_SPANS`).
fn tool_search_outside(case: &Case, rel: &Release) -> Option<Prediction> {
    case.tool_search.as_ref()?;
    if !rel.tool_search_processor {
        return Some(Prediction::Projection(Projection::not_applicable(format!(
            "@mastra/core {} does not export ToolSearchProcessor",
            rel.version
        ))));
    }
    None
}

/// The call before its first request (what throws there: a sub-agent on the
/// releases where listing them throws, then `formatTools`), then the agent
/// loop (`steps`).
fn run(case: &Case, rel: &Release) -> Result<Vec<Projection>, String> {
    let mut out: Vec<Projection> = Vec::new();
    for o in run_from(case, rel, Vec::new(), &[])? {
        if !out.contains(&o.projection) {
            out.push(o.projection);
        }
    }
    Ok(out)
}

/// As `run`, the call started from the history `before` (what a memory
/// recalls of earlier calls) and with what its `toolSearch` processor
/// `loaded` in earlier calls, each way it can go with what it stored and
/// the tool spans it ended (`steps::Outcome`).
fn run_from(
    case: &Case,
    rel: &Release,
    before: Vec<projection::HistoryItem>,
    loaded: &[JsString],
) -> Result<Vec<steps::Outcome>, String> {
    let mut tools = tools_on(case, rel);
    tool_search::list_loaded(case, rel, loaded, &mut tools)?;
    if let Some(error) = error_before_requests(case, rel, &mut tools) {
        // Nothing was handed over: the call threw before any result.
        let projected = case.drives_approval() || rel.on_1x();
        let seen = projected.then(|| Box::new(steps::seen::before_requests()));
        return Ok(vec![steps::Outcome {
            projection: Projection {
                error: Some(error),
                seen,
                ..Projection::empty()
            },
            stored: before,
            spans: Vec::new(),
            loaded: loaded.to_vec(),
            answered: false,
            api_error: false,
            error_after_writing: false,
            left: crate::case::script::Script::of(case).left(),
        }]);
    }
    let offered = offered(case, rel, &tools);
    let outcomes =
        steps::run_loop_from(case, rel, &tools, offered.clone(), before.clone(), loaded)?;
    if !case.drives_approval() {
        return Ok(outcomes);
    }
    // With `toolSearch` the processor's record grows by what each
    // `load_tool` that ran loaded: the replay steps through it, and a run
    // resumed after an answer is not modelled beside it.
    let search = case
        .tool_search
        .as_ref()
        .map(|ts| tool_search::SearchState::new(tools.clone(), &ts.tools, loaded));
    // A resumed run is the agent's own, without the call's per-call options
    // (`approval::as_resumed`): its requests are those of the case without
    // them, from the step after the one an answer resumes.
    let plain = approval::as_resumed(case).filter(|_| search.is_none());
    let own = plain.as_ref().map(|p| offered_on(p, rel)).transpose()?;
    // The resumed run's requests only where an answer resumes the run:
    // elsewhere it is never made, and the races of its requests do not
    // matter (two runs of one sub-agent beside an answer nothing waits for:
    // fuzz seed 1 cases 1150 and 2410).
    let answered = approval::resumed_after(case, rel, &tools).is_some();
    let resumed = match (&plain, &own) {
        (Some(plain), Some(own)) if answered => Some(resumed_run(
            case,
            rel,
            &tools,
            offered,
            before,
            (plain, own),
        )?),
        _ => None,
    };
    let resumed = plain
        .as_ref()
        .zip(own.as_ref())
        .map(|(c, o)| approval::Resumed {
            projection: resumed.as_ref(),
            case: c,
            tools: &o.0,
        });
    outcomes
        .into_iter()
        .map(|o| {
            let base_requests = o.projection.requests.len();
            let approval::Replayed {
                projection,
                spans,
                loaded,
            } = approval::project(
                case,
                rel,
                &tools,
                (o.projection, o.spans),
                resumed,
                (o.api_error, case.replies.len() - o.left.0.len()),
                search.clone(),
            )?;
            // The replies a later turn takes from: those the requests
            // approval let be made did not take (a run suspended at a held
            // call made fewer than the loop with every call let through),
            // where each of the base's requests took one of `replies` (the
            // listener's default once they ran out).
            let mut left = o.left.clone();
            let taken = case.replies.len() - o.left.0.len();
            if base_requests.min(case.replies.len()) == taken {
                let from = projection.requests.len().min(case.replies.len());
                left.0 = case.replies[from..].to_vec();
            }
            Ok(steps::Outcome {
                projection,
                spans,
                left,
                loaded: loaded.unwrap_or(o.loaded),
                ..o
            })
        })
        .collect()
}

/// The run an approval answer resumes, as the agent's own (`plain`, with
/// its formatted tools and offer `own`) makes it from the step after the
/// held one: the requests up to and through the held step are the call's.
fn resumed_run(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    offered: Offered,
    before: Vec<projection::HistoryItem>,
    (plain, own): (&Case, &(Record<ToolValue>, Offered)),
) -> Result<Projection, String> {
    let after = approval::resumed_after(case, rel, tools);
    let keeps = rel.resumed_step_keeps_call_tools;
    // Before `RESUMED_STEP_KEEPS_CALL_TOOLS` the agent's own run from the
    // start stands for the resumed one after a first step, its calls found
    // in the agent's own tools: so must the calls before the held one be;
    // after a later step, the call's run through the held step does: so
    // must the held call and those after it be.
    use approval::StepPart;
    let alike =
        |k: usize, part| approval::step_found_alike(case, rel, tools, (plain, &own.0), (k, part));
    let alike_k = |k: usize| {
        let part = if k == 0 {
            StepPart::Before
        } else {
            StepPart::HeldOn
        };
        alike(k, part)
    };
    // After a later step, the held step's calls before the held one were
    // found in the call's tools, the held one and those after it in the
    // agent's own: where the earlier ones find the same either way, the
    // whole step is found in the agent's own (`Resume::held_step_own`).
    let held_step_own =
        after.is_some_and(|k| k > 0 && !keeps && !alike_k(k) && alike(k, StepPart::Through));
    if after.is_some_and(|k| !keeps && !alike_k(k)) && !held_step_own {
        return Err(format!(
            "a resumed step whose calls the agent's own tools find otherwise, before {}",
            releases::RESUMED_STEP_KEEPS_CALL_TOOLS.first
        ));
    }
    let mut runs = match after {
        // The held step's calls are found in the call's tools, as before
        // the answer (`RESUMED_STEP_KEEPS_CALL_TOOLS`, and after a first
        // step, where the steps up to it went so).
        Some(after) if after > 0 || keeps => {
            let resume = steps::Resume {
                after,
                tools: own.0.clone(),
                offered: own.1.clone(),
                held_step_own,
            };
            steps::run_loop_resumed(case, rel, tools, offered, before, &[], Some(resume))?
        }
        _ => steps::run_loop_from(plain, rel, &own.0, own.1.clone(), before, &[])?,
    };
    if runs.len() != 1 {
        return Err("a resumed run whose requests race".into());
    }
    Ok(runs.remove(0).projection)
}

/// What a first request offers: its tools' names and its tool choice.
type Offered = (Option<Vec<JsString>>, Option<Json>);

/// The formatted tools of `case` and what its first request offers, where
/// nothing throws before it.
fn offered_on(case: &Case, rel: &Release) -> Result<(Record<ToolValue>, Offered), String> {
    let mut tools = tools_on(case, rel);
    if error_before_requests(case, rel, &mut tools).is_some() {
        return Err("a resumed run that throws before its requests".into());
    }
    let offered = offered(case, rel, &tools);
    Ok((tools, offered))
}

/// The error the call ends in before any request, if any; otherwise
/// `tools` is left formatted (`formatTools`).
fn error_before_requests(
    case: &Case,
    rel: &Release,
    tools: &mut Record<ToolValue>,
) -> Option<ErrorView> {
    let failed_id = match case.call.method {
        Method::Generate => "AGENT_GENERATE_FAILED",
        Method::Stream => "AGENT_STREAM_FAILED",
    };
    // listAgentTools runs before formatTools: on the releases where it
    // throws for any sub-agent, that is the call's error.
    // `createCodeMode` runs before the agent is made.
    if let Some(message) = code_mode::collision(case) {
        return Some(error_view(None, message, None));
    }
    let has_sub_agents = case.sources.agents.as_ref().is_some_and(|a| !a.is_empty());
    if rel.sub_agents_throw && has_sub_agents {
        let message = JsString::from(releases::SUB_AGENTS_THROW_MESSAGE);
        return Some(error_view(Some(failed_id), message, None));
    }
    // createWorkspaceTools refuses a name its record already holds
    // (`if (tools[exposedName]) throw`), and a plain object holds every
    // inherited name (`WORKSPACE_TOOL_RENAMES`).
    let inherited = case.workspace.as_ref().and_then(|w| w.name.as_ref());
    if let Some(name) =
        inherited.filter(|n| rel.workspace_tool_renames && crate::naming::is_inherited_name(n))
    {
        let mut message = JsString::from("Duplicate workspace tool name \"");
        message = message.concat(name);
        message.push_str("\": tool \"");
        message.push_str(sources::WORKSPACE_READ_FILE);
        message.push_str(
            "\" conflicts with an already-registered tool. Check your tools config for duplicate \"name\" values.",
        );
        return Some(error_view(Some(failed_id), message, None));
    }
    // Then the workspace's tools' schemas, on the release where they fail
    // as a sub-agent's do (`WORKSPACE_SCHEMA_THROWS`; the name is checked
    // first: `cases/workspace/renamed-to-an-inherited-name-throws-*` on
    // 1.12.0).
    if rel.workspace_schema_throws && case.workspace.is_some() {
        let message = JsString::from(releases::SUB_AGENTS_THROW_MESSAGE);
        return Some(error_view(Some(failed_id), message, None));
    }
    // A ToolSearchProcessor's schemas fail the same way, but later: in the
    // model call, whose fallback loop wraps the error and whose throw has
    // no id (`TOOL_SEARCH_SCHEMA_THROWS`), after the sub-agents' listing.
    if rel.tool_search_schema_throws && case.tool_search.is_some() {
        let mut message = JsString::from("Exhausted all fallback models. Last error: ");
        message.push_str(releases::SUB_AGENTS_THROW_MESSAGE);
        return Some(error_view(None, message, None));
    }
    if !rel.formats_tools {
        return None;
    }
    format_tools(tools).err().map(|e| {
        if rel.on_0x() {
            return releases::legacy::format_error(rel, &e);
        }
        let cause = match e {
            FormatError::Collision { .. } => Some("AGENT_TOOL_NAME_COLLISION"),
            FormatError::EmptyKey => None,
        };
        error_view(Some(failed_id), e.message(), cause)
    })
}

#[cfg(test)]
mod tests;
