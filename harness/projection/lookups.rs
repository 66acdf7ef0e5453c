//! `Lookups`: the projection's `lookups` (a case with `lookups: true`),
//! which of each case tool's key, id and wire name Mastra's own lookups
//! find (`docs/case-format.md`).
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
        Json::object([(
            "agentTools",
            self.agent_tools
                .as_ref()
                .map_or(Json::Null, Listing::to_json),
        )])
    }

    /// Read `lookups` as `to_json` writes it.
    pub fn from_json(v: &Json) -> Result<Lookups, String> {
        let agent_tools = match v.get("agentTools") {
            None | Some(Json::Null) => None,
            Some(l) => Some(Listing::from_json(l)?),
        };
        Ok(Lookups { agent_tools })
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
        Ok(Lookups { agent_tools })
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
            let l = Lookups { agent_tools };
            assert_eq!(Lookups::from_json(&l.to_json()), Ok(l));
        }
    }
}
