//! What the scripted model says: the tool calls of each reply, aimed at what
//! the case registered the way real models call tools, and the scripts of
//! the case's sub-agents.
//!
//! In: the drawn case (its tools, tools objects and sources) and the byte
//! stream. Out: `replies` and `subAgentReplies`. Nothing here asks the model
//! what a call reaches or whether it is covered: a call is aimed by the
//! generator's own reading of the case it drew (this key, that sub-agent),
//! with the names models really send (the key, its rewritten name, the
//! tool's id, a prefix such as `functions.`, a changed case, spaces) and
//! arguments of any shape (the target's own, a wrong type, a missing or an
//! extra field, `{}`, no object at all, another target's). Weights favour
//! what a model does most; nothing is left out.

use super::pick;
use crate::case::{Case, Reply, ToolCallReply};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::naming::{builtin_id, wire_name};
use arbitrary::{Result, Unstructured};

/// What one call was aimed at, by the generator's reading of its own case.
#[derive(Debug, Clone, PartialEq)]
pub enum Aim {
    /// A tool of `tools` or a toolset: its key and its id.
    Tool {
        key: JsString,
        id: JsString,
    },
    /// A builtin of `@mastra/core/tools`: its key and export name.
    Builtin {
        key: JsString,
        name: String,
    },
    Client(JsString),
    SubAgent(JsString),
    Workflow(JsString),
    /// An MCP server's tool, by its key `SERVER_TOOL`.
    Mcp(JsString),
    WorkingMemory,
    /// `toolSearch`'s `load_tool`, loading the tool behind the processor
    /// by this name (its key or its id), or `search_tools` (`None`).
    Search(Option<JsString>),
    /// A `workspace`'s read tool, by the name the case gives it (`None`:
    /// its own name).
    Workspace(Option<JsString>),
    /// A property every object inherits.
    Inherited,
    /// Something the case never registered.
    Unknown,
}

/// Everything a call of the case may be aimed at.
pub fn aims(c: &Case) -> Vec<Aim> {
    use crate::case::Tool;
    let mut out = Vec::new();
    let sets = c
        .toolsets
        .iter()
        .flatten()
        .flat_map(|(_, list)| list.iter());
    for t in c.tools.iter().chain(sets) {
        out.push(match t {
            Tool::Standard(key) => Aim::Tool {
                key: key.clone(),
                id: JsString::from(crate::case::STANDARD_ID),
            },
            Tool::Custom { key, id, .. } => Aim::Tool {
                key: key.clone(),
                id: id.clone(),
            },
            Tool::Builtin { key, name } => Aim::Builtin {
                key: key.clone(),
                name: name.clone(),
            },
        });
    }
    for t in c.client_tools.iter().flatten() {
        out.push(Aim::Client(t.key().clone()));
    }
    let s = &c.sources;
    out.extend(s.agents.iter().flatten().cloned().map(Aim::SubAgent));
    out.extend(s.workflows.iter().flatten().cloned().map(Aim::Workflow));
    for server in s.mcp.iter().flatten() {
        for t in &server.tools {
            out.push(Aim::Mcp(crate::naming::mcp_tool_key(&server.name, t)));
        }
    }
    if s.memory.is_some_and(|m| m.working_memory) {
        out.push(Aim::WorkingMemory);
    }
    // Behind `toolSearch`: `search_tools`, `load_tool` by each tool's key
    // and id, and the tool itself (reached once loaded).
    for t in c.tool_search.iter().flat_map(|s| s.tools.iter()) {
        let id = t.id();
        out.push(Aim::Search(Some(t.key().clone())));
        if id != *t.key() {
            out.push(Aim::Search(Some(id.clone())));
        }
        out.push(Aim::Tool {
            key: t.key().clone(),
            id,
        });
    }
    if c.tool_search.is_some() {
        out.push(Aim::Search(None));
    }
    if let Some(w) = &c.workspace {
        out.push(Aim::Workspace(w.name.clone()));
    }
    out
}

/// The read tool's own name (Mastra's
/// `WORKSPACE_TOOLS.FILESYSTEM.READ_FILE`), and the file the probe's
/// workspace holds (docs/case-format.md, `workspace`).
const WORKSPACE_READ_FILE: &str = "mastra_workspace_read_file";
const WORKSPACE_FILE: &str = "a.txt";

/// Prefixes models put before a tool's name (`functions.search_web`,
/// `default_api:search`, a namespace with a colon as in
/// mastra-ai/mastra#12895's `creating:view`).
const PREFIXES: &[&str] = &["functions.", "default_api:", "creating:", "tools.", "mcp__"];

const INHERITED: &[&str] = &[
    "toString",
    "constructor",
    "__proto__",
    "hasOwnProperty",
    "valueOf",
];

/// The name a call of `aim` carries.
fn name_for(u: &mut Unstructured, aim: &Aim) -> Result<JsString> {
    let prefixed = |base: &str| JsString::from(base);
    let (registered, id): (JsString, Option<JsString>) = match aim {
        Aim::Tool { key, id } => (key.clone(), Some(id.clone())),
        Aim::Builtin { key, name } => (key.clone(), builtin_id(name).map(JsString::from)),
        Aim::Client(key) => (key.clone(), None),
        Aim::SubAgent(key) => (prefixed("agent-").concat(key), None),
        Aim::Workflow(key) => (prefixed("workflow-").concat(key), None),
        Aim::Mcp(key) => (key.clone(), None),
        Aim::WorkingMemory => (
            JsString::from("updateWorkingMemory"),
            Some(JsString::from("update-working-memory")),
        ),
        // Renamed, its own name is the other a model may call it by.
        Aim::Workspace(given) => {
            let own = JsString::from(WORKSPACE_READ_FILE);
            match given {
                Some(name) => (name.clone(), Some(own)),
                None => (own, None),
            }
        }
        Aim::Search(None) => return Ok(JsString::from("search_tools")),
        Aim::Search(Some(_)) => return Ok(JsString::from("load_tool")),
        Aim::Inherited => return Ok(JsString::from(*u.choose(INHERITED)?)),
        Aim::Unknown => {
            return Ok(JsString::from(*u.choose(&[
                "nope",
                "unknown_tool",
                "search",
                "get_weather",
                "",
            ])?))
        }
    };
    let sent = wire_name(&registered).unwrap_or_else(|| registered.clone());
    #[derive(Clone, Copy)]
    enum As {
        Sent,
        Registered,
        Id,
        Prefixed,
        Case,
        Spaces,
    }
    Ok(
        match pick(
            u,
            &[
                (55, As::Sent),
                (14, As::Registered),
                (9, As::Id),
                (9, As::Prefixed),
                (7, As::Case),
                (6, As::Spaces),
            ],
        )? {
            As::Sent => sent,
            As::Registered => registered,
            As::Id => id.unwrap_or(sent),
            As::Prefixed => JsString::from(*u.choose(PREFIXES)?).concat(&sent),
            As::Case => {
                let units = sent
                    .units()
                    .iter()
                    .map(|&c| match c {
                        0x61..=0x7A => c - 0x20,
                        0x41..=0x5A => c + 0x20,
                        _ => c,
                    })
                    .collect();
                JsString::from_units(units)
            }
            As::Spaces => {
                let mut s = if u.ratio(1u8, 2)? {
                    JsString::from(" ").concat(&sent)
                } else {
                    sent
                };
                if u.ratio(1u8, 2)? {
                    s.push_str(" ");
                }
                s
            }
        },
    )
}

/// The input a call of each aim fits: the one field of the probe's tools,
/// a workflow's `inputData`, a sub-agent's `prompt`, working memory's
/// `memory`, each builtin's own required fields.
fn fitting(aim: &Aim) -> Json {
    let city = || Json::object([("city", Json::str("Paris"))]);
    match aim {
        Aim::Tool { .. } | Aim::Client(_) | Aim::Mcp(_) => city(),
        Aim::Workflow(_) => Json::object([("inputData", city())]),
        Aim::SubAgent(_) => Json::object([("prompt", Json::str("Paris"))]),
        Aim::WorkingMemory => Json::object([("memory", Json::str("# User\n- likes Paris"))]),
        Aim::Builtin { name, .. } => builtin_input(name),
        Aim::Inherited | Aim::Unknown => city(),
        Aim::Search(None) => Json::object([("query", Json::str("weather"))]),
        Aim::Search(Some(name)) => Json::object([("toolName", Json::String(name.clone()))]),
        Aim::Workspace(_) => Json::object([("path", Json::str(WORKSPACE_FILE))]),
    }
}

/// What a model would send each builtin. `webFetchTool` is given a URL it
/// answers without the network (a scheme it refuses): a probe reaches no
/// network, so a fetch of a real page could only fail on the harness's
/// isolation, which says nothing of Mastra.
fn builtin_input(name: &str) -> Json {
    match name {
        "askUserTool" => Json::object([("question", Json::str("Which city?"))]),
        "submitPlanTool" => Json::object([("path", Json::str("plan.md"))]),
        "taskWriteTool" => Json::object([(
            "tasks",
            Json::Array(vec![Json::object([
                ("content", Json::str("Check the weather")),
                ("status", Json::str("pending")),
                ("activeForm", Json::str("Checking the weather")),
            ])]),
        )]),
        "taskUpdateTool" => {
            Json::object([("id", Json::str("1")), ("status", Json::str("completed"))])
        }
        "taskCompleteTool" => Json::object([("id", Json::str("1"))]),
        "taskCheckTool" => Json::Object(Vec::new()),
        "webFetchTool" => Json::object([("url", Json::str("ftp://example.com/"))]),
        _ => Json::Object(Vec::new()),
    }
}

/// The one string field each aim's input has, where it has one.
fn field(aim: &Aim) -> &'static str {
    match aim {
        Aim::SubAgent(_) => "prompt",
        Aim::WorkingMemory => "memory",
        Aim::Workflow(_) => "inputData",
        Aim::Search(None) => "query",
        Aim::Search(Some(_)) => "toolName",
        Aim::Workspace(_) => "path",
        _ => "city",
    }
}

/// Arguments for a call of `aim`: mostly what it fits, often not.
fn arguments(u: &mut Unstructured, aim: &Aim, others: &[Aim]) -> Result<Json> {
    #[derive(Clone, Copy)]
    enum Shape {
        Fits,
        Empty,
        WrongType,
        Null,
        Nested,
        Extra,
        Missing,
        NotAnObject,
        Long,
        AnothersInput,
        Stringified,
        PromptAlias,
    }
    let f = field(aim);
    let fits = fitting(aim);
    Ok(
        match pick(
            u,
            &[
                (52, Shape::Fits),
                (6, Shape::Empty),
                (6, Shape::WrongType),
                (3, Shape::Null),
                (2, Shape::Nested),
                (6, Shape::Extra),
                (5, Shape::Missing),
                (5, Shape::NotAnObject),
                (3, Shape::Long),
                (6, Shape::AnothersInput),
                (3, Shape::Stringified),
                (3, Shape::PromptAlias),
            ],
        )? {
            Shape::Fits => fits,
            Shape::Empty => Json::Object(Vec::new()),
            Shape::WrongType => {
                let v = u
                    .choose(&[Json::int(1), Json::Bool(true), Json::Array(vec![])])?
                    .clone();
                Json::object([(f, v)])
            }
            Shape::Null => Json::object([(f, Json::Null)]),
            Shape::Nested => Json::object([(
                f,
                Json::object([("a", Json::Array(vec![Json::int(1), Json::int(2)]))]),
            )]),
            Shape::Extra => {
                let mut members = match fits {
                    Json::Object(m) => m,
                    other => vec![(JsString::from("value"), other)],
                };
                members.push((JsString::from("x"), Json::int(1)));
                Json::Object(members)
            }
            Shape::Missing => Json::object([("town", Json::int(1))]),
            Shape::NotAnObject => u
                .choose(&[
                    Json::str("Paris"),
                    Json::int(42),
                    Json::Array(vec![Json::str("Paris")]),
                    Json::Null,
                    Json::Bool(true),
                ])?
                .clone(),
            Shape::Long => Json::object([(f, Json::int(1)), ("note", Json::str(&"x".repeat(300)))]),
            Shape::AnothersInput => {
                let other = if others.is_empty() {
                    Aim::SubAgent(JsString::new())
                } else {
                    others[u.choose_index(others.len())?].clone()
                };
                fitting(&other)
            }
            // Some models send a nested object as its JSON text.
            Shape::Stringified => {
                let inner = match aim {
                    Aim::Workflow(_) => fitting(&Aim::Mcp(JsString::new())),
                    _ => Json::str("Paris"),
                };
                Json::object([(f, Json::String(JsString::from(inner.to_compact().as_str())))])
            }
            // The names models use for a sub-agent's prompt.
            Shape::PromptAlias => {
                let alias = *u.choose(&["query", "message", "input", "task"])?;
                Json::object([(alias, Json::str("Paris"))])
            }
        },
    )
}

/// Draws the calls of a case's replies, numbering their ids across the
/// whole case (and, now and then, reusing one).
pub struct Calls {
    aims: Vec<Aim>,
    ids: Vec<JsString>,
}

impl Calls {
    pub fn new(c: &Case) -> Calls {
        Calls {
            aims: aims(c),
            ids: Vec::new(),
        }
    }

    /// A call id: the next number, or once in a while one used before
    /// (models repeat ids, within a step and across steps).
    fn id(&mut self, u: &mut Unstructured) -> Result<JsString> {
        if !self.ids.is_empty() && u.ratio(1u8, 14)? {
            return Ok(self.ids[u.choose_index(self.ids.len())?].clone());
        }
        let id = JsString::from(format!("call_{}", self.ids.len() + 1));
        self.ids.push(id.clone());
        Ok(id)
    }

    /// What one call is aimed at: mostly something the case registered,
    /// sometimes an inherited name or nothing at all.
    fn aim(&self, u: &mut Unstructured, among: &[Aim]) -> Result<Aim> {
        if among.is_empty() || u.ratio(1u8, 9)? {
            return Ok(if u.ratio(1u8, 3)? {
                Aim::Inherited
            } else {
                Aim::Unknown
            });
        }
        Ok(among[u.choose_index(among.len())?].clone())
    }

    /// One call aimed among `among`.
    fn call(&mut self, u: &mut Unstructured, among: &[Aim]) -> Result<ToolCallReply> {
        let aim = self.aim(u, among)?;
        let others: Vec<Aim> = self.aims.iter().filter(|a| **a != aim).cloned().collect();
        Ok(ToolCallReply {
            id: self.id(u)?,
            name: name_for(u, &aim)?,
            arguments: arguments(u, &aim, &others)?,
        })
    }

    /// A call of the `workspace`'s read tool, its name and arguments drawn
    /// as any call's, its id the next.
    pub fn workspace_call(
        &mut self,
        u: &mut Unstructured,
        workspace: &crate::case::Workspace,
    ) -> Result<ToolCallReply> {
        let aim = Aim::Workspace(workspace.name.clone());
        let others = self.aims.clone();
        Ok(ToolCallReply {
            id: self.id(u)?,
            name: name_for(u, &aim)?,
            arguments: arguments(u, &aim, &others)?,
        })
    }

    /// One reply of the parent's script: calls (one to four, any mix of
    /// targets), text, or an error.
    pub fn reply(&mut self, u: &mut Unstructured) -> Result<Reply> {
        let aims = self.aims.clone();
        Ok(match pick(u, &[(62, 0u8), (14, 1), (24, 2)])? {
            0 => {
                let n = pick(u, &[(55, 1usize), (28, 2), (11, 3), (6, 4)])?;
                let mut calls = Vec::with_capacity(n);
                for _ in 0..n {
                    calls.push(self.call(u, &aims)?);
                }
                Reply::ToolCalls(calls)
            }
            1 => Reply::Text(JsString::from("done")),
            _ => error(u)?,
        })
    }

    /// The script of one sub-agent: most often its answer alone, else a
    /// call or two first (of working memory, which it borrows from the
    /// parent, of the parent's tools, which it does not have, or of
    /// nothing), and now and then an error or no answer at all.
    pub fn sub_agent_script(&mut self, u: &mut Unstructured) -> Result<Vec<Reply>> {
        let own: Vec<Aim> = self
            .aims
            .iter()
            .filter(|a| !matches!(a, Aim::SubAgent(_)))
            .cloned()
            .collect();
        let mut script = Vec::new();
        let before = pick(u, &[(70, 0usize), (22, 1), (8, 2)])?;
        for _ in 0..before {
            let n = pick(u, &[(4, 1usize), (1, 2)])?;
            let mut calls = Vec::with_capacity(n);
            for _ in 0..n {
                calls.push(self.call(u, &own)?);
            }
            script.push(Reply::ToolCalls(calls));
        }
        match pick(u, &[(88, 0u8), (7, 1), (5, 2)])? {
            0 => script.push(Reply::Text(JsString::from("sub done"))),
            1 => script.push(error(u)?),
            // No answer: the sub-agent's requests get the default reply.
            _ => {}
        }
        Ok(script)
    }
}

fn error(u: &mut Unstructured) -> Result<Reply> {
    Ok(Reply::Error {
        status: pick(u, &[(85, 400u16), (5, 404), (4, 429), (6, 500)])?,
        body: None,
    })
}

/// The kinds of call a case makes, by the generator's own reading of the
/// case (what each call's name is exactly, among what the case registered:
/// its key, the name it is sent under, its id), each kind once, in a fixed
/// order: what the fuzzer's figures count cases by. A name that is none of
/// these exactly (a prefix, a changed case, spaces, a name never
/// registered) is `hallucinated`; a case whose scripts reuse a call id also
/// counts as `reused-id`, one whose sub-agents are answered with calls as
/// `sub-agent-calls`.
pub fn kinds(c: &Case) -> Vec<&'static str> {
    const ORDER: &[&str] = &[
        "tool",
        "builtin",
        "client",
        "sub-agent",
        "workflow",
        "mcp",
        "working-memory",
        "workspace",
        "inherited",
        "hallucinated",
        "reused-id",
        "sub-agent-calls",
    ];
    let aims = aims(c);
    let kind_of = |name: &JsString| -> &'static str {
        if INHERITED.iter().any(|n| JsString::from(*n) == *name) {
            return "inherited";
        }
        for aim in &aims {
            let (registered, id, kind): (JsString, Option<JsString>, &'static str) = match aim {
                Aim::Tool { key, id } => (key.clone(), Some(id.clone()), "tool"),
                Aim::Builtin { key, name } => {
                    (key.clone(), builtin_id(name).map(JsString::from), "builtin")
                }
                Aim::Client(key) => (key.clone(), None, "client"),
                Aim::SubAgent(key) => (JsString::from("agent-").concat(key), None, "sub-agent"),
                Aim::Workflow(key) => (JsString::from("workflow-").concat(key), None, "workflow"),
                Aim::Mcp(key) => (key.clone(), None, "mcp"),
                Aim::WorkingMemory => (
                    JsString::from("updateWorkingMemory"),
                    Some(JsString::from("update-working-memory")),
                    "working-memory",
                ),
                Aim::Workspace(given) => (
                    given
                        .clone()
                        .unwrap_or_else(|| JsString::from(WORKSPACE_READ_FILE)),
                    given.is_some().then(|| JsString::from(WORKSPACE_READ_FILE)),
                    "workspace",
                ),
                Aim::Inherited | Aim::Unknown | Aim::Search(_) => continue,
            };
            let sent = wire_name(&registered);
            if *name == registered || sent.as_ref() == Some(name) || id.as_ref() == Some(name) {
                return kind;
            }
        }
        "hallucinated"
    };
    let mut found: Vec<&'static str> = Vec::new();
    let mut ids: Vec<&JsString> = Vec::new();
    for reply in &c.replies {
        if let Reply::ToolCalls(calls) = reply {
            for call in calls {
                found.push(kind_of(&call.name));
                if ids.contains(&&call.id) {
                    found.push("reused-id");
                }
                ids.push(&call.id);
            }
        }
    }
    let sub_calls = c
        .sub_agent_replies
        .iter()
        .flatten()
        .flat_map(|(_, replies)| replies)
        .any(|r| matches!(r, Reply::ToolCalls(_)));
    if sub_calls {
        found.push("sub-agent-calls");
    }
    ORDER
        .iter()
        .copied()
        .filter(|k| found.contains(k))
        .collect()
}

#[cfg(test)]
mod kind_tests {
    use super::*;

    #[test]
    fn a_case_is_counted_under_each_kind_of_call_it_makes() {
        let c = Case::parse(
            std::path::Path::new("kinds.json"),
            r#"{"about":"a","tools":["search.web"],"agents":["a"],
                "replies":[{"toolCalls":[{"id":"c1","name":"search_web","arguments":{}},
                                         {"id":"c1","name":"functions.search_web","arguments":{}},
                                         {"id":"c2","name":"toString","arguments":{}}]}],
                "subAgentReplies":{"a":[{"toolCalls":[{"id":"s","name":"x","arguments":{}}]}]}}"#,
        )
        .unwrap();
        assert_eq!(
            kinds(&c),
            [
                "tool",
                "inherited",
                "hallucinated",
                "reused-id",
                "sub-agent-calls"
            ]
        );
    }
}
