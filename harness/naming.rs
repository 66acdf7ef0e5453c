//! The rewrite `Agent.formatTools()` applies to one key (`rewrite`,
//! `wire_name`), and the names every plain JavaScript object inherits
//! (`OBJECT_PROTOTYPE`): facts of Mastra and of JavaScript that every stage
//! reads, the model, the fuzzer's generator and shrinker, and lint. They
//! live below the model so that the generator can aim its inputs at the
//! rewrite without importing the model it tests.
//!
//! In: a key. Out: the name the provider is offered, or why there is none.
//! Pure. `model::rewrite` runs the whole `formatTools` over a record (its
//! reordering and collision check) on top of these.
//!
//! Mastra's code, identical in every 1.x release swept
//! (1.67.0 `dist/agent-Dk0N0Nlg.js:37205`, 1.0.4 `dist/chunk-FKO2M32N.js:18528`):
//!
//! ```js
//! const INVALID_CHAR_REGEX = /[^a-zA-Z0-9_\-]/g;
//! const STARTING_CHAR_REGEX = /[a-zA-Z_]/;
//! for (const key of Object.keys(tools)) if (tools[key] && (key.length > 63
//!     || key.match(INVALID_CHAR_REGEX) || !key[0].match(STARTING_CHAR_REGEX))) {
//!   let newKey = key.replace(INVALID_CHAR_REGEX, "_");
//!   if (!newKey[0].match(STARTING_CHAR_REGEX)) newKey = "_" + newKey;
//!   newKey = newKey.slice(0, 63);
//!   if (tools[newKey]) throw new MastraError({ id: "AGENT_TOOL_NAME_COLLISION", ... });
//!   tools[newKey] = tools[key];
//!   delete tools[key];
//! }
//! ```
//!
//! The regexes have no `u` flag, so they see UTF-16 code units: an emoji is
//! two characters outside the set and becomes `__`; a lone surrogate is one.

use crate::js::string::JsString;

/// The properties of `Object.prototype` in Node 24 (all truthy functions,
/// `__proto__` an accessor whose getter returns the prototype itself).
pub const OBJECT_PROTOTYPE: &[&str] = &[
    "constructor",
    "__defineGetter__",
    "__defineSetter__",
    "hasOwnProperty",
    "__lookupGetter__",
    "__lookupSetter__",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toString",
    "valueOf",
    "__proto__",
    "toLocaleString",
];

/// Whether `key` names a property every plain object inherits.
/// Compared unit by unit, with no string made per name: the model asks this
/// of every property lookup. The names are ASCII, so their byte length is
/// their length in UTF-16 units.
pub fn is_inherited_name(key: &JsString) -> bool {
    let units = key.units();
    OBJECT_PROTOTYPE
        .iter()
        .any(|n| n.len() == units.len() && n.encode_utf16().eq(units.iter().copied()))
}

/// The cut: `newKey.slice(0, 63)`. Providers allow 64.
pub const MAX_NAME: usize = 63;

/// What one key does in `formatTools`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rewrite {
    /// Already a valid name: sent as is, keeps its place.
    Kept,
    /// Sent under this name, moved to the end of the tools.
    Renamed(JsString),
    /// `key[0]` is `undefined`: `undefined.match(...)` throws a TypeError.
    Crash,
}

fn allowed(u: u16) -> bool {
    matches!(u, 0x30..=0x39 | 0x41..=0x5A | 0x61..=0x7A | 0x5F | 0x2D)
}

fn starting(u: u16) -> bool {
    matches!(u, 0x41..=0x5A | 0x61..=0x7A | 0x5F)
}

/// Whether `key` is sent unchanged.
pub fn is_valid_name(key: &JsString) -> bool {
    matches!(key.unit(0), Some(u) if starting(u)) && key.len() <= MAX_NAME && key.all_units(allowed)
}

/// The rewrite of one key, with JavaScript's short-circuit order: the
/// length test and the character test come before `key[0]` is read, so the
/// empty key is the only one that crashes.
pub fn rewrite(key: &JsString) -> Rewrite {
    let needs = key.len() > MAX_NAME || !key.all_units(allowed) || {
        match key.unit(0) {
            None => return Rewrite::Crash,
            Some(u) => !starting(u),
        }
    };
    if !needs {
        return Rewrite::Kept;
    }
    let mut name = JsString::from_units(
        key.units()
            .iter()
            .map(|&u| if allowed(u) { u } else { 0x5F })
            .collect(),
    );
    if !name.unit(0).is_some_and(starting) {
        name = JsString::from("_").concat(&name);
    }
    Rewrite::Renamed(name.slice(0, MAX_NAME))
}

/// The name the model is offered for `key` alone (no collision check): the
/// key itself when valid.
pub fn wire_name(key: &JsString) -> Option<JsString> {
    match rewrite(key) {
        Rewrite::Kept => Some(key.clone()),
        Rewrite::Renamed(n) => Some(n),
        Rewrite::Crash => None,
    }
}

/// The id each builtin of `@mastra/core/tools` carries (what the model can
/// also call it by), read from the swept releases' dists. `webSearchTool`
/// has none: it is a marker Mastra swaps for the provider's own web search,
/// which the model does not cover.
pub const BUILTIN_IDS: &[(&str, &str)] = &[
    ("askUserTool", "ask_user"),
    ("submitPlanTool", "submit_plan"),
    ("taskWriteTool", "task_write"),
    ("taskUpdateTool", "task_update"),
    ("taskCompleteTool", "task_complete"),
    ("taskCheckTool", "task_check"),
    ("webFetchTool", "web_fetch"),
];

/// The id the builtin `name` carries (`BUILTIN_IDS`).
pub fn builtin_id(name: &str) -> Option<&'static str> {
    BUILTIN_IDS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, id)| *id)
}

/// The key (and id) `MCPClient.listTools()` gives a server's tool:
/// `SERVER_TOOL`, the server's key in `servers`, `_`, the tool's MCP name.
pub fn mcp_tool_key(server: &JsString, tool: &JsString) -> JsString {
    let mut key = server.clone();
    key.push_str("_");
    key.concat(tool)
}
