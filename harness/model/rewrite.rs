//! `format_tools`: `Agent.formatTools()` over a whole tools record, exact to
//! JavaScript: its reordering (a renamed key moves to the end) and its
//! collision check, on top of the one-key rewrite in `crate::naming`
//! (re-exported here), which quotes Mastra's code.

pub use crate::naming::{is_valid_name, rewrite, wire_name, Rewrite, MAX_NAME};

use super::record::{Lookup, Record};
use crate::js::string::JsString;

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
