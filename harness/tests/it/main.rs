//! The integration tests, one binary with a module per subject: the real
//! binary, real Node, real Mastra, real HTTP (`e2e`, `matrix`, `fuzz`,
//! `store`, `recheck`, `builds`, `lint_project`, `lookups`, `javascript`,
//! `zero`, `site`), the sizes of a whole matrix's database and site
//! (`size`), and the import
//! rules on the source (`structure`). One binary links the crate once; the
//! fault suite keeps a binary of its own (`faults.rs`: a plain `main` that
//! prints its figures on every run).
//!
//! `make unit` runs `structure` beside the library's unit tests;
//! `cargo test --test it MODULE::` runs one subject.

// Test code may be longer than the 120 lines `make check` holds the crate to.
#![allow(clippy::too_many_lines)]

#[path = "../common/mod.rs"]
mod common;

mod browser;
mod builds;
mod e2e;
mod fuzz;
mod javascript;
mod lint_project;
mod lookups;
mod matrix;
mod recheck;
mod site;
mod size;
mod store;
mod structure;
mod zero;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A folder for a fixture a static holds for the whole run (an install, the
/// corpus run): a static is never dropped, so its `TempDir` would never be
/// removed, and each run left hundreds of megabytes in the temporary
/// folder. These live under the run's own folder instead, removed when
/// the process exits.
pub fn kept_tempdir() -> tempfile::TempDir {
    tempfile::tempdir_in(run_dir()).expect("a folder in the run's folder")
}

/// A test's own folder for what takes long to delete (a `node_modules`
/// tree, an install cache, a copy of `@mastra/core`'s files): under the
/// run's folder, and left there when the test ends, for the detached `rm`
/// after the run. Deleting such trees at a test's end (tens of thousands
/// of files) held its thread for up to a minute on a loaded machine, at
/// almost no CPU.
pub fn install_tempdir() -> tempfile::TempDir {
    let mut dir = kept_tempdir();
    dir.disable_cleanup(true);
    dir
}

/// This run's folder, `mastra-conform-it/run-*` in the temporary folder,
/// held under a lock for the process's life and removed after it exits.
/// Removing a run's trees (gigabytes of `node_modules`) takes minutes of
/// disk time, so it is not done on the suite's path: at exit (an `atexit`
/// hook: libtest returns from `main` or calls `exit`) the folder is renamed
/// `old-*` and a detached `rm` removes it. A run killed before that leaves
/// its folder unlocked, and the next run hands it to `rm` the same way;
/// another run's folder, locked, is left alone.
fn run_dir() -> &'static Path {
    static DIR: OnceLock<(PathBuf, std::fs::File)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let base = std::env::temp_dir().join("mastra-conform-it");
        // Made under a name no run removes, locked, then given its name;
        // again if a run ending meanwhile removed the runs' folder.
        let made = (0..3)
            .find_map(|_| {
                std::fs::create_dir_all(&base).ok()?;
                remove_unlocked_runs(&base);
                let made = tempfile::Builder::new().prefix(".new-").tempdir_in(&base);
                made.ok()
            })
            .expect("a run folder")
            .keep();
        let lock = std::fs::File::open(&made).expect("the run folder opens");
        assert!(flock(&lock, libc::LOCK_EX), "the run folder's lock");
        let name = made
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(".new-", "run-");
        let dir = base.join(name);
        std::fs::rename(&made, &dir).expect("the run folder is named");
        // SAFETY: `remove_run_dir` only renames a folder and starts a
        // process; registering it has no other effect.
        unsafe { libc::atexit(remove_run_dir) };
        (dir, lock)
    })
    .0
}

/// Every run folder whose run has ended (its lock is free), and any left
/// half removed, handed to a detached `rm`.
fn remove_unlocked_runs(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !(name.starts_with("run-") || name.starts_with("old-")) {
            continue;
        }
        let Ok(dir) = std::fs::File::open(entry.path()) else {
            continue;
        };
        if !flock(&dir, libc::LOCK_EX | libc::LOCK_NB) {
            continue;
        }
        let old = base.join(name.replacen("run-", "old-", 1));
        if std::fs::rename(entry.path(), &old).is_ok() {
            remove_detached(&old);
        }
    }
}

/// `flock(2)` on an open folder (rust-version 1.88 has no `File::lock`).
fn flock(dir: &std::fs::File, how: libc::c_int) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor is open for the call's length.
    unsafe { libc::flock(dir.as_raw_fd(), how) == 0 }
}

/// `rm -rf DIR`, then the runs' folder if that left it empty, in a process
/// of its own that outlives this one and holds none of its output. It
/// holds the folder's lock while it works, so a run starting meanwhile
/// leaves that folder to it.
fn remove_detached(dir: &Path) {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    const REMOVE: &str = "if command -v flock >/dev/null; then flock \"$1\" rm -rf \"$1\"; \
                          else rm -rf \"$1\"; fi; rmdir \"$2\" 2>/dev/null";
    let _ = Command::new("sh")
        .args(["-c", REMOVE, "sh"])
        .arg(dir)
        .arg(dir.parent().unwrap_or(dir))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn();
}

extern "C" fn remove_run_dir() {
    let dir = run_dir();
    let name = dir
        .file_name()
        .unwrap()
        .to_string_lossy()
        .replacen("run-", "old-", 1);
    let old = dir.with_file_name(name);
    if std::fs::rename(dir, &old).is_ok() {
        remove_detached(&old);
    }
}
