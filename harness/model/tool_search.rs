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

mod bm25;

use super::record::{Lookup, Record};
use super::releases::Release;
use super::{ToolOrigin, ToolValue};
use crate::case::{Case, Tool};
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

/// What a call of `load_tool` gives (`SearchState::load`).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Load {
    /// Its answer, and the name it loaded, if any.
    Answer(Json, Option<JsString>),
    /// Its input schema refused the arguments: the report a tool's
    /// rejected arguments get, named `load_tool`.
    Refused,
}

/// The processor over one agent's steps: what it was built with and what
/// `load_tool` has loaded (its default store, one per processor).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct SearchState {
    /// The step's own tools, formatted (`stepTools`).
    base: Record<ToolValue>,
    /// The tools behind the processor, as `Object.fromEntries` built them.
    catalog: Record<ToolValue>,
    /// What `search_tools` indexes of each: its id and its description
    /// (`None`: a builtin's, not modelled).
    described: Record<(JsString, Option<JsString>)>,
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
        behind: &[Tool],
        loaded: &[JsString],
    ) -> SearchState {
        let described = behind.iter().map(|t| {
            let description = match t {
                Tool::Standard(_) => Some(JsString::from(crate::case::STANDARD_DESCRIPTION)),
                Tool::Custom { description, .. } => Some(description.clone().unwrap_or_default()),
                Tool::Builtin { .. } => None,
            };
            (t.key().clone(), (t.id(), description))
        });
        SearchState {
            base,
            catalog: super::entries(behind, false),
            described: Record::from_entries(described),
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

    /// What a call of `load_tool` with `arguments` gives: its answer and
    /// the name it loads, if any, or the refusal of its input schema. That
    /// schema is `{ toolName: string }`; from `TOOL_SEARCH_NOT_FOUND_NAMED`
    /// `{ toolName?: string, toolNames?: string[] }`, where a call without
    /// either is answered that it must give one (both read in each swept
    /// release's dist, 1.30.0 and 1.31.0 `load_tool`'s `inputSchema`).
    /// Unknown members are dropped, as zod does. On 1.11.0 every call is
    /// refused (`TOOL_SEARCH_LOAD_REFUSED`). `toolNames`, and an array on a
    /// release whose schema may take one, are unmodelled.
    pub(super) fn load(&self, rel: &Release, arguments: &Json) -> Result<Load, String> {
        let unmodelled = || Err("load_tool called other than with one toolName".to_string());
        if rel.tool_search_load_refused {
            return Ok(Load::Refused);
        }
        let optional = rel.tool_search_not_found_named;
        let name = match arguments {
            Json::Array(_) if optional => return unmodelled(),
            Json::Object(_) => match (arguments.get("toolName"), arguments.get("toolNames")) {
                (_, Some(_)) if optional => return unmodelled(),
                (Some(Json::String(name)), _) => name.clone(),
                (None, _) if optional => JsString::new(),
                _ => return Ok(Load::Refused),
            },
            _ => return Ok(Load::Refused),
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
        if name.is_empty() && optional {
            let message = "You must provide either toolName (string) or toolNames (array) to load.";
            return Ok(Load::Answer(
                Json::object([
                    ("success", Json::Bool(false)),
                    ("message", Json::str(message)),
                ]),
                None,
            ));
        }
        if self.find(&name)?.is_none() {
            let suggestions = self.suggestions(rel, &name)?;
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
            return Ok(Load::Answer(
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
            return Ok(Load::Answer(answer(true, message, true), None));
        }
        let message = text(&[
            &s("Tool \""),
            &name,
            &s("\" loaded successfully. It will be available on your next turn."),
        ]);
        Ok(Load::Answer(answer(true, message, true), Some(name)))
    }

    /// What a call of `search_tools` with `arguments` gives: its answer,
    /// or the refusal of its input schema `{ query: string }` (the same on
    /// every release with the processor), which on 1.11.0 refuses every
    /// call as `load_tool`'s does (`TOOL_SEARCH_LOAD_REFUSED`). The answer
    /// ranks the tools behind the processor by BM25 (`bm25::search`), with
    /// the message of the release (`TOOL_SEARCH_NOT_FOUND_NAMED`).
    pub(super) fn search(&self, rel: &Release, arguments: &Json) -> Result<Load, String> {
        if rel.tool_search_load_refused {
            return Ok(Load::Refused);
        }
        let query = match (arguments, arguments.get("query")) {
            (Json::Object(_), Some(Json::String(query))) => query.clone(),
            _ => return Ok(Load::Refused),
        };
        let docs = self
            .described
            .values()
            .into_iter()
            .map(|(id, description)| match description {
                Some(d) => Ok((id.clone(), d.clone())),
                None => Err("search_tools over a builtin behind the processor".to_string()),
            })
            .collect::<Result<Vec<_>, String>>()?;
        let found = bm25::search(&docs, &query)?;
        let s = |t: &str| JsString::from(t);
        let message = if found.is_empty() {
            s("No tools found matching \"")
                .concat(&query)
                .concat(&s("\". Try different keywords."))
        } else {
            let tail = if rel.tool_search_not_found_named {
                "Use load_tool with an exact toolName or a toolNames array to make them available."
            } else {
                "Use load_tool with the exact tool name to make it available."
            };
            JsString::from(format!("Found {} tool(s). {tail}", found.len()).as_str())
        };
        let results = found.into_iter().map(|f| {
            Json::object([
                ("name", Json::String(f.name)),
                ("description", Json::String(f.description)),
                ("score", f.score),
            ])
        });
        let answer = Json::object([
            ("results", Json::Array(results.collect())),
            ("message", Json::String(message)),
        ]);
        Ok(Load::Answer(answer, None))
    }

    /// `getSuggestedToolNames` without a filter: every key of the catalog
    /// that contains the name asked, or is contained in it, ignoring case.
    /// Before `TOOL_SEARCH_NOT_FOUND_NAMED` the names tried are the keys,
    /// then each id no key is (`Object.keys(allTools).concat(ids.filter(id
    /// => !allTools[id]))`, 1.30.0's `load_tool`).
    fn suggestions(&self, rel: &Release, name: &JsString) -> Result<Vec<JsString>, String> {
        let lower = bm25::lowercase;
        let mut names = self.catalog.keys();
        if !rel.tool_search_not_found_named {
            for v in self.catalog.values() {
                match self.catalog.get(&v.id) {
                    Lookup::Own(_) => {}
                    Lookup::Inherited => {
                        return Err(
                            "load_tool's suggestions beside an id Object.prototype has".into()
                        )
                    }
                    Lookup::Missing => names.push(v.id.clone()),
                }
            }
        }
        let asked = lower(name)?;
        let mut out = Vec::new();
        for key in names {
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
    let state = SearchState::new(Record::new(), &search.tools, loaded);
    tools.spread_from(&state.loaded_tools()?);
    Ok(())
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

    fn custom(key: &str, id: &str, description: &str) -> Tool {
        Tool::Custom {
            key: JsString::from(key),
            id: JsString::from(id),
            description: Some(JsString::from(description)),
            require_approval: None,
        }
    }

    fn state() -> SearchState {
        SearchState::new(
            Record::from_entries([ours("weather", "get-weather")]),
            &[custom("web", "search.web", "Search the web")],
            &[],
        )
    }

    fn load(s: &SearchState, name: &str) -> (String, Option<JsString>) {
        let args = Json::object([("toolName", Json::str(name))]);
        let Load::Answer(out, loaded) = s.load(&rel(), &args).unwrap() else {
            panic!("{name}: refused");
        };
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

    /// Two loads of one name in one step take turns on one store: the
    /// second answers "already loaded", and the next request offers the
    /// tool once (`cases/toolsearch/two-loads-in-one-step-*`).
    #[test]
    fn two_loads_in_one_step_take_turns_on_one_store() {
        use crate::model::{predict, Prediction};
        let text = r#"{"about":"a","tools":["weather"],
            "toolSearch":{"tools":[{"key":"web","id":"search.web","description":"d"}]},
            "replies":[{"toolCalls":[
                {"id":"c1","name":"load_tool","arguments":{"toolName":"search.web"}},
                {"id":"c2","name":"load_tool","arguments":{"toolName":"search.web"}}]},
              {"text":"done"}]}"#;
        let c = Case::parse(std::path::Path::new("cases/x.json"), text).unwrap();
        let Prediction::Projection(p) = predict(&c, rel().version) else {
            panic!("not a projection");
        };
        let second = &p.requests[1];
        let answers: Vec<String> = second
            .history
            .iter()
            .filter_map(|h| match h {
                crate::projection::HistoryItem::Result { content, .. } => {
                    Some(content.to_compact())
                }
                _ => None,
            })
            .collect();
        assert_eq!(answers.len(), 2, "{answers:?}");
        assert!(answers[0].contains("loaded successfully"), "{answers:?}");
        assert!(answers[1].contains("already loaded"), "{answers:?}");
        let tools: Vec<String> = second
            .tools
            .iter()
            .flatten()
            .map(JsString::to_lossy)
            .collect();
        assert_eq!(
            tools,
            ["search_tools", "load_tool", "weather", "search.web"]
        );
    }

    #[test]
    fn other_arguments_are_refused_or_unmodelled_by_release() {
        let s = state();
        let both = Json::object([("toolNames", Json::Array(vec![Json::str("web")]))]);
        assert!(s.load(&rel(), &both).is_err());
        assert_eq!(s.load(&rel(), &Json::Null), Ok(Load::Refused));
        // `{}`: told to give a name once both are optional; refused before.
        let Ok(Load::Answer(told, None)) = s.load(&rel(), &Json::Object(Vec::new())) else {
            panic!("{{}} on 1.67.0");
        };
        assert!(told.to_compact().contains("You must provide"), "{told:?}");
        let before = Release::of(crate::version::spec::MastraVersion::new(1, 30, 0));
        let empty = Json::Object(Vec::new());
        assert_eq!(s.load(&before, &empty), Ok(Load::Refused));
    }
}
