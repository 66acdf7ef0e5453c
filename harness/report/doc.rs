//! `ReportDoc`: a run's report read back from its JSON (or from the JSONL a
//! matrix writes as results complete), which every renderer and `compare`
//! work from.
//!
//! In: the text of `report.json` (`{"run": {...}, "results": [...]}`) or of
//! `results.jsonl` (one result per line; a line `{"run": {...}}` may lead).
//! Out: the run information as written, and one `Row` per result. Reading
//! the JSON rather than `CaseResult`s means a report from an interrupted
//! run, or from another machine, renders the same way.

use crate::js::json::Json;
use crate::js::string::JsString;
use crate::judge::compare::Verdict;
use std::path::Path;

/// One case on one version, as a report says it.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub case: String,
    pub version: String,
    pub verdict: Verdict,
    pub predicted: Json,
    pub observed: Json,
    /// The projection diff of a divergence.
    pub diff: Option<String>,
    /// What kept an infrastructure outcome from running.
    pub detail: Option<String>,
    /// The known issue the case shows, and its state on this version.
    pub known_issue: Option<(String, String)>,
    pub provider: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ReportDoc {
    pub run: Json,
    pub rows: Vec<Row>,
    /// Why the document does not hold the whole run, when it does not: the
    /// run was interrupted, or the last line of JSONL results was cut short.
    pub partial: Option<String>,
}

fn interrupted(run: &Json) -> bool {
    run.get("interrupted").and_then(Json::as_bool) == Some(true)
}

fn text(v: &Json, key: &str) -> Option<String> {
    v.get(key).and_then(Json::as_str).map(JsString::to_lossy)
}

impl Row {
    pub fn from_json(v: &Json) -> Result<Row, String> {
        let need = |k: &str| text(v, k).ok_or_else(|| format!("a result without `{k}`"));
        let verdict_name = need("verdict")?;
        let verdict = Verdict::from_name(&verdict_name)
            .ok_or_else(|| format!("unknown verdict {verdict_name:?}"))?;
        let known_issue = v
            .get("knownIssue")
            .and_then(|k| Some((text(k, "id")?, text(k, "state")?)));
        let provider = v
            .get("providerRejects")
            .and_then(Json::as_array)
            .unwrap_or_default()
            .iter()
            .filter_map(|r| r.as_str().map(JsString::to_lossy))
            .collect();
        Ok(Row {
            case: need("case")?,
            version: need("version")?,
            verdict,
            predicted: v.get("predicted").cloned().unwrap_or(Json::Null),
            observed: v.get("observed").cloned().unwrap_or(Json::Null),
            diff: text(v, "diff"),
            detail: text(v, "detail"),
            known_issue,
            provider,
        })
    }

    /// A stable key for comparing runs.
    pub fn key(&self) -> (String, String) {
        (self.case.clone(), self.version.clone())
    }
}

impl ReportDoc {
    /// Parse a JSON report, or JSONL results (detected by the first line).
    pub fn parse(text: &str) -> Result<ReportDoc, String> {
        if let Ok(v) = Json::parse(text) {
            if v.get("results").is_some() {
                if let Some(at) = v.repeated_key() {
                    return Err(format!("{at}: a repeated key"));
                }
                let rows = v
                    .get("results")
                    .and_then(Json::as_array)
                    .ok_or("`results` is not an array")?
                    .iter()
                    .enumerate()
                    .map(|(i, r)| Row::from_json(r).map_err(|e| format!("results[{i}]: {e}")))
                    .collect::<Result<Vec<_>, _>>()?;
                let run = v.get("run").cloned().unwrap_or(Json::Null);
                return Ok(ReportDoc {
                    partial: interrupted(&run).then(|| "the run was interrupted".into()),
                    run,
                    rows,
                });
            }
        }
        let mut run = Json::Null;
        let mut rows = Vec::new();
        let mut cut = false;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            // A line cut short by an interrupted write is the one loss the
            // JSONL allows: the last line, and only it, may be skipped.
            let v = match Json::parse(line) {
                Ok(v) => v,
                Err(_) if n + 1 == text.lines().count() => {
                    cut = true;
                    break;
                }
                Err(e) => return Err(format!("line {}: not JSON: {e}", n + 1)),
            };
            if let Some(at) = v.repeated_key() {
                return Err(format!("line {}: {at}: a repeated key", n + 1));
            }
            if let Some(r) = v.get("run").filter(|_| v.get("verdict").is_none()) {
                run = r.clone();
            } else {
                rows.push(Row::from_json(&v).map_err(|e| format!("line {}: {e}", n + 1))?);
            }
        }
        if rows.is_empty() && run.is_null() {
            return Err("neither a JSON report nor JSONL results".into());
        }
        let partial = if cut {
            Some("its last line was cut short".into())
        } else {
            interrupted(&run).then(|| "the run was interrupted".into())
        };
        Ok(ReportDoc { run, rows, partial })
    }

    pub fn load(path: &Path) -> Result<ReportDoc, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        ReportDoc::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The versions, in the order the run gave them (else first seen).
    pub fn versions(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .run
            .get("versions")
            .and_then(Json::as_array)
            .unwrap_or_default()
            .iter()
            .filter_map(|v| v.as_str().map(JsString::to_lossy))
            .collect();
        for r in &self.rows {
            if !out.contains(&r.version) {
                out.push(r.version.clone());
            }
        }
        out
    }

    /// The cases, in the order first seen.
    pub fn cases(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in &self.rows {
            if !out.contains(&r.case) {
                out.push(r.case.clone());
            }
        }
        out
    }

    pub fn get(&self, case: &str, version: &str) -> Option<&Row> {
        self.rows
            .iter()
            .find(|r| r.case == case && r.version == version)
    }

    /// One line per version that is no stable release: what it is and the
    /// release the model predicted it as, by which rule
    /// (`0.0.0-x: registry snapshot, predicted as 1.58.0: its CHANGELOG.md's
    /// first release heading is 1.58.0-alpha.12`).
    pub fn predicted_as(&self) -> Vec<String> {
        self.run
            .get("builds")
            .and_then(Json::as_array)
            .unwrap_or_default()
            .iter()
            .filter_map(|b| {
                let mut line = format!(
                    "{}: {}, predicted as {}",
                    text(b, "name")?,
                    text(b, "source").unwrap_or_default(),
                    text(b, "predictedAs")?
                );
                if text(b, "predictedBy").is_some_and(|r| r != "itself") {
                    line.push_str(&format!(": {}", text(b, "because").unwrap_or_default()));
                }
                Some(line)
            })
            .collect()
    }

    /// A one-line description of the run: command, commit, Node, seed.
    pub fn run_line(&self) -> String {
        let field = |k: &str| text(&self.run, k).unwrap_or_else(|| "?".into());
        let commit: String = field("commit").chars().take(12).collect();
        let mut line = format!(
            "{} · commit {commit} · Node {} · {} versions · {} results",
            field("harness"),
            field("node"),
            self.versions().len(),
            self.rows.len()
        );
        if let Some(seed) = self.run.get("seed").filter(|s| !s.is_null()) {
            line.push_str(&format!(" · seed {}", seed.to_compact()));
        }
        if let Some(isolation) = text(&self.run, "isolation") {
            line.push_str(&format!(" · isolation: {isolation}"));
        }
        if let Some(why) = &self.partial {
            line.push_str(&format!(" · PARTIAL: {why}"));
        }
        line
    }
}

/// Escape text for HTML and XML.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // XML 1.0 cannot carry these at all, even escaped.
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\r' | '\t') => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            '\u{FFFE}' | '\u{FFFF}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub fn sample() -> ReportDoc {
        let text = r#"{"run":{"harness":"mastra-conform 0.1.0","commit":"abc","node":"v24","versions":["1.0.4","1.67.0"],"seed":null,"interrupted":false,
          "builds":[{"name":"0.0.0-x-1","source":"registry snapshot","predictedAs":"1.58.0","predictedBy":"changelog","because":"its CHANGELOG.md's first release heading is 1.58.0-alpha.12"},
                    {"name":"1.67.0-alpha.4","source":"registry prerelease","predictedAs":"1.67.0","predictedBy":"itself","because":"the release it says it is"}]},
          "results":[
            {"case":"cases/a.json","version":"1.0.4","verdict":"as-modelled","predicted":{},"observed":{}},
            {"case":"cases/a.json","version":"1.67.0","verdict":"diverged","predicted":{"x":1},"observed":{"x":2},"diff":"-x 1\n+x 2\n"},
            {"case":"cases/b<c>.json","version":"1.0.4","verdict":"known-issue","predicted":{},"observed":{},
             "knownIssue":{"id":"toolchoice-not-rewritten","state":"present"},"providerRejects":["request 1: tool_choice names \"search.web\""]},
            {"case":"cases/b<c>.json","version":"1.67.0","verdict":"install-failed","predicted":{},"observed":null,"detail":"npm failed"}
          ]}"#;
        ReportDoc::parse(text).unwrap()
    }

    #[test]
    fn an_interrupted_run_or_a_cut_line_is_partial_and_says_so() {
        let doc = ReportDoc::parse(r#"{"run":{"interrupted":true},"results":[]}"#).unwrap();
        assert_eq!(doc.partial.as_deref(), Some("the run was interrupted"));
        assert!(doc.run_line().contains("PARTIAL: the run was interrupted"));
        let jsonl = "{\"run\":{\"interrupted\":false}}\n{\"case\":\"a\",\"version\":\"1.0.0\",\"verdict\":\"as-modelled\"}\n{\"case\":\"b\",\"ver";
        let doc = ReportDoc::parse(jsonl).unwrap();
        assert_eq!(doc.rows.len(), 1);
        assert_eq!(doc.partial.as_deref(), Some("its last line was cut short"));
        let whole = ReportDoc::parse(r#"{"run":{"interrupted":false},"results":[]}"#).unwrap();
        assert_eq!(whole.partial, None);
    }

    #[test]
    fn a_report_with_a_repeated_key_is_refused_naming_it() {
        let e =
            ReportDoc::parse(r#"{"run":{"interrupted":true,"interrupted":false},"results":[]}"#)
                .unwrap_err();
        assert_eq!(e, "run.interrupted: a repeated key");
        let jsonl = "{\"run\":{\"harness\":\"x\"}}\n{\"case\":\"a\",\"version\":\"1.0.0\",\"verdict\":\"as-modelled\",\"verdict\":\"diverged\"}\n";
        let e = ReportDoc::parse(jsonl).unwrap_err();
        assert_eq!(e, "line 2: verdict: a repeated key");
    }

    #[test]
    fn reports_and_jsonl_read_the_same() {
        let doc = sample();
        assert_eq!(doc.versions(), vec!["1.0.4", "1.67.0"]);
        assert_eq!(doc.cases(), vec!["cases/a.json", "cases/b<c>.json"]);
        assert_eq!(doc.rows[2].known_issue.as_ref().unwrap().1, "present");
        assert_eq!(
            doc.predicted_as(),
            vec![
                "0.0.0-x-1: registry snapshot, predicted as 1.58.0: its CHANGELOG.md's first release \
                 heading is 1.58.0-alpha.12",
                "1.67.0-alpha.4: registry prerelease, predicted as 1.67.0"
            ]
        );
        let mut jsonl = String::from("{\"run\":{\"versions\":[\"1.0.4\",\"1.67.0\"]}}\n");
        for r in [
            r#"{"case":"cases/a.json","version":"1.0.4","verdict":"as-modelled"}"#,
            r#"{"case":"cases/a.json","version":"1.67.0","verdict":"diverged","diff":"d"}"#,
        ] {
            jsonl.push_str(r);
            jsonl.push('\n');
        }
        jsonl.push_str(r#"{"case":"cases/b.json","vers"#);
        let doc = ReportDoc::parse(&jsonl).unwrap();
        assert_eq!(doc.rows.len(), 2, "the cut last line is dropped");
        assert_eq!(doc.rows[1].verdict, Verdict::Diverged);
        assert!(ReportDoc::parse("{\"case\":1}\nnot json\n{}").is_err());
    }

    #[test]
    fn escaping_covers_markup_and_control_characters() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(escape("a\u{0}b"), "a\\u0000b");
    }
}
