//! SARIF 2.1.0 for `lint --project`: one run, one rule per kind of problem
//! (with its full description and its page, `docs/rules/ID.md`), one result
//! per `Finding`, placed where the key is written, so GitHub code scanning
//! shows it there.
//!
//! In: a `ProjectLint` and a `SarifRoot` (the folder URIs are relative to,
//! and the path from it to the project). Out: the SARIF log as `Json`.
//! Artifact URIs are relative to the root (`uriBaseId` `SRCROOT`, given as
//! an absolute `file:` URI in `originalUriBaseIds`): the folder lint ran in
//! when the project is below it (a repository's checkout, for code
//! scanning), else the project. A finding with no place in the source is
//! given the file of its agent (or the entry) with no region: it is about
//! that file, not about a line of it. Suppressed findings are results with
//! `suppressions` (`inSource` for a comment, `external` for the
//! configuration). `failed` writes the log of a run that could not lint:
//! no results, the error as a tool execution notification.

use crate::js::json::Json;
use crate::lint::project::{Finding, ProjectLint, Rule, SuppressedBy};
use crate::lint::Severity;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const INFORMATION_URI: &str = "https://github.com/mastra-conform/mastra-conform";

/// Where URIs start: an absolute folder, and the path from it to the
/// project (`""` or `examples/app/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SarifRoot {
    pub dir: String,
    pub prefix: String,
}

fn driver(tool_version: &str) -> Json {
    let rules = Rule::ALL
        .iter()
        .map(|r| {
            Json::object([
                ("id", Json::str(r.id())),
                (
                    "shortDescription",
                    Json::object([("text", Json::str(r.summary()))]),
                ),
                (
                    "fullDescription",
                    Json::object([("text", Json::str(r.description()))]),
                ),
                ("helpUri", Json::str(&r.help_uri())),
                (
                    "help",
                    Json::object([(
                        "text",
                        Json::str(&format!("{} See {}", r.description(), r.help_uri())),
                    )]),
                ),
                (
                    "defaultConfiguration",
                    Json::object([("level", Json::str(level(r.severity())))]),
                ),
            ])
        })
        .collect();
    Json::object([(
        "driver",
        Json::object([
            ("name", Json::str("mastra-conform")),
            ("version", Json::str(tool_version)),
            ("informationUri", Json::str(INFORMATION_URI)),
            ("rules", Json::Array(rules)),
        ]),
    )])
}

fn log(run: Vec<(&str, Json)>) -> Json {
    Json::object([
        ("$schema", Json::str(SCHEMA)),
        ("version", Json::str("2.1.0")),
        ("runs", Json::Array(vec![Json::object(run)])),
    ])
}

fn base_ids(root: &SarifRoot) -> Json {
    let dir = format!("file://{}/", uri_path(root.dir.trim_end_matches('/')));
    Json::object([("SRCROOT", Json::object([("uri", Json::str(&dir))]))])
}

pub fn sarif(lint: &ProjectLint, tool_version: &str, root: &SarifRoot) -> Json {
    let mut results = Vec::new();
    let mut add = |f: &Finding, agent: Option<&str>, fallback: &str, by: Option<&SuppressedBy>| {
        let rule_index = Rule::ALL.iter().position(|r| *r == f.rule).unwrap_or(0);
        let physical = match &f.at {
            Some(l) => Json::object([
                ("artifactLocation", artifact(root, &l.file)),
                (
                    "region",
                    Json::object([
                        ("startLine", Json::int(l.line.max(1) as i64)),
                        ("startColumn", Json::int(l.column.max(1) as i64)),
                    ]),
                ),
            ]),
            None => Json::object([("artifactLocation", artifact(root, fallback))]),
        };
        let message = match agent {
            Some(a) => format!("agent {a}: {}", f.message),
            None => f.message.clone(),
        };
        let mut members = vec![
            ("ruleId", Json::str(f.rule.id())),
            ("ruleIndex", Json::int(rule_index as i64)),
            ("level", Json::str(level(f.severity))),
            ("message", Json::object([("text", Json::str(&message))])),
            (
                "locations",
                Json::Array(vec![Json::object([("physicalLocation", physical)])]),
            ),
            (
                "properties",
                Json::object([
                    ("subject", Json::String(f.subject.clone())),
                    ("writtenInSource", Json::Bool(f.at.is_some())),
                ]),
            ),
        ];
        if let Some(by) = by {
            let kind = match by {
                SuppressedBy::Comment { .. } => "inSource",
                _ => "external",
            };
            members.push((
                "suppressions",
                Json::Array(vec![Json::object([
                    ("kind", Json::str(kind)),
                    ("justification", Json::str(&by.describe())),
                ])]),
            ));
        }
        results.push(Json::object(members));
    };
    for a in &lint.agents {
        let name = Json::String(a.agent.registered_as.clone()).to_compact();
        let file = a
            .agent
            .at
            .as_ref()
            .map_or(lint.project.entry.as_str(), |l| l.file.as_str());
        for f in &a.findings {
            add(f, Some(&name), file, None);
        }
        for s in &a.suppressed {
            add(&s.finding, Some(&name), file, Some(&s.by));
        }
    }
    for f in &lint.findings {
        add(f, None, &lint.project.entry, None);
    }
    for s in &lint.suppressed {
        add(&s.finding, None, &lint.project.entry, Some(&s.by));
    }
    log(vec![
        ("tool", driver(tool_version)),
        ("originalUriBaseIds", base_ids(root)),
        (
            "invocations",
            Json::Array(vec![Json::object([(
                "executionSuccessful",
                Json::Bool(true),
            )])]),
        ),
        (
            "properties",
            Json::object([
                ("mastraCore", Json::str(&lint.project.mastra.to_string())),
                ("node", Json::str(&lint.project.node)),
                ("loader", Json::str(lint.project.loader.name())),
                ("isolation", Json::str(&lint.project.isolation)),
            ]),
        ),
        ("results", Json::Array(results)),
    ])
}

/// The log of a run that could not lint the project: the error, no results.
pub fn failed(message: &str, tool_version: &str, root: &SarifRoot) -> Json {
    log(vec![
        ("tool", driver(tool_version)),
        ("originalUriBaseIds", base_ids(root)),
        (
            "invocations",
            Json::Array(vec![Json::object([
                ("executionSuccessful", Json::Bool(false)),
                (
                    "toolExecutionNotifications",
                    Json::Array(vec![Json::object([
                        ("level", Json::str("error")),
                        ("message", Json::object([("text", Json::str(message))])),
                    ])]),
                ),
            ])]),
        ),
        ("results", Json::Array(vec![])),
    ])
}

fn artifact(root: &SarifRoot, file: &str) -> Json {
    Json::object([
        (
            "uri",
            Json::str(&uri_path(&format!("{}{file}", root.prefix))),
        ),
        ("uriBaseId", Json::str("SRCROOT")),
    ])
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Ok => "note",
    }
}

/// A path as a URI reference: forward slashes, and every byte outside the
/// unreserved set and `/` percent-encoded (a space, `#`, non-ASCII).
fn uri_path(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut out = String::new();
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri_path("src/mastra/index.ts"), "src/mastra/index.ts");
        assert_eq!(uri_path("my app/é#1.ts"), "my%20app/%C3%A9%231.ts");
        assert_eq!(uri_path("src\\a.ts"), "src/a.ts");
    }
}
