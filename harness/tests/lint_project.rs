//! `lint --project` end to end: the fixture Mastra project
//! (`harness/tests/fixtures/lint-project/`) copied into a temporary folder and
//! installed there with `npm install --ignore-scripts` and a real
//! `@mastra/core` (1.67.0, and the latest the registry serves), loaded by the
//! real binary through real Node; and the npm packages, packed and installed
//! from their tarballs into an empty folder, run through `npx`.

mod common;

use common::{bin, root, text};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

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

fn install_fixture(core: &str) -> Installed {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&root().join("harness/tests/fixtures/lint-project"), dir.path());
    let manifest = dir.path().join("package.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let pinned = "\"@mastra/core\": \"1.67.0\"";
    assert!(text.contains(pinned), "the fixture's package.json pins 1.67.0");
    std::fs::write(
        &manifest,
        text.replace(pinned, &format!("\"@mastra/core\": \"{core}\"")),
    )
    .unwrap();
    npm(
        dir.path(),
        &["install", "--ignore-scripts", "--no-audit", "--no-fund"],
    );
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
        let work = tempfile::tempdir().unwrap();
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
    assert!(launcher.is_file() && binary.is_file(), "both packages installed");
    let out = npx(empty, &["lint", "search.web", "search web", "ok_key"]);
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(1), "{shown}");
    assert!(shown.contains("\"search.web\" -> \"search_web\""), "{shown}");
    assert!(shown.contains("collision"), "{shown}");
}
