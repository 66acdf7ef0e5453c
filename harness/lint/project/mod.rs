//! `ProjectLint`: a user's Mastra project through the model.
//!
//! In: the document `node-probe/project.mjs` prints for a project (each
//! agent's tool keys before Mastra's rewrite, in the order Mastra merges
//! them, with where each came from and where it is written; its default
//! `toolChoice` and `activeTools`; its model's route; the installed
//! `@mastra/core` version). Out: per agent, the `LintReport` of the keys
//! lint already knows how to judge, and `Finding`s, one per problem, each
//! with its fix and source location, which the terminal, JSON and SARIF
//! renderings share.
//!
//! Three parts, in the order the data flows: `decode` reads the loader's
//! document into a `LoadedProject` (or a `DecodeError`), `judge` turns it
//! into a `ProjectLint`, `render` writes that for the terminal and as JSON
//! (SARIF is `lint::sarif`). All pure: running the loader is `lint::load`.

pub mod decode;
pub mod judge;
pub mod render;

pub use decode::{parse_loaded, DecodeError, LoadFailure};
pub use judge::{lint_project, provider_accepts, AgentLint, Counts, Finding, ProjectLint, Rule};

use crate::js::string::JsString;
use crate::versions::spec::MastraVersion;

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
    pub at: Option<Location>,
}

/// How an agent names its model, which decides the provider's rules
/// (shared/case-format.md, ROUTE).
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
    pub route: ModelRoute,
    pub tools: Vec<ProjectTool>,
    /// A named default `toolChoice` (a mode like `"auto"` names nothing).
    pub tool_choice: Option<NameUse>,
    pub active_tools: Option<Vec<NameUse>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedProject {
    pub dir: String,
    pub entry: String,
    pub node: String,
    pub mastra: MastraVersion,
    /// `node` (type stripping) or `tsx` (the project's own).
    pub loader: String,
    pub agents: Vec<ProjectAgent>,
    /// Requests the project tried to make while loading, all refused.
    pub blocked: Vec<String>,
}

#[cfg(test)]
mod tests;
