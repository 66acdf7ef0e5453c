//! `ReportDoc`: a run's report read back from its JSON (or from the JSONL a
//! matrix writes as results complete), which every renderer and `compare`
//! work from.
//!
//! In: the text of `report.json` (`{"run": {...}, "results": [...]}`) or of
//! `results.jsonl` (a header line `{"run": {...}}`, one result per line, and
//! a footer line `{"end": {"results": N, "interrupted": B}}` written when the
//! run ends). Out: the run information as written, one `Row` per result,
//! and whether the document is whole (`ReportDoc::incomplete`). Reading the
//! JSON rather than `CaseResult`s means a report from an interrupted run, or
//! from another machine, renders the same way, marks included.
//!
//! Every document is read with duplicate keys refused, versions checked as
//! versions and `run.versions` as a list of them; errors name the line or
//! the result and the field.

use crate::js::json::Json;
use crate::js::string::JsString;
use crate::judge::compare::Verdict;
use crate::route::Route;
use crate::version::spec::MastraVersion;
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
    /// That issue's title and upstream link, when the report carries them.
    pub issue_title: Option<String>,
    pub issue_link: Option<String>,
    pub provider: Vec<String>,
    /// What the case gives the agent (its tools' keys, toolChoice and
    /// activeTools as its file writes them), when the report carries it.
    pub input: Option<String>,
    /// The verdict of each try of a result observed again (`--recheck`),
    /// the first try's first; empty when it was not.
    pub tries: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ReportDoc {
    pub run: Json,
    pub rows: Vec<Row>,
    /// Why these results are not a whole run (`results.jsonl` without its
    /// footer, a line cut short, fewer results than the footer counts), or
    /// `None`. An interrupted run is `interrupted()`, which is also partial.
    pub partial: Option<String>,
}

/// The key of the footer line of `results.jsonl`.
pub const END: &str = "end";

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
        let issue = |field: &str| v.get("knownIssue").and_then(|k| text(k, field));
        let provider = v
            .get("providerRejects")
            .and_then(Json::as_array)
            .unwrap_or_default()
            .iter()
            .filter_map(|r| r.as_str().map(JsString::to_lossy))
            .collect();
        let version = need("version")?;
        MastraVersion::parse(&version)
            .ok_or_else(|| format!("`version` is {version:?}, not a version such as \"1.67.0\""))?;
        Ok(Row {
            case: need("case")?,
            version,
            verdict,
            predicted: v.get("predicted").cloned().unwrap_or(Json::Null),
            observed: v.get("observed").cloned().unwrap_or(Json::Null),
            diff: text(v, "diff"),
            detail: text(v, "detail"),
            known_issue,
            issue_title: issue("title"),
            issue_link: issue("upstream"),
            provider,
            input: text(v, "input"),
            tries: v
                .get("recheck")
                .and_then(|c| c.get("tries"))
                .and_then(Json::as_array)
                .unwrap_or_default()
                .iter()
                .filter_map(|t| t.as_str().map(JsString::to_lossy))
                .collect(),
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
        // A whole-matrix report is hundreds of megabytes: parsed once when
        // it is a valid one, and a second time, leniently, only to tell a
        // report with a repeated key from JSONL.
        match Json::parse_document(text) {
            Ok(v) if v.get("results").is_some() => return ReportDoc::of_report(&v),
            Ok(_) => {}
            Err(e) => {
                if Json::parse(text).is_ok_and(|v| v.get("results").is_some()) {
                    return Err(format!("not a valid report: {e}"));
                }
            }
        }
        let lines: Vec<&str> = text.lines().collect();
        let last = lines.iter().rposition(|l| !l.trim().is_empty());
        let mut run = None;
        let mut end = None;
        let mut cut = false;
        let mut rows = Vec::new();
        for (n, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = |e: String| format!("line {}: {e}", n + 1);
            if end.is_some() {
                return Err(at("a line after the footer".into()));
            }
            // A line cut short by an interrupted write is the one loss the
            // JSONL allows: the last line, and only it, and the results
            // are then partial.
            let v = match Json::parse_document(line) {
                Ok(v) => v,
                Err(_) if Some(n) == last => {
                    cut = true;
                    break;
                }
                Err(e) => return Err(at(format!("not JSON: {e}"))),
            };
            if let Some(r) = v.get("run").filter(|_| v.get("verdict").is_none()) {
                if run.is_some() || !rows.is_empty() {
                    return Err(at("a second header line `run`".into()));
                }
                check_run(r).map_err(|e| at(format!("run: {e}")))?;
                run = Some(r.clone());
            } else if let Some(f) = v.get(END).filter(|_| v.get("verdict").is_none()) {
                let count = f
                    .get("results")
                    .and_then(Json::as_f64)
                    .filter(|c| *c >= 0.0 && c.fract() == 0.0)
                    .ok_or_else(|| at("end: `results` is not a count".into()))?;
                end = Some((count as usize, f.get("interrupted").and_then(Json::as_bool)));
            } else {
                rows.push(Row::from_json(&v).map_err(at)?);
            }
        }
        if rows.is_empty() && run.is_none() && end.is_none() {
            return Err("neither a JSON report nor JSONL results".into());
        }
        let mut run = run.unwrap_or(Json::Null);
        let partial = match end {
            _ if cut => Some("its last line is cut short".to_string()),
            None => Some("it has no footer line: the run did not end".to_string()),
            Some((count, _)) if count != rows.len() => Some(format!(
                "the footer counts {count} results and {} are there",
                rows.len()
            )),
            Some(_) => None,
        };
        if let (Some((_, Some(true))), Json::Object(members)) = (end, &mut run) {
            members.retain(|(k, _)| *k != JsString::from("interrupted"));
            members.push(("interrupted".into(), Json::Bool(true)));
        }
        Ok(ReportDoc { run, rows, partial })
    }

    /// The report a JSON report document holds (`run` and `results`).
    pub fn of_report(v: &Json) -> Result<ReportDoc, String> {
        let rows = v
            .get("results")
            .and_then(Json::as_array)
            .ok_or("`results` is not an array")?
            .iter()
            .enumerate()
            .map(|(i, r)| Row::from_json(r).map_err(|e| format!("results[{i}]: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        let run = v.get("run").cloned().unwrap_or(Json::Null);
        check_run(&run).map_err(|e| format!("run: {e}"))?;
        Ok(ReportDoc {
            run,
            rows,
            partial: None,
        })
    }

    /// Whether the run was interrupted (its results are those that finished).
    pub fn interrupted(&self) -> bool {
        self.run.get("interrupted").and_then(Json::as_bool) == Some(true)
    }

    /// Why these results are not the whole run, if they are not: partial
    /// or interrupted. Every rendering shows it and `report` exits 3.
    pub fn incomplete(&self) -> Option<String> {
        match (&self.partial, self.interrupted()) {
            (Some(why), _) => Some(format!("PARTIAL: {why}")),
            (None, true) => Some("INTERRUPTED (partial)".into()),
            (None, false) => None,
        }
    }

    /// The report a results database holds (`db`), its end mark read as
    /// the JSONL footer is.
    pub fn from_db(db: &crate::db::RunDb) -> Result<ReportDoc, String> {
        let err = |e: crate::db::DbError| e.to_string();
        let mut run = db.run_info().map_err(err)?;
        check_run(&run).map_err(|e| format!("run: {e}"))?;
        let mut rows = Vec::new();
        db.each_result(|r| {
            let v = db.result_json(&r)?;
            let row = Row::from_json(&v)
                .map_err(|e| db.bad(format!("{} on {}: {e}", r.case, r.version)))?;
            rows.push(row);
            Ok::<_, crate::db::DbError>(())
        })
        .map_err(err)?;
        let partial = db.partial().map_err(err)?;
        if let (true, Json::Object(members)) = (db.ended().map_err(err)?.1, &mut run) {
            members.retain(|(k, _)| *k != JsString::from("interrupted"));
            members.push(("interrupted".into(), Json::Bool(true)));
        }
        Ok(ReportDoc { run, rows, partial })
    }

    /// Read a results database, a JSON report or JSONL results, whichever
    /// `path` holds.
    pub fn load(path: &Path) -> Result<ReportDoc, String> {
        if crate::db::is_database(path) {
            let db = crate::db::RunDb::open(path).map_err(|e| e.to_string())?;
            return ReportDoc::from_db(&db).map_err(|e| format!("{}: {e}", path.display()));
        }
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
        run_line(
            &self.run,
            self.versions().len(),
            self.rows.len(),
            self.incomplete(),
        )
    }
}

/// A one-line description of a run (its header `run`) of `versions`
/// versions and `results` results: command, commit, Node, seed.
pub fn run_line(run: &Json, versions: usize, results: usize, incomplete: Option<String>) -> String {
    let field = |k: &str| text(run, k).unwrap_or_else(|| "?".into());
    let commit: String = field("commit").chars().take(12).collect();
    let mut line = format!(
        "{} · commit {commit} · Node {} · {versions} versions · {results} results",
        field("harness"),
        field("node"),
    );
    if let Some(seed) = run.get("seed").filter(|s| !s.is_null()) {
        line.push_str(&format!(" · seed {}", seed.to_compact()));
    }
    if let Some(walls) = text(run, "isolation").filter(|w| !w.is_empty()) {
        line.push_str(&format!(" · isolation: {walls}"));
    }
    if let Some(why) = incomplete {
        line.push_str(&format!(" · {why}"));
    }
    line
}

/// One line per version that is no stable release, from a run header (see
/// `ReportDoc::predicted_as`).
pub fn predicted_as(run: &Json) -> Vec<String> {
    ReportDoc {
        run: run.clone(),
        rows: Vec::new(),
        partial: None,
    }
    .predicted_as()
}

/// What the readers rely on in a run header: `versions` and `routes`, when
/// given, are lists of versions and of route names.
/// A header field that lists names: the field, the test of one name, and
/// what a name should be.
type ListCheck = (&'static str, fn(&str) -> bool, &'static str);

fn check_run(run: &Json) -> Result<(), String> {
    let checks: [ListCheck; 2] = [
        (
            "versions",
            |t| MastraVersion::parse(t).is_some(),
            "a version such as \"1.67.0\"",
        ),
        ("routes", |t| Route::parse(t).is_some(), "a route name"),
    ];
    for (field, valid, what) in checks {
        let Some(value) = run.get(field) else {
            continue;
        };
        let list = value
            .as_array()
            .ok_or_else(|| format!("`{field}` is {}, not a list", value.kind()))?;
        for (i, v) in list.iter().enumerate() {
            let text = v.as_str().map(JsString::to_lossy);
            if !text.as_deref().is_some_and(valid) {
                return Err(format!("`{field}[{i}]` is {}, not {what}", v.to_compact()));
            }
        }
    }
    Ok(())
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
        let whole = ReportDoc::parse(&format!(
            "{jsonl}{{\"end\":{{\"results\":2,\"interrupted\":false}}}}\n"
        ))
        .unwrap();
        assert_eq!(whole.incomplete(), None);
        jsonl.push_str(r#"{"case":"cases/b.json","vers"#);
        let doc = ReportDoc::parse(&jsonl).unwrap();
        assert_eq!(doc.rows.len(), 2, "the cut last line is dropped");
        assert_eq!(doc.rows[1].verdict, Verdict::Diverged);
        assert!(doc.incomplete().unwrap().contains("cut short"));
        assert!(doc.run_line().contains("PARTIAL"), "{}", doc.run_line());
        assert!(ReportDoc::parse("{\"case\":1}\nnot json\n{}").is_err());
    }

    fn jsonl(lines: &[&str]) -> Result<ReportDoc, String> {
        ReportDoc::parse(&(lines.join("\n") + "\n"))
    }

    const HEAD: &str = r#"{"run":{"versions":["1.0.4"],"interrupted":false}}"#;
    const ROW: &str = r#"{"case":"cases/a.json","version":"1.0.4","verdict":"as-modelled"}"#;

    #[test]
    fn results_without_their_footer_are_partial() {
        let doc = jsonl(&[HEAD, ROW]).unwrap();
        assert!(doc.incomplete().unwrap().contains("no footer"), "{doc:?}");
        let short = jsonl(&[HEAD, ROW, r#"{"end":{"results":2,"interrupted":false}}"#]).unwrap();
        assert!(short.incomplete().unwrap().contains("counts 2"));
        let after = jsonl(&[HEAD, r#"{"end":{"results":0}}"#, ROW]).unwrap_err();
        assert!(
            after.contains("line 3") && after.contains("after the footer"),
            "{after}"
        );
    }

    #[test]
    fn an_interrupted_run_stays_interrupted() {
        let doc = jsonl(&[HEAD, ROW, r#"{"end":{"results":1,"interrupted":true}}"#]).unwrap();
        assert!(doc.interrupted() && doc.partial.is_none());
        assert_eq!(doc.incomplete().as_deref(), Some("INTERRUPTED (partial)"));
        let report = r#"{"run":{"interrupted":true},"results":[]}"#;
        assert!(ReportDoc::parse(report)
            .unwrap()
            .run_line()
            .contains("INTERRUPTED"));
    }

    #[test]
    fn repeated_keys_and_bad_versions_are_refused_by_field() {
        let twice = r#"{"run":{},"results":[{"case":"a","version":"1.0.4","verdict":"as-modelled"}],"results":[]}"#;
        let e = ReportDoc::parse(twice).unwrap_err();
        assert!(e.contains("\"results\" appears twice"), "{e}");
        let e = jsonl(&[
            HEAD,
            r#"{"case":"a","version":"1.0.4","verdict":"as-modelled","verdict":"diverged"}"#,
            ROW,
        ])
        .unwrap_err();
        assert!(
            e.contains("line 2") && e.contains("\"verdict\" appears twice"),
            "{e}"
        );
        let e = ReportDoc::parse(r#"{"run":{},"results":[{"case":"a","version":"not-a-version","verdict":"as-modelled"}]}"#).unwrap_err();
        assert!(
            e.contains("results[0]") && e.contains("not-a-version"),
            "{e}"
        );
        let e = ReportDoc::parse(r#"{"run":{"versions":null},"results":[]}"#).unwrap_err();
        assert!(e.contains("run") && e.contains("`versions` is null"), "{e}");
        let e = ReportDoc::parse(r#"{"run":{"routes":["openai","telegraph"]},"results":[]}"#)
            .unwrap_err();
        assert!(e.contains("`routes[1]` is \"telegraph\""), "{e}");
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
