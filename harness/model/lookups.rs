//! The model's `lookups` (a case with `lookups: true`): what Mastra's own
//! lookups return for a case's tools, per release.
//!
//! In: a case and its release. Out: the projection's `Lookups`, or why the
//! model does not cover them. Pure.
//!
//! `agentTools`: on every 1.x `agent.listTools()` resolves to
//! `ensureToolProperties(tools)`, the agent's record assigned key by key
//! into `{}` (`agent_tools_on`), so it is keyed by the key as registered,
//! never by the id or the wire name (`formatTools` renames a copy made
//! for the request). Measured with plain Node on 1.37.1, 1.38.0, 1.67.0 and
//! 1.71.0, and by `cases/lookups/` on 1.0.4, 1.67.0 and 1.71.0.
//!
//! On 0.x the listing is `getTools()`, keyed the same way from
//! `AGENT_GET_TOOLS_SINCE` (0.9.1); before it an agent has none, and the
//! listing is `null` (the probe's call throws).
//!
//! `server` is `null` where the install has no `@mastra/server` (0.x before
//! 0.10.3, and the few cores no server's range admits: `version::extras`).
//! On 0.x its routes take a bundle's tools, which the probe passes none of,
//! as on 1.x: `GET /tools` lists nothing, `GET /tools/:toolId` finds
//! nothing, and only the agent's route finds a tool, by its id, from
//! `AGENT_TOOL_ROUTE_SINCE` (`server_on_0x`).
//!
//! `server` (1.x): `new Mastra({ agents })` registers each of an agent's
//! tools in its own record under the tool's id, in the agent's key order,
//! skipping an id the record already answers (`addTool`'s truthy check, so
//! an inherited name such as `toString` too): 1.0.4 `__registerMastra`,
//! `chunk-FKO2M32N.js:17611`. `GET /tools` lists that record; `GET
//! /tools/:toolId` finds the first tool with that id (`getToolById`), else
//! reads `record[toolId]`, which answers an inherited name with what carries
//! no id; `GET /agents/:agentId/tools/:toolId` finds the first of the
//! agent's listing with that id, and from `SERVER_FINDS_TOOL_IN_AGENTS`
//! `GET /tools/:toolId` falls back to it too. None of them finds a key or a
//! wire name that is not also an id. Measured on 1.0.4, 1.67.0 and 1.71.0
//! (`cases/lookups/server-*`, `listing-of-dynamic-tools`).

use super::record::{Lookup, Record};
use super::releases::Release;
use crate::case::Case;
use crate::js::string::JsString;
use crate::projection::lookups::{Answer, Answers, Listing, Lookups, Server};

/// The method 1.x lists an agent's tools with, and the 0.x one it replaced.
const LISTING_1X: &str = "listTools";
const LISTING_0X: &str = "getTools";

pub(super) fn predict(case: &Case, rel: &Release) -> Result<Lookups, String> {
    // Where the install has no server, nothing could be asked: `null`.
    let server = |agent: &Record<super::ToolValue>| {
        Some(rel.has_server().then(|| {
            Box::new(if rel.on_0x() {
                server_on_0x(case, rel, agent)
            } else {
                server(case, rel, agent)
            })
        }))
    };
    if rel.on_0x() {
        // Before `AGENT_GET_TOOLS_SINCE` there is nothing to ask: no listing.
        if !rel.agent_get_tools {
            return Ok(Lookups {
                agent_tools: None,
                server: Some(None),
            });
        }
        let agent = super::agent_tools_on(case, Some(rel));
        return Ok(Lookups {
            agent_tools: Some(Listing::of(&case.tool_names(), LISTING_0X, agent.keys())),
            server: server(&agent),
        });
    }
    let agent = super::agent_tools_on(case, None);
    Ok(Lookups {
        agent_tools: Some(Listing::of(&case.tool_names(), LISTING_1X, agent.keys())),
        server: server(&agent),
    })
}

/// What a 0.x server's tool routes answer: its `GET /tools` and `GET
/// /tools/:toolId` read a bundle's tools, of which there are none, so they
/// list and find nothing; `GET /agents/:agentId/tools/:toolId` finds the
/// first of the agent's listing with that id, from `AGENT_TOOL_ROUTE_SINCE`,
/// and before it is not served (404).
fn server_on_0x(case: &Case, rel: &Release, agent: &Record<super::ToolValue>) -> Server {
    let ids: Vec<&JsString> = agent.values().into_iter().map(|t| &t.id).collect();
    let tools = case.tool_names();
    // The probe asks each key, id and sent name; before `FORMAT_TOOLS_SINCE`
    // a key is sent as written, so a rewritten name is asked only where it
    // is also some tool's key or id.
    let asked = |name: &JsString| {
        rel.formats_tools || tools.iter().any(|(key, id)| key == name || id == name)
    };
    let get_tool = |name: &JsString| {
        if asked(name) {
            Answer::NotFound
        } else {
            Answer::NotAsked
        }
    };
    let get_agent_tool = |name: &JsString| {
        if !asked(name) {
            Answer::NotAsked
        } else if rel.agent_tool_route && ids.contains(&name) {
            Answer::Tool(name.clone())
        } else {
            Answer::NotFound
        }
    };
    Server {
        list_tools: Some(Vec::new()),
        get_tool: Answers::of(&tools, get_tool),
        get_agent_tool: Answers::of(&tools, get_agent_tool),
    }
}

/// What the server's tool routes answer for the case's tools, given the
/// agent's own record.
fn server(case: &Case, rel: &Release, agent: &Record<super::ToolValue>) -> Server {
    // The Mastra's record: each agent tool under its id, first come; an
    // agent whose tools are a function of the request context registers
    // none (`__registerMastra` reads an object only).
    let mut registry: Record<()> = Record::new();
    if !case.sources.dynamic_tools {
        for (_, tool) in agent.entries() {
            if !registry.get(&tool.id).is_truthy() {
                registry.assign(tool.id.clone(), ());
            }
        }
    }
    let ids: Vec<&JsString> = agent.values().into_iter().map(|t| &t.id).collect();
    let in_agent = |name: &JsString| ids.contains(&name);
    let get_tool = |name: &JsString| match registry.get(name) {
        Lookup::Own(()) => Answer::Tool(name.clone()),
        Lookup::Inherited => Answer::NoId,
        Lookup::Missing if rel.server_finds_tool_in_agents_on_1x && in_agent(name) => {
            Answer::Tool(name.clone())
        }
        Lookup::Missing => Answer::NotFound,
    };
    let get_agent_tool = |name: &JsString| {
        if in_agent(name) {
            Answer::Tool(name.clone())
        } else {
            Answer::NotFound
        }
    };
    let tools = case.tool_names();
    // An MCP tool among the agent's (a server listing none adds nothing).
    let mcp = case
        .sources
        .mcp
        .iter()
        .flatten()
        .any(|server| !server.tools.is_empty());
    let list_fails = mcp && rel.server_list_fails_on_mcp_tools_on_1x && !case.sources.dynamic_tools;
    Server {
        list_tools: (!list_fails).then(|| registry.keys()),
        get_tool: Answers::of(&tools, get_tool),
        get_agent_tool: Answers::of(&tools, get_agent_tool),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{predict as predict_case, Prediction};
    use crate::case::Case;
    use crate::js::string::JsString;
    use crate::version::spec::MastraVersion;
    use std::path::Path;

    fn case(json: &str) -> Case {
        Case::parse(Path::new("test.json"), json).unwrap()
    }

    fn keys(c: &Case, version: &str) -> Vec<String> {
        let Prediction::Projection(p) = predict_case(c, MastraVersion::parse(version).unwrap())
        else {
            panic!("no projection on {version}");
        };
        let listing = p.lookups.unwrap().agent_tools.unwrap();
        assert_eq!(listing.method, JsString::from("listTools"));
        listing.keys.iter().map(JsString::to_lossy).collect()
    }

    #[test]
    fn the_listing_holds_the_registered_keys_in_key_order_without_a_proto_key() {
        let c = case(r#"{"about":"a","tools":["b","__proto__","10","a.b"],"lookups":true}"#);
        for version in ["1.0.4", "1.71.0"] {
            assert_eq!(keys(&c, version), ["10", "b", "a.b"], "{version}");
        }
    }

    #[test]
    fn without_the_field_there_are_no_lookups_and_0x_lists_with_get_tools_from_0_9_1() {
        let without = case(r#"{"about":"a","tools":["a.b"]}"#);
        let Prediction::Projection(p) =
            predict_case(&without, MastraVersion::parse("1.67.0").unwrap())
        else {
            panic!("no projection");
        };
        assert_eq!(p.lookups, None);
        // On 0.x the listing is `getTools()`, from 0.9.1; before, none.
        let with = case(r#"{"about":"a","tools":["a.b"],"lookups":true}"#);
        let listing = |version: &str| {
            let Prediction::Projection(p) =
                predict_case(&with, MastraVersion::parse(version).unwrap())
            else {
                panic!("no projection on {version}");
            };
            p.lookups.unwrap().agent_tools
        };
        let zero = listing("0.24.9").unwrap();
        assert_eq!(zero.method, JsString::from("getTools"));
        assert_eq!(zero.keys, [JsString::from("a.b")]);
        assert_eq!(listing("0.9.1").unwrap().method, JsString::from("getTools"));
        assert_eq!(listing("0.9.0"), None);
    }

    fn server(c: &Case, version: &str) -> Box<crate::projection::lookups::Server> {
        let Prediction::Projection(p) = predict_case(c, MastraVersion::parse(version).unwrap())
        else {
            panic!("no projection on {version}");
        };
        p.lookups
            .unwrap()
            .server
            .expect("the member")
            .expect("a server")
    }

    #[test]
    fn a_0x_server_finds_by_id_on_the_agent_route_only_from_0_15_3() {
        use crate::projection::lookups::{Answer, Answers};
        let c = case(
            r#"{"about":"a","lookups":true,"tools":[
                {"key":"search.web","id":"get-weather","description":"d"}]}"#,
        );
        let lookups = |version: &str| {
            let Prediction::Projection(p) =
                predict_case(&c, MastraVersion::parse(version).unwrap())
            else {
                panic!("no projection on {version}");
            };
            p.lookups.unwrap().server.expect("the member")
        };
        // No server installed: before 0.10.3, and a core between two ranges.
        for version in ["0.9.0", "0.10.2", "0.20.0"] {
            assert_eq!(lookups(version), None, "{version}");
        }
        let found = |id: Answer, wire: Answer| Answers {
            key: Answer::NotFound,
            id,
            wire_name: Some(wire),
        };
        // Before the rewrite the key is sent as written: `search_web` is
        // never asked.
        let before = lookups("0.12.1").unwrap();
        assert_eq!(before.list_tools, Some(vec![]));
        let none = found(Answer::NotFound, Answer::NotAsked);
        assert_eq!(
            (&before.get_tool[0], &before.get_agent_tool[0]),
            (&none, &none)
        );
        let routeless = lookups("0.15.2").unwrap();
        let none = found(Answer::NotFound, Answer::NotFound);
        assert_eq!(routeless.get_agent_tool[0], none);
        let served = lookups("0.15.3").unwrap();
        assert_eq!(served.get_tool[0], none);
        assert_eq!(
            served.get_agent_tool[0],
            found(Answer::Tool("get-weather".into()), Answer::NotFound)
        );
    }

    #[test]
    fn the_server_finds_a_tool_by_its_id_alone_and_keeps_the_first_of_an_id() {
        use crate::projection::lookups::{Answer, Answers};
        let c = case(
            r#"{"about":"a","lookups":true,"tools":[
                {"key":"search.web","id":"get-weather","description":"d"},
                {"key":"b","id":"shared","description":"d"},
                {"key":"10","id":"shared","description":"d"},
                {"key":"c","id":"2","description":"d"}]}"#,
        );
        for version in ["1.0.4", "1.71.0"] {
            let s = server(&c, version);
            // Registered by id in the agent's key order: "10" first, then
            // ids in JavaScript key order ("2" an array index).
            let keys: Vec<String> = s
                .list_tools
                .unwrap()
                .iter()
                .map(JsString::to_lossy)
                .collect();
            assert_eq!(keys, ["2", "shared", "get-weather"], "{version}");
            let found = |id: &str| Answers {
                key: Answer::NotFound,
                id: Answer::Tool(id.into()),
                wire_name: Some(Answer::NotFound),
            };
            assert_eq!(s.get_tool[0], found("get-weather"), "{version}");
            assert_eq!(s.get_agent_tool[0], found("get-weather"), "{version}");
        }
    }

    #[test]
    fn an_inherited_name_answers_without_an_id_and_dynamic_tools_are_found_from_1_31_0() {
        use crate::projection::lookups::Answer;
        let c = case(
            r#"{"about":"a","lookups":true,"tools":[{"key":"constructor","id":"toString","description":"d"}]}"#,
        );
        let s = server(&c, "1.67.0");
        assert_eq!(s.list_tools, Some(vec![]));
        assert_eq!(
            (&s.get_tool[0].key, &s.get_tool[0].id),
            (&Answer::NoId, &Answer::NoId)
        );
        // The agent's own listing holds the tool, and finds it by id.
        assert_eq!(s.get_agent_tool[0].id, Answer::Tool("toString".into()));
        let dynamic = case(
            r#"{"about":"a","lookups":true,"tools":[{"key":"w","id":"weather","description":"d"}],"dynamicTools":true}"#,
        );
        assert_eq!(server(&dynamic, "1.30.0").get_tool[0].id, Answer::NotFound);
        assert_eq!(
            server(&dynamic, "1.31.0").get_tool[0].id,
            Answer::Tool("weather".into())
        );
        assert_eq!(server(&dynamic, "1.31.0").list_tools, Some(vec![]));
    }
}
