//! End to end: the real binary, real Node, real `@mastra/core`, for the
//! nightly matrix, its reports (the HTML one in headless Chromium), verify,
//! compare and bisect.
//!
//! Versions outside the pinned ones install on demand into the cache
//! (about 13 s each on a fresh machine), so the bisect tests keep to narrow
//! ranges around the changes: the search over a long range is
//! `loops::bisect::least_satisfying`'s, unit-tested with a table and a
//! property.
//!
//! Chromium is Debian's package: `harness/tests/setup.sh` installs it.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use crate::browser::{dump_dom, wait_with_deadline};
use crate::common::{bin, text};

fn run(args: &[&str]) -> Output {
    let out = bin().args(args).output().expect("the harness runs");
    eprintln!("$ mastra-conform {}\n{}", args.join(" "), text(&out));
    out
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

const GRID_CASES: &[&str] = &[
    "cases/report/toolchoice-by-key-not-rewritten.json",
    "cases/toolchoice/named-absent.json",
    "cases/report/builtins-by-id.json",
    "cases/report/search-web-is-sent-as-search_web.json",
    "cases/active-tools/by-registered-key.json",
];

#[test]
fn the_html_grid_shows_the_verdicts_in_headless_chromium() {
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().to_str().unwrap();
    let report_file = out_dir.path().join("report.json");
    let mut args = vec![
        "matrix",
        "--versions",
        "1.0.4,1.67.0",
        "--out",
        out,
        "--jsonl",
        "--json",
        report_file.to_str().unwrap(),
    ];
    for c in GRID_CASES {
        args.extend(["--cases", c]);
    }
    let r = under_umask_022(&args);
    assert_eq!(
        r.status.code(),
        Some(0),
        "known issues and provider rejections are not divergences"
    );
    // Files a user can share: another account reads every one of them.
    for f in [
        "results.sqlite",
        "report.json",
        "report.html",
        "junit/TEST-mastra-core-1.67.0.xml",
        "report.md",
    ] {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(out_dir.path().join(f))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o644, "{f}: mode {mode:o} under umask 022");
    }
    let report = json(&report_file);
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), GRID_CASES.len() * 2);
    let verdict = |case: &str, version: &str| {
        results
            .iter()
            .find(|r| r["case"] == case && r["version"] == version)
            .map(|r| r["verdict"].as_str().unwrap().to_string())
            .unwrap()
    };
    // What the corpus establishes, so the grid is checked against facts and
    // not only against the JSON it was made from.
    assert_eq!(verdict(GRID_CASES[0], "1.67.0"), "known-issue");
    assert_eq!(verdict(GRID_CASES[1], "1.67.0"), "provider-rejects");
    assert_eq!(verdict(GRID_CASES[2], "1.0.4"), "not-applicable");
    assert_eq!(verdict(GRID_CASES[3], "1.67.0"), "as-modelled");
    assert_eq!(
        verdict(GRID_CASES[4], "1.0.4"),
        "as-modelled",
        "activeTools was ignored before 1.1.0"
    );
    assert_eq!(verdict(GRID_CASES[4], "1.67.0"), "known-issue");

    // report.html is the run at a glance, a short page that links to the
    // grid (the site beside it, whose own test opens its cells): the known
    // issues with their versions, the counts by version.
    let page = out_dir.path().join("report.html");
    let size = std::fs::metadata(&page).unwrap().len();
    assert!(size < 16 * 1024, "a short page: {size} bytes");
    let url = format!("file://{}", page.display());
    let page_dom = dump_dom(&[], &url);
    let headline = &page_dom[page_dom.find("<ul id=\"issues\"").expect("the headline")..];
    let headline = &headline[..headline.find("</ul>").unwrap()];
    assert!(
        headline.contains("toolchoice-not-rewritten (A named toolChoice does not follow the tool-name rewrite): present on 1.0.4, 1.67.0"),
        "{headline}"
    );
    assert!(
        page_dom.contains("<a href=\"site/index.html\">"),
        "the page links the grid: {page_dom}"
    );
    assert!(
        out_dir.path().join("site/index.html").is_file(),
        "the grid it links is there"
    );
    let counts = &page_dom[page_dom.find("<table id=\"counts\"").expect("the counts")..];
    assert!(counts.contains("<td>1.67.0</td>"), "{counts}");

    // `report` renders the same files again from the run's own JSON, with
    // one upstream link written in: the page and the site are there.
    let mut linked = json(&out_dir.path().join("report.json"));
    let mut links = 0;
    for r in linked["results"].as_array_mut().unwrap() {
        let Some(issue) = r.get_mut("knownIssue") else {
            continue;
        };
        assert!(
            issue["title"].as_str().is_some_and(|t| !t.is_empty()),
            "the JSON report carries each issue's title: {issue}"
        );
        if issue["id"] == "toolchoice-not-rewritten" {
            assert_eq!(
                issue["title"],
                "A named toolChoice does not follow the tool-name rewrite"
            );
            issue["upstream"] = serde_json::Value::from("https://example.org/upstream/1");
            links += 1;
        }
    }
    assert!(links >= 2, "{links}");
    let again = out_dir.path().join("linked");
    let file = out_dir.path().join("linked.json");
    std::fs::write(&file, serde_json::to_string(&linked).unwrap()).unwrap();
    let r = run(&[
        "report",
        file.to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(0));
    for f in [
        "report.html",
        "junit/TEST-mastra-core-1.67.0.xml",
        "report.md",
        "site/index.html",
    ] {
        assert!(again.join(f).is_file(), "{f}");
    }
    let linked_case = std::fs::read_dir(again.join("site/data/c"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .find(|t| t.contains("example.org/upstream/1"));
    assert!(linked_case.is_some(), "the link reaches the case's detail");

    // The other renderings of the same run.
    // JUnit: a file a version, each its version's five cases.
    let files = crate::common::junit(out_dir.path());
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["TEST-mastra-core-1.0.4.xml", "TEST-mastra-core-1.67.0.xml"]
    );
    for (name, xml) in &files {
        assert!(
            xml.contains(
                "<testsuites name=\"mastra-conform\" tests=\"5\" failures=\"0\" errors=\"0\""
            ),
            "{name}: {xml}"
        );
    }
    let md = std::fs::read_to_string(out_dir.path().join("report.md")).unwrap();
    assert!(
        md.contains("| `toolchoice-not-rewritten` | present | 1.0.4, 1.67.0 | 1 |"),
        "{md}"
    );
    let lines = std::fs::read_to_string(out_dir.path().join("results.jsonl")).unwrap();
    assert_eq!(
        lines.lines().count(),
        2 + results.len(),
        "a run line, one line per result, then the footer"
    );
    assert_eq!(
        lines.lines().last().unwrap(),
        format!(
            r#"{{"end":{{"results":{},"interrupted":false}}}}"#,
            results.len()
        )
    );

    // Comparing a run with itself: nothing moved, whether it is read from
    // the JSON report or from the database.
    let same = out_dir.path().join("report.json");
    let db = out_dir.path().join("results.sqlite");
    let r = run(&["compare", same.to_str().unwrap(), db.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(0));
    assert!(stdout(&r).contains(&format!("unchanged: {}", results.len())));

    // The database renders the same report as the JSON report.
    let from_db = out_dir.path().join("from-db");
    let r = run(&[
        "report",
        db.to_str().unwrap(),
        "--out",
        from_db.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(from_db.join("report.md")).unwrap(),
        md,
        "one run, one rendering, from either record"
    );
}

/// Run the harness with `args` under the usual umask 022.
fn under_umask_022(args: &[&str]) -> Output {
    use std::os::unix::process::CommandExt;
    let mut cmd = bin();
    cmd.args(args);
    // SAFETY: umask(2) is async-signal-safe and touches nothing but the
    // child's own file-creation mask.
    unsafe {
        cmd.pre_exec(|| {
            libc::umask(0o022);
            Ok(())
        });
    }
    let out = cmd.output().expect("the harness runs");
    eprintln!("$ mastra-conform {}\n{}", args.join(" "), text(&out));
    out
}

fn count_cases(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            if p.is_dir() {
                count_cases(&p)
            } else {
                usize::from(p.extension().is_some_and(|e| e == "json"))
            }
        })
        .sum()
}

#[test]
fn an_interrupted_matrix_keeps_what_finished() {
    let out_dir = tempfile::tempdir().unwrap();
    let jsonl = out_dir.path().join("results.jsonl");
    let report_file = out_dir.path().join("report.json");
    let child = bin()
        .args([
            "matrix",
            "--versions",
            "1.0.4,1.67.0",
            "--out",
            out_dir.path().to_str().unwrap(),
            "--jsonl",
            "--json",
            report_file.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let began = Instant::now();
    // Interrupt it (Ctrl-C) once some results of the first version are in.
    loop {
        let n = std::fs::read_to_string(&jsonl)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if n > 10 {
            break;
        }
        assert!(
            began.elapsed() < Duration::from_secs(300),
            "no results within 5 minutes"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill(2) on the pid of a child this test spawned and has not
    // yet waited for, so the pid is still ours.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
        0
    );
    let out = wait_with_deadline(child, Duration::from_secs(120));
    assert_eq!(
        out.status.code(),
        Some(3),
        "an interrupted run is not a clean one"
    );
    let report = json(&report_file);
    assert_eq!(report["run"]["interrupted"], true);
    let results = report["results"].as_array().unwrap().len();
    let corpus = count_cases(&Path::new(env!("CARGO_MANIFEST_DIR")).join("cases"));
    assert!(
        results > 0 && results < 2 * corpus,
        "{results} of {} results kept",
        2 * corpus
    );
    let text = std::fs::read_to_string(&jsonl).unwrap();
    assert_eq!(
        text.lines().count(),
        2 + results,
        "the JSONL holds exactly what finished, and its footer"
    );
    assert_eq!(
        text.lines().last().unwrap(),
        format!(r#"{{"end":{{"results":{results},"interrupted":true}}}}"#)
    );
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("every line is JSON");
    }
    // The JSONL alone renders the reports (as after a hard kill).
    let rendered: PathBuf = out_dir.path().join("again");
    let r = run(&[
        "report",
        jsonl.to_str().unwrap(),
        "--out",
        rendered.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(3), "an interrupted run stays one");
    assert!(
        rendered.join("report.html").is_file() && rendered.join("junit/TEST-run.xml").is_file()
    );
    let md = std::fs::read_to_string(rendered.join("report.md")).unwrap();
    assert!(md.contains("INTERRUPTED"), "{md}");
    // So does the database, its end mark saying interrupted.
    let db = out_dir.path().join("results.sqlite");
    let r = run(&[
        "report",
        db.to_str().unwrap(),
        "--out",
        rendered.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(3), "an interrupted run stays one");
    assert!(
        stdout(&r).contains(&format!("{results} results")),
        "{}",
        stdout(&r)
    );
}

/// A matrix killed outright (SIGKILL, no chance to write anything more)
/// leaves a database that opens, is marked partial, and holds every result
/// the run had put in its JSONL, which is written after the database.
#[test]
fn a_killed_matrix_leaves_a_readable_partial_database() {
    let out_dir = tempfile::tempdir().unwrap();
    let jsonl = out_dir.path().join("results.jsonl");
    // Killed, it cannot remove its listener's socket folder: that goes in
    // the test's own folder rather than the machine's temporary folder.
    let mut child = bin()
        .env("TMPDIR", out_dir.path())
        .args([
            "matrix",
            "--versions",
            "1.67.0",
            "--out",
            out_dir.path().to_str().unwrap(),
            "--jsonl",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let began = Instant::now();
    while std::fs::read_to_string(&jsonl)
        .map(|t| t.lines().count())
        .unwrap_or(0)
        <= 10
    {
        assert!(
            began.elapsed() < Duration::from_secs(300),
            "no results within 5 minutes"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let reported = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"verdict\""))
        .count();
    let db = out_dir.path().join("results.sqlite");
    let rendered = out_dir.path().join("again");
    let r = run(&[
        "report",
        db.to_str().unwrap(),
        "--out",
        rendered.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(3), "a killed run is partial");
    let said = stdout(&r);
    assert!(said.contains("PARTIAL: it has no end mark"), "{said}");
    let kept: usize = said
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a count of results: {said}"));
    assert!(
        kept >= reported && reported >= 10,
        "{kept} results in the database, {reported} reported"
    );
    let md = std::fs::read_to_string(rendered.join("report.md")).unwrap();
    assert!(md.contains("PARTIAL"), "{md}");
}

#[test]
fn verify_says_the_toolchoice_issue_is_present() {
    let dir = tempfile::tempdir().unwrap();
    let j = dir.path().join("verify.json");
    let r = run(&[
        "verify",
        "toolchoice-not-rewritten",
        "--versions",
        "1.0.4,1.67.0",
        "--json",
        j.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(0));
    assert!(
        stdout(&r).contains("present                1.0.4 … 1.67.0 (2 versions)"),
        "{}",
        stdout(&r)
    );
    let v = json(&j);
    for version in v["issues"][0]["versions"].as_array().unwrap() {
        assert_eq!(version["status"], "present");
    }
    let r = run(&["verify", "no-such-issue", "--versions", "1.67.0"]);
    assert_eq!(r.status.code(), Some(2));
}

/// `bisect CASE --good GOOD --bad BAD MORE...`.
fn bisect(case: &str, good: &str, bad: &str, more: &[&str]) -> Output {
    let mut args = vec!["bisect", case, "--good", good, "--bad", bad];
    args.extend(more);
    run(&args)
}

fn first_changed(out: &Output) -> String {
    let text = stdout(out);
    let line = text
        .lines()
        .find(|l| l.starts_with("first changed version: "))
        .unwrap_or_else(|| panic!("{text}"));
    line["first changed version: ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .to_string()
}

/// toolChoice "none" stopped sending tools in 1.19.0 (narrow range).
#[test]
fn bisect_finds_where_toolchoice_none_changed() {
    let r = bisect("cases/toolchoice/none.json", "1.18.0", "1.20.0", &[]);
    assert_eq!(r.status.code(), Some(0));
    assert_eq!(first_changed(&r), "1.19.0");
    assert!(
        stdout(&r).contains("-      \"toolChoice\": \"none\","),
        "{}",
        stdout(&r)
    );
    let r = bisect("cases/toolchoice/none.json", "1.19.0", "1.20.0", &[]);
    assert_eq!(r.status.code(), Some(1), "no change in range");
}

/// The default temperature left the body in 1.29.0 (narrow range): 1.28.0's
/// agent sets `modelSettings: { temperature: 0, ...options.modelSettings }`,
/// 1.29.0's no longer does (read in both dists, and observed from a fresh
/// install of each).
#[test]
fn bisect_on_body_finds_where_the_temperature_left() {
    let r = bisect(
        "cases/report/search-web-is-sent-as-search_web.json",
        "1.28.0",
        "1.30.0",
        &["--on", "body"],
    );
    assert_eq!(r.status.code(), Some(0));
    assert_eq!(first_changed(&r), "1.29.0");
    assert!(
        stdout(&r).contains("-    \"temperature\": 0,"),
        "{}",
        stdout(&r)
    );
}

#[test]
fn bad_bisect_input_is_exit_2() {
    for (case, good, bad) in [
        ("cases/toolchoice/none.json", "1.20.0", "1.19.0"),
        ("cases/toolchoice/none.json", "1.x", "1.19.0"),
        ("cases/no-such-case.json", "1.18.0", "1.19.0"),
    ] {
        assert_eq!(
            bisect(case, good, bad, &[]).status.code(),
            Some(2),
            "{case} --good {good} --bad {bad}"
        );
    }
}

/// `COMMAND | head -1`: the reader goes away after one line, and the
/// harness ends without a panic. Each command prints more than one line,
/// so later writes meet a closed pipe. `run` is on `cases/report`: it
/// prints a version's counts, then the store's, on those 17 cases as on
/// the whole corpus (609 on 1.67.0), whose run only made the first line
/// about 25 seconds later.
#[test]
fn commands_survive_a_reader_that_leaves() {
    let tries: &[&[&str]] = &[
        &[
            "bisect",
            "cases/toolchoice/none.json",
            "--good",
            "1.18.0",
            "--bad",
            "1.20.0",
        ],
        &["verify", "all", "--versions", "1.67.0"],
        &["run", "--versions", "1.67.0", "--cases", "cases/report"],
    ];
    for args in tries {
        let mut child = bin()
            .args(*args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the harness runs");
        let mut first = String::new();
        {
            use std::io::BufRead;
            let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
            out.read_line(&mut first).unwrap();
            // Dropping the reader closes the pipe, as `head -1` does.
        }
        let out = wait_with_deadline(child, Duration::from_secs(600));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!first.is_empty(), "{args:?} printed nothing: {err}");
        assert!(
            !err.contains("panicked") && out.status.code().is_some(),
            "{args:?} after the reader left: {:?}\n{err}",
            out.status
        );
    }
}

/// `make run`'s command: every report format in the folder, and a headline
/// naming the known issues with their versions, the divergences, and the
/// HTML report's path.
#[test]
fn run_with_out_writes_every_format_and_a_headline() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    let r = run(&[
        "run",
        "--versions",
        "1.67.0",
        "--cases",
        "cases/report",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(0), "{}", text(&r));
    for f in [
        "report.json",
        "junit/TEST-mastra-core-1.67.0.xml",
        "report.md",
        "report.html",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let text = stdout(&r);
    assert!(
        text.contains("known upstream issues:\n")
            && text
                .lines()
                .any(|l| l.starts_with("  toolchoice-not-rewritten (")
                    && l.ends_with("present on 1.67.0")),
        "{text}"
    );
    assert!(text.contains("divergences: none"), "{text}");
    assert!(
        text.contains(&format!("reports: {}", out.join("report.html").display())),
        "{text}"
    );
    let report = json(&out.join("report.json"));
    let refused = &report["run"]["listenerRefused"];
    assert_eq!(refused["unknownCase"], 0, "{refused}");
    assert_eq!(refused["badToken"], 0, "{refused}");

    // The run leaves its database, which `report` and `compare` read: the
    // same renderings from it, and nothing moved against the JSON.
    let db = out.join("results.sqlite");
    assert!(out.join("site/index.html").is_file());
    let again = dir.path().join("again");
    let r = run(&[
        "report",
        db.to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(0), "{}", crate::common::text(&r));
    for f in [
        "junit/TEST-mastra-core-1.67.0.xml",
        "report.md",
        "report.html",
    ] {
        assert_eq!(
            std::fs::read(out.join(f)).unwrap(),
            std::fs::read(again.join(f)).unwrap(),
            "{f} from the database is the run's"
        );
    }
    let r = run(&[
        "compare",
        out.join("report.json").to_str().unwrap(),
        db.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(0), "{}", crate::common::text(&r));
    assert_eq!(
        report["results"].as_array().unwrap().len(),
        count_results(&db),
        "every result is in the database"
    );
}

/// How many results a results database holds, as `report` counts them.
fn count_results(db: &Path) -> usize {
    let r = run(&[
        "report",
        db.to_str().unwrap(),
        "--out",
        db.with_extension("count").to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&r.stderr).into_owned() + &stdout(&r);
    said.split(" results:")
        .next()
        .and_then(|l| l.rsplit(['\n', ' ']).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {said}"))
}

/// `diff --route`: every case runs on each route asked for, on both sides,
/// and the report names each case with its route.
#[test]
fn diff_takes_routes_like_run() {
    let dir = tempfile::tempdir().unwrap();
    let j = dir.path().join("diff.json");
    let r = run(&[
        "diff",
        "--from",
        "1.67.0",
        "--to",
        "1.71.0",
        "--cases",
        "cases/report/search-web-is-sent-as-search_web.json",
        "--route",
        "anthropic,mistral",
        "--json",
        j.to_str().unwrap(),
    ]);
    assert!(matches!(r.status.code(), Some(0 | 1)), "{}", text(&r));
    let report = json(&j);
    let mut names: Vec<String> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["case"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "cases/report/search-web-is-sent-as-search_web.json@anthropic",
            "cases/report/search-web-is-sent-as-search_web.json@mistral"
        ],
        "{report}"
    );
}

/// Two nights of one corpus with `--history`: the first is recorded as the
/// first, the second (its observations reused from the store) leads its
/// summary with nothing changed, and the history holds one row of totals a
/// night.
#[test]
fn matrix_history_says_what_changed_since_the_previous_night() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history.sqlite");
    let night = |n: u32| {
        let out = dir.path().join(format!("night{n}"));
        let mut args = vec![
            "matrix",
            "--versions",
            if n < 3 { "1.67.0" } else { "1.0.4,1.67.0" },
            "--out",
            out.to_str().unwrap(),
            "--history",
            history.to_str().unwrap(),
        ];
        for c in GRID_CASES {
            args.extend(["--cases", c]);
        }
        let r = run(&args);
        assert_eq!(r.status.code(), Some(0));
        stdout(&r)
    };
    let first = night(1);
    assert!(
        first.starts_with("history: night 1 is the first in"),
        "{first}"
    );
    let second = night(2);
    assert!(
        second.starts_with("since the previous night (night 1 of")
            && second.contains(": 0 changed, 0 new"),
        "{second}"
    );
    // A third night adds 1.0.4: each case's detail on the site carries its
    // nights, 1.67.0's first seen on night 1, 1.0.4's on night 3.
    let third = night(3);
    assert!(third.contains(": 0 changed, 5 new"), "{third}");
    let case = GRID_CASES[4];
    let detail = std::fs::read_dir(dir.path().join("night3/site/data/c"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .find(|t| t.contains(&format!("\"path\":\"{case}\"")))
        .expect("the case's detail");
    let body = &detail[detail.find(',').unwrap() + 1..detail.rfind(");").unwrap()];
    let detail: serde_json::Value = serde_json::from_str(body).unwrap();
    let nights: Vec<(String, u64, String)> = detail["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h[1].as_str().unwrap().to_string(),
                h[2].as_u64().unwrap(),
                h[4].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        nights,
        [
            ("1.0.4".to_string(), 3, "as-modelled".to_string()),
            ("1.67.0".to_string(), 1, "known-issue".to_string())
        ]
    );
    // The detail page shows them, in headless Chromium.
    let url = format!(
        "file://{}#case={}&route=openai&version=1.0.4",
        dir.path().join("night3/site/index.html").display(),
        detail_id(&dir.path().join("night3/site"), case)
    );
    let dom = dump_dom(&["--virtual-time-budget=20000"], &url);
    let at = dom.find("class=\"history\"").expect("a history section");
    assert!(
        dom[at..].contains("night 3 (") && dom[at..].contains("): as-modelled"),
        "{dom}"
    );
}

/// Two nights of one seed with `--history`, as the nightly's are when its
/// seed stands: each generated case is named by its index and content, so
/// both nights name the fuzz cases alike, and the one whose result changed
/// is named first in the second night's summary, as that case's change.
/// The change is planted with the test build's flaky probe
/// (`MASTRA_CONFORM_TEST_FLAKY`, `run::planted`): on night 2, with no
/// re-check, the chosen case's only answer loses its last request, so it
/// diverges and stays diverged. A third night of another seed draws other
/// cases, under other names: new, not changed, and `compare` calls none of
/// them a regression.
#[test]
fn matrix_history_names_the_fuzz_case_that_changed_first() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history.sqlite");
    let night = |n: u32, plant: Option<&str>| {
        let seed = if n < 3 { "11" } else { "12" };
        let out = dir.path().join(format!("night{n}"));
        let json = dir.path().join(format!("night{n}.json"));
        let mut c = bin();
        c.args(["matrix", "--versions", "1.67.0", "--cases", GRID_CASES[0]])
            .args(["--fuzz-count", "8", "--seed", seed, "--out"])
            .arg(&out)
            .arg("--history")
            .arg(&history)
            .arg("--json")
            .arg(&json);
        if let Some(name) = plant {
            c.env("MASTRA_CONFORM_TEST_FLAKY", name);
        }
        let r = c.output().expect("the harness runs");
        eprintln!("night {n}:\n{}", text(&r));
        let mut names: Vec<String> = std::fs::read_dir(out.join("fuzz-cases"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        (r, names, json)
    };
    let (first, names, report) = night(1, None);
    assert!(
        matches!(first.status.code(), Some(0 | 1)),
        "{}",
        text(&first)
    );
    assert_eq!(names.len(), 8);
    // A generated case that was as modelled and sent a request: losing its
    // last request is a change of its verdict.
    let report = json(&report);
    let chosen = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["case"].as_str().unwrap().starts_with("fuzz-cases/")
                && r["verdict"] == "as-modelled"
                && r["observed"]["requests"]
                    .as_array()
                    .is_some_and(|q| !q.is_empty())
        })
        .unwrap_or_else(|| panic!("an as-modelled generated case with a request: {report}"));
    let case = chosen["case"].as_str().unwrap().to_string();

    let (second, again, _) = night(2, Some(&case));
    assert_eq!(again, names, "the same seed names the same cases");
    assert_eq!(second.status.code(), Some(1), "{}", text(&second));
    let said = stdout(&second);
    let mut lines = said.lines();
    let head = lines.next().unwrap_or_default();
    assert!(
        head.starts_with("since the previous night (night 1 of")
            && head.contains(": 1 changed, 0 new"),
        "{said}"
    );
    assert_eq!(
        lines.next(),
        Some(format!("  {case} on 1.67.0: as-modelled -> diverged").as_str()),
        "{said}"
    );

    let (third, other, _) = night(3, None);
    assert!(
        matches!(third.status.code(), Some(0 | 1)),
        "{}",
        text(&third)
    );
    assert!(
        other.iter().all(|n| !names.contains(n)),
        "another seed, other names: {other:?} {names:?}"
    );
    let said = stdout(&third);
    assert!(
        said.lines()
            .next()
            .is_some_and(|l| l.contains(": 0 changed, 8 new")),
        "{said}"
    );
    let db = |n: u32| dir.path().join(format!("night{n}/results.sqlite"));
    let compared = bin().arg("compare").arg(db(2)).arg(db(3)).output().unwrap();
    let said = stdout(&compared);
    assert!(
        said.contains("new (8):\n") && said.contains("gone (8):\n") && !said.contains("regressed"),
        "{}",
        text(&compared)
    );
}

/// The id of a case's detail file on a site (its `data/c/ID.js`).
fn detail_id(site: &Path, case: &str) -> String {
    std::fs::read_dir(site.join("data/c"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains(&format!("\"path\":\"{case}\""))
        })
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .expect("the case's detail")
}

/// A security issue leads: `approval-policy-fails-open` (severity
/// `security` in known-issues.json) is the headline's first line, marked,
/// with the release it is present on, and first on the site's index;
/// `--fail-on security` makes the run exit 1 on it, where without the flag
/// a known issue present is no failure.
#[test]
fn a_security_issue_leads_and_fail_on_security_exits_1_on_1_71_0() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    let args = |fail: bool| {
        let mut a = vec![
            "run",
            "--versions",
            "1.71.0",
            "--cases",
            "cases/approval/policy-by-key-stream.json",
            "--cases",
            "cases/report/toolchoice-by-key-not-rewritten.json",
            "--out",
            out.to_str().unwrap(),
        ];
        if fail {
            a.extend(["--fail-on", "security"]);
        }
        a
    };
    let r = run(&args(false));
    assert_eq!(r.status.code(), Some(0), "a known issue is no failure");
    let r = run(&args(true));
    assert_eq!(r.status.code(), Some(1), "{}", crate::common::text(&r));
    let said = stdout(&r);
    // The headline follows the summary and the store's line.
    let first = said
        .lines()
        .skip_while(|l| !l.starts_with("observations:"))
        .skip(1)
        .find(|l| !l.is_empty())
        .unwrap();
    assert!(
        first.starts_with("SECURITY: approval-policy-fails-open (")
            && first.ends_with("present on 1.71.0"),
        "the headline's first line: {said}"
    );
    let listed: Vec<&str> = said
        .lines()
        .skip_while(|l| *l != "known upstream issues:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert!(
        listed[0].starts_with("  SECURITY approval-policy-fails-open")
            && listed[1].starts_with("  toolchoice-not-rewritten"),
        "{listed:?}"
    );
    // The page at a glance and the site's index put it first, marked.
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    let issues = &page[page.find("<ul id=\"issues\">").unwrap()..];
    assert!(
        issues
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("<li><span class=\"security\">SECURITY</span> approval-policy-fails-open"),
        "{issues}"
    );
    let url = format!("file://{}", out.join("site/index.html").display());
    let dom = dump_dom(&["--virtual-time-budget=20000"], &url);
    let list = &dom[dom.find("<ul id=\"issues\"").expect("the index's issues")..];
    let first_li = &list[..list.find("</li>").unwrap()];
    assert!(
        first_li.contains("data-issue=\"approval-policy-fails-open\"")
            && first_li.contains("class=\"security\"")
            && first_li.contains("SECURITY")
            && first_li.contains("1.71.0"),
        "{first_li}"
    );
}
