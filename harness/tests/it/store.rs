//! End to end: the observation store with the real binary, real Node and
//! the pinned `@mastra/core`. A second run judges what the first observed
//! without starting a probe, with the same verdicts; a changed case, a
//! changed probe and `--fresh` are observed again; `cache status` and
//! `cache prune` see the store.

use std::path::Path;
use std::process::Output;

use crate::common::{root, run_on, text};

const VERSION: &str = "1.67.0";

/// The cases these tests run, copied from the corpus.
const CASES: &[&str] = &[
    "active-tools/by-registered-key.json",
    "active-tools/empty.json",
    "toolchoice/auto.json",
];

struct Ran {
    out: Output,
    report: serde_json::Value,
}

impl Ran {
    /// (observed, reused) of the one version.
    fn counts(&self) -> (u64, u64) {
        let s = &self.report["run"]["stats"][0];
        (s["cases"].as_u64().unwrap(), s["reused"].as_u64().unwrap())
    }

    /// Each result's case, route, verdict and observation, in order.
    fn verdicts(&self) -> Vec<String> {
        let mut v: Vec<String> = self.report["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                format!(
                    "{} {} {} {}",
                    r["case"], r["route"], r["verdict"], r["observed"]
                )
            })
            .collect();
        v.sort();
        v
    }
}

fn run(store: &Path, cases: &Path, extra: &[&str], probe_dir: Option<&Path>) -> Ran {
    let json = store.with_extension(format!("{}.json", rand_suffix()));
    let mut c = run_on(VERSION, cases);
    c.arg("--json").arg(&json).args(extra);
    c.env("MASTRA_CONFORM_OBSERVATIONS", store);
    if let Some(dir) = probe_dir {
        c.env("MASTRA_CONFORM_PROBE_DIR", dir);
    }
    let out = c.output().expect("the harness runs");
    eprintln!("{}", text(&out));
    assert!(out.status.success(), "{}", text(&out));
    let report = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    Ran { out, report }
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn a_second_run_reuses_what_the_first_observed_and_misses_what_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("observations");
    let cases = tmp.path().join("cases");
    std::fs::create_dir(&cases).unwrap();
    for c in CASES {
        std::fs::copy(
            root().join("cases").join(c),
            cases.join(c.replace('/', "-")),
        )
        .unwrap();
    }
    let n = CASES.len() as u64;

    let first = run(&store, &cases, &[], None);
    assert_eq!(
        first.counts(),
        (n, 0),
        "an empty store: everything observed"
    );
    assert_eq!(first.report["run"]["store"], "reuse");
    assert!(
        stdout(&first.out).contains(&format!("observations: {n} observed, 0 reused")),
        "{}",
        text(&first.out)
    );

    let second = run(&store, &cases, &[], None);
    assert_eq!(
        second.counts(),
        (0, n),
        "nothing changed: everything reused"
    );
    assert_eq!(
        second.report["run"]["stats"][0]["probeStarts"], 0,
        "no probe started"
    );
    assert_eq!(second.verdicts(), first.verdicts(), "the same verdicts");

    // Prose the probe never reads keeps the key; what it is sent does not.
    let edited = cases.join("toolchoice-auto.json");
    let mut case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&edited).unwrap()).unwrap();
    case["about"] = "other words for the same case".into();
    std::fs::write(&edited, case.to_string()).unwrap();
    assert_eq!(
        run(&store, &cases, &[], None).counts(),
        (0, n),
        "about is prose"
    );
    std::fs::copy(
        root().join("cases/toolchoice/none.json"),
        cases.join("toolchoice-auto.json"),
    )
    .unwrap();
    assert_eq!(
        run(&store, &cases, &[], None).counts(),
        (1, n - 1),
        "the changed case alone is observed"
    );

    let fresh = run(&store, &cases, &["--fresh"], None);
    assert_eq!(fresh.counts(), (n, 0), "--fresh observes every case");
    assert_eq!(fresh.report["run"]["store"], "fresh");

    // Another probe (one byte of its JavaScript) has a shelf of its own.
    let probe = tmp.path().join("node-probe");
    copy_dir(&root().join("node-probe"), &probe);
    let cases_mjs = probe.join("cases.mjs");
    let mut js = std::fs::read_to_string(&cases_mjs).unwrap();
    js.push_str("\n// another probe\n");
    std::fs::write(&cases_mjs, js).unwrap();
    assert_eq!(
        run(&store, &cases, &[], Some(&probe)).counts(),
        (n, 0),
        "the probe's code is in the key"
    );
    assert_eq!(
        run(&store, &cases, &[], None).counts(),
        (0, n),
        "and today's probe still has its own"
    );

    // In a cache without the install, both shelves are stale; prune (on
    // that cache of its own) removes them.
    let cache = tmp.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    let cache_cmd = |action: &str| {
        let out = crate::common::bin()
            .args(["cache", action, "--cache"])
            .arg(&cache)
            .env("MASTRA_CONFORM_OBSERVATIONS", &store)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        stdout(&out)
    };
    let status = cache_cmd("status");
    assert!(status.contains("observations"), "{status}");
    assert!(status.contains("2 shelf(s)"), "{status}");
    assert!(
        status.contains("stale, its install is gone or changed"),
        "{status}"
    );
    let pruned = cache_cmd("prune");
    assert!(pruned.contains("removed 2 shelf(s)"), "{pruned}");
    assert!(pruned.contains("0 shelf(s)"), "{pruned}");
}
