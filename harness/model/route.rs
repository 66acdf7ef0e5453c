//! What each route's bundled provider code does with what Mastra hands it:
//! `offer_on` (the body's tools and tool choice) and `call_on` / `result_on`
//! (how history carries a tool call and its result).
//!
//! In: the route, the release switches, and Mastra's own decision (the
//! formatted tool names it passes down and the `toolChoice` option). Out:
//! the projection's `tools`, `toolChoice` and history items on that route.
//! Pure. Mastra's part (formatTools, activeTools, the "none" drop of 1.19.0)
//! is the same on every route and stays in `mod.rs`; this file is the AI SDK
//! provider's `prepareTools` and prompt conversion, one arm per provider
//! API, each measured (`docs/figures/sweep.md`, `releases.rs`) and cited.

use crate::case::ToolChoice;
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::model::record::is_inherited_name;
use crate::model::releases::Release;
use crate::projection::HistoryItem;
use crate::route::{Route, Wire};

fn object(members: Vec<(&str, Json)>) -> Json {
    Json::object(members)
}

/// The body's `tools` and tool choice for Mastra's formatted `names` (never
/// empty: an empty list sends neither, on every provider) and its
/// `toolChoice` option (absent means `"auto"`).
pub fn offer_on(
    route: Route,
    rel: &Release,
    names: Vec<JsString>,
    choice: &Option<ToolChoice>,
) -> (Option<Vec<JsString>>, Option<Json>) {
    let choice = choice.clone().unwrap_or(ToolChoice::Auto);
    let route = super::releases::legacy::offering_route(rel, route);
    match route {
        // @ai-sdk/openai-compatible and @ai-sdk/groq `prepareTools`.
        Route::OpenAiCompatible | Route::Groq => {
            let c = match choice {
                ToolChoice::Auto => Json::str("auto"),
                ToolChoice::None => Json::str("none"),
                ToolChoice::Required => Json::str("required"),
                ToolChoice::Tool(name) => object(vec![
                    ("type", Json::str("function")),
                    ("function", object(vec![("name", Json::String(name))])),
                ]),
            };
            (Some(names), Some(c))
        }
        // @ai-sdk/openai's Responses `prepareResponsesTools`: a named choice
        // is `{ type: "function", name }`, flat, its name looked up in the
        // tool-name mapping first.
        Route::OpenAi => {
            let c = match choice {
                ToolChoice::Auto => Json::str("auto"),
                ToolChoice::None => Json::str("none"),
                ToolChoice::Required => Json::str("required"),
                ToolChoice::Tool(name) if is_openai_tool_type(rel, &name) => {
                    object(vec![("type", Json::String(name))])
                }
                ToolChoice::Tool(name) => {
                    let mut members = vec![("type", Json::str("function"))];
                    if let Some(n) = mapped_name(rel, &name) {
                        members.push(("name", n));
                    }
                    object(members)
                }
            };
            (Some(names), Some(c))
        }
        // @ai-sdk/anthropic `prepareTools`: "none" removes the tools and the
        // choice (Anthropic had no "none" choice), "required" is `any`.
        Route::Anthropic => {
            let c = match choice {
                ToolChoice::None => return (None, None),
                ToolChoice::Auto => object(vec![("type", Json::str("auto"))]),
                ToolChoice::Required => object(vec![("type", Json::str("any"))]),
                ToolChoice::Tool(name) => object(vec![
                    ("type", Json::str("tool")),
                    ("name", Json::String(name)),
                ]),
            };
            (Some(names), Some(c))
        }
        // @ai-sdk/google `prepareTools`: `toolConfig.functionCallingConfig`,
        // a named choice as `allowedFunctionNames`.
        Route::Google => {
            let mode = |m: &str| vec![("mode", Json::str(m))];
            let config = match choice {
                ToolChoice::Auto => mode("AUTO"),
                ToolChoice::None => mode("NONE"),
                ToolChoice::Required => mode("ANY"),
                ToolChoice::Tool(name) => {
                    let mut m = mode("ANY");
                    m.push((
                        "allowedFunctionNames",
                        Json::Array(vec![Json::String(name)]),
                    ));
                    m
                }
            };
            (
                Some(names),
                Some(object(vec![("functionCallingConfig", object(config))])),
            )
        }
        // @ai-sdk/mistral `prepareTools`: "required" is `any`, and a named
        // choice keeps only the tools whose name equals it, with `any`.
        // Mastra passes the registered key, so a rewritten key keeps none:
        // `"tools": []` (measured on 1.0.4, 1.67.0, 1.71.0).
        Route::Mistral => match choice {
            ToolChoice::Auto => (Some(names), Some(Json::str("auto"))),
            ToolChoice::None => (Some(names), Some(Json::str("none"))),
            ToolChoice::Required => (Some(names), Some(Json::str("any"))),
            ToolChoice::Tool(name) => {
                let kept = names.into_iter().filter(|n| *n == name).collect();
                (Some(kept), Some(Json::str("any")))
            }
        },
    }
}

/// Whether @ai-sdk/openai writes a choice of `name` as one of OpenAI's own
/// tool types (`{ "type": "web_search" }`) instead of a function: the names
/// of its provider-defined tools, compared with the choice's name as given
/// (1.0.4 `prepareResponsesTools`: code_interpreter, file_search,
/// image_generation, web_search_preview, web_search; with the name mapping,
/// 1.25.0 `dist/chunk-3RIGZMZ5.js:11169`, also mcp and apply_patch). Found
/// by the fuzzer on 1.71.0 (seed 1, cases 1108 and 1148).
fn is_openai_tool_type(rel: &Release, name: &JsString) -> bool {
    const ALWAYS: [&str; 5] = [
        "code_interpreter",
        "file_search",
        "image_generation",
        "web_search_preview",
        "web_search",
    ];
    const WITH_MAPPING: [&str; 2] = ["mcp", "apply_patch"];
    let is = |n: &&str| JsString::from(*n) == *name;
    if let Some(only) = super::releases::legacy::openai_tool_types(rel) {
        return only.iter().any(is);
    }
    ALWAYS.iter().any(is) || (rel.responses_name_mapping && WITH_MAPPING.iter().any(is))
}

/// A name after @ai-sdk/openai's `createToolNameMapping` lookup, as JSON
/// writes it (`None`: left out). The lookup is `map[name] ?? name` in a plain
/// object with no own keys here (ours are function tools), so only a name of
/// `Object.prototype` changes: a method is a function, which JSON leaves
/// out; `__proto__` reads the prototype itself, written `{}`.
fn mapped_name(rel: &Release, name: &JsString) -> Option<Json> {
    if !rel.responses_name_mapping || !is_inherited_name(name) {
        return Some(Json::String(name.clone()));
    }
    if *name == JsString::from("__proto__") {
        Some(object(Vec::new()))
    } else {
        None
    }
}

/// The history item of the `index`-th tool call of a step, whose name as
/// Mastra writes it back is `name`.
pub fn call_on(route: Route, rel: &Release, index: usize, name: JsString) -> HistoryItem {
    if route == Route::OpenAi && rel.responses_item_references() {
        // @ai-sdk/openai with `store` on by default sends an earlier output
        // item back by its id (the listener's `fc_N`), not by name.
        return HistoryItem::Ref(JsString::from(format!("fc_{index}").as_str()));
    }
    if route == Route::OpenAi {
        // The function_call item's name goes through the same mapping; a
        // name that is not a string reads as "" in a projection.
        return match mapped_name(rel, &name) {
            Some(Json::String(n)) => HistoryItem::Call(n),
            _ => HistoryItem::Call(JsString::new()),
        };
    }
    HistoryItem::Call(name)
}

/// What a tool result carries back: the tool's output, or Mastra's
/// not-found message.
pub enum ResultContent {
    /// The execute result, as JSON text (`{"tempC":20}`).
    Output(&'static str),
    /// An output object built for the case (a sub-agent's output, a failed
    /// validation's report): its JSON text, or on google the object.
    Object(Json),
    Message(JsString),
}

/// The history item of a result for the call `call_id` whose name as Mastra
/// writes it back is `name`.
pub fn result_on(
    route: Route,
    call_id: &JsString,
    name: &JsString,
    content: ResultContent,
) -> HistoryItem {
    if route.wire() == Wire::GenerateContent {
        // Gemini matches a functionResponse to its call by name (the call id
        // is the AI SDK's own, random), and @ai-sdk/google sends a JSON
        // output as the object itself.
        let content = match content {
            ResultContent::Output(text) => Json::parse(text).unwrap_or(Json::str(text)),
            ResultContent::Object(value) => value,
            ResultContent::Message(m) => Json::String(m),
        };
        return HistoryItem::Result {
            id: name.clone(),
            content,
        };
    }
    let content = match content {
        ResultContent::Output(text) => Json::str(text),
        ResultContent::Object(value) => Json::String(JsString::from(value.to_compact().as_str())),
        ResultContent::Message(m) => Json::String(m),
    };
    HistoryItem::Result {
        id: call_id.clone(),
        content,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel() -> Release {
        Release::of(crate::version::spec::MastraVersion::new(1, 67, 0))
    }

    fn names() -> Vec<JsString> {
        vec![JsString::from("other"), JsString::from("search_web")]
    }

    #[test]
    fn a_named_choice_on_each_route_is_the_key_as_given() {
        let named = Some(ToolChoice::Tool(JsString::from("search.web")));
        let expect = [
            (
                Route::OpenAiCompatible,
                r#"{"type":"function","function":{"name":"search.web"}}"#,
            ),
            (
                Route::Groq,
                r#"{"type":"function","function":{"name":"search.web"}}"#,
            ),
            (Route::OpenAi, r#"{"type":"function","name":"search.web"}"#),
            (Route::Anthropic, r#"{"type":"tool","name":"search.web"}"#),
            (
                Route::Google,
                r#"{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["search.web"]}}"#,
            ),
            (Route::Mistral, r#""any""#),
        ];
        for (route, choice) in expect {
            let (tools, c) = offer_on(route, &rel(), names(), &named);
            assert_eq!(c.unwrap().to_compact(), choice, "{route}");
            let kept = if route == Route::Mistral { 0 } else { 2 };
            assert_eq!(tools.unwrap().len(), kept, "{route}");
        }
    }

    #[test]
    fn mistral_keeps_the_tool_a_valid_named_choice_names() {
        let named = Some(ToolChoice::Tool(JsString::from("other")));
        let (tools, _) = offer_on(Route::Mistral, &rel(), names(), &named);
        assert_eq!(tools, Some(vec![JsString::from("other")]));
    }

    #[test]
    fn none_drops_everything_on_anthropic_only() {
        for route in Route::ALL {
            let (tools, c) = offer_on(route, &rel(), names(), &Some(ToolChoice::None));
            assert_eq!(tools.is_none(), route == Route::Anthropic, "{route}");
            assert_eq!(c.is_none(), route == Route::Anthropic, "{route}");
        }
    }

    #[test]
    fn responses_look_inherited_names_up_in_a_plain_object() {
        let named = |n: &str| Some(ToolChoice::Tool(JsString::from(n)));
        let choice = |n: &str| {
            offer_on(Route::OpenAi, &rel(), names(), &named(n))
                .1
                .unwrap()
                .to_compact()
        };
        assert_eq!(choice("constructor"), r#"{"type":"function"}"#);
        assert_eq!(choice("__proto__"), r#"{"type":"function","name":{}}"#);
        assert_eq!(
            choice("search.web"),
            r#"{"type":"function","name":"search.web"}"#
        );
        let old = Release::of(crate::version::spec::MastraVersion::new(1, 0, 4));
        let (_, c) = offer_on(Route::OpenAi, &old, names(), &named("constructor"));
        assert_eq!(
            c.unwrap().to_compact(),
            r#"{"type":"function","name":"constructor"}"#
        );
        assert_eq!(
            call_on(Route::OpenAi, &rel(), 0, JsString::from("hasOwnProperty")),
            HistoryItem::Call(JsString::new())
        );
    }
}
