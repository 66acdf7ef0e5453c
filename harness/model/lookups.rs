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
    let (method, zero) = if rel.on_0x() {
        // Before `AGENT_GET_TOOLS_SINCE` there is nothing to ask: no listing.
        if !rel.agent_get_tools {
            return Ok(Lookups {
                agent_tools: None,
                server: None,
            });
        }
        (LISTING_0X, Some(rel))
    } else {
        (LISTING_1X, None)
    };
    let agent = super::agent_tools_on(case, zero);
    let server = zero
        .is_none()
        .then(|| Some(Box::new(server(case, rel, &agent))));
    Ok(Lookups {
        agent_tools: Some(Listing::of(&case.tool_names(), method, agent.keys())),
        server,
    })
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
            .expect("asked on 1.x")
            .expect("a server")
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
