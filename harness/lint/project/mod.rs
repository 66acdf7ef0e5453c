//! `ProjectLint`: a user's Mastra project through the model.
//!
//! In: the document `node-probe/project.mjs` writes for a project (each
//! agent's tool keys before Mastra's rewrite, in the order Mastra merges
//! them, with where each came from and where it is written; its default
//! `toolChoice` and `activeTools`; its model's route; the MCP servers its
//! tools come from and what each gave; the `requireToolApproval`
//! functions the sources pass to `generate` and `stream`; the installed
//! `@mastra/core` version; how it was loaded and what the load wrote), and
//! the project's `LintConfig`. Out: per agent, the `LintReport` of the keys
//! lint already knows how to judge, and `Finding`s, one per problem, each
//! with its rule, its fix and its source location, which the terminal,
//! JSON, GitHub and SARIF renderings share; the findings the configuration
//! or an inline comment suppressed, apart.
//!
//! Four parts, in the order the data flows: `decode` reads the loader's
//! document into a `LoadedProject` (or a `DecodeError`), `config` reads the
//! project's configuration into a `LintConfig`, `judge` turns both into a
//! `ProjectLint`, `render` writes that for the terminal, as JSON and as
//! GitHub annotations (SARIF is `lint::sarif`). All pure: running the loader
//! and reading files is `lint::load`.

pub mod basis;
pub mod config;
pub mod decode;
pub mod held_call;
pub mod judge;
pub mod mcp_listing;
pub mod mcp_names;
pub mod mcp_server_policy;
pub mod names;
pub mod own_approval;
pub mod render;
pub mod resume;
pub mod rules;
pub mod upgrade;

pub use basis::provider_accepts;
pub use config::{parse_config, ConfigError, Level, LintConfig};
pub use decode::{parse_loaded, DecodeError, LoadFailure};
pub use judge::{
    lint_project, AgentLint, Counts, Finding, ProjectLint, Rule, Suppressed, SuppressedBy,
};
pub use render::TextStyle;

use crate::js::string::JsString;
use crate::version::spec::MastraVersion;

/// Where a key or name is written in the project (relative path, 1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: u64,
    pub column: u64,
}

/// Where a tool in an agent's record came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolSource {
    /// `new Agent({ tools })`, static or resolved from a function.
    Tool,
    /// A tool an MCP client listed, given in `tools`.
    Mcp,
    /// `agents: { KEY }`: sent as `agent-KEY`.
    Agent,
    /// `workflows: { KEY }`: sent as `workflow-KEY`.
    Workflow,
    /// The agent's memory (working memory and the like).
    Memory,
    /// A toolset or client tool in the agent's default options.
    Toolset,
    Client,
    /// Anything else Mastra added (workspace, skills, browser, processors).
    Other,
}

impl ToolSource {
    pub const ALL: [ToolSource; 8] = [
        ToolSource::Tool,
        ToolSource::Mcp,
        ToolSource::Agent,
        ToolSource::Workflow,
        ToolSource::Memory,
        ToolSource::Toolset,
        ToolSource::Client,
        ToolSource::Other,
    ];

    /// The name the loader writes and the JSON rendering repeats.
    pub fn name(self) -> &'static str {
        match self {
            ToolSource::Tool => "tool",
            ToolSource::Mcp => "mcp",
            ToolSource::Agent => "agent",
            ToolSource::Workflow => "workflow",
            ToolSource::Memory => "memory",
            ToolSource::Toolset => "toolset",
            ToolSource::Client => "client",
            ToolSource::Other => "other",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectTool {
    pub key: JsString,
    pub source: ToolSource,
    /// The MCP server a `Mcp` tool came from (its key is `SERVER_TOOL`).
    pub server: Option<JsString>,
    pub at: Option<Location>,
    /// The tool's own `id`, when it has one.
    pub id: Option<JsString>,
    /// The tool's own approval setting, which its agent's policy does not
    /// override.
    pub approval: OwnApproval,
    /// How an MCP tool reached the agent: `listTools()` keys it
    /// `SERVER_TOOL`, `listToolsets()` (given as a toolset) `TOOL`.
    pub listing: Option<McpListing>,
    /// An MCP tool's key under the other listing, and the name the
    /// installed release sends that key as.
    pub other: Option<OtherListing>,
}

/// Which `MCPClient` listing an MCP tool came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpListing {
    /// `await mcp.listTools()` as the agent's `tools`: keyed `SERVER_TOOL`.
    Tools,
    /// `await mcp.listToolsets()` as the default options' `toolsets`:
    /// keyed `TOOL`, the name the server lists.
    Toolsets,
}

impl McpListing {
    /// The call a finding names.
    pub fn call(self) -> &'static str {
        match self {
            McpListing::Tools => "listTools()",
            McpListing::Toolsets => "listToolsets()",
        }
    }

    /// As the loader and the JSON rendering write it.
    pub fn name(self) -> &'static str {
        match self {
            McpListing::Tools => "tools",
            McpListing::Toolsets => "toolsets",
        }
    }

    pub fn other(self) -> McpListing {
        match self {
            McpListing::Tools => McpListing::Toolsets,
            McpListing::Toolsets => McpListing::Tools,
        }
    }
}

/// An MCP tool as the other listing would have given it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherListing {
    pub key: JsString,
    /// What the installed release sends that key as (`None`: it throws).
    pub sent_as: Option<JsString>,
}

/// A tool's own `requireApproval`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnApproval {
    /// None: the agent's policy decides.
    None,
    /// `requireApproval: true`: every call waits, whatever the policy says.
    Always,
    /// A function of the tool's own, which decides in the policy's place.
    Function,
}

/// What an approval policy answered when the loader asked it with a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyAnswer {
    /// A truthy answer: approve first.
    True,
    /// A falsy answer: run without approval.
    False,
    /// It threw.
    Throws,
    /// It did not settle within the loader's wait.
    Timeout,
}

/// A `requireToolApproval` function of an agent's default options, asked by
/// the loader with every tool's key, id and sent name (or `true`, which
/// answers true for each).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalPolicy {
    /// The option that holds it: `defaultOptions`, or a 0.x sibling.
    pub option: String,
    /// Where its `requireToolApproval` is written.
    pub at: Option<Location>,
    pub answers: Vec<(JsString, PolicyAnswer)>,
    /// Where the policy writes each name it names (in its function, or a
    /// value the function reads).
    pub written: Vec<NameUse>,
    /// `requireToolApproval: true`, not a function: it answers true for
    /// every name.
    pub always: bool,
}

impl ApprovalPolicy {
    pub fn answer(&self, name: &JsString) -> Option<PolicyAnswer> {
        self.answers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, a)| *a)
    }
}

/// A `requireToolApproval` function, or `true`, the project's source passes
/// to one call of `generate` or `stream` (not the agent's default options,
/// which the loader asks instead).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalCall {
    /// `generate`, `stream`, or a 0.x sibling.
    pub method: String,
    /// The callee's object when it is a name (`supportAgent`).
    pub receiver: Option<String>,
    /// `requireToolApproval: true` rather than a function.
    pub always: bool,
    /// The registered agent the call is made on, where the sources tie it
    /// to one (a name bound to its `new Agent`, or `getAgent('KEY')`).
    pub agent: Option<JsString>,
    /// Where its `requireToolApproval` is written.
    pub at: Option<Location>,
}

/// A `generate` or `stream` call on an agent that passes `toolsets: await
/// mcp.listToolsets()`, with the names its own options use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallToolsets {
    /// `agent.generate()`, as written.
    pub callee: String,
    /// Where its `toolsets` is written.
    pub at: Option<Location>,
    /// A named `toolChoice` written in the call.
    pub tool_choice: Option<NameUse>,
    /// The names of an `activeTools` written in the call.
    pub active_tools: Vec<NameUse>,
}

/// An agent's instructions for an empty request context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instructions {
    pub text: JsString,
    /// Where the literal that is the whole text starts.
    pub at: Option<Location>,
    /// Whether that literal is a template, whose lines are the source's.
    pub template: bool,
}

/// What an MCP server gave when the project's client asked it for tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpStatus {
    /// It listed its tools.
    Listed,
    /// It failed to start, to connect or to list (the loader reaches no URL,
    /// and starts no process without the OS sandbox).
    Failed,
    /// The source names it, but nothing asked it while the project loaded.
    Unasked,
}

/// One MCP server an agent's tools come from, or that the project asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServer {
    /// Its key in the client's `servers`, the prefix of its tools' keys.
    pub name: JsString,
    /// `stdio` or `url`, when it was asked.
    pub transport: Option<String>,
    /// The command line or the URL.
    pub target: Option<String>,
    pub status: McpStatus,
    pub error: Option<String>,
    /// The tool names it listed.
    pub tools: Vec<JsString>,
    /// Where its key is written.
    pub at: Option<Location>,
    /// Its own `requireToolApproval` function, asked by the loader with
    /// its tools' MCP names, keys and sent names; `option` says
    /// `servers["NAME"]`.
    pub policy: Option<ApprovalPolicy>,
    /// Its own `requireToolApproval` as written: `true` (`Always`), a
    /// function, or none.
    pub approval: OwnApproval,
    /// Where that `requireToolApproval` is written.
    pub approval_at: Option<Location>,
}

/// How the project's TypeScript got into Node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loader {
    /// Node's own type stripping.
    Node,
    /// Bundled by the pinned esbuild, as `mastra dev` bundles.
    Esbuild,
}

impl Loader {
    pub fn name(self) -> &'static str {
        match self {
            Loader::Node => "node",
            Loader::Esbuild => "esbuild",
        }
    }
}

/// An inline `mastra-conform-ignore` comment: the line it covers and the
/// rules it names (`None`: every rule).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineSuppression {
    pub file: String,
    pub line: u64,
    pub rules: Option<Vec<String>>,
}

/// How an agent names its model, which decides the provider's rules
/// (docs/case-format.md, ROUTE).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelRoute {
    /// `{ id, url }`: an OpenAI-compatible Chat Completions endpoint.
    OpenAiCompatible { id: String, url: String },
    /// A router string, `"provider/model"`.
    Router { provider: String, model: String },
    /// An AI SDK model object (`openai("gpt-4o")`).
    Sdk { provider: String, model: String },
    /// A model the loader could not read.
    Unknown,
}

impl ModelRoute {
    pub fn describe(&self) -> String {
        match self {
            ModelRoute::OpenAiCompatible { id, url } => {
                format!("openai-compatible ({id} at {url})")
            }
            ModelRoute::Router { provider, model } => format!("{provider} (\"{model}\")"),
            ModelRoute::Sdk { provider, model } => format!("{provider} (AI SDK model {model})"),
            ModelRoute::Unknown => "unknown model".into(),
        }
    }
}

/// A name an option uses (`toolChoice`, `activeTools`), and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameUse {
    pub name: JsString,
    pub at: Option<Location>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectAgent {
    /// The key it is registered under in `new Mastra({ agents })`.
    pub registered_as: JsString,
    pub id: Option<JsString>,
    /// Where its `new Agent({...})` is written.
    pub at: Option<Location>,
    pub route: ModelRoute,
    pub tools: Vec<ProjectTool>,
    /// A named default `toolChoice` (a mode like `"auto"` names nothing).
    pub tool_choice: Option<NameUse>,
    pub active_tools: Option<Vec<NameUse>>,
    /// The calls on it that pass an MCP client's `listToolsets()` as their
    /// `toolsets` (whose tools are among `tools`, as `listToolsets()`'s).
    pub calls: Vec<CallToolsets>,
    /// The MCP servers its tools come from.
    pub mcp: Vec<McpServer>,
    /// Its default options' approval policies that are functions.
    pub approval: Vec<ApprovalPolicy>,
    pub instructions: Option<Instructions>,
    /// What Mastra's own assembly of its tools threw, where the loader
    /// judged the agent's own tools record instead (a model string a
    /// release cannot convert tools for).
    pub assembly_threw: Option<String>,
}

impl ProjectAgent {
    /// Where its default toolChoice (for `ToolChoice`) or its activeTools
    /// entry `name` (otherwise) is written.
    pub fn reference_at(
        &self,
        used_in: crate::lint::Reference,
        name: &JsString,
    ) -> Option<Location> {
        match used_in {
            crate::lint::Reference::ToolChoice => {
                self.tool_choice.as_ref().and_then(|u| u.at.clone())
            }
            _ => self
                .active_tools
                .iter()
                .flatten()
                .find(|u| &u.name == name)
                .and_then(|u| u.at.clone()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedProject {
    pub dir: String,
    pub entry: String,
    pub node: String,
    pub mastra: MastraVersion,
    pub loader: Loader,
    /// Why esbuild, when it was.
    pub loader_reason: Option<String>,
    /// `sandbox` (the OS sandbox) or `guard` (the JavaScript guard alone).
    pub isolation: String,
    /// The env files the load read, and the project's own it did not.
    pub env_read: Vec<String>,
    pub env_not_read: Vec<String>,
    pub agents: Vec<ProjectAgent>,
    /// MCP servers the project asked that no agent's record names.
    pub mcp: Vec<McpServer>,
    pub suppressions: Vec<InlineSuppression>,
    /// Each string the project's source compares a `toolName` with.
    pub comparisons: Vec<NameUse>,
    /// Each tool name the source hands a part that compares it with the
    /// name a tool was called by, with the rule that judges that part.
    pub sent_name_uses: Vec<(Rule, NameUse)>,
    /// Each `requireToolApproval` function the source passes to a call.
    pub approval_calls: Vec<ApprovalCall>,
    /// Source files the loader could not parse (no location comes from them).
    pub unparsed: Vec<String>,
    /// Requests the project tried to make while loading, all refused.
    pub blocked: Vec<String>,
    /// What the load wrote: files in its scratch folders, as the project's
    /// layout would have them, and the project's own files it changed.
    pub wrote: Vec<String>,
}

#[cfg(test)]
mod tests;
