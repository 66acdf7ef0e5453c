use super::*;
use crate::report::doc::tests::sample;
use crate::report::doc::ReportDoc;

fn read(site: &Path, rel: &str) -> String {
    std::fs::read_to_string(site.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The data a `data/KEY.js` file gives `MC.got`.
fn got(site: &Path, key: &str) -> serde_json::Value {
    let text = read(site, &format!("{DATA}/{key}.js"));
    let prefix = format!("MC.got({},", jstr(key));
    let body = text
        .strip_prefix(&prefix)
        .and_then(|t| t.trim_end().strip_suffix(");"))
        .unwrap_or_else(|| panic!("{key}: not a call of MC.got: {text:.200}"));
    serde_json::from_str(body).unwrap()
}

#[test]
fn ranges_are_runs_of_neighbouring_columns() {
    let cols = [1, 2, 3, 4, 5, 6];
    assert_eq!(ranges(&cols, &[]), vec![]);
    assert_eq!(ranges(&cols, &[1, 2, 3]), vec![(1, 3)]);
    assert_eq!(ranges(&cols, &[1, 3, 4, 6]), vec![(1, 1), (3, 4), (6, 6)]);
    // A version that could not run is no column: its neighbours that ran
    // are neighbours, and the note names it.
    assert_eq!(ranges(&[1, 2, 4], &[1, 2, 4]), vec![(1, 4)]);
    assert_eq!(ranges(&[1, 2, 4], &[1, 4]), vec![(1, 1), (4, 4)]);
}

#[test]
fn the_sample_renders_an_index_a_folder_and_each_case() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    let size = render(&mut DocSource::new(&sample()), None, &site).unwrap();
    assert_eq!((size.results, size.cases), (4, 2));
    let index = got(&site, "index");
    // 1.67.0 met an install failure on one case and ran another: a column.
    assert_eq!(index["columns"].as_array().unwrap().len(), 2);
    let issue = &index["issues"].as_array().unwrap()[0];
    assert_eq!(issue["id"].as_str().unwrap(), "toolchoice-not-rewritten");
    assert_eq!(
        issue["states"]["present"].to_string(),
        r#"[["1.0.4","1.0.4"]]"#
    );
    assert_eq!(index["divergences"]["count"].as_f64(), Some(1.0));
    let folder = &index["folders"].as_array().unwrap()[0];
    assert_eq!(folder["path"].as_str().unwrap(), "cases");
    assert_eq!(
        folder["counts"]["openai-compatible"].to_string(),
        format!(
            "[\"{}1{}1\",\"{}1{}1\"]",
            letter(Verdict::AsModelled),
            letter(Verdict::KnownIssue),
            letter(Verdict::Diverged),
            letter(Verdict::InstallFailed)
        )
    );
    let id = folder["id"].as_str().unwrap();
    let rows = got(&site, &format!("f/{id}-0"));
    assert_eq!(rows.as_array().unwrap().len(), 2);
    let case = got(&site, &format!("c/{}", file_id("cases/a.json")));
    assert_eq!(case["results"].as_array().unwrap().len(), 2);
    // The change between 1.0.4 and 1.67.0 of cases/a.json: its verdict and
    // its observation.
    let changes = got(&site, "changes-0");
    assert_eq!(changes.as_array().unwrap().len(), 1, "{changes}");
    assert!(index["night"].is_null());
}

#[test]
fn shared_texts_are_written_once_per_case() {
    let row = |v: &str| {
        format!(
            r#"{{"case":"cases/a.json","version":"{v}","verdict":"as-modelled","predicted":{{"tools":["a_b"]}},"observed":{{"tools":["a_b"]}},"input":"{{\"tools\":[\"a.b\"]}}"}}"#
        )
    };
    let text = format!(
        r#"{{"run":{{"versions":["1.0.4","1.1.0","1.2.0"]}},"results":[{},{},{}]}}"#,
        row("1.0.4"),
        row("1.1.0"),
        row("1.2.0")
    );
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    render(
        &mut DocSource::new(&ReportDoc::parse(&text).unwrap()),
        None,
        &site,
    )
    .unwrap();
    let case = got(&site, &format!("c/{}", file_id("cases/a.json")));
    // The projection (predicted and observed on three versions) and the
    // input: two texts.
    assert_eq!(case["blobs"].as_array().unwrap().len(), 2);
    assert_eq!(got(&site, "index")["changes"]["count"].as_f64(), Some(0.0));
}

#[test]
fn the_previous_night_names_exactly_what_changed() {
    let doc = |observed: &str| {
        ReportDoc::parse(&format!(
            r#"{{"run":{{"versions":["1.0.4"]}},"results":[
              {{"case":"cases/a.json","version":"1.0.4","verdict":"as-modelled","predicted":{{}},"observed":{{}}}},
              {{"case":"cases/b.json","version":"1.0.4","verdict":"as-modelled","predicted":{{}},"observed":{observed}}},
              {{"case":"cases/c.json","version":"1.0.4","verdict":"as-modelled","predicted":{{}},"observed":{{}}}}]}}"#
        ))
        .unwrap()
    };
    let (last, tonight) = (doc("{}"), doc(r#"{"x":1}"#));
    let (mut last, mut tonight) = (DocSource::new(&last), DocSource::new(&tonight));
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    render(&mut tonight, Some(&mut last), &site).unwrap();
    let night = got(&site, "index")["night"].clone();
    assert_eq!(night["count"].as_f64(), Some(1.0), "{night}");
    let items = got(&site, "night-0");
    let item = &items.as_array().unwrap()[0];
    assert_eq!(item[0].as_str().unwrap(), "cases/b.json");
    assert_eq!(item[6].to_string(), "1", "the observation changed");
}

#[test]
fn results_out_of_case_order_are_one_clear_error() {
    struct Unsorted(Json, Vec<Row>);
    impl SiteSource for Unsorted {
        fn run(&self) -> &Json {
            &self.0
        }
        fn incomplete(&self) -> Option<String> {
            None
        }
        fn next_row(&mut self) -> Result<Option<Row>, String> {
            Ok((!self.1.is_empty()).then(|| self.1.remove(0)))
        }
    }
    let rows = sample().rows;
    let mut s = Unsorted(Json::Null, vec![rows[2].clone(), rows[0].clone()]);
    let dir = tempfile::tempdir().unwrap();
    let e = render(&mut s, None, &dir.path().join("site")).unwrap_err();
    assert!(
        e.to_string()
            .contains("\"cases/a.json\" comes after \"cases/b<c>.json\""),
        "{e}"
    );
    assert!(!dir.path().join("site").exists(), "no half a site");
}

/// A sweep's worth of results, as the real 1.x matrix differs: 150,000
/// results of cases whose projections are distinct from case to case and
/// change at a few releases, on six routes, with a known issue over a
/// range of releases, a divergence here and there, and a version that could
/// not run. Streamed into the renderer one case at a time.
struct Sweep {
    run: Json,
    versions: Vec<String>,
    next: usize,
    total: usize,
}

const ROUTES: usize = 6;

impl Sweep {
    fn new(total: usize) -> Sweep {
        let versions: Vec<String> = (0..=74).map(|m| format!("1.{m}.0")).collect();
        Sweep {
            run: Json::object([(
                "versions",
                Json::Array(versions.iter().map(|v| Json::str(v)).collect()),
            )]),
            versions,
            next: 0,
            total,
        }
    }

    fn row(&self, n: usize) -> Row {
        let per_case = self.versions.len() * ROUTES;
        let (case, rest) = (n / per_case, n % per_case);
        let (route, vi) = (rest / self.versions.len(), rest % self.versions.len());
        let version = self.versions[vi].clone();
        // Folders in path order, as the source must give them.
        let folder = [
            "active-tools",
            "calls",
            "found",
            "js",
            "report",
            "toolchoice",
        ][(case / 56).min(5)];
        let path = format!("cases/{folder}/case-{case:05}.json");
        let name = match Route::ALL[route] {
            Route::OpenAiCompatible => path,
            r => format!("{path}@{}", r.name()),
        };
        // The projection changes at three releases (an era per range).
        let era = [12, 40, 63].iter().filter(|b| vi >= **b).count();
        let keys: Vec<String> = (0..3 + case % 5)
            .map(|k| format!("tool.{case}.{k}-{}", "x".repeat(case % 17)))
            .collect();
        let wire = |k: &String| match era {
            0 => k.clone(),
            1 => k.replace('.', "_"),
            _ => k.replace(['.', '-'], "_"),
        };
        let projection = Json::object([
            (
                "requests",
                Json::Array(vec![Json::object([
                    (
                        "tools",
                        Json::Array(keys.iter().map(|k| Json::str(&wire(k))).collect()),
                    ),
                    (
                        "toolChoice",
                        Json::object([
                            ("type", Json::str("tool")),
                            ("toolName", Json::str(&keys[0])),
                        ]),
                    ),
                    ("route", Json::str(Route::ALL[route].name())),
                    ("maxSteps", Json::int((era + 1) as i64)),
                ])]),
            ),
            ("threw", Json::Null),
            ("steps", Json::int(1 + (case % 3) as i64)),
        ]);
        let unavailable = vi == 30;
        let diverged = !unavailable && (case * 7 + vi) % 997 == 0;
        let issue = !unavailable && (10..50).contains(&vi) && case % 4 == 0;
        let verdict = if unavailable {
            Verdict::InstallFailed
        } else if diverged {
            Verdict::Diverged
        } else if issue {
            Verdict::KnownIssue
        } else {
            Verdict::AsModelled
        };
        let mut observed = projection.clone();
        if diverged {
            observed = Json::object([("requests", Json::Array(vec![])), ("threw", Json::str("x"))]);
        }
        Row {
            case: name,
            version,
            verdict,
            predicted: projection,
            observed: if unavailable { Json::Null } else { observed },
            diff: diverged.then(|| "-a\n+b\n".to_string()),
            detail: unavailable.then(|| "npm failed: 404 Not Found".to_string()),
            known_issue: issue.then(|| {
                (
                    "toolchoice-not-rewritten".to_string(),
                    "present".to_string(),
                )
            }),
            issue_title: issue.then(|| "A named toolChoice does not follow".to_string()),
            issue_link: issue.then(|| "https://github.com/mastra-ai/mastra/issues/1".to_string()),
            provider: Vec::new(),
            input: Some(
                Json::object([(
                    "tools",
                    Json::Array(keys.iter().map(|k| Json::str(k)).collect()),
                )])
                .to_pretty(),
            ),
        }
    }
}

impl SiteSource for Sweep {
    fn run(&self) -> &Json {
        &self.run
    }
    fn incomplete(&self) -> Option<String> {
        None
    }
    /// Case by case, every route and version of each.
    fn next_row(&mut self) -> Result<Option<Row>, String> {
        if self.next >= self.total {
            return Ok(None);
        }
        self.next += 1;
        Ok(Some(self.row(self.next - 1)))
    }
}

/// The sizes the issue sets for the whole 1.x matrix: the site at most
/// 40 MB with the database (the site alone is held to 30 MB here), its first
/// load at most 1 MB, and no file over 2 MB.
#[test]
fn a_site_of_150000_results_keeps_its_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    let mut sweep = Sweep::new(150_000);
    let size = render(&mut sweep, None, &site).unwrap();
    assert_eq!(size.results, 150_000);
    assert!(size.cases > 300, "{size:?}");
    assert!(
        size.bytes <= 30_000_000,
        "the site is {} bytes: {size:?}",
        size.bytes
    );
    assert!(
        size.first_load <= 1_000_000,
        "the first load is {} bytes: {size:?}",
        size.first_load
    );
    assert!(size.largest.1 <= 2_000_000, "{size:?}");
    let index = got(&site, "index");
    assert_eq!(
        index["notRun"].as_array().unwrap().len(),
        1,
        "1.30.0 could not run: a note, not a column"
    );
    assert_eq!(index["columns"].as_array().unwrap().len(), 74);
    // The known issue over 1.10.0 to 1.49.0: one range (1.30.0, which
    // could not run, is in the note).
    assert_eq!(
        index["issues"][0]["states"]["present"].to_string(),
        r#"[["1.10.0","1.49.0"]]"#
    );
    eprintln!("{size:?}");
}

#[test]
fn every_verdict_has_a_distinct_mark() {
    let marks: std::collections::BTreeSet<_> = Verdict::ALL.iter().map(|v| style(*v).0).collect();
    assert_eq!(marks.len(), Verdict::ALL.len());
}
