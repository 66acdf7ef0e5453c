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

use super::releases::Release;
use crate::case::Case;
use crate::projection::lookups::{Listing, Lookups};

/// The method 1.x lists an agent's tools with (0.x's was `getTools`).
const LISTING_1X: &str = "listTools";

pub(super) fn predict(case: &Case, rel: &Release) -> Result<Lookups, String> {
    if rel.on_0x() {
        return Err("lookups on 0.x (`getTools`) were not measured".into());
    }
    let keys = super::agent_tools_on(case, None).keys();
    Ok(Lookups {
        agent_tools: Some(Listing::of(&case.tool_names(), LISTING_1X, keys)),
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
    fn without_the_field_there_are_no_lookups_and_on_0x_they_are_unmodelled() {
        let without = case(r#"{"about":"a","tools":["a.b"]}"#);
        let Prediction::Projection(p) =
            predict_case(&without, MastraVersion::parse("1.67.0").unwrap())
        else {
            panic!("no projection");
        };
        assert_eq!(p.lookups, None);
        let with = case(r#"{"about":"a","tools":["a.b"],"lookups":true}"#);
        let on_0x = predict_case(&with, MastraVersion::parse("0.24.9").unwrap());
        assert!(matches!(on_0x, Prediction::Unmodelled(_)), "{on_0x:?}");
    }
}
