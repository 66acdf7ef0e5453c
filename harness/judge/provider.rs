//! `Rejection`: whether a model provider would accept a request body that
//! Mastra sent.
//!
//! In: the raw captured bodies of one case. Out: each reason a provider would
//! refuse one of them, in body order. A result that is otherwise as modelled
//! but has a rejection gets its own verdict, `provider-rejects`.
//!
//! The rules are the ones OpenAI-compatible providers enforce and that tool
//! naming can break:
//! - every `tools[].function.name` matches `^[a-zA-Z0-9_-]{1,64}$` (the
//!   ceiling is the figure the provider error in mastra issue 6302 quotes);
//! - a named `tool_choice` (`{"type":"function","function":{"name":N}}`)
//!   names a function the same body sends;
//! - a `tool_choice` is only sent together with `tools` (OpenAI: "'tool_choice'
//!   is only allowed when 'tools' are specified").
//!
//! Names are checked as UTF-16 code units, as everything else here is: a
//! lone surrogate is outside the allowed set, not a decoding error.

use crate::js::json::Json;
use crate::js::string::JsString;
use crate::observation::Captured;
use std::fmt;

/// The longest function name providers accept.
pub const MAX_NAME: usize = 64;

/// One reason a provider would refuse a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The request it concerns, counted from 1 as the reports do.
    pub request: usize,
    pub rule: Rule,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rule {
    /// A function name outside `^[a-zA-Z0-9_-]{1,64}$`.
    BadName(JsString),
    /// A named `tool_choice` whose function is not in `tools`.
    ChoiceNotSent(JsString),
    /// A `tool_choice` without `tools`.
    ChoiceWithoutTools,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.request;
        match &self.rule {
            Rule::BadName(name) => write!(
                f,
                "request {n}: function name {} is not ^[a-zA-Z0-9_-]{{1,{MAX_NAME}}}$",
                Json::String(name.clone()).to_compact()
            ),
            Rule::ChoiceNotSent(name) => write!(
                f,
                "request {n}: tool_choice names {}, which is not among the tools sent",
                Json::String(name.clone()).to_compact()
            ),
            Rule::ChoiceWithoutTools => write!(f, "request {n}: tool_choice is sent without tools"),
        }
    }
}

/// Whether a provider accepts `name` as a function name.
pub fn valid_name(name: &JsString) -> bool {
    (1..=MAX_NAME).contains(&name.len())
        && name.all_units(|u| matches!(u, 0x30..=0x39 | 0x41..=0x5A | 0x61..=0x7A | 0x5F | 0x2D))
}

/// Every rejection of one body (`request` counted from 1).
pub fn check_body(request: usize, body: &Json) -> Vec<Rejection> {
    let mut out = Vec::new();
    let reject = |rule| Rejection { request, rule };
    let names: Option<Vec<JsString>> = body.get("tools").and_then(Json::as_array).map(|tools| {
        tools
            .iter()
            .filter_map(|t| {
                t.get("function")
                    .and_then(|f| f.get("name"))
                    .and_then(Json::as_str)
                    .cloned()
            })
            .collect()
    });
    for name in names.iter().flatten() {
        if !valid_name(name) {
            out.push(reject(Rule::BadName(name.clone())));
        }
    }
    match body.get("tool_choice") {
        None | Some(Json::Null) => {}
        Some(choice) => {
            let sent_tools = names.as_ref().is_some_and(|n| !n.is_empty());
            if !sent_tools {
                out.push(reject(Rule::ChoiceWithoutTools));
            } else if let Some(named) = choice
                .get("function")
                .and_then(|f| f.get("name"))
                .and_then(Json::as_str)
            {
                if !names.iter().flatten().any(|n| n == named) {
                    out.push(reject(Rule::ChoiceNotSent(named.clone())));
                }
            }
        }
    }
    out
}

/// Every rejection of the bodies a case sent. A body that is not JSON is a
/// probe fault reported elsewhere, not a provider question.
pub fn check(bodies: &[Captured]) -> Vec<Rejection> {
    bodies
        .iter()
        .enumerate()
        .filter_map(|(i, b)| b.json().ok().map(|body| check_body(i + 1, &body)))
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(text: &str) -> Json {
        Json::parse(text).unwrap()
    }

    #[test]
    fn names_follow_the_provider_pattern() {
        for ok in ["a", "search_web", "get-weather", "_x", "9", &"k".repeat(64)] {
            assert!(valid_name(&JsString::from(ok)), "{ok}");
        }
        for bad in ["", "search.web", "a b", "é", &"k".repeat(65)] {
            assert!(!valid_name(&JsString::from(bad)), "{bad}");
        }
        assert!(
            !valid_name(&JsString::from_units(vec![0x61, 0xD800])),
            "a lone surrogate"
        );
    }

    #[test]
    fn the_reports_toolchoice_body_is_rejected() {
        let b = body(
            r#"{"tools":[{"type":"function","function":{"name":"search_web"}}],
                "tool_choice":{"type":"function","function":{"name":"search.web"}}}"#,
        );
        let r = check_body(1, &b);
        assert_eq!(
            r,
            vec![Rejection {
                request: 1,
                rule: Rule::ChoiceNotSent("search.web".into())
            }]
        );
        assert_eq!(
            r[0].to_string(),
            "request 1: tool_choice names \"search.web\", which is not among the tools sent"
        );
    }

    #[test]
    fn accepted_bodies_have_no_rejection() {
        for ok in [
            r#"{"tools":[{"type":"function","function":{"name":"search_web"}}],"tool_choice":"auto"}"#,
            r#"{"tools":[{"type":"function","function":{"name":"s"}}],
                "tool_choice":{"type":"function","function":{"name":"s"}}}"#,
            r#"{"messages":[]}"#,
        ] {
            assert_eq!(check_body(1, &body(ok)), vec![], "{ok}");
        }
    }

    #[test]
    fn a_choice_without_tools_and_bad_names_are_each_reported() {
        assert_eq!(
            check_body(2, &body(r#"{"tool_choice":"none"}"#))[0].rule,
            Rule::ChoiceWithoutTools
        );
        let long = "k".repeat(65);
        let b = body(&format!(
            r#"{{"tools":[{{"function":{{"name":"{long}"}}}},{{"function":{{"name":"a.b"}}}}]}}"#
        ));
        let rules: Vec<Rule> = check_body(1, &b).into_iter().map(|r| r.rule).collect();
        assert_eq!(
            rules,
            vec![
                Rule::BadName(long.as_str().into()),
                Rule::BadName("a.b".into())
            ]
        );
    }
}
