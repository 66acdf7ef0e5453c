//! `Installs::ensure`: installing `@mastra/core` versions into the cache,
//! the entry point every run takes, and `VersionError`, why a version (or
//! the Node to run it) could not be had.
//!
//! In: `MastraVersion`s (releases, prereleases, builds). Out: finished
//! install folders, each holding `node_modules` and `probe-entry.mjs`
//! (`node-probe/PROTOCOL.md`).
//!
//! What is installed is one npm dependency (`install_source`): a registry
//! version, or a build's tarball in the cache (`build`), so a build
//! installs exactly as npm installs that tarball, its dependencies included.
//! What goes into an install (`InstallInputs`: its manifest and lockfile)
//! is apart from how it is made (`make`); the subjects around it have their
//! own modules (`versions`).
//!
//! Every install is made whole or not at all, under its lock
//! (`layout::Installs::install_atomically`): two runs share the cache, the
//! second waits for the first and then uses its install, and an interrupted
//! run ends its installer at once.
//!
//! Versions install with pnpm into `CACHE/installs/`. Package scripts never
//! run. Pinned versions install with `--frozen-lockfile` from their
//! committed `pnpm-lock.yaml`, made by `pnpm import` from their
//! `package-lock.json` (a test checks that every integrity hash agrees), and
//! pnpm checks every tarball against it. `pnpm import` takes hashes from the
//! registry, not from the npm lockfile (measured), so it never runs at
//! install time: a pin with only an npm lockfile installs with `npm ci`.

use crate::install::build::BuildError;
use crate::install::layout::{
    copy_file, mark_used, marked, write_file, FsError, InstallError, Installs, Made, COMPLETE,
};
use crate::install::lock::Hold;
use crate::install::manager::{install_args, pnpm_command, workspace_settings};
use crate::install::node::NodeError;
use crate::install::registry::RegistryError;
use crate::install::store::{strip_core, Store};
use crate::install::verify::{damaged_links, import_damage, remove_store_copies, Damage};
use crate::version::digest::bytes_digest;
use crate::version::spec::{MastraVersion, SpecError};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The zod every install uses, the one the measurements behind the model
/// were made with.
pub const ZOD: &str = "3.25.76";

/// Why a version (or the Node to run it) could not be had.
#[derive(Debug, thiserror::Error)]
pub enum VersionError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error("@mastra/core@{0} is not served by the registry")]
    Unavailable(MastraVersion),
    #[error("build {0} is not in the cache: give its tarball or folder instead")]
    BuildNotCached(MastraVersion),
    #[error("build {}", path.display())]
    Build {
        path: PathBuf,
        #[source]
        cause: BuildError,
    },
    #[error(transparent)]
    Unplaced(#[from] crate::version::spec::Unplaced),
    #[error("cannot read what the snapshot was cut from")]
    Changelog(#[source] Arc<crate::install::registry::ChangelogError>),
    /// Shared: a session asks the registry once, and every version that
    /// needed it fails with the same cause.
    #[error("cannot list @mastra/core versions from the registry")]
    Registry(#[source] Arc<RegistryError>),
    #[error("installing {what} failed")]
    Install {
        what: String,
        #[source]
        cause: InstallError,
    },
    #[error("no usable Node")]
    Node(#[source] Arc<NodeError>),
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

/// A spec that cannot be read or selects nothing, or a path that is no
/// build, is bad input; a registry, an install or a Node that cannot be had
/// is the machine's failure.
impl From<VersionError> for crate::outcome::Failure {
    fn from(e: VersionError) -> Self {
        use crate::outcome::Failure;
        match e {
            VersionError::Spec(s) => Failure::bad(format!("--versions: {s}")),
            VersionError::Unplaced(u) => Failure::bad(u.to_string()),
            VersionError::Build { path, cause } => {
                Failure::bad_because(format!("build {}", path.display()), cause)
            }
            other => Failure::infra_because("a version could not be had", other),
        }
    }
}

/// The module every install gives the probe to import.
const ENTRY: &str = "export * as agent from '@mastra/core/agent';\n\
export * as tools from '@mastra/core/tools';\n\
export { z } from 'zod';\n";

/// The entry of a core without an Agent (0.1.x: an integrations framework
/// with no `@mastra/core/agent`): the probe loads it and finds no case
/// applicable (`node-probe/legacy.mjs`).
const ENTRY_NO_AGENT: &str = "export const noAgent = true;\nexport { z } from 'zod';\n";

/// The probe's entry for a release of `core`.
fn entry_for(core: MastraVersion) -> &'static str {
    if crate::version::extras::on_zero_line(core) && core < crate::version::extras::FIRST_AGENT {
        ENTRY_NO_AGENT
    } else {
        ENTRY
    }
}

/// What goes into an install: its manifest and, for a pinned version, the
/// lockfile it is frozen to. (Builds and extra packages extend this, not
/// `make`.)
pub struct InstallInputs {
    pub manifest: Manifest,
    /// `pnpm-lock.yaml`, or a `package-lock.json` (installed by `npm ci`).
    pub lock: Option<PathBuf>,
    /// `probe-entry.mjs`.
    pub entry: &'static str,
}

impl InstallInputs {
    /// What an install's marker records of the inputs it was made from: a
    /// digest of its manifest (the lockfile's is in a pinned install's
    /// folder name).
    fn key(&self) -> String {
        let bytes = match &self.manifest {
            Manifest::File(p) => std::fs::read(p).unwrap_or_default(),
            Manifest::Text(t) => t.clone().into_bytes(),
        };
        format!("manifest {}", bytes_digest(&bytes, 12))
    }
}

pub enum Manifest {
    /// A committed `package.json`.
    File(PathBuf),
    /// One written for this install.
    Text(String),
}

impl Installs {
    /// What npm installs as `@mastra/core` for `v`: its name in the registry,
    /// or, for a build, `file:` its tarball in the cache.
    pub fn install_source(&self, v: MastraVersion) -> String {
        match v.build {
            Some(hash) => format!("file:{}", self.build_tarball(hash.as_str()).display()),
            None => v.registry_name(),
        }
    }

    /// Whether `v` is installed, from what it would be installed from
    /// today: an install made from another manifest (an older harness's,
    /// without today's extras) is not.
    pub fn is_installed(&self, v: MastraVersion) -> bool {
        marked(&self.install_dir(v), &self.inputs(v).key())
    }

    /// The marker a complete install of `v` carries (for a stand-in
    /// install a test makes by hand).
    pub fn complete_marker(&self, v: MastraVersion) -> (PathBuf, String) {
        (self.install_dir(v).join(COMPLETE), self.inputs(v).key())
    }

    /// What `v` is installed from: its pin folder's manifest and lockfile,
    /// or a manifest naming it and the extras of its release.
    fn inputs(&self, v: MastraVersion) -> InstallInputs {
        match self.pin_dir(v) {
            Some(pin) => InstallInputs {
                manifest: Manifest::File(pin.join("package.json")),
                lock: [pin.join("pnpm-lock.yaml"), pin.join("package-lock.json")]
                    .into_iter()
                    .find(|l| l.is_file()),
                entry: entry_for(v.release()),
            },
            None => InstallInputs {
                manifest: Manifest::Text(manifest(
                    &self.install_source(v),
                    &crate::version::extras::extras(v.release()),
                )),
                lock: None,
                entry: entry_for(v.release()),
            },
        }
    }

    /// Remove the install at `dir` under its lock (a run that holds the
    /// lock, making or using it, finishes first): moved aside, then deleted,
    /// so no reader ever sees it half gone.
    pub fn remove_install(&self, dir: &Path) -> std::io::Result<()> {
        let _lock = self.lock(dir).map_err(std::io::Error::other)?;
        std::fs::remove_dir_all(moved_aside(dir)?)
    }

    /// Remove the install at `dir` unless a run holds it (`hold_for_use`):
    /// `Ok(false)`, and nothing removed, when one does.
    pub fn remove_install_unless_used(&self, dir: &Path) -> std::io::Result<bool> {
        let path = crate::install::layout::lock_file(&self.cache, dir);
        let poll = Duration::from_millis(10);
        match crate::install::lock::take(&path, Hold::Exclusive, Duration::ZERO, poll, None)
            .map_err(std::io::Error::other)?
        {
            crate::install::lock::Waited::Held(lock) => {
                let aside = moved_aside(dir)?;
                drop(lock);
                std::fs::remove_dir_all(&aside)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Hold the install at `dir` for as long as the returned lock lives: a
    /// prune then leaves it alone, and nobody remakes it underneath. The
    /// lock is shared (runs using the same install do not wait for one
    /// another); making or removing an install takes it alone.
    pub fn hold_for_use(
        &self,
        dir: &Path,
    ) -> Result<std::fs::File, crate::install::lock::LockError> {
        let path = crate::install::layout::lock_file(&self.cache, dir);
        match crate::install::lock::take(
            &path,
            Hold::Shared,
            self.install_timeout,
            Duration::from_millis(100),
            self.cancel.as_deref(),
        )? {
            crate::install::lock::Waited::Held(f) => Ok(f),
            crate::install::lock::Waited::Interrupted => {
                Err(crate::install::lock::LockError::Interrupted)
            }
            crate::install::lock::Waited::TimedOut => {
                Err(crate::install::lock::LockError::TimedOut {
                    path,
                    after: self.install_timeout,
                })
            }
        }
    }

    /// `ensure_made`, and the install held for use (`hold_for_use`) until
    /// the returned lock is dropped. The hold is taken after the install is
    /// made (the making takes the same lock alone) and the marker is looked
    /// at again under it, so a prune between the two is noticed and the
    /// install made again.
    pub fn ensure_held(
        &self,
        v: MastraVersion,
        published: Option<&[MastraVersion]>,
    ) -> Result<(PathBuf, Made, std::fs::File), VersionError> {
        let key = self.inputs(v).key();
        let mut made_here = false;
        loop {
            let (dir, made) = self.ensure_made(v, published)?;
            made_here |= made == Made::Here;
            let held = self.hold_for_use(&dir).map_err(|e| VersionError::Install {
                what: format!("@mastra/core@{v}"),
                cause: e.into(),
            })?;
            if marked(&dir, &key) {
                let made = if made_here {
                    Made::Here
                } else {
                    Made::ByAnother
                };
                return Ok((dir, made, held));
            }
        }
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
        self.ensure_made(v, published).map(|(dir, _)| dir)
    }

    /// `ensure`, and whether this call made the install (`Made::Here`) or
    /// found it made, before or while it waited for the lock.
    pub fn ensure_made(
        &self,
        v: MastraVersion,
        published: Option<&[MastraVersion]>,
    ) -> Result<(PathBuf, Made), VersionError> {
        let dir = self.install_dir(v);
        let inputs = self.inputs(v);
        let key = inputs.key();
        if marked(&dir, &key) {
            mark_used(&dir);
            return Ok((dir, Made::ByAnother));
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
        let made = self.make(&dir, &inputs, &key).map_err(|cause| {
            // Not found, for a version the registry lists (or a build), is
            // a dependency it does not serve: the installer's words name
            // it, and the install failed.
            let not_found = matches!(&cause, InstallError::Proc(p)
                if p.stderr_mentions(&["ETARGET", "E404", "No matching version"]));
            if not_found && served != Some(true) {
                VersionError::Unavailable(v)
            } else {
                VersionError::Install {
                    what: format!("@mastra/core@{v}"),
                    cause,
                }
            }
        })?;
        Ok((dir, made))
    }

    /// Make the install `inputs` describe at `dir` (atomically, under its
    /// lock): the manifest, the lockfile, the store settings, `pnpm install`
    /// (frozen to the lockfile when there is one), the never-loaded files of
    /// `@mastra/core` removed, and the probe's entry module; then its store
    /// links hashed (`damage` without the import: a Node start and an
    /// import of Mastra would cost more than the install from a warm
    /// store, and a probe that cannot load the install has it checked
    /// with the import) before the marker. A damaged install is linked
    /// again once, its damaged store files removed first (pnpm fetches
    /// them again); damaged again, it is an error with the remedy.
    fn make(&self, dir: &Path, inputs: &InstallInputs, key: &str) -> Result<Made, InstallError> {
        let pnpm = self.pnpm()?;
        let store = self.store();
        let home = self.pnpm_home();
        self.install_atomically(dir, key, |tmp| {
            match &inputs.manifest {
                Manifest::File(p) => copy_file(p, &tmp.join("package.json"))?,
                Manifest::Text(t) => write_file(&tmp.join("package.json"), t)?,
            }
            write_file(
                &tmp.join("pnpm-workspace.yaml"),
                &workspace_settings(&store.dir, &home.join("cache")),
            )?;
            write_file(&tmp.join("probe-entry.mjs"), inputs.entry)?;
            let damaged = |damage| InstallError::Damaged {
                dir: dir.to_path_buf(),
                store: store.dir.clone(),
                damage,
            };
            if let Some(lock) = &inputs.lock {
                let name = lock.file_name().unwrap_or_default();
                copy_file(lock, &tmp.join(name))?;
                if name == "package-lock.json" {
                    // npm's own check of its lockfile, in a folder of its own
                    // (not linked to the store).
                    self.npm(&["ci", "--ignore-scripts"], tmp).run_capture()?;
                    return match self.damage(tmp, None) {
                        Some((d, _)) => Err(damaged(d)),
                        None => Ok(()),
                    };
                }
            }
            let link = || -> Result<(), InstallError> {
                // Shared: installs run side by side; a sweep waits for none.
                let _held = store.hold(Hold::Shared, self.install_timeout)?;
                pnpm_command(&pnpm, tmp, &home, &install_args(inputs.lock.is_some()))
                    .timeout(self.install_timeout)
                    .cancel_on(self.cancel.clone())
                    .run_capture()?;
                strip_core(tmp);
                Ok(())
            };
            link()?;
            let Some((first, links)) = self.damage(tmp, None) else {
                return Ok(());
            };
            let removed = remove_store_copies(&store.dir, &links);
            eprintln!(
                "notice: a new install of {} is damaged ({first}); linking it again with {} damaged store file(s) removed",
                dir.display(),
                removed.len()
            );
            let modules = tmp.join("node_modules");
            std::fs::remove_dir_all(&modules).map_err(|e| FsError::new("remove", &modules, e))?;
            link()?;
            match self.damage(tmp, None) {
                Some((d, _)) => Err(damaged(d)),
                None => Ok(()),
            }
        })
    }

    /// The first damage found in the install at `dir`, and its store links
    /// whose bytes are not the store's record: those links hashed against
    /// the store (every file), then, with `node`, the entry imported once
    /// (what hashing cannot see: a file missing, a package that does not
    /// load). `None` when it is whole.
    pub fn damage(&self, dir: &Path, node: Option<&Path>) -> Option<(Damage, Vec<PathBuf>)> {
        let (links, _) = damaged_links(dir, &self.store().dir);
        if let Some(first) = links.first() {
            let damage = Damage {
                file: first.clone(),
                what: format!(
                    "its bytes are not the ones the store recorded ({} such file(s))",
                    links.len()
                ),
            };
            return Some((damage, links));
        }
        node.and_then(|n| import_damage(n, dir))
            .map(|d| (d, Vec::new()))
    }

    /// The install at `dir` of `v`, found damaged after its marker (a
    /// probe failed to start naming `damage`), moved aside and made again
    /// with its damaged store files removed, then held for use as
    /// `ensure_held` holds it. The caller holds no lock on it.
    pub fn remake(
        &self,
        v: MastraVersion,
        dir: &Path,
        published: Option<&[MastraVersion]>,
    ) -> Result<(PathBuf, Made, std::fs::File), VersionError> {
        let store = self.store();
        let (links, _) = damaged_links(dir, &store.dir);
        remove_store_copies(&store.dir, &links);
        self.remove_install(dir)
            .map_err(|e| VersionError::Install {
                what: format!("@mastra/core@{v}"),
                cause: FsError::new("move aside", dir, e).into(),
            })?;
        self.ensure_held(v, published)
    }
}

/// `dir` renamed beside itself under a name no reader takes for an
/// install, so that it is never seen half deleted: the new path.
fn moved_aside(dir: &Path) -> std::io::Result<PathBuf> {
    let parent = dir.parent().unwrap_or(Path::new("."));
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let aside = parent.join(format!(".tmp-{name}-pruned-{}", std::process::id()));
    std::fs::rename(dir, &aside)?;
    Ok(aside)
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
    fn a_build_installs_from_its_tarball_and_a_release_from_the_registry() {
        let installs = Installs::scratch(Path::new("/x"));
        let v = |s: &str| MastraVersion::parse(s).unwrap();
        assert_eq!(installs.install_source(v("1.67.0")), "1.67.0");
        assert_eq!(
            installs.install_source(v("1.67.0-alpha.4")),
            "1.67.0-alpha.4"
        );
        assert_eq!(
            installs.install_source(v("1.67.0+8a28e80ae2e3747e")),
            "file:/x/cache/builds/8a28e80ae2e3747e.tgz"
        );
        assert_eq!(
            installs.install_dir(v("1.67.0+8a28e80ae2e3747e")),
            PathBuf::from("/x/cache/installs/1.67.0+8a28e80ae2e3747e")
        );
        let m: serde_json::Value = serde_json::from_str(&manifest("file:/x.tgz", &[])).unwrap();
        assert_eq!(m["dependencies"]["@mastra/core"], "file:/x.tgz");
        assert_eq!(m["dependencies"]["zod"], ZOD);
    }

    #[test]
    fn an_install_made_from_another_manifest_is_not_installed() {
        // A cache may keep an install made from an older manifest (without
        // @mastra/mcp, say); taken as installed, every MCP case on it would
        // be a probe fault.
        let tmp = tempfile::tempdir().unwrap();
        let installs = Installs::scratch(tmp.path());
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
}
