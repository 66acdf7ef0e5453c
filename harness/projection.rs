//! `Projection`: what one case did on one version, reduced to what tool
//! naming decides (`shared/case-format.md`, "A projection").
//!
//! The model predicts one; the probe and the capture listener observe one.
//! Both sides are written to the same `Json` and compared with `Json`'s
//! equality: strings as UTF-16 code units, objects by key, arrays in order.

use crate::js::json::Json;
use crate::js::string::JsString;

#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    pub applicable: bool,
    /// Why the case is not applicable (with `applicable: false`).
    pub reason: Option<String>,
    pub error: Option<ErrorView>,
    pub requests: Vec<RequestView>,
    pub executed: Vec<Executed>,
    /// Extension: which tools objects the call changed (`"tools"`,
    /// `"toolsets.NAME"`, `"clientTools"`); the report measured none.
    pub mutated: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ErrorView {
    pub id: Option<JsString>,
    pub message: JsString,
    pub cause_code: Option<JsString>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RequestView {
    /// The names of the function tools in the body, in body order; `None`
    /// when the body has no `tools` (`route::body` reads each route's).
    pub tools: Option<Vec<JsString>>,
    /// The body's tool choice (`tool_choice`, Gemini's `toolConfig`), verbatim.
    pub tool_choice: Option<Json>,
    pub history: Vec<HistoryItem>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum HistoryItem {
    /// An assistant message's tool call, by the name it carries.
    Call(JsString),
    /// A tool message: its `tool_call_id` and its content, verbatim.
    Result { id: JsString, content: Json },
    /// An earlier output item sent back by reference, not by name: the
    /// Responses API's `{ "type": "item_reference", "id": ID }`, written
    /// `{ "ref": ID }`.
    Ref(JsString),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Executed {
    pub id: JsString,
    pub input: Json,
}

impl Projection {
    /// An applicable case that did nothing: no error, no request, nothing
    /// executed or changed. What the model starts from, and what a test
    /// fills in with the one field it is about.
    pub fn empty() -> Projection {
        Projection {
            applicable: true,
            reason: None,
            error: None,
            requests: Vec::new(),
            executed: Vec::new(),
            mutated: Vec::new(),
        }
    }

    /// The projection of a case that cannot run on a version.
    pub fn not_applicable(reason: String) -> Projection {
        Projection {
            applicable: false,
            reason: Some(reason),
            ..Projection::empty()
        }
    }

    pub fn to_json(&self) -> Json {
        let mut members = vec![("applicable", Json::Bool(self.applicable))];
        if let Some(reason) = &self.reason {
            members.push(("reason", Json::str(reason)));
        }
        members.push((
            "error",
            self.error.as_ref().map_or(Json::Null, ErrorView::to_json),
        ));
        members.push((
            "requests",
            Json::Array(self.requests.iter().map(RequestView::to_json).collect()),
        ));
        members.push((
            "executed",
            Json::Array(
                self.executed
                    .iter()
                    .map(|e| {
                        Json::object([
                            ("id", Json::String(e.id.clone())),
                            ("input", e.input.clone()),
                        ])
                    })
                    .collect(),
            ),
        ));
        members.push((
            "mutated",
            Json::Array(self.mutated.iter().map(|m| Json::str(m)).collect()),
        ));
        Json::object(members)
    }

    pub fn from_json(v: &Json) -> Result<Projection, String> {
        let applicable = v
            .get("applicable")
            .and_then(Json::as_bool)
            .ok_or("projection: `applicable` missing")?;
        let reason = v
            .get("reason")
            .and_then(Json::as_str)
            .map(JsString::to_lossy);
        let error = match v.get("error") {
            None | Some(Json::Null) => None,
            Some(e) => Some(ErrorView::from_json(e)?),
        };
        let requests = v
            .get("requests")
            .and_then(Json::as_array)
            .unwrap_or_default()
            .iter()
            .map(RequestView::from_json)
            .collect::<Result<Vec<_>, _>>()?;
        let executed = executed_from(v)?;
        let mutated = mutated_from(v);
        Ok(Projection {
            applicable,
            reason,
            error,
            requests,
            executed,
            mutated,
        })
    }
}

/// The `executed` member of a projection or of a probe's result.
pub fn executed_from(v: &Json) -> Result<Vec<Executed>, String> {
    v.get("executed")
        .and_then(Json::as_array)
        .unwrap_or_default()
        .iter()
        .map(|e| {
            Ok(Executed {
                id: e
                    .get("id")
                    .and_then(Json::as_str)
                    .cloned()
                    .ok_or("executed[].id missing")?,
                input: e.get("input").cloned().unwrap_or(Json::Null),
            })
        })
        .collect()
}

/// The `mutated` member of a projection or of a probe's result.
pub fn mutated_from(v: &Json) -> Vec<String> {
    v.get("mutated")
        .and_then(Json::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(|m| m.as_str().map(JsString::to_lossy))
        .collect()
}

fn opt_str(s: &Option<JsString>) -> Json {
    s.clone().map_or(Json::Null, Json::String)
}

impl ErrorView {
    pub fn to_json(&self) -> Json {
        Json::object([
            ("id", opt_str(&self.id)),
            ("message", Json::String(self.message.clone())),
            ("causeCode", opt_str(&self.cause_code)),
        ])
    }

    pub fn from_json(v: &Json) -> Result<ErrorView, String> {
        Ok(ErrorView {
            id: v.get("id").and_then(Json::as_str).cloned(),
            message: v
                .get("message")
                .and_then(Json::as_str)
                .cloned()
                .ok_or("error.message missing")?,
            cause_code: v.get("causeCode").and_then(Json::as_str).cloned(),
        })
    }
}

impl RequestView {
    /// The view with every UUID in its tool results replaced by `<uuid>`:
    /// a workflow's run id and an old sub-agent's thread id are fresh on
    /// every run, and nothing about tool naming hangs on them.
    pub fn with_uuids_redacted(mut self) -> RequestView {
        for item in &mut self.history {
            if let HistoryItem::Result { content, .. } = item {
                redact_uuids_within(content);
            }
        }
        self
    }

    pub fn to_json(&self) -> Json {
        let tools = self.tools.as_ref().map_or(Json::Null, |names| {
            Json::Array(names.iter().cloned().map(Json::String).collect())
        });
        let history = self
            .history
            .iter()
            .map(|h| match h {
                HistoryItem::Call(name) => Json::object([("call", Json::String(name.clone()))]),
                HistoryItem::Ref(id) => Json::object([("ref", Json::String(id.clone()))]),
                HistoryItem::Result { id, content } => Json::object([(
                    "result",
                    Json::object([
                        ("id", Json::String(id.clone())),
                        ("content", content.clone()),
                    ]),
                )]),
            })
            .collect();
        Json::object([
            ("tools", tools),
            ("toolChoice", self.tool_choice.clone().unwrap_or(Json::Null)),
            ("history", Json::Array(history)),
        ])
    }

    pub fn from_json(v: &Json) -> Result<RequestView, String> {
        let tools = match v.get("tools") {
            None | Some(Json::Null) => None,
            Some(t) => Some(
                t.as_array()
                    .ok_or("requests[].tools is not an array")?
                    .iter()
                    .map(|n| {
                        n.as_str()
                            .cloned()
                            .ok_or("requests[].tools[] is not a string")
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        let tool_choice = v.get("toolChoice").filter(|t| !t.is_null()).cloned();
        let mut history = Vec::new();
        for h in v
            .get("history")
            .and_then(Json::as_array)
            .unwrap_or_default()
        {
            if let Some(name) = h.get("call").and_then(Json::as_str) {
                history.push(HistoryItem::Call(name.clone()));
            } else if let Some(id) = h.get("ref").and_then(Json::as_str) {
                history.push(HistoryItem::Ref(id.clone()));
            } else if let Some(r) = h.get("result") {
                history.push(HistoryItem::Result {
                    id: r
                        .get("id")
                        .and_then(Json::as_str)
                        .cloned()
                        .unwrap_or_default(),
                    content: r.get("content").cloned().unwrap_or(Json::Null),
                });
            } else {
                return Err(format!(
                    "requests[].history entry {h:?} is neither call, ref nor result"
                ));
            }
        }
        Ok(RequestView {
            tools,
            tool_choice,
            history,
        })
    }
}

/// Every string within `v` with its UUIDs redacted: a result is text on
/// most routes but an object on Gemini's (`functionResponse.response`),
/// where a workflow's `runId` is one string deep.
pub fn redact_uuids_within(v: &mut Json) {
    match v {
        Json::String(text) => *text = redact_uuids(text),
        Json::Array(items) => items.iter_mut().for_each(redact_uuids_within),
        Json::Object(members) => members
            .iter_mut()
            .for_each(|(_, item)| redact_uuids_within(item)),
        _ => {}
    }
}

/// `text` with each UUID (8-4-4-4-12 hex digits, not inside a longer run
/// of hex digits) replaced by `<uuid>`.
pub fn redact_uuids(text: &JsString) -> JsString {
    const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];
    const LEN: usize = 36;
    let units = text.units();
    let hex = |u: u16| matches!(u, 0x30..=0x39 | 0x41..=0x46 | 0x61..=0x66);
    let is_uuid_at = |at: usize| {
        if at + LEN > units.len() || (at > 0 && hex(units[at - 1])) {
            return false;
        }
        if units.get(at + LEN).is_some_and(|&u| hex(u)) {
            return false;
        }
        let mut i = at;
        for (g, n) in GROUPS.iter().enumerate() {
            if g > 0 {
                if units[i] != u16::from(b'-') {
                    return false;
                }
                i += 1;
            }
            if !units[i..i + n].iter().all(|&u| hex(u)) {
                return false;
            }
            i += n;
        }
        true
    };
    let mut out = JsString::new();
    let mut i = 0;
    while i < units.len() {
        if is_uuid_at(i) {
            out.push_str("<uuid>");
            i += LEN;
        } else {
            out.push_unit(units[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_redacted_in_results_of_any_shape() {
        let uuid = "64c2ac4a-b3c4-47e8-a632-b6b09dd6fd6b";
        let mut v = Json::parse(&format!(
            r#"{{"result":{{"tempC":20}},"runId":"{uuid}","steps":["x {uuid}"]}}"#
        ))
        .unwrap();
        redact_uuids_within(&mut v);
        assert_eq!(
            v.to_compact(),
            r#"{"result":{"tempC":20},"runId":"<uuid>","steps":["x <uuid>"]}"#
        );
    }

    #[test]
    fn uuids_in_tool_results_are_redacted_and_nothing_else() {
        let t = |s: &str| redact_uuids(&JsString::from(s)).to_lossy();
        assert_eq!(
            t(r#"{"runId":"0bd1880c-cb4e-4389-a058-41a3e546c4b2"}"#),
            r#"{"runId":"<uuid>"}"#
        );
        assert_eq!(t("a 0BD1880C-CB4E-4389-A058-41A3E546C4B2 b"), "a <uuid> b");
        // Not a UUID: a longer hex run, a wrong group, too short.
        for s in [
            "f0bd1880c-cb4e-4389-a058-41a3e546c4b2",
            "0bd1880c-cb4e-4389-a058-41a3e546c4b2f",
            "0bd1880c-cb4e-4389-a058_41a3e546c4b2",
            "0bd1880c-cb4e",
        ] {
            assert_eq!(t(s), s);
        }
    }

    #[test]
    fn the_format_example_round_trips() {
        let text = r#"{"applicable":true,"error":null,"requests":[{"tools":["search_web"],
            "toolChoice":{"type":"function","function":{"name":"search.web"}},"history":[]}],
            "executed":[],"mutated":[]}"#;
        let v = Json::parse(text).unwrap();
        let p = Projection::from_json(&v).unwrap();
        assert_eq!(p.to_json(), v);
    }
}
