//! `ToolSearchProcessor` (`@mastra/core/processors`, case field
//! `toolSearch`): the tools each step offers and finds, and what its
//! `load_tool` answers.
//!
//! Each step the processor's `processInputStep` hands back `{ search_tools,
//! load_tool, ...stepTools, ...loadedTools }`: the step's tools, already
//! keyed by their wire names, then each tool `load_tool` was given, keyed by
//! the name it was given (a key or an id behind the processor) and never
//! rewritten. That record is what the request offers and what a call is
//! looked up in, so a tool loaded by an id such as `search.web` is sent as
//! `search.web` and found only under it (1.67.0
//! `dist/agent-Dk0N0Nlg.js:15460`, `processInputStep` at `:15700`;
//! observed on 1.67.0 and 1.71.0, `cases/toolsearch/`).

use super::record::{Lookup, Record};
use super::releases::Release;
use super::{ToolOrigin, ToolValue};
use crate::case::{ApprovalPolicy, Case, Reply, Tool, ToolCallReply};
use crate::js::json::Json;
use crate::js::string::JsString;

/// The processor's two tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Meta {
    Search,
    Load,
}

pub(super) const SEARCH_TOOLS: &str = "search_tools";
pub(super) const LOAD_TOOL: &str = "load_tool";

fn meta(meta: Meta) -> (JsString, ToolValue) {
    let name = JsString::from(match meta {
        Meta::Search => SEARCH_TOOLS,
        Meta::Load => LOAD_TOOL,
    });
    let value = ToolValue {
        id: name.clone(),
        key: name.clone(),
        origin: ToolOrigin::Search(meta),
    };
    (name, value)
}

/// The processor over one agent's steps: what it was built with and what
/// `load_tool` has loaded (its default store, one per processor).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct SearchState {
    /// The step's own tools, formatted (`stepTools`).
    base: Record<ToolValue>,
    /// The tools behind the processor, as `Object.fromEntries` built them.
    catalog: Record<ToolValue>,
    /// The names `load_tool` loaded, in order (a `Set`).
    loaded: Vec<JsString>,
}

impl SearchState {
    /// The processor over a step whose own tools are `base`, having
    /// loaded `loaded` in the case's earlier turns: its store outlives a
    /// call (one per processor, keyed by the thread, `"default"` without
    /// one), so a later turn starts with what the earlier ones loaded.
    pub(super) fn new(
        base: Record<ToolValue>,
        catalog: Record<ToolValue>,
        loaded: &[JsString],
    ) -> SearchState {
        SearchState {
            base,
            catalog,
            loaded: loaded.to_vec(),
        }
    }

    /// The names loaded so far, in order: what a later turn starts with.
    pub(super) fn loaded(&self) -> &[JsString] {
        &self.loaded
    }

    /// `findToolForDynamicName` without a filter: `catalog.tools[name] ??
    /// Object.values(catalog.tools).find(t => t.id === name)`.
    fn find(&self, name: &JsString) -> Result<Option<&ToolValue>, String> {
        match self.catalog.get(name) {
            Lookup::Own(v) => Ok(Some(v)),
            Lookup::Inherited => Err(format!(
                "ToolSearchProcessor given {:?}, a name Object.prototype has",
                name.to_lossy()
            )),
            Lookup::Missing => Ok(self.catalog.values().into_iter().find(|v| v.id == *name)),
        }
    }

    /// The record the processor hands the step: its tools, then the
    /// step's, then each loaded one under the name it was loaded by. That
    /// name is the one Mastra then gives the tool (`options.name`), as a
    /// case tool's key: its span is `tool: 'search.web'` for a tool keyed
    /// `web` loaded by its id (observed on 1.38.0, 1.67.0 and 1.71.0, every
    /// route, `cases/toolsearch/beside-tracing-*`).
    pub(super) fn step_tools(&self) -> Result<Record<ToolValue>, String> {
        let mut tools = Record::from_entries([meta(Meta::Search), meta(Meta::Load)]);
        tools.spread_from(&self.base);
        tools.spread_from(&self.loaded_tools()?);
        Ok(tools)
    }

    /// `getLoadedTools`: each loaded name the catalog finds, keyed by it.
    fn loaded_tools(&self) -> Result<Record<ToolValue>, String> {
        let mut tools = Record::new();
        for name in &self.loaded {
            if let Some(v) = self.find(name)? {
                let named = ToolValue {
                    key: name.clone(),
                    ..v.clone()
                };
                tools.assign(name.clone(), named);
            }
        }
        Ok(tools)
    }

    /// What a call of `load_tool` with `arguments` answers, and the name it
    /// loads, if any. Covers one `toolName`; `toolNames` and arguments its
    /// schema refuses are unmodelled.
    pub(super) fn load(
        &self,
        rel: &Release,
        arguments: &Json,
    ) -> Result<(Json, Option<JsString>), String> {
        let unmodelled = || Err("load_tool called other than with one toolName".to_string());
        let Json::Object(members) = arguments else {
            return unmodelled();
        };
        let name = match (arguments.get("toolName"), members.len()) {
            (Some(Json::String(name)), 1) => name.clone(),
            _ => return unmodelled(),
        };
        let answer = |success: bool, message: JsString, named: bool| {
            let mut members = vec![
                ("success", Json::Bool(success)),
                ("message", Json::String(message)),
            ];
            if named {
                members.push(("toolName", Json::String(name.clone())));
            }
            Json::object(members)
        };
        let text = |parts: &[&JsString]| parts.iter().fold(JsString::new(), |acc, p| acc.concat(p));
        let s = |t: &str| JsString::from(t);
        if name.is_empty() {
            let message = "You must provide either toolName (string) or toolNames (array) to load.";
            return Ok((
                Json::object([
                    ("success", Json::Bool(false)),
                    ("message", Json::str(message)),
                ]),
                None,
            ));
        }
        if self.find(&name)?.is_none() {
            let suggestions = self.suggestions(&name)?;
            let tail =
                if suggestions.is_empty() {
                    s(" Use search_tools to find available tools.")
                } else {
                    let joined = suggestions.iter().take(3).enumerate().fold(
                        JsString::new(),
                        |acc, (i, n)| {
                            let sep = if i == 0 { s("") } else { s(", ") };
                            acc.concat(&sep).concat(n)
                        },
                    );
                    text(&[&s(" Did you mean: "), &joined, &s("?")])
                };
            let message = text(&[&s("Tool \""), &name, &s("\" not found."), &tail]);
            return Ok((
                answer(false, message, rel.tool_search_not_found_named),
                None,
            ));
        }
        if self.loaded.contains(&name) {
            let message = text(&[
                &s("Tool \""),
                &name,
                &s("\" is already loaded and available."),
            ]);
            return Ok((answer(true, message, true), None));
        }
        let message = text(&[
            &s("Tool \""),
            &name,
            &s("\" loaded successfully. It will be available on your next turn."),
        ]);
        Ok((answer(true, message, true), Some(name)))
    }

    /// `getSuggestedToolNames` without a filter: every key of the catalog
    /// that contains the name asked, or is contained in it, ignoring case.
    fn suggestions(&self, name: &JsString) -> Result<Vec<JsString>, String> {
        let lower = |s: &JsString| match s.to_rust() {
            Some(r) if r.is_ascii() => Ok(r.to_ascii_lowercase()),
            _ => Err("load_tool's suggestions for a name outside ASCII".to_string()),
        };
        let asked = lower(name)?;
        let mut out = Vec::new();
        for key in self.catalog.keys() {
            let k = lower(&key)?;
            if k.contains(&asked) || asked.contains(&k) {
                out.push(key);
            }
        }
        Ok(out)
    }

    /// Whether a call by `name` in a step whose record is `tools` finds one
    /// of the agent's own tools, which the processor passes through as it
    /// was given (`...stepTools`), rather than one the processor made
    /// (`search_tools`, `load_tool`) or loaded. Before
    /// `TOOL_SEARCH_TOOL_SPANS` only the former end a tool span (observed
    /// on 1.2.0, 1.5.0, 1.8.0 and 1.10.0, every route: a call of the
    /// agent's `weather` ends one, the `load_tool` and loaded-tool calls
    /// after it none; `cases/toolsearch/beside-tracing-an-agent-tool-call-*`).
    pub(super) fn passes_through(&self, tools: &Record<ToolValue>, name: &JsString) -> bool {
        let key = match tools.get(name) {
            Lookup::Own(_) => name.clone(),
            Lookup::Inherited => return false,
            Lookup::Missing => match tools.entries().into_iter().find(|(_, v)| v.id == *name) {
                Some((k, _)) => k.clone(),
                None => return false,
            },
        };
        !self.loaded.contains(&key) && matches!(self.base.get(&key), Lookup::Own(_))
    }

    /// Note a load that `load` answered.
    pub(super) fn note_loaded(&mut self, name: JsString) {
        if !self.loaded.contains(&name) {
            self.loaded.push(name);
        }
    }
}

/// The agent's own tools for a call whose processor has already loaded
/// `loaded` (in an earlier turn): from `TOOL_SEARCH_LOADED_LISTED` the
/// agent lists what its input processors loaded among its tools, each keyed
/// by the name it was loaded by and spread after the others
/// (`listInputProcessorLoadedTools`, 1.71.0 `dist/agent-BOxKOk3n.js:38446`,
/// spread at `:39910`), so `formatTools` rewrites them with the rest: a tool
/// loaded as `search.web` is then offered twice, as `search_web` through the
/// agent's tools and as `search.web` through the processor's record, and a
/// rewrite onto an agent tool's name throws (`AGENT_TOOL_NAME_COLLISION`).
/// Observed on 1.34.0 to 1.71.0, every route; before, the later turn's
/// processor alone offers it (1.2.0 to 1.33.1),
/// `cases/toolsearch/later-turn-*`.
pub(super) fn list_loaded(
    case: &Case,
    rel: &Release,
    loaded: &[JsString],
    tools: &mut Record<ToolValue>,
) -> Result<(), String> {
    let Some(search) = &case.tool_search else {
        return Ok(());
    };
    if !rel.tool_search_loaded_listed || loaded.is_empty() {
        return Ok(());
    }
    let state = SearchState::new(Record::new(), super::entries(&search.tools, false), loaded);
    tools.spread_from(&state.loaded_tools()?);
    Ok(())
}

/// Under an agent-level policy function that holds none of the case's
/// calls, the names it is asked with, one per call in order: each call's
/// name as the model sent it, `load_tool` and a loaded tool's raw name
/// alike (observed on 1.38.0, 1.67.0 and 1.71.0,
/// `cases/toolsearch/loaded-tool-runs-unapproved-*`). The run is then the
/// loop's own. Covered from `APPROVAL_POLICY_ASKED` (before, any function
/// holds the first call: not yet modelled with the processor), for a
/// `{ "names" }` policy, no tool's own `requireApproval`, no `approvals`,
/// one call per step, each finding a tool; anything else is unmodelled.
pub(super) fn policy_asked(
    case: &Case,
    rel: &Release,
    base: &Record<ToolValue>,
    loaded: &[JsString],
) -> Result<Vec<JsString>, String> {
    let unmodelled = |what: &str| Err(format!("toolSearch beside approval: {what}"));
    if answers_at_once(case) {
        return Ok(Vec::new());
    }
    let names = match &case.call.require_tool_approval {
        Some(ApprovalPolicy::Names(names)) => names,
        Some(ApprovalPolicy::Flag(false)) | None => {
            return holds_nothing(case).map(|()| Vec::new())
        }
        _ => return unmodelled("a policy other than a function"),
    };
    plain_policy(case)?;
    if !rel.approval_policy_asked_on_1x {
        return unmodelled("a function that holds every call (before APPROVAL_POLICY_ASKED)");
    }
    let catalog = case
        .tool_search
        .as_ref()
        .map(|t| super::entries(&t.tools, false));
    let mut state = SearchState::new(base.clone(), catalog.unwrap_or_default(), loaded);
    let mut asked = Vec::new();
    for reply in &case.replies {
        let Reply::ToolCalls(calls) = reply else {
            break;
        };
        let [call] = calls.as_slice() else {
            return unmodelled("a step of other than one call");
        };
        if names.contains(&call.name) {
            return unmodelled("a call the policy holds");
        }
        let tools = state.step_tools()?;
        if matches!(tools.get(&call.name), Lookup::Inherited) {
            return unmodelled("a call of an inherited name");
        }
        let Some(found) = finds(case, rel, &tools, &call.name) else {
            return unmodelled("a call that finds no tool");
        };
        if found.origin == ToolOrigin::Search(Meta::Load) {
            if let (_, Some(name)) = state.load(rel, &call.arguments)? {
                state.note_loaded(name);
            }
        }
        asked.push(call.name.clone());
    }
    Ok(asked)
}

/// Without an agent-level policy that holds (none, or `false`) and a
/// server's, no call waits where none reaches a tool with its own
/// `requireApproval`: the run is the loop's own, `approvals` answer
/// nothing and no policy is asked (observed on 1.13.2, 1.38.0, 1.67.0 and
/// 1.71.0, every route, `cases/toolsearch/answers-without-a-policy-*` and
/// `own-approval-of-a-tool-never-called-*`), as without the processor
/// (`cases/approval/answers-without-a-policy-*`). A call is taken to reach
/// such a tool when it names its key, id or wire name, so that what the
/// processor loads is covered whatever name it was loaded by.
fn holds_nothing(case: &Case) -> Result<(), String> {
    if case.sources.mcp_approval.is_some() {
        return Err("toolSearch beside approval: a server's requireToolApproval".into());
    }
    calls_no_own_approval(case)
}

/// No call names a tool with its own `requireApproval` (by its key, id or
/// wire name, so that what the processor loads is covered whatever name
/// it was loaded by): such a tool that no call reaches decides nothing.
fn calls_no_own_approval(case: &Case) -> Result<(), String> {
    let mut names = Vec::new();
    for t in case.all_tools() {
        if let Tool::Custom {
            require_approval: Some(_),
            ..
        } = t
        {
            names.push(t.key().clone());
            names.push(t.id());
            names.extend(crate::naming::wire_name(t.key()));
            names.extend(crate::naming::wire_name(&t.id()));
        }
    }
    let replies = case.replies.iter().chain(
        case.sub_agent_replies
            .iter()
            .flatten()
            .flat_map(|(_, r)| r.iter()),
    );
    for reply in replies {
        if let Reply::ToolCalls(calls) = reply {
            if calls.iter().any(|c| names.contains(&c.name)) {
                return Err(
                    "toolSearch beside approval: answers or a tool's own requireApproval".into(),
                );
            }
        }
    }
    Ok(())
}

/// What `policy_asked` and `held_first` cover under a policy: no call of
/// a tool with its own `requireApproval`. Answers decide nothing unless
/// they name a held call: under a function that holds none of the calls
/// the run is the loop's own, and a run held at a call no answer names
/// waits there (observed on 1.2.0 to 1.71.0, every route,
/// `cases/toolsearch/answers-beside-a-policy-that-holds-nothing-*` and
/// `own-approval-of-a-tool-never-called-under-a-policy-*`).
fn plain_policy(case: &Case) -> Result<(), String> {
    calls_no_own_approval(case)
}

/// Before `APPROVAL_POLICY_ASKED` a policy function is only tested for
/// truth, so it holds the first call that finds a tool, `load_tool`
/// included, and the run suspends there unanswered (observed on 1.30.0,
/// every route, `cases/toolsearch/loaded-tool-runs-unapproved-*`), as
/// `requireToolApproval: true` does on every release (observed on 1.13.2,
/// 1.67.0 and 1.71.0, every route, `cases/toolsearch/policy-true-holds-*`):
/// that call, where the first step is one such call; `None` where
/// `policy_asked` says what is asked.
pub(super) fn held_first(
    case: &Case,
    rel: &Release,
    base: &Record<ToolValue>,
    loaded: &[JsString],
) -> Result<Option<ToolCallReply>, String> {
    match case.call.require_tool_approval {
        Some(ApprovalPolicy::Flag(true)) => {}
        Some(ApprovalPolicy::Names(_)) if !rel.approval_policy_asked_on_1x => {}
        Some(ApprovalPolicy::Names(_) | ApprovalPolicy::Flag(false)) | None => return Ok(None),
    }
    plain_policy(case)?;
    let calls = match case.replies.first() {
        Some(Reply::ToolCalls(calls)) => calls,
        _ if answers_at_once(case) => return Ok(None),
        _ => return Err("toolSearch beside approval: a first reply without calls".into()),
    };
    let [call] = calls.as_slice() else {
        return Err("toolSearch beside approval: a step of other than one call".into());
    };
    let catalog = case
        .tool_search
        .as_ref()
        .map(|t| super::entries(&t.tools, false));
    let tools = SearchState::new(base.clone(), catalog.unwrap_or_default(), loaded).step_tools()?;
    if finds(case, rel, &tools, &call.name).is_none() {
        return Err("toolSearch beside approval: a first call that finds no tool".into());
    }
    if case
        .approvals
        .iter()
        .flatten()
        .any(|(id, _)| *id == call.id)
    {
        return Err("toolSearch beside approval: answers to a held call".into());
    }
    Ok(Some(call.clone()))
}

/// A first reply of text ends the loop before any call: under any policy
/// nothing is held or asked, and the run is the loop's own (observed on
/// 1.2.0, 1.11.0, 1.13.2, 1.38.0, 1.67.0 and 1.71.0, every route,
/// `cases/toolsearch/policy-*-with-a-text-reply-*`).
fn answers_at_once(case: &Case) -> bool {
    matches!(case.replies.first(), Some(Reply::Text(_)))
}

/// The tool a call of `name` finds in the step's record (by key, then by
/// id), unless `activeTools` hides it where a hidden tool is not found
/// (`HIDDEN_IS_NOT_FOUND`; fuzz seed 3 case 256 on 1.11.0 and 1.13.2, a
/// `load_tool` call beside `activeTools: []`).
fn finds(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    name: &JsString,
) -> Option<ToolValue> {
    let (key, value) = match tools.get(name) {
        Lookup::Own(v) => (name.clone(), v.clone()),
        Lookup::Inherited => return None,
        Lookup::Missing => tools
            .entries()
            .into_iter()
            .find(|(_, v)| v.id == *name)
            .map(|(k, v)| (k.clone(), v.clone()))?,
    };
    let active = case.call.active_tools.as_ref();
    let hidden = rel.hidden_is_not_found && active.is_some_and(|a| !a.contains(&key));
    (!hidden).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours(key: &str, id: &str) -> (JsString, ToolValue) {
        let value = ToolValue {
            id: JsString::from(id),
            key: JsString::from(key),
            origin: ToolOrigin::Ours,
        };
        (JsString::from(key), value)
    }

    fn rel() -> Release {
        Release::of(crate::version::spec::MastraVersion::new(1, 67, 0))
    }

    fn state() -> SearchState {
        SearchState::new(
            Record::from_entries([ours("weather", "get-weather")]),
            Record::from_entries([ours("web", "search.web")]),
            &[],
        )
    }

    fn load(s: &SearchState, name: &str) -> (String, Option<JsString>) {
        let args = Json::object([("toolName", Json::str(name))]);
        let (out, loaded) = s.load(&rel(), &args).unwrap();
        (out.to_compact(), loaded)
    }

    #[test]
    fn a_load_by_id_keys_the_tool_by_the_raw_id_after_the_steps_tools() {
        let mut s = state();
        let (out, loaded) = load(&s, "search.web");
        assert!(out.contains("loaded successfully"), "{out}");
        s.note_loaded(loaded.unwrap());
        let keys: Vec<String> = s
            .step_tools()
            .unwrap()
            .keys()
            .iter()
            .map(JsString::to_lossy)
            .collect();
        assert_eq!(keys, ["search_tools", "load_tool", "weather", "search.web"]);
        assert!(load(&s, "search.web").0.contains("already loaded"));
    }

    #[test]
    fn the_sanitised_name_is_not_found_and_a_key_it_contains_is_suggested() {
        let s = state();
        let (out, loaded) = load(&s, "search_web");
        assert_eq!(loaded, None);
        assert_eq!(
            out,
            r#"{"success":false,"message":"Tool \"search_web\" not found. Did you mean: web?","toolName":"search_web"}"#
        );
        let (out, _) = load(&s, "zzz");
        assert!(
            out.contains("Use search_tools to find available tools."),
            "{out}"
        );
    }

    /// Under `true`, or a function before or after `APPROVAL_POLICY_ASKED`,
    /// a first reply of text is answered with nothing held or asked.
    #[test]
    fn a_text_reply_first_holds_and_asks_nothing_under_any_policy() {
        use crate::model::{predict, Prediction};
        for policy in ["true", r#"{"names":["search_web"]}"#] {
            let text = format!(
                r#"{{"about":"a","tools":["weather"],
                    "toolSearch":{{"tools":[{{"key":"web","id":"search.web","description":"d"}}]}},
                    "call":{{"requireToolApproval":{policy}}},"replies":[{{"text":"done"}}]}}"#
            );
            let c = Case::parse(std::path::Path::new("cases/x.json"), &text).unwrap();
            for v in [(1, 13, 2), (1, 71, 0)] {
                let version = crate::version::spec::MastraVersion::new(v.0, v.1, v.2);
                let Prediction::Projection(p) = predict(&c, version) else {
                    panic!("{policy} on {version}: not a projection");
                };
                assert_eq!(p.requests.len(), 1, "{policy} on {version}");
                let seen = p.seen.unwrap();
                assert!(seen.asked.is_empty() && seen.pending.is_empty());
            }
        }
    }

    #[test]
    fn other_arguments_are_unmodelled() {
        let s = state();
        let both = Json::object([("toolNames", Json::Array(vec![Json::str("web")]))]);
        assert!(s.load(&rel(), &both).is_err());
        assert!(s.load(&rel(), &Json::Null).is_err());
    }
}
