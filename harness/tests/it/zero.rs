//! The 0.x line end to end: real installs of two 0.x cores (their own peer
//! sets, `versions/extras.rs`), the probe's 0.x path (`node-probe/legacy.mjs`),
//! and what each measurably sends (docs/0x.md).

use crate::common::{bin, observed, root, text};
use mastra_conform::js::json::Json;

/// The first request's `tools` when `observe` runs CASE on VERSION.
fn tools_sent(version: &str, case: &str) -> Json {
    let p = observed(version, case);
    assert_eq!(
        p.get("applicable"),
        Some(&Json::Bool(true)),
        "{version} {case}: {}",
        p.to_compact()
    );
    let requests = p.get("requests").and_then(Json::as_array).unwrap();
    requests[0].get("tools").cloned().unwrap()
}

fn names(json: &str) -> Json {
    Json::parse(json).unwrap()
}

/// 0.12.1 predates `formatTools`: the dotted key goes out as registered
/// (which providers reject); 0.24.9 rewrites it as 1.x does.
#[test]
fn a_dotted_key_is_sent_as_is_before_format_tools_and_rewritten_after() {
    let case = "cases/report/search-web-is-sent-as-search_web.json";
    assert_eq!(tools_sent("0.12.1", case), names(r#"["search.web"]"#));
    assert_eq!(tools_sent("0.24.9", case), names(r#"["search_web"]"#));
}

/// A stream answered by an HTTP 400 ends on 0.12.1, after its one request:
/// the probe does not wait on the result's promises there, which never
/// settle after the 400 up to 0.16.3 (docs/figures.md, the full night).
#[test]
fn a_stream_failed_by_an_http_error_ends_on_0_12_1() {
    let out = bin()
        .args(["observe", "--mastra-version", "0.12.1"])
        .arg(root().join("harness/tests/fixtures/stream-after-http-400.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let p = Json::parse(&String::from_utf8_lossy(&out.stdout)).unwrap();
    assert_eq!(
        p.get("applicable"),
        Some(&Json::Bool(true)),
        "{}",
        text(&out)
    );
    let requests = p.get("requests").and_then(Json::as_array).unwrap();
    assert_eq!(requests.len(), 1, "the 400 is not retried: {}", text(&out));
}

/// 0.24.9 applies `activeTools` by the sent name; 1.0.4 ignores the option
/// (`model/releases.rs`, `ACTIVE_TOOLS_APPLIED`): the upgrade sends the
/// tool `activeTools` left out.
#[test]
fn active_tools_filter_on_0_24_9_and_not_on_1_0_4() {
    let case = "cases/active-tools/by-rewritten-name.json";
    assert_eq!(tools_sent("0.24.9", case), names(r#"["search_web"]"#));
    assert_eq!(tools_sent("1.0.4", case), names(r#"["ok","search_web"]"#));
}

/// `0.x` is the whole served 0.x line and a range may span both lines
/// (the registry as served: 67 stable 0.x releases, 0.1.0 to 0.24.9).
#[test]
fn the_0_x_words_resolve_against_the_registry() {
    let plan = |versions: &str| {
        let out = bin()
            .args(["plan", "--versions", versions])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        text(&out)
    };
    let line = plan("0.x");
    assert!(line.starts_with("67 versions"), "{line}");
    assert!(
        line.contains(" 0.1.0 ") && line.contains(" 0.24.9"),
        "{line}"
    );
    assert!(!line.contains(" 1.0.4"), "{line}");
    let span = plan(">=0.24.8 <1.0.5");
    assert!(span.contains("0.24.8 0.24.9 1.0.4"), "{span}");
}

/// The model of 0.x against real installs: cases whose result differs
/// between the 0.x loops (`model/zero.rs`) agree with what each release
/// sends, none unmodelled.
#[test]
fn the_model_agrees_with_0_13_2_0_21_1_and_0_24_9() {
    let cases = [
        "cases/report/search-web-is-sent-as-search_web.json",
        "cases/merge/collision-agent-tool-vs-toolset.json",
        "cases/replies/call-by-unknown-name.json",
        "cases/replies/parallel-calls.json",
        "cases/replies/retries-on-500.json",
        "cases/calls/client-and-server-tool-in-one-step.json",
        "cases/sources/working-memory-call-updates-memory.json",
        "cases/active-tools/by-rewritten-name.json",
        "cases/zero/sub-agent-failing-on-stream-answers-empty-text.json",
        "cases/zero/sub-agent-failing-under-generate-answers-mastras-error.json",
        "cases/zero/sub-agent-by-key-beside-a-call-naming-no-tool-runs-then-the-stream-ends.json",
        "cases/replies/bad-arguments.json",
        "cases/calls/reused-call-id-on-stream.json",
        "cases/zero/v4-stream-refused-call-beside-one-that-runs-goes-on.json",
        "cases/zero/v4-stream-api-error-after-a-refused-call-is-the-error.json",
        "cases/zero/v4-stream-first-refusal-is-the-error.json",
    ];
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let mut cmd = bin();
    cmd.args(["run", "--versions", "0.13.2,0.21.1,0.24.9", "--json"])
        .arg(&json);
    for c in cases {
        cmd.args(["--cases", c]);
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let report = Json::parse(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let results = report.get("results").and_then(Json::as_array).unwrap();
    assert_eq!(results.len(), cases.len() * 3, "{}", text(&out));
    for r in results {
        let verdict = r.get("verdict").and_then(Json::as_str).unwrap().to_lossy();
        assert!(
            ["as-modelled", "known-issue", "provider-rejects"].contains(&verdict.as_str()),
            "{verdict}: {}",
            r.to_compact()
        );
    }
}

/// `bisect` crosses from the 0.x line to 1.x as within a line: 0.24.8 and
/// 0.24.9 apply `activeTools`, 1.0.4 does not (`releases::ACTIVE_TOOLS_ON_0X`), so the
/// first release that differs from 0.24.8 is 1.0.4, found after one step
/// on 0.24.9. (1.1.0 applies `activeTools` again, so it is no bad end.)
#[test]
fn bisect_crosses_from_0_x_to_1_x() {
    let out = bin()
        .args([
            "bisect",
            "cases/active-tools/by-rewritten-name.json",
            "--good",
            "0.24.8",
            "--bad",
            "1.0.4",
        ])
        .output()
        .unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("first changed version: 1.0.4 (last the same: 0.24.9"),
        "{said}"
    );
}
