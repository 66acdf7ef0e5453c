//! `LintConfig`: what a project turns off, changes or allows, read from
//! `mastra-conform.json` at its root or the `"mastra-conform"` key of its
//! `package.json` (the same object either way):
//!
//! ```json
//! {
//!   "rules": { "tool-key-rewritten": "off", "mcp-server-unavailable": "error" },
//!   "allow": ["search.web", "github_*"]
//! }
//! ```
//!
//! In: the object's text and where it came from. Out: a `LintConfig`, or a
//! `ConfigError` naming the file, the field and the value. `rules` sets a
//! rule `off` or to `warning` or `error`; `allow` lists keys (and MCP server
//! or option names) whose findings are suppressed, `*` matching any run of
//! characters. Inline comments (`// mastra-conform-ignore RULE`) are read by
//! the loader, not here.

use super::rules::Rule;
use crate::js::json::Json;
use crate::js::string::JsString;

/// What a rule is set to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Off,
    Warning,
    Error,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LintConfig {
    /// Where it was read (`mastra-conform.json`), for reports.
    pub origin: Option<String>,
    pub levels: Vec<(Rule, Level)>,
    pub allow: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {what}")]
pub struct ConfigError {
    pub origin: String,
    pub what: String,
}

impl LintConfig {
    /// The level the configuration sets RULE to, if any.
    pub fn level(&self, rule: Rule) -> Option<Level> {
        self.levels
            .iter()
            .rev()
            .find(|(r, _)| *r == rule)
            .map(|(_, l)| *l)
    }

    /// The `allow` pattern that matches SUBJECT, if one does.
    pub fn allowed(&self, subject: &JsString) -> Option<&str> {
        let subject = subject.to_lossy();
        self.allow
            .iter()
            .find(|p| glob_matches(p, &subject))
            .map(String::as_str)
    }
}

/// Read a configuration object. ORIGIN names it in errors
/// (`mastra-conform.json`, `package.json's "mastra-conform"`).
pub fn parse_config(value: &Json, origin: &str) -> Result<LintConfig, ConfigError> {
    let bad = |field: &str, what: String| ConfigError {
        origin: origin.to_string(),
        what: if field.is_empty() {
            what
        } else {
            format!("field `{field}`: {what}")
        },
    };
    let Json::Object(members) = value else {
        return Err(bad("", format!("expected an object, got {}", value.kind())));
    };
    no_repeats(members, "").map_err(|k| bad(&k, "given twice".into()))?;
    let mut config = LintConfig {
        origin: Some(origin.to_string()),
        ..LintConfig::default()
    };
    for (key, v) in members {
        match key.to_lossy().as_str() {
            "rules" => {
                let Json::Object(rules) = v else {
                    return Err(bad(
                        "rules",
                        format!(
                            "expected an object of rule ids and levels, got {}",
                            v.kind()
                        ),
                    ));
                };
                no_repeats(rules, "rules.").map_err(|k| bad(&k, "given twice".into()))?;
                for (id, level) in rules {
                    let id = id.to_lossy();
                    let field = format!("rules.{id}");
                    let rule = Rule::from_id(&id).ok_or_else(|| {
                        bad(
                            &field,
                            format!(
                                "no such rule (the rules: {})",
                                Rule::ALL.map(Rule::id).join(", ")
                            ),
                        )
                    })?;
                    let level = match level.as_str().map(JsString::to_lossy).as_deref() {
                        Some("off") => Level::Off,
                        Some("warning" | "warn") => Level::Warning,
                        Some("error") => Level::Error,
                        _ => {
                            return Err(bad(
                                &field,
                                format!(
                                    "expected \"off\", \"warning\" or \"error\", got {}",
                                    level.to_compact()
                                ),
                            ))
                        }
                    };
                    config.levels.push((rule, level));
                }
            }
            "allow" => {
                let items = v.as_array().ok_or_else(|| {
                    bad(
                        "allow",
                        format!("expected an array of keys, got {}", v.kind()),
                    )
                })?;
                for (i, item) in items.iter().enumerate() {
                    let s = item.as_str().ok_or_else(|| {
                        bad(
                            &format!("allow[{i}]"),
                            format!("expected a string, got {}", item.kind()),
                        )
                    })?;
                    config.allow.push(s.to_lossy());
                }
            }
            "$schema" => {}
            other => {
                return Err(bad(
                    other,
                    "unknown field (known: rules, allow)".to_string(),
                ))
            }
        }
    }
    Ok(config)
}

fn no_repeats(members: &[(JsString, Json)], prefix: &str) -> Result<(), String> {
    for (i, (k, _)) in members.iter().enumerate() {
        if members[..i].iter().any(|(seen, _)| seen == k) {
            return Err(format!("{prefix}{}", k.to_lossy()));
        }
    }
    Ok(())
}

/// Whether TEXT matches PATTERN, where `*` is any run of characters and
/// everything else is itself.
fn glob_matches(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Result<LintConfig, ConfigError> {
        parse_config(&Json::parse(text).unwrap(), "mastra-conform.json")
    }

    #[test]
    fn rules_and_allowed_keys_are_read() {
        let c = config(
            r#"{"rules":{"tool-key-rewritten":"off","tool-key-cut":"error"},"allow":["fs.local_*","a"]}"#,
        )
        .unwrap();
        assert_eq!(c.level(Rule::Rewritten), Some(Level::Off));
        assert_eq!(c.level(Rule::Cut), Some(Level::Error));
        assert_eq!(c.level(Rule::Collision), None);
        assert_eq!(
            c.allowed(&JsString::from("fs.local_read_file")),
            Some("fs.local_*")
        );
        assert_eq!(c.allowed(&JsString::from("a")), Some("a"));
        assert_eq!(c.allowed(&JsString::from("ab")), None);
    }

    #[test]
    fn a_bad_configuration_names_the_file_field_and_value() {
        let e = config(r#"{"rules":{"no-such-rule":"off"}}"#).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("mastra-conform.json: field `rules.no-such-rule`: no such rule"),
            "{e}"
        );
        let e = config(r#"{"rules":{"tool-key-cut":"loud"}}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "mastra-conform.json: field `rules.tool-key-cut`: expected \"off\", \"warning\" or \"error\", got \"loud\""
        );
        let e = config(r#"{"allow":[1]}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "mastra-conform.json: field `allow[0]`: expected a string, got a number"
        );
        let e = config(r#"{"ignore":[]}"#).unwrap_err();
        assert!(
            e.to_string().contains("field `ignore`: unknown field"),
            "{e}"
        );
        let e = config(r#"{"allow":[],"allow":["x"]}"#).unwrap_err();
        assert!(e.to_string().contains("field `allow`: given twice"), "{e}");
        let e = config("[]").unwrap_err();
        assert!(e.to_string().contains("expected an object"), "{e}");
    }

    #[test]
    fn globs_match_runs_of_characters() {
        for (p, t, m) in [
            ("a*", "abc", true),
            ("*c", "abc", true),
            ("a*c", "abc", true),
            ("a*c", "ac", true),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxc", false),
            ("ab*ba", "aba", false),
            ("abc", "abc", true),
            ("abc", "abd", false),
        ] {
            assert_eq!(glob_matches(p, t), m, "{p} {t}");
        }
    }
}
