//! Reading a case file: `case(file, json)`, the JSON value of one file
//! checked field by field (`docs/case-format.md`).
//!
//! In: the file's name and its JSON. Out: a `Case`, or the first
//! `CaseError`, naming the file, the field and the value that was wrong.
//! Unknown and repeated fields are errors, since a misspelt or repeated
//! field would make the model and the probe run two different cases.

use super::{
    Approval, ApprovalPolicy, Call, Case, CaseError, CodeMode, Method, Network, Reply, StopWhen,
    Tool, ToolApproval, ToolCallReply, ToolChoice, ToolSearch, Workspace, BUILTINS, MAX_REPLIES,
    SOURCE_FIELDS,
};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::route::Route;
use std::path::Path;

/// The top-level fields of a case besides the sources' (`SOURCE_FIELDS`).
const FIELDS: &[&str] = &[
    "about",
    "source",
    "tools",
    "toolsets",
    "clientTools",
    "toolSearch",
    "toolCallFilter",
    "workspace",
    "codeMode",
    "network",
    "call",
    "replies",
    "subAgentReplies",
    "route",
    "approvals",
    "turns",
    "tracing",
    "lookups",
];

/// The fields of `toolSearch`.
const TOOL_SEARCH_FIELDS: &[&str] = &["tools"];
/// The fields of a TOOL object.
const TOOL_FIELDS: &[&str] = &["key", "id", "description", "builtin", "requireApproval"];
/// The fields of a TOOL's `requireApproval` as an object (a function).
const APPROVAL_FN_FIELDS: &[&str] = &["returns", "throws"];
/// The fields of `call`.
const CALL_FIELDS: &[&str] = &[
    "method",
    "toolChoice",
    "activeTools",
    "maxSteps",
    "requireToolApproval",
    "stopWhen",
];
/// The fields of a turn: a `call`'s and its prompt.
const TURN_FIELDS: &[&str] = &[
    "method",
    "toolChoice",
    "activeTools",
    "maxSteps",
    "requireToolApproval",
    "stopWhen",
    "prompt",
];
/// The fields of `call.stopWhen`.
const STOP_WHEN_FIELDS: &[&str] = &["hasToolCall"];
/// The fields of `call.requireToolApproval` as an object.
const POLICY_FIELDS: &[&str] = &["names"];
/// The fields of a named `call.toolChoice`.
const CHOICE_FIELDS: &[&str] = &["type", "toolName"];
/// The fields of a REPLY.
const REPLY_FIELDS: &[&str] = &["status", "body", "toolCalls", "text"];
/// The fields of a REPLY's tool call.
const TOOL_CALL_FIELDS: &[&str] = &["id", "name", "arguments"];

pub(super) fn case(path: &Path, raw: &Json) -> Result<Case, CaseError> {
    let v = Validator { file: path };
    let known: Vec<&str> = FIELDS.iter().chain(SOURCE_FIELDS).copied().collect();
    let top = v.object(raw, "", &known)?;
    let about = v
        .text(top.get("about"), "about")?
        .ok_or_else(|| v.err("about", "is required"))?;
    let blank = Case::new(path, about);
    // One field after another in the contract's order, whatever the
    // file's: the first bad one is the error.
    let mut case = Case {
        source: v.text(top.get("source"), "source")?,
        tools: match top.get("tools") {
            None => blank.tools,
            Some(t) => v.tools(t, "tools")?,
        },
        toolsets: match top.get("toolsets") {
            None => blank.toolsets,
            Some(t) => Some(v.toolsets(t)?),
        },
        client_tools: match top.get("clientTools") {
            None => blank.client_tools,
            Some(t) => Some(v.tools(t, "clientTools")?),
        },
        tool_search: match top.get("toolSearch") {
            None => blank.tool_search,
            Some(t) => Some(v.tool_search(t)?),
        },
        tool_call_filter: match top.get("toolCallFilter") {
            None => blank.tool_call_filter,
            Some(f) => {
                let o = v.object(f, "toolCallFilter", &["exclude"])?;
                let exclude = o.get("exclude").ok_or_else(|| {
                    v.err(
                        "toolCallFilter.exclude",
                        "is required: the names to exclude",
                    )
                })?;
                Some(v.strings(exclude, "toolCallFilter.exclude", "an array of names")?)
            }
        },
        workspace: match top.get("workspace") {
            None => blank.workspace,
            Some(w) => {
                let o = v.object(w, "workspace", &["name"])?;
                let name = match o.get("name") {
                    None => None,
                    Some(n) => Some(v.js(Some(n), "workspace.name")?),
                };
                Some(Workspace { name })
            }
        },
        code_mode: match top.get("codeMode") {
            None => blank.code_mode,
            Some(m) => {
                // Code Mode's own options (`id`, `timeout`, a transport)
                // are not driven: the object is empty.
                let members = v.object(m, "codeMode", &[])?.members().unwrap_or_default();
                if let Some((k, _)) = members.first() {
                    return Err(v.err(
                        &member_path("codeMode", k),
                        "unknown field (codeMode is {})",
                    ));
                }
                Some(CodeMode {})
            }
        },
        network: match top.get("network") {
            None => blank.network,
            Some(m) => {
                let members = v.object(m, "network", &[])?.members().unwrap_or_default();
                if let Some((k, _)) = members.first() {
                    return Err(v.err(
                        &member_path("network", k),
                        "unknown field (network is {}: the network's own options are not driven)",
                    ));
                }
                Some(Network {})
            }
        },
        call: match top.get("call") {
            None => blank.call,
            Some(c) => v.call(c, "call", CALL_FIELDS)?,
        },
        replies: match top.get("replies") {
            None => blank.replies,
            Some(r) => v.replies(r)?,
        },
        route: match top.get("route") {
            None => blank.route,
            Some(r) => v.route(r)?,
        },
        route_named: top.get("route").is_some(),
        sources: v.sources(top)?,
        approvals: match top.get("approvals") {
            None => blank.approvals,
            Some(a) => Some(v.approvals(a)?),
        },
        turns: match top.get("turns") {
            None => None,
            Some(_) if top.get("call").is_some() => {
                return Err(v.err("turns", "replaces `call`: a case has one or the other"))
            }
            Some(t) => Some(v.turns(t)?),
        },
        tracing: match top.get("tracing") {
            None => false,
            Some(Json::Bool(b)) => *b,
            Some(other) => return Err(v.wrong("tracing", "true or false", other)),
        },
        lookups: match top.get("lookups") {
            None => false,
            Some(Json::Bool(b)) => *b,
            Some(other) => return Err(v.wrong("lookups", "true or false", other)),
        },
        ..blank
    };
    // Read last: its keys are checked against `agents`.
    if let Some(r) = top.get("subAgentReplies") {
        let agents = case.sources.agents.as_deref().unwrap_or_default();
        case.sub_agent_replies = Some(v.sub_agent_replies(r, agents)?);
    }
    Ok(case)
}

/// Reads the values of one file; every error names that file. The case
/// reader's, and every other JSON document's the project keeps (the
/// known-issues ledger).
pub(crate) struct Validator<'a> {
    file: &'a Path,
}

/// A value as an error message shows it: its JSON, cut at 60 characters.
fn show(v: &Json) -> String {
    let text = v.to_compact();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

/// `field.key`, or `key` at the top level.
fn member_path(field: &str, key: &JsString) -> String {
    if field.is_empty() {
        key.to_lossy()
    } else {
        format!("{field}.{}", key.to_lossy())
    }
}

impl<'a> Validator<'a> {
    pub(crate) fn new(file: &'a Path) -> Validator<'a> {
        Validator { file }
    }

    pub(crate) fn err(&self, field: &str, problem: impl Into<String>) -> CaseError {
        CaseError {
            file: self.file.to_path_buf(),
            field: field.to_string(),
            problem: problem.into(),
        }
    }

    pub(crate) fn wrong(&self, field: &str, expected: &str, got: &Json) -> CaseError {
        self.err(
            field,
            format!("expected {expected}, got {} {}", got.kind(), show(got)),
        )
    }

    /// An object whose keys are all in `known` (any keys when `known` is
    /// empty). Unknown fields are errors: a misspelt `toolChoise` must not
    /// silently run a different case.
    pub(crate) fn object<'j>(
        &self,
        v: &'j Json,
        field: &str,
        known: &[&str],
    ) -> Result<&'j Json, CaseError> {
        let Json::Object(members) = v else {
            return Err(self.wrong(
                if field.is_empty() {
                    "(top level)"
                } else {
                    field
                },
                "an object",
                v,
            ));
        };
        // JSON readers disagree on a repeated name (Node's JSON.parse keeps
        // the last, this harness's reader the first), so the model and the
        // probe would run two different cases.
        for (i, (k, _)) in members.iter().enumerate() {
            if members[..i].iter().any(|(earlier, _)| earlier == k) {
                return Err(self.err(
                    &member_path(field, k),
                    "appears twice; give each field once",
                ));
            }
        }
        if !known.is_empty() {
            for (k, _) in members {
                if !known.iter().any(|n| JsString::from(*n) == *k) {
                    return Err(self.err(
                        &member_path(field, k),
                        format!("unknown field (known: {})", known.join(", ")),
                    ));
                }
            }
        }
        Ok(v)
    }

    /// The elements of the array `v`, each read by `item` with its own
    /// field (`field[i]`).
    pub(crate) fn array<T>(
        &self,
        v: &Json,
        field: &str,
        expected: &str,
        item: impl Fn(&Json, &str) -> Result<T, CaseError>,
    ) -> Result<Vec<T>, CaseError> {
        let items = v.as_array().ok_or_else(|| self.wrong(field, expected, v))?;
        items
            .iter()
            .enumerate()
            .map(|(i, x)| item(x, &format!("{field}[{i}]")))
            .collect()
    }

    /// At most `max` elements in the array `v`: a list too long for what
    /// holds it (`65 replies; at most 64 fit one case`) is refused before
    /// any of it is read.
    pub(super) fn at_most(
        &self,
        v: &Json,
        field: &str,
        max: usize,
        (what, holder): (&str, &str),
    ) -> Result<(), CaseError> {
        match v.as_array() {
            Some(items) if items.len() > max => Err(self.err(
                field,
                format!("{} {what}; at most {max} fit one {holder}", items.len()),
            )),
            _ => Ok(()),
        }
    }

    pub(crate) fn text(&self, v: Option<&Json>, field: &str) -> Result<Option<String>, CaseError> {
        match v {
            None => Ok(None),
            Some(Json::String(s)) => s
                .to_rust()
                .map(Some)
                .ok_or_else(|| self.err(field, "holds a lone surrogate")),
            Some(other) => Err(self.wrong(field, "a string", other)),
        }
    }

    pub(crate) fn js(&self, v: Option<&Json>, field: &str) -> Result<JsString, CaseError> {
        match v {
            Some(Json::String(s)) => Ok(s.clone()),
            Some(other) => Err(self.wrong(field, "a string", other)),
            None => Err(self.err(field, "is required")),
        }
    }

    /// An array of strings (`activeTools`, `agents`, an MCP server's tools).
    pub(crate) fn strings(
        &self,
        v: &Json,
        field: &str,
        expected: &str,
    ) -> Result<Vec<JsString>, CaseError> {
        self.array(v, field, expected, |k, at| self.js(Some(k), at))
    }

    fn tools(&self, v: &Json, field: &str) -> Result<Vec<Tool>, CaseError> {
        self.array(v, field, "an array of tools", |t, at| self.tool(t, at))
    }

    /// `toolSearch`: `{ "tools": [TOOL, ...] }`.
    fn tool_search(&self, v: &Json) -> Result<ToolSearch, CaseError> {
        let o = self.object(v, "toolSearch", TOOL_SEARCH_FIELDS)?;
        let tools = match o.get("tools") {
            Some(t) => self.tools(t, "toolSearch.tools")?,
            None => return Err(self.err("toolSearch.tools", "is required")),
        };
        Ok(ToolSearch { tools })
    }

    fn toolsets(&self, v: &Json) -> Result<Vec<(JsString, Vec<Tool>)>, CaseError> {
        let sets = self.object(v, "toolsets", &[])?;
        let mut out = Vec::new();
        for (name, list) in sets.members().unwrap_or_default() {
            let field = format!("toolsets.{}", name.to_lossy());
            out.push((name.clone(), self.tools(list, &field)?));
        }
        Ok(out)
    }

    fn route(&self, v: &Json) -> Result<Route, CaseError> {
        let name = self.text(Some(v), "route")?.unwrap_or_default();
        Route::parse(&name).ok_or_else(|| {
            self.err(
                "route",
                format!(
                    "{name:?} is not a route: expected one of {}",
                    Route::ALL.map(Route::name).join(", ")
                ),
            )
        })
    }

    fn tool(&self, v: &Json, field: &str) -> Result<Tool, CaseError> {
        if let Json::String(key) = v {
            return Ok(Tool::Standard(key.clone()));
        }
        let obj = self.object(v, field, TOOL_FIELDS).map_err(|e| {
            if matches!(v, Json::Object(_)) {
                e
            } else {
                self.wrong(field, "a key string or a tool object", v)
            }
        })?;
        let key = self.js(obj.get("key"), &format!("{field}.key"))?;
        match obj.get("builtin") {
            Some(b) => {
                if obj.get("id").is_some()
                    || obj.get("description").is_some()
                    || obj.get("requireApproval").is_some()
                {
                    return Err(self.err(field, "a builtin takes only `key` and `builtin`"));
                }
                let name = self
                    .text(Some(b), &format!("{field}.builtin"))?
                    .unwrap_or_default();
                if !BUILTINS.contains(&name.as_str()) {
                    return Err(self.err(
                        &format!("{field}.builtin"),
                        format!("unknown builtin {name:?} (known: {})", BUILTINS.join(", ")),
                    ));
                }
                Ok(Tool::Builtin { key, name })
            }
            None => Ok(Tool::Custom {
                key,
                id: self.js(obj.get("id"), &format!("{field}.id"))?,
                description: obj
                    .get("description")
                    .map(|d| self.js(Some(d), &format!("{field}.description")))
                    .transpose()?,
                require_approval: obj
                    .get("requireApproval")
                    .map(|v| self.tool_approval(v, &format!("{field}.requireApproval")))
                    .transpose()?,
            }),
        }
    }

    /// A TOOL's `requireApproval`: `true`, `{ "returns": BOOL }` or
    /// `{ "throws": MESSAGE }`.
    fn tool_approval(&self, v: &Json, field: &str) -> Result<ToolApproval, CaseError> {
        const EXPECTED: &str =
            "true, {\"returns\": true|false} or {\"throws\": MESSAGE} (leave it out for false)";
        match v {
            Json::Bool(true) => return Ok(ToolApproval::Always),
            Json::Object(_) => {}
            // `false` is what leaving it out means; one spelling keeps a
            // written case and its rewrite the same file.
            other => return Err(self.wrong(field, EXPECTED, other)),
        }
        let obj = self.object(v, field, APPROVAL_FN_FIELDS)?;
        match (obj.get("returns"), obj.get("throws")) {
            (Some(Json::Bool(b)), None) => Ok(ToolApproval::Returns(*b)),
            (Some(other), None) => {
                Err(self.wrong(&format!("{field}.returns"), "true or false", other))
            }
            (None, Some(m)) => Ok(ToolApproval::Throws(
                self.js(Some(m), &format!("{field}.throws"))?,
            )),
            _ => Err(self.err(
                field,
                format!(
                    "takes exactly one of `returns` and `throws`, got {}",
                    show(v)
                ),
            )),
        }
    }

    /// `turns`: a non-empty array of CALL, each with an optional `prompt`.
    fn turns(&self, v: &Json) -> Result<Vec<Call>, CaseError> {
        self.at_most(v, "turns", MAX_REPLIES, ("turns", "case"))?;
        let turns = self.array(v, "turns", "an array of CALL objects", |t, field| {
            self.call(t, field, TURN_FIELDS)
        })?;
        if turns.is_empty() {
            return Err(self.err("turns", "is empty: a case makes at least one call"));
        }
        Ok(turns)
    }

    /// A CALL at `field` (`call`, or `turns[i]`, whose `fields` add `prompt`).
    fn call(&self, v: &Json, field: &str, fields: &[&str]) -> Result<Call, CaseError> {
        let obj = self.object(v, field, fields)?;
        let method = match obj.get("method") {
            None => Method::default(),
            Some(m) => match m.as_str().and_then(JsString::to_rust).as_deref() {
                Some("generate") => Method::Generate,
                Some("stream") => Method::Stream,
                _ => {
                    return Err(self.wrong(
                        &format!("{field}.method"),
                        "\"generate\" or \"stream\"",
                        m,
                    ))
                }
            },
        };
        let tool_choice = obj
            .get("toolChoice")
            .map(|t| self.tool_choice(t, &format!("{field}.toolChoice")))
            .transpose()?;
        let active_tools = obj
            .get("activeTools")
            .map(|a| self.strings(a, &format!("{field}.activeTools"), "an array of keys"))
            .transpose()?;
        let max_steps = match obj.get("maxSteps") {
            None => None,
            Some(n) => match n.as_f64() {
                Some(x) if x.fract() == 0.0 && (1.0..=1000.0).contains(&x) => Some(x as u32),
                _ => {
                    return Err(self.wrong(
                        &format!("{field}.maxSteps"),
                        "an integer from 1 to 1000",
                        n,
                    ))
                }
            },
        };
        let require_tool_approval = obj
            .get("requireToolApproval")
            .map(|p| self.approval_policy(p, &format!("{field}.requireToolApproval")))
            .transpose()?;
        let stop_when = obj
            .get("stopWhen")
            .map(|s| self.stop_when(s, &format!("{field}.stopWhen")))
            .transpose()?;
        let prompt = match obj.get("prompt") {
            None => None,
            Some(p) => Some(self.js(Some(p), &format!("{field}.prompt"))?),
        };
        Ok(Call {
            method,
            tool_choice,
            active_tools,
            max_steps,
            require_tool_approval,
            stop_when,
            prompt,
        })
    }

    /// `call.stopWhen`: `{ "hasToolCall": NAME }`.
    fn stop_when(&self, v: &Json, field: &str) -> Result<StopWhen, CaseError> {
        if !matches!(v, Json::Object(_)) {
            return Err(self.wrong(field, "{\"hasToolCall\": NAME}", v));
        }
        let obj = self.object(v, field, STOP_WHEN_FIELDS)?;
        let name = self.js(obj.get("hasToolCall"), &format!("{field}.hasToolCall"))?;
        Ok(StopWhen::HasToolCall(name))
    }

    /// `call.requireToolApproval`: `true`, `false` or `{ "names": [...] }`.
    pub(super) fn approval_policy(
        &self,
        v: &Json,
        field: &str,
    ) -> Result<ApprovalPolicy, CaseError> {
        let field_names = format!("{field}.names");
        match v {
            Json::Bool(b) => Ok(ApprovalPolicy::Flag(*b)),
            Json::Object(_) => {
                let obj = self.object(v, field, POLICY_FIELDS)?;
                let names = obj
                    .get("names")
                    .ok_or_else(|| self.err(&field_names, "is required"))?;
                Ok(ApprovalPolicy::Names(self.strings(
                    names,
                    &field_names,
                    "an array of tool names",
                )?))
            }
            other => Err(self.wrong(field, "true, false or { \"names\": [...] }", other)),
        }
    }

    /// `approvals`: `{ CALL_ID: "approve" | "decline" }`.
    fn approvals(&self, v: &Json) -> Result<Vec<(JsString, Approval)>, CaseError> {
        let obj = self.object(v, "approvals", &[])?;
        let mut out = Vec::new();
        for (id, answer) in obj.members().unwrap_or_default() {
            let field = member_path("approvals", id);
            let answer = match answer.as_str().and_then(JsString::to_rust).as_deref() {
                Some("approve") => Approval::Approve,
                Some("decline") => Approval::Decline,
                _ => return Err(self.wrong(&field, "\"approve\" or \"decline\"", answer)),
            };
            out.push((id.clone(), answer));
        }
        Ok(out)
    }

    fn tool_choice(&self, v: &Json, field: &str) -> Result<ToolChoice, CaseError> {
        let (kind, name) = (format!("{field}.type"), format!("{field}.toolName"));
        const EXPECTED: &str =
            "\"auto\", \"none\", \"required\" or { \"type\": \"tool\", \"toolName\": KEY }";
        match v {
            Json::String(s) => match s.to_rust().as_deref() {
                Some("auto") => Ok(ToolChoice::Auto),
                Some("none") => Ok(ToolChoice::None),
                Some("required") => Ok(ToolChoice::Required),
                _ => Err(self.wrong(field, EXPECTED, v)),
            },
            Json::Object(_) => {
                let obj = self.object(v, field, CHOICE_FIELDS)?;
                match obj.get("type") {
                    Some(t) if t.as_str() == Some(&JsString::from("tool")) => {}
                    Some(t) => return Err(self.wrong(&kind, "\"tool\"", t)),
                    None => return Err(self.err(&kind, "is required")),
                }
                Ok(ToolChoice::Tool(self.js(obj.get("toolName"), &name)?))
            }
            _ => Err(self.wrong(field, EXPECTED, v)),
        }
    }

    fn replies(&self, v: &Json) -> Result<Vec<Reply>, CaseError> {
        self.reply_list(v, "replies")
    }

    fn reply_list(&self, v: &Json, field: &str) -> Result<Vec<Reply>, CaseError> {
        self.at_most(v, field, MAX_REPLIES, ("replies", "case"))?;
        self.array(v, field, "an array of replies", |r, at| self.reply(r, at))
    }

    /// `subAgentReplies`: `{ KEY: [REPLY, ...] }`, each KEY one of `agents`
    /// (a key that names no sub-agent would script requests no one makes).
    fn sub_agent_replies(
        &self,
        v: &Json,
        agents: &[JsString],
    ) -> Result<Vec<(JsString, Vec<Reply>)>, CaseError> {
        let obj = self.object(v, "subAgentReplies", &[])?;
        let mut out = Vec::new();
        for (key, list) in obj.members().unwrap_or_default() {
            let field = member_path("subAgentReplies", key);
            if !agents.contains(key) {
                return Err(self.err(
                    &field,
                    format!(
                        "names no sub-agent: {} is not in `agents`",
                        Json::String(key.clone()).to_compact()
                    ),
                ));
            }
            out.push((key.clone(), self.reply_list(list, &field)?));
        }
        Ok(out)
    }

    fn reply(&self, v: &Json, field: &str) -> Result<Reply, CaseError> {
        let obj = self.object(v, field, REPLY_FIELDS)?;
        let present: Vec<&str> = ["status", "toolCalls", "text"]
            .into_iter()
            .filter(|k| obj.get(k).is_some())
            .collect();
        if present.len() != 1 {
            return Err(self.err(field, "needs exactly one of `status`, `toolCalls`, `text`"));
        }
        if obj.get("body").is_some() && present[0] != "status" {
            return Err(self.err(
                &format!("{field}.body"),
                "only an error reply (`status`) takes a body",
            ));
        }
        match present[0] {
            "status" => {
                let s = obj.get("status").unwrap_or(&Json::Null);
                let status = match s.as_f64() {
                    Some(x) if x.fract() == 0.0 && (400.0..=599.0).contains(&x) => x as u16,
                    _ => {
                        return Err(self.wrong(
                            &format!("{field}.status"),
                            "an HTTP error status from 400 to 599",
                            s,
                        ))
                    }
                };
                Ok(Reply::Error {
                    status,
                    body: obj.get("body").cloned(),
                })
            }
            "text" => Ok(Reply::Text(
                self.js(obj.get("text"), &format!("{field}.text"))?,
            )),
            _ => {
                let calls_field = format!("{field}.toolCalls");
                let calls = obj.get("toolCalls").unwrap_or(&Json::Null);
                let calls =
                    self.array(calls, &calls_field, "an array of tool calls", |c, at| {
                        self.tool_call(c, at)
                    })?;
                if calls.is_empty() {
                    return Err(self.err(
                        &calls_field,
                        "is empty; a tool-call reply needs at least one call",
                    ));
                }
                Ok(Reply::ToolCalls(calls))
            }
        }
    }

    fn tool_call(&self, v: &Json, field: &str) -> Result<ToolCallReply, CaseError> {
        let c = self.object(v, field, TOOL_CALL_FIELDS)?;
        let arguments = c
            .get("arguments")
            .cloned()
            .unwrap_or(Json::Object(Vec::new()));
        Ok(ToolCallReply {
            id: self.js(c.get("id"), &format!("{field}.id"))?,
            name: self.js(c.get("name"), &format!("{field}.name"))?,
            arguments,
        })
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::{Case, CaseError, Reply, Tool, ToolApproval, ToolChoice, MAX_REPLIES};
    use std::path::Path;

    /// The project's statement of the contract names every field the reader
    /// accepts, so a field added here without its documentation fails.
    #[test]
    fn every_field_the_reader_accepts_is_in_docs_case_format_md() {
        let doc = include_str!("../../docs/case-format.md");
        let named = |field: &str| {
            ["`", "\"", "."].iter().any(|before| {
                ["`", "\"", " ", ":"]
                    .iter()
                    .any(|after| doc.contains(&format!("{before}{field}{after}")))
            })
        };
        let lists = [
            super::FIELDS,
            super::super::SOURCE_FIELDS,
            super::TOOL_FIELDS,
            super::TOOL_SEARCH_FIELDS,
            super::CALL_FIELDS,
            super::TURN_FIELDS,
            super::POLICY_FIELDS,
            super::CHOICE_FIELDS,
            super::REPLY_FIELDS,
            super::TOOL_CALL_FIELDS,
            super::super::sources::MEMORY_FIELDS,
        ];
        let missing: Vec<&str> = lists
            .iter()
            .flat_map(|l| l.iter().copied())
            .filter(|f| !named(f))
            .collect();
        assert!(
            missing.is_empty(),
            "not in docs/case-format.md: {missing:?}"
        );
        assert!(!named("noSuchField"), "the check finds what is not there");
    }

    /// `text` read as the file `cases/x.json`.
    pub(in crate::case) fn parse(text: &str) -> Result<Case, CaseError> {
        Case::parse(Path::new("cases/x.json"), text)
    }

    #[test]
    fn the_format_example_parses() {
        let c = parse(
            r#"{"about":"a","source":"s","tools":["search.web"],
                "call":{"method":"generate","toolChoice":{"type":"tool","toolName":"search.web"}}}"#,
        )
        .unwrap();
        assert_eq!(c.tools, vec![Tool::Standard("search.web".into())]);
        assert_eq!(
            c.call.tool_choice,
            Some(ToolChoice::Tool("search.web".into()))
        );
        assert_eq!(c.replies, vec![Reply::default_reply()]);
        assert!(!c.names_its_route());
    }

    #[test]
    fn a_route_given_is_named_even_when_it_is_the_default() {
        let c = parse(r#"{"about":"a","route":"openai-compatible"}"#).unwrap();
        assert!(c.names_its_route());
        assert_eq!(c.route, crate::route::Route::default());
    }

    #[test]
    fn lone_surrogate_keys_are_kept() {
        let c = parse(r#"{"about":"a","tools":["\ud800x"]}"#).unwrap();
        assert_eq!(c.tools[0].key().units(), &[0xD800, u16::from(b'x')]);
    }

    #[test]
    fn approval_fields_read_as_written() {
        let c = parse(
            r#"{"about":"a","tools":[{"key":"files.delete","id":"delete-file","description":"d","requireApproval":true}],
                "call":{"method":"stream","requireToolApproval":{"names":["files.delete","delete-file"]}},
                "approvals":{"call_1":"approve","call_2":"decline"}}"#,
        )
        .unwrap();
        assert_eq!(
            c.call.require_tool_approval,
            Some(super::super::ApprovalPolicy::Names(vec![
                "files.delete".into(),
                "delete-file".into()
            ]))
        );
        assert!(matches!(
            &c.tools[0],
            Tool::Custom {
                require_approval: Some(ToolApproval::Always),
                ..
            }
        ));
        use super::super::Approval;
        assert_eq!(
            c.approvals,
            Some(vec![
                ("call_1".into(), Approval::Approve),
                ("call_2".into(), Approval::Decline)
            ])
        );
        assert!(c.drives_approval());
        let flag = parse(r#"{"about":"a","call":{"requireToolApproval":false}}"#).unwrap();
        assert_eq!(
            flag.call.require_tool_approval,
            Some(super::super::ApprovalPolicy::Flag(false))
        );
        assert!(!parse(r#"{"about":"a"}"#).unwrap().drives_approval());
    }

    #[test]
    fn a_tools_approval_function_reads_as_written() {
        let c = parse(
            r#"{"about":"a","tools":[{"key":"a","id":"a","requireApproval":{"returns":false}},
                {"key":"b","id":"b","requireApproval":{"throws":"no"}}]}"#,
        )
        .unwrap();
        let approvals: Vec<_> = c
            .tools
            .iter()
            .map(|t| match t {
                Tool::Custom {
                    require_approval, ..
                } => require_approval.clone(),
                _ => None,
            })
            .collect();
        assert_eq!(
            approvals,
            [
                Some(ToolApproval::Returns(false)),
                Some(ToolApproval::Throws("no".into()))
            ]
        );
        assert!(c.drives_approval());
    }

    #[test]
    fn tool_search_reads_its_tools_and_they_are_the_cases_too() {
        let c = parse(
            r#"{"about":"a","toolSearch":{"tools":["k",{"key":"w","id":"search.web","requireApproval":true}]}}"#,
        )
        .unwrap();
        let behind = &c.tool_search.as_ref().unwrap().tools;
        assert_eq!(behind.len(), 2);
        assert_eq!(
            behind[1].id(),
            crate::js::string::JsString::from("search.web")
        );
        assert!(
            c.drives_approval(),
            "a tool behind the processor is the case's"
        );
        assert_eq!(
            super::super::Case::from_json(Path::new("x.json"), c.to_json())
                .unwrap()
                .tool_search,
            c.tool_search
        );
    }

    #[test]
    fn each_bad_input_names_file_field_and_value() {
        let cases = [
            (r#"{"about":"a","toolz":[]}"#, "toolz", "unknown field"),
            (r#"{"tools":[]}"#, "about", "required"),
            (
                r#"{"about":"a","tools":"x"}"#,
                "tools",
                "got a string \"x\"",
            ),
            (
                r#"{"about":"a","tools":[{"key":"k","builtin":"nopeTool"}]}"#,
                "tools[0].builtin",
                "nopeTool",
            ),
            (
                r#"{"about":"a","toolSearch":{"tool":[]}}"#,
                "toolSearch.tool",
                "unknown field",
            ),
            (
                r#"{"about":"a","toolSearch":{}}"#,
                "toolSearch.tools",
                "required",
            ),
            (
                r#"{"about":"a","toolSearch":{"tools":[3]}}"#,
                "toolSearch.tools[0]",
                "3",
            ),
            (
                r#"{"about":"a","call":{"toolChoice":"always"}}"#,
                "call.toolChoice",
                "\"always\"",
            ),
            (
                r#"{"about":"a","call":{"method":"run"}}"#,
                "call.method",
                "\"run\"",
            ),
            (
                r#"{"about":"a","call":{"activeTools":[1]}}"#,
                "call.activeTools[0]",
                "got a number 1",
            ),
            (
                r#"{"about":"a","call":{"requireToolApproval":"files.delete"}}"#,
                "call.requireToolApproval",
                "\"files.delete\"",
            ),
            (
                r#"{"about":"a","call":{"requireToolApproval":{"names":"x"}}}"#,
                "call.requireToolApproval.names",
                "got a string \"x\"",
            ),
            (
                r#"{"about":"a","call":{"requireToolApproval":{"name":["x"]}}}"#,
                "call.requireToolApproval.name",
                "unknown field",
            ),
            (
                r#"{"about":"a","approvals":{"call_1":"yes"}}"#,
                "approvals.call_1",
                "\"yes\"",
            ),
            (
                r#"{"about":"a","approvals":["call_1"]}"#,
                "approvals",
                "expected an object",
            ),
            (
                r#"{"about":"a","tools":[{"key":"k","id":"i","description":"d","requireApproval":false}]}"#,
                "tools[0].requireApproval",
                "got a boolean false",
            ),
            (
                r#"{"about":"a","tools":[{"key":"k","id":"i","requireApproval":{"returns":"no"}}]}"#,
                "tools[0].requireApproval.returns",
                "got a string \"no\"",
            ),
            (
                r#"{"about":"a","tools":[{"key":"k","id":"i","requireApproval":{"throws":1}}]}"#,
                "tools[0].requireApproval.throws",
                "got a number 1",
            ),
            (
                r#"{"about":"a","tools":[{"key":"k","id":"i","requireApproval":{"returns":true,"throws":"x"}}]}"#,
                "tools[0].requireApproval",
                "exactly one of `returns` and `throws`",
            ),
            (
                r#"{"about":"a","tools":[{"key":"k","id":"i","requireApproval":{}}]}"#,
                "tools[0].requireApproval",
                "exactly one of `returns` and `throws`, got {}",
            ),
            (
                r#"{"about":"a","tools":[{"key":"k","id":"i","requireApproval":{"answer":true}}]}"#,
                "tools[0].requireApproval.answer",
                "unknown field",
            ),
            (
                r#"{"about":"a","tools":[{"key":"k","id":"i","requireApproval":"yes"}]}"#,
                "tools[0].requireApproval",
                "{\"returns\": true|false}",
            ),
            (
                r#"{"about":"a","tools":[{"key":"k","builtin":"askUserTool","requireApproval":true}]}"#,
                "tools[0]",
                "only `key` and `builtin`",
            ),
            (
                r#"{"about":"a","replies":[{"status":200}]}"#,
                "replies[0].status",
                "200",
            ),
            (
                r#"{"about":"a","replies":[{"text":"x","status":400}]}"#,
                "replies[0]",
                "exactly one",
            ),
            (
                r#"{"about":"a","replies":[{"toolCalls":[]}]}"#,
                "replies[0].toolCalls",
                "at least one call",
            ),
            (
                r#"{"about":"a","agents":["a"],"subAgentReplies":{"b":[]}}"#,
                "subAgentReplies.b",
                "names no sub-agent",
            ),
            (
                r#"{"about":"a","agents":["a"],"subAgentReplies":{"a":[{"text":1}]}}"#,
                "subAgentReplies.a[0].text",
                "got a number 1",
            ),
            (
                r#"{"about":"a","agents":["a"],"subAgentReplies":[]}"#,
                "subAgentReplies",
                "an object",
            ),
            (
                r#"{"about":"a","call":{"maxSteps":0}}"#,
                "call.maxSteps",
                "0",
            ),
            (
                r#"{"about":"a","call":{"stopWhen":"search_web"}}"#,
                "call.stopWhen",
                "\"search_web\"",
            ),
            (
                r#"{"about":"a","call":{"stopWhen":{"hasToolCall":3}}}"#,
                "call.stopWhen.hasToolCall",
                "3",
            ),
            (
                r#"{"about":"a","call":{"stopWhen":{"stepCountIs":3}}}"#,
                "call.stopWhen.stepCountIs",
                "stepCountIs",
            ),
            (
                r#"{"about":"a","turns":[{},{"stopWhen":{}}]}"#,
                "turns[1].stopWhen.hasToolCall",
                "required",
            ),
            (
                r#"{"about":"a","toolCallFilter":{"exclude":"search_web"}}"#,
                "toolCallFilter.exclude",
                "\"search_web\"",
            ),
            (
                r#"{"about":"a","toolCallFilter":{}}"#,
                "toolCallFilter.exclude",
                "required",
            ),
            (
                r#"{"about":"a","workspace":{"name":3}}"#,
                "workspace.name",
                "3",
            ),
            (
                r#"{"about":"a","workspace":{"tools":{}}}"#,
                "workspace.tools",
                "tools",
            ),
            (
                r#"{"about":"a","workspace":"files.read"}"#,
                "workspace",
                "\"files.read\"",
            ),
            (
                r#"{"about":"a","codeMode":{"id":"run"}}"#,
                "codeMode.id",
                "id",
            ),
            (r#"{"about":"a","codeMode":true}"#, "codeMode", "true"),
            (
                r#"{"about":"a","network":{"maxSteps":2}}"#,
                "network.maxSteps",
                "maxSteps",
            ),
            (r#"{"about":"a","network":[]}"#, "network", "[]"),
        ];
        for (text, field, needle) in cases {
            let e = parse(text).unwrap_err();
            assert_eq!(e.field, field, "{text}");
            let shown = e.to_string();
            assert!(shown.starts_with("cases/x.json: field `"), "{shown}");
            assert!(shown.contains(needle), "{shown} should mention {needle}");
        }
        let e = parse("{\"about\": ").unwrap_err();
        assert!(e.to_string().contains("not valid JSON: line 1"), "{e}");
    }

    #[test]
    fn arguments_may_be_any_json_value() {
        for args in ["1", "\"Paris\"", "null", "[1]", "{}"] {
            let text = format!(
                r#"{{"about":"a","replies":[{{"toolCalls":[{{"id":"c","name":"n","arguments":{args}}}]}}]}}"#
            );
            let c = parse(&text).unwrap();
            let Reply::ToolCalls(calls) = &c.replies[0] else {
                panic!("{text}")
            };
            assert_eq!(calls[0].arguments.to_compact(), args);
        }
    }

    #[test]
    fn a_repeated_field_is_an_error() {
        let e = parse(r#"{"about":"a","tools":["x"],"tools":["y"]}"#).unwrap_err();
        assert_eq!(e.field, "tools");
        let e = parse(r#"{"about":"a","toolsets":{"s":[],"s":["x"]}}"#).unwrap_err();
        assert_eq!(e.field, "toolsets.s");
    }

    #[test]
    fn too_many_replies_is_an_error() {
        let replies = vec![r#"{"text":"x"}"#; MAX_REPLIES + 1].join(",");
        let e = parse(&format!(r#"{{"about":"a","replies":[{replies}]}}"#)).unwrap_err();
        assert_eq!(e.field, "replies");
        assert!(
            e.problem.contains("65 replies; at most 64 fit one case"),
            "{e}"
        );
    }
}
