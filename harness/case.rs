//! `Case`: what one scenario registers and calls, loaded from one JSON file
//! under `cases/` and validated strictly (`shared/case-format.md`).
//!
//! In: a path (or JSON text). Out: a `Case`, or one `CaseError` that names the
//! file, the field and the value that was wrong. The raw JSON is kept, since
//! the probe is given the case as written.

use crate::js::json::Json;
use crate::js::string::JsString;
use crate::route::Route;
use std::fmt;
use std::path::{Path, PathBuf};

mod sources;
pub use sources::{McpServer, MemorySource, Sources, MAX_MCP_TOOLS};

/// A key a tools object is built with: any JavaScript string.
pub type ToolKey = JsString;

#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The file the case came from, as given (reports name cases by it).
    pub path: PathBuf,
    pub about: String,
    pub source: Option<String>,
    pub tools: Vec<Tool>,
    pub toolsets: Option<Vec<(JsString, Vec<Tool>)>>,
    pub client_tools: Option<Vec<Tool>>,
    pub call: Call,
    pub replies: Vec<Reply>,
    /// The wire route of the agent's model (`route`, default
    /// `openai-compatible`).
    pub route: Route,
    /// Sub-agents, workflows, MCP servers, memory, dynamic tools.
    pub sources: Sources,
    /// The case as written, for the probe.
    pub raw: Json,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tool {
    /// `"KEY"`: the standard tool (id `get-weather`), one object per case.
    Standard(ToolKey),
    /// `{ "key", "id", "description" }`: a tool object of its own.
    Custom {
        key: ToolKey,
        id: JsString,
        description: JsString,
    },
    /// `{ "key", "builtin" }`: a named export of `@mastra/core/tools`.
    Builtin { key: ToolKey, name: String },
}

pub const STANDARD_ID: &str = "get-weather";
pub const STANDARD_DESCRIPTION: &str = "Get the weather";

impl Tool {
    pub fn key(&self) -> &ToolKey {
        match self {
            Tool::Standard(key) | Tool::Custom { key, .. } | Tool::Builtin { key, .. } => key,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Generate,
    Stream,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    Auto,
    None,
    Required,
    Tool(ToolKey),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub method: Method,
    pub tool_choice: Option<ToolChoice>,
    pub active_tools: Option<Vec<ToolKey>>,
    pub max_steps: Option<u32>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Error { status: u16, body: Option<Json> },
    ToolCalls(Vec<ToolCallReply>),
    Text(JsString),
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallReply {
    pub id: JsString,
    pub name: JsString,
    pub arguments: Json,
}

impl Reply {
    /// What the listener answers once a case's replies run out.
    pub fn default_reply() -> Reply {
        Reply::Error {
            status: 400,
            body: None,
        }
    }
}

/// One problem with one case file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct CaseError {
    pub file: PathBuf,
    /// A path into the case, such as `call.toolChoice.type`; empty for the
    /// whole file.
    pub field: String,
    pub problem: String,
}

/// A case file that cannot be read is bad input; its message already names
/// the file, the field and the value.
impl From<CaseError> for crate::outcome::Failure {
    fn from(e: CaseError) -> Self {
        crate::outcome::Failure::bad(e.to_string())
    }
}

impl fmt::Display for CaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.file.display(), self.problem)
        } else {
            write!(
                f,
                "{}: field `{}`: {}",
                self.file.display(),
                self.field,
                self.problem
            )
        }
    }
}

/// The largest scripted reply list a case may carry: far above any real
/// agent loop, small enough that a typo (`"replies": [..10^6]`) is caught.
pub const MAX_REPLIES: usize = 64;

impl Case {
    pub fn load(path: &Path) -> Result<Case, CaseError> {
        let bytes = std::fs::read(path).map_err(|e| CaseError {
            file: path.to_path_buf(),
            field: String::new(),
            problem: format!("cannot read the file: {e}"),
        })?;
        let text = String::from_utf8(bytes).map_err(|e| CaseError {
            file: path.to_path_buf(),
            field: String::new(),
            problem: format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to()),
        })?;
        Case::parse(path, &text)
    }

    pub fn parse(path: &Path, text: &str) -> Result<Case, CaseError> {
        let raw = Json::parse(text).map_err(|e| CaseError {
            file: path.to_path_buf(),
            field: String::new(),
            problem: format!("not valid JSON: {e}"),
        })?;
        Case::from_json(path, raw)
    }

    pub fn from_json(path: &Path, raw: Json) -> Result<Case, CaseError> {
        let v = Validator { file: path };
        let known: Vec<&str> = [
            "about",
            "source",
            "tools",
            "toolsets",
            "clientTools",
            "call",
            "replies",
            "route",
        ]
        .into_iter()
        .chain(sources::FIELDS.iter().copied())
        .collect();
        let top = v.object(&raw, "", &known)?;
        let about = v
            .text(top.get("about"), "about")?
            .ok_or_else(|| v.err("about", "is required"))?;
        let source = v.text(top.get("source"), "source")?;
        let tools = match top.get("tools") {
            None => Vec::new(),
            Some(t) => v.tools(t, "tools")?,
        };
        let toolsets = match top.get("toolsets") {
            None => None,
            Some(t) => {
                let sets = v.object(t, "toolsets", &[])?;
                let mut out = Vec::new();
                for (name, list) in sets.members().unwrap_or_default() {
                    let field = format!("toolsets.{}", name.to_lossy());
                    out.push((name.clone(), v.tools(list, &field)?));
                }
                Some(out)
            }
        };
        let client_tools = top
            .get("clientTools")
            .map(|t| v.tools(t, "clientTools"))
            .transpose()?;
        let call = match top.get("call") {
            None => Call {
                method: Method::Generate,
                tool_choice: None,
                active_tools: None,
                max_steps: None,
            },
            Some(c) => v.call(c)?,
        };
        let replies = match top.get("replies") {
            None => vec![Reply::default_reply()],
            Some(r) => v.replies(r)?,
        };
        let route = match v.text(top.get("route"), "route")? {
            None => Route::default(),
            Some(name) => Route::parse(&name).ok_or_else(|| {
                v.err(
                    "route",
                    format!(
                        "{name:?} is not a route: expected one of {}",
                        Route::ALL.map(Route::name).join(", ")
                    ),
                )
            })?,
        };
        let sources = v.sources(top)?;
        Ok(Case {
            path: path.to_path_buf(),
            about,
            source,
            tools,
            toolsets,
            client_tools,
            call,
            replies,
            route,
            sources,
            raw,
        })
    }

    /// Whether a reply is an error Mastra retries with back-off (the AI
    /// SDK retries 408, 409, 429 and 5xx): the case then spends seconds
    /// asleep, whatever the machine.
    pub fn waits_on_retries(&self) -> bool {
        self.replies
            .iter()
            .any(|r| matches!(r, Reply::Error { status, .. } if *status >= 408))
    }

    /// Whether the case file names its own route.
    pub fn names_its_route(&self) -> bool {
        self.raw.get("route").is_some()
    }

    /// The case on `route`: `--route` sets it for every case that does not
    /// name its own. The raw JSON the probe receives says it too.
    pub fn on_route(&self, route: Route) -> Case {
        let mut c = self.clone();
        c.route = route;
        if let Json::Object(members) = &mut c.raw {
            members.retain(|(k, _)| *k != JsString::from("route"));
            members.push((JsString::from("route"), Json::str(route.name())));
        }
        c
    }

    /// The case's name in reports: its path with `/` separators, relative
    /// to the working directory when it lies below it, then `@ROUTE` on a
    /// route other than the default, so that one file on several routes is
    /// several results.
    pub fn name(&self) -> String {
        let cwd = std::env::current_dir().unwrap_or_default();
        let path = self.path.strip_prefix(&cwd).unwrap_or(&self.path);
        let path = path.to_string_lossy().replace('\\', "/");
        if self.route == Route::default() {
            path
        } else {
            format!("{path}@{}", self.route)
        }
    }

    /// Every tool the case gives Mastra, in every tools object.
    pub fn all_tools(&self) -> impl Iterator<Item = &Tool> {
        let sets = self
            .toolsets
            .iter()
            .flatten()
            .flat_map(|(_, tools)| tools.iter());
        self.tools
            .iter()
            .chain(sets)
            .chain(self.client_tools.iter().flatten())
    }
}

struct Validator<'a> {
    file: &'a Path,
}

fn show(v: &Json) -> String {
    let text = v.to_compact();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

impl Validator<'_> {
    fn err(&self, field: &str, problem: impl Into<String>) -> CaseError {
        CaseError {
            file: self.file.to_path_buf(),
            field: field.to_string(),
            problem: problem.into(),
        }
    }

    fn wrong(&self, field: &str, expected: &str, got: &Json) -> CaseError {
        self.err(
            field,
            format!("expected {expected}, got {} {}", got.kind(), show(got)),
        )
    }

    /// An object whose keys are all in `known` (any keys when `known` is
    /// empty). Unknown fields are errors: a misspelt `toolChoise` must not
    /// silently run a different case.
    fn object<'j>(&self, v: &'j Json, field: &str, known: &[&str]) -> Result<&'j Json, CaseError> {
        let Json::Object(members) = v else {
            return Err(self.wrong(
                if field.is_empty() {
                    "(top level)"
                } else {
                    field
                },
                "an object",
                v,
            ));
        };
        // JSON readers disagree on a repeated name (Node's JSON.parse keeps
        // the last, this harness's reader the first), so the model and the
        // probe would run two different cases.
        for (i, (k, _)) in members.iter().enumerate() {
            if members[..i].iter().any(|(earlier, _)| earlier == k) {
                let at = if field.is_empty() {
                    k.to_lossy()
                } else {
                    format!("{field}.{}", k.to_lossy())
                };
                return Err(self.err(&at, "appears twice; give each field once"));
            }
        }
        if !known.is_empty() {
            for (k, _) in members {
                if !known.iter().any(|n| JsString::from(*n) == *k) {
                    let at = if field.is_empty() {
                        k.to_lossy()
                    } else {
                        format!("{field}.{}", k.to_lossy())
                    };
                    return Err(
                        self.err(&at, format!("unknown field (known: {})", known.join(", ")))
                    );
                }
            }
        }
        Ok(v)
    }

    fn text(&self, v: Option<&Json>, field: &str) -> Result<Option<String>, CaseError> {
        match v {
            None => Ok(None),
            Some(Json::String(s)) => s
                .to_rust()
                .map(Some)
                .ok_or_else(|| self.err(field, "holds a lone surrogate")),
            Some(other) => Err(self.wrong(field, "a string", other)),
        }
    }

    fn js(&self, v: Option<&Json>, field: &str) -> Result<JsString, CaseError> {
        match v {
            Some(Json::String(s)) => Ok(s.clone()),
            Some(other) => Err(self.wrong(field, "a string", other)),
            None => Err(self.err(field, "is required")),
        }
    }

    fn tools(&self, v: &Json, field: &str) -> Result<Vec<Tool>, CaseError> {
        let items = v
            .as_array()
            .ok_or_else(|| self.wrong(field, "an array of tools", v))?;
        items
            .iter()
            .enumerate()
            .map(|(i, t)| self.tool(t, &format!("{field}[{i}]")))
            .collect()
    }

    fn tool(&self, v: &Json, field: &str) -> Result<Tool, CaseError> {
        if let Json::String(key) = v {
            return Ok(Tool::Standard(key.clone()));
        }
        let obj = self
            .object(v, field, &["key", "id", "description", "builtin"])
            .map_err(|e| {
                if matches!(v, Json::Object(_)) {
                    e
                } else {
                    self.wrong(field, "a key string or a tool object", v)
                }
            })?;
        let key = self.js(obj.get("key"), &format!("{field}.key"))?;
        match obj.get("builtin") {
            Some(b) => {
                if obj.get("id").is_some() || obj.get("description").is_some() {
                    return Err(self.err(field, "a builtin takes only `key` and `builtin`"));
                }
                let name = self
                    .text(Some(b), &format!("{field}.builtin"))?
                    .unwrap_or_default();
                if !BUILTINS.contains(&name.as_str()) {
                    return Err(self.err(
                        &format!("{field}.builtin"),
                        format!("unknown builtin {name:?} (known: {})", BUILTINS.join(", ")),
                    ));
                }
                Ok(Tool::Builtin { key, name })
            }
            None => Ok(Tool::Custom {
                key,
                id: self.js(obj.get("id"), &format!("{field}.id"))?,
                description: self.js(obj.get("description"), &format!("{field}.description"))?,
            }),
        }
    }

    fn call(&self, v: &Json) -> Result<Call, CaseError> {
        let obj = self.object(
            v,
            "call",
            &["method", "toolChoice", "activeTools", "maxSteps"],
        )?;
        let method = match obj.get("method") {
            None => Method::Generate,
            Some(m) => match m.as_str().and_then(JsString::to_rust).as_deref() {
                Some("generate") => Method::Generate,
                Some("stream") => Method::Stream,
                _ => return Err(self.wrong("call.method", "\"generate\" or \"stream\"", m)),
            },
        };
        let tool_choice = obj
            .get("toolChoice")
            .map(|t| self.tool_choice(t))
            .transpose()?;
        let active_tools = match obj.get("activeTools") {
            None => None,
            Some(a) => {
                let items = a
                    .as_array()
                    .ok_or_else(|| self.wrong("call.activeTools", "an array of keys", a))?;
                let keys = items
                    .iter()
                    .enumerate()
                    .map(|(i, k)| self.js(Some(k), &format!("call.activeTools[{i}]")))
                    .collect::<Result<Vec<_>, _>>()?;
                Some(keys)
            }
        };
        let max_steps = match obj.get("maxSteps") {
            None => None,
            Some(n) => match n.as_f64() {
                Some(x) if x.fract() == 0.0 && (1.0..=1000.0).contains(&x) => Some(x as u32),
                _ => return Err(self.wrong("call.maxSteps", "an integer from 1 to 1000", n)),
            },
        };
        Ok(Call {
            method,
            tool_choice,
            active_tools,
            max_steps,
        })
    }

    fn tool_choice(&self, v: &Json) -> Result<ToolChoice, CaseError> {
        const FIELD: &str = "call.toolChoice";
        const EXPECTED: &str =
            "\"auto\", \"none\", \"required\" or { \"type\": \"tool\", \"toolName\": KEY }";
        match v {
            Json::String(s) => match s.to_rust().as_deref() {
                Some("auto") => Ok(ToolChoice::Auto),
                Some("none") => Ok(ToolChoice::None),
                Some("required") => Ok(ToolChoice::Required),
                _ => Err(self.wrong(FIELD, EXPECTED, v)),
            },
            Json::Object(_) => {
                let obj = self.object(v, FIELD, &["type", "toolName"])?;
                match obj.get("type") {
                    Some(t) if t.as_str() == Some(&JsString::from("tool")) => {}
                    Some(t) => return Err(self.wrong("call.toolChoice.type", "\"tool\"", t)),
                    None => return Err(self.err("call.toolChoice.type", "is required")),
                }
                Ok(ToolChoice::Tool(
                    self.js(obj.get("toolName"), "call.toolChoice.toolName")?,
                ))
            }
            _ => Err(self.wrong(FIELD, EXPECTED, v)),
        }
    }

    fn replies(&self, v: &Json) -> Result<Vec<Reply>, CaseError> {
        let items = v
            .as_array()
            .ok_or_else(|| self.wrong("replies", "an array of replies", v))?;
        if items.len() > MAX_REPLIES {
            return Err(self.err(
                "replies",
                format!(
                    "{} replies; at most {MAX_REPLIES} fit one case",
                    items.len()
                ),
            ));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, r)| self.reply(r, &format!("replies[{i}]")))
            .collect()
    }

    fn reply(&self, v: &Json, field: &str) -> Result<Reply, CaseError> {
        let obj = self.object(v, field, &["status", "body", "toolCalls", "text"])?;
        let present: Vec<&str> = ["status", "toolCalls", "text"]
            .into_iter()
            .filter(|k| obj.get(k).is_some())
            .collect();
        if present.len() != 1 {
            return Err(self.err(field, "needs exactly one of `status`, `toolCalls`, `text`"));
        }
        if obj.get("body").is_some() && present[0] != "status" {
            return Err(self.err(
                &format!("{field}.body"),
                "only an error reply (`status`) takes a body",
            ));
        }
        match present[0] {
            "status" => {
                let s = obj.get("status").unwrap_or(&Json::Null);
                let status = match s.as_f64() {
                    Some(x) if x.fract() == 0.0 && (400.0..=599.0).contains(&x) => x as u16,
                    _ => {
                        return Err(self.wrong(
                            &format!("{field}.status"),
                            "an HTTP error status from 400 to 599",
                            s,
                        ))
                    }
                };
                Ok(Reply::Error {
                    status,
                    body: obj.get("body").cloned(),
                })
            }
            "text" => Ok(Reply::Text(
                self.js(obj.get("text"), &format!("{field}.text"))?,
            )),
            _ => {
                let calls_field = format!("{field}.toolCalls");
                let calls = obj.get("toolCalls").unwrap_or(&Json::Null);
                let items = calls
                    .as_array()
                    .ok_or_else(|| self.wrong(&calls_field, "an array of tool calls", calls))?;
                let mut out = Vec::new();
                for (i, c) in items.iter().enumerate() {
                    let f = format!("{calls_field}[{i}]");
                    let c = self.object(c, &f, &["id", "name", "arguments"])?;
                    let arguments = c
                        .get("arguments")
                        .cloned()
                        .unwrap_or(Json::Object(Vec::new()));
                    if !matches!(arguments, Json::Object(_)) {
                        return Err(self.wrong(&format!("{f}.arguments"), "an object", &arguments));
                    }
                    out.push(ToolCallReply {
                        id: self.js(c.get("id"), &format!("{f}.id"))?,
                        name: self.js(c.get("name"), &format!("{f}.name"))?,
                        arguments,
                    });
                }
                if out.is_empty() {
                    return Err(self.err(
                        &calls_field,
                        "is empty; a tool-call reply needs at least one call",
                    ));
                }
                Ok(Reply::ToolCalls(out))
            }
        }
    }
}

/// The builtins a case may name: the tool exports of `@mastra/core/tools`
/// (1.67.0 and later). A version that lacks one makes the case not
/// applicable there.
pub const BUILTINS: &[&str] = &[
    "askUserTool",
    "submitPlanTool",
    "taskWriteTool",
    "taskUpdateTool",
    "taskCompleteTool",
    "taskCheckTool",
    "webFetchTool",
    "webSearchTool",
];

/// Every case file under `root` (a file, or a folder walked in sorted order).
/// Symbolic links are followed, each folder walked once: a link back up the
/// tree would otherwise be walked until the path is too long.
pub fn discover(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    discover_once(root, &mut std::collections::HashSet::new())
}

fn discover_once(
    root: &Path,
    seen: &mut std::collections::HashSet<PathBuf>,
) -> std::io::Result<Vec<PathBuf>> {
    if root.is_file() {
        return Ok(vec![root.to_path_buf()]);
    }
    if !seen.insert(std::fs::canonicalize(root)?) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(root)?.collect::<Result<Vec<_>, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            out.extend(discover_once(&path, seen)?);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Case, CaseError> {
        Case::parse(Path::new("cases/x.json"), text)
    }

    #[test]
    fn the_format_example_parses() {
        let c = parse(
            r#"{"about":"a","source":"s","tools":["search.web"],
                "call":{"method":"generate","toolChoice":{"type":"tool","toolName":"search.web"}}}"#,
        )
        .unwrap();
        assert_eq!(c.tools, vec![Tool::Standard("search.web".into())]);
        assert_eq!(
            c.call.tool_choice,
            Some(ToolChoice::Tool("search.web".into()))
        );
        assert_eq!(c.replies, vec![Reply::default_reply()]);
    }

    #[test]
    fn lone_surrogate_keys_are_kept() {
        let c = parse(r#"{"about":"a","tools":["\ud800x"]}"#).unwrap();
        assert_eq!(c.tools[0].key().units(), &[0xD800, u16::from(b'x')]);
    }

    #[test]
    fn each_bad_input_names_file_field_and_value() {
        let cases = [
            (r#"{"about":"a","toolz":[]}"#, "toolz", "unknown field"),
            (r#"{"tools":[]}"#, "about", "required"),
            (
                r#"{"about":"a","tools":"x"}"#,
                "tools",
                "got a string \"x\"",
            ),
            (
                r#"{"about":"a","tools":[{"key":"k","builtin":"nopeTool"}]}"#,
                "tools[0].builtin",
                "nopeTool",
            ),
            (
                r#"{"about":"a","call":{"toolChoice":"always"}}"#,
                "call.toolChoice",
                "\"always\"",
            ),
            (
                r#"{"about":"a","call":{"method":"run"}}"#,
                "call.method",
                "\"run\"",
            ),
            (
                r#"{"about":"a","replies":[{"status":200}]}"#,
                "replies[0].status",
                "200",
            ),
            (
                r#"{"about":"a","replies":[{"text":"x","status":400}]}"#,
                "replies[0]",
                "exactly one",
            ),
            (
                r#"{"about":"a","call":{"maxSteps":0}}"#,
                "call.maxSteps",
                "0",
            ),
        ];
        for (text, field, needle) in cases {
            let e = parse(text).unwrap_err();
            assert_eq!(e.field, field, "{text}");
            let shown = e.to_string();
            assert!(shown.starts_with("cases/x.json: field `"), "{shown}");
            assert!(shown.contains(needle), "{shown} should mention {needle}");
        }
        let e = parse("{\"about\": ").unwrap_err();
        assert!(e.to_string().contains("not valid JSON: line 1"), "{e}");
    }

    #[test]
    fn a_repeated_field_is_an_error() {
        let e = parse(r#"{"about":"a","tools":["x"],"tools":["y"]}"#).unwrap_err();
        assert_eq!(e.field, "tools");
        let e = parse(r#"{"about":"a","toolsets":{"s":[],"s":["x"]}}"#).unwrap_err();
        assert_eq!(e.field, "toolsets.s");
    }

    #[test]
    fn too_many_replies_is_an_error() {
        let replies = vec![r#"{"text":"x"}"#; MAX_REPLIES + 1].join(",");
        let e = parse(&format!(r#"{{"about":"a","replies":[{replies}]}}"#)).unwrap_err();
        assert_eq!(e.field, "replies");
    }
}
