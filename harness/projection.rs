//! `Projection`: what one case did on one version, reduced to what tool
//! naming decides (`docs/case-format.md`, "A projection").
//!
//! The model predicts one; the probe and the capture listener observe one.
//! Both sides are written to the same `Json` and compared with `Json`'s
//! equality: strings as UTF-16 code units, objects by key, arrays in order.

use crate::js::json::Json;
use crate::js::string::JsString;
use lookups::Lookups;

pub mod lookups;

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
    /// What the user's own code is handed (`seen`); projected on 1.x,
    /// `None` on 0.x (docs/seen.md).
    pub seen: Option<Box<Seen>>,
    /// With `turns`, one entry per turn, in order; the projection's own
    /// `error`, `requests`, `executed` and `seen` are then empty and not
    /// written (the contract's `{ applicable, reason, turns }`).
    pub turns: Option<Vec<Turn>>,
    /// With `lookups`, what Mastra's own lookups find of the case's tools;
    /// about the agent, not a call, so it stands beside `turns` too.
    /// Boxed: few cases ask, and a projection is held per result.
    pub lookups: Option<Box<Lookups>>,
}

/// One turn of a case with `turns`: what that call did.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub error: Option<ErrorView>,
    pub requests: Vec<RequestView>,
    pub executed: Vec<Executed>,
    pub seen: Option<Box<Seen>>,
}

impl Turn {
    /// The turn a flat projection describes.
    pub fn of(p: &Projection) -> Turn {
        Turn {
            error: p.error.clone(),
            requests: p.requests.clone(),
            executed: p.executed.clone(),
            seen: p.seen.clone(),
        }
    }

    fn to_json(&self) -> Json {
        let mut members = vec![
            (
                "error",
                self.error.as_ref().map_or(Json::Null, ErrorView::to_json),
            ),
            (
                "requests",
                Json::Array(self.requests.iter().map(RequestView::to_json).collect()),
            ),
            ("executed", executed_json(&self.executed)),
        ];
        if let Some(seen) = &self.seen {
            members.push(("seen", seen.to_json()));
        }
        Json::object(members)
    }

    fn from_json(v: &Json) -> Result<Turn, String> {
        // A turn reads as the flat projection of an applicable case.
        let mut members: Vec<(JsString, Json)> = vec![("applicable".into(), Json::Bool(true))];
        let own = v.members().ok_or("projection: a turn is not an object")?;
        members.extend(own.into_iter().map(|(k, v)| (k.clone(), v.clone())));
        Ok(Turn::of(&Projection::from_json(&Json::object(members))?))
    }
}

fn executed_json(executed: &[Executed]) -> Json {
    Json::Array(
        executed
            .iter()
            .map(|e| {
                Json::object([
                    ("id", Json::String(e.id.clone())),
                    ("input", e.input.clone()),
                ])
            })
            .collect(),
    )
}

/// One ended span of a tool call, as `seen.spans` lists it: the span's
/// `type` and `name`, and the `entityId` and `entityName` it carries (the
/// tool's id and name as the span records them; `null` where absent).
#[derive(Debug, Clone, PartialEq)]
pub struct SpanView {
    pub kind: Json,
    pub name: Json,
    pub entity_id: Json,
    pub entity_name: Json,
}

impl SpanView {
    fn to_json(&self) -> Json {
        Json::object([
            ("type", self.kind.clone()),
            ("name", self.name.clone()),
            ("entityId", self.entity_id.clone()),
            ("entityName", self.entity_name.clone()),
        ])
    }

    fn from_json(v: &Json) -> SpanView {
        let member = |key: &str| v.get(key).cloned().unwrap_or(Json::Null);
        SpanView {
            kind: member("type"),
            name: member("name"),
            entity_id: member("entityId"),
            entity_name: member("entityName"),
        }
    }
}

/// The projection's `seen`: the names Mastra hands the user's code.
/// Names are JSON values, not strings: a chunk or a result may carry no
/// `toolName`, written `null`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Seen {
    /// Each `fullStream` chunk whose payload has a `toolName`: `(type,
    /// toolName)`, in order, across the first and every resumed run; empty
    /// on `generate()`.
    pub stream: Vec<(JsString, Json)>,
    /// The `toolName` of each entry of the last result's `toolCalls`;
    /// `None` where reading it throws, or where there was no result.
    pub tool_calls: Option<Vec<Json>>,
    pub tool_results: Option<Vec<Json>>,
    /// The `toolName` each call of a `requireToolApproval` function received.
    pub asked: Vec<Json>,
    /// The calls that waited for approval: `(call id, toolName)`.
    pub pending: Vec<(Json, Json)>,
    /// Each call of a tool's own `requireApproval` function, in order:
    /// `{ "id", "args", "context" }`; `None` (and not written) where no
    /// tool of the case has one.
    pub tool_asked: Option<Vec<Json>>,
    /// Each call of an MCP server's own `requireToolApproval` function, in
    /// order: `{ "server", "toolName" }`; `None` (and not written) where no
    /// server of the case has one.
    pub server_asked: Option<Vec<Json>>,
    /// With `tracing`, each ended span of a tool call, in order; `None`
    /// (and not written) without it.
    pub spans: Option<Vec<SpanView>>,
}

impl Seen {
    pub fn to_json(&self) -> Json {
        let names = |list: &Option<Vec<Json>>| list.clone().map_or(Json::Null, Json::Array);
        let mut v = Json::object([
            (
                "stream",
                Json::Array(
                    self.stream
                        .iter()
                        .map(|(kind, name)| {
                            Json::object([
                                ("type", Json::String(kind.clone())),
                                ("toolName", name.clone()),
                            ])
                        })
                        .collect(),
                ),
            ),
            ("toolCalls", names(&self.tool_calls)),
            ("toolResults", names(&self.tool_results)),
            ("approval", self.approval_json()),
        ]);
        if let (Some(spans), Json::Object(members)) = (&self.spans, &mut v) {
            let spans = Json::Array(spans.iter().map(SpanView::to_json).collect());
            members.push(("spans".into(), spans));
        }
        v
    }

    fn approval_json(&self) -> Json {
        let pending = self
            .pending
            .iter()
            .map(|(id, name)| Json::object([("id", id.clone()), ("toolName", name.clone())]))
            .collect();
        let mut members = vec![
            ("asked", Json::Array(self.asked.clone())),
            ("pending", Json::Array(pending)),
        ];
        if let Some(tool_asked) = &self.tool_asked {
            members.push(("toolAsked", Json::Array(tool_asked.clone())));
        }
        if let Some(server_asked) = &self.server_asked {
            members.push(("serverAsked", Json::Array(server_asked.clone())));
        }
        Json::object(members)
    }

    /// Read `seen` as `to_json` writes it (and as the probe answers it).
    pub fn from_json(v: &Json) -> Result<Seen, String> {
        let list = |v: Option<&Json>, field: &str| -> Result<Vec<Json>, String> {
            v.and_then(Json::as_array)
                .map(<[Json]>::to_vec)
                .ok_or_else(|| format!("seen.{field} is not an array"))
        };
        let names = |v: Option<&Json>, field: &str| -> Result<Option<Vec<Json>>, String> {
            match v {
                None | Some(Json::Null) => Ok(None),
                other => list(other, field).map(Some),
            }
        };
        let member = |v: &Json, key: &str| v.get(key).cloned().unwrap_or(Json::Null);
        let stream = list(v.get("stream"), "stream")?
            .iter()
            .map(|c| {
                let kind = c
                    .get("type")
                    .and_then(Json::as_str)
                    .cloned()
                    .ok_or("seen.stream[].type is not a string")?;
                Ok((kind, member(c, "toolName")))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let approval = v.get("approval").ok_or("seen.approval missing")?;
        Ok(Seen {
            stream,
            tool_calls: names(v.get("toolCalls"), "toolCalls")?,
            tool_results: names(v.get("toolResults"), "toolResults")?,
            asked: list(approval.get("asked"), "approval.asked")?,
            pending: list(approval.get("pending"), "approval.pending")?
                .iter()
                .map(|p| (member(p, "id"), member(p, "toolName")))
                .collect(),
            tool_asked: match approval.get("toolAsked") {
                None => None,
                other => Some(list(other, "approval.toolAsked")?),
            },
            server_asked: match approval.get("serverAsked") {
                None => None,
                other => Some(list(other, "approval.serverAsked")?),
            },
            spans: match v.get("spans") {
                None => None,
                Some(s) => Some(
                    s.as_array()
                        .ok_or("seen.spans is not an array")?
                        .iter()
                        .map(SpanView::from_json)
                        .collect(),
                ),
            },
        })
    }
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
            seen: None,
            turns: None,
            lookups: None,
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
        if let Some(turns) = &self.turns {
            members.push((
                "turns",
                Json::Array(turns.iter().map(Turn::to_json).collect()),
            ));
            members.push((
                "mutated",
                Json::Array(self.mutated.iter().map(|m| Json::str(m)).collect()),
            ));
            if let Some(lookups) = &self.lookups {
                members.push(("lookups", lookups.to_json()));
            }
            return Json::object(members);
        }
        members.push((
            "error",
            self.error.as_ref().map_or(Json::Null, ErrorView::to_json),
        ));
        members.push((
            "requests",
            Json::Array(self.requests.iter().map(RequestView::to_json).collect()),
        ));
        members.push(("executed", executed_json(&self.executed)));
        members.push((
            "mutated",
            Json::Array(self.mutated.iter().map(|m| Json::str(m)).collect()),
        ));
        if let Some(seen) = &self.seen {
            members.push(("seen", seen.to_json()));
        }
        if let Some(lookups) = &self.lookups {
            members.push(("lookups", lookups.to_json()));
        }
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
        let seen = v
            .get("seen")
            .map(Seen::from_json)
            .transpose()?
            .map(Box::new);
        let turns = match v.get("turns") {
            None => None,
            Some(t) => Some(
                t.as_array()
                    .ok_or("projection: `turns` is not an array")?
                    .iter()
                    .map(Turn::from_json)
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        let lookups = v
            .get("lookups")
            .map(Lookups::from_json)
            .transpose()?
            .map(Box::new);
        Ok(Projection {
            applicable,
            reason,
            error,
            requests,
            executed,
            mutated,
            seen,
            turns,
            lookups,
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

    /// The view with each tool result's step times zeroed
    /// (`zero_step_times_within`).
    pub fn with_step_times_zeroed(mut self) -> RequestView {
        for item in &mut self.history {
            if let HistoryItem::Result { content, .. } = item {
                zero_step_times_within(content);
            }
        }
        self
    }

    /// The view with each tool result that reports rejected arguments in
    /// its normalised form (`normalise_validation`), and every API error a
    /// result quotes in its own (`normalise_api_errors`).
    pub fn with_validation_normalised(mut self) -> RequestView {
        for item in &mut self.history {
            if let HistoryItem::Result { content, .. } = item {
                normalise_validation(content);
                normalise_api_errors(content);
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

/// What stands for a validator's own words in a normalised validation
/// report (`normalise_validation`).
pub const ISSUES: &str = "<issues>";

const VALIDATION_FAILED: &str = "Tool input validation failed";
/// The same report's first words on 0.x.
const VALIDATION_FAILED_ZERO: &str = "Tool validation failed";
const FIX_THEM: &str = ". Please fix the following errors and try again:\n";
const PROVIDED: &str = "\n\nProvided arguments: ";

/// A tool result that reports rejected arguments, in the form projections
/// compare. Mastra answers a call whose arguments its validator rejects
/// with `{ error: true, message, validationErrors }`, the message being
///
/// ```text
/// Tool input validation failed for NAME. Please fix the following errors and try again:
/// - PATH: WORDING
/// ...
///
/// Provided arguments: ARGUMENTS
/// ```
///
/// The issue lines and `validationErrors` are the validator's: zod 3, zod 4
/// and the JSON Schema validator word (and place) the same issue
/// differently, and which one runs depends on the release, the tool's
/// source and the schema library installed. Both are replaced by
/// `<issues>`; the rest (the tool's name, the provided arguments as Mastra
/// cut them, every other member) stays exact. The content is the report's
/// JSON text on most routes and the object itself on Gemini's; anything
/// else is left as it is.
pub fn normalise_validation(content: &mut Json) {
    edit_result_content(content, normalise_report);
}

/// A tool result's content edited in place by `edit`, which says whether it
/// changed anything: on most routes the content is a value's JSON text
/// (parsed, edited and written back only when changed), on Gemini's the
/// object itself; anything else is left as it is.
pub fn edit_result_content(content: &mut Json, edit: impl FnOnce(&mut Json) -> bool) {
    match content {
        Json::String(text) => {
            let Some(mut value) = text.to_rust().and_then(|t| Json::parse(&t).ok()) else {
                return;
            };
            if edit(&mut value) {
                *text = JsString::from(value.to_compact().as_str());
            }
        }
        Json::Object(_) => {
            edit(content);
        }
        _ => {}
    }
}

/// `report` normalised in place, when it is a validation report, or the
/// AI SDK v5 output object `{"type":"json","value":REPORT}` that 0.20.0's
/// own client sends in its place (`model::steps::legacy_loop::own_client_output`).
fn normalise_report(report: &mut Json) -> bool {
    let Json::Object(members) = report else {
        return false;
    };
    if let [(t, Json::String(kind)), (v, value)] = members.as_mut_slice() {
        if *t == JsString::from("type")
            && *kind == JsString::from("json")
            && *v == JsString::from("value")
        {
            return normalise_report(value);
        }
    }
    let member = |name: &str| members.iter().position(|(k, _)| *k == JsString::from(name));
    let is_error = member("error").is_some_and(|i| members[i].1 == Json::Bool(true));
    let (Some(m), Some(v), true) = (member("message"), member("validationErrors"), is_error) else {
        return false;
    };
    let Json::String(message) = &members[m].1 else {
        return false;
    };
    let Some(normalised) = normalised_message(message) else {
        return false;
    };
    members[m].1 = Json::String(normalised);
    members[v].1 = Json::str(ISSUES);
    true
}

/// The message with its issue lines replaced by `<issues>`.
fn normalised_message(message: &JsString) -> Option<JsString> {
    let units = message.units();
    let find_last = |needle: &str, within: &[u16]| -> Option<usize> {
        let n: Vec<u16> = needle.encode_utf16().collect();
        (0..=within.len().checked_sub(n.len())?)
            .rev()
            .find(|&i| within[i..].starts_with(&n))
    };
    let starts = |p: &str| units.starts_with(&p.encode_utf16().collect::<Vec<u16>>());
    if !starts(VALIDATION_FAILED) && !starts(VALIDATION_FAILED_ZERO) {
        return None;
    }
    let provided = find_last(PROVIDED, units)?;
    let header_end = find_last(FIX_THEM, &units[..provided])? + FIX_THEM.encode_utf16().count();
    let mut out = JsString::from_units(units[..header_end].to_vec());
    out.push_str(ISSUES);
    out = out.concat(&JsString::from_units(units[provided..].to_vec()));
    Some(out)
}

/// The AI SDK's name for the error a provider's refusal becomes.
const API_CALL_ERROR: &str = "AI_APICallError";

/// An `AI_APICallError` with status `status`, in its normalised form: its
/// `name` and `statusCode`.
pub fn api_error(status: u16) -> Json {
    Json::object([
        ("name", Json::str(API_CALL_ERROR)),
        ("statusCode", Json::int(i64::from(status))),
    ])
}

/// A tool result quoting the AI SDK's `AI_APICallError` (Mastra's error
/// object for a sub-agent whose request failed, before 1.5.0), in the form
/// projections compare: each such error, at any depth and inside any
/// `errorMessage` that is an error's JSON text, becomes its `name` and
/// `statusCode` alone. The rest of it is not about names and is not the
/// same twice: its `stack` names the install's files, its `url` the
/// listener's port, its `responseHeaders` the date, and its
/// `requestBodyValues`, `responseBody` and `data` repeat the sub-agent's
/// request (a request of the projection already) and the scripted reply in
/// each provider's format. Mastra's own layers around it (messages, codes,
/// the sub-agent's key, the arguments it was called with, the model id)
/// stay exact. The content is JSON text on most routes and the object on
/// Gemini's; anything else is left as it is.
pub fn normalise_api_errors(content: &mut Json) {
    edit_result_content(content, normalise_api_errors_within);
}

/// `v` with its API errors normalised in place; whether any was.
fn normalise_api_errors_within(v: &mut Json) -> bool {
    let Json::Object(members) = v else {
        return false;
    };
    let named = |name: &str| members.iter().find(|(k, _)| *k == JsString::from(name));
    if named("name").is_some_and(|(_, n)| *n == Json::str(API_CALL_ERROR)) {
        let status = named("statusCode").map(|(_, s)| s.clone());
        let mut kept = vec![(JsString::from("name"), Json::str(API_CALL_ERROR))];
        kept.extend(status.map(|s| (JsString::from("statusCode"), s)));
        let changed = *members != kept;
        *members = kept;
        return changed;
    }
    let mut changed = false;
    for (k, item) in members.iter_mut() {
        match item {
            Json::String(text) if *k == JsString::from("errorMessage") => {
                let parsed = text.to_rust().and_then(|t| Json::parse(&t).ok());
                if let Some(mut inner @ Json::Object(_)) = parsed {
                    if normalise_api_errors_within(&mut inner) {
                        *text = JsString::from(inner.to_compact().as_str());
                        changed = true;
                    }
                }
            }
            Json::Object(_) => changed |= normalise_api_errors_within(item),
            _ => {}
        }
    }
    changed
}

/// `message` without the stack frames some errors carry in it (on 0.x
/// Mastra wraps an error with its `stack` as the message): the lines from
/// the first `\n    at ` on, which name the install's files and lines,
/// not what was sent.
pub fn without_stack(message: &JsString) -> JsString {
    let units = message.units();
    let frame: Vec<u16> = "\n    at ".encode_utf16().collect();
    match (0..units.len()).find(|&i| units[i..].starts_with(&frame)) {
        Some(at) => JsString::from_units(units[..at].to_vec()),
        None => message.clone(),
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

/// The keys under which a 0.x workflow run's result gives each step's
/// start and end (milliseconds since the epoch), which differ from run to
/// run and say nothing of what was sent.
const STEP_TIMES: [&str; 2] = ["startedAt", "endedAt"];

/// Every `"startedAt":N` and `"endedAt":N` within `v` with N written 0: in
/// a result's text, and as the member of an object on Gemini's route.
pub fn zero_step_times_within(v: &mut Json) {
    match v {
        Json::String(text) => *text = zero_step_times(text),
        Json::Array(items) => items.iter_mut().for_each(zero_step_times_within),
        Json::Object(members) => {
            for (key, item) in members.iter_mut() {
                let timed = STEP_TIMES.iter().any(|k| *key == JsString::from(*k));
                if timed && matches!(item, Json::Number(_)) {
                    *item = Json::Number("0".to_string());
                } else {
                    zero_step_times_within(item);
                }
            }
        }
        _ => {}
    }
}

/// `text` with the digits after each `"startedAt":` and `"endedAt":`
/// written 0.
pub fn zero_step_times(text: &JsString) -> JsString {
    let units = text.units();
    let keys: Vec<Vec<u16>> = STEP_TIMES
        .iter()
        .map(|k| format!("\"{k}\":").encode_utf16().collect())
        .collect();
    let digit = |u: u16| (0x30..=0x39).contains(&u);
    let mut out = JsString::new();
    let mut i = 0;
    while i < units.len() {
        match keys.iter().find(|k| units[i..].starts_with(k)) {
            Some(k) if units.get(i + k.len()).is_some_and(|&u| digit(u)) => {
                for &u in k {
                    out.push_unit(u);
                }
                out.push_str("0");
                i += k.len();
                while units.get(i).is_some_and(|&u| digit(u)) {
                    i += 1;
                }
            }
            _ => {
                out.push_unit(units[i]);
                i += 1;
            }
        }
    }
    out
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
    fn validation_reports_keep_the_name_and_arguments_and_lose_the_wording() {
        let zod3 = r#"{"error":true,"message":"Tool input validation failed for search.web. Please fix the following errors and try again:\n- city: Required\n\nProvided arguments: {\n  \"town\": 1\n}","validationErrors":{"_errors":[],"city":{"_errors":["Required"]}}}"#;
        let ajv = r#"{"error":true,"message":"Tool input validation failed for search.web. Please fix the following errors and try again:\n- root: must have required property 'city'\n\nProvided arguments: {\n  \"town\": 1\n}","validationErrors":{"errors":["must have required property 'city'"],"fields":{}}}"#;
        let want = r#"{"error":true,"message":"Tool input validation failed for search.web. Please fix the following errors and try again:\n<issues>\n\nProvided arguments: {\n  \"town\": 1\n}","validationErrors":"<issues>"}"#;
        for text in [zod3, ajv] {
            let mut content = Json::str(text);
            normalise_validation(&mut content);
            assert_eq!(content, Json::str(want), "{text}");
            // Idempotent: a normalised report normalises to itself.
            normalise_validation(&mut content);
            assert_eq!(content, Json::str(want));
            // Gemini's object form.
            let mut object = Json::parse(text).unwrap();
            normalise_validation(&mut object);
            assert_eq!(object, Json::parse(want).unwrap());
        }
        // A name holding the words the normaliser looks for stays whole.
        let odd = r#"{"error":true,"message":"Tool input validation failed for a. Please fix the following errors and try again:\nb. Please fix the following errors and try again:\n- x: y\n\nProvided arguments: {}","validationErrors":{}}"#;
        let mut content = Json::str(odd);
        normalise_validation(&mut content);
        let report = Json::parse(&content.as_str().unwrap().to_lossy()).unwrap();
        let message = report.get("message").unwrap().as_str().unwrap().to_lossy();
        assert!(
            message.contains("for a. Please fix the following errors and try again:\nb. Please fix the following errors and try again:\n<issues>"),
            "{message}"
        );
        // Anything else is left alone.
        for other in [
            r#"{"tempC":20}"#,
            "Tool \"x\" not found.",
            r#"{"error":true,"message":"other"}"#,
        ] {
            let mut content = Json::str(other);
            normalise_validation(&mut content);
            assert_eq!(content, Json::str(other));
        }
    }

    /// A message's stack frames go; a message without any is kept whole.
    #[test]
    fn api_errors_keep_their_name_and_status_at_any_depth_and_in_error_messages() {
        // The shape 1.3.0 sends (stack, port and date differ on every run).
        let api = r#"{"message":"captured","name":"AI_APICallError","stack":"AI_APICallError: captured\n    at file:///x.js:1:2","url":"http://127.0.0.1:38345/t/19/v1/chat/completions","requestBodyValues":{"model":"gpt-4o-mini"},"statusCode":400,"responseHeaders":{"date":"Wed, 02 Dec 2026 02:21:30 GMT"},"responseBody":"{}","isRetryable":false}"#;
        let agent = format!(
            r#"{{"message":"[Agent:probe] - Failed agent tool execution for s","code":"AGENT_AGENT_TOOL_EXECUTION_FAILED","cause":{api}}}"#
        );
        let text = format!(
            r#"{{"message":"m","details":{{"errorMessage":{},"argsJson":"{{\"prompt\":\"Paris\"}}"}},"cause":{agent}}}"#,
            Json::String(JsString::from(agent.as_str())).to_compact()
        );
        let normal_agent = r#"{"message":"[Agent:probe] - Failed agent tool execution for s","code":"AGENT_AGENT_TOOL_EXECUTION_FAILED","cause":{"name":"AI_APICallError","statusCode":400}}"#;
        let expected = format!(
            r#"{{"message":"m","details":{{"errorMessage":{},"argsJson":"{{\"prompt\":\"Paris\"}}"}},"cause":{normal_agent}}}"#,
            Json::String(JsString::from(normal_agent)).to_compact()
        );
        // As JSON text (most routes) and as the object (Gemini's).
        let mut content = Json::String(JsString::from(text.as_str()));
        normalise_api_errors(&mut content);
        assert_eq!(content, Json::String(JsString::from(expected.as_str())));
        let mut object = Json::parse(&text).unwrap();
        normalise_api_errors(&mut object);
        assert_eq!(object, Json::parse(&expected).unwrap());
        // Normalising twice changes nothing; other results are left alone.
        normalise_api_errors(&mut object);
        assert_eq!(object, Json::parse(&expected).unwrap());
        for other in [
            r#"{"tempC":20}"#,
            "plain text",
            r#"{"name":"Error","stack":"x"}"#,
        ] {
            let mut c = Json::String(JsString::from(other));
            normalise_api_errors(&mut c);
            assert_eq!(c, Json::String(JsString::from(other)));
        }
    }

    #[test]
    fn stack_frames_are_cut_from_a_message() {
        let with = JsString::from(
            "Tool nope not found\n    at Object.execute (file:///x.js:1:2)\n    at y",
        );
        assert_eq!(without_stack(&with).to_lossy(), "Tool nope not found");
        let plain = JsString::from("Error: Two or more tools\nsecond line");
        assert_eq!(without_stack(&plain), plain);
    }

    #[test]
    fn step_times_are_zeroed_in_text_and_in_objects() {
        let text =
            JsString::from(r#"{"startedAt":1796181705842,"status":"success","endedAt":17,"n":5}"#);
        assert_eq!(
            zero_step_times(&text).to_lossy(),
            r#"{"startedAt":0,"status":"success","endedAt":0,"n":5}"#
        );
        let mut object = Json::parse(r#"{"a":{"startedAt":12,"x":3},"endedAt":"later"}"#).unwrap();
        zero_step_times_within(&mut object);
        assert_eq!(
            object.to_compact(),
            r#"{"a":{"startedAt":0,"x":3},"endedAt":"later"}"#
        );
    }

    /// 0.x's report ("Tool validation failed") is normalised as 1.x's is.
    #[test]
    fn the_0_x_validation_report_is_normalised_too() {
        let zero = r#"{"error":true,"message":"Tool validation failed for a. Please fix the following errors and try again:\n- city: Required\n\nProvided arguments: {}","validationErrors":{}}"#;
        let mut report = Json::parse(zero).unwrap();
        normalise_validation(&mut report);
        let message = report.get("message").unwrap().as_str().unwrap().to_lossy();
        assert!(
            message.contains("again:\n<issues>\n\nProvided"),
            "{message}"
        );
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
