//! `Case`: what one scenario registers and calls, as one JSON file under
//! `cases/` (`docs/case-format.md`). This module owns that format: `read`
//! turns a file into a `Case`, validated strictly; `write` turns a `Case`
//! into the file, and reading what it wrote gives the same `Case` back;
//! `parts` walks a case's parts for code that treats them all alike.
//!
//! In: a path, JSON text or a `Json` value; or a `Case` built in code (the
//! fuzzer's). Out: a `Case`, or one `CaseError` that names the file, the
//! field and the value that was wrong; `Case::to_json`, the case file, which
//! is also what the probe is sent.

use crate::js::json::Json;
use crate::js::string::JsString;
use crate::route::Route;
use std::fmt;
use std::path::{Path, PathBuf};

pub mod parts;
mod read;
pub mod script;
mod sources;
mod write;
/// The top-level fields the sources take (`agents`, `workflows`, …).
pub(crate) use read::Validator;
use sources::FIELDS as SOURCE_FIELDS;
pub use sources::{McpListing, McpServer, MemorySource, Sources, MAX_MCP_TOOLS};

/// A key a tools object is built with: any JavaScript string.
pub type ToolKey = JsString;

/// One case. Each field holds what the file says, or what a file without
/// that field reads as.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The file the case came from, as given (reports name cases by it).
    pub path: PathBuf,
    pub about: String,
    pub source: Option<String>,
    pub tools: Vec<Tool>,
    pub toolsets: Option<Vec<(JsString, Vec<Tool>)>>,
    pub client_tools: Option<Vec<Tool>>,
    /// `toolSearch`: a `ToolSearchProcessor` over these tools, the agent's
    /// one input processor; `None` where the case has none.
    pub tool_search: Option<ToolSearch>,
    /// `toolCallFilter`: `new ToolCallFilter({ exclude })` among the
    /// agent's input processors, after `toolSearch`'s; the names excluded.
    pub tool_call_filter: Option<Vec<JsString>>,
    /// `workspace`: a `Workspace` whose one tool is the read tool; `None`
    /// where the case has none.
    pub workspace: Option<Workspace>,
    /// `codeMode`: the case's `tools` handed to `createCodeMode` rather
    /// than to the agent, which is given Code Mode's one tool and its
    /// instructions; `None` where the case has none.
    pub code_mode: Option<CodeMode>,
    /// `network`: the call made as `agent.network()`, the agent's tools,
    /// sub-agents and workflows its members; `None` where the case has none.
    pub network: Option<Network>,
    pub call: Call,
    /// What the listener answers, one entry per request; a file without
    /// `replies` reads as the one default reply.
    pub replies: Vec<Reply>,
    /// `subAgentReplies`: what the listener answers the requests of each
    /// sub-agent named here, in the order of that sub-agent's own requests
    /// (`script`); every other request takes from `replies`. In the order
    /// of the file; each key is one of `agents`.
    pub sub_agent_replies: Option<Vec<(ToolKey, Vec<Reply>)>>,
    /// The wire route of the agent's model (`route`, default
    /// `openai-compatible`).
    pub route: Route,
    /// Whether the case names its route: its file has `route`, or
    /// `on_route` put it on one. `--route` leaves such a case alone.
    /// Kept beside `route` rather than folded into an `Option<Route>`
    /// because every stage after this one reads the route a case runs on,
    /// and only the choice of routes asks whether the file named it.
    pub route_named: bool,
    /// Sub-agents, workflows, MCP servers, memory, dynamic tools.
    pub sources: Sources,
    /// `approvals`: how each pending approval is answered, by call id, in
    /// the order of the file. A pending call without an entry leaves the
    /// run suspended.
    pub approvals: Option<Vec<(JsString, Approval)>>,
    /// `turns`: the calls made in order on one agent in place of `call`
    /// (then `call` is the default and unused); `replies` are taken across
    /// them.
    pub turns: Option<Vec<Call>>,
    /// `tracing`: the agent registered on a `Mastra` with the release's
    /// observability and the probe's span exporter (`seen.spans`).
    pub tracing: bool,
    /// `lookups`: ask Mastra's own lookups (the agent's tool listing)
    /// which of each tool's key, id and wire name they find.
    pub lookups: bool,
}

/// `toolSearch`: `new ToolSearchProcessor({ tools })` from
/// `@mastra/core/processors`, passed as `inputProcessors: [processor]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSearch {
    /// The tools behind the processor, built as `tools` is
    /// (`Object.fromEntries`), which a call reaches only once `load_tool`
    /// has loaded them.
    pub tools: Vec<Tool>,
}

/// An answer to a pending tool-call approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    Approve,
    Decline,
}

/// `call.requireToolApproval`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalPolicy {
    /// `true` or `false`, passed as it is.
    Flag(bool),
    /// `{ "names": [...] }`: the function `({ toolName }) =>
    /// names.includes(toolName)`, the way users write a policy.
    Names(Vec<JsString>),
}

/// A tool's own `requireApproval`, as a TOOL object writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolApproval {
    /// `true`.
    Always,
    /// `{ "returns": BOOL }`: a function that answers BOOL.
    Returns(bool),
    /// `{ "throws": MESSAGE }`: a function that throws `new Error(MESSAGE)`.
    Throws(JsString),
}

impl ToolApproval {
    /// Whether it is a function rather than `true`.
    pub fn is_function(&self) -> bool {
        !matches!(self, ToolApproval::Always)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tool {
    /// `"KEY"`: the standard tool (id `get-weather`), one object per case.
    Standard(ToolKey),
    /// `{ "key", "id", "description" }`: a tool object of its own.
    Custom {
        key: ToolKey,
        id: JsString,
        /// `None`: left out (docs/case-format.md calls it optional).
        description: Option<JsString>,
        /// `requireApproval`: `createTool({ ..., requireApproval })`; `None`
        /// leaves it out.
        require_approval: Option<ToolApproval>,
    },
    /// `{ "key", "builtin" }`: a named export of `@mastra/core/tools`.
    Builtin { key: ToolKey, name: String },
}

pub const STANDARD_ID: &str = "get-weather";
pub const STANDARD_DESCRIPTION: &str = "Get the weather";

impl Tool {
    pub fn key(&self) -> &ToolKey {
        match self {
            Tool::Standard(key) | Tool::Custom { key, .. } | Tool::Builtin { key, .. } => key,
        }
    }

    /// The id its tool object carries: `get-weather` for the shorthand, a
    /// builtin's own (its export name where the swept dists show none).
    pub fn id(&self) -> JsString {
        match self {
            Tool::Standard(_) => JsString::from(STANDARD_ID),
            Tool::Custom { id, .. } => id.clone(),
            Tool::Builtin { name, .. } => {
                JsString::from(crate::naming::builtin_id(name).unwrap_or(name.as_str()))
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    #[default]
    Generate,
    Stream,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    Auto,
    None,
    Required,
    Tool(ToolKey),
}

/// `call`; its default is a plain `generate` with no options.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Call {
    pub method: Method,
    pub tool_choice: Option<ToolChoice>,
    pub active_tools: Option<Vec<ToolKey>>,
    pub max_steps: Option<u32>,
    pub require_tool_approval: Option<ApprovalPolicy>,
    /// `stopWhen`: a stop condition of the call's loop.
    pub stop_when: Option<StopWhen>,
    /// A turn's `prompt` (`turns` only; `None` is `"hi"`).
    pub prompt: Option<JsString>,
}

/// `workspace`: a `Workspace` over a local folder holding `a.txt`, its
/// tools all disabled but `mastra_workspace_read_file`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Workspace {
    /// The read tool's `WorkspaceToolConfig.name`, where the case gives one.
    pub name: Option<JsString>,
}

/// `codeMode`: `createCodeMode({ tools, sandbox: new LocalSandbox() })`
/// over the case's `tools`, the agent given the tool it returns
/// (`execute_typescript`) and its instructions after its own.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CodeMode {}

/// `network`: the call is `agent.network(prompt, options)`, its stream
/// drained.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Network {}

/// `call.stopWhen`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopWhen {
    /// `{ "hasToolCall": NAME }`: the AI SDK's `hasToolCall(NAME)`, true
    /// once the last step has a call whose `toolName` is NAME.
    HasToolCall(JsString),
}

impl StopWhen {
    /// The name the condition compares.
    pub fn name(&self) -> &JsString {
        match self {
            StopWhen::HasToolCall(name) => name,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Error { status: u16, body: Option<Json> },
    ToolCalls(Vec<ToolCallReply>),
    Text(JsString),
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallReply {
    pub id: JsString,
    pub name: JsString,
    /// Any JSON value: models send objects of the wrong shape, and now and
    /// then no object at all. The wire carries it as its JSON text.
    pub arguments: Json,
}

impl Reply {
    /// What the listener answers once a case's replies run out.
    pub fn default_reply() -> Reply {
        Reply::Error {
            status: 400,
            body: None,
        }
    }
}

/// One problem with one case file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct CaseError {
    pub file: PathBuf,
    /// A path into the case, such as `call.toolChoice.type`; empty for the
    /// whole file.
    pub field: String,
    pub problem: String,
}

/// A case file that cannot be read is bad input; its message already names
/// the file, the field and the value.
impl From<CaseError> for crate::outcome::Failure {
    fn from(e: CaseError) -> Self {
        crate::outcome::Failure::bad(e.to_string())
    }
}

impl fmt::Display for CaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.file.display(), self.problem)
        } else {
            write!(
                f,
                "{}: field `{}`: {}",
                self.file.display(),
                self.field,
                self.problem
            )
        }
    }
}

/// The largest scripted reply list a case may carry: far above any real
/// agent loop, small enough that a typo (`"replies": [..10^6]`) is caught.
pub const MAX_REPLIES: usize = 64;

impl Case {
    /// The case a file holding only `about` reads as: no tools, a plain
    /// `generate`, the default reply, the default route, no other source.
    pub fn new(path: impl Into<PathBuf>, about: impl Into<String>) -> Case {
        Case {
            path: path.into(),
            about: about.into(),
            source: None,
            tools: Vec::new(),
            toolsets: None,
            client_tools: None,
            tool_search: None,
            tool_call_filter: None,
            workspace: None,
            code_mode: None,
            network: None,
            call: Call::default(),
            replies: vec![Reply::default_reply()],
            sub_agent_replies: None,
            route: Route::default(),
            route_named: false,
            sources: Sources::default(),
            approvals: None,
            turns: None,
            tracing: false,
            lookups: false,
        }
    }

    /// The key and id of each of its `tools`, in order: what `lookups`
    /// asks about.
    pub fn tool_names(&self) -> Vec<(ToolKey, JsString)> {
        self.tools
            .iter()
            .map(|t| (t.key().clone(), t.id()))
            .collect()
    }

    /// The calls the case makes, in order: its `turns`, or its one `call`.
    pub fn calls(&self) -> &[Call] {
        self.turns
            .as_deref()
            .unwrap_or(std::slice::from_ref(&self.call))
    }

    pub fn parse(path: &Path, text: &str) -> Result<Case, CaseError> {
        let raw = Json::parse(text).map_err(|e| CaseError {
            file: path.to_path_buf(),
            field: String::new(),
            problem: format!("not valid JSON: {e}"),
        })?;
        Case::from_json(path, raw)
    }

    pub fn from_json(path: &Path, raw: Json) -> Result<Case, CaseError> {
        read::case(path, &raw)
    }

    /// Whether a reply is an error Mastra retries with back-off (the AI
    /// SDK retries 408, 409, 429 and 5xx): the case then spends seconds
    /// asleep, whatever the machine.
    pub fn waits_on_retries(&self) -> bool {
        self.all_replies()
            .any(|r| matches!(r, Reply::Error { status, .. } if *status >= 408))
    }

    /// Every scripted reply: `replies`, then each sub-agent's.
    pub fn all_replies(&self) -> impl Iterator<Item = &Reply> {
        let subs = self
            .sub_agent_replies
            .iter()
            .flatten()
            .flat_map(|(_, replies)| replies.iter());
        self.replies.iter().chain(subs)
    }

    /// Whether the case names its own route (`route_named`).
    pub fn names_its_route(&self) -> bool {
        self.route_named
    }

    /// The case on `route`: `--route` sets it for every case that does not
    /// name its own. The case then names it, and its file says it.
    pub fn on_route(&self, route: Route) -> Case {
        Case {
            route,
            route_named: true,
            ..self.clone()
        }
    }

    /// The case's name in reports: its path with `/` separators (a file's
    /// path is relative to the working directory when it lies below it:
    /// `run::corpus::read_case`), then `@ROUTE` on a route other than the
    /// default, so that one file on several routes is several results.
    pub fn name(&self) -> String {
        let path = self.path.to_string_lossy().replace('\\', "/");
        if self.route == Route::default() {
            path
        } else {
            format!("{path}@{}", self.route)
        }
    }

    /// One of the case's calls as a case of its own (`turns` gone, every
    /// reply kept): what decides, per turn, whether `seen` is projected
    /// (a turn that drives no approval is a plain call, whatever another
    /// turn's `requireToolApproval` says).
    pub fn turn(&self, call: &Call) -> Case {
        Case {
            turns: None,
            call: call.clone(),
            ..self.clone()
        }
    }

    /// Whether the probe registers the case's agent on a `Mastra`: for
    /// `approvals` (its storage) and `tracing` (its observability).
    pub fn on_mastra(&self) -> bool {
        self.approvals.is_some() || self.tracing
    }

    /// Whether the case drives tool approval: a policy, a tool that
    /// requires approval, or answers to pending approvals.
    pub fn drives_approval(&self) -> bool {
        self.calls()
            .iter()
            .any(|c| c.require_tool_approval.is_some())
            || self.approvals.is_some()
            || self.sources.mcp_approval.is_some()
            || self.all_tools().any(|t| {
                matches!(
                    t,
                    Tool::Custom {
                        require_approval: Some(_),
                        ..
                    }
                )
            })
    }

    /// Every tool the case gives Mastra, in every tools object.
    /// Whether a tool of the case has a `requireApproval` function (`{
    /// "returns" }`, `{ "throws" }`): then `seen.approval.toolAsked` is
    /// projected.
    pub fn has_approval_function(&self) -> bool {
        self.all_tools().any(|t| {
            matches!(
                t,
                Tool::Custom {
                    require_approval: Some(ToolApproval::Returns(_) | ToolApproval::Throws(_)),
                    ..
                }
            )
        })
    }

    pub fn all_tools(&self) -> impl Iterator<Item = &Tool> {
        let sets = self
            .toolsets
            .iter()
            .flatten()
            .flat_map(|(_, tools)| tools.iter());
        let behind = self.tool_search.iter().flat_map(|s| s.tools.iter());
        self.tools
            .iter()
            .chain(sets)
            .chain(self.client_tools.iter().flatten())
            .chain(behind)
    }
}

/// The builtins a case may name: the tool exports of `@mastra/core/tools`
/// (1.67.0 and later). A version that lacks one makes the case not
/// applicable there.
pub const BUILTINS: &[&str] = &[
    "askUserTool",
    "submitPlanTool",
    "taskWriteTool",
    "taskUpdateTool",
    "taskCompleteTool",
    "taskCheckTool",
    "webFetchTool",
    "webSearchTool",
];
