//! End to end: `mastra-conform fuzz` with the real binary, real Node and the
//! real `@mastra/core` 1.67.0. (Finding and shrinking are tested without
//! Node, against planted defects, in `harness/loops/fuzz/mutant.rs`.)

use mastra_conform::js::json::Json;
use mastra_conform::js::string::JsString;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{bin, root, text};

fn fuzz(seed: u64, count: u64, found: &Path, json: &Path, extra: &[&str]) -> Output {
    bin()
        .args(["fuzz", "--versions", "1.67.0", "--seed"])
        .arg(seed.to_string())
        .arg("--count")
        .arg(count.to_string())
        .arg("--found")
        .arg(found)
        .arg("--json")
        .arg(json)
        .args(extra)
        .output()
        .expect("the binary runs")
}

fn report(path: &Path) -> Json {
    Json::parse(&std::fs::read_to_string(path).expect("a report was written")).unwrap()
}

fn results(report: &Json) -> Vec<Json> {
    report
        .get("results")
        .and_then(Json::as_array)
        .unwrap()
        .to_vec()
}

fn s(v: Option<&Json>) -> String {
    v.and_then(Json::as_str)
        .map(JsString::to_lossy)
        .unwrap_or_default()
}

/// Generated cases go through the same probe as the corpus, are as
/// modelled, and the run says how fast it went against the ceiling.
#[test]
fn generated_cases_run_on_the_real_probe_and_agree_with_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let (found, json) = (dir.path().join("found"), dir.path().join("r.json"));
    let out = fuzz(1, 60, &found, &json, &["--ceiling"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let shown = text(&out);
    assert!(shown.contains("seed 1, 60 generated cases"), "{shown}");
    assert!(
        shown.contains("cases/s") && shown.contains("ratio"),
        "{shown}"
    );
    let r = report(&json);
    assert_eq!(
        r.get("run").and_then(|x| x.get("seed")),
        Some(&Json::int(1))
    );
    let rs = results(&r);
    assert_eq!(rs.len(), 60);
    for x in &rs {
        let verdict = s(x.get("verdict"));
        assert!(
            // A generated case may show a ledger issue by its symptom
            // (`KnownIssues::recognise`): that is agreement, not divergence.
            [
                "as-modelled",
                "known-issue",
                "unmodelled",
                "provider-rejects",
                "not-applicable"
            ]
            .contains(&verdict.as_str()),
            "{} is {verdict}",
            s(x.get("case"))
        );
    }
    assert!(!found.exists(), "nothing diverged, so nothing is saved");
}

/// A seed names the same cases, and the same cases do the same thing.
#[test]
fn the_same_seed_gives_the_same_cases_and_results() {
    let dir = tempfile::tempdir().unwrap();
    let found = dir.path().join("found");
    let runs: Vec<Vec<(String, Json, Json)>> = ["a.json", "b.json"]
        .iter()
        .map(|name| {
            let json = dir.path().join(name);
            let out = fuzz(7, 25, &found, &json, &[]);
            assert_eq!(out.status.code(), Some(0), "{}", text(&out));
            results(&report(&json))
                .iter()
                .map(|x| {
                    let get = |k: &str| x.get(k).cloned().unwrap_or(Json::Null);
                    (s(x.get("case")), get("predicted"), get("observed"))
                })
                .collect()
        })
        .collect();
    assert_eq!(runs[0].len(), 25);
    assert_eq!(runs[0], runs[1]);
}

/// Saved findings run first, as ordinary cases, before anything is
/// generated.
#[test]
fn saved_findings_are_replayed_first() {
    let dir = tempfile::tempdir().unwrap();
    let (found, json) = (dir.path().join("found"), dir.path().join("r.json"));
    std::fs::create_dir_all(&found).unwrap();
    std::fs::copy(
        root().join("cases/report/search-web-is-sent-as-search_web.json"),
        found.join("saved.json"),
    )
    .unwrap();
    let out = fuzz(1, 5, &found, &json, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("replayed 1 saved findings first: 1 as-modelled"),
        "{}",
        text(&out)
    );
    let rs = results(&report(&json));
    assert_eq!(rs.len(), 6);
    assert!(s(rs[0].get("case")).ends_with("saved.json"), "{rs:?}");
}

/// Ctrl-C: the run stops soon, ends its probe, writes what it has and says
/// it was interrupted (exit 3, like `run`). Interrupted once its first
/// result is in (`fuzz: VERSION` on stderr, where no bar is drawn), the
/// run has something to keep, however long its probe took to start.
#[test]
fn ctrl_c_stops_cleanly_and_keeps_what_was_done() {
    let dir = tempfile::tempdir().unwrap();
    let (found, json) = (dir.path().join("found"), dir.path().join("r.json"));
    let mut child = bin()
        .args([
            "fuzz",
            "--versions",
            "1.67.0",
            "--seed",
            "1",
            "--count",
            "5000",
            "--found",
        ])
        .arg(&found)
        .arg("--json")
        .arg(&json)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (stdout, stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let (first, seen) = std::sync::mpsc::channel();
    let err = std::thread::spawn(move || {
        let mut all = String::new();
        for line in std::io::BufRead::lines(std::io::BufReader::new(stderr)) {
            let Ok(line) = line else { break };
            if line == "fuzz: 1.67.0" {
                let _ = first.send(());
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    // A probe start on a busy machine (Node and the import of Mastra) has
    // taken most of a minute; the first result has until this.
    let arrived = seen.recv_timeout(Duration::from_secs(180));
    let sent = Instant::now();
    // SAFETY: a plain kill(2) of the child this test spawned.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    let shown = format!(
        "{}{}",
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default()
    );
    assert!(arrived.is_ok(), "no first result within 180 s: {shown}");
    assert!(
        sent.elapsed() < Duration::from_secs(30),
        "took {:?} to stop",
        sent.elapsed()
    );
    assert_eq!(status.code(), Some(3), "{shown}");
    assert!(shown.contains("interrupted"), "{shown}");
    let r = report(&json);
    assert_eq!(
        r.get("run").and_then(|x| x.get("interrupted")),
        Some(&Json::Bool(true))
    );
    let n = results(&r).len();
    assert!(n > 0, "the result that had arrived was not kept: {shown}");
    assert!(n < 5000, "{n} results kept: not interrupted");
}
