//! What every end-to-end test needs: the repository, the real binary run
//! from it, and a finished command's output for assertion messages.

use std::path::PathBuf;
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

/// stdout then stderr, for a failing assertion to show.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
