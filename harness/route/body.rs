//! Reading a captured request body on a route: `RequestView::on(route, body)`,
//! what tool naming decides about it (`shared/case-format.md`, "A
//! projection").
//!
//! In: the case's `Route` and the body as captured. Out: the tool names in
//! body order, the tool choice verbatim, and the history of tool calls and
//! results. Pure. Each provider API writes these in its own place:
//!
//! | wire | tools | choice | a call | a result |
//! |---|---|---|---|---|
//! | Chat Completions | `tools[].function.name` | `tool_choice` | assistant `tool_calls[].function.name` | `tool` message: `tool_call_id`, `content` |
//! | Responses | `tools[].name` | `tool_choice` | `function_call` item's `name`; an `item_reference` by its `id` | `function_call_output`: `call_id`, `output` |
//! | Messages | `tools[].name` | `tool_choice` | `tool_use` block's `name` | `tool_result` block: `tool_use_id`, `content` |
//! | Gemini | `tools[].functionDeclarations[].name`, flattened | `toolConfig` | `functionCall.name` | `functionResponse`: its `name` (Gemini has no call id of ours), `response.content` |

use crate::js::json::Json;
use crate::js::string::JsString;
use crate::projection::{HistoryItem, RequestView};
use crate::route::{Route, Wire};

impl RequestView {
    /// What tool naming decides about one body captured on `route`.
    pub fn on(route: Route, body: &Json) -> RequestView {
        match route.wire() {
            Wire::ChatCompletions => RequestView::from_body(body),
            Wire::Responses => RequestView {
                tools: names(body.get("tools"), |t| t.get("name")),
                tool_choice: body.get("tool_choice").cloned(),
                history: responses_history(body),
            },
            Wire::Messages => RequestView {
                tools: names(body.get("tools"), |t| t.get("name")),
                tool_choice: body.get("tool_choice").cloned(),
                history: messages_history(body),
            },
            Wire::GenerateContent => RequestView {
                tools: gemini_tools(body.get("tools")),
                tool_choice: body.get("toolConfig").cloned(),
                history: gemini_history(body),
            },
        }
    }
}

fn text_of(v: Option<&Json>) -> JsString {
    v.and_then(Json::as_str).cloned().unwrap_or_default()
}

/// `null` without `tools`, `[]` for an empty one; an entry without a name
/// reads as `""`.
fn names(tools: Option<&Json>, name: impl Fn(&Json) -> Option<&Json>) -> Option<Vec<JsString>> {
    tools
        .and_then(Json::as_array)
        .map(|entries| entries.iter().map(|t| text_of(name(t))).collect())
}

/// Gemini: `tools` is an array of tool objects (1.67.0) or, in older
/// bundled providers, one object (1.0.4); either way the function
/// declarations of each, in order.
fn gemini_tools(tools: Option<&Json>) -> Option<Vec<JsString>> {
    let tools = tools?;
    let objects: Vec<&Json> = match tools.as_array() {
        Some(list) => list.iter().collect(),
        None => vec![tools],
    };
    Some(
        objects
            .into_iter()
            .flat_map(|t| {
                t.get("functionDeclarations")
                    .and_then(Json::as_array)
                    .unwrap_or_default()
                    .iter()
                    .map(|d| text_of(d.get("name")))
            })
            .collect(),
    )
}

fn responses_history(body: &Json) -> Vec<HistoryItem> {
    let mut history = Vec::new();
    for item in body
        .get("input")
        .and_then(Json::as_array)
        .unwrap_or_default()
    {
        let kind = item
            .get("type")
            .and_then(Json::as_str)
            .map(JsString::to_lossy);
        match kind.as_deref() {
            Some("function_call") => history.push(HistoryItem::Call(text_of(item.get("name")))),
            Some("item_reference") => history.push(HistoryItem::Ref(text_of(item.get("id")))),
            Some("function_call_output") => history.push(HistoryItem::Result {
                id: text_of(item.get("call_id")),
                content: item.get("output").cloned().unwrap_or(Json::Null),
            }),
            _ => {}
        }
    }
    history
}

fn messages_history(body: &Json) -> Vec<HistoryItem> {
    let mut history = Vec::new();
    for m in body
        .get("messages")
        .and_then(Json::as_array)
        .unwrap_or_default()
    {
        for block in m
            .get("content")
            .and_then(Json::as_array)
            .unwrap_or_default()
        {
            let kind = block
                .get("type")
                .and_then(Json::as_str)
                .map(JsString::to_lossy);
            match kind.as_deref() {
                Some("tool_use") => history.push(HistoryItem::Call(text_of(block.get("name")))),
                Some("tool_result") => history.push(HistoryItem::Result {
                    id: text_of(block.get("tool_use_id")),
                    content: block.get("content").cloned().unwrap_or(Json::Null),
                }),
                _ => {}
            }
        }
    }
    history
}

fn gemini_history(body: &Json) -> Vec<HistoryItem> {
    let mut history = Vec::new();
    for c in body
        .get("contents")
        .and_then(Json::as_array)
        .unwrap_or_default()
    {
        for part in c.get("parts").and_then(Json::as_array).unwrap_or_default() {
            if let Some(call) = part.get("functionCall") {
                history.push(HistoryItem::Call(text_of(call.get("name"))));
            }
            if let Some(r) = part.get("functionResponse") {
                let response = r.get("response");
                history.push(HistoryItem::Result {
                    id: text_of(r.get("name")),
                    content: response
                        .and_then(|x| x.get("content"))
                        .or(response)
                        .cloned()
                        .unwrap_or(Json::Null),
                });
            }
        }
    }
    history
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(route: Route, body: &str) -> Json {
        RequestView::on(route, &Json::parse(body).unwrap()).to_json()
    }

    #[test]
    fn tools_are_read_where_each_api_writes_them() {
        let expect = Json::parse(r#"["other","search_web"]"#).unwrap();
        let bodies = [
            (
                Route::OpenAi,
                r#"{"tools":[{"type":"function","name":"other"},{"type":"function","name":"search_web"}]}"#,
            ),
            (
                Route::Anthropic,
                r#"{"tools":[{"name":"other"},{"name":"search_web"}]}"#,
            ),
            (
                Route::Google,
                r#"{"tools":[{"functionDeclarations":[{"name":"other"},{"name":"search_web"}]}]}"#,
            ),
            (
                Route::Google,
                r#"{"tools":{"functionDeclarations":[{"name":"other"},{"name":"search_web"}]}}"#,
            ),
            (
                Route::Groq,
                r#"{"tools":[{"function":{"name":"other"}},{"function":{"name":"search_web"}}]}"#,
            ),
        ];
        for (route, body) in bodies {
            assert_eq!(
                view(route, body).get("tools"),
                Some(&expect),
                "{route}: {body}"
            );
        }
        assert_eq!(view(Route::Anthropic, "{}").get("tools"), Some(&Json::Null));
        assert_eq!(
            view(Route::Mistral, r#"{"tools":[]}"#).get("tools"),
            Some(&Json::Array(vec![]))
        );
    }

    #[test]
    fn the_choice_is_tool_config_on_gemini() {
        let body = r#"{"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["search.web"]}},"tool_choice":"x"}"#;
        let v = view(Route::Google, body);
        assert_eq!(
            v.get("toolChoice"),
            Json::parse(body).unwrap().get("toolConfig")
        );
    }

    #[test]
    fn history_reads_calls_and_results_on_each_api() {
        let openai = r#"{"input":[{"role":"user","content":"hi"},{"type":"function_call","call_id":"c1","name":"search_web"},
            {"type":"item_reference","id":"fc_0"},{"type":"function_call_output","call_id":"c1","output":"{\"tempC\":20}"}]}"#;
        assert_eq!(
            view(Route::OpenAi, openai)
                .get("history")
                .unwrap()
                .to_compact(),
            r#"[{"call":"search_web"},{"ref":"fc_0"},{"result":{"id":"c1","content":"{\"tempC\":20}"}}]"#
        );
        let anthropic = r#"{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"search_web","input":{}}]},
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"{\"tempC\":20}"}]}]}"#;
        assert_eq!(
            view(Route::Anthropic, anthropic)
                .get("history")
                .unwrap()
                .to_compact(),
            r#"[{"call":"search_web"},{"result":{"id":"c1","content":"{\"tempC\":20}"}}]"#
        );
        let google = r#"{"contents":[{"role":"model","parts":[{"functionCall":{"id":"x","name":"search_web","args":{}}}]},
            {"role":"user","parts":[{"functionResponse":{"id":"x","name":"search_web","response":{"name":"search_web","content":{"tempC":20}}}}]}]}"#;
        assert_eq!(
            view(Route::Google, google)
                .get("history")
                .unwrap()
                .to_compact(),
            r#"[{"call":"search_web"},{"result":{"id":"search_web","content":{"tempC":20}}}]"#
        );
    }
}
