//! `Rule`: the stable ids of lint's findings, each with its summary, its
//! description, its default severity and its page (`docs/rules/ID.md`).
//!
//! In: nothing. Out: the rules, for the judge (which finding is which), the
//! configuration (which ids it may name) and the renderings (SARIF's rules,
//! `helpUri`).

use crate::lint::Severity;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    Collision,
    FalseCollision,
    EmptyKey,
    ToolChoiceNotSent,
    ActiveToolsNotSent,
    ProviderRejects,
    Rewritten,
    Cut,
    Dropped,
    McpServerKeyRewritten,
    McpServerUnavailable,
    ApprovalByKey,
    PolicyLostOnResume,
    InstructionsNameNotSent,
    ToolNameComparedToKey,
    McpPolicyName,
    ToolApprovalFnOverridesPolicy,
    ToolCallFilterNamesKey,
    HasToolCallNamesKey,
    ExpectedToolNamesKey,
    McpListingName,
    McpServerPolicyIgnored,
    HeldCallRuns,
}

/// Where the rules' pages are (`docs/rules/ID.md`), for SARIF's `helpUri`.
pub const RULES_URI: &str = "https://github.com/mastra-conform/mastra-conform/blob/main/docs/rules";

impl Rule {
    pub const ALL: [Rule; 23] = [
        Rule::Collision,
        Rule::FalseCollision,
        Rule::EmptyKey,
        Rule::ToolChoiceNotSent,
        Rule::ActiveToolsNotSent,
        Rule::ProviderRejects,
        Rule::Rewritten,
        Rule::Cut,
        Rule::Dropped,
        Rule::McpServerKeyRewritten,
        Rule::McpServerUnavailable,
        Rule::ApprovalByKey,
        Rule::PolicyLostOnResume,
        Rule::InstructionsNameNotSent,
        Rule::ToolNameComparedToKey,
        Rule::McpPolicyName,
        Rule::ToolApprovalFnOverridesPolicy,
        Rule::ToolCallFilterNamesKey,
        Rule::HasToolCallNamesKey,
        Rule::ExpectedToolNamesKey,
        Rule::McpListingName,
        Rule::McpServerPolicyIgnored,
        Rule::HeldCallRuns,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Rule::Collision => "tool-name-collision",
            Rule::FalseCollision => "tool-name-false-collision",
            Rule::EmptyKey => "empty-tool-key",
            Rule::ToolChoiceNotSent => "tool-choice-names-no-tool-sent",
            Rule::ActiveToolsNotSent => "active-tools-names-no-tool-sent",
            Rule::ProviderRejects => "provider-rejects-tool-name",
            Rule::Rewritten => "tool-key-rewritten",
            Rule::Cut => "tool-key-cut",
            Rule::Dropped => "tool-key-dropped",
            Rule::McpServerKeyRewritten => "mcp-server-key-rewritten",
            Rule::McpServerUnavailable => "mcp-server-unavailable",
            Rule::ApprovalByKey => "approval-policy-decides-on-the-key",
            Rule::PolicyLostOnResume => "approval-policy-lost-on-resume",
            Rule::InstructionsNameNotSent => "instructions-name-a-tool-not-sent",
            Rule::ToolNameComparedToKey => "tool-name-compared-to-key",
            Rule::McpPolicyName => "mcp-approval-policy-names-another-spelling",
            Rule::ToolApprovalFnOverridesPolicy => "tool-approval-fn-overrides-agent-policy",
            Rule::ToolCallFilterNamesKey => "tool-call-filter-names-a-key",
            Rule::HasToolCallNamesKey => "has-tool-call-names-a-key",
            Rule::ExpectedToolNamesKey => "expected-tool-names-a-key",
            Rule::McpListingName => "mcp-tool-named-by-the-other-listing",
            Rule::McpServerPolicyIgnored => "mcp-server-policy-ignored",
            Rule::HeldCallRuns => "approval-held-call-runs-on-0x",
        }
    }

    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.id() == id)
    }

    pub fn summary(self) -> &'static str {
        match self {
            Rule::Collision => "Two tool keys rewrite to one name: Mastra throws AGENT_TOOL_NAME_COLLISION",
            Rule::FalseCollision => "A tool key rewrites onto a name every JS object inherits: Mastra throws AGENT_TOOL_NAME_COLLISION",
            Rule::EmptyKey => "The empty tool key makes Mastra throw a TypeError",
            Rule::ToolChoiceNotSent => "toolChoice names no tool that is sent: the provider rejects the request",
            Rule::ActiveToolsNotSent => "activeTools names no tool that is sent: that tool is not offered",
            Rule::ProviderRejects => "The provider rejects a tool name Mastra sends",
            Rule::Rewritten => "Mastra rewrites the tool key before the model sees it",
            Rule::Cut => "Mastra cuts the tool key to 63 characters",
            Rule::Dropped => "Mastra's copy of the tools object drops the key \"__proto__\"",
            Rule::McpServerKeyRewritten => "An MCP server's key makes Mastra rewrite every one of its tools' keys",
            Rule::McpServerUnavailable => "An MCP server gave no tools while lint loaded the project: its tools are unknown",
            Rule::ApprovalByKey => "An approval policy answers differently for a tool's key or id than for the name Mastra asks it with",
            Rule::PolicyLostOnResume => "A requireToolApproval function passed to generate or stream is gone once an approval resumes the run: later calls run without approval",
            Rule::InstructionsNameNotSent => "The instructions name a tool by a key or id the model is not sent",
            Rule::ToolNameComparedToKey => "Source compares a toolName with a key Mastra rewrites, or a tool's id",
            Rule::McpPolicyName => "An approval policy holds an MCP tool by a spelling of its name Mastra never asks it with: the tool runs without approval",
            Rule::ToolApprovalFnOverridesPolicy => "A tool's own requireApproval function decides in place of the agent's policy: where it answers false the tool runs without approval",
            Rule::ToolCallFilterNamesKey => "ToolCallFilter's exclude list names a key Mastra rewrites, or a tool's id: those calls stay in the history",
            Rule::HasToolCallNamesKey => "hasToolCall names a key Mastra rewrites, or a tool's id: the loop does not stop at that tool's call",
            Rule::ExpectedToolNamesKey => "A tool-call accuracy scorer expects a key Mastra rewrites, or a tool's id: it scores the call of that tool as a miss",
            Rule::McpListingName => "A toolChoice, activeTools or approval policy names an MCP tool as the other listing (listTools() or listToolsets()) sends it, not as this agent does",
            Rule::McpServerPolicyIgnored => "An MCP server's requireToolApproval is ignored by the @mastra/mcp installed beside @mastra/core before 1.25.0: its tools run without approval",
            Rule::HeldCallRuns => "On @mastra/core 0.20.0 to 0.22.2 a call held for approval runs before it is answered, and again on the answer: approval does not stop the tool",
        }
    }

    /// What the rule checks and why it matters: SARIF's `fullDescription`,
    /// the first paragraph of its page.
    pub fn description(self) -> &'static str {
        match self {
            Rule::Collision => "Mastra rewrites every tool key outside a-zA-Z0-9_- (and one that does not start with a letter or _) before the model sees it. When two keys rewrite to the same name, or a key rewrites onto a key already registered, Agent.formatTools() throws AGENT_TOOL_NAME_COLLISION and every call of the agent fails.",
            Rule::FalseCollision => "A key whose rewrite is a name every JavaScript object inherits (constructor, toString, __proto__ and the like) is taken by Mastra's collision check for one already registered: it throws AGENT_TOOL_NAME_COLLISION with a single tool.",
            Rule::EmptyKey => "The empty string as a tool key makes Agent.formatTools() read the first character of an empty key and throw a TypeError: every call of the agent fails.",
            Rule::ToolChoiceNotSent => "A named toolChoice is sent as written, not rewritten like the tools: when it names a key that Mastra rewrote, the request forces a function its own tools list does not have, and the provider rejects it.",
            Rule::ActiveToolsNotSent => "activeTools is compared with the rewritten names: a name that is not one of them matches no tool, and that tool is not offered to the model.",
            Rule::ProviderRejects => "Each provider has its own rule for a function name. A name Mastra sends that the agent's provider does not accept makes that provider reject the request.",
            Rule::Rewritten => "Mastra rewrites a tool key outside a-zA-Z0-9_- (or one that starts with a digit or a hyphen) before the model sees it: the model calls the tool by a name that is not the key, and logs, traces and prompts that use the key do not match.",
            Rule::Cut => "Mastra cuts a tool key longer than 63 characters to 63 (providers allow 64): two long keys that share their first 63 characters collide, and the model sees a name that is not the key.",
            Rule::Dropped => "A tool registered under the key \"__proto__\" is lost when Mastra copies the tools object: the model is never offered it.",
            Rule::McpServerKeyRewritten => "An MCP client names each tool it lists SERVER_TOOL, after the key the server is registered under in its servers. A server key outside a-zA-Z0-9_- makes Mastra rewrite every one of its tools' keys: renaming the server key fixes them all.",
            Rule::McpServerUnavailable => "lint loads the project without network and, without its OS sandbox, without starting processes. An MCP server it could not start or reach listed no tools, so what its tools become on the wire is unknown and the agent's tools were not all checked.",
            Rule::ApprovalByKey => "Mastra asks a requireToolApproval function with the name the model called, which is the name the tool was sent under, not its key or id. A policy that decides on the key (toolName === 'files.delete') is asked with files_delete, answers false, and the tool runs without approval: it fails open. A model may also call a tool by its id, which Mastra resolves and asks the policy with: a policy that holds only the sent name fails open then. Releases before the one that asks the function treat any function as true, so there every tool waits.",
            Rule::PolicyLostOnResume => "A run suspended for approval and resumed (approveToolCall, declineToolCall, resumeGenerate) no longer has the requireToolApproval function its generate or stream call was given: the resumed run's later tool calls are neither asked nor held, and run without approval, so the policy fails open from its first answer on. requireToolApproval: true, and a tool's own requireApproval: true, still hold every call of the resumed run, as does a function in the agent's defaultOptions. Releases before the one that first asks the function held every call, resumed or not.",
            Rule::InstructionsNameNotSent => "The model is offered each tool under the name Mastra sends, not under its key or id when the rewrite changed it. Instructions that tell the model to call a tool by its key or id name a tool it is not offered.",
            Rule::ToolNameComparedToKey => "Every toolName Mastra hands the project's code (a stream chunk's payload, a tool call, an approval policy's argument) is the name the tool was sent under. A comparison with a key Mastra rewrites, or with a tool's id, never matches.",
            Rule::McpPolicyName => "An MCP tool has three spellings: the name its server lists (delete.file), its key SERVER_TOOL (fs_delete.file) and the name it is sent as (fs_delete_file). A server's own requireToolApproval function is asked with the first, the agent's with the last; the server's answer replaces the agent's. A policy written against the other side's spelling answers false for the name it is asked with, and the tool runs without approval, even under the agent's requireToolApproval: true.",
            Rule::ToolApprovalFnOverridesPolicy => "From @mastra/core 1.26.0 a tool's own requireApproval function is asked for each call of the tool, after the agent's requireToolApproval, and its answer alone decides: where the agent's policy (or requireToolApproval: true) holds the call and the tool's function answers false, the call runs without approval. Mastra's docs say requireToolApproval: true prevents the agent from calling any of its tools without approval.",
            Rule::ToolCallFilterNamesKey => "ToolCallFilter({ exclude }) drops a stored tool call, and its result, when the call's toolName is in the list. A stored call's toolName is the name the model called, the name the tool was sent under: a key Mastra rewrites, or a tool's id, matches no call, and those calls stay in every later request's history.",
            Rule::HasToolCallNamesKey => "hasToolCall(name) in stopWhen stops the loop when the last step has a call whose toolName is NAME. A call's toolName is the name the model called, the name the tool was sent under: a key Mastra rewrites, or a tool's id, matches no call, and the loop goes on to its step limit.",
            Rule::ExpectedToolNamesKey => "createToolCallAccuracyScorerCode compares expectedTool and expectedToolOrder with the toolName of each tool invocation in the run's output, the name the model called, the name the tool was sent under: a key Mastra rewrites, or a tool's id, is never among them, so the scorer gives 0 when the agent called the right tool.",
            Rule::McpListingName => "An MCP client lists a server's tools two ways: listTools() keys each SERVER_TOOL (fs_delete.file, sent as fs_delete_file), listToolsets(), given as toolsets, keys it by the name the server lists (delete.file, sent as delete_file). A toolChoice or activeTools name written with the other listing's spelling matches no tool this agent sends (the provider rejects the request, or the tool is not offered), and an approval policy holding the other listing's sent name is asked with this one's, answers false, and the tool runs without approval.",
            Rule::McpServerPolicyIgnored => "A server's requireToolApproval in MCPClient({ servers }), true or a function, is accepted by the @mastra/mcp that installs beside @mastra/core 1.0.4 to 1.24.1 and never read: the server's tools carry no approval requirement, and a call of one runs without approval, with no error. From @mastra/core 1.25.0 (@mastra/mcp 1.5.0) the server's setting holds its tools' calls.",
            Rule::HeldCallRuns => "On @mastra/core 0.20.0 to 0.22.2 a tool call that requireToolApproval (true or a function, in the agent's default options or passed to generate or stream) or a tool's own requireApproval holds for approval has already run when the run waits for its answer: the tool executes before anyone answers, and again when the call is approved or declined. Every approval setting fails open there alike; from 0.23.1 a held call waits for its answer.",
        }
    }

    pub fn severity(self) -> Severity {
        match self {
            Rule::Rewritten
            | Rule::Cut
            | Rule::Dropped
            | Rule::McpServerKeyRewritten
            | Rule::McpServerUnavailable
            | Rule::InstructionsNameNotSent
            | Rule::ToolNameComparedToKey
            | Rule::ToolCallFilterNamesKey
            | Rule::HasToolCallNamesKey
            | Rule::ExpectedToolNamesKey => Severity::Warning,
            _ => Severity::Error,
        }
    }

    /// The rule's page in the repository.
    pub fn help_uri(self) -> String {
        format!("{RULES_URI}/{}.md", self.id())
    }
}
