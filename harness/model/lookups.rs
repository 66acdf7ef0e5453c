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

use super::releases::Release;
use crate::case::Case;
use crate::projection::lookups::{Listing, Lookups};

/// The method 1.x lists an agent's tools with, and the 0.x one it replaced.
const LISTING_1X: &str = "listTools";
const LISTING_0X: &str = "getTools";

pub(super) fn predict(case: &Case, rel: &Release) -> Result<Lookups, String> {
    let (method, zero) = if rel.on_0x() {
        // Before `AGENT_GET_TOOLS_SINCE` there is nothing to ask: no listing.
        if !rel.agent_get_tools {
            return Ok(Lookups { agent_tools: None });
        }
        (LISTING_0X, Some(rel))
    } else {
        (LISTING_1X, None)
    };
    let keys = super::agent_tools_on(case, zero).keys();
    Ok(Lookups {
        agent_tools: Some(Listing::of(&case.tool_names(), method, keys)),
    })
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
}
