//! What every end-to-end test needs: the repository, the real binary run
//! from it, and a finished command's output for assertion messages.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The built `mastra-conform`, with the repository as its working folder.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mastra-conform"));
    c.current_dir(root());
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

/// stdout then stderr, for a failing assertion to show.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
