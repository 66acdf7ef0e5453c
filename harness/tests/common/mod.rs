//! What every end-to-end test needs: the repository, the real binary run
//! from it, and a finished command's output for assertion messages.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The built `mastra-conform`, with the repository as its working folder
/// and an observation store of its own, empty: each command observes what
/// it runs, as a test expects, unless the test sets the store itself.
pub fn bin() -> Command {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let store = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "observations-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let mut c = Command::new(env!("CARGO_BIN_EXE_mastra-conform"));
    c.current_dir(root())
        .env("MASTRA_CONFORM_OBSERVATIONS", store);
    c
}

/// `run --versions VERSIONS --cases CASES`, for the test to add its flags
/// to. (Not every test crate runs cases.)
#[allow(dead_code)]
pub fn run_on(versions: impl AsRef<OsStr>, cases: &Path) -> Command {
    let mut c = bin();
    c.arg("run")
        .arg("--versions")
        .arg(versions)
        .arg("--cases")
        .arg(cases);
    c
}

/// What `observe` gives for CASE (relative to the repository) on VERSION:
/// the observed projection, the command having exited 0.
#[allow(dead_code)]
pub fn observed(version: &str, case: &str) -> mastra_conform::js::json::Json {
    let out = bin()
        .args(["observe", "--mastra-version", version])
        .arg(root().join(case))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    mastra_conform::js::json::Json::parse(&String::from_utf8_lossy(&out.stdout))
        .unwrap_or_else(|e| panic!("{version} {case}: {e}: {}", text(&out)))
}

/// Install SPECS (with zod) into `dir` with plain npm, as a user would,
/// running no package script.
#[allow(dead_code)]
pub fn npm_install(dir: &Path, specs: &[&str]) {
    std::fs::write(dir.join("package.json"), "{\"private\":true}\n").unwrap();
    let out = Command::new("npm")
        .args(["install", "--ignore-scripts", "--no-audit", "--no-fund"])
        .args(specs)
        .arg("zod@3.25.76")
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "npm install {}:\n{}",
        specs.join(" "),
        text(&out)
    );
}

/// stdout then stderr, for a failing assertion to show.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The JUnit files a run wrote under `out` (`junit/TEST-*.xml`), each name
/// with its text, by name. (The fault suite reads them its own way.)
#[allow(dead_code)]
pub fn junit(out: &Path) -> Vec<(String, String)> {
    let dir = out.join("junit");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// Every JUnit file a run wrote under `out`, one after another.
#[allow(dead_code)]
pub fn junit_text(out: &Path) -> String {
    junit(out).into_iter().map(|(_, text)| text).collect()
}
