//! End to end: the grid as a static site, written by a real matrix on real
//! `@mastra/core` versions, opened from `file://` in headless Chromium
//! (the index, a folder, a case's detail, the filters, the changes view);
//! and the Action's `diff` mode, its own script run in bash as GitHub runs
//! it, on a build and a release.
//!
//! Chromium is Debian's package: `harness/tests/setup.sh` installs it.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::browser::dump_dom;
use crate::common::{bin, root, text};

/// The site's views add the data scripts they load once the page has
/// loaded: Chromium waits for them.
const SCRIPTED: [&str; 1] = ["--virtual-time-budget=20000"];

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

/// The attribute `name` of the tag that starts `tag` (with its `<TAG` or
/// without, as `tags` gives it).
fn attr(tag: &str, name: &str) -> Option<String> {
    let tag = format!(" {}", &tag[..tag.find('>')?]);
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let end = start + tag[start..].find('"')?;
    Some(unescape(&tag[start..end]))
}

/// Each element `<TAG ...>` of a dumped page, from its `<` on.
fn tags<'a>(dom: &'a str, tag: &str) -> Vec<&'a str> {
    dom.split(&format!("<{tag} ")).skip(1).collect::<Vec<_>>()
}

/// Each grid cell: (case, route, version, verdict).
fn cells(dom: &str) -> Vec<(String, String, String, String)> {
    tags(dom, "td")
        .into_iter()
        .filter(|t| attr(t, "class").is_some_and(|c| c.starts_with("cell")))
        .filter_map(|t| {
            Some((
                attr(t, "data-case")?,
                attr(t, "data-route")?,
                attr(t, "data-version")?,
                attr(t, "data-verdict")?,
            ))
        })
        .collect()
}

fn ready(dom: &str) -> Option<String> {
    attr(tags(dom, "body").first()?, "data-ready")
}

/// The data a site's `data/KEY.js` gives `MC.got`.
fn got(site: &Path, key: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(site.join("data").join(format!("{key}.js"))).unwrap();
    let body = text
        .strip_prefix(&format!("MC.got({},", serde_json::json!(key)))
        .and_then(|t| t.trim_end().strip_suffix(");"))
        .unwrap();
    serde_json::from_str(body).unwrap()
}

const SITE_CASES: &[&str] = &[
    "cases/report/toolchoice-by-key-not-rewritten.json",
    "cases/report/builtins-by-id.json",
    "cases/report/search-web-is-sent-as-search_web.json",
    "cases/toolchoice/named-absent.json",
    "cases/active-tools/by-registered-key.json",
];

/// A matrix on two releases and two routes writes its site beside its
/// reports; from `file://`, the index shows the headline and each folder's
/// counts, a folder shows every result's verdict as `report.json` has it, a
/// case shows its detail with the known issue and its link, the verdict
/// filter hides rows, and the changes view lists the changes the index
/// counts.
#[test]
fn the_site_shows_the_grid_a_folder_and_a_case_from_file_urls() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("matrix");
    let mut cmd = bin();
    cmd.args([
        "matrix",
        "--versions",
        "1.0.4,1.67.0",
        "--route",
        "openai-compatible",
    ]);
    cmd.arg("--out").arg(&out);
    // The matrix writes its JSON report only when asked.
    cmd.arg("--json").arg(out.join("report.json"));
    for c in SITE_CASES {
        cmd.args(["--cases", c]);
    }
    let ran = cmd.output().unwrap();
    assert!(
        matches!(ran.status.code(), Some(0 | 1)),
        "the matrix ran:\n{}",
        text(&ran)
    );
    let site = out.join("site");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), SITE_CASES.len() * 2);
    let url = |hash: &str| format!("file://{}/index.html{hash}", site.display());

    // The index: the headline and the folders.
    let dom = dump_dom(&SCRIPTED, &url(""));
    assert_eq!(ready(&dom).as_deref(), Some("index"), "{dom}");
    let issue = tags(&dom, "li")
        .into_iter()
        .find(|t| attr(t, "data-issue").as_deref() == Some("toolchoice-not-rewritten"))
        .unwrap_or_else(|| panic!("the headline names the known issue: {dom}"));
    assert!(
        issue.contains("present on 1.0.4 – 1.67.0"),
        "one range, not one release after another: {issue}"
    );
    let folders: Vec<String> = tags(&dom, "tr")
        .into_iter()
        .filter_map(|t| attr(t, "data-folder"))
        .collect();
    assert_eq!(
        folders,
        ["cases/active-tools", "cases/report", "cases/toolchoice"]
    );
    let counted: Vec<String> = tags(&dom, "td")
        .into_iter()
        .filter_map(|t| attr(t, "data-counts"))
        .collect();
    assert_eq!(counted.len(), 3 * 2, "a cell per folder and version");
    assert!(
        counted.iter().any(|c| c.contains("known-issue")),
        "{counted:?}"
    );

    // A folder: every result of it, as the JSON report says.
    let dom = dump_dom(&SCRIPTED, &url("#folder=cases/report"));
    assert_eq!(ready(&dom).as_deref(), Some("folder"), "{dom}");
    let mut shown = cells(&dom);
    shown.sort();
    let mut want: Vec<_> = results
        .iter()
        .filter(|r| r["case"].as_str().unwrap().starts_with("cases/report/"))
        .map(|r| {
            (
                r["case"].as_str().unwrap().to_string(),
                "openai-compatible".to_string(),
                r["version"].as_str().unwrap().to_string(),
                r["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    want.sort();
    assert_eq!(shown, want);

    // The verdict filter, as the address gives it: only rows with a
    // known issue stay visible.
    let dom = dump_dom(&SCRIPTED, &url("#folder=cases/report&only=known-issue"));
    assert_eq!(ready(&dom).as_deref(), Some("folder"));
    let rows: Vec<(String, bool)> = tags(&dom, "tr")
        .into_iter()
        .filter_map(|t| {
            Some((
                attr(t, "data-case")?,
                t[..t.find('>').unwrap()].contains(" hidden"),
            ))
        })
        .collect();
    assert_eq!(rows.len(), 3, "{rows:?}");
    for (case, hidden) in &rows {
        let has_issue = want.iter().any(|w| &w.0 == case && w.3 == "known-issue");
        assert_eq!(*hidden, !has_issue, "{case}: {rows:?}");
    }
    // The search, likewise.
    let dom = dump_dom(&SCRIPTED, &url("#folder=cases/report&q=builtins"));
    let visible: Vec<String> = tags(&dom, "tr")
        .into_iter()
        .filter(|t| !t[..t.find('>').unwrap()].contains(" hidden"))
        .filter_map(|t| attr(t, "data-case"))
        .collect();
    assert_eq!(visible, ["cases/report/builtins-by-id.json"]);

    // A case's detail, loaded on demand: the input, the known issue and its
    // upstream link, predicted against observed.
    let case = "cases/report/toolchoice-by-key-not-rewritten.json";
    let names = got(&site, "names-0");
    let id = names
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n[0] == case)
        .map(|n| n[1].as_str().unwrap().to_string())
        .unwrap();
    let dom = dump_dom(
        &SCRIPTED,
        &url(&format!(
            "#case={id}&route=openai-compatible&version=1.67.0"
        )),
    );
    assert_eq!(ready(&dom).as_deref(), Some("case"), "{dom}");
    // The detail and what is inside it: from its tag to the end.
    let at = dom
        .find(" id=\"detail\"")
        .unwrap_or_else(|| panic!("no detail: {dom}"));
    let detail = &dom[dom[..at].rfind("<section").unwrap()..];
    assert_eq!(attr(detail, "data-case").as_deref(), Some(case));
    assert_eq!(attr(detail, "data-version").as_deref(), Some("1.67.0"));
    assert_eq!(attr(detail, "data-verdict").as_deref(), Some("known-issue"));
    assert!(
        detail.contains("toolchoice-not-rewritten (present)"),
        "{detail}"
    );
    // The upstream link as the ledger has it, or that it has none.
    let ledger: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("known-issues.json")).unwrap())
            .unwrap();
    let upstream = ledger["issues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == "toolchoice-not-rewritten")
        .map(|i| i["upstream"].clone())
        .unwrap();
    match upstream.as_str() {
        Some(link) => assert!(
            detail.contains(&format!("<a href=\"{link}\">")),
            "the upstream link: {detail}"
        ),
        None => assert!(
            detail.contains("upstream: not reported yet"),
            "no upstream link: {detail}"
        ),
    }
    assert!(detail.contains("search.web"), "the input: {detail}");
    assert!(
        detail.contains(">predicted<") && detail.contains(">observed"),
        "{detail}"
    );

    // The changes view lists what the index counts.
    let index = got(&site, "index");
    let dom = dump_dom(&SCRIPTED, &url("#changes"));
    assert_eq!(ready(&dom).as_deref(), Some("changes"), "{dom}");
    let listed = tags(&dom, "tr")
        .into_iter()
        .filter(|t| attr(t, "class").as_deref() == Some("change"))
        .count();
    assert_eq!(Some(listed as u64), index["changes"]["count"].as_u64());
}

/// What GitHub gives a composite action's run step, for the diff step's
/// script run in bash: the runner's temporary folder with the binary where
/// the install step puts it, the output and summary files, the action's own
/// checkout (this repository) and the workspace.
struct Runner {
    dir: tempfile::TempDir,
}

impl Runner {
    fn new() -> Runner {
        let dir = tempfile::tempdir().unwrap();
        let bin_dir = dir.path().join("temp/mastra-conform/node_modules/.bin");
        std::fs::create_dir_all(&bin_dir).unwrap();
        std::os::unix::fs::symlink(
            env!("CARGO_BIN_EXE_mastra-conform"),
            bin_dir.join("mastra-conform"),
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("workspace")).unwrap();
        Runner { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// The action's diff step, run with `inputs`: (exit status, the job
    /// summary, the step's outputs).
    fn diff_step(&self, inputs: &[(&str, &str)]) -> (Option<i32>, String, String) {
        let doc = yaml_rust2::YamlLoader::load_from_str(
            &std::fs::read_to_string(root().join("action.yml")).unwrap(),
        )
        .unwrap()
        .remove(0);
        let step = doc["runs"]["steps"]
            .as_vec()
            .unwrap()
            .iter()
            .find(|s| s["id"].as_str() == Some("diff"))
            .expect("a step with id diff")
            .clone();
        assert_eq!(step["if"].as_str(), Some("${{ inputs.mode == 'diff' }}"));
        let script = self.path("diff.sh");
        std::fs::write(&script, step["run"].as_str().unwrap()).unwrap();
        for f in ["output", "summary"] {
            std::fs::write(self.path(f), "").unwrap();
        }
        let input = |name: &str| -> String {
            inputs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
                .unwrap_or_else(|| {
                    doc["inputs"][name]["default"]
                        .as_str()
                        .unwrap_or("")
                        .to_string()
                })
        };
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script);
        for (var, value) in step["env"].as_hash().unwrap() {
            let value = value.as_str().unwrap();
            let name = value
                .strip_prefix("${{ inputs.")
                .and_then(|v| v.strip_suffix(" }}"))
                .unwrap_or_else(|| panic!("an input: {value}"));
            cmd.env(var.as_str().unwrap(), input(name));
        }
        let out = cmd
            .env("RUNNER_TEMP", self.path("temp"))
            .env("GITHUB_OUTPUT", self.path("output"))
            .env("GITHUB_STEP_SUMMARY", self.path("summary"))
            .env("GITHUB_ACTION_PATH", root())
            .env("GITHUB_WORKSPACE", self.path("workspace"))
            .env("MASTRA_CONFORM_OBSERVATIONS", self.path("observations"))
            .output()
            .unwrap();
        eprintln!("the diff step:\n{}", text(&out));
        (
            out.status.code(),
            std::fs::read_to_string(self.path("summary")).unwrap(),
            std::fs::read_to_string(self.path("output")).unwrap(),
        )
    }
}

/// `npm pack` of a published `@mastra/core` into `dir`: a build as a pull
/// request would make one, here of a release behind the latest.
fn packed(dir: &Path, version: &str) -> PathBuf {
    let out = Command::new("npm")
        .args(["pack", "--silent", &format!("@mastra/core@{version}")])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "npm pack: {}", text(&out));
    dir.join(
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .lines()
            .last()
            .unwrap(),
    )
}

/// The Action's diff mode on a build that changes behaviour no known issue
/// explains, against the latest release (the default `from`): 1.70.0, which
/// executes a stream's calls in the other order than 1.71.0
/// (docs/figures/sweep.md, 1.70.0 → 1.71.0). The step fails, the job summary
/// lists the change under "Not explained by a known issue", and the site of
/// both builds is where the step's `site` output says, for the artifact.
#[test]
fn the_actions_diff_mode_fails_on_an_unexplained_change_against_latest() {
    let runner = Runner::new();
    let build = packed(&runner.path("workspace"), "1.70.0");
    let case = "cases/found/stream-call-by-id-executes-after-call-by-key-on-1.71.0.json";
    let (status, summary, outputs) = runner.diff_step(&[
        ("mode", "diff"),
        ("build", build.file_name().unwrap().to_str().unwrap()),
        ("cases", case),
    ]);
    assert_eq!(status, Some(1), "an unexplained change fails:\n{summary}");
    assert!(summary.contains("# diff: 1.71.0 -> 1.70.0"), "{summary}");
    assert!(
        summary.contains("## Not explained by a known issue (1)") && summary.contains(case),
        "{summary}"
    );
    let site = outputs
        .lines()
        .find_map(|l| l.strip_prefix("site="))
        .expect("the step names the site");
    assert!(
        Path::new(site).join("index.html").is_file()
            && Path::new(site).join("data/index.js").is_file(),
        "the site is there for the artifact: {site}"
    );
}

/// The Action's diff mode on a build whose every change is a known issue's
/// fix (1.67.0 with toolChoice rewritten, `harness/tests/builds/
/// fixed-build.mjs`): the step passes and the job summary groups the
/// changes under that issue.
#[test]
fn the_actions_diff_mode_passes_a_build_that_only_fixes_a_known_issue() {
    let runner = Runner::new();
    let made = Command::new("node")
        .arg(root().join("harness/tests/builds/fixed-build.mjs"))
        .arg(runner.path("workspace/fixed"))
        .output()
        .unwrap();
    assert!(made.status.success(), "fixed-build.mjs: {}", text(&made));
    let made: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&made.stdout).trim()).unwrap();
    let (status, summary, _) = runner.diff_step(&[
        ("mode", "diff"),
        ("build", made["tgz"].as_str().unwrap()),
        ("from", "1.67.0"),
        ("cases", "cases/report"),
    ]);
    assert_eq!(status, Some(0), "explained changes pass:\n{summary}");
    assert!(
        summary.contains("## Matches the fixed behaviour of `toolchoice-not-rewritten`"),
        "{summary}"
    );
    assert!(!summary.contains("Not explained"), "{summary}");
}
