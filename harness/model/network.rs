//! `network`: the call made as `agent.network(prompt, options)`, its members
//! the agent's tools, sub-agents and workflows, picked by a routing agent
//! whose reply is structured output (`{ primitiveId, primitiveType, prompt,
//! selectionReason }`) rather than a tool call.
//!
//! In: a case and a release. Out: where the case is not applicable or not
//! modelled, and otherwise its projection. The routing requests offer no
//! `tools` (on `anthropic` before `NETWORK_ANTHROPIC_NATIVE_OUTPUT`, the
//! provider's own `json` tool alone); the routing prompt lists each member
//! by its record key as written, which the snapshots pin; a pick runs its
//! member only where `primitiveId` is that key and `primitiveType` its kind
//! (the wire name, the id, a key of another kind run nothing). Measured on
//! 1.0.4 to 1.71.0, every route (`cases/network/`).
//!
//! The run modelled is the one a case scripts with its first reply, the
//! pick, and at most one text after it that is no JSON: the routing
//! request; then, for a member found, its run (a sub-agent's one request),
//! the completion check (which that text, or the default error, fails),
//! and the next routing request, which the default error ends (sent twice
//! while `NETWORK_FAILED_ROUTING_SENT_TWICE`). A pick of no member ends the
//! run after the routing request. The error the listener's default reply
//! causes is no error of the projection's.

use super::record::{Lookup, Record};
use super::releases::Release;
use super::Prediction;
use crate::case::{Call, Case, Reply, Sources, Tool};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::projection::{ErrorView, Executed, Projection, RequestView};
use crate::route::Route;

/// What `agent.network()` throws for an agent without memory (1.0.4 to
/// 1.71.0 alike: `cases/network/without-memory-throws-*`).
const MEMORY_REQUIRED_ID: &str = "AGENT_NETWORK_MEMORY_REQUIRED";
const MEMORY_REQUIRED_MESSAGE: &str =
    "Memory is required for the agent network to function properly. Please configure memory for the agent.";

/// The kinds a pick may name, as `primitiveType` spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Tool,
    Agent,
    Workflow,
}

/// The routing reply's pick.
struct Pick {
    kind: Kind,
    id: JsString,
    prompt: JsString,
}

/// The prediction of a `network` case; `None` without one.
pub(super) fn predict(case: &Case, rel: &Release) -> Option<Prediction> {
    case.network.as_ref()?;
    if let Some(not_served) = super::not_served(rel, "network", "Agent.network", true) {
        return Some(not_served);
    }
    if !rel.is_modelled() {
        return Some(Prediction::Unmodelled(format!(
            "@mastra/core {} is outside the 1.x line the model was swept on",
            rel.version
        )));
    }
    Some(match project(case, rel) {
        Ok(p) => Prediction::Projection(p),
        Err(reason) => Prediction::Unmodelled(reason),
    })
}

/// Whether a network case holds only what was measured with one: the
/// agent's own tools (no builtin, no approval), sub-agents, workflows,
/// `memory: true` or none, and a call with no options.
fn beside_unmeasured(case: &Case) -> bool {
    let builtin = case.tools.iter().any(|t| matches!(t, Tool::Builtin { .. }));
    let measured = Sources {
        agents: case.sources.agents.clone(),
        workflows: case.sources.workflows.clone(),
        memory: case.sources.memory.filter(|m| m.in_memory),
        ..Sources::default()
    };
    let call = Call {
        method: case.call.method,
        ..Call::default()
    };
    builtin
        || case.toolsets.is_some()
        || case.client_tools.is_some()
        || case.tool_search.is_some()
        || case.tool_call_filter.is_some()
        || case.workspace.is_some()
        || case.code_mode.is_some()
        || case.sources != measured
        || case.sub_agent_replies.is_some()
        || case.turns.is_some()
        || case.call != call
        || case.tracing
        || case.lookups
        || case.drives_approval()
}

fn project(case: &Case, rel: &Release) -> Result<Projection, String> {
    if beside_unmeasured(case) {
        return Err("network beside toolsets, client tools, builtins, MCP, dynamic tools, processors, a workspace, codeMode, turns, call options, tracing, lookups or approval: not measured".into());
    }
    let mut p = Projection::empty();
    p.seen = Some(Box::default());
    if case.sources.memory.is_none() {
        p.error = Some(ErrorView {
            id: Some(JsString::from(MEMORY_REQUIRED_ID)),
            message: JsString::from(MEMORY_REQUIRED_MESSAGE),
            cause_code: None,
        });
        return Ok(p);
    }
    let pick = pick(case.replies.first())?;
    let after_ok = match case.replies.get(1..).unwrap_or_default() {
        [] => true,
        [Reply::Text(text)] => text.to_rust().is_some_and(|t| Json::parse(&t).is_err()),
        _ => false,
    };
    if !after_ok || case.replies.len() > 2 {
        return Err(
            "a network run scripted past its pick by more than one text that is no JSON".into(),
        );
    }
    if rel.network_schema_throws {
        // The routing step fails before its request, and the run ends
        // with no error chunk.
        return Ok(p);
    }
    let routing = routing_request(case, rel);
    if case.route == Route::Anthropic && !rel.network_anthropic_native_output {
        // The text reply is not the `json` tool's call: the run ends.
        p.requests.push(routing);
        return Ok(p);
    }
    if rel.network_routing_schema_broken {
        // The pick fails the routing step's own schema, which is tried
        // once more; then the run ends, nothing run and no error chunk.
        p.requests.push(routing.clone());
        p.requests.push(routing);
        return Ok(p);
    }
    let found = member(case, &pick)?;
    p.requests.push(routing.clone());
    let Some(ran) = found else {
        return Ok(p);
    };
    let seen = p.seen.get_or_insert_with(Box::default);
    match ran {
        Ran::Tool { id, input } => {
            seen.stream.push((
                JsString::from("tool-execution-end"),
                Json::String(id.clone()),
            ));
            p.executed.push(Executed { id, input });
        }
        // The sub-agent's one request: it has no tools.
        Ran::Agent => p.requests.push(plain_request()),
        Ran::Workflow => {}
    }
    // The completion check, then the next routing request.
    p.requests.push(plain_request());
    p.requests.push(routing.clone());
    if rel.network_failed_routing_sent_twice {
        p.requests.push(routing);
    }
    Ok(p)
}

/// A request with no `tools`, no tool choice and no tool history.
fn plain_request() -> RequestView {
    RequestView {
        tools: None,
        tool_choice: None,
        history: Vec::new(),
    }
}

/// A routing request: structured output, which `anthropic` before
/// `NETWORK_ANTHROPIC_NATIVE_OUTPUT` asks for as a forced `json` tool.
fn routing_request(case: &Case, rel: &Release) -> RequestView {
    if case.route != Route::Anthropic || rel.network_anthropic_native_output {
        return plain_request();
    }
    RequestView {
        tools: Some(vec![JsString::from("json")]),
        tool_choice: Some(Json::object([
            ("type", Json::str("tool")),
            ("name", Json::str("json")),
            ("disable_parallel_tool_use", Json::Bool(true)),
        ])),
        history: Vec::new(),
    }
}

/// The pick a first reply scripts: the text of a JSON object with the four
/// string fields, `primitiveType` a kind modelled.
fn pick(first: Option<&Reply>) -> Result<Pick, String> {
    let other = || "a network's first reply other than the text of a pick".to_string();
    let Some(Reply::Text(text)) = first else {
        return Err(other());
    };
    let value = Json::parse(&text.to_rust().ok_or_else(other)?).map_err(|_| other())?;
    let members = value.members().ok_or_else(other)?;
    let field = |name: &str| value.get(name).and_then(Json::as_str).cloned();
    let expected = ["primitiveId", "primitiveType", "prompt", "selectionReason"];
    let exact =
        members.len() == expected.len() && expected.iter().all(|name| field(name).is_some());
    if !exact {
        return Err(other());
    }
    let kind = match field("primitiveType")
        .unwrap_or_default()
        .to_lossy()
        .as_str()
    {
        "tool" => Kind::Tool,
        "agent" => Kind::Agent,
        "workflow" => Kind::Workflow,
        _ => return Err("a network pick of primitiveType none or another kind".into()),
    };
    Ok(Pick {
        kind,
        id: field("primitiveId").unwrap_or_default(),
        prompt: field("prompt").unwrap_or_default(),
    })
}

/// What a pick ran.
enum Ran {
    Tool { id: JsString, input: Json },
    Agent,
    Workflow,
}

/// The member a pick names, by its record key and kind, and what it ran;
/// `None` where no member of that kind has the key.
fn member(case: &Case, pick: &Pick) -> Result<Option<Ran>, String> {
    let keys = |list: &Option<Vec<JsString>>| {
        let mut record = Record::new();
        for key in list.iter().flatten() {
            record.define(key.clone(), ());
        }
        record
    };
    // `__proto__` finds no tool: tools are looked up on an object whose
    // `__proto__` is its prototype, whatever the case's record holds; a
    // sub-agent or workflow under it is found
    // (`cases/network/*-keyed-proto-picked-*`, 1.0.4, 1.67.0 and 1.71.0;
    // fuzz seed 1, case 2683).
    if pick.kind == Kind::Tool && pick.id == JsString::from("__proto__") {
        return Ok(None);
    }
    let found = match pick.kind {
        Kind::Tool => match super::entries(&case.tools, false).get(&pick.id) {
            Lookup::Own(value) => Some(Some(value.id.clone())),
            Lookup::Inherited => None,
            Lookup::Missing => Some(None),
        },
        Kind::Agent => lookup(&keys(&case.sources.agents), &pick.id),
        Kind::Workflow => lookup(&keys(&case.sources.workflows), &pick.id),
    }
    .ok_or("a network pick naming a key every object inherits")?;
    let Some(id) = found else {
        return Ok(None);
    };
    Ok(Some(match pick.kind {
        Kind::Agent => Ran::Agent,
        Kind::Tool | Kind::Workflow => {
            let input = city_input(&pick.prompt).ok_or(
                "a network pick of a tool or workflow whose prompt is not { city: string }",
            )?;
            match pick.kind {
                Kind::Tool => Ran::Tool { id, input },
                _ => Ran::Workflow,
            }
        }
    }))
}

/// `Some(Some(key))` for an own key, `Some(None)` for a missing one, `None`
/// for a key every object inherits.
fn lookup(record: &Record<()>, key: &JsString) -> Option<Option<JsString>> {
    match record.get(key) {
        Lookup::Own(()) => Some(Some(key.clone())),
        Lookup::Inherited => None,
        Lookup::Missing => Some(None),
    }
}

/// A prompt that is the JSON text of `{ city: string }` alone, as the
/// input it is.
fn city_input(prompt: &JsString) -> Option<Json> {
    let value = Json::parse(&prompt.to_rust()?).ok()?;
    let members = value.members()?;
    (members.len() == 1 && value.get("city").and_then(Json::as_str).is_some()).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pick_is_the_text_of_the_four_fields() {
        let text = |s: &str| Reply::Text(JsString::from(s));
        let ok = pick(Some(&text(
            r#"{"primitiveId":"a.b","primitiveType":"tool","prompt":"{}","selectionReason":"r"}"#,
        )))
        .unwrap();
        assert_eq!(ok.kind, Kind::Tool);
        assert_eq!(ok.id.to_lossy(), "a.b");
        assert!(pick(Some(&text(r#"{"primitiveId":"a"}"#))).is_err());
        assert!(pick(Some(&text(
            r#"{"primitiveId":"a","primitiveType":"none","prompt":"","selectionReason":"r"}"#
        )))
        .is_err());
        assert!(pick(Some(&text("done"))).is_err());
        assert!(pick(None).is_err());
    }

    #[test]
    fn a_city_prompt_is_its_input() {
        let p = |s: &str| city_input(&JsString::from(s)).map(|j| j.to_compact());
        assert_eq!(
            p(r#"{"city":"Paris"}"#).as_deref(),
            Some(r#"{"city":"Paris"}"#)
        );
        assert_eq!(p(r#"{"city":1}"#), None);
        assert_eq!(p(r#"{"city":"a","x":1}"#), None);
        assert_eq!(p("Paris"), None);
    }
}
