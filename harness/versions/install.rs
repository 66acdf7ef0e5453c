//! `Installs`: what the registry serves (`Registry`), builds made ready
//! (`Build`), and installing and caching `@mastra/core` versions and the Node
//! runtime that runs them.
//!
//! In: `MastraVersion`s (releases, prereleases, builds) and build paths.
//! Out: finished install folders, each holding `node_modules` and
//! `probe-entry.mjs` (`node-probe/PROTOCOL.md`), and a Node binary new enough
//! for them.
//!
//! What is installed is one npm dependency (`install_source`): a registry
//! version, or a build's tarball kept in `CACHE/builds/HASH.tgz` (a folder is
//! packed into one first), so a build installs exactly as npm installs that
//! tarball, its dependencies included. How it is installed is the same for
//! all of them.
//!
//! Every install goes to a temporary folder beside its final one and is
//! renamed into place only once complete (with a marker written last), so an
//! interrupted install is never taken for a good one. Two runs share the
//! cache through a lock file per install (`CACHE/locks/`, `flock`): the
//! second waits for the first and then uses its install; a temporary folder
//! found while holding the lock is a dead run's leftover and is removed. An
//! interrupted run ends its installer at once.
//!
//! Versions install with pnpm (pinned in `node-probe/pnpm/`, itself from the
//! npm registry with `npm ci`) into `CACHE/installs/`, every install
//! hard-linked from one content-addressed store (`store`), so several can
//! run at once and what versions share is fetched and written once.
//! Package scripts never run (`--ignore-scripts`). Pinned versions install
//! with `--frozen-lockfile` from their committed `pnpm-lock.yaml`, made by
//! `pnpm import` from their `package-lock.json` (a test checks that every
//! integrity hash agrees), and pnpm checks every tarball against it. `pnpm
//! import` takes hashes from the registry, not from the npm lockfile
//! (measured), so it never runs at install time: a pin with only an npm
//! lockfile installs with `npm ci`, as before. The entry point is `ensure`;
//! what goes into an install (`InstallPlan`: its manifest and lockfile) is
//! apart from how it is made (`make`).

use crate::observe::proc::{CommandSpec, ProcError};
use crate::versions::spec::{Build, Label, MastraVersion, Registry, SpecError, LABEL_MAX};
use crate::versions::store::{
    binary_in, install_args, pnpm_command, strip_core, workspace_settings, Store,
};
use std::cmp::Ordering;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The zod every install uses, as the report did.
pub const ZOD: &str = "3.25.76";

/// `@mastra/core` 1.x needs this Node or newer.
pub const MIN_NODE: (u32, u32) = (22, 13);

/// Why a version (or the Node to run it) could not be had.
#[derive(Debug, thiserror::Error)]
pub enum VersionError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error("@mastra/core@{0} is not served by the registry")]
    Unavailable(MastraVersion),
    #[error("build {0} is not in the cache: give its tarball or folder instead")]
    BuildNotCached(MastraVersion),
    #[error("build {}: {problem}", path.display())]
    Build { path: PathBuf, problem: String },
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
        matches!(
            self,
            VersionError::Unavailable(_) | VersionError::BuildNotCached(_)
        )
    }
}

/// A spec that cannot be read or selects nothing is bad input; a registry,
/// an install or a Node that cannot be had is the machine's failure.
impl From<VersionError> for crate::outcome::Failure {
    fn from(e: VersionError) -> Self {
        use crate::outcome::Failure;
        match e {
            VersionError::Spec(s) => Failure::bad(format!("--versions: {s}")),
            VersionError::Build { .. } => Failure::bad(e.to_string()),
            other => Failure::infra_because("a version could not be had", other),
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
pub const COMPLETE: &str = ".mastra-conform-complete";

/// The folder of `@mastra/core` installs in the cache. (Before pnpm they
/// were npm installs under `mastra/`; `cache prune` removes those.)
pub const INSTALLS: &str = "installs";

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

    /// What the registry serves of `@mastra/core`: every version,
    /// prereleases included, ascending, and the dist-tags (one `npm view`).
    pub fn registry(&self) -> Result<Registry, VersionError> {
        let out = self
            .npm(
                &["view", "@mastra/core", "versions", "dist-tags", "--json"],
                &self.cache_dir()?,
            )
            .timeout(Duration::from_secs(60))
            .run_capture()
            .map_err(VersionError::Registry)?;
        let bad = |what: String| {
            VersionError::Registry(ProcError::Output(format!(
                "npm view printed something other than versions and dist-tags: {what}"
            )))
        };
        let view: serde_json::Value =
            serde_json::from_slice(&out.stdout).map_err(|e| bad(e.to_string()))?;
        let list = view["versions"]
            .as_array()
            .ok_or_else(|| bad("no `versions` list".into()))?;
        let mut versions: Vec<MastraVersion> = list
            .iter()
            .filter_map(|s| MastraVersion::parse(s.as_str()?))
            .collect();
        versions.sort();
        let mut tags: Vec<(String, MastraVersion)> = view["dist-tags"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(t, v)| Some((t.clone(), MastraVersion::parse(v.as_str()?)?)))
            .collect();
        tags.sort();
        Ok(Registry { versions, tags })
    }

    /// What npm installs as `@mastra/core` for `v`: its name in the registry,
    /// or, for a build, `file:` its tarball in the cache.
    pub fn install_source(&self, v: MastraVersion) -> String {
        match v.build {
            Some(hash) => format!("file:{}", self.build_tarball(hash.as_str()).display()),
            None => v.registry_name(),
        }
    }

    /// Where prepared builds are kept: `CACHE/builds/HASH.tgz`, each the
    /// tarball npm installs (a folder is packed first, as `npm pack` ships it).
    fn build_tarball(&self, hash: &str) -> PathBuf {
        self.cache.join("builds").join(format!("{hash}.tgz"))
    }

    /// Look at a build given as a path: a packed tarball or a folder whose
    /// package.json names `@mastra/core`. Hash its content, name it by its
    /// package.json version plus that hash, and keep its tarball in the
    /// cache (packing a folder), so that its install is the install of
    /// that tarball, cached by the hash: a rebuilt folder hashes anew and
    /// installs again.
    pub fn prepare_build(&self, given: &Path) -> Result<Build, VersionError> {
        let bad = |problem: String| VersionError::Build {
            path: given.to_path_buf(),
            problem,
        };
        let meta = std::fs::metadata(given).map_err(|e| {
            bad(format!(
                "cannot read it ({e}); give a packed tarball or a folder"
            ))
        })?;
        let (kind, hash, manifest) = if meta.is_dir() {
            let text = std::fs::read_to_string(given.join("package.json"))
                .map_err(|e| bad(format!("no readable package.json in the folder ({e})")))?;
            (
                "folder",
                folder_digest(given).map_err(|e| bad(e.to_string()))?,
                text,
            )
        } else {
            let bytes = std::fs::read(given).map_err(|e| bad(e.to_string()))?;
            let out = CommandSpec::new("tar")
                .args(["-xzOf"])
                .arg(given)
                .arg("package/package.json")
                .timeout(Duration::from_secs(60))
                .run_capture()
                .map_err(|e| {
                    bad(format!(
                        "not a packed npm tarball with package/package.json ({e})"
                    ))
                })?;
            let text = String::from_utf8(out.stdout).map_err(|e| bad(e.to_string()))?;
            ("tarball", fnv_hex(&bytes), text)
        };
        let pkg: serde_json::Value = serde_json::from_str(&manifest)
            .map_err(|e| bad(format!("package.json is not JSON: {e}")))?;
        if pkg["name"].as_str() != Some("@mastra/core") {
            return Err(bad(format!(
                "package.json names {}, not @mastra/core",
                pkg["name"]
            )));
        }
        let said = pkg["version"].as_str().unwrap_or_default();
        let release = MastraVersion::parse(said).ok_or_else(|| {
            bad(format!(
                "package.json version {said:?} is not a version (MAJOR.MINOR.PATCH, with a prerelease label of at most {LABEL_MAX} characters)"
            ))
        })?;
        let version = MastraVersion {
            build: Label::new(&hash),
            ..release
        };
        let tarball = self.build_tarball(&hash);
        if !tarball.is_file() {
            self.keep_build(given, kind == "folder", &tarball)
                .map_err(|e| match e {
                    InstallFail::Io(path, cause) => VersionError::Cache { path, cause },
                    other => VersionError::Install {
                        what: format!("the build {}", given.display()),
                        cause: match other {
                            InstallFail::Proc(p) => p,
                            x => ProcError::Output(x.describe()),
                        },
                    },
                })?;
        }
        Ok(Build {
            path: given.to_path_buf(),
            version,
            kind,
        })
    }

    /// Copy (or, for a folder, `npm pack`) a build into `tarball`, through a
    /// temporary folder so that a half-written one is never taken.
    fn keep_build(&self, given: &Path, folder: bool, tarball: &Path) -> Result<(), InstallFail> {
        let dir = tarball.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| InstallFail::Io(dir.to_path_buf(), e))?;
        let tmp = tempfile::Builder::new()
            .prefix(".tmp-build-")
            .tempdir_in(dir)
            .map_err(|e| InstallFail::Io(dir.to_path_buf(), e))?;
        let made = if folder {
            let abs = std::fs::canonicalize(given).map_err(|e| InstallFail::Io(given.into(), e))?;
            self.npm(&["pack", "--pack-destination"], tmp.path())
                .arg(tmp.path())
                .arg(&abs)
                .run_capture()
                .map_err(InstallFail::Proc)?;
            // npm names the file for the package; it is the only one there.
            std::fs::read_dir(tmp.path())
                .map_err(|e| InstallFail::Io(tmp.path().to_path_buf(), e))?
                .flatten()
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|x| x == "tgz"))
                .ok_or_else(|| {
                    InstallFail::Proc(ProcError::Output("npm pack wrote no tarball".into()))
                })?
        } else {
            let to = tmp.path().join("build.tgz");
            copy(given, &to)?;
            to
        };
        std::fs::rename(&made, tarball).map_err(|e| InstallFail::Io(tarball.to_path_buf(), e))
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

    /// Where the installs live.
    pub fn installs_dir(&self) -> PathBuf {
        self.cache.join(INSTALLS)
    }

    /// Where version `v` is (or would be) installed.
    pub fn install_dir(&self, v: MastraVersion) -> PathBuf {
        match self.pin_dir(v).and_then(|d| lock_digest(&d)) {
            Some(digest) => self.installs_dir().join(format!("{v}-lock-{digest}")),
            None => self.installs_dir().join(v.to_string()),
        }
    }

    /// Whether `v` is installed, from what it would be installed from
    /// today: an install made from another manifest (an older harness's,
    /// without today's extras) is not.
    pub fn is_installed(&self, v: MastraVersion) -> bool {
        marked(&self.install_dir(v), &self.plan(v).key())
    }

    /// The marker a complete install of `v` carries (for a stand-in
    /// install a test makes by hand).
    pub fn complete_marker(&self, v: MastraVersion) -> (PathBuf, String) {
        (self.install_dir(v).join(COMPLETE), self.plan(v).key())
    }

    /// What `v` is installed from: its pin folder's manifest and lockfile,
    /// or a manifest naming it and the extras of its release.
    fn plan(&self, v: MastraVersion) -> InstallPlan {
        match self.pin_dir(v) {
            Some(pin) => InstallPlan {
                manifest: Manifest::File(pin.join("package.json")),
                lock: [pin.join("pnpm-lock.yaml"), pin.join("package-lock.json")]
                    .into_iter()
                    .find(|l| l.is_file()),
            },
            None => InstallPlan {
                manifest: Manifest::Text(manifest(
                    &self.install_source(v),
                    &super::extras::extras(v.release()),
                )),
                lock: None,
            },
        }
    }

    /// Remove the install at `dir` under its lock (a run that holds the
    /// lock, making or using it, finishes first): moved aside, then deleted,
    /// so no reader ever sees it half gone.
    pub fn remove_install(&self, dir: &Path) -> std::io::Result<()> {
        let _lock = self
            .lock(dir)
            .map_err(|e| std::io::Error::other(e.describe()))?;
        let parent = dir.parent().unwrap_or(Path::new("."));
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let aside = parent.join(format!(".tmp-{name}-pruned-{}", std::process::id()));
        std::fs::rename(dir, &aside)?;
        std::fs::remove_dir_all(&aside)
    }

    /// The cache's one package store.
    pub fn store(&self) -> Store {
        Store::new(&self.cache)
    }

    /// Free the store files no install links any more (after installs,
    /// which strip files, or a prune); skipped while another install runs.
    pub fn sweep(&self) -> std::io::Result<u64> {
        self.store().sweep(Duration::from_secs(2))
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
        let plan = self.plan(v);
        let key = plan.key();
        if marked(&dir, &key) {
            mark_used(&dir);
            return Ok(dir);
        }
        if v.build
            .is_some_and(|h| !self.build_tarball(h.as_str()).is_file())
        {
            return Err(VersionError::BuildNotCached(v));
        }
        let served = published.map(|list| v.is_build() || list.contains(&v));
        if served == Some(false) {
            return Err(VersionError::Unavailable(v));
        }
        let what = format!("@mastra/core@{v}");
        self.make(&dir, &plan, &key).map_err(|e| match e {
            InstallFail::Unavailable => VersionError::Unavailable(v),
            InstallFail::Proc(cause) => {
                // Not found, for a version the registry lists (or a build),
                // is a dependency it does not serve: the installer's words
                // name it, and the install failed.
                let not_found = cause.stderr_mentions(&["ETARGET", "E404", "No matching version"]);
                if not_found && served != Some(true) {
                    VersionError::Unavailable(v)
                } else {
                    VersionError::Install { what, cause }
                }
            }
            InstallFail::Io(path, cause) => VersionError::Cache { path, cause },
        })?;
        Ok(dir)
    }

    /// Make the install `plan` describes at `dir` (atomically, under its
    /// lock): the manifest, the lockfile, the store settings, `pnpm install`
    /// (frozen to the lockfile when there is one), the never-loaded files of
    /// `@mastra/core` removed, and the probe's entry module.
    fn make(&self, dir: &Path, plan: &InstallPlan, key: &str) -> Result<(), InstallFail> {
        let pnpm = self.pnpm()?;
        let store = self.store();
        let home = self.cache.join("pnpm-home");
        self.install_atomically(dir, key, |tmp| {
            match &plan.manifest {
                Manifest::File(p) => copy(p, &tmp.join("package.json"))?,
                Manifest::Text(t) => write(&tmp.join("package.json"), t)?,
            }
            write(
                &tmp.join("pnpm-workspace.yaml"),
                &workspace_settings(&store.dir, &home.join("cache")),
            )?;
            let pnpm_run = |args: &[&str]| {
                pnpm_command(&pnpm, tmp, &home, args)
                    .timeout(self.install_timeout)
                    .cancel_on(self.cancel.clone())
                    .run_capture()
                    .map(drop)
                    .map_err(InstallFail::Proc)
            };
            if let Some(lock) = &plan.lock {
                let name = lock.file_name().unwrap_or_default();
                copy(lock, &tmp.join(name))?;
                if name == "package-lock.json" {
                    // npm's own check of its lockfile, in a folder of its own
                    // (not linked to the store).
                    self.npm(&["ci", "--ignore-scripts"], tmp)
                        .run_capture()
                        .map(drop)
                        .map_err(InstallFail::Proc)?;
                    write(&tmp.join("probe-entry.mjs"), ENTRY)?;
                    return Ok(());
                }
            }
            {
                // Shared: installs run side by side; a sweep waits for none.
                let _held = store
                    .hold(false, self.install_timeout)
                    .map_err(|e| InstallFail::Io(store.lock.clone(), e))?;
                pnpm_run(&install_args(plan.lock.is_some()))?;
                strip_core(tmp);
            }
            write(&tmp.join("probe-entry.mjs"), ENTRY)?;
            Ok(())
        })
    }

    /// The pnpm binary: `MASTRA_CONFORM_PNPM` when set (the fault suite's
    /// stand-in), else the pinned one from `node-probe/pnpm/`, installed
    /// from the npm registry into the cache with `npm ci`.
    pub fn pnpm(&self) -> Result<PathBuf, InstallFail> {
        if let Some(p) = std::env::var_os("MASTRA_CONFORM_PNPM") {
            return Ok(PathBuf::from(p));
        }
        Ok(binary_in(&self.npm_tool("pnpm")?))
    }

    /// Biome, pinned in `node-probe/biome/` and installed as pnpm is:
    /// `make check` formats and lints the JavaScript with it. Its launcher
    /// runs on the `node` of PATH.
    pub fn biome(&self) -> Result<PathBuf, InstallFail> {
        Ok(self.npm_tool("biome")?.join("node_modules/.bin/biome"))
    }

    /// The tool folder `node-probe/NAME/` (a manifest and its npm
    /// lockfile), installed from the npm registry into
    /// `CACHE/tools/NAME-lock-DIGEST` once, with `npm ci`.
    fn npm_tool(&self, name: &str) -> Result<PathBuf, InstallFail> {
        let tool = self.probe_dir.join(name);
        let digest = lock_digest(&tool).ok_or_else(|| {
            InstallFail::Io(
                tool.join("package-lock.json"),
                std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!("no lockfile for {name}"),
                ),
            )
        })?;
        let dir = self
            .cache
            .join("tools")
            .join(format!("{name}-lock-{digest}"));
        if !dir.join(COMPLETE).is_file() {
            self.install_npm_locked(&tool, &dir)?;
        }
        Ok(dir)
    }

    /// Install a tool folder of `node-probe/` (the pinned Node, pnpm, Biome) into
    /// `dir` with `npm ci` from its committed lockfile, which checks every
    /// package's integrity.
    fn install_npm_locked(&self, src: &Path, dir: &Path) -> Result<(), InstallFail> {
        self.install_atomically(dir, "", |tmp| {
            copy(&src.join("package.json"), &tmp.join("package.json"))?;
            copy(
                &src.join("package-lock.json"),
                &tmp.join("package-lock.json"),
            )?;
            self.npm(&["ci", "--ignore-scripts"], tmp)
                .run_capture()
                .map(drop)
                .map_err(InstallFail::Proc)
        })
    }

    /// Install into a fresh temporary folder beside `dir`, mark it complete,
    /// rename it into place; all under `dir`'s lock, so that a run that
    /// waited finds the finished install instead of making a second one.
    fn install_atomically(
        &self,
        dir: &Path,
        key: &str,
        fill: impl FnOnce(&Path) -> Result<(), InstallFail>,
    ) -> Result<(), InstallFail> {
        let parent = dir.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent).map_err(|e| InstallFail::Io(parent.to_path_buf(), e))?;
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let _lock = self.lock(dir)?;
        if marked(dir, key) {
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
        write(&tmp.path().join(COMPLETE), key)?;
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
            self.install_npm_locked(&runtime, &dir).map_err(|e| {
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

/// What goes into an install: its manifest and, for a pinned version, the
/// lockfile it is frozen to. (Builds and extra packages extend this, not
/// `make`.)
pub struct InstallPlan {
    pub manifest: Manifest,
    /// `pnpm-lock.yaml`, or a `package-lock.json` (installed by `npm ci`).
    pub lock: Option<PathBuf>,
}

impl InstallPlan {
    /// What an install's marker records of the plan it was made from: a
    /// digest of its manifest (the lockfile's is in a pinned install's
    /// folder name).
    fn key(&self) -> String {
        let bytes = match &self.manifest {
            Manifest::File(p) => std::fs::read(p).unwrap_or_default(),
            Manifest::Text(t) => t.clone().into_bytes(),
        };
        format!("manifest {}", &fnv_hex(&bytes)[..12])
    }
}

/// Whether the install at `dir` is complete and was made from the plan
/// whose key is `key`.
fn marked(dir: &Path, key: &str) -> bool {
    std::fs::read_to_string(dir.join(COMPLETE)).is_ok_and(|k| k.trim() == key)
}

pub enum Manifest {
    /// A committed `package.json`.
    File(PathBuf),
    /// One written for this install.
    Text(String),
}

pub enum InstallFail {
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
    pub fn describe(&self) -> String {
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

/// The manifest of an on-demand install: `@mastra/core` from `source`
/// (a registry version, or `file:` a build's tarball), zod, and the
/// packages every tool source needs (`extras`, for the release it is).
fn manifest(source: &str, extras: &[(&str, &str)]) -> String {
    let mut dependencies = serde_json::json!({ "@mastra/core": source, "zod": ZOD });
    for (name, version) in extras {
        dependencies[*name] = serde_json::json!(version);
    }
    let m = serde_json::json!({
        "name": "mastra-conform-install",
        "private": true,
        "dependencies": dependencies,
    });
    format!("{m:#}\n")
}

/// FNV-1a, 64 bits, fed in pieces: a cache key for builds and lockfiles,
/// not a security check.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn feed(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

fn fnv_hex(bytes: &[u8]) -> String {
    let mut h = Fnv::new();
    h.feed(bytes);
    h.hex()
}

/// The content hash of a build folder: every file's path and bytes, in
/// sorted order, leaving out `node_modules` and `.git` (what npm never packs).
fn folder_digest(root: &Path) -> std::io::Result<String> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let name = entry.file_name();
            if name == "node_modules" || name == ".git" {
                continue;
            }
            let kind = entry.file_type()?;
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                files.push(entry.path());
            }
        }
    }
    files.sort();
    let mut h = Fnv::new();
    for f in files {
        let rel = f.strip_prefix(root).unwrap_or(&f);
        h.feed(rel.to_string_lossy().as_bytes());
        h.feed(&[0]);
        let bytes = std::fs::read(&f)?;
        h.feed(&(bytes.len() as u64).to_le_bytes());
        h.feed(&bytes);
    }
    Ok(h.hex())
}

/// When an install was last used: its marker's time, set on every use
/// (`cache prune --keep N` keeps the most recently used).
fn mark_used(dir: &Path) {
    if let Ok(f) = std::fs::File::options()
        .write(true)
        .open(dir.join(COMPLETE))
    {
        let _ = f.set_modified(std::time::SystemTime::now());
    }
}

/// A short digest of a pin folder's lockfiles (npm's, and pnpm's when
/// there is one), so that a changed lock makes a fresh install instead of
/// reusing a stale one.
fn lock_digest(dir: &Path) -> Option<String> {
    let mut bytes = std::fs::read(dir.join("package-lock.json")).ok()?;
    if let Ok(pnpm) = std::fs::read(dir.join("pnpm-lock.yaml")) {
        bytes.extend(pnpm);
    }
    // A cache key, not a security check (the installers verify integrity).
    Some(fnv_hex(&bytes)[..12].to_string())
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

    /// `name@version` -> integrity, from an npm lockfile (aliases under
    /// their real names).
    fn npm_hashes(lock: &Path) -> Vec<(String, String)> {
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(lock).unwrap()).unwrap();
        let mut out = Vec::new();
        for (key, entry) in json["packages"].as_object().unwrap() {
            let Some(integrity) = entry["integrity"].as_str() else {
                continue;
            };
            let name = entry["name"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| key.rsplit("node_modules/").next().unwrap().to_string());
            let version = entry["version"].as_str().unwrap();
            out.push((format!("{name}@{version}"), integrity.to_string()));
        }
        out
    }

    /// `name@version` -> integrity, from the `packages:` section of a pnpm
    /// lockfile (v9: a key line, then its `resolution`).
    fn pnpm_hashes(lock: &Path) -> Vec<(String, String)> {
        let text = std::fs::read_to_string(lock).unwrap();
        let section = text
            .split("\npackages:\n")
            .nth(1)
            .and_then(|t| t.split("\nsnapshots:\n").next())
            .unwrap();
        let mut out = Vec::new();
        let mut key = None;
        for line in section.lines() {
            if let Some(k) = line.strip_prefix("  ").filter(|k| !k.starts_with(' ')) {
                key = Some(k.trim_end_matches(':').trim_matches('\'').to_string());
            } else if let Some(rest) = line.trim().strip_prefix("resolution: {integrity: ") {
                let hash = rest.trim_end_matches('}').to_string();
                out.push((key.clone().unwrap(), hash));
            }
        }
        out
    }

    #[test]
    fn every_pinned_pnpm_lockfile_carries_the_npm_lockfiles_hashes() {
        let pins = Path::new(env!("CARGO_MANIFEST_DIR")).join("node-probe/pins");
        let mut checked = 0;
        for pin in std::fs::read_dir(&pins).unwrap().flatten() {
            let pnpm = pin.path().join("pnpm-lock.yaml");
            let npm = pin.path().join("package-lock.json");
            if !pnpm.is_file() {
                continue;
            }
            assert!(
                npm.is_file(),
                "{} has no npm lockfile to check against",
                pin.path().display()
            );
            let npm = npm_hashes(&npm);
            let pnpm = pnpm_hashes(&pnpm);
            assert!(
                pnpm.len() > 100,
                "{}: {} packages",
                pin.path().display(),
                pnpm.len()
            );
            for (package, hash) in &pnpm {
                assert!(
                    npm.iter().any(|(p, h)| p == package && h == hash),
                    "{}: {package} {hash} is not what package-lock.json pins",
                    pin.path().display()
                );
            }
            checked += 1;
        }
        assert!(checked >= 2, "pins with pnpm lockfiles: {checked}");
    }

    #[test]
    fn a_build_folder_hashes_its_files_and_ignores_node_modules() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("dist")).unwrap();
        std::fs::write(root.join("package.json"), "{}").unwrap();
        std::fs::write(root.join("dist/a.js"), "a").unwrap();
        let first = folder_digest(root).unwrap();
        assert_eq!(first.len(), 16);
        std::fs::create_dir_all(root.join("node_modules/x")).unwrap();
        std::fs::write(root.join("node_modules/x/i.js"), "x").unwrap();
        assert_eq!(
            folder_digest(root).unwrap(),
            first,
            "node_modules is not the build"
        );
        std::fs::write(root.join("dist/a.js"), "b").unwrap();
        let rebuilt = folder_digest(root).unwrap();
        assert_ne!(rebuilt, first, "a rebuilt file is a new build");
        std::fs::rename(root.join("dist/a.js"), root.join("dist/b.js")).unwrap();
        assert_ne!(folder_digest(root).unwrap(), rebuilt, "names count too");
    }

    #[test]
    fn a_build_installs_from_its_tarball_and_a_release_from_the_registry() {
        let installs = Installs {
            cache: PathBuf::from("/cache"),
            probe_dir: PathBuf::from("/repo/node-probe"),
            install_timeout: Duration::from_secs(1),
            cancel: None,
        };
        let v = |s: &str| MastraVersion::parse(s).unwrap();
        assert_eq!(installs.install_source(v("1.67.0")), "1.67.0");
        assert_eq!(
            installs.install_source(v("1.67.0-alpha.4")),
            "1.67.0-alpha.4"
        );
        assert_eq!(
            installs.install_source(v("1.67.0+8a28e80ae2e3747e")),
            "file:/cache/builds/8a28e80ae2e3747e.tgz"
        );
        assert_eq!(
            installs.install_dir(v("1.67.0+8a28e80ae2e3747e")),
            PathBuf::from("/cache/installs/1.67.0+8a28e80ae2e3747e")
        );
        let m: serde_json::Value = serde_json::from_str(&manifest("file:/x.tgz", &[])).unwrap();
        assert_eq!(m["dependencies"]["@mastra/core"], "file:/x.tgz");
        assert_eq!(m["dependencies"]["zod"], ZOD);
    }

    #[test]
    fn an_install_made_from_another_manifest_is_not_installed() {
        // The CI failure of 2026-11-30: a cache kept an install of
        // 1.1.0-alpha.2 made before the extras (no @mastra/mcp), and every
        // MCP case on it was a probe fault.
        let tmp = tempfile::tempdir().unwrap();
        let installs = Installs {
            cache: tmp.path().join("cache"),
            probe_dir: tmp.path().join("probe"),
            install_timeout: Duration::from_secs(1),
            cancel: None,
        };
        let v = MastraVersion::parse("1.1.0-alpha.2").unwrap();
        let dir = installs.install_dir(v);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(COMPLETE), "").unwrap();
        assert!(!installs.is_installed(v), "an older harness's install");
        let (marker, key) = installs.complete_marker(v);
        assert_eq!(marker, dir.join(COMPLETE));
        std::fs::write(&marker, &key).unwrap();
        assert!(installs.is_installed(v));
        let other = installs.complete_marker(MastraVersion::parse("1.68.0").unwrap());
        assert_ne!(other.1, key, "another release has other extras");
    }

    #[test]
    fn node_versions_compare_by_major_and_minor() {
        assert!(version_at_least("v24.22.3", MIN_NODE));
        assert!(version_at_least("v22.13.0", MIN_NODE));
        assert!(!version_at_least("v22.12.9", MIN_NODE));
        assert!(!version_at_least("v20.20.2", MIN_NODE));
    }
}
