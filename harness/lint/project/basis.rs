//! What the judge and the upgrade view of `lint --project` both read: the
//! input `lint` is given for an agent, the provider's rule for a name, and
//! a name as the findings quote it. A module of its own, so that the
//! judge, which attaches the upgrade view, and the view need not import
//! each other.

use super::{ModelRoute, ProjectAgent};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::judge::provider::NamePattern;
use crate::lint::LintInput;
use crate::version::spec::MastraVersion;

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
