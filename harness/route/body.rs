//! Reading a captured request body on a route: `RequestView::on(route, body)`,
//! what tool naming decides about it (`docs/case-format.md`, "A
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
//!
//! Where the tools and the choice are is data, `BodyLayout`: the repro
//! script reads its bodies by the same table (`layouts_json`, read by
//! `node-probe/reading.mjs`), so the two cannot read a body differently.

use crate::js::json::Json;
use crate::js::string::JsString;
use crate::projection::{HistoryItem, RequestView};
use crate::route::{Route, Wire};

/// A step of a path into a JSON value: a member name or an array index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Member(&'static str),
    Index(usize),
}

impl Step {
    fn of(self, v: &Json) -> Option<&Json> {
        match self {
            Step::Member(name) => v.get(name),
            Step::Index(i) => v.as_array()?.get(i),
        }
    }

    fn to_json(self) -> Json {
        match self {
            Step::Member(name) => Json::str(name),
            Step::Index(i) => Json::int(i as i64),
        }
    }
}

/// The value at `path` within `v`, when every step finds one.
pub fn at<'a>(v: &'a Json, path: &[Step]) -> Option<&'a Json> {
    path.iter().try_fold(v, |v, step| step.of(v))
}

/// A path as JSON: an array of member names and indices.
pub fn path_json(path: &[Step]) -> Json {
    Json::Array(path.iter().map(|s| s.to_json()).collect())
}

/// Where one wire's body holds the tools and the tool choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyLayout {
    /// The member that lists the tools: `null` without it, `[]` when empty.
    pub tools: &'static str,
    /// Gemini: each entry of `tools` lists its functions under this member
    /// (flattened in order), and `tools` may be one entry instead of an
    /// array of them. `None`: `tools` is an array of functions.
    pub declarations: Option<&'static str>,
    /// Where a function's name is, within its entry; an entry without a
    /// string there reads as `""`.
    pub name: &'static [Step],
    /// The member that holds the tool choice, verbatim.
    pub choice: &'static str,
}

impl Wire {
    pub fn layout(self) -> BodyLayout {
        const NAME: &[Step] = &[Step::Member("name")];
        match self {
            Wire::ChatCompletions => BodyLayout {
                tools: "tools",
                declarations: None,
                name: &[Step::Member("function"), Step::Member("name")],
                choice: "tool_choice",
            },
            Wire::Responses | Wire::Messages => BodyLayout {
                tools: "tools",
                declarations: None,
                name: NAME,
                choice: "tool_choice",
            },
            Wire::GenerateContent => BodyLayout {
                tools: "tools",
                declarations: Some("functionDeclarations"),
                name: NAME,
                choice: "toolConfig",
            },
        }
    }
}

impl BodyLayout {
    /// The names of the function tools in `body`, in body order.
    pub fn tools_of(&self, body: &Json) -> Option<Vec<JsString>> {
        let name_of = |entry: &Json| text_of(at(entry, self.name));
        let tools = body.get(self.tools)?;
        match self.declarations {
            None => Some(tools.as_array()?.iter().map(name_of).collect()),
            Some(member) => {
                let entries = tools.as_array().unwrap_or(std::slice::from_ref(tools));
                Some(
                    entries
                        .iter()
                        .flat_map(|t| list(t, member).iter().map(name_of))
                        .collect(),
                )
            }
        }
    }

    pub fn to_json(&self) -> Json {
        Json::object([
            ("tools", Json::str(self.tools)),
            (
                "declarations",
                self.declarations.map_or(Json::Null, Json::str),
            ),
            ("name", path_json(self.name)),
            ("choice", Json::str(self.choice)),
        ])
    }
}

/// Every route's `BodyLayout`, by route name: the table the repro script
/// reads its bodies with.
pub fn layouts_json() -> Json {
    Json::object(
        Route::ALL
            .into_iter()
            .map(|r| (r.name(), r.wire().layout().to_json())),
    )
}

impl RequestView {
    /// What tool naming decides about one body captured on `route`.
    pub fn on(route: Route, body: &Json) -> RequestView {
        let wire = route.wire();
        let layout = wire.layout();
        RequestView {
            tools: layout.tools_of(body),
            tool_choice: body.get(layout.choice).cloned(),
            history: match wire {
                Wire::ChatCompletions => chat_history(body),
                Wire::Responses => responses_history(body),
                Wire::Messages => messages_history(body),
                Wire::GenerateContent => gemini_history(body),
            },
        }
    }
}

/// The system texts of a body on `wire`, in body order: what tells one
/// agent's request from another's (each agent has its own instructions).
/// Chat Completions: `system` messages; Responses: `system` and
/// `developer` input items; Messages: `system`; Gemini:
/// `systemInstruction.parts`. A content written as parts gives each
/// part's `text`.
pub fn system_texts(wire: Wire, body: &Json) -> Vec<JsString> {
    fn texts(content: Option<&Json>) -> Vec<JsString> {
        match content {
            Some(Json::String(s)) => vec![s.clone()],
            Some(Json::Array(parts)) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Json::as_str).cloned())
                .collect(),
            _ => Vec::new(),
        }
    }
    let by_role = |member: &str, roles: &[&str]| -> Vec<JsString> {
        list(body, member)
            .iter()
            .filter(|m| word(m, "role").is_some_and(|r| roles.contains(&r.as_str())))
            .flat_map(|m| texts(m.get("content")))
            .collect()
    };
    match wire {
        Wire::ChatCompletions => by_role("messages", &["system"]),
        Wire::Responses => by_role("input", &["system", "developer"]),
        Wire::Messages => texts(body.get("system")),
        Wire::GenerateContent => texts(body.get("systemInstruction").and_then(|s| s.get("parts"))),
    }
}

fn text_of(v: Option<&Json>) -> JsString {
    v.and_then(Json::as_str).cloned().unwrap_or_default()
}

/// The array member `key` of `v`; empty when it is not one.
fn list<'a>(v: &'a Json, key: &str) -> &'a [Json] {
    v.get(key).and_then(Json::as_array).unwrap_or_default()
}

/// The string member `key` of `v`, lossy: the kinds and roles matched on.
fn word(v: &Json, key: &str) -> Option<String> {
    v.get(key).and_then(Json::as_str).map(JsString::to_lossy)
}

/// A result: its call id and its content, verbatim.
fn result(v: &Json, id: &str, content: &str) -> HistoryItem {
    HistoryItem::Result {
        id: text_of(v.get(id)),
        content: v.get(content).cloned().unwrap_or(Json::Null),
    }
}

fn chat_history(body: &Json) -> Vec<HistoryItem> {
    list(body, "messages")
        .iter()
        .flat_map(|m| match word(m, "role").as_deref() {
            Some("assistant") => list(m, "tool_calls")
                .iter()
                .map(|c| {
                    HistoryItem::Call(text_of(at(
                        c,
                        &[Step::Member("function"), Step::Member("name")],
                    )))
                })
                .collect(),
            Some("tool") => vec![result(m, "tool_call_id", "content")],
            _ => Vec::new(),
        })
        .collect()
}

fn responses_history(body: &Json) -> Vec<HistoryItem> {
    list(body, "input")
        .iter()
        .filter_map(|item| match word(item, "type").as_deref() {
            Some("function_call") => Some(HistoryItem::Call(text_of(item.get("name")))),
            Some("item_reference") => Some(HistoryItem::Ref(text_of(item.get("id")))),
            Some("function_call_output") => Some(result(item, "call_id", "output")),
            _ => None,
        })
        .collect()
}

fn messages_history(body: &Json) -> Vec<HistoryItem> {
    list(body, "messages")
        .iter()
        .flat_map(|m| list(m, "content"))
        .filter_map(|block| match word(block, "type").as_deref() {
            Some("tool_use") => Some(HistoryItem::Call(text_of(block.get("name")))),
            Some("tool_result") => Some(result(block, "tool_use_id", "content")),
            _ => None,
        })
        .collect()
}

fn gemini_history(body: &Json) -> Vec<HistoryItem> {
    let mut history = Vec::new();
    for part in list(body, "contents").iter().flat_map(|c| list(c, "parts")) {
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

    #[test]
    fn a_chat_completions_body_is_reduced_to_names_choice_and_history() {
        let body = Json::parse(
            r#"{"model":"m","tools":[{"type":"function","function":{"name":"search_web"}}],
               "messages":[{"role":"user","content":"hi"},
                 {"role":"assistant","content":"","tool_calls":[{"id":"call_1","type":"function",
                   "function":{"name":"search_web","arguments":"{}"}}]},
                 {"role":"tool","tool_call_id":"call_1","content":"{\"tempC\":20}"}]}"#,
        )
        .unwrap();
        let r = RequestView::on(Route::OpenAiCompatible, &body);
        assert_eq!(r.tools, Some(vec![JsString::from("search_web")]));
        assert_eq!(r.tool_choice, None);
        assert_eq!(
            r.history,
            vec![
                HistoryItem::Call("search_web".into()),
                HistoryItem::Result {
                    id: "call_1".into(),
                    content: Json::str("{\"tempC\":20}")
                }
            ]
        );
    }

    #[test]
    fn system_texts_are_read_where_each_api_writes_them() {
        let read = |wire: Wire, body: &str| -> Vec<String> {
            system_texts(wire, &Json::parse(body).unwrap())
                .iter()
                .map(JsString::to_lossy)
                .collect()
        };
        let chat = r#"{"messages":[{"role":"system","content":"p"},{"role":"user","content":"s"},{"role":"system","content":"w"}]}"#;
        assert_eq!(read(Wire::ChatCompletions, chat), ["p", "w"]);
        let responses = r#"{"input":[{"role":"developer","content":"p"},{"role":"system","content":[{"type":"input_text","text":"w"}]}]}"#;
        assert_eq!(read(Wire::Responses, responses), ["p", "w"]);
        assert_eq!(
            read(Wire::Messages, r#"{"system":[{"type":"text","text":"p"}]}"#),
            ["p"]
        );
        assert_eq!(read(Wire::Messages, r#"{"system":"p"}"#), ["p"]);
        let gemini = r#"{"systemInstruction":{"parts":[{"text":"p"},{"text":"w"}]}}"#;
        assert_eq!(read(Wire::GenerateContent, gemini), ["p", "w"]);
        assert!(read(Wire::ChatCompletions, "{}").is_empty());
    }

    #[test]
    fn the_layout_table_names_every_route() {
        let table = layouts_json();
        for route in Route::ALL {
            let layout = table.get(route.name()).unwrap();
            assert_eq!(layout, &route.wire().layout().to_json(), "{route}");
        }
        assert_eq!(
            table.get("google").unwrap().to_compact(),
            r#"{"tools":"tools","declarations":"functionDeclarations","name":["name"],"choice":"toolConfig"}"#
        );
    }
}
