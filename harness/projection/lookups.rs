//! `Lookups`: the projection's `lookups` (a case with `lookups: true`),
//! which of each case tool's key, id and wire name Mastra's own lookups
//! find (`docs/case-format.md`): the agent's listing, and on 1.x the tool
//! routes of `@mastra/server` (`Server`).
//!
//! In: the key and id of each of the case's tools (`Case::tool_names`) and
//! what a lookup returned (the listing's keys, predicted by the model or
//! answered by the probe). Out: the `lookups` member, and back. Pure; both
//! sides build theirs with `Listing::of`, so the finds are computed one way
//! and the comparison is about what each lookup returned.

use crate::js::json::Json;
use crate::js::string::JsString;

/// The projection's `lookups`.
#[derive(Debug, Clone, PartialEq)]
pub struct Lookups {
    /// `agentTools`: the agent's own listing; `None` (written `null`) where
    /// there was no agent to ask or asking threw.
    pub agent_tools: Option<Listing>,
    /// `server`: the server's tool routes, asked on 1.x only (`None`: the
    /// member is absent); `Some(None)` (written `null`) where the install
    /// has no `@mastra/server` or no agent could be built to ask about.
    /// Boxed: most projections have no lookups, and each is held per result.
    pub server: Option<Option<Box<Server>>>,
}

/// What the tool routes of `@mastra/server` answered, asked in process as
/// `mastra dev` serves them.
#[derive(Debug, Clone, PartialEq)]
pub struct Server {
    /// `GET /tools`: the keys of its answer, in order; `None` (written
    /// `null`) where it failed.
    pub list_tools: Option<Vec<JsString>>,
    /// `GET /tools/:toolId`, one entry per case tool, in order.
    pub get_tool: Vec<Answers>,
    /// `GET /agents/:agentId/tools/:toolId`, the same way.
    pub get_agent_tool: Vec<Answers>,
}

/// What one route answered for one tool's key, id and wire name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answers {
    pub key: Answer,
    pub id: Answer,
    /// `None` where the key has no wire name (the empty key).
    pub wire_name: Option<Answer>,
}

/// What a route answered for one name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A tool, with the id it carries (written as that string).
    Tool(JsString),
    /// Something that carries no string id (written `true`): what a plain
    /// object's inherited property is, when a route reads `tools[name]`.
    NoId,
    /// A 404 (written `false`).
    NotFound,
    /// Any other failure, by its HTTP status (written as the number).
    Failed(u32),
    /// The name was not asked (written `null`): the probe asks each key, id
    /// and the name the release's own `formatTools` gives, so a wire name
    /// the release does not give was never asked.
    NotAsked,
}

impl Answer {
    fn to_json(&self) -> Json {
        match self {
            Answer::Tool(id) => Json::String(id.clone()),
            Answer::NoId => Json::Bool(true),
            Answer::NotFound => Json::Bool(false),
            Answer::Failed(status) => Json::Number(status.to_string()),
            Answer::NotAsked => Json::Null,
        }
    }

    fn from_json(v: &Json) -> Result<Answer, String> {
        Ok(match v {
            Json::String(id) => Answer::Tool(id.clone()),
            Json::Bool(true) => Answer::NoId,
            Json::Bool(false) => Answer::NotFound,
            Json::Null => Answer::NotAsked,
            Json::Number(n) => Answer::Failed(
                n.parse()
                    .map_err(|_| format!("lookups: a route's status is {n}"))?,
            ),
            other => return Err(format!("lookups: a route's answer is {other:?}")),
        })
    }
}

impl Answers {
    /// One route's answers for each case tool, asked by `answer`.
    pub fn of(tools: &[ToolNames], mut answer: impl FnMut(&JsString) -> Answer) -> Vec<Answers> {
        tools
            .iter()
            .map(|(key, id)| Answers {
                key: answer(key),
                id: answer(id),
                wire_name: crate::naming::wire_name(key).map(|w| answer(&w)),
            })
            .collect()
    }

    fn to_json(&self) -> Json {
        Json::object([
            ("key", self.key.to_json()),
            ("id", self.id.to_json()),
            (
                "wireName",
                self.wire_name.as_ref().map_or(Json::Null, Answer::to_json),
            ),
        ])
    }

    fn from_json(v: &Json) -> Result<Answers, String> {
        let at = |name: &str| {
            v.get(name)
                .map_or(Err(format!("lookups: an answer lacks `{name}`")), |a| {
                    Answer::from_json(a)
                })
        };
        let wire_name = match v.get("wireName") {
            None | Some(Json::Null) => None,
            Some(a) => Some(Answer::from_json(a)?),
        };
        Ok(Answers {
            key: at("key")?,
            id: at("id")?,
            wire_name,
        })
    }
}

impl Server {
    fn to_json(&self) -> Json {
        let answers = |a: &[Answers]| Json::Array(a.iter().map(Answers::to_json).collect());
        Json::object([
            (
                "listTools",
                self.list_tools.as_ref().map_or(Json::Null, |keys| {
                    Json::object([(
                        "keys",
                        Json::Array(keys.iter().cloned().map(Json::String).collect()),
                    )])
                }),
            ),
            ("getTool", answers(&self.get_tool)),
            ("getAgentTool", answers(&self.get_agent_tool)),
        ])
    }

    fn from_json(v: &Json) -> Result<Server, String> {
        let list_tools = match v.get("listTools") {
            None | Some(Json::Null) => None,
            Some(l) => Some(
                strings(l.get("keys")).ok_or("lookups: `server.listTools.keys` are not strings")?,
            ),
        };
        let answers = |name: &str| -> Result<Vec<Answers>, String> {
            v.get(name)
                .and_then(Json::as_array)
                .ok_or(format!("lookups: `server.{name}` is not an array"))?
                .iter()
                .map(Answers::from_json)
                .collect()
        };
        Ok(Server {
            list_tools,
            get_tool: answers("getTool")?,
            get_agent_tool: answers("getAgentTool")?,
        })
    }

    /// The probe's answer (`{ listTools: { keys } | null, getTool: { NAME:
    /// ANSWER }, getAgentTool: { NAME: ANSWER } }`), judged against the
    /// case's tools: a name the probe did not ask is `NotAsked`.
    fn observed(tools: &[ToolNames], v: &Json) -> Result<Server, String> {
        let list_tools = match v.get("listTools") {
            None | Some(Json::Null) => None,
            Some(l) => Some(
                strings(l.get("keys"))
                    .ok_or("the probe's lookups: `server.listTools.keys` are not strings")?,
            ),
        };
        let asked = |name: &str| -> Result<Vec<Answers>, String> {
            let map = match v.get(name) {
                Some(Json::Object(map)) => map,
                _ => {
                    return Err(format!(
                        "the probe's lookups: `server.{name}` is not an object"
                    ))
                }
            };
            let mut bad = None;
            let answers = Answers::of(tools, |n| {
                match map
                    .iter()
                    .find(|(k, _)| k == n)
                    .map(|(_, a)| Answer::from_json(a))
                {
                    None => Answer::NotAsked,
                    Some(Ok(a)) => a,
                    Some(Err(e)) => {
                        bad.get_or_insert(e);
                        Answer::NotAsked
                    }
                }
            });
            bad.map_or(Ok(answers), Err)
        };
        Ok(Server {
            list_tools,
            get_tool: asked("getTool")?,
            get_agent_tool: asked("getAgentTool")?,
        })
    }
}

/// What one listing returned and what of each case tool it finds.
#[derive(Debug, Clone, PartialEq)]
pub struct Listing {
    /// The method asked: `listTools` on 1.x, `getTools` before it existed.
    pub method: JsString,
    /// `Object.keys` of what it returned, in order.
    pub keys: Vec<JsString>,
    /// One entry per tool of the case's `tools`, in the case's order.
    pub finds: Vec<Finds>,
}

/// Which names of one tool are among a listing's own keys. A name is
/// found by being an own key, not by `listing[name]` being truthy: every
/// plain object answers `listing["toString"]`, which finds no tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finds {
    pub key: bool,
    pub id: bool,
    /// `None` where the key has no wire name (the empty key, on which
    /// `formatTools` throws).
    pub wire_name: Option<bool>,
}

/// A case tool's key and the id its tool object carries.
pub type ToolNames = (JsString, JsString);

impl Listing {
    /// The listing `method` returned as `keys`, judged against each of the
    /// case's tools.
    pub fn of(tools: &[ToolNames], method: &str, keys: Vec<JsString>) -> Listing {
        let finds = tools
            .iter()
            .map(|(key, id)| Finds {
                key: keys.contains(key),
                id: keys.contains(id),
                wire_name: crate::naming::wire_name(key).map(|w| keys.contains(&w)),
            })
            .collect();
        Listing {
            method: JsString::from(method),
            keys,
            finds,
        }
    }

    fn to_json(&self) -> Json {
        let finds = self.finds.iter().map(|f| {
            Json::object([
                ("key", Json::Bool(f.key)),
                ("id", Json::Bool(f.id)),
                ("wireName", f.wire_name.map_or(Json::Null, Json::Bool)),
            ])
        });
        Json::object([
            ("method", Json::String(self.method.clone())),
            (
                "keys",
                Json::Array(self.keys.iter().cloned().map(Json::String).collect()),
            ),
            ("finds", Json::Array(finds.collect())),
        ])
    }

    fn from_json(v: &Json) -> Result<Listing, String> {
        let method = v
            .get("method")
            .and_then(Json::as_str)
            .cloned()
            .ok_or("lookups: a listing's `method` is not a string")?;
        let keys = strings(v.get("keys")).ok_or("lookups: a listing's `keys` are not strings")?;
        let flag = |f: &Json, name: &str| f.get(name).and_then(Json::as_bool);
        let finds = v
            .get("finds")
            .and_then(Json::as_array)
            .ok_or("lookups: a listing's `finds` is not an array")?
            .iter()
            .map(|f| {
                Some(Finds {
                    key: flag(f, "key")?,
                    id: flag(f, "id")?,
                    wire_name: flag(f, "wireName"),
                })
            })
            .collect::<Option<Vec<_>>>()
            .ok_or("lookups: a `finds` entry lacks `key` or `id`")?;
        Ok(Listing {
            method,
            keys,
            finds,
        })
    }
}

fn strings(v: Option<&Json>) -> Option<Vec<JsString>> {
    v?.as_array()?.iter().map(|k| k.as_str().cloned()).collect()
}

impl Lookups {
    pub fn to_json(&self) -> Json {
        let agent_tools = self
            .agent_tools
            .as_ref()
            .map_or(Json::Null, Listing::to_json);
        match &self.server {
            None => Json::object([("agentTools", agent_tools)]),
            Some(server) => Json::object([
                ("agentTools", agent_tools),
                (
                    "server",
                    server.as_deref().map_or(Json::Null, Server::to_json),
                ),
            ]),
        }
    }

    /// Read `lookups` as `to_json` writes it.
    pub fn from_json(v: &Json) -> Result<Lookups, String> {
        let agent_tools = match v.get("agentTools") {
            None | Some(Json::Null) => None,
            Some(l) => Some(Listing::from_json(l)?),
        };
        let server = match v.get("server") {
            None => None,
            Some(Json::Null) => Some(None),
            Some(s) => Some(Some(Box::new(Server::from_json(s)?))),
        };
        Ok(Lookups {
            agent_tools,
            server,
        })
    }

    /// The probe's answer (`{ agentTools: { method, keys } | null }`),
    /// judged against the case's tools.
    pub fn observed(tools: &[ToolNames], v: &Json) -> Result<Lookups, String> {
        let agent_tools = match v.get("agentTools") {
            None | Some(Json::Null) => None,
            Some(l) => {
                let method = l
                    .get("method")
                    .and_then(Json::as_str)
                    .ok_or("the probe's lookups: `agentTools.method` is not a string")?;
                let keys = strings(l.get("keys"))
                    .ok_or("the probe's lookups: `agentTools.keys` are not strings")?;
                Some(Listing::of(tools, &method.to_lossy(), keys))
            }
        };
        let server = match v.get("server") {
            None => None,
            Some(Json::Null) => Some(None),
            Some(s) => Some(Some(Box::new(Server::observed(tools, s)?))),
        };
        Ok(Lookups {
            agent_tools,
            server,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools(names: &[(&str, &str)]) -> Vec<ToolNames> {
        names
            .iter()
            .map(|(k, i)| ((*k).into(), (*i).into()))
            .collect()
    }

    #[test]
    fn a_listing_keyed_by_the_key_finds_the_key_and_not_the_id_or_the_wire_name() {
        let t = tools(&[("search.web", "get-weather"), ("b", "b")]);
        let l = Listing::of(&t, "listTools", vec!["search.web".into(), "b".into()]);
        let finds = |key, id, wire| Finds {
            key,
            id,
            wire_name: Some(wire),
        };
        assert_eq!(
            l.finds,
            vec![finds(true, false, false), finds(true, true, true)]
        );
    }

    #[test]
    fn an_inherited_name_is_not_found_and_the_empty_key_has_no_wire_name() {
        let t = tools(&[("toString", "get-weather"), ("", "get-weather")]);
        let l = Listing::of(&t, "listTools", vec![]);
        let none = Finds {
            key: false,
            id: false,
            wire_name: Some(false),
        };
        assert_eq!(l.finds[0], none);
        assert_eq!(l.finds[1].wire_name, None);
    }

    #[test]
    fn lookups_read_back_as_written() {
        let t = tools(&[("search.web", "get-weather")]);
        for agent_tools in [
            None,
            Some(Listing::of(&t, "listTools", vec!["search.web".into()])),
        ] {
            let l = Lookups {
                agent_tools,
                server: None,
            };
            assert_eq!(Lookups::from_json(&l.to_json()), Ok(l));
        }
        let answers = Answers::of(&t, |n| match n.to_lossy().as_str() {
            "get-weather" => Answer::Tool(n.clone()),
            "search.web" => Answer::Failed(500),
            "search_web" => Answer::NoId,
            _ => Answer::NotFound,
        });
        for server in [
            None,
            Some(None),
            Some(Some(Box::new(Server {
                list_tools: Some(vec!["get-weather".into()]),
                get_tool: answers.clone(),
                get_agent_tool: answers,
            }))),
        ] {
            let l = Lookups {
                agent_tools: None,
                server,
            };
            assert_eq!(Lookups::from_json(&l.to_json()), Ok(l));
        }
    }

    #[test]
    fn the_probes_answers_are_read_by_name_and_a_name_it_did_not_ask_is_said() {
        let t = tools(&[("search.web", "get-weather")]);
        let probe = Json::parse(
            r#"{"listTools":{"keys":["get-weather"]},
                "getTool":{"search.web":false,"get-weather":"get-weather"},
                "getAgentTool":{"search.web":404,"get-weather":true,"search_web":false}}"#,
        )
        .unwrap();
        let s = Server::observed(&t, &probe).unwrap();
        assert_eq!(
            s.get_tool,
            [Answers {
                key: Answer::NotFound,
                id: Answer::Tool("get-weather".into()),
                wire_name: Some(Answer::NotAsked),
            }]
        );
        assert_eq!(
            s.get_agent_tool,
            [Answers {
                key: Answer::Failed(404),
                id: Answer::NoId,
                wire_name: Some(Answer::NotFound),
            }]
        );
        let bad =
            Json::parse(r#"{"listTools":null,"getTool":{"search.web":"x"},"getAgentTool":[]}"#)
                .unwrap();
        assert!(Server::observed(&t, &bad).is_err());
    }
}
