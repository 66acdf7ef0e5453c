//! The sizes of a whole matrix's outputs, without running the matrix: the
//! results database, the static site and the JUnit files at 150,000
//! results. They build in
//! the integration tier, not in `cargo test --lib` (`make unit`, the fast
//! tier): each takes tens of seconds in a debug build. Time and memory are
//! measured by `make bench` and in docs/figures.md, never here.
//!
//! The database: every corpus case and the nightly's 200 generated cases
//! (seed 1) on every route, predicted by the real model on every release of
//! both lines that `node-probe/costs.json` lists, the first 150,000 of those
//! results, each prediction stored as the observation (as a matrix where
//! everything is as modelled). The projections differ between releases
//! exactly where the model says behaviour changed, as a sweep's do, so the
//! content store meets the same sharing a real run would.

use mastra_conform::db::write::DbWriter;
use mastra_conform::db::RunDb;
use mastra_conform::js::json::Json;
use mastra_conform::judge::compare::Verdict;
use mastra_conform::judge::refine::input_json;
use mastra_conform::model::{predict, Prediction};
use mastra_conform::report::doc::Row;
use mastra_conform::report::junit;
use mastra_conform::report::query::{EachRow, Order, ReportSource, Which};
use mastra_conform::report::site::{self, SiteSource, DATA};
use mastra_conform::route::{Route, RouteSet};
use mastra_conform::run::corpus::{load_cases, on_routes};
use mastra_conform::version::spec::MastraVersion;
use std::path::Path;

/// The data a site's `data/KEY.js` file gives `MC.got`.
fn got(site: &Path, key: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(site.join(format!("{DATA}/{key}.js"))).unwrap();
    let prefix = format!("MC.got({},", serde_json::Value::from(key));
    let body = text
        .strip_prefix(&prefix)
        .and_then(|t| t.trim_end().strip_suffix(");"))
        .unwrap_or_else(|| panic!("{key}: not a call of MC.got: {text:.200}"));
    serde_json::from_str(body).unwrap()
}

/// The database of the whole matrix (1.x, and 0.x beside it, about 150,000
/// results) and the site built from it must fit in 40 MB together; the
/// database keeps to 30 MB of that.
const DATABASE_LIMIT: u64 = 30 << 20;

#[test]
fn a_database_of_150000_realistic_results_stays_under_its_limit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let costs = std::fs::read_to_string(root.join("node-probe/costs.json")).unwrap();
    let costs = Json::parse_document(&costs).unwrap();
    let mut versions: Vec<MastraVersion> = costs
        .get("versions")
        .and_then(Json::members)
        .unwrap()
        .into_iter()
        .filter_map(|(v, _)| MastraVersion::parse(&v.to_lossy()))
        .collect();
    versions.sort();
    let dir = tempfile::tempdir().unwrap();
    let generated = dir.path().join("fuzz-cases");
    mastra_conform::loops::fuzz::write_cases(1, 200, &generated).unwrap();
    let (cases, errors) = load_cases(&[root.join("cases"), generated]);
    assert!(errors.is_empty(), "{errors:?}");
    let cases = on_routes(cases, Some(&RouteSet::all()));
    const TOTAL: usize = 150_000;
    assert!(
        cases.len() * versions.len() >= TOTAL,
        "{} cases on {} versions",
        cases.len(),
        versions.len()
    );
    let total = TOTAL;

    let path = dir.path().join(mastra_conform::db::FILE);
    let run = Json::object([(
        "versions",
        Json::Array(versions.iter().map(|v| Json::str(&v.to_string())).collect()),
    )]);
    let mut db = DbWriter::create(&path, &run).unwrap();
    let mut json_bytes = 0usize;
    let mut added = 0;
    let mut cases_used = 0;
    'all: for (index, case) in cases.iter().enumerate() {
        cases_used += 1;
        let input = Json::str(&input_json(case).to_pretty());
        for &version in &versions {
            if added == total {
                break 'all;
            }
            added += 1;
            let predicted = predict(case, version);
            let observed = match &predicted {
                Prediction::Projection(p) => p.to_json(),
                _ => Json::Null,
            };
            let result = Json::object([
                ("case", Json::str(&case.name())),
                ("route", Json::str(case.route.name())),
                ("version", Json::str(&version.to_string())),
                ("verdict", Json::str("as-modelled")),
                ("predicted", predicted.to_json()),
                ("observed", observed),
                ("input", input.clone()),
            ]);
            if added % 100 == 0 {
                // One result in a hundred, measured: the JSONL it would
                // have been.
                json_bytes += 100 * result.to_compact().len();
            }
            db.add(Some(index), &result).unwrap();
        }
    }
    assert_eq!(db.finish(&run, false).unwrap(), total);
    let (bytes, blobs, results) = RunDb::open(&path).unwrap().sizes().unwrap();
    eprintln!(
        "{results} results, {blobs} distinct values: {bytes} bytes ({} per result; \
         about {json_bytes} bytes as compact JSON lines)",
        bytes / results as u64
    );
    assert_eq!(results, total);
    // Each case's input is one value, and the model's projections differ
    // between releases: more values than cases, far fewer than results.
    // Which cases come first, and so how many values, moves with the corpus.
    assert!(
        blobs > cases_used && blobs < results / 10,
        "{blobs} distinct values for {cases_used} cases"
    );
    assert!(
        bytes <= DATABASE_LIMIT,
        "{bytes} bytes for {results} results, over {DATABASE_LIMIT}"
    );
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
            tries: Vec::new(),
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
    let size = site::render(&mut sweep, None, &site).unwrap();
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

/// The sweep as the JUnit renderer reads it, by version, with what makes
/// files grow past the plain sweep: on `1.70.0` every case diverges with a
/// diff of 2 KB (a release that broke everything), and one diff is 1 MB.
struct Broken(Sweep);

impl Broken {
    fn row(&self, n: usize) -> Row {
        let mut r = self.0.row(n);
        if r.version == "1.70.0" {
            r.verdict = Verdict::Diverged;
            r.diff = Some(if n == 70 {
                format!("-{}\n", "x".repeat(1 << 20))
            } else {
                format!("-{}\n+{}\n", "a".repeat(1024), "b".repeat(1024))
            });
        }
        r
    }

    /// Every row's number, version by version, each version's in case order
    /// (a row's number is its case's, then its route's, then its version's).
    fn by_version(&self) -> impl Iterator<Item = usize> + '_ {
        let nv = self.0.versions.len();
        (0..nv).flat_map(move |vi| (vi..self.0.total).step_by(nv))
    }
}

impl ReportSource for Broken {
    fn run(&self) -> &Json {
        &self.0.run
    }
    fn incomplete(&self) -> Option<String> {
        None
    }
    fn counts(&self) -> Result<Vec<(String, Verdict, usize)>, String> {
        let mut out: Vec<(String, Verdict, usize)> = Vec::new();
        for n in self.by_version() {
            let r = self.row(n);
            match out
                .iter_mut()
                .find(|(v, x, _)| *v == r.version && *x == r.verdict)
            {
                Some(c) => c.2 += 1,
                None => out.push((r.version, r.verdict, 1)),
            }
        }
        Ok(out)
    }
    fn versions_observed(&self) -> Result<Vec<String>, String> {
        Ok(self.0.versions.clone())
    }
    fn each(&self, which: Which, order: Order, _: bool, f: &mut EachRow) -> Result<(), String> {
        assert_eq!(
            (which, order),
            (Which::All, Order::ByVersion),
            "JUnit's pass"
        );
        self.by_version().try_for_each(|n| f(&self.row(n)))
    }
}

/// JUnit at 150,000 results, with a version whose every case diverged:
/// a file a version, that version's in parts, no file over 2 MB, and every
/// result a test case once.
#[test]
fn junit_of_150000_results_has_no_file_over_2_mb() {
    let broken = Broken(Sweep::new(150_000));
    let mut files: Vec<(String, usize, usize)> = Vec::new();
    let mut cut = 0;
    junit::write(&broken, &mut |name: &str, text: &[u8]| {
        let text = std::str::from_utf8(text).unwrap();
        assert!(
            text.starts_with("<?xml") && text.ends_with("</testsuites>\n"),
            "{name}"
        );
        let cases = text.matches("<testcase ").count();
        cut += text.matches("[cut at ").count();
        files.push((name.to_string(), text.len(), cases));
        Ok(())
    })
    .unwrap();
    let largest = files.iter().max_by_key(|f| f.1).unwrap();
    eprintln!(
        "{} files, {} bytes, the largest {largest:?}",
        files.len(),
        files.iter().map(|f| f.1).sum::<usize>()
    );
    assert!(largest.1 <= 2_000_000, "{largest:?}");
    assert_eq!(files.iter().map(|f| f.2).sum::<usize>(), 150_000);
    assert_eq!(cut, 1, "the 1 MB diff is cut, no other");
    // 1.70.0's 2,000 results at over 2 KB each: in parts of about 1 MB.
    let broke: Vec<&str> = files
        .iter()
        .map(|f| f.0.as_str())
        .filter(|n| n.starts_with("TEST-mastra-core-1.70.0"))
        .collect();
    let parts = broke.len();
    assert!(parts >= 4, "{broke:?}");
    let mut expected = vec!["TEST-mastra-core-1.70.0.xml".to_string()];
    expected.extend((2..=parts).map(|n| format!("TEST-mastra-core-1.70.0-part{n}.xml")));
    assert_eq!(broke, expected);
    assert_eq!(
        files.len(),
        75 + parts - 1,
        "a file a version, and 1.70.0's parts"
    );
}
