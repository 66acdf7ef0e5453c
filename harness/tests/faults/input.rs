//! Bad input, through the binary: every way a case file can be wrong, bad
//! flags and bad version strings. Each is one clear error that names the
//! file, the field and the value (or the flag and the value), exit 2, no
//! panic; and in a folder of cases the good ones still run.

use crate::check;
use crate::support::*;
use std::path::Path;

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "input/every-way-a-case-file-is-wrong",
            run: bad_case_files,
        },
        Scenario {
            name: "input/the-rest-of-the-corpus-still-runs",
            run: corpus_still_runs,
        },
        Scenario {
            name: "input/bad-flags-and-versions",
            run: bad_flags,
        },
        Scenario {
            name: "input/a-malformed-known-issues-ledger",
            run: malformed_ledger,
        },
        Scenario {
            name: "input/flags-at-their-limits",
            run: flags_at_their_limits,
        },
        Scenario {
            name: "input/reports-that-cannot-lie",
            run: reports_cannot_lie,
        },
    ]
}

/// (file name, content, the field named, a piece of the value shown)
const BAD_CASES: &[(&str, &[u8], &str, &str)] = &[
    ("not-json", br#"{"about": "#, "", "not valid JSON"),
    ("empty", b"", "", "not valid JSON"),
    (
        "trailing-text",
        br#"{"about":"a"} x"#,
        "",
        "after the JSON value",
    ),
    ("not-utf8", b"{\"about\":\"a\xff\"}", "", "not UTF-8"),
    (
        "byte-order-mark",
        b"\xef\xbb\xbf{\"about\":\"a\"}",
        "",
        "not valid JSON",
    ),
    ("too-deep", b"", "", "nested too deeply"),
    ("top-level-array", b"[]", "(top level)", "an array []"),
    ("top-level-string", br#""case""#, "(top level)", r#""case""#),
    (
        "unknown-field",
        br#"{"about":"a","toolz":[]}"#,
        "toolz",
        "unknown field",
    ),
    (
        "unknown-call-field",
        br#"{"about":"a","call":{"toolChoise":"auto"}}"#,
        "call.toolChoise",
        "unknown field",
    ),
    (
        "unknown-tool-field",
        br#"{"about":"a","tools":[{"key":"k","id":"i","description":"d","colour":"red"}]}"#,
        "tools[0].colour",
        "unknown field",
    ),
    (
        "repeated-field",
        br#"{"about":"a","tools":["x"],"tools":["y"]}"#,
        "tools",
        "appears twice",
    ),
    ("no-about", br#"{"tools":[]}"#, "about", "required"),
    ("about-number", br#"{"about":1}"#, "about", "a number 1"),
    (
        "about-lone-surrogate",
        br#"{"about":"\ud800"}"#,
        "about",
        "lone surrogate",
    ),
    (
        "tools-string",
        br#"{"about":"a","tools":"x"}"#,
        "tools",
        r#"a string "x""#,
    ),
    (
        "tool-number",
        br#"{"about":"a","tools":[7]}"#,
        "tools[0]",
        "a number 7",
    ),
    (
        "tool-without-key",
        br#"{"about":"a","tools":[{"id":"i","description":"d"}]}"#,
        "tools[0].key",
        "required",
    ),
    (
        "tool-key-number",
        br#"{"about":"a","tools":[{"key":5,"id":"i","description":"d"}]}"#,
        "tools[0].key",
        "a number 5",
    ),
    (
        "unknown-builtin",
        br#"{"about":"a","tools":[{"key":"k","builtin":"nopeTool"}]}"#,
        "tools[0].builtin",
        "nopeTool",
    ),
    (
        "builtin-with-id",
        br#"{"about":"a","tools":[{"key":"k","builtin":"askUserTool","id":"x"}]}"#,
        "tools[0]",
        "only `key` and `builtin`",
    ),
    (
        "toolsets-array",
        br#"{"about":"a","toolsets":[]}"#,
        "toolsets",
        "an array []",
    ),
    (
        "toolset-string",
        br#"{"about":"a","toolsets":{"s":"x"}}"#,
        "toolsets.s",
        r#"a string "x""#,
    ),
    (
        "toolset-repeated",
        br#"{"about":"a","toolsets":{"s":[],"s":["x"]}}"#,
        "toolsets.s",
        "appears twice",
    ),
    (
        "clienttools-object",
        br#"{"about":"a","clientTools":{}}"#,
        "clientTools",
        "an object {}",
    ),
    (
        "call-array",
        br#"{"about":"a","call":[]}"#,
        "call",
        "an array []",
    ),
    (
        "method-unknown",
        br#"{"about":"a","call":{"method":"run"}}"#,
        "call.method",
        r#""run""#,
    ),
    (
        "toolchoice-word",
        br#"{"about":"a","call":{"toolChoice":"always"}}"#,
        "call.toolChoice",
        r#""always""#,
    ),
    (
        "toolchoice-type",
        br#"{"about":"a","call":{"toolChoice":{"type":"function","toolName":"x"}}}"#,
        "call.toolChoice.type",
        r#""function""#,
    ),
    (
        "toolchoice-no-name",
        br#"{"about":"a","call":{"toolChoice":{"type":"tool"}}}"#,
        "call.toolChoice.toolName",
        "required",
    ),
    (
        "activetools-string",
        br#"{"about":"a","call":{"activeTools":"x"}}"#,
        "call.activeTools",
        r#"a string "x""#,
    ),
    (
        "activetools-number",
        br#"{"about":"a","call":{"activeTools":[1]}}"#,
        "call.activeTools[0]",
        "a number 1",
    ),
    (
        "maxsteps-zero",
        br#"{"about":"a","call":{"maxSteps":0}}"#,
        "call.maxSteps",
        "a number 0",
    ),
    (
        "maxsteps-fraction",
        br#"{"about":"a","call":{"maxSteps":1.5}}"#,
        "call.maxSteps",
        "1.5",
    ),
    (
        "maxsteps-string",
        br#"{"about":"a","call":{"maxSteps":"3"}}"#,
        "call.maxSteps",
        r#""3""#,
    ),
    (
        "maxsteps-huge",
        br#"{"about":"a","call":{"maxSteps":1e999}}"#,
        "call.maxSteps",
        "1e999",
    ),
    (
        "replies-object",
        br#"{"about":"a","replies":{}}"#,
        "replies",
        "an object {}",
    ),
    ("replies-cannot-fit", b"", "replies", "at most 64"),
    (
        "reply-two-kinds",
        br#"{"about":"a","replies":[{"text":"x","status":400}]}"#,
        "replies[0]",
        "exactly one",
    ),
    (
        "reply-status-200",
        br#"{"about":"a","replies":[{"status":200}]}"#,
        "replies[0].status",
        "200",
    ),
    (
        "reply-status-600",
        br#"{"about":"a","replies":[{"status":600}]}"#,
        "replies[0].status",
        "600",
    ),
    (
        "reply-body-on-text",
        br#"{"about":"a","replies":[{"text":"x","body":{}}]}"#,
        "replies[0].body",
        "only an error reply",
    ),
    (
        "toolcalls-empty",
        br#"{"about":"a","replies":[{"toolCalls":[]}]}"#,
        "replies[0].toolCalls",
        "is empty",
    ),
    (
        "toolcall-id-number",
        br#"{"about":"a","replies":[{"toolCalls":[{"id":7,"name":"n","arguments":"{}"}]}]}"#,
        "replies[0].toolCalls[0].id",
        "a number 7",
    ),
    (
        "toolcall-no-name",
        br#"{"about":"a","replies":[{"toolCalls":[{"id":"c"}]}]}"#,
        "replies[0].toolCalls[0].name",
        "required",
    ),
];

/// Write every bad case into `dir`; return the file names.
fn write_bad_cases(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for (name, content, _, _) in BAD_CASES {
        let content: Vec<u8> = match *name {
            "too-deep" => format!(r#"{{"about":"a","tools":{}}}"#, "[".repeat(5000)).into_bytes(),
            "replies-cannot-fit" => {
                let replies = vec![r#"{"text":"x"}"#; 65].join(",");
                format!(r#"{{"about":"a","replies":[{replies}]}}"#).into_bytes()
            }
            _ => content.to_vec(),
        };
        let file = format!("{name}.json");
        std::fs::write(dir.join(&file), content).unwrap();
        names.push(file);
    }
    names
}

fn no_panic(out: &std::process::Output) -> Check {
    let t = text(out);
    check!(
        out.status.code().is_some() && !t.contains("panicked") && !t.contains("RUST_BACKTRACE"),
        "it panicked or died: {:?}\n{t}",
        out.status
    );
    Ok(())
}

fn bad_case_files(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let names = write_bad_cases(dir.path());
    for ((name, _, field, value), file) in BAD_CASES.iter().zip(&names) {
        t.bad_input();
        let out = bin()
            .args(["predict", "--mastra-version", "1.67.0"])
            .arg(dir.path().join(file))
            .output()
            .unwrap();
        no_panic(&out)?;
        let err = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = err.lines().collect();
        check!(
            out.status.code() == Some(2) && lines.len() == 1,
            "{name}: exit {:?}, stderr:\n{err}",
            out.status.code()
        );
        let line = lines[0];
        check!(
            line.starts_with("error: ") && line.contains(file.as_str()),
            "{name}: the error does not name the file: {line}"
        );
        check!(
            field.is_empty() || line.contains(&format!("field `{field}`")),
            "{name}: the error does not name field {field}: {line}"
        );
        check!(
            line.contains(value),
            "{name}: the error does not show {value:?}: {line}"
        );
    }
    Ok(())
}

/// A folder of every bad case, a dangling link, a link back up the tree,
/// and one good case from the corpus: each bad file is reported once, the
/// good case runs on the real Mastra, and the exit is 2.
fn corpus_still_runs(t: &mut Tally) -> Check {
    real_mastra("1.67.0")?;
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    let mut bad = write_bad_cases(&cases);
    std::os::unix::fs::symlink(dir.path().join("nowhere.json"), cases.join("dangling.json"))
        .unwrap();
    bad.push("dangling.json".into());
    std::os::unix::fs::symlink(&cases, cases.join("loop")).unwrap();
    let good = "search-web-is-sent-as-search_web.json";
    std::fs::copy(root().join("cases/report").join(good), cases.join(good)).unwrap();
    // The bad files were each tried through `predict` already; new here
    // are the dangling link and the link back up the tree.
    t.bad_input();
    t.inject(1);
    let report = dir.path().join("report.json");
    let out = run_on("1.67.0", &cases)
        .arg("--json")
        .arg(&report)
        .output()
        .unwrap();
    no_panic(&out)?;
    check!(
        out.status.code() == Some(2),
        "exit {:?}:\n{}",
        out.status.code(),
        text(&out)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    for file in &bad {
        let named = err
            .lines()
            .filter(|l| l.contains(&format!("/{file}:")))
            .count();
        check!(named == 1, "{file} is reported {named} times:\n{err}");
    }
    let results = results(&read_json(&report)?);
    let ran = results
        .iter()
        .filter(|r| {
            s(r.get("case")
                .unwrap_or(&mastra_conform::js::json::Json::Null))
            .ends_with(good)
        })
        .filter(|r| r.get("verdict").map(s).as_deref() == Some("as-modelled"))
        .count();
    t.lose(1 - ran.min(1));
    check!(
        results.len() == 1,
        "{} results for one good case",
        results.len()
    );
    Ok(())
}

fn bad_flags(t: &mut Tally) -> Check {
    let case = "cases/report/rewrite-table.json";
    // (arguments, what the error must mention)
    let tries: &[(&[&str], &str)] = &[
        (
            &["run", "--concurrency", "0", "--cases", case],
            "'0' for '--concurrency",
        ),
        (&["run", "--concurrency", "999", "--cases", case], "999"),
        (&["run", "--concurrency", "-1", "--cases", case], "-1"),
        (&["run", "--concurrency", "x", "--cases", case], "'x'"),
        (
            &["run", "--case-timeout", "0", "--cases", case],
            "--case-timeout",
        ),
        (
            &[
                "run",
                "--case-timeout",
                "99999999999999999999999",
                "--cases",
                case,
            ],
            "99999999999999999999999",
        ),
        (&["run", "--frobnicate"], "--frobnicate"),
        (&["run", "--versions"], "--versions"),
        (&["run", "--versions", "1.x", "--cases", case], r#""1.x""#),
        (&["run", "--versions", "", "--cases", case], "--versions"),
        (&["run", "--versions", ",", "--cases", case], r#"",""#),
        (&["run", "--versions", "~1.2.0", "--cases", case], "~1.2.0"),
        (&["run", "--versions", ">=1.0", "--cases", case], ">=1.0"),
        (
            &["run", "--versions", "=>1.0.0", "--cases", case],
            "=>1.0.0",
        ),
        (
            &["run", "--versions", "1.67.0-alpha..1", "--cases", case],
            "1.67.0-alpha..1",
        ),
        (
            &["run", "--versions", "99999999999.0.0", "--cases", case],
            "99999999999.0.0",
        ),
        (
            &["run", "--versions", "v1.67.0", "--cases", case],
            "v1.67.0",
        ),
        (
            &["run", "--versions", "1.67.0;rm -rf /", "--cases", case],
            "1.67.0;rm -rf /",
        ),
        (
            &[
                "run",
                "--cases",
                "/nonexistent/cases",
                "--versions",
                "1.67.0",
            ],
            "/nonexistent/cases",
        ),
        (
            &[
                "run",
                "--json",
                "/tmp",
                "--cases",
                case,
                "--versions",
                "1.67.0",
            ],
            "/tmp is a folder",
        ),
        (&["predict", case, "--mastra-version", "1.67"], r#""1.67""#),
        (
            &["predict", case, "--mastra-version", "pinned"],
            "--mastra-version pinned: names 3 versions; give one",
        ),
        (&["predict", case], "--mastra-version"),
        (
            &["predict", "/nonexistent.json", "--mastra-version", "1.67.0"],
            "/nonexistent.json",
        ),
        (
            &["predict", "cases", "--mastra-version", "1.67.0"],
            "Is a directory",
        ),
        (
            &["observe", case, "--mastra-version", "01.67.0"],
            r#""01.67.0""#,
        ),
        (
            &[
                "observe",
                case,
                "--mastra-version",
                "1.67.0",
                "--concurrency",
                "0",
            ],
            "--concurrency",
        ),
        (&["frobnicate"], "frobnicate"),
        (&[], "Usage"),
        (&["lint"], "give tool keys"),
        (
            &["lint", "--file", "/nonexistent.json"],
            "/nonexistent.json: cannot read",
        ),
        (&["bench", "--repeat", "x"], "'x'"),
    ];
    for (args, mention) in tries {
        t.bad_input();
        let out = bin().args(*args).output().unwrap();
        no_panic(&out)?;
        let err = String::from_utf8_lossy(&out.stderr);
        check!(
            out.status.code() == Some(2) && err.contains(mention),
            "{args:?}: exit {:?}, expected {mention:?} in:\n{err}",
            out.status.code()
        );
        // Said once, in the user's words: no error line twice, no Rust
        // Debug text of a parsed value.
        let first = err.lines().next().unwrap_or("");
        check!(
            err.lines().filter(|l| *l == first).count() == 1,
            "{args:?}: the error is printed more than once:\n{err}"
        );
        check!(
            !["Range([", "Exact(", "Ge(", "Some(", "Tag(\""]
                .iter()
                .any(|d| err.contains(d)),
            "{args:?}: Rust Debug text in the message:\n{err}"
        );
    }
    Ok(())
}

/// Reports that cannot lie, through `report`: a `results.jsonl` cut short
/// (a killed matrix) or without its footer renders with a PARTIAL mark in
/// every format and exits 3; a footer that says interrupted stays
/// interrupted; a document with a repeated key, a result whose version is
/// not one, or `run.versions: null` is refused naming the file and the field
/// (exit 2); the whole file renders and exits 0.
fn reports_cannot_lie(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let head = r#"{"run":{"harness":"mastra-conform","versions":["1.67.0"],"interrupted":false}}"#;
    let row = r#"{"case":"cases/a.json","version":"1.67.0","verdict":"as-modelled","predicted":{},"observed":{}}"#;
    let end = |n: usize, interrupted: bool| {
        format!(r#"{{"end":{{"results":{n},"interrupted":{interrupted}}}}}"#)
    };
    let files: Vec<(&str, String, Option<u8>, &str)> = vec![
        (
            "whole.jsonl",
            format!("{head}\n{row}\n{}\n", end(1, false)),
            Some(0),
            "",
        ),
        (
            "cut.jsonl",
            format!("{head}\n{row}\n{{\"case\":\"cases/b.j"),
            Some(3),
            "PARTIAL",
        ),
        (
            "no-footer.jsonl",
            format!("{head}\n{row}\n"),
            Some(3),
            "PARTIAL",
        ),
        (
            "interrupted.jsonl",
            format!("{head}\n{row}\n{}\n", end(1, true)),
            Some(3),
            "INTERRUPTED",
        ),
        (
            "twice.json",
            format!(r#"{{"run":{{}},"results":[{row}],"results":[]}}"#),
            Some(2),
            "\"results\" appears twice",
        ),
        (
            "bad-version.json",
            format!(
                r#"{{"run":{{}},"results":[{}]}}"#,
                row.replace("1.67.0", "not-a-version")
            ),
            Some(2),
            "results[0]: `version` is \"not-a-version\"",
        ),
        (
            "versions-null.json",
            r#"{"run":{"versions":null},"results":[]}"#.to_string(),
            Some(2),
            "run: `versions` is null",
        ),
    ];
    for (name, text, exit, mark) in files {
        t.bad_input();
        let input = dir.path().join(name);
        std::fs::write(&input, text).unwrap();
        let out_dir = dir.path().join(format!("{name}.out"));
        let out = bin()
            .arg("report")
            .arg(&input)
            .arg("--out")
            .arg(&out_dir)
            .output()
            .unwrap();
        no_panic(&out)?;
        let shown = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        check!(
            out.status.code().map(|c| c as u8) == exit,
            "{name}: exit {:?}, expected {exit:?}:\n{shown}",
            out.status.code()
        );
        if exit == Some(2) {
            check!(
                shown.contains(mark) && shown.contains(name),
                "{name}: expected {mark:?} and the file's name in:\n{shown}"
            );
            continue;
        }
        for format in ["report.md", "report.html", "junit"] {
            let rendered = read_rendered(&out_dir.join(format))
                .map_err(|e| format!("{name}: {format}: {e}"))?;
            if mark.is_empty() {
                check!(
                    !rendered.contains("PARTIAL") && !rendered.contains("INTERRUPTED"),
                    "{name}: {format} is marked though whole"
                );
            } else {
                check!(
                    rendered.contains(mark),
                    "{name}: {format} has no {mark} mark"
                );
            }
        }
    }
    Ok(())
}

/// A rendered file's text, or a folder's (JUnit's) files' one after
/// another.
fn read_rendered(path: &Path) -> std::io::Result<String> {
    if !path.is_dir() {
        return std::fs::read_to_string(path);
    }
    let mut files: Vec<_> = std::fs::read_dir(path)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    files.sort();
    files.iter().map(std::fs::read_to_string).collect()
}

/// Values a flag accepts, at its edge: the largest case timeout (which
/// must not overflow the clock) and the most cases in flight.
fn flags_at_their_limits(t: &mut Tally) -> Check {
    let dir = tempfile::tempdir().unwrap();
    let env = fake_cache(dir.path(), None);
    let cases = case_dir(dir.path(), &["ok", "ok"]);
    let edges: &[&[&str]] = &[
        &["--case-timeout", "18446744073709551615"],
        &["--concurrency", "256"],
        &["--concurrency", "1", "--case-timeout", "1"],
    ];
    for flags in edges {
        t.bad_input();
        let out = run_fake_cases(&env, &cases).args(*flags).output().unwrap();
        no_panic(&out)?;
        check!(
            out.status.code() == Some(0),
            "{flags:?}: exit {:?}\n{}",
            out.status.code(),
            text(&out)
        );
    }
    Ok(())
}

/// A `known-issues.json` that is not what the ledger must be is bad input
/// (exit 2) naming the file and what is wrong, for every command that reads
/// it; never "cannot start the capture listener" with exit 3.
fn malformed_ledger(t: &mut Tally) -> Check {
    let tries: &[(&str, &str)] = &[
        ("{ not json", "not valid JSON"),
        (r#"{"issues": 3}"#, "issues"),
        (r#"{"issues": [{"id": 1}]}"#, "issues[0]"),
    ];
    for (text, mention) in tries {
        // A repository of its own: the binary finds the ledger beside
        // `node-probe/probe.mjs` in its working folder.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("node-probe")).unwrap();
        std::fs::write(dir.path().join("node-probe/probe.mjs"), "").unwrap();
        let ledger = dir.path().join("known-issues.json");
        std::fs::write(&ledger, text).unwrap();
        for args in [
            &["verify", "all", "--versions", "1.67.0"][..],
            &["run", "--versions", "1.67.0", "--cases"][..],
        ] {
            t.bad_input();
            let mut cmd = bin();
            cmd.current_dir(dir.path()).args(args);
            if args[0] == "run" {
                cmd.arg(root().join("cases/report/rewrite-table.json"));
            }
            let out = cmd.output().unwrap();
            no_panic(&out)?;
            let err = String::from_utf8_lossy(&out.stderr);
            check!(
                out.status.code() == Some(2)
                    && err.contains("known-issues.json")
                    && err.contains(mention),
                "{args:?} with a ledger of {text:?}: exit {:?}, expected the file and {mention:?} in:\n{err}",
                out.status.code()
            );
        }
    }
    Ok(())
}
