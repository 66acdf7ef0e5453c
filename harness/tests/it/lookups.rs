//! `lookups` end to end: the real probe asks a real agent's own tool
//! listing on three 1.x releases, and the model's prediction agrees
//! (docs/case-format.md, `lookups`).

use crate::common::{bin, observed, root, text};
use mastra_conform::js::json::Json;

/// What `observe` gives for CASE on VERSION: its projection's `lookups`.
fn observed_lookups(version: &str, case: &str) -> Json {
    let p = observed(version, case);
    p.get("lookups")
        .cloned()
        .unwrap_or_else(|| panic!("{version} {case}: no lookups in {}", p.to_compact()))
}

/// `agent.listTools()` finds the key, not the id and not the wire name,
/// on the oldest, a middle and the newest release measured.
#[test]
fn the_agent_listing_is_keyed_by_the_key_as_registered() {
    let want = Json::parse(
        r#"{"agentTools":{"method":"listTools","keys":["search.web"],
            "finds":[{"key":true,"id":false,"wireName":false}]}}"#,
    )
    .unwrap();
    for version in ["1.0.4", "1.67.0", "1.71.0"] {
        let got = observed_lookups(version, "cases/lookups/listing-keyed-by-the-key.json");
        assert_eq!(got.get("agentTools"), want.get("agentTools"), "{version}");
    }
}

/// The routes `mastra dev` serves, called in process on the release's own
/// `@mastra/server`: `GET /tools/:toolId` and `GET
/// /agents/:agentId/tools/:toolId` find `search.web` by its id
/// `get-weather` alone, never by the key nor by `search_web`, the name the
/// model is sent; `GET /tools` is keyed by the ids.
#[test]
fn the_servers_tool_routes_find_the_id_alone() {
    let want = Json::parse(
        r#"{"listTools":{"keys":["get-weather","plain","x.y"]},
            "getTool":[{"key":false,"id":"get-weather","wireName":false},
                       {"key":"plain","id":"plain","wireName":"plain"},
                       {"key":false,"id":"x.y","wireName":false}],
            "getAgentTool":[{"key":false,"id":"get-weather","wireName":false},
                            {"key":"plain","id":"plain","wireName":"plain"},
                            {"key":false,"id":"x.y","wireName":false}]}"#,
    )
    .unwrap();
    for version in ["1.0.4", "1.67.0", "1.71.0"] {
        let got = observed_lookups(version, "cases/lookups/server-finds-the-id.json");
        assert_eq!(got.get("server"), Some(&want), "{version}");
    }
}

/// On 0.x the server's routes read a bundle's tools, never the agents', so
/// `GET /tools` lists nothing and `GET /tools/:toolId` finds nothing; the
/// agent's route finds the id on 0.24.9 and is not served on 0.12.1 (404
/// for every name), whose keys are sent as written, so `search_web` is
/// never asked there (`null`).
#[test]
fn a_0x_server_finds_the_id_on_the_agent_route_alone() {
    let nothing = r#"[{"key":false,"id":false,"wireName":false},
                      {"key":false,"id":false,"wireName":false},
                      {"key":false,"id":false,"wireName":false}]"#;
    let want = |get_tool: &str, get_agent_tool: &str| {
        Json::parse(&format!(
            r#"{{"listTools":{{"keys":[]}},"getTool":{get_tool},"getAgentTool":{get_agent_tool}}}"#
        ))
        .unwrap()
    };
    let unsent = r#"[{"key":false,"id":false,"wireName":null},
                     {"key":false,"id":false,"wireName":false},
                     {"key":false,"id":false,"wireName":null}]"#;
    let by_id = r#"[{"key":false,"id":"get-weather","wireName":false},
                    {"key":"plain","id":"plain","wireName":"plain"},
                    {"key":false,"id":"x.y","wireName":false}]"#;
    for (version, want) in [
        ("0.12.1", want(unsent, unsent)),
        ("0.24.9", want(nothing, by_id)),
    ] {
        let got = observed_lookups(version, "cases/lookups/server-finds-the-id.json");
        assert_eq!(got.get("server"), Some(&want), "{version}");
    }
}

/// Every case of `cases/lookups/` agrees with the model on the three
/// releases: each as modelled, as modelled and a known issue, or not
/// applicable (a builtin 1.0.4 lacks); every applicable one has `lookups`.
#[test]
fn the_lookups_cases_agree_with_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let out = bin()
        .args(["run", "--cases"])
        .arg(root().join("cases/lookups"))
        .args(["--versions", "1.0.4,1.67.0,1.71.0", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report = Json::parse(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let results = report.get("results").and_then(Json::as_array).unwrap();
    assert!(results.len() >= 3 * 12, "{} results", results.len());
    for r in results {
        let verdict = r.get("verdict").and_then(Json::as_str).unwrap().to_lossy();
        assert!(
            ["as-modelled", "known-issue", "not-applicable"].contains(&verdict.as_str()),
            "{verdict}: {r:?}"
        );
        if verdict == "not-applicable" {
            continue;
        }
        let observed = r.get("observed").unwrap();
        assert!(
            observed.get("lookups").is_some_and(|l| !l.is_null()),
            "no lookups: {r:?}"
        );
        // Every release here is a 1.x one with its `@mastra/server`.
        let server = observed.get("lookups").and_then(|l| l.get("server"));
        assert!(
            server.is_some_and(|s| s.get("getTool").is_some()),
            "no server routes: {r:?}"
        );
    }
}
