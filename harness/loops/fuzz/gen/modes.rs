//! `network` and `codeMode`, drawn from a stream of their own once the rest
//! of a case is drawn: each changes what the case's tools are to the model
//! (members picked by a routing agent, or functions of a program), so each
//! is drawn as a user of it writes one, from the case's own keys.
//!
//! A network is drawn in one case of fourteen, whatever else it holds: the
//! case keeps its own tools (no builtin, no approval), sub-agents,
//! workflows and route, gets `memory: true` (left out in one of ten, which
//! throws), loses every other option, and its replies become a pick and, in
//! two of three, a later text. Code Mode is drawn in one of six of the
//! other cases where it applies (its own tools alone, no builtin, source,
//! processor, workspace, turns, tracing, lookups or approval), its first
//! reply a call of `execute_typescript` whose program calls one function.

use super::pick;
use crate::case::{
    Call, Case, CodeMode, MemorySource, Network, Reply, Sources, Tool, ToolCallReply, STANDARD_ID,
};
use crate::js::json::Json;
use crate::js::string::{is_surrogate, JsString};
use crate::naming::{is_inherited_name, wire_name};
use arbitrary::{Result, Unstructured};

/// What a pick names when the name drawn cannot be written plainly.
const UNKNOWN_MEMBER: &str = "missing.member";

/// Code Mode's one tool, as its docs name it.
const CODE_MODE_TOOL: &str = "execute_typescript";

/// The id the probe gives each sub-agent and each workflow.
const SUB_AGENT_ID: &str = "sub";
const WORKFLOW_ID: &str = "wf";

/// Draw a network or Code Mode into `c`, from `bytes`.
pub(super) fn draw(bytes: &[u8], c: &mut Case) -> Result<()> {
    if bytes.is_empty() || c.workspace.is_some() {
        return Ok(());
    }
    let mut u = Unstructured::new(bytes);
    if u.ratio(1u8, 14)? {
        return network(&mut u, c);
    }
    if code_mode_applies(c) && u.ratio(1u8, 6)? {
        return code_mode(&mut u, c);
    }
    Ok(())
}

/// Whether Code Mode is drawn for a case like `c`: its own tools, at least
/// one, none a builtin, and nothing beside them but the call's options.
pub(super) fn code_mode_applies(c: &Case) -> bool {
    !c.tools.is_empty()
        && !c.tools.iter().any(|t| matches!(t, Tool::Builtin { .. }))
        && c.toolsets.is_none()
        && c.client_tools.is_none()
        && c.sources == Sources::default()
        && c.tool_search.is_none()
        && c.tool_call_filter.is_none()
        && c.workspace.is_none()
        && c.turns.is_none()
        && !c.tracing
        && !c.lookups
        && !c.drives_approval()
}

/// A tool's key and id as the probe builds it.
fn key_and_id(tool: &Tool) -> (JsString, JsString) {
    match tool {
        Tool::Standard(key) => (key.clone(), JsString::from(STANDARD_ID)),
        Tool::Custom { key, id, .. } => (key.clone(), id.clone()),
        Tool::Builtin { key, name } => (key.clone(), JsString::from(name.as_str())),
    }
}

/// Code Mode's function for a name, as its docs say: `external_` and the
/// name with every character outside `A-Za-z0-9_$` made `_`, `_` in front
/// of a digit first or of nothing.
fn function_for(name: &JsString) -> JsString {
    let ident = |u: u16| (u < 0x80 && (u as u8).is_ascii_alphanumeric()) || u == 0x5f || u == 0x24;
    let mut units: Vec<u16> = name
        .units()
        .iter()
        .map(|&u| if ident(u) { u } else { 0x5f })
        .collect();
    if units.first().is_none_or(|&u| (0x30..=0x39).contains(&u)) {
        units.insert(0, 0x5f);
    }
    JsString::from("external_").concat(&JsString::from_units(units))
}

fn has_surrogate(name: &JsString) -> bool {
    name.units().iter().copied().any(is_surrogate)
}

/// Code Mode over the case's tools: a first step calling
/// `execute_typescript` with a program of one call, by the function a tool's
/// id makes (most), or by its key made a function, its key, wire name or
/// id as written, or a name no tool has; with fitting arguments or not.
fn code_mode(u: &mut Unstructured, c: &mut Case) -> Result<()> {
    let (key, id) = key_and_id(u.choose(&c.tools)?);
    let name = match pick(u, &[(55, 0u8), (10, 1), (10, 2), (10, 3), (10, 4), (5, 5)])? {
        0 => function_for(&id),
        1 => function_for(&key),
        2 => key.clone(),
        3 => wire_name(&key).unwrap_or(key),
        4 => id.clone(),
        _ => JsString::from("external_missing"),
    };
    // A lone surrogate, and a function globalThis inherits, were not
    // measured in a program.
    let unmeasured = has_surrogate(&name) || is_inherited_name(&name);
    let name = if unmeasured { function_for(&id) } else { name };
    let city = |v: Json| Json::object([("city", v)]);
    let arguments = match pick(u, &[(70, 0u8), (10, 1), (10, 2), (10, 3)])? {
        0 => city(Json::str("Paris")),
        1 => Json::object::<&str>([]),
        2 => city(Json::int(1)),
        _ => Json::object([("city", Json::str("Paris")), ("units", Json::str("c"))]),
    };
    let mut code = JsString::from("return await globalThis[");
    code.push_str(&Json::String(name).to_compact());
    code.push_str("](");
    code.push_str(&arguments.to_compact());
    code.push_str(");");
    let call = ToolCallReply {
        id: JsString::from("call_code"),
        name: JsString::from(CODE_MODE_TOOL),
        arguments: Json::object([("code", Json::String(code))]),
    };
    c.replies.insert(0, Reply::ToolCalls(vec![call]));
    c.code_mode = Some(CodeMode {});
    Ok(())
}

/// A network over the case's own tools, sub-agents and workflows, and its
/// pick.
fn network(u: &mut Unstructured, c: &mut Case) -> Result<()> {
    c.tools.retain(|t| !matches!(t, Tool::Builtin { .. }));
    for tool in &mut c.tools {
        if let Tool::Custom {
            require_approval, ..
        } = tool
        {
            *require_approval = None;
        }
    }
    let memory = (!u.ratio(1u8, 10)?).then_some(MemorySource::IN_MEMORY);
    c.sources = Sources {
        agents: c.sources.agents.take(),
        workflows: c.sources.workflows.take(),
        memory,
        ..Sources::default()
    };
    c.toolsets = None;
    c.client_tools = None;
    c.tool_search = None;
    c.tool_call_filter = None;
    c.sub_agent_replies = None;
    c.approvals = None;
    c.turns = None;
    c.tracing = false;
    c.lookups = false;
    c.call = Call {
        method: c.call.method,
        ..Call::default()
    };
    let tools: Vec<(JsString, JsString)> = c.tools.iter().map(key_and_id).collect();
    let agents = c.sources.agents.clone().unwrap_or_default();
    let workflows = c.sources.workflows.clone().unwrap_or_default();
    let kind = pick(u, &[(45, "tool"), (30, "agent"), (25, "workflow")])?;
    let (own, others, id): (Vec<JsString>, Vec<JsString>, Option<JsString>) = match kind {
        "tool" => (
            tools.iter().map(|(k, _)| k.clone()).collect(),
            agents.iter().chain(&workflows).cloned().collect(),
            tools.first().map(|(_, id)| id.clone()),
        ),
        "agent" => (
            agents.clone(),
            tools
                .iter()
                .map(|(k, _)| k.clone())
                .chain(workflows.clone())
                .collect(),
            Some(JsString::from(SUB_AGENT_ID)),
        ),
        _ => (
            workflows.clone(),
            tools
                .iter()
                .map(|(k, _)| k.clone())
                .chain(agents.clone())
                .collect(),
            Some(JsString::from(WORKFLOW_ID)),
        ),
    };
    let unknown = || JsString::from(UNKNOWN_MEMBER);
    let drawn = match pick(u, &[(45, 0u8), (15, 1), (10, 2), (15, 3), (15, 4)])? {
        0 if !own.is_empty() => u.choose(&own)?.clone(),
        1 if !own.is_empty() => {
            let key = u.choose(&own)?;
            wire_name(key).unwrap_or_else(|| key.clone())
        }
        2 => id.unwrap_or_else(unknown),
        3 if !others.is_empty() => u.choose(&others)?.clone(),
        _ => unknown(),
    };
    // A name every object inherits, where no member of the kind has it as
    // its own key, and a lone surrogate, were not measured in a pick.
    let plain = !has_surrogate(&drawn) && (!is_inherited_name(&drawn) || own.contains(&drawn));
    let name = if plain { drawn } else { unknown() };
    let text = Json::object([
        ("primitiveId", Json::String(name)),
        ("primitiveType", Json::str(kind)),
        ("prompt", Json::str(r#"{"city":"Paris"}"#)),
        ("selectionReason", Json::str("r")),
    ])
    .to_compact();
    c.replies = vec![Reply::Text(JsString::from(text.as_str()))];
    if u.ratio(2u8, 3)? {
        c.replies.push(Reply::Text(JsString::from("done")));
    }
    c.network = Some(Network {});
    Ok(())
}
