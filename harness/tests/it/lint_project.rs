//! `lint --project` end to end: the fixture Mastra project
//! (`harness/tests/fixtures/lint-project/`) copied into a temporary folder and
//! installed there with `npm install --ignore-scripts` and a real
//! `@mastra/core` (1.67.0, and the latest the registry serves), loaded by the
//! real binary through real Node; and the npm packages, packed and installed
//! from their tarballs into an empty folder, run through `npx`.

use crate::common::{bin, root, text};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

/// A copy of the fixture installed with `@mastra/core` at `core`.
struct Installed {
    dir: tempfile::TempDir,
}

impl Installed {
    fn path(&self) -> &Path {
        self.dir.path()
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() == "node_modules" {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A copy of the fixture's sources (without `node_modules`) in a folder of
/// its own.
fn fixture_copy() -> tempfile::TempDir {
    let dir = crate::kept_tempdir();
    copy_tree(
        &root().join("harness/tests/fixtures/lint-project"),
        dir.path(),
    );
    dir
}

/// `npm install` in `dir` as a user would, running no package script.
///
/// Several fixtures declare the same dependencies (1.67.0 with zod, and
/// with `@mastra/mcp` too): installing each from nothing cost about 7 CPU
/// seconds, most of it npm unpacking the same 150 packages again. So the
/// first project with a manifest installs from nothing, and a later one
/// with the same manifest (its name and description aside) starts from a
/// copy of that tree and lockfile, and npm's own install in it checks them
/// against its manifest (half a CPU second): the project holds the tree
/// npm makes for its manifest either way.
fn install_project(dir: &Path) {
    install_from(dir, None);
}

/// `npm install` in `dir` after a user's edit of an installed project's
/// manifest: `base`'s tree and lockfile are copied in and npm's install
/// moves them to the manifest, as it does for a user who changes a pinned
/// version or adds a dependency and runs `npm install` again. Only the
/// packages that change are fetched and unpacked (0.21.1 to 0.23.1: 3.2
/// CPU seconds instead of 14, and the same packages at the same places as
/// an install from nothing). Only for exact versions: a dist-tag such as
/// `latest` would hold on to the version the base has. A project with a
/// manifest installed before still starts from that tree.
fn install_upgrading(dir: &Path, base: &Installed) {
    install_from(dir, Some(base.path()));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).unwrap()).unwrap();
    for (name, wanted) in manifest["dependencies"].as_object().unwrap() {
        let installed = dir.join("node_modules").join(name).join("package.json");
        let installed: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&installed).unwrap()).unwrap();
        assert_eq!(
            &installed["version"],
            wanted,
            "{name} in {} after the install over {}",
            dir.display(),
            base.path().display()
        );
    }
}

fn install_from(dir: &Path, base: Option<&Path>) {
    const INSTALL: [&str; 4] = ["install", "--ignore-scripts", "--no-audit", "--no-fund"];
    let seed = installed_before(dir);
    let mut first = false;
    let tree = seed.get_or_init(|| {
        first = true;
        if let Some(base) = base {
            copy_installed(base, dir);
        }
        npm(dir, &INSTALL);
        snapshot(dir)
    });
    if !first {
        copy_installed(tree.path(), dir);
        npm(dir, &INSTALL);
    }
}

/// What `npm install` reads of a project's manifest: all of it but its
/// name and description.
fn manifest_key(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("package.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let fields = v.as_object_mut().expect("package.json is an object");
    fields.remove("name");
    fields.remove("description");
    v.to_string()
}

/// The tree installed for `dir`'s manifest in this process, once there is
/// one (a thread installing the same manifest meanwhile is waited for).
fn installed_before(dir: &Path) -> Arc<OnceLock<tempfile::TempDir>> {
    static TREES: OnceLock<Mutex<HashMap<String, Arc<OnceLock<tempfile::TempDir>>>>> =
        OnceLock::new();
    TREES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap()
        .entry(manifest_key(dir))
        .or_default()
        .clone()
}

/// A project's `node_modules` and lockfile, hard-linked into a folder of
/// their own (no test writes into an installed tree), which outlives the
/// project.
fn snapshot(dir: &Path) -> tempfile::TempDir {
    let tree = crate::kept_tempdir();
    cp(&["-al"], &dir.join("node_modules"), tree.path());
    cp(&["-a"], &dir.join("package-lock.json"), tree.path());
    tree
}

/// An installed tree and its lockfile into the project `dir`: the tree
/// hard-linked, as the snapshot is (a real copy of 156 MB cost 1.3 to 2.7
/// CPU s and its writes, the links 0.1 to 0.2). npm's install in the
/// project never writes into a package's files: it unpacks a package it
/// changes into a new folder and renames the old one away; the one file it
/// rewrites in place is `node_modules/.package-lock.json`, so that one is
/// a copy of its own, or the base would describe another project's tree.
fn copy_installed(tree: &Path, dir: &Path) {
    cp(&["-al"], &tree.join("node_modules"), dir);
    let hidden = dir.join("node_modules/.package-lock.json");
    std::fs::remove_file(&hidden).unwrap();
    std::fs::copy(tree.join("node_modules/.package-lock.json"), &hidden).unwrap();
    cp(&["-a"], &tree.join("package-lock.json"), dir);
}

fn cp(flags: &[&str], from: &Path, into: &Path) {
    let out = Command::new("cp")
        .args(flags)
        .arg(from)
        .arg(into)
        .output()
        .expect("cp runs");
    assert!(
        out.status.success(),
        "cp {} {} {}: {}",
        flags.join(" "),
        from.display(),
        into.display(),
        text(&out)
    );
}

/// Replace `from` with `to` in the package.json of the project in `dir`.
fn edit_manifest(dir: &Path, from: &str, to: &str) {
    let manifest = dir.join("package.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace(from, to)).unwrap();
}

fn install_fixture(core: &str) -> Installed {
    let dir = fixture_copy();
    let text = std::fs::read_to_string(dir.path().join("package.json")).unwrap();
    let pinned = "\"@mastra/core\": \"1.67.0\"";
    assert!(
        text.contains(pinned),
        "the fixture's package.json pins 1.67.0"
    );
    edit_manifest(dir.path(), pinned, &format!("\"@mastra/core\": \"{core}\""));
    install_project(dir.path());
    Installed { dir }
}

fn npm(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("npm")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("npm runs");
    assert!(
        out.status.success(),
        "npm {} in {}: {}",
        args.join(" "),
        dir.display(),
        text(&out)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn fixture_1_67() -> &'static Installed {
    static ONCE: OnceLock<Installed> = OnceLock::new();
    ONCE.get_or_init(|| install_fixture("1.67.0"))
}

/// The launcher and the linux-x64 package, packed from the test's binary the
/// way `make npm` packs them, installed from the tarballs into an empty folder.
fn npm_install() -> &'static (tempfile::TempDir, PathBuf) {
    static ONCE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    ONCE.get_or_init(|| {
        let work = crate::kept_tempdir();
        let packed = work.path().join("npm");
        let out = Command::new("node")
            .arg(root().join("npm/pack.mjs"))
            .args(["--out".as_ref(), packed.as_os_str()])
            .args(["--launcher", "--platform", "linux-x64", "--binary"])
            .arg(env!("CARGO_BIN_EXE_mastra-conform"))
            .output()
            .unwrap();
        assert!(out.status.success(), "pack: {}", text(&out));
        let tarballs: Vec<String> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
        assert_eq!(tarballs.len(), 2, "two tarballs: {tarballs:?}");
        assert!(tarballs[0].ends_with("mastra-conform-0.1.0.tgz"));
        assert!(tarballs[1].ends_with("mastra-conform-linux-x64-0.1.0.tgz"));
        let empty = work.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        let mut args = vec!["install", "--no-audit", "--no-fund"];
        args.extend(tarballs.iter().map(String::as_str));
        npm(&empty, &args);
        (work, empty)
    })
}

fn npx(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("npx")
        .args(["--no", "mastra-conform"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("npx runs")
}

#[test]
fn npm_tarballs_installed_together_run_lint_through_npx() {
    let (_work, empty) = npm_install();
    let launcher = empty.join("node_modules/mastra-conform/package.json");
    let binary = empty.join("node_modules/@mastra-conform/linux-x64/bin/mastra-conform");
    assert!(
        launcher.is_file() && binary.is_file(),
        "both packages installed"
    );
    let out = npx(empty, &["lint", "search.web", "search web", "ok_key"]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(
        shown.contains("\"search.web\" -> \"search_web\""),
        "{shown}"
    );
    assert!(shown.contains("collision"), "{shown}");
}

fn fixture_latest() -> &'static Installed {
    static ONCE: OnceLock<Installed> = OnceLock::new();
    ONCE.get_or_init(|| install_fixture("latest"))
}

/// The version npm installed into a project.
fn installed_core(dir: &Path) -> String {
    let manifest =
        std::fs::read_to_string(dir.join("node_modules/@mastra/core/package.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    v["version"].as_str().unwrap().to_string()
}

fn lint_project(dir: &Path, extra: &[&str]) -> std::process::Output {
    bin()
        .args(["lint", "--project"])
        .arg(dir)
        .args(extra)
        .output()
        .unwrap()
}

const SUPPORT: &str = "src/mastra/agents/support-agent.ts";
const LONG_KEY: &str = "lookup_customer_order_history_and_recent_shipping_status_by_mail";

/// Each of the fixture's problems, as the text report must show it: the
/// severity, `file:line`, and what the line must say.
fn expected_lines() -> Vec<(&'static str, String, &'static str)> {
    vec![
        (
            "error",
            format!("{SUPPORT}:12"),
            "\"search web\" -> (not sent): collision",
        ),
        (
            "error",
            format!("{SUPPORT}:18"),
            "toolChoice \"search.web\" names no tool that is sent",
        ),
        (
            "warning",
            format!("{SUPPORT}:11"),
            "\"search.web\" -> \"search_web\": rewritten",
        ),
        (
            "warning",
            format!("{SUPPORT}:13"),
            "\"1tool\" -> \"_1tool\": rewritten",
        ),
        ("warning", format!("{SUPPORT}:14"), "cut to 63 characters"),
        (
            "warning",
            format!("{SUPPORT}:16"),
            "\"agent-research.agent\" -> \"agent-research_agent\": rewritten",
        ),
    ]
}

fn assert_flags_every_key(dir: &Path) {
    let out = lint_project(dir, &[]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    for (severity, at, says) in expected_lines() {
        assert!(
            stdout.lines().any(|l| l.trim_start().starts_with(severity)
                && l.contains(&format!("{at}:"))
                && l.contains(says)),
            "no {severity} line at {at} saying {says:?}:\n{stdout}"
        );
    }
    assert!(stdout.contains(LONG_KEY), "{stdout}");
    assert!(
        stdout.contains("register it in agents under the key \"research_agent\""),
        "a sub-agent is fixed where it is registered: {stdout}"
    );
    // Grouped by agent, the one with errors first, its errors before its warnings.
    let support = stdout
        .find("agent supportAgent")
        .expect("the support agent's group");
    let research = stdout
        .find("agent researchAgent")
        .expect("the research agent's group");
    assert!(support < research, "{stdout}");
    let first_warning = stdout.find("  warning").unwrap();
    assert!(stdout.rfind("  error").unwrap() < first_warning, "{stdout}");
    let last = stdout.lines().last().unwrap();
    let version = installed_core(dir);
    assert!(
        last.starts_with("2 agents, 7 tools: 2 errors, 4 warnings")
            && last.contains(&format!("@mastra/core {version}")),
        "summary line: {last}"
    );
}

#[test]
fn lint_project_flags_each_key_with_file_and_line_on_1_67_0() {
    assert_flags_every_key(fixture_1_67().path());
}

#[test]
fn lint_project_flags_each_key_with_file_and_line_on_the_latest() {
    assert_flags_every_key(fixture_latest().path());
}

#[test]
fn lint_project_json_carries_every_key_its_source_and_location() {
    let dir = fixture_1_67().path();
    let out = lint_project(dir, &["--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["mastra"], "1.67.0");
    assert_eq!(v["summary"]["errors"], 2);
    let support = &v["agents"][0];
    assert_eq!(support["registeredAs"], "supportAgent");
    assert_eq!(support["route"]["provider"], "openai");
    let tools = support["tools"].as_array().unwrap();
    let column =
        |k: &str| -> Vec<serde_json::Value> { tools.iter().map(|t| t[k].clone()).collect() };
    assert_eq!(
        column("key"),
        [
            "search.web",
            "search web",
            "1tool",
            LONG_KEY,
            "agent-research.agent"
        ]
    );
    assert_eq!(column("source"), ["tool", "tool", "tool", "tool", "agent"]);
    let lines: Vec<serde_json::Value> = tools.iter().map(|t| t["at"]["line"].clone()).collect();
    assert_eq!(lines, [11, 12, 13, 14, 16]);
    assert_eq!(tools[3]["sentAs"], &LONG_KEY[..63]);
    assert_eq!(tools[1]["problem"], "collision");
    let research = &v["agents"][1];
    assert_eq!(research["route"]["kind"], "openai-compatible");
    let keys: Vec<serde_json::Value> = research["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["key"].clone())
        .collect();
    assert_eq!(
        keys,
        ["notes", "workflow-digest"],
        "the dynamic tools and the workflow"
    );
}

/// The SARIF 2.1.0 schema, from a registry package that ships it
/// (`@microsoft/jest-sarif`, pinned), unpacked into a temporary folder.
fn sarif_schema() -> serde_json::Value {
    let dir = crate::kept_tempdir();
    let printed = npm(
        dir.path(),
        &[
            "pack",
            "@microsoft/jest-sarif@1.0.0-beta.0",
            "--loglevel",
            "error",
        ],
    );
    let tarball = dir.path().join(printed.trim().lines().last().unwrap());
    let out = Command::new("tar")
        .arg("xzf")
        .arg(&tarball)
        .arg("-C")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "tar: {}", text(&out));
    let schema = dir
        .path()
        .join("package/lib/schemas/sarif-2.1.0-rtm.5.json");
    let mut schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema).unwrap()).unwrap();
    // The `language` patterns end in a lone `]`: a literal in ECMAScript
    // regexes, an error to the Rust engine that checks patterns when the
    // schema is compiled. Escaping it keeps their meaning exactly.
    let escaped = escape_lone_brackets(&mut schema);
    assert!(escaped >= 1, "the schema's language patterns were found");
    schema
}

fn escape_lone_brackets(v: &mut serde_json::Value) -> usize {
    const LONE: &str = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";
    match v {
        serde_json::Value::Object(members) => members
            .iter_mut()
            .map(|(k, v)| {
                if k == "pattern" && v == LONE {
                    *v = serde_json::json!(r"^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\]?$");
                    1
                } else {
                    escape_lone_brackets(v)
                }
            })
            .sum(),
        serde_json::Value::Array(items) => items.iter_mut().map(escape_lone_brackets).sum(),
        _ => 0,
    }
}

#[test]
fn sarif_validates_against_the_2_1_0_schema_and_places_each_problem() {
    let dir = fixture_1_67().path();
    let out_dir = crate::kept_tempdir();
    let file = out_dir.path().join("lint.sarif");
    let out = lint_project(dir, &["--sarif", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let schema = sarif_schema();
    let validator = jsonschema::validator_for(&schema).expect("the SARIF schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "SARIF does not validate: {errors:#?}");
    // And a broken log does not: the validation can fail.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = serde_json::json!("fatal");
    assert!(
        !validator.is_valid(&broken),
        "the schema rejects an unknown level"
    );

    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 6, "{results:#?}");
    let placed: Vec<(String, String, u64)> = results
        .iter()
        .map(|r| {
            let loc = &r["locations"][0]["physicalLocation"];
            (
                r["level"].as_str().unwrap().to_string(),
                loc["artifactLocation"]["uri"].as_str().unwrap().to_string(),
                loc["region"]["startLine"].as_u64().unwrap(),
            )
        })
        .collect();
    for (severity, at, _) in expected_lines() {
        let (file, line) = at.rsplit_once(':').unwrap();
        assert!(
            placed
                .iter()
                .any(|(l, u, n)| l == severity && u == file && n.to_string() == line),
            "no {severity} result at {at}: {placed:?}"
        );
    }
}

/// A copy of the fixture's sources sharing an installed `node_modules`,
/// with `edit` applied to it.
fn variant(installed: &Installed, edit: impl FnOnce(&Path)) -> tempfile::TempDir {
    let dir = fixture_copy();
    std::os::unix::fs::symlink(
        installed.path().join("node_modules"),
        dir.path().join("node_modules"),
    )
    .unwrap();
    edit(dir.path());
    dir
}

fn append(file: &Path, text: &str) {
    let mut s = std::fs::read_to_string(file).unwrap();
    s.push_str(text);
    std::fs::write(file, s).unwrap();
}

/// One clear line on stderr, the exit status, and no panic.
fn assert_one_error(out: &std::process::Output, status: i32, says: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(status), "{}", text(out));
    // Behind the guard alone, the harness's one notice of that comes first.
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("notice: no OS sandbox"))
        .collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    assert!(
        lines[0].starts_with("error: ") && lines[0].contains(says),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_project_never_installed_is_one_error_with_exit_2() {
    let dir = fixture_copy();
    assert_one_error(
        &lint_project(dir.path(), &[]),
        2,
        "is not installed: no node_modules",
    );
}

#[test]
fn a_project_without_mastra_core_is_one_error_with_exit_2() {
    let installed = fixture_1_67();
    let dir = fixture_copy();
    std::fs::create_dir(dir.path().join("node_modules")).unwrap();
    std::os::unix::fs::symlink(
        installed.path().join("node_modules/zod"),
        dir.path().join("node_modules/zod"),
    )
    .unwrap();
    assert_one_error(
        &lint_project(dir.path(), &[]),
        2,
        "@mastra/core is not installed",
    );
}

#[test]
fn a_mastra_core_without_an_agent_is_one_error_with_exit_2() {
    // A real 0.1.x release (an integrations framework, no Agent), installed
    // as a user would have it.
    let dir = fixture_copy();
    edit_manifest(dir.path(), "\"1.67.0\"", "\"0.1.26\"");
    install_project(dir.path());
    assert_eq!(installed_core(dir.path()), "0.1.26");
    assert_one_error(
        &lint_project(dir.path(), &[]),
        2,
        "is @mastra/core 0.1.26, which has no Agent; lint --project needs 0.2.0 or later",
    );
}

#[test]
fn an_entry_that_throws_is_one_error_with_exit_2() {
    let dir = variant(fixture_1_67(), |d| {
        append(
            &d.join("src/mastra/index.ts"),
            "\nthrow new Error('DATABASE_URL is not set');\n",
        )
    });
    assert_one_error(
        &lint_project(dir.path(), &[]),
        2,
        "src/mastra/index.ts threw while loading: DATABASE_URL is not set",
    );
}

/// A name the installed `@mastra/core` no longer exports (an API renamed
/// between releases, as a template written for 0.x on today's release): one
/// line naming the project's own import of it, not only the package's file.
#[test]
fn an_import_the_installed_core_does_not_export_is_one_error_naming_the_import() {
    let dir = variant(fixture_1_67(), |d| {
        let tools = d.join("src/mastra/context.ts");
        std::fs::write(
            &tools,
            "import { RuntimeContext } from '@mastra/core/di';\n\nexport const context = new RuntimeContext();\n",
        )
        .unwrap();
        append(&d.join("src/mastra/index.ts"), "\nimport './context';\n");
    });
    let out = lint_project(dir.path(), &[]);
    assert_one_error(
        &out,
        2,
        "src/mastra/context.ts:1:10 (from '@mastra/core/di') imports RuntimeContext, which the installed package does not export",
    );
}

#[test]
fn an_entry_without_a_mastra_instance_is_one_error_with_exit_2() {
    let dir = variant(fixture_1_67(), |d| {
        std::fs::write(
            d.join("src/mastra/other.ts"),
            "export const agents: string[] = [];\n",
        )
        .unwrap()
    });
    let out = lint_project(dir.path(), &["--entry", "src/mastra/other.ts"]);
    assert_one_error(
        &out,
        2,
        "src/mastra/other.ts exports no Mastra instance (exports: agents)",
    );
}

#[test]
fn an_agent_whose_tools_function_throws_is_one_error_with_exit_2() {
    let dir = variant(fixture_1_67(), |d| {
        let file = d.join("src/mastra/agents/research-agent.ts");
        let s = std::fs::read_to_string(&file).unwrap();
        let s = s
            .replace(
                "=> ({",
                "=> { if (!requestContext.get('tenant')) throw new Error('no tenant in the request context'); return ({",
            )
            .replace("  }),\n  workflows", "  }); },\n  workflows");
        assert!(s.contains("throw new Error") && s.contains("}); },"), "{s}");
        std::fs::write(&file, s).unwrap();
    });
    assert_one_error(
        &lint_project(dir.path(), &[]),
        2,
        "agent \"researchAgent\": its tools function threw: no tenant in the request context",
    );
}

#[test]
fn a_missing_entry_is_one_error_with_exit_2() {
    let out = lint_project(fixture_1_67().path(), &["--entry", "src/nope.ts"]);
    assert_one_error(&out, 2, "src/nope.ts: no such entry file");
}

/// Whether this machine runs the loader in the OS sandbox, as the
/// installed fixture's load says.
fn machine_sandboxes() -> bool {
    static ONCE: OnceLock<bool> = OnceLock::new();
    *ONCE.get_or_init(|| {
        let out = lint_project(fixture_1_67().path(), &["--json"]);
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
        v["isolation"] == "sandbox"
    })
}

/// The isolations to prove on this machine: the sandbox (its default) and
/// the JavaScript guard alone where it has a sandbox, else the guard alone.
fn isolations() -> &'static [bool] {
    if machine_sandboxes() {
        &[true, false]
    } else {
        &[false]
    }
}

/// `lint --project DIR` in the sandbox, or with it off
/// (`MASTRA_CONFORM_SANDBOX=off`: the JavaScript guard alone).
fn lint_isolated(
    dir: &Path,
    sandboxed: bool,
    extra: &[&str],
    env: &[(&str, &str)],
) -> std::process::Output {
    let mut cmd = bin();
    cmd.args(["lint", "--project"]).arg(dir).args(extra);
    for (k, v) in env {
        cmd.env(k, v);
    }
    if !sandboxed {
        cmd.env("MASTRA_CONFORM_SANDBOX", "off");
    }
    let out = cmd.output().unwrap();
    let shown = text(&out);
    let says = if sandboxed {
        "in the OS sandbox)"
    } else {
        "under the JavaScript guard)"
    };
    assert!(
        shown.contains(says) || out.status.code() == Some(2),
        "the summary says {says}: {shown}"
    );
    out
}

/// Whether this test runs as root: root reads every process's `/proc`
/// files, a non-dumpable harness's included, unless a PID namespace hides
/// them (docs/isolation.md).
fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and touches no memory.
    unsafe { libc::geteuid() == 0 }
}

/// Loading runs the project's code with no credentials and no way out: a
/// planted API key is not in its environment, nor (in the sandbox) in any
/// `/proc/*/environ` it can see; a request is refused and reported. Behind
/// the guard alone, a root harness's `/proc/PID/environ` is readable: the
/// known limit the sandbox lifts, asserted as known. A key the user passes
/// with --env-file is seen.
#[test]
fn the_project_runs_isolated_unless_given_an_env_file() {
    let dir = variant(fixture_1_67(), |d| {
        append(
            &d.join("src/mastra/index.ts"),
            "\nawait fetch('https://api.openai.com/v1/models').catch(() => undefined);\n\
             if (process.env.OPENAI_API_KEY) throw new Error('saw OPENAI_API_KEY');\n\
             {\n\
               const { readdirSync, readFileSync } = await import('node:fs');\n\
               for (const pid of readdirSync('/proc').filter((n) => /^\\d+$/.test(n))) {\n\
                 let environ = '';\n\
                 try { environ = readFileSync(`/proc/${pid}/environ`, 'latin1'); } catch {}\n\
                 if (environ.includes('sk-planted')) throw new Error(`saw the planted key in /proc/${pid}/environ`);\n\
               }\n\
             }\n",
        )
    });
    for &sandboxed in isolations() {
        let out = lint_isolated(
            dir.path(),
            sandboxed,
            &[],
            &[("OPENAI_API_KEY", "sk-planted")],
        );
        let shown = text(&out);
        if !sandboxed && is_root() {
            assert_one_error(&out, 2, "saw the planted key in /proc/");
            continue;
        }
        assert_eq!(
            out.status.code(),
            Some(1),
            "no credential seen (sandboxed: {sandboxed}), the lint ran: {shown}"
        );
        assert!(
            shown.contains(
                "note: loading the project tried 1 outgoing request, refused: https://api.openai.com/v1/models"
            ),
            "{shown}"
        );
    }
    let env = dir.path().join(".env.lint");
    std::fs::write(&env, "OPENAI_API_KEY=sk-from-the-user\n").unwrap();
    for &sandboxed in isolations() {
        let out = lint_isolated(
            dir.path(),
            sandboxed,
            &["--env-file", env.to_str().unwrap()],
            &[],
        );
        assert_one_error(&out, 2, "saw OPENAI_API_KEY");
    }
}

/// Import-time code that tries every way out the guard covers, each against
/// a listener of the test's own on 127.0.0.1: fetch, node:http(s), TCP, TLS,
/// UDP, a Worker, a detached child and a `setsid` one. None gets out, each
/// is listed as refused, and the real collision is still reported. Then one
/// way out below the guard (`process.binding('spawn_sync')`, a child the
/// guard never sees, connecting to the listener): inside the sandbox it
/// reaches nothing; behind the guard alone it does, the known limit the
/// sandbox is there for, so the escape is proved real.
#[test]
fn the_projects_code_opens_no_connection_and_starts_no_process() {
    use std::io::Read;
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let (t, u) = (
        tcp.local_addr().unwrap().port(),
        udp.local_addr().unwrap().port(),
    );
    let connect = format!("require('net').connect({t}, '127.0.0.1')");
    let below = format!("const s = require('net').connect({t}, '127.0.0.1', () => s.end('below'))");
    let dir = variant(fixture_1_67(), |d| {
        append(
            &d.join("src/mastra/index.ts"),
            &format!(
                r#"
const {{ default: childProcess }} = await import('node:child_process');
const {{ default: dgram }} = await import('node:dgram');
const {{ default: http }} = await import('node:http');
const {{ default: https }} = await import('node:https');
const {{ default: net }} = await import('node:net');
const {{ default: tls }} = await import('node:tls');
const {{ Worker }} = await import('node:worker_threads');
const attempt = async (f) => {{
  try {{
    await f();
  }} catch {{}}
}};
const event = (emitter, ok) =>
  new Promise((resolve, reject) => {{
    emitter.on(ok, resolve);
    emitter.on('error', reject);
  }});
await attempt(() => fetch('http://127.0.0.1:{t}/fetch'));
await attempt(() => event(http.get('http://127.0.0.1:{t}/http'), 'response'));
await attempt(() => event(https.get('https://127.0.0.1:{t}/https'), 'response'));
await attempt(() => event(net.connect({t}, '127.0.0.1'), 'connect'));
await attempt(() => event(tls.connect({{ port: {t}, host: '127.0.0.1', rejectUnauthorized: false }}), 'secureConnect'));
await attempt(() => dgram.createSocket('udp4').send('x', {u}, '127.0.0.1'));
await attempt(() => new Worker("{connect}", {{ eval: true }}));
await attempt(() => childProcess.spawn(process.execPath, ['-e', "{connect}"], {{ detached: true }}).unref());
await attempt(() => childProcess.execSync('setsid -f sleep 30'));
// Below the guard: a child started by Node's internal binding.
await attempt(() =>
  process.binding('spawn_sync').spawn({{
    file: process.execPath,
    args: [process.execPath, '-e', "{below}"],
    envPairs: [],
    stdio: [{{ type: 'ignore' }}, {{ type: 'ignore' }}, {{ type: 'ignore' }}],
    timeout: 10000,
    killSignal: 15,
  }}),
);
"#
            ),
        )
    });
    for &sandboxed in isolations() {
        let out = lint_isolated(dir.path(), sandboxed, &[], &[]);
        let shown = text(&out);
        assert_eq!(
            out.status.code(),
            Some(1),
            "the collision is reported: {shown}"
        );
        assert!(
            shown.contains("note: loading the project tried 9 outgoing requests, refused:"),
            "{shown}"
        );
        for refused in [
            format!("http://127.0.0.1:{t}/fetch"),
            format!("http://127.0.0.1:{t}/http"),
            format!("https://127.0.0.1:{t}/https"),
            format!("tcp 127.0.0.1:{t}"),
            format!("tls 127.0.0.1:{t}"),
            format!("udp 127.0.0.1:{u}"),
            format!("worker {connect}"),
            format!("-e {connect}"),
            "spawn /bin/sh -c setsid -f sleep 30".to_string(),
        ] {
            assert!(shown.contains(&refused), "{refused} is not listed: {shown}");
        }
        assert!(udp.recv(&mut [0u8; 16]).is_err(), "a datagram got out");
        // What reached the listener: only the child below the guard, and
        // only without the sandbox.
        let mut reached = Vec::new();
        while let Ok((mut conn, _)) = tcp.accept() {
            conn.set_nonblocking(false).unwrap();
            conn.set_read_timeout(Some(std::time::Duration::from_secs(5)))
                .unwrap();
            let mut said = String::new();
            let _ = conn.read_to_string(&mut said);
            reached.push(said);
        }
        if sandboxed {
            assert!(
                reached.is_empty(),
                "a connection got out of the sandbox: {reached:?}"
            );
        } else {
            assert_eq!(
                reached,
                ["below"],
                "only the child below the guard gets out without the sandbox"
            );
        }
    }
}

#[test]
fn npx_runs_lint_project_from_the_packed_tarballs() {
    let (_work, empty) = npm_install();
    let project = fixture_1_67().path().to_str().unwrap().to_string();
    let out = npx(empty, &["lint", "--project", &project]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(shown.contains(&format!("{SUPPORT}:12")), "{shown}");
    assert!(
        shown.contains("2 agents, 7 tools: 2 errors, 4 warnings"),
        "{shown}"
    );
}

/// The shapes fixture (`harness/tests/fixtures/lint-shapes/`) in a folder of
/// its own, one level down (so that `../` of its working folder is still the
/// test's), with the lint-project fixture's installed packages (the same
/// manifest: no tsx among them) and, when `dotenv`, its `.env` beside it.
fn shapes(dotenv: bool) -> (tempfile::TempDir, PathBuf) {
    let installed = fixture_1_67();
    let outer = crate::kept_tempdir();
    let dir = outer.path().join("project");
    copy_tree(&root().join("harness/tests/fixtures/lint-shapes"), &dir);
    std::os::unix::fs::symlink(
        installed.path().join("node_modules"),
        dir.join("node_modules"),
    )
    .unwrap();
    assert!(
        !dir.join("node_modules/tsx").exists(),
        "the shapes load with no tsx installed"
    );
    if dotenv {
        std::fs::copy(dir.join("env.example"), dir.join(".env")).unwrap();
    }
    (outer, dir)
}

const SHAPES: &str = "src/mastra/agents/shapes-agent.ts";

/// Every shape loads through esbuild with no tsx, what the project prints
/// on fd 1 (and forges on fd 3) is never the document, relative storage
/// lands outside the project and is reported, and the keys written as
/// shorthand, computed and spread properties are located where written.
#[test]
fn the_shapes_of_real_projects_load_with_no_tsx_and_locate_every_key() {
    let (outer, dir) = shapes(true);
    let env = dir.join(".env");
    let out = lint_project(&dir, &["--json", "--env-file", env.to_str().unwrap()]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "warnings only: {shown}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is the harness's JSON alone ({e}): {shown}"));
    assert_eq!(v["mastra"], "1.67.0", "{v:#}");
    assert_eq!(v["loader"], "esbuild", "{v:#}");
    // The reason is the first obstacle the loader finds in the files the
    // entry imports, the entry first, named where it is written: the
    // entry's own tsconfig alias.
    assert_eq!(
        v["loaderReason"],
        "Node's type stripping cannot run the tsconfig paths alias @/mastra/agents/shapes-agent (4:1) in src/mastra/index.ts",
        "{v:#}"
    );
    assert!(v["seconds"].as_f64().is_some_and(|s| s > 0.0), "{v:#}");
    let agent = &v["agents"][0];
    assert_eq!(agent["registeredAs"], "shapesAgent");
    let tools = agent["tools"].as_array().unwrap();
    let at = |key: &str| -> (String, u64, u64) {
        let t = tools
            .iter()
            .find(|t| t["key"] == key)
            .unwrap_or_else(|| panic!("no key {key}: {tools:#?}"));
        let a = &t["at"];
        (
            a["file"]
                .as_str()
                .unwrap_or_else(|| panic!("{key} unlocated: {t:#}"))
                .to_string(),
            a["line"].as_u64().unwrap(),
            a["column"].as_u64().unwrap(),
        )
    };
    let keys: Vec<&str> = tools.iter().map(|t| t["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["weatherTool", "forecast.daily", "alerts.feed"]);
    assert_eq!(at("weatherTool"), (SHAPES.into(), 14, 5), "the shorthand");
    assert_eq!(
        at("forecast.daily"),
        (SHAPES.into(), 15, 5),
        "the computed key, from its bracket, through the tsconfig alias its tool is imported by"
    );
    assert_eq!(
        at("alerts.feed"),
        (SHAPES.into(), 5, 3),
        "the spread record's key"
    );
    assert_eq!(v["summary"]["warnings"], 2, "{v:#}");
    // The logger's lines and the forged document were the project's output.
    assert!(!shown.contains("forged"), "{shown}");
    // Relative storage stayed out of the project and the folder above it,
    // and was reported.
    for stray in [dir.join("mastra.db"), outer.path().join("mastra-above.db")] {
        assert!(!stray.exists(), "{} written", stray.display());
    }
    let wrote: Vec<&str> = v["wrote"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(
        wrote.iter().any(|w| w.ends_with("mastra.db"))
            && wrote.iter().any(|w| w.ends_with("mastra-above.db")),
        "{wrote:?}"
    );
}

/// `--verbose` shows what the project printed, as its output, on stderr.
#[test]
fn verbose_shows_the_projects_own_output_apart() {
    let (_outer, dir) = shapes(true);
    let env = dir.join(".env");
    let out = lint_project(&dir, &["--verbose", "--env-file", env.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("[project stdout") && l.contains("logger ready")),
        "{stderr}"
    );
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("[project stdout") && l.contains("shutting down")),
        "the exit handler's line: {stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("logger ready"), "{stdout}");
    assert!(
        stdout.contains(&format!("{SHAPES}:5:3")),
        "file:line:col: {stdout}"
    );
    assert!(stdout.contains("1 agent, 3 tools"), "plurals: {stdout}");
}

/// A variable demanded at import: inside the OS sandbox the `.env` beside
/// the project is read, as `mastra dev` reads it; with the JavaScript guard
/// alone it is not, and the one error line says so and names `--env-file`.
/// Under `--json` the same line comes as a JSON error document.
#[test]
fn a_variable_demanded_at_import_is_read_from_dotenv_or_hinted_at() {
    let (_outer, dir) = shapes(true);
    let out = lint_project(&dir, &["--json"]);
    if out.status.code() == Some(0) {
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["isolation"], "sandbox", "{v:#}");
        return;
    }
    assert_one_error(&out, 2, "SHAPES_API_KEY");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(".env") && stderr.contains("--env-file"),
        "{stderr}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("a JSON error document ({e}): {}", text(&out)));
    assert_eq!(v["error"]["status"], 2);
    assert_eq!(
        format!("error: {}", v["error"]["message"].as_str().unwrap()),
        stderr.trim_end(),
        "the same line"
    );
    // Without a .env, the hint names both ways in.
    let (_outer, bare) = shapes(false);
    let out = lint_project(&bare, &[]);
    assert_one_error(&out, 2, "--env-file");
}

/// `--max-warnings N` fails above N; the configuration file and an inline
/// comment suppress findings.
#[test]
fn max_warnings_and_suppressions() {
    let (_outer, dir) = shapes(true);
    let env = dir.join(".env");
    let env = env.to_str().unwrap();
    let code = |dir: &Path, extra: &[&str]| {
        let mut args = vec!["--env-file", env];
        args.extend_from_slice(extra);
        let out = lint_project(dir, &args);
        (out.status.code(), text(&out))
    };
    assert_eq!(code(&dir, &["--max-warnings", "2"]).0, Some(0));
    assert_eq!(code(&dir, &["--max-warnings", "1"]).0, Some(1));
    std::fs::write(
        dir.join("mastra-conform.json"),
        "{ \"allow\": [\"alerts.*\"] }\n",
    )
    .unwrap();
    let (status, shown) = code(&dir, &["--max-warnings", "1"]);
    assert_eq!(status, Some(0), "{shown}");
    let agent = dir.join(SHAPES);
    let source = std::fs::read_to_string(&agent).unwrap().replace(
        "[forecastTool.id]: forecastTool,",
        "[forecastTool.id]: forecastTool, // mastra-conform-ignore tool-key-rewritten",
    );
    std::fs::write(&agent, source).unwrap();
    let (status, shown) = code(&dir, &["--max-warnings", "0"]);
    assert_eq!(status, Some(0), "{shown}");
    assert!(shown.contains("0 warnings"), "{shown}");
    std::fs::write(
        dir.join("mastra-conform.json"),
        "{ \"rules\": { \"tool-key-cut\": \"sometimes\" } }\n",
    )
    .unwrap();
    let out = lint_project(&dir, &["--env-file", env]);
    assert_one_error(&out, 2, "sometimes");
}

#[test]
fn plain_lint_prints_only_problems_unless_all_and_ends_with_a_summary() {
    let run = |extra: &[&str]| {
        let out = bin()
            .args(["lint", "search.web", "weather", "forecast"])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let problems = run(&[]);
    assert_eq!(problems.lines().count(), 2, "{problems}");
    assert!(
        problems.starts_with("warning \"search.web\" -> \"search_web\""),
        "{problems}"
    );
    assert!(!problems.contains("\"weather\""), "{problems}");
    assert_eq!(
        problems.lines().last(),
        Some("3 keys, 0 names: 0 errors, 1 warning, 2 ok")
    );
    let all = run(&["--all"]);
    assert_eq!(all.lines().count(), 4, "{all}");
    assert!(
        all.contains("ok      \"weather\" -> \"weather\": ok"),
        "{all}"
    );
}

#[test]
fn a_relative_project_path_and_entry_are_taken_from_where_the_user_is() {
    let dir = fixture_1_67().path();
    let out = bin()
        .current_dir(dir.parent().unwrap())
        .args(["lint", "--project"])
        .arg(dir.file_name().unwrap())
        .args(["--entry", "src/mastra/index.ts"])
        .output()
        .unwrap();
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(shown.contains(&format!("{SUPPORT}:12")), "{shown}");
}

/// Memory tools reach the record (Mastra adds them only to a call with a
/// thread or resource, which the loader names), and a default `activeTools`
/// naming a registered key that is rewritten is an error at its line.
#[test]
fn memory_tools_and_default_active_tools_are_judged() {
    let dir = fixture_copy();
    edit_manifest(
        dir.path(),
        "\"@mastra/core\": \"1.67.0\"",
        "\"@mastra/core\": \"latest\", \"@mastra/memory\": \"latest\"",
    );
    let agent = dir.path().join("src/mastra/agents/research-agent.ts");
    let source = std::fs::read_to_string(&agent)
        .unwrap()
        .replace(
            "import { Agent } from '@mastra/core/agent';",
            "import { Agent } from '@mastra/core/agent';\nimport { Memory } from '@mastra/memory';",
        )
        .replace(
            "  workflows: { digest: digestWorkflow },",
            "  workflows: { digest: digestWorkflow },\n  memory: new Memory({ options: { workingMemory: { enabled: true } } }),\n  defaultOptions: { activeTools: ['notes', 'search.web'] },",
        );
    std::fs::write(&agent, &source).unwrap();
    let active_line = source
        .lines()
        .position(|l| l.contains("activeTools"))
        .unwrap()
        + 1;
    install_project(dir.path());
    let out = lint_project(dir.path(), &["--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let research = &v["agents"][1];
    let tools: Vec<(String, String)> = research["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["key"].as_str().unwrap().to_string(),
                t["source"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        tools.contains(&("updateWorkingMemory".into(), "memory".into())),
        "{tools:?}"
    );
    let findings = research["findings"].as_array().unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["rule"] == "active-tools-names-no-tool-sent"
                && f["subject"] == "search.web"
                && f["at"]["line"] == active_line),
        "{findings:#?}"
    );
}

/// `--format github`: one workflow command per finding, in the syntax
/// GitHub parses (`::LEVEL k=v,k=v::MESSAGE`, `%`, CR, LF escaped in the
/// message, and `,` `:` too in a property), located where the text
/// report locates it; then the summary.
#[test]
fn format_github_prints_one_well_formed_annotation_per_finding() {
    let dir = fixture_latest().path();
    let out = lint_project(dir, &["--format", "github"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut lines: Vec<&str> = stdout.lines().collect();
    let summary = lines.pop().unwrap();
    assert!(
        summary.starts_with("2 agents, 7 tools: 2 errors, 4 warnings"),
        "{summary}"
    );
    let mut annotations = Vec::new();
    for line in &lines {
        let rest = line
            .strip_prefix("::")
            .unwrap_or_else(|| panic!("not a workflow command: {line}"));
        let (head, message) = rest
            .split_once("::")
            .unwrap_or_else(|| panic!("no message: {line}"));
        assert!(!message.is_empty(), "{line}");
        assert!(!message.contains('\r') && !message.contains('\n'));
        let (level, props) = head.split_once(' ').unwrap_or((head, ""));
        assert!(
            ["error", "warning", "notice"].contains(&level),
            "level {level:?}: {line}"
        );
        let mut fields = std::collections::BTreeMap::new();
        for prop in props.split(',').filter(|p| !p.is_empty()) {
            let (k, v) = prop
                .split_once('=')
                .unwrap_or_else(|| panic!("property {prop:?}: {line}"));
            assert!(
                ["file", "line", "col", "endLine", "endColumn", "title"].contains(&k),
                "unknown property {k}: {line}"
            );
            assert!(!v.contains(':'), "an unescaped ':' in {k}: {line}");
            if k == "line" || k == "col" {
                assert!(v.parse::<u64>().is_ok_and(|n| n > 0), "{k}={v}: {line}");
            }
            fields.insert(k, v.to_string());
        }
        annotations.push((level, fields, message.to_string()));
    }
    let findings: Vec<_> = annotations
        .iter()
        .filter(|(l, ..)| *l != "notice")
        .collect();
    assert_eq!(findings.len(), 6, "{stdout}");
    for (severity, at, says) in expected_lines() {
        let (file, line) = at.rsplit_once(':').unwrap();
        assert!(
            findings.iter().any(|(level, f, message)| *level == severity
                && f.get("file").is_some_and(|p| p.ends_with(file))
                && f.get("line").map(String::as_str) == Some(line)
                && f.contains_key("col")
                && f.get("title").is_some_and(|t| t.contains('-'))
                && message.contains(says)),
            "no {severity} annotation at {at} saying {says:?}:\n{stdout}"
        );
    }
}

/// A YAML file of the repository, parsed: one document.
fn yaml(rel: &str) -> yaml_rust2::Yaml {
    let text = std::fs::read_to_string(root().join(rel)).unwrap();
    let mut docs = yaml_rust2::YamlLoader::load_from_str(&text)
        .unwrap_or_else(|e| panic!("{rel} is not YAML: {e}"));
    assert_eq!(docs.len(), 1, "{rel}: one document");
    docs.remove(0)
}

fn keys(y: &yaml_rust2::Yaml) -> Vec<String> {
    y.as_hash()
        .map(|h| {
            h.keys()
                .filter_map(|k| k.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// Every `${{ ... }}` expression in `text`, trimmed.
fn expressions(text: &str) -> Vec<String> {
    text.match_indices("${{")
        .map(|(i, _)| {
            let rest = &text[i + 3..];
            let end = rest
                .find("}}")
                .unwrap_or_else(|| panic!("unclosed ${{{{ in {text}"));
            rest[..end].trim().to_string()
        })
        .collect()
}

/// Every string anywhere in a YAML value.
fn strings(y: &yaml_rust2::Yaml, out: &mut Vec<String>) {
    use yaml_rust2::Yaml;
    match y {
        Yaml::String(s) => out.push(s.clone()),
        Yaml::Array(a) => a.iter().for_each(|v| strings(v, out)),
        Yaml::Hash(h) => h.iter().for_each(|(k, v)| {
            strings(k, out);
            strings(v, out);
        }),
        _ => {}
    }
}

/// A step as GitHub runs it: exactly one of `run` and `uses`, a `shell`
/// beside a `run` where the caller needs one, only a step's keys.
fn check_step(step: &yaml_rust2::Yaml, needs_shell: bool, whose: &str) {
    let ks = keys(step);
    for k in &ks {
        assert!(
            [
                "name",
                "id",
                "if",
                "run",
                "uses",
                "with",
                "env",
                "shell",
                "working-directory",
                "continue-on-error",
                "timeout-minutes"
            ]
            .contains(&k.as_str()),
            "{whose}: {k} is not a key of a step"
        );
    }
    let run = step["run"].as_str();
    assert!(
        run.is_some() != step["uses"].as_str().is_some(),
        "{whose}: a step has run or uses, not both: {ks:?}"
    );
    if run.is_some() && needs_shell {
        assert!(
            step["shell"].as_str().is_some(),
            "{whose}: a composite run step needs a shell"
        );
    }
}

/// The workflows parse, and each job's steps are steps.
#[test]
fn the_workflows_are_valid_yaml_with_jobs_of_steps() {
    let mut n = 0;
    for entry in std::fs::read_dir(root().join(".github/workflows")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !name.ends_with(".yml") {
            continue;
        }
        n += 1;
        let rel = format!(".github/workflows/{name}");
        let doc = yaml(&rel);
        let top = keys(&doc);
        assert!(
            top.contains(&"on".into()) && top.contains(&"jobs".into()),
            "{rel}: {top:?}"
        );
        for (job, body) in doc["jobs"].as_hash().unwrap() {
            let job = job.as_str().unwrap();
            assert!(
                body["runs-on"].as_str().is_some(),
                "{rel}: job {job} has no runs-on"
            );
            let steps = body["steps"]
                .as_vec()
                .unwrap_or_else(|| panic!("{rel}: {job}: no steps"));
            for (i, step) in steps.iter().enumerate() {
                check_step(step, false, &format!("{rel}: {job} step {}", i + 1));
            }
        }
    }
    assert!(n >= 2, "nightly and release");
}

/// The composite Action (`action.yml`), parsed as GitHub reads it: only an
/// action's metadata keys, `runs.using: composite`, its steps well formed;
/// every input it declares is used by a step and every input a step uses
/// is declared; the binary it runs is the one the npm package it installs
/// puts there. Then its lint step's own script runs in bash as GitHub runs
/// it, on the fixture, with the real binary in the place the install step
/// gives it: the CLI accepts the command, the annotations and the SARIF
/// file come out, and the step's `sarif` output names that file.
#[test]
fn the_action_parses_uses_its_inputs_and_its_lint_step_runs() {
    let doc = yaml("action.yml");
    let top = keys(&doc);
    for key in ["name", "description", "runs"] {
        assert!(top.contains(&key.into()), "no top-level {key}: {top:?}");
    }
    for key in &top {
        assert!(
            [
                "name",
                "author",
                "description",
                "inputs",
                "outputs",
                "runs",
                "branding"
            ]
            .contains(&key.as_str()),
            "{key} is not a key of an action's metadata"
        );
    }
    assert_eq!(doc["runs"]["using"].as_str(), Some("composite"));
    let steps = doc["runs"]["steps"].as_vec().unwrap();
    assert_eq!(
        steps.len(),
        5,
        "install, lint, upload SARIF; diff, upload the site (harness/tests/site.rs)"
    );
    for (i, step) in steps.iter().enumerate() {
        check_step(step, true, &format!("action.yml step {}", i + 1));
    }
    let declared = keys(&doc["inputs"]);
    for name in &declared {
        let input = &doc["inputs"][name.as_str()];
        assert!(
            input["description"].as_str().is_some(),
            "input {name}: no description"
        );
    }
    // Inputs and step outputs, as the expressions use them.
    let mut used = Vec::new();
    let mut ids: Vec<String> = Vec::new();
    for step in steps {
        let mut texts = Vec::new();
        strings(step, &mut texts);
        for e in texts.iter().flat_map(|t| expressions(t)) {
            for word in e.split(|c: char| !(c.is_ascii_alphanumeric() || "._-".contains(c))) {
                if let Some(name) = word.strip_prefix("inputs.") {
                    assert!(
                        declared.contains(&name.to_string()),
                        "inputs.{name} is not declared"
                    );
                    used.push(name.to_string());
                }
                if let Some(rest) = word.strip_prefix("steps.") {
                    let id = rest.split('.').next().unwrap();
                    assert!(
                        ids.contains(&id.to_string()),
                        "steps.{id} is not an earlier step"
                    );
                }
            }
        }
        if let Some(id) = step["id"].as_str() {
            ids.push(id.to_string());
        }
    }
    for name in &declared {
        assert!(
            used.contains(name),
            "input {name} is declared but no step uses it"
        );
    }
    let mut out_texts = Vec::new();
    strings(&doc["outputs"], &mut out_texts);
    for e in out_texts.iter().flat_map(|t| expressions(t)) {
        let id = e
            .strip_prefix("steps.")
            .and_then(|r| r.split('.').next())
            .unwrap_or("");
        assert!(ids.contains(&id.to_string()), "output {e} names no step");
    }

    // The install step installs the launcher, whose bin the lint step runs.
    let install = steps[0]["run"].as_str().unwrap();
    assert!(
        install.contains("npm install")
            && install.contains("--prefix \"$RUNNER_TEMP/mastra-conform\""),
        "{install}"
    );
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("npm/mastra-conform/package.json")).unwrap(),
    )
    .unwrap();
    assert!(
        manifest["bin"]["mastra-conform"].is_string(),
        "{manifest:#}"
    );
    let lint = steps
        .iter()
        .find(|s| s["id"].as_str() == Some("lint"))
        .unwrap();
    let script = lint["run"].as_str().unwrap();
    assert!(
        script.contains("\"$RUNNER_TEMP/mastra-conform/node_modules/.bin/mastra-conform\""),
        "{script}"
    );
    assert_eq!(lint["shell"].as_str(), Some("bash"));
    let upload = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.contains("upload-sarif"))
        })
        .unwrap();
    assert_eq!(
        upload["uses"].as_str(),
        Some("github/codeql-action/upload-sarif@v3")
    );
    assert_eq!(
        upload["with"]["sarif_file"].as_str(),
        Some("${{ steps.lint.outputs.sarif }}")
    );

    // The lint step, run: its env with the inputs put in, bash as GitHub
    // starts it for `shell: bash`.
    let project = fixture_1_67().path().to_str().unwrap().to_string();
    let inputs = |name: &str| -> String {
        match name {
            "project" => project.clone(),
            "max-warnings" => "0".into(),
            other => doc["inputs"][other]["default"]
                .as_str()
                .unwrap_or("")
                .to_string(),
        }
    };
    let runner = crate::kept_tempdir();
    let bin_dir = runner.path().join("mastra-conform/node_modules/.bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_mastra-conform"),
        bin_dir.join("mastra-conform"),
    )
    .unwrap();
    let output_file = runner.path().join("github_output");
    std::fs::write(&output_file, "").unwrap();
    let script_file = runner.path().join("lint.sh");
    std::fs::write(&script_file, script).unwrap();
    let mut cmd = Command::new("bash");
    cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
        .arg(&script_file)
        .current_dir(root())
        .env("RUNNER_TEMP", runner.path())
        .env("GITHUB_OUTPUT", &output_file);
    for (k, v) in lint["env"].as_hash().unwrap() {
        let v = v.as_str().unwrap();
        let value = match expressions(v).as_slice() {
            [e] => inputs(e.strip_prefix("inputs.").unwrap_or_else(|| panic!("{e}"))),
            _ => v.to_string(),
        };
        cmd.env(k.as_str().unwrap(), value);
    }
    let out = cmd.output().unwrap();
    let shown = text(&out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the fixture's errors fail the step: {shown}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let annotations = stdout
        .lines()
        .filter(|l| l.starts_with("::error ") || l.starts_with("::warning "))
        .count();
    assert_eq!(annotations, 6, "{shown}");
    let outputs = std::fs::read_to_string(&output_file).unwrap();
    let sarif = outputs
        .lines()
        .find_map(|l| l.strip_prefix("sarif="))
        .unwrap_or_else(|| panic!("no sarif output: {outputs:?}"));
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sarif).unwrap()).unwrap();
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(
        log["runs"][0]["results"].as_array().map(Vec::len),
        Some(6),
        "{log:#}"
    );
}

/// The MCP fixture (`harness/tests/fixtures/lint-mcp/`), installed once:
/// its own `@mastra/core` 1.67.0 and the `@mastra/mcp` paired with it (the
/// 1.67.0 project with `@mastra/mcp` added).
fn fixture_mcp() -> &'static Installed {
    static ONCE: OnceLock<Installed> = OnceLock::new();
    ONCE.get_or_init(|| {
        let dir = crate::kept_tempdir();
        copy_tree(&root().join("harness/tests/fixtures/lint-mcp"), dir.path());
        install_upgrading(dir.path(), fixture_1_67());
        Installed { dir }
    })
}

/// `lint --project DIR --json` with the sandbox on (the machine's default)
/// or off (`MASTRA_CONFORM_SANDBOX=off`: the JavaScript guard alone).
fn lint_json(
    dir: &Path,
    sandbox: bool,
    extra: &[&str],
) -> (Option<i32>, serde_json::Value, String) {
    let mut cmd = bin();
    cmd.args(["lint", "--project"])
        .arg(dir)
        .arg("--json")
        .args(extra);
    if !sandbox {
        cmd.env("MASTRA_CONFORM_SANDBOX", "off");
    }
    let out = cmd.output().unwrap();
    let shown = text(&out);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is one JSON document ({e}): {shown}"));
    (out.status.code(), v, shown)
}

const MCP_FILE: &str = "src/mastra/mcp.ts";

/// An agent whose tools come from MCP servers: the server that cannot start
/// is a finding naming it, its error and where it is registered; the server
/// under a dotted key is one finding at that key, naming the rename, with
/// no finding per tool. Without the sandbox no stdio server starts, and
/// both are findings that say so: "no problems" is never claimed. Run with
/// the sandbox where this machine has one, and always without.
#[test]
fn mcp_servers_that_fail_to_start_or_sit_under_a_dotted_key_are_findings() {
    let dir = fixture_mcp().path();
    let (status, first, shown) = lint_json(dir, true, &[]);
    let mut runs = vec![(status, first, shown)];
    if runs[0].1["isolation"] == "sandbox" {
        runs.push(lint_json(dir, false, &[]));
    }
    for (status, v, shown) in runs {
        let sandboxed = v["isolation"] == "sandbox";
        assert_eq!(status, Some(0), "warnings only: {shown}");
        let agent = &v["agents"][0];
        assert_eq!(agent["registeredAs"], "filesAgent", "{v:#}");
        let servers = agent["mcp"].as_array().unwrap();
        let server = |name: &str| {
            servers
                .iter()
                .find(|s| s["server"] == name)
                .unwrap_or_else(|| panic!("no server {name}: {servers:#?}"))
        };
        let findings = agent["findings"].as_array().unwrap();
        let finding = |rule: &str, subject: &str| {
            findings
                .iter()
                .find(|f| f["rule"] == rule && f["subject"] == subject)
                .unwrap_or_else(|| panic!("no {rule} for {subject}: {findings:#?}"))
        };
        let at = |f: &serde_json::Value| {
            (
                f["at"]["file"].as_str().unwrap_or_default().to_string(),
                f["at"]["line"].as_u64().unwrap_or(0),
                f["at"]["column"].as_u64().unwrap_or(0),
            )
        };
        // The server that cannot start, in either isolation.
        let search = server("search");
        assert_eq!(search["status"], "failed", "{search:#}");
        let unavailable = finding("mcp-server-unavailable", "search");
        assert_eq!(at(unavailable), (MCP_FILE.into(), 15, 5), "{unavailable:#}");
        let says = unavailable["message"].as_str().unwrap();
        assert!(
            says.contains("\"search\"") && says.contains("tools are unknown"),
            "{says}"
        );
        if sandboxed {
            assert!(says.contains("ENOENT"), "the spawn's own error: {says}");
        } else {
            assert!(says.contains("without its OS sandbox"), "{says}");
        }
        let dotted = server("fs.local");
        if sandboxed {
            // Started inside the sandbox: its tools are known, and the one
            // fix is the server's key.
            assert_eq!(dotted["status"], "listed", "{dotted:#}");
            assert_eq!(
                dotted["tools"],
                serde_json::json!(["read_file", "list_dir"])
            );
            let renamed = finding("mcp-server-key-rewritten", "fs.local");
            assert_eq!(at(renamed), (MCP_FILE.into(), 10, 5), "{renamed:#}");
            let says = renamed["message"].as_str().unwrap();
            assert!(
                says.contains("rename the server \"fs.local\" to \"fs_local\"")
                    && says.contains("\"fs_local_read_file\"")
                    && says.contains("\"fs.local_list_dir\""),
                "{says}"
            );
            assert_eq!(
                findings.len(),
                2,
                "one finding per server, none per tool: {findings:#?}"
            );
        } else {
            assert_eq!(dotted["status"], "failed", "{dotted:#}");
            let unavailable = finding("mcp-server-unavailable", "fs.local");
            assert_eq!(at(unavailable), (MCP_FILE.into(), 10, 5), "{unavailable:#}");
            assert_eq!(findings.len(), 2, "{findings:#?}");
        }
        assert_eq!(v["summary"]["warnings"], 2, "{v:#}");
    }
}

/// The MCP policies fixture (`harness/tests/fixtures/lint-mcp-names/`),
/// installed once: `@mastra/core` 1.67.0 with `@mastra/mcp` 1.18.0.
fn fixture_mcp_names() -> &'static Installed {
    static ONCE: OnceLock<Installed> = OnceLock::new();
    ONCE.get_or_init(|| {
        let dir = crate::kept_tempdir();
        copy_tree(
            &root().join("harness/tests/fixtures/lint-mcp-names"),
            dir.path(),
        );
        install_project(dir.path());
        Installed { dir }
    })
}

/// A server-level requireToolApproval comparing the wire name, and an
/// agent-level one comparing the MCP name, are each one
/// `mcp-approval-policy-names-another-spelling` error at the string they
/// compare; a server and an agent whose policies compare the name each is
/// asked with get none. Without the OS sandbox no stdio server starts, no
/// tool is known, and the rule finds nothing.
#[test]
fn mcp_policies_comparing_the_other_spelling_are_errors_at_the_name() {
    const RULE: &str = "mcp-approval-policy-names-another-spelling";
    let dir = fixture_mcp_names().path();
    let (status, v, shown) = lint_json(dir, true, &[]);
    let agent = |name: &str| {
        v["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["registeredAs"] == name)
            .unwrap_or_else(|| panic!("no agent {name}: {v:#}"))
    };
    let of_rule = |name: &str| -> Vec<serde_json::Value> {
        agent(name)["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == RULE)
            .cloned()
            .collect()
    };
    if v["isolation"] != "sandbox" {
        let all = ["wireAgent", "listedAgent", "mcpNameAgent", "sentNameAgent"];
        assert!(all.iter().all(|a| of_rule(a).is_empty()), "{shown}");
        return;
    }
    assert_eq!(status, Some(1), "errors: {shown}");
    let at = |f: &serde_json::Value| {
        (
            f["at"]["file"].as_str().unwrap_or_default().to_string(),
            f["at"]["line"].as_u64().unwrap_or(0),
        )
    };
    let server = of_rule("wireAgent");
    assert_eq!(server.len(), 1, "{server:#?}");
    assert_eq!(server[0]["subject"], "fs_delete.file");
    assert_eq!(server[0]["severity"], "error");
    assert_eq!(
        at(&server[0]),
        ("src/mastra/mcp.ts".into(), 15),
        "{server:#?}"
    );
    let says = server[0]["message"].as_str().unwrap();
    assert!(
        says.contains("MCP server \"fs\" holds \"fs_delete_file\"")
            && says.contains("asks it with the tool's MCP name \"delete.file\""),
        "{says}"
    );
    let by_agent = of_rule("mcpNameAgent");
    assert_eq!(by_agent.len(), 1, "{by_agent:#?}");
    assert_eq!(by_agent[0]["subject"], "disk_delete.file");
    assert_eq!(
        at(&by_agent[0]),
        ("src/mastra/agents/files-agents.ts".into(), 29),
        "{by_agent:#?}"
    );
    let says = by_agent[0]["message"].as_str().unwrap();
    assert!(
        says.contains("holds the MCP name \"delete.file\"")
            && says.contains("the name the tool is sent as, \"disk_delete_file\""),
        "{says}"
    );
    // Where the names agree, nothing.
    assert!(of_rule("listedAgent").is_empty(), "{shown}");
    assert!(of_rule("sentNameAgent").is_empty(), "{shown}");
}

/// The guards fixture (`harness/tests/fixtures/lint-mcp-guards/`) with
/// `@mastra/core` CORE and the `@mastra/mcp` paired with it
/// (`version::extras`), copied and installed as a user would, over `base`
/// (`install_upgrading`).
fn install_guards(core: &str, mcp: &str, base: &Installed) -> Installed {
    let dir = crate::kept_tempdir();
    copy_tree(
        &root().join("harness/tests/fixtures/lint-mcp-guards"),
        dir.path(),
    );
    let (core_pin, mcp_pin) = (
        "\"@mastra/core\": \"1.67.0\"",
        "\"@mastra/mcp\": \"1.18.0\"",
    );
    let text = std::fs::read_to_string(dir.path().join("package.json")).unwrap();
    assert!(text.contains(core_pin) && text.contains(mcp_pin), "{text}");
    edit_manifest(
        dir.path(),
        core_pin,
        &format!("\"@mastra/core\": \"{core}\""),
    );
    edit_manifest(dir.path(), mcp_pin, &format!("\"@mastra/mcp\": \"{mcp}\""));
    install_upgrading(dir.path(), base);
    Installed { dir }
}

fn guards_1_67() -> &'static Installed {
    static ONCE: OnceLock<Installed> = OnceLock::new();
    ONCE.get_or_init(|| install_guards("1.67.0", "1.18.0", fixture_1_67()))
}

fn guards_1_0_4() -> &'static Installed {
    static ONCE: OnceLock<Installed> = OnceLock::new();
    ONCE.get_or_init(|| install_guards("1.0.4", "1.0.3", guards_1_67()))
}

/// The guards fixture linted on 1.67.0 and on 1.0.4, each as `(version,
/// JSON, shown)`, after checking the installed core.
fn guards_linted() -> Vec<(&'static str, serde_json::Value, String)> {
    [("1.67.0", guards_1_67()), ("1.0.4", guards_1_0_4())]
        .into_iter()
        .map(|(version, installed)| {
            assert_eq!(installed_core(installed.path()), version);
            let (status, v, shown) = lint_json(installed.path(), true, &[]);
            // Without the OS sandbox only the MCP-free rule finds an error,
            // and on 1.0.4 it finds none.
            if v["isolation"] == "sandbox" || version == "1.67.0" {
                assert_eq!(status, Some(1), "errors on {version}: {shown}");
            } else {
                assert_eq!(status, Some(0), "{shown}");
            }
            (version, v, shown)
        })
        .collect()
}

/// The findings of RULE in the agent registered as NAME: `(subject, file,
/// line)`, sorted.
fn agent_rule(v: &serde_json::Value, name: &str, rule: &str) -> Vec<(String, String, u64)> {
    let agent = v["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["registeredAs"] == name)
        .unwrap_or_else(|| panic!("no agent {name}: {v:#}"));
    let mut out: Vec<(String, String, u64)> = agent["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule)
        .map(|f| {
            (
                f["subject"].as_str().unwrap().to_string(),
                f["at"]["file"].as_str().unwrap_or_default().to_string(),
                f["at"]["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    out.sort();
    out
}

/// The message of the one finding of RULE in agent NAME.
fn agent_message(v: &serde_json::Value, name: &str, rule: &str) -> String {
    let agent = v["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["registeredAs"] == name)
        .unwrap();
    let found: Vec<&serde_json::Value> = agent["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule)
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    found[0]["message"].as_str().unwrap().to_string()
}

/// The message of the one finding of RULE about SUBJECT in the agent
/// registered as NAME.
fn agent_message_on(v: &serde_json::Value, name: &str, rule: &str, subject: &str) -> String {
    let agent = v["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["registeredAs"] == name)
        .unwrap();
    let found: Vec<&serde_json::Value> = agent["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule && f["subject"] == subject)
        .collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    found[0]["message"].as_str().unwrap().to_string()
}

fn placed(rows: &[(&str, &str, u64)]) -> Vec<(String, String, u64)> {
    let mut out: Vec<(String, String, u64)> = rows
        .iter()
        .map(|(s, f, l)| (s.to_string(), f.to_string(), *l))
        .collect();
    out.sort();
    out
}

const LISTING: &str = "src/mastra/agents/listing.ts";

/// An agent that takes an MCP server's tools by `listToolsets()` and
/// names them as `listTools()` has them (toolChoice, activeTools, its
/// policy), and one that does the reverse: each name one
/// `mcp-tool-named-by-the-other-listing` error at its line, in place of
/// the generic toolChoice and activeTools findings. On 1.0.4 activeTools
/// is ignored and the policy is not asked (any function holds every
/// call), so the toolChoice alone is reported. An agent whose names agree
/// with its listing gets nothing. Without the OS sandbox no stdio server
/// starts, no MCP tool is known, and the rule finds nothing.
#[test]
fn mcp_tools_named_by_the_other_listing_are_errors_at_the_name() {
    const RULE: &str = "mcp-tool-named-by-the-other-listing";
    for (version, v, shown) in guards_linted() {
        let of = |name: &str| agent_rule(&v, name, RULE);
        if v["isolation"] != "sandbox" {
            for a in [
                "toolsetsAgent",
                "toolsAgent",
                "agreeingAgent",
                "callsAgent",
                "agreeingCallsAgent",
            ] {
                assert_eq!(of(a), [], "{version}: {shown}");
            }
            continue;
        }
        let mut toolsets = vec![("fs_delete_file", LISTING, 13)];
        if version == "1.67.0" {
            toolsets.extend([
                ("fs_delete.file", LISTING, 14),
                ("delete.file", LISTING, 15),
            ]);
        }
        assert_eq!(of("toolsetsAgent"), placed(&toolsets), "{version}: {shown}");
        assert_eq!(
            of("toolsAgent"),
            placed(&[("delete_file", LISTING, 28)]),
            "{version}: {shown}"
        );
        assert_eq!(of("agreeingAgent"), [], "{version}: {shown}");
        // The same names in a call that passes the server's toolsets, and
        // the policy of the agent the call is made on.
        let mut calls = vec![("fs_delete_file", RUN, 19)];
        if version == "1.67.0" {
            calls.extend([("fs_delete.file", RUN, 20), ("delete.file", LISTING, 53)]);
        }
        assert_eq!(of("callsAgent"), placed(&calls), "{version}: {shown}");
        assert_eq!(of("agreeingCallsAgent"), [], "{version}: {shown}");
        let says = agent_message_on(&v, "callsAgent", RULE, "fs_delete_file");
        assert!(
            says.contains("\"fs_delete_file\" passed to callsAgent.generate() names MCP server \"fs\"'s tool \"delete.file\"")
                && says.contains("by listToolsets(), which sends it as \"delete_file\"")
                && says.ends_with("use \"delete_file\""),
            "{says}"
        );
        for (agent, generic) in [
            ("toolsetsAgent", "tool-choice-names-no-tool-sent"),
            ("toolsetsAgent", "active-tools-names-no-tool-sent"),
            ("toolsAgent", "tool-choice-names-no-tool-sent"),
            ("agreeingAgent", "tool-choice-names-no-tool-sent"),
            ("agreeingAgent", "active-tools-names-no-tool-sent"),
        ] {
            assert_eq!(
                agent_rule(&v, agent, generic),
                [],
                "{version} {agent}: {shown}"
            );
        }
        let says = agent_message(&v, "toolsAgent", RULE);
        assert!(
            says.starts_with("toolChoice \"delete_file\" names MCP server \"fs\"'s tool \"fs_delete.file\" as listToolsets() sends it")
                && says.contains("takes the server's tools by listTools(), which sends it as \"fs_delete_file\"")
                && says.ends_with("use \"fs_delete_file\""),
            "{says}"
        );
    }
}

/// A server's own `requireToolApproval: true`, which the `@mastra/mcp`
/// beside 1.0.4 never reads: one `mcp-server-policy-ignored` error at the
/// option, naming the tools that run unapproved and what holds instead;
/// none for the agent whose own policy holds the same tools, and none on
/// 1.67.0, where the server's setting holds them.
#[test]
fn a_server_policy_the_installed_mcp_ignores_is_an_error_before_1_25_0() {
    const RULE: &str = "mcp-server-policy-ignored";
    for (version, v, shown) in guards_linted() {
        let of = |name: &str| agent_rule(&v, name, RULE);
        assert_eq!(of("heldAgent"), [], "{version}: {shown}");
        if version == "1.67.0" || v["isolation"] != "sandbox" {
            assert_eq!(of("guardedAgent"), [], "{version}: {shown}");
            continue;
        }
        assert_eq!(
            of("guardedAgent"),
            placed(&[("vault", "src/mastra/mcp.ts", 26)]),
            "{shown}"
        );
        let says = agent_message(&v, "guardedAgent", RULE);
        assert!(
            says.contains("its requireToolApproval: true is ignored")
                && says.contains("\"vault_delete_file\", \"vault_list_files\" run unapproved")
                && says.contains("upgrade to @mastra/core 1.25.0 or later"),
            "{says}"
        );
    }
}

/// A tool's own `requireApproval` function beside a `requireToolApproval:
/// true` the sources pass to `generate()` on its agent: from 1.26.0 the
/// function decides in the call's place, an error at the tool's key; a
/// tool whose own setting is `true` is none, and 1.0.4 (which never asks
/// the function) reports nothing.
#[test]
fn a_tools_approval_function_beside_a_calls_require_tool_approval_true_is_an_error() {
    const RULE: &str = "tool-approval-fn-overrides-agent-policy";
    for (version, v, shown) in guards_linted() {
        let of = |name: &str| agent_rule(&v, name, RULE);
        assert_eq!(of("wiperAgent"), [], "{version}: {shown}");
        if version == "1.0.4" {
            assert_eq!(of("cleanerAgent"), [], "{shown}");
            continue;
        }
        assert_eq!(
            of("cleanerAgent"),
            placed(&[("deleteFile", "src/mastra/agents/calls.ts", 9)]),
            "{shown}"
        );
        let says = agent_message(&v, "cleanerAgent", RULE);
        assert!(
            says.contains(
                "the requireToolApproval: true passed to cleanerAgent.generate() holds it"
            ),
            "{says}"
        );
    }
}

/// One of this repository's 0.x project shapes
/// (`harness/tests/fixtures/NAME/`), copied and installed as a user would.
fn install_shape(name: &str) -> Installed {
    let dir = crate::kept_tempdir();
    copy_tree(
        &root().join("harness/tests/fixtures").join(name),
        dir.path(),
    );
    install_project(dir.path());
    Installed { dir }
}

/// Before `formatTools` (as template-openai-oss is): 0.12.1.
fn fixture_0_12() -> &'static Installed {
    static ONCE: OnceLock<Installed> = OnceLock::new();
    ONCE.get_or_init(|| install_shape("lint-project-0.12"))
}

/// After `formatTools` (as template-meeting-scheduler is): 0.21.1.
fn fixture_0_21() -> &'static Installed {
    static ONCE: OnceLock<Installed> = OnceLock::new();
    ONCE.get_or_init(|| install_shape("lint-project-0.21"))
}

fn rules_of(agent: &serde_json::Value) -> Vec<(String, String, String)> {
    agent["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["severity"].as_str().unwrap().to_string(),
                f["rule"].as_str().unwrap().to_string(),
                f["subject"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// (key now, sent now, key on 1.x, sent on 1.x, problem on 1.x) of each
/// key the upgrade view lists.
fn upgrade_keys(agent: &serde_json::Value) -> Vec<[String; 5]> {
    let s = |v: &serde_json::Value| v.as_str().unwrap_or("(none)").to_string();
    agent["upgrade"]["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            [
                s(&k["now"]["key"]),
                s(&k["now"]["sentAs"]),
                s(&k["then"]["key"]),
                s(&k["then"]["sentAs"]),
                s(&k["then"]["problem"]),
            ]
        })
        .collect()
}

fn upgrade_names(agent: &serde_json::Value) -> Vec<[String; 4]> {
    agent["upgrade"]["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| ["usedIn", "name", "now", "then"].map(|f| n[f].as_str().unwrap().to_string()))
        .collect()
}

fn owned<const N: usize>(rows: &[[&str; N]]) -> Vec<[String; N]> {
    rows.iter().map(|r| r.map(str::to_string)).collect()
}

const WEATHER: &str = "src/mastra/agents/weather-agent.ts";
const SCHEDULER: &str = "src/mastra/agents/scheduler-agent.ts";

/// 0.12.1 has no `formatTools`: every key goes out as registered, so a
/// dotted key is no rewrite but a name the provider rejects, two keys that
/// would collide on 1.x are both sent, `toolChoice` by key matches, and
/// `activeTools` is ignored. The upgrade view says what 1.x makes of each.
#[test]
fn lint_project_on_0_12_1_judges_keys_as_sent_and_gives_the_upgrade_view() {
    let dir = fixture_0_12().path();
    assert_eq!(installed_core(dir), "0.12.1");
    let (code, v, _) = lint_json(dir, true, &[]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["mastra"], "0.12.1");
    let agent = &v["agents"][0];
    assert_eq!(agent["registeredAs"], "weatherAgent");
    assert_eq!(agent["route"]["kind"], "sdk", "an AI SDK v4 model object");
    let tools = agent["tools"].as_array().unwrap();
    let column = |k: &str| -> Vec<String> {
        tools
            .iter()
            .map(|t| t[k].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        column("key"),
        ["weather.forecast", "weather forecast", "1tool"]
    );
    assert_eq!(column("sentAs"), column("key"), "sent as registered");
    // Each is a key formatTools would change; "1tool" only in its first
    // character, which OpenAI's rule allows: no finding for it.
    assert_eq!(column("problem"), ["unformatted"; 3]);
    assert_eq!(
        rules_of(agent),
        [
            ("error", "provider-rejects-tool-name", "weather.forecast"),
            ("error", "provider-rejects-tool-name", "weather forecast"),
        ]
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
    );
    assert_eq!(
        agent["notes"][0],
        "activeTools is ignored by @mastra/core 0.12.1 (applied on 0.20.0 to 0.24.9 and from 1.1.0)"
    );
    assert_eq!(
        upgrade_keys(agent),
        owned(&[
            [
                "weather.forecast",
                "weather.forecast",
                "weather.forecast",
                "weather_forecast",
                "rewritten"
            ],
            [
                "weather forecast",
                "weather forecast",
                "weather forecast",
                "(none)",
                "collision"
            ],
            ["1tool", "1tool", "1tool", "_1tool", "rewritten"],
        ])
    );
    assert_eq!(
        upgrade_names(agent),
        owned(&[
            [
                "toolChoice",
                "weather.forecast",
                "matches",
                "matches-nothing"
            ],
            [
                "activeTools",
                "weather.forecast",
                "ignored",
                "matches-nothing"
            ],
        ])
    );

    let out = lint_project(dir, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("{WEATHER}:11:"))
            && stdout.contains("\"weather.forecast\" -> \"weather.forecast\": openai (AI SDK model gpt-4o-mini) rejects this function name"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\"weather forecast\": sent as \"weather forecast\", which openai (AI SDK model gpt-4o-mini) rejects -> fails: collides with \"weather.forecast\""),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .last()
            .unwrap()
            .contains("@mastra/core 0.12.1"),
        "{stdout}"
    );
}

/// 0.21.1 rewrites as 1.x does, names a sub-agent and a workflow by their
/// keys, and applies `activeTools` by sent name: the findings are 1.x's on
/// those keys, and the upgrade view lists what 1.x names differently.
#[test]
fn lint_project_on_0_21_1_judges_by_its_model_and_gives_the_upgrade_view() {
    let dir = fixture_0_21().path();
    assert_eq!(installed_core(dir), "0.21.1");
    let (code, v, _) = lint_json(dir, true, &[]);
    assert_eq!(code, Some(1), "{v}");
    let agent = &v["agents"][0];
    assert_eq!(agent["registeredAs"], "schedulerAgent");
    let tools = agent["tools"].as_array().unwrap();
    let column = |k: &str| -> Vec<String> {
        tools
            .iter()
            .map(|t| t[k].as_str().unwrap_or("(none)").to_string())
            .collect()
    };
    assert_eq!(
        column("key"),
        [
            "calendar.list",
            "search.web",
            "search web",
            "notes.agent",
            "digest"
        ]
    );
    assert_eq!(
        column("source"),
        ["tool", "tool", "tool", "agent", "workflow"]
    );
    assert_eq!(
        column("sentAs"),
        [
            "calendar_list",
            "search_web",
            "(none)",
            "notes_agent",
            "digest"
        ]
    );
    let rules = rules_of(agent);
    let has = |sev: &str, rule: &str, subject: &str| {
        rules
            .iter()
            .any(|r| (r.0.as_str(), r.1.as_str(), r.2.as_str()) == (sev, rule, subject))
    };
    assert!(
        has("error", "tool-name-collision", "search web"),
        "{rules:?}"
    );
    assert!(
        has("error", "active-tools-names-no-tool-sent", "calendar.list"),
        "activeTools is applied on 0.21.1: {rules:?}"
    );
    assert!(
        !rules
            .iter()
            .any(|r| r.2 == "notes_agent" || r.2 == "calendar_list"),
        "names that match what is sent: {rules:?}"
    );
    assert!(agent["notes"].as_array().unwrap().is_empty(), "{v}");
    assert_eq!(
        upgrade_keys(agent),
        owned(&[
            [
                "notes.agent",
                "notes_agent",
                "agent-notes.agent",
                "agent-notes_agent",
                "rewritten"
            ],
            [
                "digest",
                "digest",
                "workflow-digest",
                "workflow-digest",
                "none"
            ],
        ])
    );
    assert_eq!(
        upgrade_names(agent),
        owned(&[["activeTools", "notes_agent", "matches", "matches-nothing"]])
    );
    let notes_agent = &v["agents"][1];
    assert_eq!(notes_agent["registeredAs"], "notesAgent");
    assert_eq!(notes_agent["upgrade"]["keys"], serde_json::json!([]));

    let out = lint_project(dir, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("{SCHEDULER}:15:"))
            && stdout.contains("\"search web\" -> (not sent): collision"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\"notes.agent\" (1.x names it \"agent-notes.agent\"): sent as \"notes_agent\" -> sent as \"agent-notes_agent\""),
        "{stdout}"
    );
    assert!(
        stdout.contains("nothing these keys send changes on the newest 1.x"),
        "the notes agent: {stdout}"
    );
}

const FILES: &str = "src/mastra/agents/files-agent.ts";

/// On 0.21.1 a call held for approval runs before its answer
/// (`APPROVAL_HELD_CALL_RUNS`): the files agent's default-options
/// `requireToolApproval: true` and its tool's own `requireApproval` are
/// each an `approval-held-call-runs-on-0x` error at the setting, with the
/// upgrade that holds; the agents without approval have none. The same
/// project on 0.23.1, where the held call waits, has none.
#[test]
fn lint_project_on_0_21_1_reports_each_approval_setting_with_the_release_that_holds() {
    const RULE: &str = "approval-held-call-runs-on-0x";
    let dir = fixture_0_21().path();
    let (code, v, shown) = lint_json(dir, true, &[]);
    assert_eq!(code, Some(1), "{shown}");
    assert_eq!(
        agent_rule(&v, "filesAgent", RULE),
        placed(&[("filesAgent", FILES, 15), ("files.delete", FILES, 11)]),
        "{shown}"
    );
    assert_eq!(agent_rule(&v, "schedulerAgent", RULE), [], "{shown}");
    assert_eq!(agent_rule(&v, "notesAgent", RULE), [], "{shown}");
    for subject in ["filesAgent", "files.delete"] {
        let says = agent_message_on(&v, "filesAgent", RULE, subject);
        assert!(
            says.contains("@mastra/core 0.21.1 (as every release from 0.20.0 to 0.22.2) runs a call held for approval before it is answered")
                && says.contains("upgrade @mastra/core to 0.23.1 or later"),
            "{says}"
        );
    }
    let severities: Vec<&str> = v["agents"][2]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == RULE)
        .map(|f| f["severity"].as_str().unwrap())
        .collect();
    assert_eq!(severities, ["error", "error"], "{shown}");

    // The fix: the same sources on the first release that holds.
    let upgraded = crate::install_tempdir();
    copy_tree(
        &root().join("harness/tests/fixtures/lint-project-0.21"),
        upgraded.path(),
    );
    edit_manifest(
        upgraded.path(),
        "\"@mastra/core\": \"0.21.1\"",
        "\"@mastra/core\": \"0.23.1\"",
    );
    install_upgrading(upgraded.path(), fixture_0_21());
    assert_eq!(installed_core(upgraded.path()), "0.23.1");
    let (_, v, shown) = lint_json(upgraded.path(), true, &[]);
    assert_eq!(agent_rule(&v, "filesAgent", RULE), [], "{shown}");
}

/// The names fixture (`harness/tests/fixtures/lint-names/`), installed once
/// with its own `@mastra/core` 1.67.0.
fn fixture_names() -> &'static Installed {
    static ONCE: OnceLock<Installed> = OnceLock::new();
    ONCE.get_or_init(|| install_shape("lint-names"))
}

const POLICIES: &str = "src/mastra/agents/policies.ts";

/// Every finding of a `lint --project --json` document, the agent's
/// registered name first (`project` for the project's own): `(who, rule,
/// subject, "file:line:col")`.
fn placed_findings(v: &serde_json::Value, field: &str) -> Vec<(String, String, String, String)> {
    let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    let row = |who: &str, f: &serde_json::Value| {
        (
            who.to_string(),
            s(&f["rule"]),
            s(&f["subject"]),
            format!(
                "{}:{}:{}",
                s(&f["at"]["file"]),
                f["at"]["line"],
                f["at"]["column"]
            ),
        )
    };
    let mut out: Vec<_> = v["agents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|a| {
            let who = s(&a["registeredAs"]);
            a[field]
                .as_array()
                .unwrap()
                .iter()
                .map(move |f| row(&who, f))
                .collect::<Vec<_>>()
        })
        .collect();
    out.extend(
        v[field]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| row("project", f)),
    );
    out.sort();
    out
}

fn rows(rows: &[[&str; 4]]) -> Vec<(String, String, String, String)> {
    let mut out: Vec<_> = rows
        .iter()
        .map(|[a, b, c, d]| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
        .collect();
    out.sort();
    out
}

const APPROVAL: &str = "approval-policy-decides-on-the-key";
const LOST: &str = "approval-policy-lost-on-resume";
const RUN: &str = "src/mastra/run.ts";
const INSTRUCTIONS: &str = "instructions-name-a-tool-not-sent";
const COMPARED: &str = "tool-name-compared-to-key";
const FILTER: &str = "tool-call-filter-names-a-key";
const HAS_CALL: &str = "has-tool-call-names-a-key";
const EXPECTED: &str = "expected-tool-names-a-key";
/// Names handed to ToolCallFilter, hasToolCall and a tool-call accuracy
/// scorer: a rewritten key and an id each, and a sent name that is no finding.
const EVALS: &str = "src/mastra/evals.ts";

/// The policies, instructions and comparisons of the names fixture, each
/// at the string that names a key or id: a policy written with `===`,
/// `switch`, `Set.has`, a map keyed by the id, an async one reading the
/// request context, one reading `args`, one inside a `defaultOptions`
/// function; instructions as a string and from a function. The policy
/// that names wire names lets a call by each tool's id through (the id
/// fallback: a finding at each wire name it writes); the one that throws
/// for every name alike gives no approval finding; a tool with
/// `requireApproval: true` is never one; a comparison inside a policy with its finding is that finding's.
/// On 1.67.0 the two functions `run.ts` passes to `generate` and `stream`
/// are lost on resume, each a finding at its `requireToolApproval`; the
/// agents' default-options functions are kept, and `true` is no function.
#[test]
fn the_names_a_project_writes_are_found_at_their_lines_on_1_67_0() {
    let dir = fixture_names().path();
    let (status, v, shown) = lint_json(dir, true, &[]);
    assert_eq!(status, Some(1), "errors: {shown}");
    assert_eq!(v["mastra"], "1.67.0", "{v:#}");
    let at = |line: u32, col: u32| format!("{POLICIES}:{line}:{col}");
    let expected = [
        ["equalsAgent", APPROVAL, "files.delete", &at(13, 57)],
        ["switchAgent", APPROVAL, "mail.send", &at(26, 14)],
        ["setAgent", APPROVAL, "files.delete", &at(35, 28)],
        ["setAgent", APPROVAL, "mail.send", &at(35, 44)],
        ["mapAgent", APPROVAL, "files.delete", &at(49, 3)],
        ["asyncAgent", APPROVAL, "search.web", &at(72, 47)],
        ["argsAgent", APPROVAL, "mail.send", &at(85, 20)],
        [
            "functionDefaultsAgent",
            APPROVAL,
            "files.delete",
            &at(97, 57),
        ],
        ["wireNamesAgent", APPROVAL, "files.delete", &at(108, 57)],
        ["wireNamesAgent", APPROVAL, "mail.send", &at(108, 88)],
        ["equalsAgent", INSTRUCTIONS, "search.web", &at(9, 17)],
        [
            "functionDefaultsAgent",
            INSTRUCTIONS,
            "delete-file",
            &at(93, 17),
        ],
        ["project", LOST, "equalsAgent", &format!("{RUN}:6:5")],
        ["project", LOST, "setAgent", &format!("{RUN}:14:51")],
        ["project", COMPARED, "disk.wipe", &at(13, 88)],
        [
            "project",
            COMPARED,
            "search.web",
            "src/mastra/stream-log.ts:8:66",
        ],
        ["project", FILTER, "files.delete", &format!("{EVALS}:6:61")],
        ["project", HAS_CALL, "send-email", &format!("{EVALS}:9:41")],
        ["project", EXPECTED, "search.web", &format!("{EVALS}:11:16")],
        ["project", EXPECTED, "search", &format!("{EVALS}:14:79")],
    ];
    assert_eq!(placed_findings(&v, "findings"), rows(&expected), "{shown}");
    assert_eq!(v["summary"]["errors"], 12, "{v:#}");
    assert_eq!(v["summary"]["warnings"], 8, "{v:#}");
    // The configuration's "tool-key-rewritten": "off", four keys per agent.
    assert_eq!(v["summary"]["suppressed"], 36, "{v:#}");

    let message = |who: &str, rule: &str, subject: &str| -> String {
        let list = if who == "project" {
            &v["findings"]
        } else {
            &v["agents"]
                .as_array()
                .unwrap()
                .iter()
                .find(|a| a["registeredAs"] == who)
                .unwrap()["findings"]
        };
        list.as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == rule && f["subject"] == subject)
            .unwrap()["message"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let says = message("equalsAgent", APPROVAL, "files.delete");
    assert!(
        says.starts_with("\"files.delete\" runs without approval")
            && says.contains("asks it with the name the tool is sent as, \"files_delete\", where it answers false")
            && says.contains("from 1.38.0"),
        "{says}"
    );
    let says = message("mapAgent", APPROVAL, "files.delete");
    assert!(says.contains("for the id \"delete-file\""), "{says}");
    let says = message("wireNamesAgent", APPROVAL, "files.delete");
    assert!(
        says.starts_with("\"files.delete\" runs without approval when the model calls it by its id \"delete-file\"")
            && says.contains("give the tool requireApproval: true in createTool"),
        "{says}"
    );
    let says = message("functionDefaultsAgent", INSTRUCTIONS, "delete-file");
    assert!(says.contains("the model sees \"files_delete\""), "{says}");
    let says = message("project", COMPARED, "search.web");
    assert!(says.contains("compare with \"search_web\""), "{says}");
    let says = message("project", FILTER, "files.delete");
    assert!(
        says.starts_with("ToolCallFilter excludes \"files.delete\", a key Mastra rewrites")
            && says.ends_with("write \"files_delete\""),
        "{says}"
    );
    let says = message("project", HAS_CALL, "send-email");
    assert!(
        says.contains("\"send-email\", a tool's id") && says.ends_with("write \"mail_send\""),
        "{says}"
    );
}

/// The same findings in the other renderings: text at `file:line:col`, a
/// GitHub annotation with the rule as its title, SARIF results with their
/// rules; a comment and the configuration suppress them.
#[test]
fn the_names_rules_render_and_are_suppressed_as_every_rule() {
    let dir = fixture_names().path();
    let out = lint_project(dir, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout
            .lines()
            .any(|l| l.contains(&format!("{POLICIES}:13:57"))
                && l.trim_start().starts_with("error")
                && l.contains(APPROVAL)),
        "{stdout}"
    );
    let out = lint_project(dir, &["--format", "github"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.lines().any(|l| l.starts_with(&format!(
            "::error file={POLICIES},line=97,col=57,title={APPROVAL}::agent \"functionDefaultsAgent\": "
        ))),
        "{stdout}"
    );
    assert!(
        stdout.lines().any(|l| l.starts_with(&format!(
            "::warning file=src/mastra/stream-log.ts,line=8,col=66,title={COMPARED}::"
        ))),
        "{stdout}"
    );
    let sarif = tempfile::NamedTempFile::new().unwrap();
    let out = lint_project(dir, &["--sarif", sarif.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sarif.path()).unwrap()).unwrap();
    let run = &log["runs"][0];
    for rule in [APPROVAL, LOST, INSTRUCTIONS, COMPARED] {
        assert!(
            run["tool"]["driver"]["rules"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["id"] == rule
                    && r["helpUri"]
                        .as_str()
                        .unwrap()
                        .ends_with(&format!("{rule}.md"))),
            "{rule}: {run:#}"
        );
        assert!(
            run["results"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["ruleId"] == rule),
            "{rule}: {run:#}"
        );
    }

    // A comment on the policy's line, and the configuration.
    let copy = crate::kept_tempdir();
    copy_tree(
        &root().join("harness/tests/fixtures/lint-names"),
        copy.path(),
    );
    std::os::unix::fs::symlink(dir.join("node_modules"), copy.path().join("node_modules")).unwrap();
    let policies = copy.path().join(POLICIES);
    let text_of = std::fs::read_to_string(&policies).unwrap();
    std::fs::write(
        &policies,
        text_of.replace(
            "toolName === 'disk.wipe',",
            &format!("toolName === 'disk.wipe', // mastra-conform-ignore {APPROVAL}, {COMPARED}"),
        ),
    )
    .unwrap();
    std::fs::write(
        copy.path().join("mastra-conform.json"),
        format!(r#"{{ "rules": {{ "tool-key-rewritten": "off", "{INSTRUCTIONS}": "off" }} }}"#),
    )
    .unwrap();
    let (_, v, shown) = lint_json(copy.path(), true, &[]);
    let found = placed_findings(&v, "findings");
    assert!(
        !found.iter().any(|f| f.1 == INSTRUCTIONS
            || f.3 == format!("{POLICIES}:13:57")
            || f.3 == format!("{POLICIES}:13:88")),
        "{found:#?}"
    );
    let suppressed = placed_findings(&v, "suppressed");
    for (rule, place) in [
        (APPROVAL, format!("{POLICIES}:13:57")),
        (COMPARED, format!("{POLICIES}:13:88")),
        (INSTRUCTIONS, format!("{POLICIES}:9:17")),
    ] {
        assert!(
            suppressed.iter().any(|f| f.1 == rule && f.3 == place),
            "{rule} at {place}: {shown}"
        );
    }
}

/// The `approval-policy-lost-on-resume` findings of a `lint --project
/// --json` document (the project's own): `(subject, place, message)`.
fn lost_on_resume(v: &serde_json::Value) -> Vec<(String, String, String)> {
    let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == LOST)
        .map(|f| {
            (
                s(&f["subject"]),
                format!(
                    "{}:{}:{}",
                    s(&f["at"]["file"]),
                    f["at"]["line"],
                    f["at"]["column"]
                ),
                s(&f["message"]),
            )
        })
        .collect()
}

/// `approval-policy-lost-on-resume` on the names fixture's installed
/// `@mastra/core` 1.67.0 (past the table line's 1.38.0): the function
/// `run.ts` writes in a `generate()` call, and the one it binds to a name
/// and passes to `stream()`, are each an error (exit 1) at their
/// `requireToolApproval`, with the fix; the `requireToolApproval: true` of
/// the third call, and the nine agents' default-options functions (which
/// a resumed run keeps), are none. Replacing the first function with the
/// fix the finding gives clears it.
#[test]
fn a_policy_function_is_lost_on_resume_on_1_67_0() {
    let dir = fixture_names().path();
    let (status, v, shown) = lint_json(dir, true, &[]);
    assert_eq!(status, Some(1), "errors: {shown}");
    assert_eq!(v["mastra"], "1.67.0", "{v:#}");
    let found = lost_on_resume(&v);
    let placed: Vec<(&str, &str)> = found.iter().map(|f| (f.0.as_str(), f.1.as_str())).collect();
    let (generate, stream) = (format!("{RUN}:6:5"), format!("{RUN}:14:51"));
    assert_eq!(
        placed,
        [
            ("equalsAgent", generate.as_str()),
            ("setAgent", stream.as_str())
        ],
        "{shown}"
    );
    let says = &found[0].2;
    assert!(
        says.starts_with("after an approval resumes the run, later calls run without approval")
            && says.contains("@mastra/core 1.67.0 (as every release from 1.38.0)")
            && says.contains("passed to equalsAgent.generate()")
            && says.contains("mark the gated tools `requireApproval: true` in createTool, or pass `requireToolApproval: true`"),
        "{says}"
    );
    assert!(
        found[1].2.contains("passed to setAgent.stream()"),
        "{}",
        found[1].2
    );
    assert!(
        v["agents"].as_array().unwrap().iter().all(|a| a["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["rule"] != LOST)),
        "no default-options function is lost: {v:#}"
    );

    let copy = crate::kept_tempdir();
    copy_tree(
        &root().join("harness/tests/fixtures/lint-names"),
        copy.path(),
    );
    std::os::unix::fs::symlink(dir.join("node_modules"), copy.path().join("node_modules")).unwrap();
    let run = copy.path().join(RUN);
    let written = std::fs::read_to_string(&run).unwrap();
    let function = "requireToolApproval: ({ toolName }) => toolName === 'mail_send',";
    assert!(written.contains(function), "the generate() call's policy");
    std::fs::write(
        &run,
        written.replace(function, "requireToolApproval: true,"),
    )
    .unwrap();
    let (status, v, shown) = lint_json(copy.path(), true, &[]);
    assert_eq!(
        status,
        Some(1),
        "the stream() call's error remains: {shown}"
    );
    let found = lost_on_resume(&v);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].0, "setAgent", "{found:#?}");
}

/// Below the table line's first release a `requireToolApproval` function
/// holds every call, resumed or not: the names fixture installed with
/// `@mastra/core` 1.37.1, the last release before 1.38.0, gives no
/// `approval-policy-lost-on-resume` finding (its other errors remain).
#[test]
fn a_policy_function_is_not_lost_on_resume_on_1_37_1() {
    let dir = crate::install_tempdir();
    copy_tree(
        &root().join("harness/tests/fixtures/lint-names"),
        dir.path(),
    );
    edit_manifest(
        dir.path(),
        "\"@mastra/core\": \"1.67.0\"",
        "\"@mastra/core\": \"1.37.1\"",
    );
    install_upgrading(dir.path(), fixture_names());
    let (status, v, shown) = lint_json(dir.path(), true, &[]);
    assert_eq!(v["mastra"], "1.37.1", "{v:#}");
    assert_eq!(status, Some(1), "the key policies' errors: {shown}");
    assert_eq!(lost_on_resume(&v), [], "{shown}");
}

/// A loader fault's project (`harness/tests/fixtures/lint-faults/NAME/`) in
/// a folder of its own with the MCP fixture's installed packages (the same
/// dependencies), or none when `installed` is false.
fn fault_project(name: &str, installed: bool) -> tempfile::TempDir {
    let dir = crate::kept_tempdir();
    copy_tree(
        &root().join("harness/tests/fixtures/lint-faults").join(name),
        dir.path(),
    );
    if installed {
        std::os::unix::fs::symlink(
            fixture_mcp().path().join("node_modules"),
            dir.path().join("node_modules"),
        )
        .unwrap();
    }
    dir
}

/// An MCP client's `listTools()` wrapped in a helper of the project's, its
/// one server failing: the failure belongs to the agent that spreads the
/// helper's tools, which is never called clean, and not to the project.
#[test]
fn loader_fault_an_mcp_helper_ties_its_failing_server_to_the_agent() {
    let dir = fault_project("mcp-helper", true);
    for sandbox in isolations() {
        let (status, v, shown) = lint_json(dir.path(), *sandbox, &[]);
        assert_eq!(status, Some(0), "a warning: {shown}");
        let agent = &v["agents"][0];
        assert_eq!(agent["registeredAs"], "docsAgent", "{v:#}");
        let findings = agent["findings"].as_array().unwrap();
        assert!(
            findings
                .iter()
                .any(|f| f["rule"] == "mcp-server-unavailable"
                    && f["subject"] == "docs"
                    && f["at"]["file"] == "src/mastra/mcp.ts"
                    && f["at"]["line"] == 7),
            "{findings:#?}"
        );
        assert_eq!(
            v["findings"],
            serde_json::json!([]),
            "nothing under the project: {v:#}"
        );
        assert_eq!(v["mcp"], serde_json::json!([]), "{v:#}");
    }
}

/// An MCP server started with `npx -y PACKAGE` is refused at once, as a
/// command that downloads, in either isolation: no wait for a registry the
/// sandbox has not got.
#[test]
fn loader_fault_an_npx_server_is_refused_at_once_as_a_download() {
    let dir = fault_project("npx-server", true);
    for sandbox in isolations() {
        let started = std::time::Instant::now();
        let (status, v, shown) = lint_json(dir.path(), *sandbox, &[]);
        let took = started.elapsed();
        assert_eq!(status, Some(0), "a warning: {shown}");
        let finding = &v["agents"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == "mcp-server-unavailable")
            .unwrap_or_else(|| panic!("no finding: {v:#}"))["message"];
        let says = finding.as_str().unwrap();
        assert!(
            says.contains("npx -y @mastra-conform-fixture/hn-mcp-server")
                && says.contains("lint starts no command that downloads")
                && !says.contains("timed out"),
            "{says}"
        );
        // The client's own timeout is 60 s; the refusal comes before it
        // (the load itself takes seconds, more on a loaded machine).
        assert!(
            took < std::time::Duration::from_secs(45),
            "{took:?}: {shown}"
        );
    }
}

/// A variable demanded at import with `console.error` and `process.exit(1)`,
/// and the `@t3-oss/env` pattern (the problems printed, then an error naming
/// none): the one error line names the variables, `--env-file` and
/// `--verbose`. Behind the guard alone, where no `.env` is read.
#[test]
fn loader_fault_a_variable_demanded_by_exit_or_t3_env_is_named() {
    for (name, says) in [
        (
            "env-exit",
            "called process.exit(1) while loading (NOTES_DATABASE_URL is not set",
        ),
        (
            "env-t3",
            "Invalid environment variables (NOTES_API_URL, NOTES_API_TOKEN are not set",
        ),
    ] {
        let dir = fault_project(name, true);
        let out = bin()
            .args(["lint", "--project"])
            .arg(dir.path())
            .env("MASTRA_CONFORM_SANDBOX", "off")
            .output()
            .unwrap();
        assert_one_error(&out, 2, says);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("--env-file") && stderr.contains("--verbose"),
            "{name}: {stderr}"
        );
    }
}

/// A script and a Next.js route beside the project, which its entry never
/// imports, neither send it to esbuild nor appear in the loader's reason.
#[test]
fn loader_fault_files_the_entry_never_imports_do_not_choose_the_loader() {
    let dir = fault_project("unreachable", true);
    let (status, v, shown) = lint_json(dir.path(), true, &[]);
    assert_eq!(status, Some(0), "{shown}");
    assert_eq!(v["loader"], "node", "{v:#}");
    assert_eq!(v["loaderReason"], serde_json::Value::Null, "{v:#}");
}

/// A pnpm project never installed is told to run pnpm's install.
#[test]
fn loader_fault_a_pnpm_project_is_told_to_run_pnpm_install() {
    let dir = fault_project("pnpm", false);
    let out = lint_project(dir.path(), &[]);
    assert_one_error(
        &out,
        2,
        "is not installed: no node_modules (run pnpm install there first)",
    );
}

/// The snapshot build `0.0.0-ai-v5-20250729181825` cannot assemble an
/// agent's tools for a `"provider/model"` string (its schema compat reads
/// `model.modelId.includes`, and the string has no `modelId`), so a call
/// would throw the same; the loader judges the agent's own tools record
/// instead and says so, rather than failing the whole project.
#[test]
fn loader_fault_a_snapshot_build_with_a_model_string_is_judged_on_its_own_tools() {
    let dir = crate::install_tempdir();
    copy_tree(
        &root().join("harness/tests/fixtures/lint-faults/snapshot-build"),
        dir.path(),
    );
    install_project(dir.path());
    for sandbox in isolations() {
        let (status, v, shown) = lint_json(dir.path(), *sandbox, &[]);
        assert_eq!(status, Some(1), "the dotted key's error: {shown}");
        assert_eq!(v["mastra"], "0.0.0-ai-v5-20250729181825", "{v:#}");
        let agent = &v["agents"][0];
        assert_eq!(agent["registeredAs"], "helper", "{v:#}");
        let keys: Vec<&str> = agent["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["key"].as_str().unwrap())
            .collect();
        assert_eq!(keys, ["lookup.v2"], "{v:#}");
        let notes = agent["notes"].as_array().unwrap();
        assert!(
            notes.iter().any(|n| n
                .as_str()
                .unwrap()
                .contains("assembly of its tools threw (Cannot read properties of undefined (reading 'includes'))")),
            "{notes:#?}"
        );
    }
}
