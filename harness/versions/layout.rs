//! Where the cache keeps what it holds, and how a complete install is told
//! from a half one.
//!
//! ```text
//! CACHE/installs/VERSION               an install made from a written manifest
//! CACHE/installs/VERSION-lock-DIGEST   a pinned version, from its lockfiles
//! CACHE/builds/HASH.tgz                a build's tarball (`build`)
//! CACHE/locks/KIND-NAME.lock           one lock per folder above (`lock`)
//! CACHE/store/, CACHE/pnpm-home/       pnpm's one store and its own state
//! CACHE/tools/pnpm-lock-DIGEST         the pinned pnpm (`manager`)
//! CACHE/node/lock-DIGEST               the pinned Node (`node`)
//! ```
//!
//! In: a version, a pin folder, an install folder. Out: paths, lockfile
//! digests, and the marker (`COMPLETE`) that an install's last step writes,
//! holding the key of what it was made from.

use crate::versions::build::digest_hex;
use crate::versions::install::Installs;
use crate::versions::spec::MastraVersion;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// A marker written last into an install before it is renamed into place.
pub const COMPLETE: &str = ".mastra-conform-complete";

/// The folder of `@mastra/core` installs in the cache.
pub const INSTALLS: &str = "installs";

/// The folder of npm installs an older harness made, before the store;
/// `cache prune` removes them.
pub const LEGACY_INSTALLS: &str = "mastra";

/// The default cache root: `$MASTRA_CONFORM_CACHE`, else
/// `$XDG_CACHE_HOME/mastra-conform`, else `~/.cache/mastra-conform`.
pub fn default_cache() -> PathBuf {
    if let Some(p) = std::env::var_os("MASTRA_CONFORM_CACHE") {
        return PathBuf::from(p);
    }
    if let Some(p) = std::env::var_os("XDG_CACHE_HOME").filter(|p| !p.is_empty()) {
        return PathBuf::from(p).join("mastra-conform");
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
    home.join(".cache").join("mastra-conform")
}

impl Installs {
    /// The committed pin folder of a version, if it has one.
    pub fn pin_dir(&self, v: MastraVersion) -> Option<PathBuf> {
        let dir = self.probe_dir.join("pins").join(v.to_string());
        dir.join("package.json").is_file().then_some(dir)
    }

    /// Where the installs live.
    pub fn installs_dir(&self) -> PathBuf {
        self.cache.join(INSTALLS)
    }

    /// Where version `v` is (or would be) installed: a pinned version's
    /// folder names its lockfiles' digest, so a changed lock makes a fresh
    /// install instead of reusing a stale one.
    pub fn install_dir(&self, v: MastraVersion) -> PathBuf {
        match self.pin_dir(v).and_then(|d| lock_digest(&d)) {
            Some(digest) => self.installs_dir().join(format!("{v}-lock-{digest}")),
            None => self.installs_dir().join(v.to_string()),
        }
    }

    /// Where a prepared build is kept: the tarball npm installs.
    pub fn build_tarball(&self, hash: &str) -> PathBuf {
        self.cache.join("builds").join(format!("{hash}.tgz"))
    }

    /// Where a tool folder of `node-probe/` with lockfile digest `digest`
    /// is installed: `tools/pnpm-lock-DIGEST`, `node/lock-DIGEST`.
    pub fn tool_dir(&self, tool: Tool, digest: &str) -> PathBuf {
        match tool {
            Tool::Pnpm => self.cache.join("tools").join(format!("pnpm-lock-{digest}")),
            Tool::Node => self.cache.join("node").join(format!("lock-{digest}")),
        }
    }

    /// pnpm's own state and metadata cache, kept inside the cache.
    pub fn pnpm_home(&self) -> PathBuf {
        self.cache.join("pnpm-home")
    }
}

/// The harness's own tools, each pinned in a folder of `node-probe/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Pnpm,
    Node,
}

/// The lock file of folder `dir` of the cache: `locks/PARENT-NAME.lock`.
pub fn lock_file(cache: &Path, dir: &Path) -> PathBuf {
    let name = |p: Option<&std::ffi::OsStr>| p.map(|n| n.to_string_lossy().into_owned());
    let parent = name(dir.parent().and_then(Path::file_name)).unwrap_or_default();
    let own = name(dir.file_name()).unwrap_or_default();
    cache.join("locks").join(format!("{parent}-{own}.lock"))
}

/// Whether the install at `dir` is complete and was made from the inputs
/// whose key is `key`.
pub fn marked(dir: &Path, key: &str) -> bool {
    std::fs::read_to_string(dir.join(COMPLETE)).is_ok_and(|k| k.trim() == key)
}

/// When an install was last used: its marker's time, set on every use
/// (`cache prune --keep N` keeps the most recently used).
pub fn mark_used(dir: &Path) {
    if let Ok(f) = std::fs::File::options()
        .write(true)
        .open(dir.join(COMPLETE))
    {
        let _ = f.set_modified(std::time::SystemTime::now());
    }
}

/// A short digest of a pin folder's lockfiles (npm's, and pnpm's when
/// there is one); `None` without an npm lockfile.
pub fn lock_digest(dir: &Path) -> Option<String> {
    let mut h = Sha256::new();
    h.update(std::fs::read(dir.join("package-lock.json")).ok()?);
    if let Ok(pnpm) = std::fs::read(dir.join("pnpm-lock.yaml")) {
        h.update(pnpm);
    }
    Some(digest_hex(h, 12))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_version_is_named_by_its_lockfiles_and_a_changed_lock_moves_it() {
        let tmp = tempfile::tempdir().unwrap();
        let installs = Installs::scratch(tmp.path());
        let v = MastraVersion::new(1, 67, 0);
        assert_eq!(
            installs.install_dir(v),
            tmp.path().join("cache/installs/1.67.0")
        );
        let pin = tmp.path().join("probe/pins/1.67.0");
        std::fs::create_dir_all(&pin).unwrap();
        std::fs::write(pin.join("package.json"), "{}").unwrap();
        std::fs::write(pin.join("package-lock.json"), "{\"a\":1}").unwrap();
        let first = installs.install_dir(v);
        let name = first.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("1.67.0-lock-") && name.len() == 24,
            "{name}"
        );
        std::fs::write(pin.join("pnpm-lock.yaml"), "lockfileVersion: '9.0'\n").unwrap();
        assert_ne!(installs.install_dir(v), first, "the pnpm lockfile counts");
    }

    #[test]
    fn every_folder_has_its_own_lock_file() {
        let cache = Path::new("/c");
        assert_eq!(
            lock_file(cache, Path::new("/c/installs/1.67.0")),
            PathBuf::from("/c/locks/installs-1.67.0.lock")
        );
        assert_eq!(
            lock_file(cache, Path::new("/c/node/lock-abc")),
            PathBuf::from("/c/locks/node-lock-abc.lock")
        );
    }

    #[test]
    fn only_a_marker_with_the_key_marks_an_install_complete() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(!marked(tmp.path(), "k"), "no marker");
        std::fs::write(tmp.path().join(COMPLETE), "k\n").unwrap();
        assert!(marked(tmp.path(), "k"));
        assert!(!marked(tmp.path(), "other"));
    }
}
