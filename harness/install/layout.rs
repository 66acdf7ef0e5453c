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
//!
//! Every install (a version's or a tool's) is filled in a temporary folder
//! beside its final one and renamed into place only once complete, the
//! marker written last (`Installs::install_atomically`), under the folder's
//! lock, so an interrupted install is never taken for a good one and a run
//! that waited for another finds its install instead of making a second.

use crate::install::lock::{self, LockError};
use crate::observe::proc::ProcError;
use crate::version::digest::digest_hex;
use crate::version::spec::MastraVersion;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// A marker written last into an install before it is renamed into place.
pub const COMPLETE: &str = ".mastra-conform-complete";

/// The folder of `@mastra/core` installs in the cache.
pub const INSTALLS: &str = "installs";

/// The folder of npm installs an older harness made, before the store;
/// `cache prune` removes them.
pub const LEGACY_INSTALLS: &str = "mastra";

/// Why an install (of a version or of a tool) was not made.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// A package manager failed (its last words are in the error).
    #[error(transparent)]
    Proc(#[from] ProcError),
    #[error(transparent)]
    Fs(#[from] FsError),
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("{} is missing: the pinned tool cannot be installed", .0.display())]
    NoLockfile(PathBuf),
    /// The disk of the cache is full: named, with what is free and what
    /// an install of this kind takes.
    #[error("no space left in the cache {} ({} MB free; an install takes up to {} MB): free some space or set MASTRA_CONFORM_CACHE to a larger disk", cache.display(), free_mb, NEEDED_MB)]
    NoSpace {
        cache: PathBuf,
        free_mb: u64,
        #[source]
        cause: Box<InstallError>,
    },
    /// The install was made but what it holds does not run.
    #[error("the install at {} was made but does not work: {what}", dir.display())]
    Unverified { dir: PathBuf, what: String },
    /// A file of the install is damaged even after it was made again with
    /// its damaged store files removed: what is left is the user's to
    /// remove.
    #[error("the install at {} is damaged ({damage}), also when made again: {}", dir.display(), remedy(dir, store))]
    Damaged {
        dir: PathBuf,
        store: PathBuf,
        damage: crate::install::verify::Damage,
    },
}

/// What a user does about an install that stays damaged: remove it and
/// the store it links (pnpm fetches the store again).
pub fn remedy(dir: &Path, store: &Path) -> String {
    format!(
        "remove {} (`mastra-conform cache prune` removes the installs no run is using) and the store {}, which is fetched again, then run again",
        dir.display(),
        store.display()
    )
}

/// About what the largest install of the cache takes (the pinned Node).
pub const NEEDED_MB: u64 = 400;

/// Free space below which a failed install is taken for a full disk.
const FULL_BELOW_BYTES: u64 = 1_000_000;

impl InstallError {
    /// Whether the disk was full: an `ENOSPC` from the harness's own
    /// writes, or in a package manager's last words.
    pub fn is_no_space(&self) -> bool {
        match self {
            InstallError::Fs(f) => f.cause.raw_os_error() == Some(libc::ENOSPC),
            InstallError::Proc(p) => p.stderr_mentions(&["ENOSPC", "no space left on device"]),
            InstallError::NoSpace { .. } => true,
            _ => false,
        }
    }

    /// This error, as `NoSpace` naming `cache` when the disk was full: an
    /// `ENOSPC` said, or any failure on a disk with (almost) nothing left,
    /// since a package manager that lost a write to a full disk may still
    /// exit 0 and leave a binary cut short that only crashes when run.
    fn naming_space(self, cache: &Path, written: &Path) -> InstallError {
        if matches!(self, InstallError::NoSpace { .. }) {
            return self;
        }
        // The disk that filled is the one written to, which a mount may
        // have put under the cache.
        let free = free_bytes(written);
        if !self.is_no_space() && free.is_none_or(|b| b >= FULL_BELOW_BYTES) {
            return self;
        }
        InstallError::NoSpace {
            cache: cache.to_path_buf(),
            free_mb: free.unwrap_or(0) / 1_000_000,
            cause: Box::new(self),
        }
    }
}

/// The bytes free to this user on the file system of `path`.
pub fn free_bytes(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c` is a NUL-terminated path and `st` is written by the call
    // before it is read, only when it succeeds.
    let st = unsafe {
        if libc::statvfs(c.as_ptr(), st.as_mut_ptr()) != 0 {
            return None;
        }
        st.assume_init()
    };
    Some(st.f_bavail.saturating_mul(st.f_frsize))
}

/// Write what a folder holds to the disk before its marker says it is
/// whole: a crash or power cut after the rename must not leave a marked
/// install of empty files.
fn sync_folder(dir: &Path) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(dir)?;
    // SAFETY: syncfs takes an open descriptor and touches no memory.
    if unsafe { libc::syncfs(f.as_raw_fd()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// A file or folder the installer could not read, write or move.
#[derive(Debug, thiserror::Error)]
#[error("cannot {doing} {}", path.display())]
pub struct FsError {
    doing: &'static str,
    path: PathBuf,
    #[source]
    cause: std::io::Error,
}

impl FsError {
    pub fn new(doing: &'static str, path: &Path, cause: std::io::Error) -> FsError {
        FsError {
            doing,
            path: path.to_path_buf(),
            cause,
        }
    }
}

/// Where installs live, and how to make them.
#[derive(Debug, Clone)]
pub struct Installs {
    /// The cache root (outside the repository).
    pub cache: PathBuf,
    /// `node-probe/` of the repository: pinned manifests and lockfiles.
    pub probe_dir: PathBuf,
    pub install_timeout: Duration,
    /// The run's stop flag: an install (or the wait for another run's)
    /// ends as soon as it is raised.
    pub cancel: Option<Arc<AtomicBool>>,
}

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
            Tool::Biome => self
                .cache
                .join("tools")
                .join(format!("biome-lock-{digest}")),
            Tool::Esbuild => self
                .cache
                .join("tools")
                .join(format!("esbuild-lock-{digest}")),
            Tool::Node => self.cache.join("node").join(format!("lock-{digest}")),
        }
    }

    /// pnpm's own state and metadata cache, kept inside the cache.
    pub fn pnpm_home(&self) -> PathBuf {
        self.cache.join("pnpm-home")
    }
}

impl Installs {
    /// Install into a fresh temporary folder beside `dir`, mark it complete,
    /// rename it into place; all under `dir`'s lock, so that a run that
    /// waited finds the finished install instead of making a second one.
    pub fn install_atomically(
        &self,
        dir: &Path,
        key: &str,
        fill: impl FnOnce(&Path) -> Result<(), InstallError>,
    ) -> Result<Made, InstallError> {
        let parent = dir.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent).map_err(|e| FsError::new("create", parent, e))?;
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let _lock = self.lock(dir)?;
        if marked(dir, key) {
            // Another run made it while this one waited for the lock.
            return Ok(Made::ByAnother);
        }
        // Holding the lock, no other run is filling a temporary folder of
        // this install: any found is a killed run's, never to be finished.
        // A folder under the final name without the marker was not made by
        // a rename of ours; it is moved aside before it goes, so no reader
        // ever sees it half deleted.
        for entry in std::fs::read_dir(parent).into_iter().flatten().flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            if file.starts_with(&format!(".tmp-{name}-")) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
        if dir.exists() {
            let aside = parent.join(format!(".tmp-{name}-stale-{}", std::process::id()));
            std::fs::rename(dir, &aside).map_err(|e| FsError::new("move aside", dir, e))?;
            let _ = std::fs::remove_dir_all(&aside);
        }
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".tmp-{name}-"))
            .tempdir_in(parent)
            .map_err(|e| FsError::new("create a folder in", parent, e))?;
        let cache = self.cache.clone();
        fill(tmp.path()).map_err(|e| e.naming_space(&cache, tmp.path()))?;
        sync_folder(tmp.path()).map_err(|e| {
            InstallError::from(FsError::new("write to disk", tmp.path(), e))
                .naming_space(&cache, tmp.path())
        })?;
        write_file(&tmp.path().join(COMPLETE), key)
            .map_err(|e| InstallError::from(e).naming_space(&cache, tmp.path()))?;
        let tmp_path = tmp.keep();
        std::fs::rename(&tmp_path, dir)
            .map(|()| Made::Here)
            .map_err(|e| {
                let _ = std::fs::remove_dir_all(&tmp_path);
                FsError::new("move into place", dir, e).into()
            })
    }

    /// Take the lock of install folder `dir`, waiting for another run that
    /// holds it. The lock goes with the returned file.
    pub fn lock(&self, dir: &Path) -> Result<std::fs::File, LockError> {
        lock::take_install(
            &lock_file(&self.cache, dir),
            self.install_timeout,
            self.cancel.as_deref(),
        )
    }
}

/// Who made an install `install_atomically` returned: this run, or
/// another one it waited for (whose time it must not report as its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Made {
    Here,
    ByAnother,
}

/// Copy a file, naming it when that fails.
pub fn copy_file(from: &Path, to: &Path) -> Result<(), FsError> {
    std::fs::copy(from, to)
        .map(drop)
        .map_err(|e| FsError::new("copy", from, e))
}

/// Write a file, naming it when that fails.
pub fn write_file(path: &Path, text: &str) -> Result<(), FsError> {
    std::fs::write(path, text).map_err(|e| FsError::new("write", path, e))
}

/// The harness's own tools, each pinned in a folder of `node-probe/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Pnpm,
    Biome,
    /// The project loader's esbuild and parser (`node-probe/esbuild/`).
    Esbuild,
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

/// Installs in `ROOT/cache` from the pins of `ROOT/probe`, for the unit
/// tests of this folder.
#[cfg(test)]
impl Installs {
    pub(crate) fn scratch(root: &Path) -> Installs {
        Installs {
            cache: root.join("cache"),
            probe_dir: root.join("probe"),
            install_timeout: Duration::from_secs(1),
            cancel: None,
        }
    }
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
