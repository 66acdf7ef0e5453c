//! `Rejection`: whether the model provider of a case's route would accept a
//! request body that Mastra sent.
//!
//! In: the route and the raw captured bodies of one case. Out: each reason
//! that route's provider would refuse one of them, in body order, naming the
//! provider and the rule. A result that is otherwise as modelled but has a
//! rejection gets its own verdict, `provider-rejects`.
//!
//! The rules are the ones tool naming can break, per provider, as each
//! provider documents them:
//! - function names (`NamePattern`): OpenAI (Chat Completions and
//!   Responses, "a-z, A-Z, 0-9, or contain underscores and dashes, with a
//!   maximum length of 64", platform.openai.com function calling; the ceiling
//!   the provider error in mastra issue 6302 quotes), Groq (OpenAI-compatible,
//!   the same rule) and Mistral (the same wording in its API's
//!   `Function.name`): `^[a-zA-Z0-9_-]{1,64}$`. Anthropic (Messages API,
//!   `tools[].name`): `^[a-zA-Z0-9_-]{1,128}$`. Gemini (generativelanguage
//!   v1beta `FunctionDeclaration.name`: "must start with a letter or an
//!   underscore; a-z, A-Z, 0-9, underscores, dots, colons and dashes, maximum
//!   length 64"): `^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$`;
//! - a named tool choice (each API's shape, `known::named_choice`) names a
//!   function the same body sends;
//! - a tool choice is only sent together with tools (OpenAI: "'tool_choice'
//!   is only allowed when 'tools' are specified"; Anthropic likewise; Gemini:
//!   "function calling config is set without function_declarations"); on
//!   Mistral, whose named choice becomes `"any"` over the matching tools, a
//!   forced choice (`"any"`, `"required"`) over an empty `tools`.
//!
//! Names are checked as UTF-16 code units, as everything else here is: a
//! lone surrogate is outside the allowed set, not a decoding error.

use crate::js::json::Json;
use crate::js::string::JsString;
use crate::judge::known::named_choice;
use crate::observation::{Captured, ParsedBody};
use crate::projection::RequestView;
use crate::route::Route;
use std::fmt;

/// The longest function name OpenAI-style providers accept.
pub const MAX_NAME: usize = 64;

/// One reason a provider would refuse a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The request it concerns, counted from 1 as the reports do.
    pub request: usize,
    /// Whose rule it is.
    pub route: Route,
    pub rule: Rule,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rule {
    /// A function name outside the provider's pattern.
    BadName(JsString),
    /// A named tool choice whose function is not in `tools`.
    ChoiceNotSent(JsString),
    /// A tool choice without tools (on Mistral: a forced one over none).
    ChoiceWithoutTools,
}

/// A provider's rule for function names, on UTF-16 code units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamePattern {
    pub max: usize,
    /// Dots and colons are allowed (Gemini).
    pub dots_and_colons: bool,
    /// The first unit must be a letter or `_` (Gemini).
    pub letter_first: bool,
}

impl NamePattern {
    pub fn of(route: Route) -> NamePattern {
        match route {
            Route::Anthropic => NamePattern {
                max: 128,
                dots_and_colons: false,
                letter_first: false,
            },
            Route::Google => NamePattern {
                max: 64,
                dots_and_colons: true,
                letter_first: true,
            },
            _ => NamePattern {
                max: MAX_NAME,
                dots_and_colons: false,
                letter_first: false,
            },
        }
    }

    pub fn accepts(&self, name: &JsString) -> bool {
        let word = |u: u16| matches!(u, 0x30..=0x39 | 0x41..=0x5A | 0x61..=0x7A | 0x5F | 0x2D);
        let first_ok = !self.letter_first
            || matches!(name.unit(0), Some(u) if matches!(u, 0x41..=0x5A | 0x61..=0x7A | 0x5F));
        (1..=self.max).contains(&name.len())
            && first_ok
            && name.all_units(|u| word(u) || (self.dots_and_colons && matches!(u, 0x2E | 0x3A)))
    }
}

impl fmt::Display for NamePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let extra = if self.dots_and_colons { ".:" } else { "" };
        if self.letter_first {
            write!(f, "^[a-zA-Z_][a-zA-Z0-9_{extra}-]{{0,{}}}$", self.max - 1)
        } else {
            write!(f, "^[a-zA-Z0-9_{extra}-]{{1,{}}}$", self.max)
        }
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.request;
        let provider = self.route.provider();
        match &self.rule {
            Rule::BadName(name) => write!(
                f,
                "request {n}: {provider}: function name {} is not {}",
                Json::String(name.clone()).to_compact(),
                NamePattern::of(self.route)
            ),
            Rule::ChoiceNotSent(name) => write!(
                f,
                "request {n}: {provider}: the tool choice names {}, which is not among the tools sent",
                Json::String(name.clone()).to_compact()
            ),
            Rule::ChoiceWithoutTools if self.route == Route::Mistral => write!(
                f,
                "request {n}: {provider}: the tool choice forces a call, but no tools are sent"
            ),
            Rule::ChoiceWithoutTools => {
                write!(f, "request {n}: {provider}: a tool choice is sent without tools")
            }
        }
    }
}

/// Whether OpenAI-style providers accept `name` as a function name.
pub fn valid_name(name: &JsString) -> bool {
    NamePattern::of(Route::OpenAiCompatible).accepts(name)
}

/// Every rejection of one body on `route` (`request` counted from 1).
pub fn check_body_on(route: Route, request: usize, body: &Json) -> Vec<Rejection> {
    let mut out = Vec::new();
    let reject = |rule| Rejection {
        request,
        route,
        rule,
    };
    let view = RequestView::on(route, body);
    let pattern = NamePattern::of(route);
    for name in view.tools.iter().flatten() {
        if !pattern.accepts(name) {
            out.push(reject(Rule::BadName(name.clone())));
        }
    }
    match &view.tool_choice {
        None | Some(Json::Null) => {}
        Some(choice) => {
            let sent_tools = view.tools.as_ref().is_some_and(|n| !n.is_empty());
            let forced = matches!(
                choice.as_str().map(JsString::to_lossy).as_deref(),
                Some("any" | "required")
            );
            if !sent_tools && (route != Route::Mistral || forced) {
                out.push(reject(Rule::ChoiceWithoutTools));
            } else if let Some(named) = named_choice(choice) {
                if !view.tools.iter().flatten().any(|n| *n == named) {
                    out.push(reject(Rule::ChoiceNotSent(named)));
                }
            }
        }
    }
    out
}

/// Every rejection of one OpenAI-compatible body.
pub fn check_body(request: usize, body: &Json) -> Vec<Rejection> {
    check_body_on(Route::OpenAiCompatible, request, body)
}

/// Every rejection of the bodies a case sent on `route`. A body that is not
/// JSON is a probe fault reported elsewhere, not a provider question.
pub fn check(route: Route, bodies: &[Captured]) -> Vec<Rejection> {
    let parsed: Vec<ParsedBody> = bodies.iter().map(Captured::json).collect();
    check_parsed(route, &parsed)
}

/// As `check`, on bodies already parsed.
pub fn check_parsed(route: Route, bodies: &[ParsedBody]) -> Vec<Rejection> {
    bodies
        .iter()
        .enumerate()
        .filter_map(|(i, b)| {
            b.as_ref()
                .ok()
                .map(|body| check_body_on(route, i + 1, body))
        })
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
                route: Route::OpenAiCompatible,
                rule: Rule::ChoiceNotSent("search.web".into())
            }]
        );
        assert_eq!(
            r[0].to_string(),
            "request 1: OpenAI-compatible (Chat Completions): the tool choice names \"search.web\", which is not among the tools sent"
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

    #[test]
    fn each_provider_has_its_own_name_rule() {
        let name = |s: &str| JsString::from(s);
        let dotted = name("search.web");
        assert!(NamePattern::of(Route::Google).accepts(&dotted));
        assert!(NamePattern::of(Route::Google).accepts(&name("ns:tool")));
        assert!(!NamePattern::of(Route::Google).accepts(&name("1tool")));
        assert!(!NamePattern::of(Route::OpenAi).accepts(&dotted));
        let long = name(&"k".repeat(100));
        assert!(NamePattern::of(Route::Anthropic).accepts(&long));
        assert!(!NamePattern::of(Route::Anthropic).accepts(&name(&"k".repeat(129))));
        assert!(!NamePattern::of(Route::Mistral).accepts(&long));
        assert_eq!(
            NamePattern::of(Route::Google).to_string(),
            "^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$"
        );
    }

    #[test]
    fn each_routes_named_choice_is_checked_in_its_own_shape() {
        let cases = [
            (
                Route::OpenAi,
                r#"{"tools":[{"type":"function","name":"search_web"}],"tool_choice":{"type":"function","name":"search.web"}}"#,
            ),
            (
                Route::Anthropic,
                r#"{"tools":[{"name":"search_web"}],"tool_choice":{"type":"tool","name":"search.web"}}"#,
            ),
            (
                Route::Google,
                r#"{"tools":[{"functionDeclarations":[{"name":"search_web"}]}],
                "toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["search.web"]}}}"#,
            ),
        ];
        for (route, b) in cases {
            let r = check_body_on(route, 1, &body(b));
            assert_eq!(r.len(), 1, "{route}");
            assert_eq!(
                r[0].rule,
                Rule::ChoiceNotSent("search.web".into()),
                "{route}"
            );
            assert!(r[0].to_string().contains(route.provider()), "{}", r[0]);
        }
    }

    #[test]
    fn mistral_rejects_a_forced_choice_over_no_tools() {
        let r = check_body_on(
            Route::Mistral,
            1,
            &body(r#"{"tools":[],"tool_choice":"any"}"#),
        );
        assert_eq!(r[0].rule, Rule::ChoiceWithoutTools);
        assert_eq!(
            r[0].to_string(),
            "request 1: Mistral: the tool choice forces a call, but no tools are sent"
        );
        assert_eq!(
            check_body_on(
                Route::Mistral,
                1,
                &body(r#"{"tools":[{"function":{"name":"a"}}],"tool_choice":"any"}"#)
            ),
            vec![]
        );
    }
}
