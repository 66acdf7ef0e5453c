//! End to end: `--recheck N` with real Node and the pinned `@mastra/core`.
//! A planted flaky probe (the debug build's `MASTRA_CONFORM_TEST_FLAKY`:
//! each matching case's first answer loses its last request, later answers
//! are the probe's own) gives `flaky`, not `diverged`, kept apart in every
//! rendering, and `compare` lists it apart; `--recheck 0` gives the
//! verdicts of no flag; with `matrix --history`, a result that changed since
//! the last night is observed again.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{bin, root, text};

const VERSION: &str = "1.67.0";
/// The case planted flaky, and a calm one beside it.
const FLAKY: &str = "toolchoice/auto.json";
const CALM: &str = "active-tools/empty.json";
/// What `MASTRA_CONFORM_TEST_FLAKY` matches: the flaky case's name only.
const PLANT: &str = "toolchoice-auto";

/// A folder of the two cases, named so that only one matches `PLANT`.
fn cases(dir: &Path) -> PathBuf {
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    for c in [FLAKY, CALM] {
        std::fs::copy(
            root().join("cases").join(c),
            cases.join(c.replace('/', "-")),
        )
        .unwrap();
    }
    cases
}

/// The harness, with the flaky probe planted when `plant`.
fn harness(args: &[&str], plant: bool) -> Output {
    let mut c = bin();
    c.args(args);
    if plant {
        c.env("MASTRA_CONFORM_TEST_FLAKY", PLANT);
    }
    let out = c.output().expect("the harness runs");
    eprintln!("{}", text(&out));
    out
}

fn run(cases: &Path, out: &Path, extra: &[&str], plant: bool) -> Output {
    let mut args = vec![
        "run",
        "--versions",
        VERSION,
        "--cases",
        cases.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    harness(&args, plant)
}

fn report(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap()
}

/// Each result's case file name, verdict and recheck member, sorted.
fn verdicts(out: &Path) -> Vec<(String, String, serde_json::Value)> {
    let mut v: Vec<_> = report(out)["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let case = r["case"].as_str().unwrap();
            (
                Path::new(case)
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                r["verdict"].as_str().unwrap().to_string(),
                r["recheck"].clone(),
            )
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_planted_flaky_probe_is_flaky_not_diverged_and_compare_lists_it_apart() {
    let dir = tempfile::tempdir().unwrap();
    let cases = cases(dir.path());
    let (once, again) = (dir.path().join("once"), dir.path().join("again"));

    // Without re-checks the planted first answer is a divergence.
    let first = run(&cases, &once, &[], true);
    assert_eq!(first.status.code(), Some(1), "{}", text(&first));
    let null = serde_json::Value::Null;
    assert_eq!(
        verdicts(&once),
        [
            (
                "active-tools-empty.json".into(),
                "as-modelled".into(),
                null.clone()
            ),
            (
                "toolchoice-auto.json".into(),
                "diverged".into(),
                null.clone()
            ),
        ]
    );

    // Observed again, the probe answers as itself: the tries disagree.
    let second = run(&cases, &again, &["--recheck", "2"], true);
    assert_eq!(second.status.code(), Some(0), "{}", text(&second));
    assert_eq!(
        verdicts(&again),
        [
            ("active-tools-empty.json".into(), "as-modelled".into(), null),
            (
                "toolchoice-auto.json".into(),
                "flaky".into(),
                serde_json::json!({ "tries": ["diverged", "as-modelled"] })
            ),
        ]
    );
    let said = stdout(&second);
    for line in [
        "1.67.0: 1 as-modelled, 1 flaky",
        "toolchoice-auto.json on 1.67.0: flaky, not a divergence (observed again: diverged -> as-modelled)",
        "re-checks: 1 result(s) observed again (1 observations, --recheck 2): 1 flaky",
        "divergences: none",
        "flaky: 1 (observed again, the tries disagree; not divergences)",
    ] {
        assert!(said.contains(line), "{line:?} in\n{said}");
    }
    let md = read(again.join("report.md"));
    assert!(
        md.contains("**no divergence** · 0 divergence(s) · 1 flaky ·"),
        "{md}"
    );
    assert!(
        md.contains("### Flaky (observed again, the tries disagree; not divergences)"),
        "{md}"
    );
    let xml = crate::common::junit_text(&again);
    assert!(
        xml.contains("failures=\"0\"") && xml.contains("<skipped message=\"flaky\"/>"),
        "{xml}"
    );
    assert!(
        xml.contains("observed again: diverged -&gt; as-modelled"),
        "{xml}"
    );
    let index = read(again.join("site/data/index.js"));
    assert!(index.contains("\"divergences\":{\"count\":0,"), "{index}");
    assert!(index.contains("\"flaky\":{\"count\":1,"), "{index}");
    // The site's headline, in headless Chromium, lists it apart.
    let url = format!("file://{}", again.join("site/index.html").display());
    let dom = crate::browser::dump_dom(&["--virtual-time-budget=20000"], &url);
    assert!(dom.contains("divergences: none"), "{dom}");
    assert!(
        dom.contains("flaky (observed again, the tries disagree; not divergences): 1"),
        "{dom}"
    );
    assert!(dom.contains("toolchoice-auto.json on 1.67.0</a>"), "{dom}");

    // `compare` reads both databases: the flaky case is listed apart, and
    // is no regression, either way round.
    let db = |d: &Path| d.join("results.sqlite").to_str().unwrap().to_string();
    for (old, new, change) in [
        (db(&once), db(&again), "diverged -> flaky"),
        (db(&again), db(&once), "flaky -> diverged"),
    ] {
        let compared = harness(&["compare", &old, &new], false);
        assert_eq!(compared.status.code(), Some(0), "{}", text(&compared));
        let said = stdout(&compared);
        assert!(said.contains("flaky (not compared) (1):\n"), "{said}");
        assert!(
            said.contains(&format!("toolchoice-auto.json on 1.67.0: {change}\n")),
            "{said}"
        );
        assert!(
            !said.contains("regressed") && !said.contains("fixed"),
            "{said}"
        );
    }
}

#[test]
fn recheck_0_gives_the_verdicts_of_no_flag() {
    let dir = tempfile::tempdir().unwrap();
    let cases = cases(dir.path());
    let (plain, zero) = (dir.path().join("plain"), dir.path().join("zero"));
    let a = run(&cases, &plain, &[], true);
    let b = run(&cases, &zero, &["--recheck", "0"], true);
    assert_eq!(a.status.code(), Some(1));
    assert_eq!(b.status.code(), a.status.code());
    let results = |out: &Path| report(out)["results"].clone();
    assert_eq!(results(&plain), results(&zero));
    assert!(!stdout(&b).contains("re-check"), "{}", stdout(&b));
    // Every rendering but the run line (its commit and speeds) is the same.
    let without_run = |t: String| t.lines().skip(3).collect::<Vec<_>>().join("\n");
    assert_eq!(
        without_run(read(plain.join("report.md"))),
        without_run(read(zero.join("report.md"))),
        "report.md"
    );
    assert_eq!(
        crate::common::junit(&plain),
        crate::common::junit(&zero),
        "junit/"
    );
}

/// With `matrix --history`: a night that is flaky is listed apart in the
/// night's summary, and on the next night the result, calm but changed
/// since, is observed again; its tries agree, so its verdict stands.
#[test]
fn matrix_rechecks_what_changed_since_the_last_night() {
    let dir = tempfile::tempdir().unwrap();
    let cases = cases(dir.path());
    let history = dir.path().join("history.sqlite");
    let night = |n: u32, plant: bool| {
        let out = dir.path().join(format!("night{n}"));
        let json = out.join("report.json");
        let args = [
            "matrix",
            "--versions",
            VERSION,
            "--cases",
            cases.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--history",
            history.to_str().unwrap(),
            "--recheck",
            "1",
            "--json",
            json.to_str().unwrap(),
        ];
        let said = harness(&args, plant);
        assert_eq!(said.status.code(), Some(0), "{}", text(&said));
        (stdout(&said), out)
    };
    let (first, _) = night(1, false);
    assert!(first.contains("re-checks: none needed"), "{first}");
    let (second, _) = night(2, true);
    assert!(second.contains(": 0 changed, 0 new, 1 flaky\n"), "{second}");
    assert!(
        second.contains("  flaky: ") && second.contains(": as-modelled -> flaky (observed again"),
        "{second}"
    );
    let (third, out) = night(3, false);
    assert!(third.contains(": 1 changed, 0 new\n"), "{third}");
    assert!(
        third.contains("on 1.67.0: flaky -> as-modelled\n"),
        "{third}"
    );
    assert!(
        third.contains(
            "re-checks: 1 result(s) observed again (1 observations, --recheck 1): 0 flaky"
        ),
        "{third}"
    );
    assert_eq!(
        verdicts(&out),
        [
            (
                "active-tools-empty.json".into(),
                "as-modelled".into(),
                serde_json::Value::Null
            ),
            (
                "toolchoice-auto.json".into(),
                "as-modelled".into(),
                serde_json::json!({ "tries": ["as-modelled", "as-modelled"] })
            ),
        ]
    );
}
