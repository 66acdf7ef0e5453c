//! The rewrite in `Agent.formatTools()`, exact to JavaScript: `wire_name`
//! (one key) and `format_tools` (a whole tools record, with its reordering
//! and its collision check).
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

use super::record::{Lookup, Record};
use crate::js::string::JsString;

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

/// Why `formatTools` threw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormatError {
    /// `AGENT_TOOL_NAME_COLLISION` for `name`; `inherited` when the name it
    /// ran into is not a tool at all but a property of `Object.prototype`.
    Collision {
        key: JsString,
        name: JsString,
        inherited: bool,
    },
    /// The TypeError from the empty key.
    EmptyKey,
}

impl FormatError {
    pub fn message(&self) -> JsString {
        match self {
            FormatError::Collision { name, .. } => {
                let mut m = JsString::from("Two or more tools resolve to the same name \"");
                m = m.concat(name);
                m.push_str("\". Please rename one of the tools to avoid this collision.");
                m
            }
            FormatError::EmptyKey => {
                JsString::from("Cannot read properties of undefined (reading 'match')")
            }
        }
    }
}

/// One key's fate in a `format_tools` run, for `lint` and reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renaming {
    pub key: JsString,
    pub name: JsString,
}

/// Run `formatTools` on `tools` in place. On success returns the renamings
/// in the order they happened.
pub fn format_tools<V: Clone>(tools: &mut Record<V>) -> Result<Vec<Renaming>, FormatError> {
    let mut renamed = Vec::new();
    for key in tools.keys() {
        // `tools[key] &&`: every tool object is truthy; a key removed by an
        // earlier step cannot be reached, since only the current key is
        // ever deleted.
        let value = match tools.get(&key) {
            Lookup::Own(v) => v.clone(),
            _ => continue,
        };
        let name = match rewrite(&key) {
            Rewrite::Kept => continue,
            Rewrite::Crash => return Err(FormatError::EmptyKey),
            Rewrite::Renamed(name) => name,
        };
        match tools.get(&name) {
            Lookup::Missing => {}
            hit => {
                return Err(FormatError::Collision {
                    key,
                    name,
                    inherited: matches!(hit, Lookup::Inherited),
                });
            }
        }
        tools.assign(name.clone(), value);
        tools.delete(&key);
        renamed.push(Renaming { key, name });
    }
    Ok(renamed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn js(s: &str) -> JsString {
        JsString::from(s)
    }

    fn name(s: &str) -> String {
        wire_name(&js(s)).unwrap().to_lossy()
    }

    /// The report's rewrite table ("The rewrite rules, measured").
    #[test]
    fn report_rewrite_table() {
        let table = [
            ("weather", "weather"),
            ("search.web", "search_web"),
            ("a b", "a_b"),
            ("1abc", "_1abc"),
            ("-x", "_-x"),
            ("weather-EU", "weather-EU"),
            ("_ok", "_ok"),
            ("a/b:c", "a_b_c"),
            ("Z", "Z"),
        ];
        for (key, want) in table {
            assert_eq!(name(key), want, "{key}");
        }
    }

    /// "the prefix is applied before the truncation, so a 63-character key
    /// beginning with a digit loses its last character to make room."
    #[test]
    fn report_prefix_before_cut() {
        let key = format!("9{}", "y".repeat(62));
        assert_eq!(key.len(), 63);
        assert_eq!(name(&key), format!("_9{}", "y".repeat(61)));
        assert_eq!(name(&key).len(), 63);
    }

    /// "The truncation is 63, and the providers allow 64."
    #[test]
    fn report_cut_at_63() {
        let key = "x".repeat(64);
        assert_eq!(name(&key), "x".repeat(63));
        assert_eq!(name(&"x".repeat(63)), "x".repeat(63), "63 is kept whole");
    }

    #[test]
    fn code_units_not_characters() {
        assert_eq!(name("ünï"), "_n_", "é-like letters are outside the set");
        assert_eq!(name("😀"), "__", "an astral character is two code units");
        assert_eq!(
            wire_name(&JsString::from_units(vec![0xD800, 0x78]))
                .unwrap()
                .to_lossy(),
            "_x"
        );
        // 62 ASCII + an emoji = 64 units: the cut lands between the halves,
        // after both became underscores.
        let key = format!("{}😀", "a".repeat(62));
        assert_eq!(name(&key), format!("{}_", "a".repeat(62)));
    }

    #[test]
    fn empty_key_crashes_and_nothing_else_does() {
        assert_eq!(rewrite(&js("")), Rewrite::Crash);
        assert_eq!(rewrite(&js("\0")), Rewrite::Renamed(js("_")));
    }

    fn record(keys: &[&str]) -> Record<usize> {
        Record::from_entries(keys.iter().enumerate().map(|(i, k)| (js(k), i)))
    }

    fn formatted(keys: &[&str]) -> Result<Vec<String>, FormatError> {
        let mut r = record(keys);
        format_tools(&mut r)?;
        Ok(r.keys().iter().map(JsString::to_lossy).collect())
    }

    /// "Keys that need no rewriting stay where they are; rewritten keys are
    /// removed and re-added, so they move to the end of the tool list."
    #[test]
    fn report_rewritten_keys_move_to_the_end() {
        assert_eq!(
            formatted(&["a.b", "valid1", "c.d", "valid2"]).unwrap(),
            ["valid1", "valid2", "a_b", "c_d"]
        );
    }

    #[test]
    fn index_keys_are_rewritten_first_in_numeric_order() {
        let keys = [
            "b",
            "c.d",
            "10",
            "9",
            "a",
            "4294967295",
            "4294967294",
            "01",
            "-1",
            "1.5",
        ];
        assert_eq!(
            formatted(&keys).unwrap(),
            [
                "b",
                "a",
                "_9",
                "_10",
                "_4294967294",
                "c_d",
                "_4294967295",
                "_01",
                "_-1",
                "_1_5"
            ]
        );
    }

    /// "The collision error is the good news."
    #[test]
    fn report_collisions() {
        let e = formatted(&["search.web", "search web"]).unwrap_err();
        assert_eq!(
            e,
            FormatError::Collision {
                key: js("search web"),
                name: js("search_web"),
                inherited: false
            }
        );
        assert_eq!(
            e.message().to_lossy(),
            "Two or more tools resolve to the same name \"search_web\". Please rename one of the tools to avoid this collision."
        );
        let long_a = format!("{}a", "k".repeat(63));
        let long_b = format!("{}b", "k".repeat(63));
        assert!(matches!(
            formatted(&[&long_a, &long_b]),
            Err(FormatError::Collision { .. })
        ));
        // Against a valid key that comes later, too.
        assert!(formatted(&["search.web", "search_web"]).is_err());
        assert!(
            formatted(&["search_web", "x"]).is_ok(),
            "valid keys never collide"
        );
    }

    #[test]
    fn rewrites_onto_inherited_names_are_false_collisions() {
        let e = formatted(&["__proto_."]).unwrap_err();
        assert_eq!(
            e,
            FormatError::Collision {
                key: js("__proto_."),
                name: js("__proto__"),
                inherited: true
            }
        );
        assert!(formatted(&["__defineGetter_."]).is_err());
        // Registered directly, inherited names are ordinary valid keys.
        assert_eq!(
            formatted(&["constructor", "toString"]).unwrap(),
            ["constructor", "toString"]
        );
    }

    #[test]
    fn empty_key_throws_where_it_is_reached() {
        assert_eq!(formatted(&["a", ""]).unwrap_err(), FormatError::EmptyKey);
        // A collision earlier in key order throws first.
        assert!(matches!(
            formatted(&["a.b", "a b", ""]),
            Err(FormatError::Collision { .. })
        ));
    }
}
