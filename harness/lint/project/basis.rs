//! What the judge and the views it attaches (the upgrade view, the names a
//! project writes) all read: a `Finding`, the input `lint` is given for an
//! agent, the provider's rule for a name, and a name as the findings quote
//! it. A module of its own, so that the judge and those views need not
//! import each other.

use super::rules::Rule;
use super::{Location, ModelRoute, ProjectAgent};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::judge::provider::NamePattern;
use crate::lint::LintInput;
use crate::lint::Severity;
use crate::version::spec::MastraVersion;

/// One problem, ready for any rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub severity: Severity,
    /// A stable rule id (SARIF `ruleId`, `docs/rules/ID.md`).
    pub rule: Rule,
    /// The key or name it is about (an MCP server's name for the server's
    /// findings).
    pub subject: JsString,
    /// The full sentence, with the fix.
    pub message: String,
    pub at: Option<Location>,
}

/// The provider's rule for a function name, on the agent's route: the same
/// per-provider patterns the judge applies to captured bodies
/// (`judge::provider::NamePattern`, each rule cited there). A model the
/// loader could not place, or an AI SDK provider the harness has no route
/// for, is judged by the OpenAI-compatible rule, `^[a-zA-Z0-9_-]{1,64}$`.
pub fn provider_accepts(route: &ModelRoute, name: &JsString) -> bool {
    NamePattern::of(route.wire_route()).accepts(name)
}

/// What `lint` is given for AGENT when its tools reach the model under
/// `keys` on `version` (`None`: the newest the model knows).
pub fn agent_input(
    agent: &ProjectAgent,
    keys: Vec<JsString>,
    version: Option<MastraVersion>,
) -> LintInput {
    LintInput {
        keys,
        tool_choice: agent.tool_choice.as_ref().map(|n| n.name.clone()),
        active_tools: agent
            .active_tools
            .iter()
            .flatten()
            .map(|n| n.name.clone())
            .collect(),
        prompt_names: Vec::new(),
        version,
    }
}

/// A name as a finding quotes it: a JSON string, escapes and all.
pub fn quote(s: &JsString) -> String {
    Json::String(s.clone()).to_compact()
}
