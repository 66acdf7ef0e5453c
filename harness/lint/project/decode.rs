//! `parse_loaded`: the document `node-probe/project.mjs` writes on its
//! channel, read into a `LoadedProject`.
//!
//! In: the loader's document, parsed as `Json`. Out: the `LoadedProject`,
//! or a `DecodeError`: either the failure the loader itself reported (with
//! the exit status it deserves), or a document that is not what the loader
//! writes (a harness bug, named by the field that is missing).

use super::rules::Rule;
use super::{
    ApprovalCall, ApprovalPolicy, CallToolsets, InlineSuppression, Instructions, LoadedProject,
    Loader, Location, McpListing, McpServer, McpStatus, ModelRoute, NameUse, OtherListing,
    OwnApproval, PolicyAnswer, ProjectAgent, ProjectTool, ToolSource,
};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::version::spec::MastraVersion;

/// What the loader document says went wrong, with the exit status it deserves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadFailure {
    pub kind: String,
    pub message: String,
    /// 2 when the project is at fault, 3 when the harness is.
    pub status: u8,
    /// What the load wrote before it failed.
    pub wrote: Vec<String>,
    pub blocked: Vec<String>,
}

/// Why the loader's document gave no `LoadedProject`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The loader stopped and said why (`{"error": {...}}`).
    #[error("{}", .0.message)]
    Reported(LoadFailure),
    #[error("the loader's document has no string `{0}`")]
    NoText(&'static str),
    #[error("the loader's document has no `mastra`")]
    NoMastra,
    #[error("@mastra/core {0} is not a version lint knows")]
    UnknownVersion(String),
    #[error("the loader's document has no `agents` array")]
    NoAgents,
    #[error("an agent has no `registeredAs`")]
    NoRegisteredAs,
    #[error("an agent has no `tools` array")]
    NoTools,
    #[error("a tool has no `key`")]
    NoToolKey,
    #[error("a tool has no known `source`")]
    NoToolSource,
    #[error("the loader's document names no known `loader`")]
    NoLoader,
    #[error("an MCP server has no `server` name or known `status`")]
    BadServer,
}

/// Read the loader's document (`node-probe/project.mjs`).
pub fn parse_loaded(doc: &Json) -> Result<LoadedProject, DecodeError> {
    if let Some(e) = doc.get("error") {
        let mut failure = parse_failure(e);
        failure.wrote = strings(doc.get("wrote"));
        failure.blocked = strings(doc.get("blocked"));
        return Err(DecodeError::Reported(failure));
    }
    let version_text = doc
        .get("mastra")
        .map(|m| text(m, "version"))
        .transpose()?
        .ok_or(DecodeError::NoMastra)?;
    let mastra = MastraVersion::parse(&version_text)
        .ok_or_else(|| DecodeError::UnknownVersion(version_text.clone()))?;
    let agents = doc
        .get("agents")
        .and_then(Json::as_array)
        .ok_or(DecodeError::NoAgents)?
        .iter()
        .map(parse_agent)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(LoadedProject {
        dir: text(doc, "project")?,
        entry: text(doc, "entry")?,
        node: text(doc, "node")?,
        mastra,
        loader: match text(doc, "loader")?.as_str() {
            "node" => Loader::Node,
            "esbuild" => Loader::Esbuild,
            _ => return Err(DecodeError::NoLoader),
        },
        loader_reason: optional_text(doc, "loaderReason"),
        isolation: optional_text(doc, "isolation").unwrap_or_else(|| "guard".into()),
        env_read: strings(doc.get("env").and_then(|e| e.get("read"))),
        env_not_read: strings(doc.get("env").and_then(|e| e.get("notRead"))),
        agents,
        mcp: servers(doc.get("mcp"))?,
        suppressions: doc
            .get("suppressions")
            .and_then(Json::as_array)
            .unwrap_or(&[])
            .iter()
            .filter_map(parse_suppression)
            .collect(),
        comparisons: name_uses(doc.get("comparisons")),
        sent_name_uses: sent_name_uses(doc.get("sentNameUses")),
        approval_calls: doc
            .get("approvalCalls")
            .and_then(Json::as_array)
            .unwrap_or(&[])
            .iter()
            .filter_map(|c| {
                Some(ApprovalCall {
                    method: optional_text(c, "method")?,
                    receiver: optional_text(c, "receiver"),
                    always: optional_text(c, "policy").as_deref() == Some("always"),
                    agent: c.get("agent").and_then(Json::as_str).cloned(),
                    at: parse_location(c.get("at")),
                })
            })
            .collect(),
        unparsed: strings(doc.get("unparsed")),
        blocked: strings(doc.get("blocked")),
        wrote: strings(doc.get("wrote")),
    })
}

/// An array of strings, as lossy text (absent: none).
fn strings(v: Option<&Json>) -> Vec<String> {
    v.and_then(Json::as_array)
        .unwrap_or(&[])
        .iter()
        .filter_map(|b| b.as_str().map(JsString::to_lossy))
        .collect()
}

fn optional_text(v: &Json, key: &str) -> Option<String> {
    v.get(key).and_then(Json::as_str).map(JsString::to_lossy)
}

fn parse_suppression(v: &Json) -> Option<InlineSuppression> {
    Some(InlineSuppression {
        file: v.get("file")?.as_str()?.to_lossy(),
        line: v.get("line")?.as_f64()? as u64,
        rules: v.get("rules").and_then(Json::as_array).map(|rules| {
            rules
                .iter()
                .filter_map(|r| r.as_str().map(JsString::to_lossy))
                .collect()
        }),
    })
}

fn servers(v: Option<&Json>) -> Result<Vec<McpServer>, DecodeError> {
    v.and_then(Json::as_array)
        .unwrap_or(&[])
        .iter()
        .map(|s| {
            let status = match optional_text(s, "status").as_deref() {
                Some("listed") => McpStatus::Listed,
                Some("failed") => McpStatus::Failed,
                Some("unasked") => McpStatus::Unasked,
                _ => return Err(DecodeError::BadServer),
            };
            Ok(McpServer {
                name: s
                    .get("server")
                    .and_then(Json::as_str)
                    .cloned()
                    .ok_or(DecodeError::BadServer)?,
                transport: optional_text(s, "transport"),
                target: optional_text(s, "target"),
                status,
                error: optional_text(s, "error"),
                tools: s
                    .get("tools")
                    .and_then(Json::as_array)
                    .unwrap_or(&[])
                    .iter()
                    .filter_map(|t| t.as_str().cloned())
                    .collect(),
                at: parse_location(s.get("at")),
                policy: s.get("policy").and_then(parse_policy),
                approval: parse_approval(s),
                approval_at: parse_location(s.get("approvalAt")),
            })
        })
        .collect()
}

/// `{ kind, message, status }`; a status other than 2 is the harness's fault.
fn parse_failure(e: &Json) -> LoadFailure {
    let s = |k: &str| e.get(k).and_then(Json::as_str).map(JsString::to_lossy);
    let status = match e.get("status").and_then(Json::as_f64) {
        Some(2.0) => 2,
        _ => 3,
    };
    LoadFailure {
        kind: s("kind").unwrap_or_default(),
        message: s("message").unwrap_or_else(|| "the loader failed".into()),
        status,
        wrote: Vec::new(),
        blocked: Vec::new(),
    }
}

fn text(v: &Json, key: &'static str) -> Result<String, DecodeError> {
    v.get(key)
        .and_then(Json::as_str)
        .map(JsString::to_lossy)
        .ok_or(DecodeError::NoText(key))
}

fn parse_location(v: Option<&Json>) -> Option<Location> {
    let v = v?;
    Some(Location {
        file: v.get("file")?.as_str()?.to_lossy(),
        line: v.get("line")?.as_f64()? as u64,
        column: v.get("column")?.as_f64()? as u64,
    })
}

fn parse_agent(v: &Json) -> Result<ProjectAgent, DecodeError> {
    let string = |k: &str| v.get(k).and_then(Json::as_str).cloned();
    let registered_as = string("registeredAs").ok_or(DecodeError::NoRegisteredAs)?;
    let tools = v
        .get("tools")
        .and_then(Json::as_array)
        .ok_or(DecodeError::NoTools)?
        .iter()
        .map(parse_tool)
        .collect::<Result<Vec<_>, _>>()?;
    let tool_choice = v.get("toolChoice").and_then(|c| {
        Some(NameUse {
            name: c.get("tool")?.as_str()?.clone(),
            at: parse_location(c.get("at")),
        })
    });
    let active_tools = v
        .get("activeTools")
        .filter(|a| a.as_array().is_some())
        .map(|a| name_uses(Some(a)));
    Ok(ProjectAgent {
        registered_as,
        id: string("id"),
        at: parse_location(v.get("at")),
        route: parse_route(v.get("route")),
        tools,
        tool_choice,
        active_tools,
        calls: v
            .get("calls")
            .and_then(Json::as_array)
            .unwrap_or(&[])
            .iter()
            .map(parse_call_toolsets)
            .collect(),
        mcp: servers(v.get("mcp"))?,
        approval: v
            .get("approval")
            .and_then(Json::as_array)
            .unwrap_or(&[])
            .iter()
            .filter_map(parse_policy)
            .collect(),
        assembly_threw: v
            .get("assemblyThrew")
            .and_then(Json::as_str)
            .map(JsString::to_lossy),
        instructions: v.get("instructions").and_then(|i| {
            Some(Instructions {
                text: i.get("text")?.as_str()?.clone(),
                at: parse_location(i.get("at")),
                template: i
                    .get("at")
                    .and_then(|a| a.get("template"))
                    .is_some_and(|t| *t == Json::Bool(true)),
            })
        }),
    })
}

/// `[{ name, at }]`, each a name with where it is written.
/// `{ callee, at, toolChoice: { tool, at } | null, activeTools: [{ name, at }] | null }`.
fn parse_call_toolsets(c: &Json) -> CallToolsets {
    CallToolsets {
        callee: optional_text(c, "callee").unwrap_or_default(),
        at: parse_location(c.get("at")),
        tool_choice: c.get("toolChoice").and_then(|t| {
            Some(NameUse {
                name: t.get("tool")?.as_str()?.clone(),
                at: parse_location(t.get("at")),
            })
        }),
        active_tools: name_uses(c.get("activeTools")),
    }
}

fn name_uses(v: Option<&Json>) -> Vec<NameUse> {
    v.and_then(Json::as_array)
        .unwrap_or(&[])
        .iter()
        .filter_map(|n| {
            Some(NameUse {
                name: n.get("name")?.as_str()?.clone(),
                at: parse_location(n.get("at")),
            })
        })
        .collect()
}

/// `[{ surface, name, at }]`, each with the rule of its surface; a surface
/// this build does not know is left out, as an unknown field is.
fn sent_name_uses(v: Option<&Json>) -> Vec<(Rule, NameUse)> {
    v.and_then(Json::as_array)
        .unwrap_or(&[])
        .iter()
        .filter_map(|n| {
            let rule = match n.get("surface")?.as_str()?.to_lossy().as_str() {
                "toolCallFilter" => Rule::ToolCallFilterNamesKey,
                "hasToolCall" => Rule::HasToolCallNamesKey,
                "expectedTool" => Rule::ExpectedToolNamesKey,
                _ => return None,
            };
            let name = n.get("name")?.as_str()?.clone();
            Some((
                rule,
                NameUse {
                    name,
                    at: parse_location(n.get("at")),
                },
            ))
        })
        .collect()
}

/// `{ option, at, answers: [{ name, answer }], written: [{ name, at }] }`.
fn parse_policy(p: &Json) -> Option<ApprovalPolicy> {
    let answers = p
        .get("answers")?
        .as_array()?
        .iter()
        .filter_map(|a| {
            let answer = match a.get("answer")?.as_str()?.to_lossy().as_str() {
                "true" => PolicyAnswer::True,
                "false" => PolicyAnswer::False,
                "throws" => PolicyAnswer::Throws,
                "timeout" => PolicyAnswer::Timeout,
                _ => return None,
            };
            Some((a.get("name")?.as_str()?.clone(), answer))
        })
        .collect();
    Some(ApprovalPolicy {
        option: optional_text(p, "option")?,
        at: parse_location(p.get("at")),
        answers,
        written: name_uses(p.get("written")),
        always: p.get("always") == Some(&Json::Bool(true)),
    })
}

fn parse_tool(t: &Json) -> Result<ProjectTool, DecodeError> {
    let key = t
        .get("key")
        .and_then(Json::as_str)
        .cloned()
        .ok_or(DecodeError::NoToolKey)?;
    let source = t
        .get("source")
        .and_then(Json::as_str)
        .map(JsString::to_lossy)
        .and_then(|s| ToolSource::ALL.into_iter().find(|t| t.name() == s))
        .ok_or(DecodeError::NoToolSource)?;
    Ok(ProjectTool {
        key,
        source,
        server: t.get("server").and_then(Json::as_str).cloned(),
        at: parse_location(t.get("at")),
        id: t.get("id").and_then(Json::as_str).cloned(),
        approval: parse_approval(t),
        listing: match optional_text(t, "listing").as_deref() {
            Some("tools") => Some(McpListing::Tools),
            Some("toolsets") => Some(McpListing::Toolsets),
            _ => None,
        },
        other: t.get("other").and_then(|o| {
            Some(OtherListing {
                key: o.get("key")?.as_str()?.clone(),
                sent_as: o.get("sentAs").and_then(Json::as_str).cloned(),
            })
        }),
    })
}

/// `approval`: `always`, `function`, or none.
fn parse_approval(v: &Json) -> OwnApproval {
    match optional_text(v, "approval").as_deref() {
        Some("always") => OwnApproval::Always,
        Some("function") => OwnApproval::Function,
        _ => OwnApproval::None,
    }
}

fn parse_route(v: Option<&Json>) -> ModelRoute {
    let s = |k: &str| {
        v.and_then(|v| v.get(k))
            .and_then(Json::as_str)
            .map(JsString::to_lossy)
    };
    match s("kind").as_deref() {
        Some("openai-compatible") => ModelRoute::OpenAiCompatible {
            id: s("id").unwrap_or_default(),
            url: s("url").unwrap_or_default(),
        },
        Some("router") => ModelRoute::Router {
            provider: s("provider").unwrap_or_default(),
            model: s("model").unwrap_or_default(),
        },
        Some("sdk") => ModelRoute::Sdk {
            provider: s("provider").unwrap_or_default(),
            model: s("model").unwrap_or_default(),
        },
        _ => ModelRoute::Unknown,
    }
}
