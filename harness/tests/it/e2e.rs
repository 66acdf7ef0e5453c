//! End to end: the real binary, real Node, real `@mastra/core` from the npm
//! registry, the real capture listener. One corpus run on the pinned
//! versions is shared by the tests that read it.

use mastra_conform::install::layout::INSTALLS;
use mastra_conform::js::json::Json;
use mastra_conform::js::string::JsString;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use crate::common::{bin, root, run_on, text};

struct CorpusRun {
    out: Output,
    report: Json,
    bodies: PathBuf,
    store: PathBuf,
    _dir: tempfile::TempDir,
}

/// `run --versions pinned --route all` over the whole corpus, once: every
/// case on every wire route.
fn corpus_run() -> &'static CorpusRun {
    static RUN: OnceLock<CorpusRun> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = crate::kept_tempdir();
        let json = dir.path().join("report.json");
        let bodies = dir.path().join("bodies");
        let store = dir.path().join("observations");
        let out = bin()
            .env("MASTRA_CONFORM_OBSERVATIONS", &store)
            .args(["run", "--versions", "pinned", "--route", "all", "--json"])
            .arg(&json)
            .arg("--bodies")
            .arg(&bodies)
            .output()
            .expect("the binary runs");
        let report =
            Json::parse(&std::fs::read_to_string(&json).unwrap_or_else(|e| {
                panic!("no report was written ({e}); output:\n{}", text(&out))
            }))
            .expect("the report is JSON");
        CorpusRun {
            out,
            report,
            bodies,
            store,
            _dir: dir,
        }
    })
}

/// The observation store the corpus run filled: every case on every wire
/// route on each pinned version that ran, for a test that needs those
/// observations again to copy (run first if it has not run yet).
pub fn corpus_store() -> &'static std::path::Path {
    &corpus_run().store
}

fn field<'a>(v: &'a Json, k: &str) -> &'a Json {
    v.get(k).unwrap_or_else(|| panic!("no field {k} in {v:?}"))
}

fn s(v: &Json) -> String {
    v.as_str().map(JsString::to_lossy).unwrap_or_default()
}

#[test]
fn the_corpus_agrees_with_the_model_on_the_pinned_versions() {
    let run = corpus_run();
    let results = field(&run.report, "results").as_array().unwrap();
    let cases = std::fs::read_dir(root().join("cases")).is_ok();
    assert!(
        cases && results.len() >= 3 * 60 * 6,
        "{} results",
        results.len()
    );
    let mut by_version: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    let mut by_route: std::collections::BTreeMap<(String, String), Vec<String>> =
        Default::default();
    for r in results {
        let (version, verdict) = (s(field(r, "version")), s(field(r, "verdict")));
        let ok = match version.as_str() {
            // The registry reachable here does not serve 1.0.0: reported, not failed.
            "1.0.0" => verdict == "version-unavailable",
            // known-issue: as modelled, and a known upstream issue
            // (known-issues.json); provider-rejects: as modelled, and a
            // body a provider would refuse (a named tool_choice the caller
            // pointed at no sent tool); nondeterministic: one of the ways
            // the model says Mastra may go (a traced stream before 1.6.0
            // that lost chunks, docs/seen.md).
            _ => matches!(
                verdict.as_str(),
                "as-modelled"
                    | "not-applicable"
                    | "unmodelled"
                    | "known-issue"
                    | "provider-rejects"
                    | "nondeterministic"
            ),
        };
        assert!(
            ok,
            "{} on {version}: {verdict}\n{}",
            s(field(r, "case")),
            r.get("diff")
                .map(s)
                .or_else(|| r.get("detail").map(s))
                .unwrap_or_default()
        );
        by_route
            .entry((version.clone(), s(field(r, "route"))))
            .or_default()
            .push(verdict.clone());
        by_version.entry(version).or_default().push(verdict);
    }
    let routes: BTreeSet<&str> = by_route.keys().map(|(_, r)| r.as_str()).collect();
    assert_eq!(
        routes,
        BTreeSet::from([
            "anthropic",
            "google",
            "groq",
            "mistral",
            "openai",
            "openai-compatible"
        ])
    );
    assert_eq!(
        by_version.keys().collect::<Vec<_>>(),
        ["1.0.0", "1.0.4", "1.67.0"]
    );
    // Unmodelled is the exception, not the escape hatch.
    for ((v, route), verdicts) in &by_route {
        let unmodelled = verdicts.iter().filter(|x| *x == "unmodelled").count();
        assert!(unmodelled <= 2, "{unmodelled} unmodelled on {v} {route}");
    }
    assert_eq!(
        run.out.status.code(),
        Some(0),
        "an unavailable 1.0.0 alone is not a failure:\n{}",
        text(&run.out)
    );
    let summary = text(&run.out);
    assert!(
        summary.contains("1.0.0") && summary.contains("not served by the registry"),
        "{summary}"
    );
}

#[test]
fn the_report_records_what_was_resolved() {
    let run = field(&corpus_run().report, "run");
    assert!(s(field(run, "node")).starts_with('v'));
    let resolved = field(run, "resolved");
    assert_eq!(
        s(field(field(resolved, "1.67.0"), "@mastra/core")),
        "1.67.0"
    );
    assert_eq!(s(field(field(resolved, "1.0.4"), "zod")), "3.25.76");
    // The MCP client each version ran its MCP cases through.
    assert_eq!(s(field(field(resolved, "1.67.0"), "@mastra/mcp")), "1.18.0");
    assert_eq!(s(field(field(resolved, "1.0.4"), "@mastra/mcp")), "1.0.3");
}

/// A real MCP server listing a thousand tools and more runs in
/// `make test`: Twilio's 1,409 tool names, served over stdio by
/// `node-probe/mcp-server.mjs` and reached through `@mastra/mcp`, all sent,
/// 36 of them cut to 63 characters, and a call of a cut name executes.
#[test]
fn a_thousand_tool_mcp_server_runs_through_mcpclient() {
    let results = field(&corpus_run().report, "results").as_array().unwrap();
    let mut seen = 0;
    for r in results {
        if !s(field(r, "case")).ends_with("cases/real/twilio-1409-tools-36-cut-at-63.json")
            || s(field(r, "version")) == "1.0.0"
        {
            continue;
        }
        seen += 1;
        assert_eq!(s(field(r, "verdict")), "as-modelled", "{r:?}");
        let requests = field(field(r, "observed"), "requests").as_array().unwrap();
        let tools = field(&requests[0], "tools").as_array().unwrap();
        assert_eq!(tools.len(), 1409);
        let cut = tools
            .iter()
            .filter(|t| s(t).len() == 63 && s(t).starts_with("twilio_"))
            .count();
        assert!(cut >= 36, "{cut} names of 63");
        // The call of a cut name was found and answered by the server.
        let history = field(&requests[1], "history").to_compact();
        assert!(history.contains("tempC"), "{history}");
    }
    assert_eq!(seen, 2, "the case ran on 1.0.4 and 1.67.0");
}

/// The report's central claim, observed on both pinned versions: the tools
/// are rewritten and the named tool_choice is not.
#[test]
fn toolchoice_by_key_is_sent_unrewritten_on_both_versions() {
    let results = field(&corpus_run().report, "results").as_array().unwrap();
    let hits: Vec<&Json> = results
        .iter()
        .filter(|r| s(field(r, "case")).ends_with("report/toolchoice-by-key-not-rewritten.json"))
        .filter(|r| s(field(r, "version")) != "1.0.0")
        .collect();
    assert_eq!(hits.len(), 2);
    for r in hits {
        let req = &field(field(r, "observed"), "requests").as_array().unwrap()[0];
        assert_eq!(
            field(req, "tools"),
            &Json::parse(r#"["search_web"]"#).unwrap()
        );
        assert_eq!(
            s(field(field(field(req, "toolChoice"), "function"), "name")),
            "search.web"
        );
    }
}

/// The issue's finding, on each route: the function is sent rewritten, the
/// named choice is the key as registered, in each provider's own shape, and
/// on mistral every tool is gone.
#[test]
fn toolchoice_by_key_on_every_route() {
    let results = field(&corpus_run().report, "results").as_array().unwrap();
    let expect = [
        (
            "openai-compatible",
            r#"{"type":"function","function":{"name":"search.web"}}"#,
            r#"["search_web"]"#,
        ),
        (
            "openai",
            r#"{"type":"function","name":"search.web"}"#,
            r#"["search_web"]"#,
        ),
        (
            "anthropic",
            r#"{"type":"tool","name":"search.web"}"#,
            r#"["search_web"]"#,
        ),
        (
            "google",
            r#"{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["search.web"]}}"#,
            r#"["search_web"]"#,
        ),
        ("mistral", r#""any""#, "[]"),
        (
            "groq",
            r#"{"type":"function","function":{"name":"search.web"}}"#,
            r#"["search_web"]"#,
        ),
    ];
    for (route, choice, tools) in expect {
        let hits: Vec<&Json> = results
            .iter()
            .filter(|r| s(field(r, "case")).contains("report/toolchoice-by-key-not-rewritten.json"))
            .filter(|r| s(field(r, "route")) == route && s(field(r, "version")) != "1.0.0")
            .collect();
        assert_eq!(hits.len(), 2, "{route}");
        for r in hits {
            let req = &field(field(r, "observed"), "requests").as_array().unwrap()[0];
            assert_eq!(
                field(req, "toolChoice"),
                &Json::parse(choice).unwrap(),
                "{route}"
            );
            assert_eq!(field(req, "tools"), &Json::parse(tools).unwrap(), "{route}");
            assert_eq!(s(field(r, "verdict")), "known-issue", "{route}");
        }
    }
}

/// A tool's call round-trips on every route: Mastra executes the tool the
/// reply names, and the next request carries the call and its result back.
#[test]
fn a_tool_call_round_trips_on_every_route() {
    let results = field(&corpus_run().report, "results").as_array().unwrap();
    let mut seen = BTreeSet::new();
    for r in results
        .iter()
        .filter(|r| s(field(r, "case")).contains("report/execution-routes-by-rewritten-name.json"))
        .filter(|r| s(field(r, "version")) == "1.67.0")
    {
        let observed = field(r, "observed");
        assert_eq!(
            field(observed, "executed").as_array().unwrap().len(),
            1,
            "{r:?}"
        );
        let requests = field(observed, "requests").as_array().unwrap();
        assert_eq!(requests.len(), 2, "{r:?}");
        let history = field(&requests[1], "history").as_array().unwrap();
        assert_eq!(history.len(), 2, "{r:?}");
        seen.insert(s(field(r, "route")));
    }
    assert_eq!(seen.len(), 6, "{seen:?}");
}

/// Whether `body` is what the snapshot at `path` holds, compared as
/// `insta`'s own comparator does (the text after the header, trailing
/// whitespace and line endings normalised). Each `assert_snapshot!` reads
/// the whole snapshot folder for stale pending files first, and with
/// 7,410 snapshots in one folder that was 224 CPU seconds of `readdir`
/// for this test (docs/figures.md). So a body its snapshot already holds is
/// passed here, and `insta` asserts the rest: a changed or new body, one
/// with a pending `.snap.new` beside it, and every body when an `INSTA_*`
/// setting (an update, a forced update, a full match, `cargo insta`'s
/// reference list) is in force.
fn snapshot_holds(path: &Path, body: &str) -> bool {
    use insta::internals::{SnapshotContents, TextSnapshotContents};
    if std::env::vars_os().any(|(k, _)| k.to_string_lossy().starts_with("INSTA_"))
        || path.with_extension("snap.new").exists()
    {
        return false;
    }
    let Ok(old) = insta::Snapshot::from_file(path) else {
        return false;
    };
    let new: SnapshotContents =
        TextSnapshotContents::new(body.to_owned(), insta::TextSnapshotKind::File).into();
    old.contents() == &new
}

#[test]
fn captured_bodies_match_their_snapshots() {
    let run = corpus_run();
    let snap_dir = root().join("snapshots");
    let mut asserted = BTreeSet::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&run.bodies)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 120 * 6, "{} body files", files.len());
    for file in files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let body = std::fs::read_to_string(&file).unwrap();
        if snapshot_holds(&snap_dir.join(format!("{name}.snap")), &body) {
            asserted.insert(format!("{name}.snap"));
            continue;
        }
        insta::with_settings!({
            snapshot_path => "../../../snapshots",
            prepend_module_to_snapshot => false,
            omit_expression => true,
            info => &"accept with `cargo insta review` (or INSTA_UPDATE=always cargo test --test it e2e::)",
        }, {
            insta::assert_snapshot!(name.as_str(), body);
        });
        asserted.insert(format!("{name}.snap"));
    }
    let unreferenced: Vec<String> = std::fs::read_dir(&snap_dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .filter(|n| n.ends_with(".snap") && !asserted.contains(n))
        .collect();
    assert!(
        unreferenced.is_empty(),
        "snapshots no case produces any more (delete them: cd snapshots && rm {}):\n{}",
        unreferenced.join(" "),
        unreferenced.join("\n")
    );
}

#[test]
fn strict_makes_an_unavailable_version_an_infrastructure_failure() {
    let case = root().join("cases/report/search-web-is-sent-as-search_web.json");
    let out = run_on("1.0.0", &case).arg("--strict").output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(
        text(&out).contains("@mastra/core@1.0.0 is not served by the registry"),
        "{}",
        text(&out)
    );
}

/// `observe` on a version this cache has never seen: the pinned Node and the
/// version are installed from the registry first.
#[test]
fn observe_installs_a_version_never_installed() {
    let cache = crate::install_tempdir();
    let case = root().join("cases/report/search-web-is-sent-as-search_web.json");
    let out = bin()
        .env("MASTRA_CONFORM_CACHE", cache.path())
        .args(["observe", "--mastra-version", "1.19.0"])
        .arg(&case)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let p = Json::parse(&String::from_utf8_lossy(&out.stdout)).unwrap();
    let req = &field(&p, "requests").as_array().unwrap()[0];
    assert_eq!(
        field(req, "tools"),
        &Json::parse(r#"["search_web"]"#).unwrap()
    );
    let installed: Vec<String> = std::fs::read_dir(cache.path().join(INSTALLS))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        installed,
        ["1.19.0"],
        "one finished install, no temporary folder left"
    );
}

#[test]
fn predict_gives_the_reports_results() {
    let predict = |case: &str, version: &str| -> Json {
        let out = bin()
            .args(["predict", "--mastra-version", version])
            .arg(root().join(case))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        Json::parse(&String::from_utf8_lossy(&out.stdout)).unwrap()
    };
    for v in ["1.0.0", "1.67.0"] {
        let p = predict("cases/report/search-web-is-sent-as-search_web.json", v);
        assert_eq!(
            field(&field(&p, "requests").as_array().unwrap()[0], "tools"),
            &Json::parse(r#"["search_web"]"#).unwrap()
        );
        let p = predict("cases/report/toolchoice-by-key-not-rewritten.json", v);
        let req = &field(&p, "requests").as_array().unwrap()[0];
        assert_eq!(
            field(req, "toolChoice"),
            &Json::parse(r#"{"type":"function","function":{"name":"search.web"}}"#).unwrap()
        );
        let p = predict("cases/report/collision-two-rewritten-keys.json", v);
        assert_eq!(
            s(field(field(&p, "error"), "causeCode")),
            "AGENT_TOOL_NAME_COLLISION"
        );
        assert!(s(field(field(&p, "error"), "message")).contains("\"search_web\""));
    }
}

#[test]
fn lint_shows_names_reports_the_collision_and_fails() {
    let long = "k".repeat(64);
    let out = bin()
        .args(["lint", "search.web", "search web", "1tool", &long])
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("\"search.web\" -> \"search_web\""), "{t}");
    assert!(t.contains("\"search web\" -> (not sent): collision"), "{t}");
    assert!(t.contains("\"1tool\" -> \"_1tool\""), "{t}");
    assert!(
        t.contains(&format!("-> \"{}\": cut to 63", "k".repeat(63))),
        "{t}"
    );
    let clean = bin()
        .args(["lint", "weather", "weather-EU"])
        .output()
        .unwrap();
    assert_eq!(clean.status.code(), Some(0), "{}", text(&clean));
}

#[test]
fn a_bad_case_is_one_clear_error_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"about":"x","call":{"toolChoice":"always"}}"#).unwrap();
    let predict = |version: &str| {
        bin()
            .args(["predict", "--mastra-version", version])
            .arg(&bad)
            .output()
            .unwrap()
    };
    let out = predict("1.67.0");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.json: field `call.toolChoice`") && err.contains("\"always\""),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(predict("1.67").status.code(), Some(2));
}

/// A key the harness must carry exactly: a lone surrogate, from the case
/// file to Node and back.
#[test]
fn lone_surrogates_survive_the_round_trip() {
    let results = field(&corpus_run().report, "results").as_array().unwrap();
    let r = results
        .iter()
        .find(|r| {
            s(field(r, "case")).ends_with("toolchoice/named-lone-surrogate.json")
                && s(field(r, "version")) == "1.67.0"
        })
        .expect("the case ran");
    let req = &field(field(r, "observed"), "requests").as_array().unwrap()[0];
    let name = field(field(field(req, "toolChoice"), "function"), "name")
        .as_str()
        .unwrap();
    assert_eq!(name.units(), &[0xD800, u16::from(b'x')]);
}

/// Three slices of a run, merged, equal the unsharded run verdict for
/// verdict.
#[test]
fn three_shards_merged_equal_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let cases = root().join("cases/report");
    let run = |extra: &[&str], out: &std::path::Path| {
        let o = run_on("1.0.4,1.67.0", &cases)
            .arg("--json")
            .arg(out)
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.code() == Some(0), "{}", text(&o));
    };
    let whole = dir.path().join("whole.json");
    run(&[], &whole);
    let mut parts = Vec::new();
    for k in 1..=3 {
        let p = dir.path().join(format!("shard{k}.json"));
        run(&["--shard", &format!("{k}/3")], &p);
        parts.push(p);
    }
    let merged_dir = dir.path().join("merged");
    let merged = merged_dir.join("report.json");
    let o = bin()
        .arg("merge")
        .args(&parts[..2])
        .arg("--out")
        .arg(&merged_dir)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "a missing slice is refused: {}",
        text(&o)
    );
    assert!(text(&o).contains("slice 3/3 is missing"), "{}", text(&o));
    let o = bin()
        .arg("merge")
        .args(&parts)
        .arg("--out")
        .arg(&merged_dir)
        .arg("--json")
        .arg(&merged)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    for format in ["results.sqlite", "report.md", "report.html"] {
        assert!(merged_dir.join(format).is_file(), "merge writes {format}");
    }
    assert!(
        !crate::common::junit(&merged_dir).is_empty(),
        "merge writes junit/"
    );

    let verdicts = |p: &std::path::Path| -> Vec<(String, String, String)> {
        let v = Json::parse(&std::fs::read_to_string(p).unwrap()).unwrap();
        let mut out: Vec<_> = field(&v, "results")
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    s(field(r, "case")),
                    s(field(r, "version")),
                    s(field(r, "verdict")),
                )
            })
            .collect();
        out.sort();
        out
    };
    let (w, m) = (verdicts(&whole), verdicts(&merged));
    assert!(w.len() >= 2 * 15, "{} results", w.len());
    assert_eq!(w, m);
    // Every slice did some of the work.
    for p in &parts {
        assert!(!verdicts(p).is_empty(), "{} is empty", p.display());
    }
}

/// The slices of a matrix with generated cases, each writing them under its
/// own `--out` as the nightly's runners do, merge: a generated case is
/// named by its place in the folder and its file's name, its index and
/// content (`fuzz-cases/case-000000-1f0c9a2b7d3e4f50.json`), so the
/// slices' corpora are the same and their results line up.
#[test]
fn matrix_slices_with_generated_cases_in_their_own_folders_merge() {
    let dir = tempfile::tempdir().unwrap();
    let mut dbs = Vec::new();
    for k in 1..=2 {
        let out = dir.path().join(format!("slice-{k}"));
        let o = bin()
            .args(["matrix", "--versions", "1.0.4,1.67.0", "--cases"])
            .arg(root().join("cases/report"))
            .args(["--fuzz-count", "4", "--seed", "7", "--shard"])
            .arg(format!("{k}/2"))
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o));
        dbs.push(out.join("results.sqlite"));
    }
    let merged = dir.path().join("merged");
    let json = dir.path().join("merged.json");
    let o = bin()
        .arg("merge")
        .args(&dbs)
        .arg("--out")
        .arg(&merged)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o));
    let v = Json::parse(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let generated: BTreeSet<String> = field(&v, "results")
        .as_array()
        .unwrap()
        .iter()
        .map(|r| s(field(r, "case")))
        .filter(|c| c.starts_with("fuzz-cases/"))
        // A generated case may name its own route (`NAME@anthropic`).
        .map(|c| c.split('@').next().unwrap().to_string())
        .collect();
    let expected: BTreeSet<String> = (0..4)
        .map(|n| {
            let case = mastra_conform::loops::fuzz::gen::generate(7, n);
            format!(
                "fuzz-cases/{}",
                mastra_conform::loops::fuzz::case_file_name(n, &case)
            )
        })
        .collect();
    assert_eq!(generated, expected);
}

/// Nothing leaves the machine: a case whose probe asks for a host that is
/// neither the listener nor its route's provider fails as a probe fault,
/// and the request is refused inside the probe. Mastra's webFetchTool,
/// called by the scripted reply, fetches a real host through
/// `https.request`.
#[test]
fn no_escape_a_request_to_another_host_is_a_probe_fault() {
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("escape.json");
    std::fs::write(
        &case,
        r#"{
          "about": "a tool that fetches a real host",
          "tools": [{ "key": "web_fetch", "builtin": "webFetchTool" }],
          "replies": [
            { "toolCalls": [{ "id": "call_1", "name": "web_fetch", "arguments": { "url": "https://example.com/" } }] },
            { "text": "done" }
          ]
        }"#,
    )
    .unwrap();
    for route in ["openai-compatible", "google"] {
        let out = bin()
            .args(["observe", "--mastra-version", "1.67.0", "--route", route])
            .arg(&case)
            .output()
            .expect("the binary runs");
        let all = text(&out);
        assert_eq!(out.status.code(), Some(3), "{route}: {all}");
        assert!(
            all.contains("probe-fault") && all.contains("https://example.com/"),
            "{route}: {all}"
        );
    }
}
