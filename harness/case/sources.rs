//! `Sources`: the tool sources of a case beyond `tools`, `toolsets` and
//! `clientTools` — sub-agents, workflows, MCP servers, working memory and
//! dynamic tools (`docs/case-format.md`).
//!
//! In: the case's top-level JSON object. Out: `Sources`, or the `CaseError`
//! naming the file, field and value; and back, the members a case file
//! writes for them. Pure data; `model::sources` decides what each source
//! adds to Mastra's tool record.

use super::read::Validator;
use super::{ApprovalPolicy, CaseError, ToolKey};
use crate::js::json::Json;
use crate::js::string::JsString;

/// The case fields this module reads.
pub const FIELDS: &[&str] = &[
    "agents",
    "workflows",
    "mcp",
    "mcpListing",
    "mcpApproval",
    "memory",
    "dynamicTools",
];

/// The fields of `memory` as an object.
pub const MEMORY_FIELDS: &[&str] = &["workingMemory"];

/// The most tools one MCP server of a case may list: Twilio's 1,409 fit
/// with room to spare; a runaway generator does not.
pub const MAX_MCP_TOOLS: usize = 5000;

/// Every tool source of a case other than the three tools objects.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sources {
    /// `agents`: sub-agents registered under these keys (tools `agent-KEY`).
    pub agents: Option<Vec<ToolKey>>,
    /// `workflows`: workflows registered under these keys (`workflow-KEY`).
    pub workflows: Option<Vec<ToolKey>>,
    /// `mcp`: MCP servers in the order of the case's object (as written;
    /// JavaScript's key order is the model's business).
    pub mcp: Option<Vec<McpServer>>,
    /// `mcpListing`: how the agent is given the servers' tools.
    pub mcp_listing: Option<McpListing>,
    /// `mcpApproval`: each server's own `requireToolApproval`, in the order
    /// of the case's object.
    pub mcp_approval: Option<Vec<(JsString, ApprovalPolicy)>>,
    /// `memory`: a `Memory` on a real store, and the call's thread.
    pub memory: Option<MemorySource>,
    /// `dynamicTools`: `tools` given as a function of the request context.
    pub dynamic_tools: bool,
}

/// One MCP server of a case: its name in `MCPClient({ servers })` and the
/// tool names it lists, in listing order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServer {
    pub name: JsString,
    pub tools: Vec<JsString>,
}

/// `mcpListing`: which `MCPClient` listing the case's MCP tools come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpListing {
    /// `"listTools"` (the default): `SERVER_TOOL` keys spread into the
    /// agent's tools.
    ListTools,
    /// `"listToolsets"`: `{ SERVER: { TOOL: ... } }` spread into the call's
    /// `toolsets` after the case's.
    ListToolsets,
}

impl McpListing {
    pub fn as_str(self) -> &'static str {
        match self {
            McpListing::ListTools => "listTools",
            McpListing::ListToolsets => "listToolsets",
        }
    }
}

/// `memory: { "workingMemory": BOOL }`, or `memory: true`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemorySource {
    pub working_memory: bool,
    /// `memory: true`: the contract's `Memory` over LibSQL in memory
    /// (`file::memory:`), every call on `thread-1` of `user-1`, with
    /// Memory's own options (working memory off).
    pub in_memory: bool,
}

impl MemorySource {
    /// `memory: true`.
    pub const IN_MEMORY: MemorySource = MemorySource {
        working_memory: false,
        in_memory: true,
    };
}

impl Sources {
    /// Whether the case uses none of these sources.
    pub fn is_empty(&self) -> bool {
        *self == Sources::default()
    }

    /// How many tool names the case's MCP servers list in all.
    pub fn mcp_tool_count(&self) -> usize {
        self.mcp.iter().flatten().map(|s| s.tools.len()).sum()
    }

    /// Whether the MCP tools reach the agent through `listToolsets()`.
    pub fn mcp_toolsets(&self) -> bool {
        self.mcp_listing == Some(McpListing::ListToolsets)
    }

    /// The server-level `requireToolApproval` of `server`, if the case
    /// gives it one.
    pub fn server_approval(&self, server: &JsString) -> Option<&ApprovalPolicy> {
        let servers = self.mcp_approval.as_deref().unwrap_or_default();
        servers.iter().find(|(s, _)| s == server).map(|(_, p)| p)
    }

    /// Whether a server-level policy is a function (`{ "names": [...] }`).
    pub fn has_server_approval_function(&self) -> bool {
        let servers = self.mcp_approval.as_deref().unwrap_or_default();
        servers
            .iter()
            .any(|(_, p)| matches!(p, ApprovalPolicy::Names(_)))
    }
}

impl Sources {
    /// The members a case file writes for the sources, in the contract's
    /// order, those a file may leave out left out.
    pub(super) fn write(&self, members: &mut Vec<(&'static str, Json)>) {
        let keys = |k: &[JsString]| Json::from(k.to_vec());
        if let Some(a) = &self.agents {
            members.push(("agents", keys(a)));
        }
        if let Some(w) = &self.workflows {
            members.push(("workflows", keys(w)));
        }
        if let Some(servers) = &self.mcp {
            let servers = servers
                .iter()
                .map(|m| (m.name.clone(), keys(&m.tools)))
                .collect();
            members.push(("mcp", Json::Object(servers)));
        }
        if let Some(listing) = self.mcp_listing {
            members.push(("mcpListing", Json::str(listing.as_str())));
        }
        if let Some(servers) = &self.mcp_approval {
            let servers = servers
                .iter()
                .map(|(name, policy)| (name.clone(), policy.to_json()))
                .collect();
            members.push(("mcpApproval", Json::Object(servers)));
        }
        if let Some(m) = self.memory {
            let v = if m.in_memory {
                Json::Bool(true)
            } else {
                Json::object([("workingMemory", Json::Bool(m.working_memory))])
            };
            members.push(("memory", v));
        }
        if self.dynamic_tools {
            members.push(("dynamicTools", Json::Bool(true)));
        }
    }
}

impl Validator<'_> {
    /// The source fields of the case object `top` (already checked to be an
    /// object with known fields only).
    pub(super) fn sources(&self, top: &Json) -> Result<Sources, CaseError> {
        let keys = |field: &str| {
            top.get(field)
                .map(|v| self.strings(v, field, "an array of KEY strings"))
                .transpose()
        };
        let agents = keys("agents")?;
        let workflows = keys("workflows")?;
        let mcp = match top.get("mcp") {
            None => None,
            Some(v) => {
                let obj = self.object(v, "mcp", &[])?;
                let mut servers = Vec::new();
                for (name, list) in obj.members().unwrap_or_default() {
                    let field = format!("mcp.{}", name.to_lossy());
                    self.at_most(list, &field, MAX_MCP_TOOLS, ("tools", "server"))?;
                    servers.push(McpServer {
                        name: name.clone(),
                        tools: self.strings(list, &field, "an array of tool name strings")?,
                    });
                }
                Some(servers)
            }
        };
        let mcp_listing = match top.get("mcpListing") {
            None => None,
            Some(Json::String(s)) if s.to_lossy() == "listTools" => Some(McpListing::ListTools),
            Some(Json::String(s)) if s.to_lossy() == "listToolsets" => {
                Some(McpListing::ListToolsets)
            }
            Some(other) => {
                return Err(self.wrong("mcpListing", "\"listTools\" or \"listToolsets\"", other))
            }
        };
        let mcp_approval = match top.get("mcpApproval") {
            None => None,
            Some(v) => {
                let obj = self.object(v, "mcpApproval", &[])?;
                let mut servers = Vec::new();
                for (name, policy) in obj.members().unwrap_or_default() {
                    let field = format!("mcpApproval.{}", name.to_lossy());
                    if !mcp.iter().flatten().any(|s| s.name == *name) {
                        return Err(self.err(&field, "names no server of `mcp`"));
                    }
                    servers.push((name.clone(), self.approval_policy(policy, &field)?));
                }
                Some(servers)
            }
        };
        if mcp_listing.is_some() && mcp.is_none() {
            return Err(self.err("mcpListing", "is given without `mcp`"));
        }
        let memory = match top.get("memory") {
            None => None,
            Some(Json::Bool(true)) => Some(MemorySource::IN_MEMORY),
            Some(v @ Json::Bool(false)) => {
                return Err(self.wrong("memory", "true or { \"workingMemory\": BOOL }", v))
            }
            Some(v) => {
                let obj = self.object(v, "memory", MEMORY_FIELDS)?;
                let working_memory = match obj.get("workingMemory") {
                    Some(Json::Bool(b)) => *b,
                    Some(other) => {
                        return Err(self.wrong("memory.workingMemory", "true or false", other))
                    }
                    None => return Err(self.err("memory.workingMemory", "is required")),
                };
                Some(MemorySource {
                    working_memory,
                    in_memory: false,
                })
            }
        };
        let dynamic_tools = match top.get("dynamicTools") {
            None => false,
            Some(Json::Bool(b)) => *b,
            Some(other) => return Err(self.wrong("dynamicTools", "true or false", other)),
        };
        Ok(Sources {
            agents,
            workflows,
            mcp,
            mcp_listing,
            mcp_approval,
            memory,
            dynamic_tools,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::read::tests::parse;
    use super::*;

    #[test]
    fn every_source_field_is_read() {
        let c = parse(
            r#"{"about":"a","agents":["my agent"],"workflows":["wf"],
                "mcp":{"github.com":["get.issue","list"]},"memory":{"workingMemory":true},
                "dynamicTools":true}"#,
        )
        .unwrap();
        let s = &c.sources;
        assert_eq!(s.agents, Some(vec![JsString::from("my agent")]));
        assert_eq!(s.workflows, Some(vec![JsString::from("wf")]));
        assert_eq!(
            s.mcp,
            Some(vec![McpServer {
                name: "github.com".into(),
                tools: vec!["get.issue".into(), "list".into()]
            }])
        );
        assert_eq!(
            s.memory,
            Some(MemorySource {
                working_memory: true,
                in_memory: false,
            })
        );
        assert!(s.dynamic_tools);
        assert_eq!(s.mcp_tool_count(), 2);
        assert!(parse(r#"{"about":"a"}"#).unwrap().sources.is_empty());
    }

    #[test]
    fn mcp_listing_and_server_policies_are_read_and_written_back() {
        let text = r#"{"about":"a","mcp":{"fs":["delete.file"],"gh":["x"]},"mcpListing":"listToolsets",
            "mcpApproval":{"fs":{"names":["delete.file"]},"gh":true}}"#;
        let c = parse(text).unwrap();
        let s = &c.sources;
        assert!(s.mcp_toolsets());
        assert_eq!(
            s.server_approval(&"fs".into()),
            Some(&ApprovalPolicy::Names(vec!["delete.file".into()]))
        );
        assert_eq!(
            s.server_approval(&"gh".into()),
            Some(&ApprovalPolicy::Flag(true))
        );
        assert_eq!(s.server_approval(&"other".into()), None);
        assert!(s.has_server_approval_function());
        let written = c.to_json().to_compact();
        assert!(
            written.contains(r#""mcpListing":"listToolsets""#),
            "{written}"
        );
        assert!(
            written.contains(r#""mcpApproval":{"fs":{"names":["delete.file"]},"gh":true}"#),
            "{written}"
        );
        let again = parse(&written).unwrap();
        assert_eq!(again.sources, c.sources);
    }

    #[test]
    fn bad_source_fields_name_the_field_and_value() {
        let cases = [
            (
                r#"{"about":"a","agents":"x"}"#,
                "field `agents`: expected an array of KEY strings, got a string \"x\"",
            ),
            (
                r#"{"about":"a","workflows":[1]}"#,
                "field `workflows[0]`: expected a string, got a number 1",
            ),
            (
                r#"{"about":"a","mcp":["x"]}"#,
                "field `mcp`: expected an object",
            ),
            (
                r#"{"about":"a","mcp":{"s":"t"}}"#,
                "field `mcp.s`: expected an array of tool name strings",
            ),
            (
                r#"{"about":"a","mcp":{"s":[null]}}"#,
                "field `mcp.s[0]`: expected a string, got null",
            ),
            (
                r#"{"about":"a","memory":{}}"#,
                "field `memory.workingMemory`: is required",
            ),
            (
                r#"{"about":"a","memory":{"workingMemory":1}}"#,
                "field `memory.workingMemory`: expected true or false, got a number 1",
            ),
            (
                r#"{"about":"a","memory":{"lastMessages":1}}"#,
                "field `memory.lastMessages`: unknown field",
            ),
            (
                r#"{"about":"a","dynamicTools":"yes"}"#,
                "field `dynamicTools`: expected true or false, got a string \"yes\"",
            ),
            (
                r#"{"about":"a","mcp":{"fs":["t"]},"mcpListing":"tools"}"#,
                "field `mcpListing`: expected \"listTools\" or \"listToolsets\", got a string \"tools\"",
            ),
            (
                r#"{"about":"a","mcpListing":"listToolsets"}"#,
                "field `mcpListing`: is given without `mcp`",
            ),
            (
                r#"{"about":"a","mcp":{"fs":["t"]},"mcpApproval":{"gh":true}}"#,
                "field `mcpApproval.gh`: names no server of `mcp`",
            ),
            (
                r#"{"about":"a","mcp":{"fs":["t"]},"mcpApproval":{"fs":"t"}}"#,
                "field `mcpApproval.fs`: expected true, false or { \"names\": [...] }, got a string \"t\"",
            ),
            (
                r#"{"about":"a","mcp":{"fs":["t"]},"mcpApproval":{"fs":{"names":[1]}}}"#,
                "field `mcpApproval.fs.names[0]`: expected a string, got a number 1",
            ),
        ];
        for (text, want) in cases {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.starts_with("cases/x.json: "), "{e}");
            assert!(e.contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn a_server_listing_too_many_tools_is_refused() {
        let names: Vec<String> = (0..=MAX_MCP_TOOLS).map(|i| format!("\"t{i}\"")).collect();
        let text = format!(r#"{{"about":"a","mcp":{{"s":[{}]}}}}"#, names.join(","));
        let e = parse(&text).unwrap_err().to_string();
        assert!(e.contains("field `mcp.s`: 5001 tools"), "{e}");
    }
}
