//! SARIF 2.1.0 for `lint --project`: one run, one rule per kind of problem,
//! one result per `Finding`, placed on the line that causes it, so GitHub
//! code scanning shows it there.
//!
//! In: a `ProjectLint`. Out: the SARIF log as `Json`. Artifact URIs are
//! relative to the project folder (`uriBaseId` `PROJECTROOT`, given as an
//! absolute `file:` URI in `originalUriBaseIds`); for code scanning the
//! project should be the repository root, or the upload's checkout path set.
//! A finding with no literal in the source is placed on the entry file's
//! first line: SARIF allows a result without a location, code scanning does not.

use crate::js::json::Json;
use crate::lint::project::{ProjectLint, Rule};
use crate::lint::Severity;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const INFORMATION_URI: &str = "https://github.com/mastra-conform/mastra-conform";

pub fn sarif(lint: &ProjectLint, tool_version: &str) -> Json {
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
                    "defaultConfiguration",
                    Json::object([("level", Json::str(level(r.severity())))]),
                ),
            ])
        })
        .collect();
    let mut results = Vec::new();
    for a in &lint.agents {
        for f in &a.findings {
            let rule_index = Rule::ALL.iter().position(|r| *r == f.rule).unwrap_or(0);
            let (file, line, column) = match &f.at {
                Some(l) => (l.file.clone(), l.line.max(1), l.column.max(1)),
                None => (lint.project.entry.clone(), 1, 1),
            };
            let message = format!(
                "agent {}: {}",
                Json::String(a.agent.registered_as.clone()).to_compact(),
                f.message
            );
            results.push(Json::object([
                ("ruleId", Json::str(f.rule.id())),
                ("ruleIndex", Json::int(rule_index as i64)),
                ("level", Json::str(level(f.severity))),
                ("message", Json::object([("text", Json::str(&message))])),
                (
                    "locations",
                    Json::Array(vec![Json::object([(
                        "physicalLocation",
                        Json::object([
                            (
                                "artifactLocation",
                                Json::object([
                                    ("uri", Json::str(&uri_path(&file))),
                                    ("uriBaseId", Json::str("PROJECTROOT")),
                                ]),
                            ),
                            (
                                "region",
                                Json::object([
                                    ("startLine", Json::int(line as i64)),
                                    ("startColumn", Json::int(column as i64)),
                                ]),
                            ),
                        ]),
                    )])]),
                ),
                (
                    "properties",
                    Json::object([
                        ("agent", Json::String(a.agent.registered_as.clone())),
                        ("subject", Json::String(f.subject.clone())),
                        ("literalInSource", Json::Bool(f.at.is_some())),
                    ]),
                ),
            ]));
        }
    }
    let root = format!(
        "file://{}/",
        uri_path(lint.project.dir.trim_end_matches('/'))
    );
    Json::object([
        ("$schema", Json::str(SCHEMA)),
        ("version", Json::str("2.1.0")),
        (
            "runs",
            Json::Array(vec![Json::object([
                (
                    "tool",
                    Json::object([(
                        "driver",
                        Json::object([
                            ("name", Json::str("mastra-conform")),
                            ("version", Json::str(tool_version)),
                            ("informationUri", Json::str(INFORMATION_URI)),
                            ("rules", Json::Array(rules)),
                        ]),
                    )]),
                ),
                (
                    "originalUriBaseIds",
                    Json::object([("PROJECTROOT", Json::object([("uri", Json::str(&root))]))]),
                ),
                (
                    "properties",
                    Json::object([
                        ("mastraCore", Json::str(&lint.project.mastra.to_string())),
                        ("node", Json::str(&lint.project.node)),
                    ]),
                ),
                ("results", Json::Array(results)),
            ])]),
        ),
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
