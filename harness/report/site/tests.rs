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

#[test]
fn every_verdict_has_a_distinct_mark() {
    let marks: std::collections::BTreeSet<_> = Verdict::ALL.iter().map(|v| style(*v).0).collect();
    assert_eq!(marks.len(), Verdict::ALL.len());
}
