//! The build script: a digest of the Rust code that shapes what a probe
//! observes (the capture listener, its reply formats and wire code, what
//! the probe is sent, the routes), fixed into the binary as
//! `MASTRA_CONFORM_WIRE_DIGEST`. The observation store keys every stored
//! observation by it (`recorded::key`), so a binary whose listener answers
//! differently never reuses what another one saw. The probe's own
//! JavaScript is read from disk at run time, so it is digested at run time
//! from the files the probe loads.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The folders and files whose code decides what reaches a probe and what
/// it is answered: everything under `observe/` (listener, wire formats,
/// probe protocol, child processes) and the route names.
const WIRE_CODE: &[&str] = &["harness/observe", "harness/route/mod.rs"];

fn files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            files(&p, out);
        }
    } else if path.extension().is_some_and(|x| x == "rs") {
        out.push(path.to_path_buf());
    }
}

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let mut all = Vec::new();
    for p in WIRE_CODE {
        println!("cargo:rerun-if-changed={p}");
        files(&root.join(p), &mut all);
    }
    let mut h = Sha256::new();
    for f in &all {
        let rel = f.strip_prefix(&root).unwrap_or(f);
        h.update(rel.to_string_lossy().as_bytes());
        h.update([0]);
        h.update(std::fs::read(f).unwrap_or_else(|e| panic!("cannot read {}: {e}", f.display())));
        h.update([0]);
    }
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=MASTRA_CONFORM_WIRE_DIGEST={}", &hex[..16]);
}
