//! `Store`: the one content-addressed package store of the whole cache,
//! hard-linked by pnpm (`manager`) into each install, and what an install
//! removes from its `@mastra/core` (`strip_core`).
//!
//! In: an install folder holding `package.json` (and, for a pinned
//! version, its `pnpm-lock.yaml`). Out: that folder with `node_modules`
//! (pnpm's isolated layout: symlinks into `node_modules/.pnpm`, whose
//! files are hard links into the store).
//!
//! Why pnpm (measured, `docs/installs.md`): ten versions from an empty cache
//! took 179 s as ten serial `npm install`s and 51 s with pnpm and one store
//! (29 s with the ten at once), and 1.5 GB against 0.63 GB; the
//! dependencies most versions share are fetched and written once.
//!
//! The store is shared by concurrent installs (pnpm's own design) and by
//! concurrent runs; it only grows, except in `sweep`, which removes the
//! store files no install links any more (a link count of 1) under an
//! exclusive lock that every install holds shared, so it never races a
//! file pnpm has written and not linked yet. pnpm checks its store on
//! every install and fetches again what a sweep removed.

use crate::install::lock::{self, Hold, LockError, Waited};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Files in `@mastra/core` that Node never loads: source maps and type
/// declarations, half of each version's bytes (38 and 11 of 72 MB in
/// 1.67.0), and distinct in every version, so the store cannot share them.
const NEVER_LOADED: &[&str] = &[".map", ".d.ts", ".d.cts", ".d.mts"];

/// Remove `NEVER_LOADED` files from an install's `@mastra/core` (the links
/// only: the store's copies go at the next `sweep`). Returns bytes unlinked.
pub fn strip_core(install: &Path) -> u64 {
    let core = install.join("node_modules").join("@mastra").join("core");
    // The isolated layout links node_modules/@mastra/core to its folder in
    // node_modules/.pnpm; walk the real one.
    let Ok(real) = core.canonicalize() else {
        return 0;
    };
    if !real.starts_with(install.canonicalize().unwrap_or_default()) {
        return 0;
    }
    let mut freed = 0;
    let mut stack = vec![real];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            let name = entry.file_name().to_string_lossy().into_owned();
            if meta.is_dir() && name != "node_modules" {
                stack.push(entry.path());
            } else if meta.is_file()
                && NEVER_LOADED.iter().any(|s| name.ends_with(s))
                && std::fs::remove_file(entry.path()).is_ok()
            {
                freed += meta.len();
            }
        }
    }
    freed
}

/// The cache's one store and the lock that keeps `sweep` off installs.
#[derive(Debug, Clone)]
pub struct Store {
    pub dir: PathBuf,
    pub lock: PathBuf,
}

impl Store {
    pub fn new(cache: &Path) -> Store {
        Store {
            dir: cache.join("store"),
            lock: cache.join("locks").join("store.lock"),
        }
    }

    /// Hold the store shared (an install) or exclusive (a sweep), waiting
    /// at most `wait`. `None` when it could not be had in time.
    pub fn hold(&self, hold: Hold, wait: Duration) -> Result<Option<std::fs::File>, LockError> {
        Ok(
            match lock::take(&self.lock, hold, wait, Duration::from_millis(50), None)? {
                Waited::Held(file) => Some(file),
                Waited::TimedOut | Waited::Interrupted => None,
            },
        )
    }

    /// Remove the store's content files that no install links any more
    /// (a link count of 1), if no install is running (else leave them for
    /// a later sweep). Returns the bytes freed.
    pub fn sweep(&self, wait: Duration) -> std::io::Result<u64> {
        let Some(_held) = self
            .hold(Hold::Exclusive, wait)
            .map_err(std::io::Error::other)?
        else {
            return Ok(0);
        };
        let mut freed = 0;
        let mut stack = vec![(self.dir.clone(), false)];
        while let Some((dir, in_files)) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let Ok(meta) = entry.path().symlink_metadata() else {
                    continue;
                };
                if meta.is_dir() {
                    // Only content files (under a `files` folder) go: pnpm's
                    // index and metadata stay.
                    stack.push((entry.path(), in_files || entry.file_name() == "files"));
                } else if in_files
                    && meta.is_file()
                    && meta.nlink() == 1
                    && std::fs::remove_file(entry.path()).is_ok()
                {
                    freed += meta.blocks() * 512;
                }
            }
        }
        Ok(freed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_unlinks_only_never_loaded_files_of_core() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir
            .path()
            .join("node_modules/.pnpm/@mastra+core@1.0.0/node_modules/@mastra/core");
        std::fs::create_dir_all(real.join("dist")).unwrap();
        for f in [
            "dist/a.js",
            "dist/a.js.map",
            "dist/a.d.ts",
            "dist/b.cjs",
            "package.json",
        ] {
            std::fs::write(real.join(f), "x").unwrap();
        }
        std::fs::create_dir_all(dir.path().join("node_modules/@mastra")).unwrap();
        std::os::unix::fs::symlink(
            "../.pnpm/@mastra+core@1.0.0/node_modules/@mastra/core",
            dir.path().join("node_modules/@mastra/core"),
        )
        .unwrap();
        assert_eq!(strip_core(dir.path()), 2);
        let left: Vec<bool> = [
            "dist/a.js",
            "dist/a.js.map",
            "dist/a.d.ts",
            "dist/b.cjs",
            "package.json",
        ]
        .iter()
        .map(|f| real.join(f).exists())
        .collect();
        assert_eq!(left, vec![true, false, false, true, true]);
    }

    #[test]
    fn a_sweep_removes_unlinked_store_files_and_waits_for_no_install() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let files = store.dir.join("v11/files/ab");
        std::fs::create_dir_all(&files).unwrap();
        std::fs::write(files.join("linked"), "linked").unwrap();
        std::fs::write(files.join("orphan"), "orphan").unwrap();
        std::fs::write(store.dir.join("v11/index.db"), "index").unwrap();
        let install = dir.path().join("install");
        std::fs::create_dir_all(&install).unwrap();
        std::fs::hard_link(files.join("linked"), install.join("f")).unwrap();

        let installing = store.hold(Hold::Shared, Duration::ZERO).unwrap().unwrap();
        assert_eq!(store.sweep(Duration::from_millis(100)).unwrap(), 0);
        assert!(files.join("orphan").exists(), "an install was running");
        drop(installing);

        assert!(store.sweep(Duration::ZERO).unwrap() > 0);
        assert!(!files.join("orphan").exists());
        assert!(files.join("linked").exists());
        assert!(
            store.dir.join("v11/index.db").exists(),
            "pnpm's index stays"
        );
    }
}
