//! The tool sources beyond `tools`, `toolsets` and `clientTools`: what each
//! adds to Mastra's record before `formatTools`, and what a call of one of
//! their tools sends back.
//!
//! In: a case's `Sources` (`case::sources`). Out: `Record<ToolValue>`s that
//! `merged_tools` (in `mod.rs`) spreads in Mastra's order, and the tool
//! result a call of each kind carries into history. Measured on every served
//! 1.x with `@mastra/mcp`, `@mastra/memory` and `@mastra/libsql` at the
//! versions `version::extras` picks (the boundaries are in `releases`).
//!
//! Where the keys come from:
//! - sub-agents: `listAgentTools` assigns `convertedAgentTools[`agent-${key}`]`
//!   over `Object.entries(agents)`, the tool's id being that same string;
//! - workflows: `listWorkflowTools`, `workflow-${key}` likewise;
//! - MCP servers: `@mastra/mcp`'s `MCPClient.listTools()` assigns each
//!   server's listing into `toolsRes[tool.name]` (skipping an empty name,
//!   so `"__proto__"` is lost to the setter and index-like names sort first),
//!   then `connectedTools[`${server}_${name}`]` over the servers in
//!   `Object.keys` order; the tool's id is the same string. Users spread the
//!   result after their own tools (`{ ...tools, ...(await mcp.listTools()) }`),
//!   so an MCP key replaces an equal key of `tools` in its place;
//! - working memory: `Memory.listTools()` gives `updateWorkingMemory` (id
//!   `update-working-memory`) when `workingMemory.enabled`, and the agent
//!   asks for memory tools only when the call names a thread or resource
//!   (the probe always does).

use super::releases::Release;
use super::route::ResultContent;
use super::{ToolOrigin, ToolValue};
use crate::case::{McpServer, MemorySource, Workspace};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::model::record::Record;
use crate::route::Route;

/// The key and id of memory's working-memory tool.
pub const WORKING_MEMORY_KEY: &str = "updateWorkingMemory";
pub const WORKING_MEMORY_ID: &str = "update-working-memory";

/// What every MCP tool of a case answers (`node-probe/mcp-tools.mjs`), as
/// Mastra writes the `CallToolResult` into the tool message.
pub const MCP_RESULT: &str = "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"tempC\\\":20}\"}]}";

/// What a workflow call returns: the workflow's output and its run id,
/// whose UUID the projection redacts (`projection::redact_uuids`).
pub const WORKFLOW_RESULT: &str = "{\"result\":{\"tempC\":20},\"runId\":\"<uuid>\"}";

/// What `updateWorkingMemory` returns.
pub const WORKING_MEMORY_RESULT: &str = "{\"success\":true}";

/// `listAgentTools`: `agent-KEY` for each sub-agent, in `Object.entries`
/// order of the `agents` object (built by `Object.fromEntries`).
pub(super) fn agent_tools(keys: &[JsString]) -> Record<ToolValue> {
    registered_tools("agent-", keys, |key| ToolOrigin::SubAgent(key.clone()))
}

/// `listWorkflowTools`: `workflow-KEY` for each workflow, the same way.
pub(super) fn workflow_tools(keys: &[JsString]) -> Record<ToolValue> {
    registered_tools("workflow-", keys, |_| ToolOrigin::Workflow)
}

/// One tool per key of a registration object, named and identified
/// `PREFIX` + key.
fn registered_tools(
    prefix: &str,
    keys: &[JsString],
    origin: impl Fn(&JsString) -> ToolOrigin,
) -> Record<ToolValue> {
    let registered = Record::from_entries(keys.iter().map(|k| (k.clone(), ())));
    let mut out = Record::new();
    for (key, ()) in registered.entries() {
        let name = JsString::from(prefix).concat(key);
        out.assign(
            name.clone(),
            ToolValue {
                id: name.clone(),
                key: name,
                origin: origin(key),
            },
        );
    }
    out
}

/// How the servers' listings join (`mcp_tools_in`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum McpJoin {
    /// `MCPClient.listTools()`: in `Object.keys` order of the servers
    /// object, each tool under `SERVER_TOOL` (1.x).
    ByKey,
    /// In the order the case lists the servers, as 0.x's `@mastra/mcp`
    /// adds each server's tools when its listing arrives
    /// (`steps::legacy_loop::mcp_orders` gives every order).
    OnArrival,
    /// One `MastraMCPClient` per server, in `Object.keys` order, each tool
    /// under its own name, a later server's replacing an equal name
    /// (`version::extras::mcp_client_of_one_server`).
    OneClientEach,
}

/// The tools the case's MCP servers list, joined as `join` says.
pub(super) fn mcp_tools_in(servers: &[McpServer], join: McpJoin) -> Record<ToolValue> {
    // The servers object is built with Object.fromEntries by the probe, as a
    // literal would be: own keys, index-like names first.
    let configs = Record::from_entries(servers.iter().map(|s| (s.name.clone(), s.tools.clone())));
    let in_order: Vec<(&JsString, &Vec<JsString>)> = match join {
        McpJoin::OnArrival => servers.iter().map(|s| (&s.name, &s.tools)).collect(),
        McpJoin::ByKey | McpJoin::OneClientEach => configs.entries(),
    };
    let mut connected = Record::new();
    for (server, names) in in_order {
        let mut listed: Record<()> = Record::new();
        for name in names.iter().filter(|n| !n.is_empty()) {
            listed.assign(name.clone(), ());
        }
        for (name, ()) in listed.entries() {
            let prefixed = crate::naming::mcp_tool_key(server, name);
            let key = match join {
                McpJoin::OneClientEach => name.clone(),
                McpJoin::ByKey | McpJoin::OnArrival => prefixed.clone(),
            };
            connected.assign(
                key.clone(),
                ToolValue {
                    id: prefixed,
                    key,
                    origin: ToolOrigin::Mcp(server.clone()),
                },
            );
        }
    }
    connected
}

/// `MCPClient.listToolsets()`: `{ SERVER: { TOOL: tool } }` in `Object.keys`
/// order of the servers object, each server's tools under their own MCP
/// names (an empty name skipped, as `listTools()` does), each tool's id
/// still `SERVER_TOOL`. Users pass it as the call's `toolsets`, so the wire
/// name is the rewritten MCP name (`delete.file` as `delete_file`).
pub(super) fn mcp_toolsets_in(servers: &[McpServer]) -> Vec<(JsString, Record<ToolValue>)> {
    let configs = Record::from_entries(servers.iter().map(|s| (s.name.clone(), s.tools.clone())));
    configs
        .entries()
        .into_iter()
        .map(|(server, names)| {
            let mut set = Record::new();
            for name in names.iter().filter(|n| !n.is_empty()) {
                set.assign(
                    name.clone(),
                    ToolValue {
                        id: crate::naming::mcp_tool_key(server, name),
                        key: name.clone(),
                        origin: ToolOrigin::Mcp(server.clone()),
                    },
                );
            }
            (server.clone(), set)
        })
        .collect()
}

/// The MCP name a tool of `server` was listed under: its id
/// (`SERVER_TOOL`) without the server's prefix.
pub(super) fn mcp_raw_name(server: &JsString, id: &JsString) -> JsString {
    id.slice((server.len() + 1).min(id.len()), id.len())
}

/// The `workspace` read tool's own name.
pub const WORKSPACE_READ_FILE: &str = "mastra_workspace_read_file";

/// The file the probe's workspace holds, and what it reads.
pub const WORKSPACE_FILE: &str = "a.txt";

/// The `workspace`'s tools: its read tool alone (the probe disables every
/// other), keyed and named by the name given where the release takes one
/// (`renames`, `WORKSPACE_TOOL_RENAMES`), else by its own name.
pub(super) fn workspace_tools(workspace: Option<&Workspace>, renames: bool) -> Record<ToolValue> {
    let mut out = Record::new();
    let Some(workspace) = workspace else {
        return out;
    };
    let own = JsString::from(WORKSPACE_READ_FILE);
    let name = match &workspace.name {
        Some(name) if renames => name.clone(),
        _ => own,
    };
    out.assign(
        name.clone(),
        ToolValue {
            id: name.clone(),
            key: name,
            origin: ToolOrigin::Workspace,
        },
    );
    out
}

/// `Memory.listTools()`: the working-memory tool when it is enabled.
pub(super) fn memory_tools(memory: Option<MemorySource>) -> Record<ToolValue> {
    let mut out = Record::new();
    if memory.is_some_and(|m| m.working_memory) {
        out.assign(
            JsString::from(WORKING_MEMORY_KEY),
            ToolValue {
                id: JsString::from(WORKING_MEMORY_ID),
                key: JsString::from(WORKING_MEMORY_KEY),
                origin: ToolOrigin::WorkingMemory,
            },
        );
    }
    out
}

/// The placeholder `projection::redact_uuids` puts where a run id or thread
/// id stood.
pub const UUID: &str = "<uuid>";

/// The thread and resource the probe's call names when a case has `memory`
/// (`callOptions.memory` in `node-probe/sources.mjs`), whatever
/// `workingMemory` says.
pub const PROBE_THREAD: &str = "mastra-conform-thread";
pub const PROBE_RESOURCE: &str = "mastra-conform";

/// The thread and resource the probe's call names when the case has
/// memory (`node-probe/sources.mjs`): `thread-1` of `user-1` for
/// `memory: true`, the probe's own for memory with options; none without.
pub fn call_memory_ids(
    memory: Option<&crate::case::MemorySource>,
) -> Option<(&'static str, &'static str)> {
    memory.map(|m| {
        if m.in_memory {
            ("thread-1", "user-1")
        } else {
            (PROBE_THREAD, PROBE_RESOURCE)
        }
    })
}

/// A JSON value as JavaScript's `||` reads it.
fn truthy(v: &Json) -> bool {
    match v {
        Json::Null => false,
        Json::Bool(b) => *b,
        Json::Number(n) => n.parse::<f64>().ok() != Some(0.0),
        Json::String(s) => !s.is_empty(),
        Json::Array(_) | Json::Object(_) => true,
    }
}

/// The tool result of a sub-agent whose one request was answered `text`.
/// Before `SUB_AGENT_TEXT_ONLY` it is the JSON of the tool's output: the
/// text, the sub-agent's thread id and resource id, plus the sub-agent's
/// tool results from `SUB_AGENT_TOOL_RESULTS`; from it, `toModelOutput`
/// sends the text alone, but only for a call found under its own name: a
/// call found by the tool's id (`agent-KEY` where the sent name is
/// rewritten) still gets the whole output (found by the fuzzer, seed 1
/// case 2186 on 1.67.0).
///
/// The ids: given a thread and a resource (`sub_agent_parent_ids`: those
/// the call sent, and from `SUB_AGENT_PARENT_MEMORY_IDS` the parent's with
/// memory options instead, outright from `SUB_AGENT_IDS_OUTRIGHT`), each on
/// its own: as given before `SUB_AGENT_PARENT_MEMORY_IDS` (`t1`, `r1`,
/// 1.0.4 `dist/chunk-FKO2M32N.js:18118`, `inputData.threadId || ...`,
/// measured on 1.7.0), from it `${thread}-${uuid}` and `${resource}-${key}`;
/// otherwise a fresh UUID and, for the resource,
/// `mastra.generateId()` where the agent is registered on a `Mastra` (a
/// UUID: the probe registers it for `tracing` and `approvals`), else
/// `${slugify(agent.id)}-${key}`, the probe's agent id being `probe`
/// (1.0.4 `dist/chunk-FKO2M32N.js:18124`, 1.71.0
/// `dist/agent-BOxKOk3n.js:38920`; measured on 1.0.4,
/// `cases/tracing/span-of-a-sub-agent-call-generate.json`).
///
/// The whole output is an object, which `@ai-sdk/google` sends as the object
/// itself (`route::result_on`; seen on 1.0.4, where every sub-agent result
/// is the whole output); the text alone is a string on every route.
/// What a sub-agent's own ids derive from: the thread and resource it was
/// given (`sub_agent_parent_ids`), and whether the agent is on a `Mastra`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubAgentIds {
    pub thread: Option<JsString>,
    pub resource: Option<JsString>,
    pub on_mastra: bool,
}

impl SubAgentIds {
    /// The ids of a sub-agent whose tool ran with `input`.
    pub fn of(rel: &Release, input: &Json, on_mastra: bool) -> SubAgentIds {
        let (thread, resource) = sub_agent_parent_ids(rel, input);
        SubAgentIds {
            thread,
            resource,
            on_mastra,
        }
    }
}

pub fn sub_agent_result(
    rel: &Release,
    by_name: bool,
    key: &JsString,
    text: &JsString,
    ids: SubAgentIds,
    ran: &[Json],
) -> ResultContent {
    if rel.sub_agent_text_only && by_name {
        return ResultContent::Message(text.clone());
    }
    let derives = rel.sub_agent_parent_memory_ids;
    let thread = match &ids.thread {
        Some(t) if derives => t
            .clone()
            .concat(&JsString::from(format!("-{UUID}").as_str())),
        Some(t) => t.clone(),
        None => JsString::from(UUID),
    };
    let resource = match (&ids.resource, ids.on_mastra) {
        (Some(r), _) if derives => r.clone().concat(&JsString::from("-")).concat(key),
        (Some(r), _) => r.clone(),
        (None, true) => JsString::from(UUID),
        (None, false) => JsString::from("probe-").concat(key),
    };
    let mut members = vec![
        ("text", Json::String(text.clone())),
        ("subAgentThreadId", Json::String(thread)),
        ("subAgentResourceId", Json::String(resource)),
    ];
    if rel.sub_agent_tool_results {
        members.push(("subAgentToolResults", Json::Array(ran.to_vec())));
    }
    ResultContent::Object(Json::object(members))
}

/// The model id each route's provider is given (`node-probe/routes.mjs`),
/// which an error object quotes.
pub(in crate::model) fn model_id(route: Route) -> &'static str {
    match route {
        Route::OpenAiCompatible | Route::OpenAi => "gpt-4o-mini",
        Route::Anthropic => "claude-sonnet-4-5",
        Route::Google => "gemini-2.5-flash",
        Route::Mistral => "mistral-small-latest",
        Route::Groq => "llama-3.3-70b-versatile",
    }
}

/// The tool result of a sub-agent whose own request was answered with an
/// API error, before `SUB_AGENT_ERROR_AS_TEXT`: Mastra's error object,
/// `TOOL_EXECUTION_FAILED` (the agent tool's `execute` threw) caused by
/// `AGENT_AGENT_TOOL_EXECUTION_FAILED` (the sub-agent's run failed) caused
/// by `cause`: the AI SDK's `AI_APICallError` in the normalised form
/// projections compare (its `name` and `statusCode` alone,
/// `projection::normalise_api_errors`), or the sub-agent loop's own error.
/// The run id is `<uuid>`.
///
/// `details.errorMessage` is the sub-agent's error as JSON text from
/// `SUB_AGENT_ERROR_QUOTES_CAUSE`, fixed text before; `details.argsJson`
/// the arguments the tool ran with (`input`, what validation passed on),
/// with `"suspendedToolRunId":""` from `SUB_AGENT_ARGS_RUN_ID`; the
/// sub-agent's `threadId` and `resourceId` are the probe's with memory
/// options and empty without (observed on every route of 1.0.4 to 1.4.0,
/// `cases/calls/sub-agent-api-error-before-1.5.0.json`).
pub fn sub_agent_error(
    rel: &Release,
    route: Route,
    key: &JsString,
    input: &Json,
    cause: Json,
    memory: bool,
) -> Json {
    let message = JsString::from("[Agent:probe] - Failed agent tool execution for ").concat(key);
    let (thread, resource) = if memory {
        (PROBE_THREAD, PROBE_RESOURCE)
    } else {
        ("", "")
    };
    let cause = Json::object([
        ("message", Json::String(message.clone())),
        ("domain", Json::str("AGENT")),
        ("category", Json::str("USER")),
        ("code", Json::str("AGENT_AGENT_TOOL_EXECUTION_FAILED")),
        (
            "details",
            Json::object([
                ("agentName", Json::str("probe")),
                ("subAgentName", Json::String(key.clone())),
                ("runId", Json::str(UUID)),
                ("threadId", Json::str(thread)),
                ("resourceId", Json::str(resource)),
            ]),
        ),
        ("cause", cause),
    ]);
    let error_message = if rel.sub_agent_error_quotes_cause {
        Json::String(JsString::from(cause.to_compact().as_str()))
    } else {
        Json::str("[Agent:probe] - Failed tool execution")
    };
    let mut args = input.clone();
    if let (Json::Object(members), true) = (&mut args, rel.sub_agent_args_run_id) {
        members.push((JsString::from("suspendedToolRunId"), Json::str("")));
    }
    tool_execution_failed(message, error_message, &args, route, cause)
}

/// Mastra's error object for a tool whose `execute` threw, as a call's
/// result before 1.5.0: `TOOL_EXECUTION_FAILED` with the error's text, the
/// arguments the tool ran with as JSON text, the route's model, and the
/// error it was caused by.
pub(in crate::model) fn tool_execution_failed(
    message: JsString,
    error_message: Json,
    args: &Json,
    route: Route,
    cause: Json,
) -> Json {
    Json::object([
        ("message", Json::String(message)),
        ("domain", Json::str("TOOL")),
        ("category", Json::str("USER")),
        ("code", Json::str("TOOL_EXECUTION_FAILED")),
        (
            "details",
            Json::object([
                ("errorMessage", error_message),
                (
                    "argsJson",
                    Json::String(JsString::from(args.to_compact().as_str())),
                ),
                ("model", Json::str(model_id(route))),
            ]),
        ),
        ("cause", cause),
    ])
}

/// The longest "Provided arguments" text a validation error carries before
/// it is cut (`truncateForLogging(data, maxLength = 200)`, 1.11.0
/// `dist/chunk-7UM6FE6A.js:56`), in UTF-16 code units as `slice` counts.
const PROVIDED_ARGUMENTS_MAX: usize = 200;

/// The input a sub-agent call's tool validates: the call's arguments, with
/// the `threadId` and `resourceId` the agent loop sets on them from
/// `SUB_AGENT_PARENT_MEMORY_IDS`: the call's with memory
/// (`call_memory_ids`), else
/// `undefined`, which `JSON.stringify` leaves out. From
/// `SUB_AGENT_IDS_OUTRIGHT` they replace whatever the call sent; before,
/// a truthy one the call sent stays (`args.threadId || ...`). Arguments
/// that are not an object are given as they are.
pub fn sub_agent_input(
    rel: &Release,
    arguments: &Json,
    memory: Option<&crate::case::MemorySource>,
) -> Json {
    let Json::Object(members) = arguments else {
        return arguments.clone();
    };
    let mut members = members.clone();
    if !rel.sub_agent_parent_memory_ids {
        return Json::Object(members);
    }
    let ids = call_memory_ids(memory);
    for (i, k) in ["threadId", "resourceId"].into_iter().enumerate() {
        let k = JsString::from(k);
        let v = ids.map(|(thread, resource)| [thread, resource][i]);
        let at = members.iter().position(|(m, _)| *m == k);
        let sent_stays = !rel.sub_agent_ids_outright && at.is_some_and(|i| truthy(&members[i].1));
        match (at, v) {
            _ if sent_stays => {}
            (Some(i), Some(v)) => members[i].1 = Json::str(v),
            (None, Some(v)) => members.push((k, Json::str(v))),
            (Some(i), None) => {
                members.remove(i);
            }
            (None, None) => {}
        }
    }
    Json::Object(members)
}

/// The thread and resource a sub-agent is given on 1.x: the `threadId` and
/// `resourceId` of the input its tool ran with (`sub_agent_input`), each
/// when it is a non-empty string (`inputData.threadId ? ... : ...`). 0.x is
/// not measured with ids of the call's own, and gets none.
pub fn sub_agent_parent_ids(rel: &Release, input: &Json) -> (Option<JsString>, Option<JsString>) {
    if !rel.on_1x() {
        return (None, None);
    }
    let id = |k: &str| match input.get(k) {
        Some(Json::String(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    };
    (id("threadId"), id("resourceId"))
}

/// On the releases whose sub-agent input schema is broken
/// (`SUB_AGENT_SCHEMA_BROKEN`), every call of a sub-agent fails validation
/// before it runs; this is the tool result it gets instead, quoting the
/// `input` it was given (`sub_agent_input`).
pub fn sub_agent_schema_rejects(rel: &Release, name: &JsString, input: &Json) -> Option<Json> {
    if !rel.sub_agent_schema_broken {
        return None;
    }
    const PROBLEM: &str = "Schema validation error: schema is invalid: data/required must be array";
    // "Provided arguments: " + truncateForLogging(args):
    // JSON.stringify(args, null, 2), cut at 200 code units.
    let mut provided = JsString::from(input.to_pretty().as_str());
    if provided.len() > PROVIDED_ARGUMENTS_MAX {
        provided = provided.slice(0, PROVIDED_ARGUMENTS_MAX);
        provided.push_str("... (truncated)");
    }
    let mut message = JsString::from("Tool input validation failed for ");
    message = message.concat(name);
    message.push_str(". Please fix the following errors and try again:\n- root: ");
    message.push_str(PROBLEM);
    message.push_str("\n\nProvided arguments: ");
    message = message.concat(&provided);
    let result = Json::object([
        ("error", Json::Bool(true)),
        ("message", Json::String(message)),
        (
            "validationErrors",
            Json::object([
                ("errors", Json::Array(vec![Json::str(PROBLEM)])),
                ("fields", Json::object(Vec::<(&str, Json)>::new())),
            ]),
        ),
    ]);
    Some(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(r: &Record<ToolValue>) -> Vec<String> {
        r.keys().iter().map(JsString::to_lossy).collect()
    }

    #[test]
    fn sub_agents_and_workflows_are_prefixed_in_key_order() {
        let r = agent_tools(&["b".into(), "1".into(), "my agent".into(), "0".into()]);
        // The agents object orders index-like keys first.
        assert_eq!(
            keys(&r),
            ["agent-0", "agent-1", "agent-b", "agent-my agent"]
        );
        let w = workflow_tools(&["x".into(), "2".into(), "x".into()]);
        // "2" sorts first in the workflows object; the repeated "x" is one key.
        assert_eq!(keys(&w), ["workflow-2", "workflow-x"]);
        assert_eq!(w.values()[0].id, JsString::from("workflow-2"));
    }

    #[test]
    fn mcp_keys_are_server_underscore_tool_with_javascript_object_order() {
        let servers = [
            McpServer {
                name: "s".into(),
                tools: ["b", "1", "__proto__", "", "0", "a b"]
                    .map(JsString::from)
                    .to_vec(),
            },
            McpServer {
                name: "_".into(),
                tools: vec!["proto__".into()],
            },
            McpServer {
                name: "2".into(),
                tools: vec!["x".into()],
            },
        ];
        // Measured on 1.0.4, 1.67.0 and 1.71.0 (sweep case mcp-odd-names):
        // "__proto__" and "" are never listed, "_" + "_" + "proto__" is the
        // key "__proto__" and is lost to the setter, server "2" comes first.
        assert_eq!(
            keys(&mcp_tools_in(&servers, McpJoin::ByKey)),
            ["2_x", "s_0", "s_1", "s_b", "s_a b"]
        );
    }

    #[test]
    fn one_client_per_server_lists_tools_under_their_own_names() {
        let servers = [
            McpServer {
                name: "b".into(),
                tools: ["x", "1"].map(JsString::from).to_vec(),
            },
            McpServer {
                name: "a".into(),
                tools: vec!["x".into()],
            },
        ];
        // Server b is connected first (key order of the servers object);
        // its listing spreads "1" ahead of "x", and a's "x" takes the
        // place b's had, with a's id.
        let tools = mcp_tools_in(&servers, McpJoin::OneClientEach);
        assert_eq!(keys(&tools), ["1", "x"]);
        let ids: Vec<String> = tools
            .entries()
            .iter()
            .map(|(_, v)| v.id.to_lossy())
            .collect();
        assert_eq!(ids, ["b_1", "a_x"]);
    }

    #[test]
    fn working_memory_adds_one_tool_only_when_enabled() {
        assert!(memory_tools(None).is_empty());
        assert!(memory_tools(Some(MemorySource {
            working_memory: false,
            in_memory: false,
        }))
        .is_empty());
        let r = memory_tools(Some(MemorySource {
            in_memory: false,
            working_memory: true,
        }));
        assert_eq!(keys(&r), [WORKING_MEMORY_KEY]);
    }

    #[test]
    fn validation_error_cuts_the_quoted_arguments_at_200_code_units() {
        let rel = Release::of(crate::version::spec::MastraVersion::new(1, 11, 0));
        let name = JsString::from("agent-s");
        let message = |prompt: &JsString| {
            let input = Json::object([("prompt", Json::String(prompt.clone()))]);
            let result = sub_agent_schema_rejects(&rel, &name, &input).unwrap();
            let message = result.get("message").and_then(Json::as_str).unwrap();
            let message = message.to_lossy();
            let (_, quoted) = message.split_once("Provided arguments: ").unwrap();
            quoted.to_string()
        };
        // `{\n  "prompt": "` is 15 units and `"\n}` 3: a prompt of 182
        // units is quoted whole (200), one of 183 is cut after 200 units,
        // before the closing brace.
        let x = |n: usize| "x".repeat(n);
        let whole = message(&JsString::from(x(182).as_str()));
        assert_eq!(whole, format!("{{\n  \"prompt\": \"{}\"\n}}", x(182)));
        assert_eq!(whole.encode_utf16().count(), 200);
        let cut = message(&JsString::from(x(183).as_str()));
        assert_eq!(
            cut,
            format!("{{\n  \"prompt\": \"{}\"\n... (truncated)", x(183))
        );
        // Not on a release whose schema compiles.
        let fine = Release::of(crate::version::spec::MastraVersion::new(1, 13, 2));
        assert_eq!(
            sub_agent_schema_rejects(&fine, &name, &Json::object([("prompt", Json::str("p"))])),
            None
        );
    }
}
