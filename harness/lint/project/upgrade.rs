//! `Upgrade`: what moving a 0.x project to the newest 1.x changes on the
//! wire, per key and per name.
//!
//! In: one agent of a `LoadedProject` on a 0.x core, and its `LintReport`
//! there. Out: the keys whose fate differs on the newest 1.x the model
//! knows (sent under another name, sent where it failed, failing where it
//! was sent, rejected by the provider where it was accepted), and the
//! `toolChoice` and `activeTools` names whose outcome differs (an option
//! ignored on the 0.x release and applied on 1.x, a name that stops or
//! starts matching). Both sides are `lint` itself, at the two versions,
//! so the upgrade view says nothing the findings of each would not.
//!
//! A sub-agent or workflow is a tool on 1.x under `agent-KEY` /
//! `workflow-KEY`; the 0.x releases that name it by its key alone
//! (`Release::names_sources_by_key`) send it as KEY, so its 1.x key is
//! built from that.

use super::basis::{agent_input, provider_accepts, quote};
use super::{ProjectAgent, ToolSource};
use crate::js::string::JsString;
use crate::lint::{active_tools_applied, lint, KeyFinding, KeyProblem, LintReport};
use crate::lint::{NameFinding, Reference};
use crate::model::releases::Release;
use crate::version::spec::MastraVersion;

/// What one key is on one side of the upgrade.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyFate {
    /// The key that side's Mastra sees (a sub-agent's `agent-KEY` on 1.x).
    pub key: JsString,
    pub sent_as: Option<JsString>,
    pub problem: KeyProblem,
    /// Whether the agent's provider accepts the name sent (none sent: true).
    pub provider_accepts: bool,
}

impl KeyFate {
    fn of(key: &JsString, f: &KeyFinding, agent: &ProjectAgent) -> KeyFate {
        KeyFate {
            key: key.clone(),
            sent_as: f.sent_as.clone(),
            problem: f.problem.clone(),
            provider_accepts: f
                .sent_as
                .as_ref()
                .is_none_or(|s| provider_accepts(&agent.route, s)),
        }
    }

    /// One phrase: `sent as "x"`, `sent as "x", which openai rejects`,
    /// `fails: ...`, `not sent: ...`.
    pub fn describe(&self, agent: &ProjectAgent) -> String {
        match (&self.problem, &self.sent_as) {
            (KeyProblem::Collision { with }, _) => format!(
                "fails: collides with {} (AGENT_TOOL_NAME_COLLISION, before any request)",
                quote(with)
            ),
            (KeyProblem::FalseCollision, _) => "fails: rewrites onto a name every JS object inherits (AGENT_TOOL_NAME_COLLISION, before any request)".into(),
            (KeyProblem::Crash, _) => "fails: the empty key makes Mastra throw a TypeError".into(),
            (KeyProblem::Dropped, _) | (_, None) => "not sent: Mastra's copy of the tools object drops it".into(),
            (_, Some(sent)) if !self.provider_accepts => format!(
                "sent as {}, which {} rejects",
                quote(sent),
                agent.route.describe()
            ),
            (_, Some(sent)) => format!("sent as {}", quote(sent)),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyChange {
    pub source: ToolSource,
    pub now: KeyFate,
    pub then: KeyFate,
}

/// What a `toolChoice` or `activeTools` name does on one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameFate {
    /// The option is ignored by that release.
    Ignored,
    /// A tool is sent under exactly this name.
    Matches,
    /// No tool is sent under it.
    MatchesNothing,
}

impl NameFate {
    pub fn describe(self, used_in: Reference) -> &'static str {
        match (self, used_in) {
            (NameFate::Ignored, _) => "ignored (the release does not apply activeTools)",
            (NameFate::Matches, _) => "names a tool that is sent",
            (NameFate::MatchesNothing, Reference::ToolChoice) => {
                "names no tool that is sent: the provider rejects the request"
            }
            (NameFate::MatchesNothing, _) => {
                "matches no tool that is sent: that tool is not offered"
            }
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            NameFate::Ignored => "ignored",
            NameFate::Matches => "matches",
            NameFate::MatchesNothing => "matches-nothing",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameChange {
    pub used_in: Reference,
    pub name: JsString,
    pub now: NameFate,
    pub then: NameFate,
}

/// An agent's upgrade view: only what changes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Upgrade {
    pub keys: Vec<KeyChange>,
    pub names: Vec<NameChange>,
}

impl Upgrade {
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty() && self.names.is_empty()
    }
}

/// The key 1.x sees for a tool the 0.x release `z` assembled as `key`.
fn key_on_1x(z: &Release, source: ToolSource, key: &JsString) -> JsString {
    let prefix = match source {
        ToolSource::Agent => "agent-",
        ToolSource::Workflow => "workflow-",
        _ => return key.clone(),
    };
    if z.names_sources_by_key() {
        JsString::from(prefix).concat(key)
    } else {
        key.clone()
    }
}

/// The upgrade view of AGENT, judged as `now` on `version`; `None` on 1.x.
pub fn upgrade(agent: &ProjectAgent, version: MastraVersion, now: &LintReport) -> Option<Upgrade> {
    let z = Some(Release::of(version)).filter(Release::on_0x)?;
    let keys_then: Vec<JsString> = agent
        .tools
        .iter()
        .map(|t| key_on_1x(&z, t.source, &t.key))
        .collect();
    let then = lint(&agent_input(agent, keys_then.clone(), None));
    let mut out = Upgrade::default();
    for (i, t) in agent.tools.iter().enumerate() {
        let (Some(f_now), Some(f_then)) = (
            now.keys.iter().find(|f| f.key == t.key),
            then.keys.iter().find(|f| f.key == keys_then[i]),
        ) else {
            continue;
        };
        let a = KeyFate::of(&t.key, f_now, agent);
        let b = KeyFate::of(&keys_then[i], f_then, agent);
        if (&a.sent_as, a.provider_accepts, fails(&a.problem))
            != (&b.sent_as, b.provider_accepts, fails(&b.problem))
        {
            out.keys.push(KeyChange {
                source: t.source,
                now: a,
                then: b,
            });
        }
    }
    let fate = |report: &LintReport, applied: bool, used_in: Reference, name: &JsString| {
        if used_in == Reference::ActiveTools && !applied {
            return NameFate::Ignored;
        }
        match report
            .names
            .iter()
            .find(|n: &&NameFinding| n.used_in == used_in && n.name == *name)
        {
            Some(n) if n.matches => NameFate::Matches,
            _ => NameFate::MatchesNothing,
        }
    };
    let uses = agent
        .tool_choice
        .iter()
        .map(|u| (Reference::ToolChoice, &u.name))
        .chain(
            agent
                .active_tools
                .iter()
                .flatten()
                .map(|u| (Reference::ActiveTools, &u.name)),
        );
    let applied_now = active_tools_applied(Some(version));
    for (used_in, name) in uses {
        let a = fate(now, applied_now, used_in, name);
        let b = fate(&then, active_tools_applied(None), used_in, name);
        if a != b {
            out.names.push(NameChange {
                used_in,
                name: name.clone(),
                now: a,
                then: b,
            });
        }
    }
    Some(out)
}

/// Whether the problem fails the call (rather than sending a name).
fn fails(p: &KeyProblem) -> bool {
    matches!(
        p,
        KeyProblem::Collision { .. }
            | KeyProblem::FalseCollision
            | KeyProblem::Crash
            | KeyProblem::Dropped
    )
}
