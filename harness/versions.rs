//! `MastraVersion`, and `Installs`: resolving, installing and caching
//! `@mastra/core` versions and the Node runtime that runs them.
//!
//! In: version names (`1.67.0`, `pinned`, `latest`, `>=1.60.0 <1.70.0`,
//! `all`). Out: finished install folders, each holding `node_modules` and
//! `probe-entry.mjs` (`node-probe/PROTOCOL.md`), and a Node binary new enough
//! for them.
//!
//! Every install goes to a temporary folder beside its final one and is
//! renamed into place only once complete (with a marker written last), so an
//! interrupted install is never taken for a good one. Two runs share the
//! cache through a lock file per install (`CACHE/locks/`, `flock`): the
//! second waits for the first and then uses its install; a temporary folder
//! found while holding the lock is a dead run's leftover and is removed. An
//! interrupted run ends its `npm` at once. Package scripts never run
//! (`--ignore-scripts`), and pinned versions install with `npm ci` from their
//! committed lockfiles, which checks every package's integrity hash.

use crate::proc::{CommandSpec, ProcError};
use std::cmp::Ordering;
use std::fmt;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A published stable `@mastra/core` version, `MAJOR.MINOR.PATCH`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MastraVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl MastraVersion {
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        MastraVersion {
            major,
            minor,
            patch,
        }
    }

    /// Parse an exact stable version; prereleases are not versions the
    /// harness runs.
    pub fn parse(text: &str) -> Option<MastraVersion> {
        let mut parts = text.trim().split('.');
        let mut next = || -> Option<u32> {
            let p = parts.next()?;
            if p.is_empty()
                || p.len() > 9
                || !p.bytes().all(|b| b.is_ascii_digit())
                || (p.len() > 1 && p.starts_with('0'))
            {
                return None;
            }
            p.parse().ok()
        };
        let v = MastraVersion::new(next()?, next()?, next()?);
        parts.next().is_none().then_some(v)
    }
}

impl fmt::Display for MastraVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl fmt::Debug for MastraVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The versions the harness keeps lockfiles for: the two the report
/// measured, and 1.0.4, the earliest 1.0.x the reachable registry serves.
pub const PINNED: &[MastraVersion] = &[
    MastraVersion::new(1, 0, 0),
    MastraVersion::new(1, 0, 4),
    MastraVersion::new(1, 67, 0),
];

/// The zod every install uses, as the report did.
pub const ZOD: &str = "3.25.76";

/// `@mastra/core` 1.x needs this Node or newer.
pub const MIN_NODE: (u32, u32) = (22, 13);

#[derive(Debug, thiserror::Error)]
pub enum VersionError {
    #[error("bad version {0:?}: expected an exact version like 1.67.0, `pinned`, `latest`, `all`, or a range like `>=1.60.0 <1.70.0`")]
    BadSpec(String),
    #[error("version set {0:?} selects no published stable 1.x version")]
    Empty(String),
    #[error("@mastra/core@{0} is not served by the registry")]
    Unavailable(MastraVersion),
    #[error("cannot list @mastra/core versions from the registry")]
    Registry(#[source] ProcError),
    #[error("installing {what} failed")]
    Install {
        what: String,
        #[source]
        cause: ProcError,
    },
    #[error("no usable Node: {0}")]
    Node(String),
    #[error("cache folder {path}: {cause}")]
    Cache {
        path: PathBuf,
        cause: std::io::Error,
    },
}

impl VersionError {
    /// Whether this is the registry not having the version (a result to
    /// report), rather than the machine failing to get it.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, VersionError::Unavailable(_))
    }
}

/// One comparator of a range: `>=1.60.0`, `<1.70.0`, `=1.2.3`, ...
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Ge(MastraVersion),
    Gt(MastraVersion),
    Le(MastraVersion),
    Lt(MastraVersion),
    Eq(MastraVersion),
}

impl Bound {
    fn admits(self, v: MastraVersion) -> bool {
        match self {
            Bound::Ge(b) => v >= b,
            Bound::Gt(b) => v > b,
            Bound::Le(b) => v <= b,
            Bound::Lt(b) => v < b,
            Bound::Eq(b) => v == b,
        }
    }
}

/// One element of a `--versions` list, before it meets the registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionSpec {
    Exact(MastraVersion),
    Pinned,
    Latest,
    All,
    Range(Vec<Bound>),
}

impl VersionSpec {
    /// Parse a comma-separated `--versions` list.
    pub fn parse_list(text: &str) -> Result<Vec<VersionSpec>, VersionError> {
        let specs: Vec<VersionSpec> = text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(VersionSpec::parse)
            .collect::<Result<_, _>>()?;
        if specs.is_empty() {
            return Err(VersionError::BadSpec(text.to_string()));
        }
        Ok(specs)
    }

    pub fn parse(text: &str) -> Result<VersionSpec, VersionError> {
        let bad = || VersionError::BadSpec(text.to_string());
        match text.trim() {
            "pinned" => return Ok(VersionSpec::Pinned),
            "latest" => return Ok(VersionSpec::Latest),
            "all" => return Ok(VersionSpec::All),
            _ => {}
        }
        if let Some(v) = MastraVersion::parse(text) {
            return Ok(VersionSpec::Exact(v));
        }
        let mut bounds = Vec::new();
        for word in text.split_whitespace() {
            let (op, rest) =
                word.split_at(word.find(|c: char| c.is_ascii_digit()).ok_or_else(bad)?);
            let v = MastraVersion::parse(rest).ok_or_else(bad)?;
            bounds.push(match op {
                ">=" => Bound::Ge(v),
                ">" => Bound::Gt(v),
                "<=" => Bound::Le(v),
                "<" => Bound::Lt(v),
                "=" => Bound::Eq(v),
                _ => return Err(bad()),
            });
        }
        if bounds.is_empty() {
            return Err(bad());
        }
        Ok(VersionSpec::Range(bounds))
    }

    /// Whether resolving this spec needs the registry's version list.
    pub fn needs_registry(&self) -> bool {
        !matches!(self, VersionSpec::Exact(_) | VersionSpec::Pinned)
    }
}

/// Resolve specs against the published stable versions (sorted ascending).
/// Exact and pinned versions are kept even when unpublished: that the
/// registry lacks them is a result the run reports.
pub fn resolve(
    specs: &[VersionSpec],
    published: &[MastraVersion],
) -> Result<Vec<MastraVersion>, VersionError> {
    let mut out: Vec<MastraVersion> = Vec::new();
    let stable_1x = published.iter().copied().filter(|v| v.major == 1);
    for spec in specs {
        let chosen: Vec<MastraVersion> = match spec {
            VersionSpec::Exact(v) => vec![*v],
            VersionSpec::Pinned => PINNED.to_vec(),
            VersionSpec::Latest => stable_1x.clone().max().into_iter().collect(),
            VersionSpec::All => stable_1x.clone().collect(),
            VersionSpec::Range(bounds) => stable_1x
                .clone()
                .filter(|v| bounds.iter().all(|b| b.admits(*v)))
                .collect(),
        };
        if chosen.is_empty() {
            return Err(VersionError::Empty(format!("{spec:?}")));
        }
        for v in chosen {
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    Ok(out)
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

/// A Node binary and what it reported of itself.
#[derive(Debug, Clone)]
pub struct NodeRuntime {
    pub path: PathBuf,
    pub version: String,
}

const ENTRY: &str = "export * as agent from '@mastra/core/agent';\n\
export * as tools from '@mastra/core/tools';\n\
export { z } from 'zod';\n";

/// A marker written last into an install before it is renamed into place.
const COMPLETE: &str = ".mastra-conform-complete";

impl Installs {
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

    fn npm(&self, args: &[&str], dir: &Path) -> CommandSpec {
        let mut c = CommandSpec::new("npm")
            .args(args.iter().copied())
            .dir(dir)
            .timeout(self.install_timeout)
            .cancel_on(self.cancel.clone());
        // Installs must not pick up a user's npmrc scripts setting or a
        // proxy that points elsewhere; the cache itself may be shared.
        c = c
            .env("npm_config_ignore_scripts", "true")
            .env("npm_config_audit", "false")
            .env("npm_config_fund", "false");
        c
    }

    /// The published stable versions, ascending.
    pub fn published(&self) -> Result<Vec<MastraVersion>, VersionError> {
        let out = self
            .npm(
                &["view", "@mastra/core", "versions", "--json"],
                &self.cache_dir()?,
            )
            .timeout(Duration::from_secs(60))
            .run_capture()
            .map_err(VersionError::Registry)?;
        let list: Vec<String> = serde_json::from_slice(&out.stdout).map_err(|e| {
            VersionError::Registry(ProcError::Output(format!(
                "npm view printed something other than a JSON list: {e}"
            )))
        })?;
        let mut versions: Vec<MastraVersion> = list
            .iter()
            .filter_map(|s| MastraVersion::parse(s))
            .collect();
        versions.sort();
        Ok(versions)
    }

    fn cache_dir(&self) -> Result<PathBuf, VersionError> {
        std::fs::create_dir_all(&self.cache).map_err(|cause| VersionError::Cache {
            path: self.cache.clone(),
            cause,
        })?;
        Ok(self.cache.clone())
    }

    /// The committed pin folder of a version, if it has one.
    pub fn pin_dir(&self, v: MastraVersion) -> Option<PathBuf> {
        let dir = self.probe_dir.join("pins").join(v.to_string());
        dir.join("package.json").is_file().then_some(dir)
    }

    /// Where version `v` is (or would be) installed.
    pub fn install_dir(&self, v: MastraVersion) -> PathBuf {
        match self.pin_dir(v).and_then(|d| lock_digest(&d)) {
            Some(digest) => self.cache.join("mastra").join(format!("{v}-lock-{digest}")),
            None => self.cache.join("mastra").join(v.to_string()),
        }
    }

    pub fn is_installed(&self, v: MastraVersion) -> bool {
        self.install_dir(v).join(COMPLETE).is_file()
    }

    /// Install `v` unless it already is; return its folder. `published`
    /// (when known) lets an unserved version be reported as unavailable
    /// without a failed install.
    pub fn ensure(
        &self,
        v: MastraVersion,
        published: Option<&[MastraVersion]>,
    ) -> Result<PathBuf, VersionError> {
        let dir = self.install_dir(v);
        if dir.join(COMPLETE).is_file() {
            return Ok(dir);
        }
        if let Some(list) = published {
            if !list.contains(&v) {
                return Err(VersionError::Unavailable(v));
            }
        }
        let pin = self.pin_dir(v);
        let with_lock = pin
            .as_ref()
            .is_some_and(|d| d.join("package-lock.json").is_file());
        self.install_atomically(&dir, &format!("@mastra/core@{v}"), |tmp| {
            match &pin {
                Some(p) => {
                    copy(&p.join("package.json"), &tmp.join("package.json"))?;
                    if with_lock {
                        copy(&p.join("package-lock.json"), &tmp.join("package-lock.json"))?;
                    }
                }
                None => write(&tmp.join("package.json"), &manifest(v))?,
            }
            let args: &[&str] = if with_lock {
                &["ci", "--ignore-scripts"]
            } else {
                &["install", "--ignore-scripts"]
            };
            self.npm(args, tmp)
                .run_capture()
                .map(drop)
                .map_err(|cause| {
                    if cause.stderr_mentions(&["ETARGET", "E404", "No matching version"]) {
                        return InstallFail::Unavailable;
                    }
                    InstallFail::Proc(cause)
                })?;
            write(&tmp.join("probe-entry.mjs"), ENTRY)?;
            Ok(())
        })
        .map_err(|e| match e {
            InstallFail::Unavailable => VersionError::Unavailable(v),
            InstallFail::Proc(cause) => VersionError::Install {
                what: format!("@mastra/core@{v}"),
                cause,
            },
            InstallFail::Io(path, cause) => VersionError::Cache { path, cause },
        })?;
        Ok(dir)
    }

    /// Install into a fresh temporary folder beside `dir`, mark it complete,
    /// rename it into place; all under `dir`'s lock, so that a run that
    /// waited finds the finished install instead of making a second one.
    fn install_atomically(
        &self,
        dir: &Path,
        _what: &str,
        fill: impl FnOnce(&Path) -> Result<(), InstallFail>,
    ) -> Result<(), InstallFail> {
        let parent = dir.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent).map_err(|e| InstallFail::Io(parent.to_path_buf(), e))?;
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let _lock = self.lock(dir)?;
        if dir.join(COMPLETE).is_file() {
            return Ok(());
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
            std::fs::rename(dir, &aside).map_err(|e| InstallFail::Io(dir.to_path_buf(), e))?;
            let _ = std::fs::remove_dir_all(&aside);
        }
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".tmp-{name}-"))
            .tempdir_in(parent)
            .map_err(|e| InstallFail::Io(parent.to_path_buf(), e))?;
        fill(tmp.path())?;
        write(&tmp.path().join(COMPLETE), "")?;
        let tmp_path = tmp.keep();
        std::fs::rename(&tmp_path, dir).map_err(|e| {
            let _ = std::fs::remove_dir_all(&tmp_path);
            InstallFail::Io(dir.to_path_buf(), e)
        })
    }

    /// Take the lock of install folder `dir`, waiting for another run that
    /// holds it (as long as an install may take, and not past a raised
    /// stop flag). The lock goes with the returned file.
    fn lock(&self, dir: &Path) -> Result<std::fs::File, InstallFail> {
        let locks = self.cache.join("locks");
        std::fs::create_dir_all(&locks).map_err(|e| InstallFail::Io(locks.clone(), e))?;
        let kind = dir
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
        let path = locks.join(format!("{kind}-{}.lock", name.unwrap_or_default()));
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| InstallFail::Io(path.clone(), e))?;
        let deadline = Instant::now().checked_add(self.install_timeout);
        loop {
            // SAFETY: flock(2) on a descriptor we own; touches no memory.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
                return Ok(file);
            }
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EWOULDBLOCK) {
                return Err(InstallFail::Io(path, e));
            }
            if self
                .cancel
                .as_ref()
                .is_some_and(|c| c.load(std::sync::atomic::Ordering::SeqCst))
            {
                return Err(InstallFail::Proc(ProcError::Interrupted {
                    program: "the wait for another run's install".into(),
                }));
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(InstallFail::Io(
                    path,
                    std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "another run held this install's lock for the whole install timeout",
                    ),
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// A Node new enough for `@mastra/core` 1.x: the machine's when it fits,
    /// else the pinned one from `node-probe/runtime/`, installed from the npm
    /// registry into the cache. `MASTRA_CONFORM_NODE` overrides both.
    pub fn node(&self) -> Result<NodeRuntime, VersionError> {
        if let Some(p) = std::env::var_os("MASTRA_CONFORM_NODE") {
            let path = PathBuf::from(p);
            let version = node_version(&path).ok_or_else(|| {
                VersionError::Node(format!(
                    "MASTRA_CONFORM_NODE={} does not run",
                    path.display()
                ))
            })?;
            return Ok(NodeRuntime { path, version });
        }
        if let Some(version) = node_version(Path::new("node")) {
            if version_at_least(&version, MIN_NODE) {
                return Ok(NodeRuntime {
                    path: PathBuf::from("node"),
                    version,
                });
            }
        }
        let runtime = self.probe_dir.join("runtime");
        let digest = lock_digest(&runtime).ok_or_else(|| {
            VersionError::Node(format!("{} has no package-lock.json", runtime.display()))
        })?;
        let dir = self.cache.join("node").join(format!("lock-{digest}"));
        if !dir.join(COMPLETE).is_file() {
            self.install_atomically(&dir, "node", |tmp| {
                copy(&runtime.join("package.json"), &tmp.join("package.json"))?;
                copy(
                    &runtime.join("package-lock.json"),
                    &tmp.join("package-lock.json"),
                )?;
                self.npm(&["ci", "--ignore-scripts"], tmp)
                    .run_capture()
                    .map(drop)
                    .map_err(InstallFail::Proc)
            })
            .map_err(|e| {
                VersionError::Node(format!(
                    "installing the pinned Node failed: {}",
                    e.describe()
                ))
            })?;
        }
        let path = dir
            .join("node_modules")
            .join(format!(
                "node-linux-{}",
                std::env::consts::ARCH
                    .replace("x86_64", "x64")
                    .replace("aarch64", "arm64")
            ))
            .join("bin")
            .join("node");
        let version = node_version(&path).ok_or_else(|| {
            VersionError::Node(format!(
                "the pinned Node at {} does not run",
                path.display()
            ))
        })?;
        Ok(NodeRuntime { path, version })
    }
}

enum InstallFail {
    Unavailable,
    Proc(ProcError),
    Io(PathBuf, std::io::Error),
}

impl From<(PathBuf, std::io::Error)> for InstallFail {
    fn from((p, e): (PathBuf, std::io::Error)) -> Self {
        InstallFail::Io(p, e)
    }
}

impl InstallFail {
    fn describe(&self) -> String {
        match self {
            InstallFail::Unavailable => "not served by the registry".into(),
            InstallFail::Proc(e) => e.to_string(),
            InstallFail::Io(p, e) => format!("{}: {e}", p.display()),
        }
    }
}

fn copy(from: &Path, to: &Path) -> Result<(), InstallFail> {
    std::fs::copy(from, to)
        .map(drop)
        .map_err(|e| InstallFail::Io(from.to_path_buf(), e))
}

fn write(path: &Path, text: &str) -> Result<(), InstallFail> {
    std::fs::write(path, text).map_err(|e| InstallFail::Io(path.to_path_buf(), e))
}

/// The manifest of an on-demand install.
fn manifest(v: MastraVersion) -> String {
    format!(
        "{{\n  \"name\": \"mastra-conform-install\",\n  \"private\": true,\n  \"dependencies\": {{\n    \"@mastra/core\": \"{v}\",\n    \"zod\": \"{ZOD}\"\n  }}\n}}\n"
    )
}

/// A short digest of a pin folder's lockfile, so that a changed lock makes a
/// fresh install instead of reusing a stale one.
fn lock_digest(dir: &Path) -> Option<String> {
    let bytes = std::fs::read(dir.join("package-lock.json")).ok()?;
    // FNV-1a: a cache key, not a security check (npm ci verifies integrity).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    Some(format!("{h:016x}")[..12].to_string())
}

fn node_version(path: &Path) -> Option<String> {
    let out = CommandSpec::new(path)
        .arg("--version")
        .timeout(Duration::from_secs(20))
        .run_capture()
        .ok()?;
    let v = String::from_utf8(out.stdout).ok()?.trim().to_string();
    v.starts_with('v').then_some(v)
}

/// Whether `v22.13.0`-style `version` is at least `(major, minor)`.
pub fn version_at_least(version: &str, (major, minor): (u32, u32)) -> bool {
    let mut parts = version
        .trim_start_matches('v')
        .split('.')
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let (ma, mi) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (ma, mi).cmp(&(major, minor)) != Ordering::Less
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> MastraVersion {
        MastraVersion::parse(s).unwrap()
    }

    #[test]
    fn versions_parse_strictly_and_order_numerically() {
        assert_eq!(v("1.67.0"), MastraVersion::new(1, 67, 0));
        assert!(v("1.9.0") < v("1.10.0"));
        for bad in [
            "1.67",
            "1.67.0-alpha.4",
            "v1.0.0",
            "01.2.3",
            "1.2.3.4",
            "",
            "latest",
        ] {
            assert_eq!(MastraVersion::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn specs_resolve_against_the_published_list() {
        let published = [
            v("0.24.9"),
            v("1.0.4"),
            v("1.60.0"),
            v("1.67.0"),
            v("1.70.0"),
            v("1.71.0"),
        ];
        let r = |s: &str| resolve(&VersionSpec::parse_list(s).unwrap(), &published).unwrap();
        assert_eq!(r("latest"), vec![v("1.71.0")]);
        assert_eq!(r(">=1.60.0 <1.70.0"), vec![v("1.60.0"), v("1.67.0")]);
        assert_eq!(
            r("all"),
            vec![
                v("1.0.4"),
                v("1.60.0"),
                v("1.67.0"),
                v("1.70.0"),
                v("1.71.0")
            ]
        );
        assert_eq!(
            r("pinned,latest"),
            vec![v("1.0.0"), v("1.0.4"), v("1.67.0"), v("1.71.0")]
        );
        assert_eq!(
            r("1.67.0,1.67.0"),
            vec![v("1.67.0")],
            "duplicates are dropped"
        );
        assert!(resolve(&VersionSpec::parse_list(">=2.0.0").unwrap(), &published).is_err());
        for bad in ["", "1.x", "~1.2.0", ">=1.0", "=>1.0.0"] {
            assert!(VersionSpec::parse_list(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn node_versions_compare_by_major_and_minor() {
        assert!(version_at_least("v24.22.3", MIN_NODE));
        assert!(version_at_least("v22.13.0", MIN_NODE));
        assert!(!version_at_least("v22.12.9", MIN_NODE));
        assert!(!version_at_least("v20.20.2", MIN_NODE));
    }
}
