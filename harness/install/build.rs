//! Builds: a `@mastra/core` given as a packed tarball or a folder, made
//! ready to install (`Installs::prepare_build`).
//!
//! In: a path. Out: a `Build` named by its `package.json` version plus a
//! hash of its content (`1.67.0+3fa2…`; for a build of a snapshot, also the
//! first release heading of its CHANGELOG.md), its tarball kept in
//! `CACHE/builds/HASH.tgz` (a folder packed first with `npm pack`, as npm
//! would ship it), so its install is the install of that tarball, cached by
//! the hash: a rebuilt folder hashes anew and installs again (`digest`).

use crate::install::layout::{FsError, Installs};
use crate::install::registry::changelog_in;
use crate::observe::proc::{CommandSpec, ProcError};
use crate::version::digest::{bytes_digest, digest_hex};
use crate::version::spec::{first_release_heading, Build, Label, MastraVersion, LABEL_MAX};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Hex digits of a build's hash: 64 bits, as its name carries it.
pub const BUILD_HASH_DIGITS: usize = 16;

/// Why a path given as a build cannot be one.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("cannot read it; give a packed tarball or a folder")]
    Unreadable(#[source] std::io::Error),
    #[error("no readable package.json in the folder")]
    NoManifest(#[source] std::io::Error),
    #[error("cannot read the folder to hash it")]
    Hash(#[source] std::io::Error),
    #[error("not a packed npm tarball with package/package.json")]
    NotTarball(#[source] ProcError),
    #[error("package.json is not UTF-8")]
    ManifestNotText(#[source] std::string::FromUtf8Error),
    #[error("package.json is not JSON")]
    ManifestNotJson(#[source] serde_json::Error),
    #[error("package.json names {0}, not @mastra/core")]
    NotCore(String),
    #[error(
        "package.json version {0:?} is not a version (MAJOR.MINOR.PATCH, with a prerelease label of at most {LABEL_MAX} characters)"
    )]
    BadVersion(String),
    #[error("npm pack failed")]
    Pack(#[source] ProcError),
    #[error("npm pack wrote no tarball in {}", .0.display())]
    NothingPacked(PathBuf),
    #[error("cannot keep its tarball in the cache")]
    Keep(#[source] FsError),
}

impl Installs {
    /// Look at a build given as a path: a packed tarball or a folder whose
    /// package.json names `@mastra/core`. Hash its content, name it by its
    /// package.json version plus that hash, and keep its tarball in the
    /// cache (packing a folder).
    pub fn prepare_build(&self, given: &Path) -> Result<Build, BuildError> {
        let meta = std::fs::metadata(given).map_err(BuildError::Unreadable)?;
        let (kind, hash, manifest) = if meta.is_dir() {
            let text = std::fs::read_to_string(given.join("package.json"))
                .map_err(BuildError::NoManifest)?;
            (
                "folder",
                folder_digest(given).map_err(BuildError::Hash)?,
                text,
            )
        } else {
            let bytes = std::fs::read(given).map_err(BuildError::Unreadable)?;
            let out = CommandSpec::new("tar")
                .args(["-xzOf"])
                .arg(given)
                .arg("package/package.json")
                .timeout(Duration::from_secs(60))
                .run_capture()
                .map_err(BuildError::NotTarball)?;
            let text = String::from_utf8(out.stdout).map_err(BuildError::ManifestNotText)?;
            ("tarball", bytes_digest(&bytes, BUILD_HASH_DIGITS), text)
        };
        let pkg: serde_json::Value =
            serde_json::from_str(&manifest).map_err(BuildError::ManifestNotJson)?;
        if pkg["name"].as_str() != Some("@mastra/core") {
            return Err(BuildError::NotCore(pkg["name"].to_string()));
        }
        let said = pkg["version"].as_str().unwrap_or_default();
        let release =
            MastraVersion::parse(said).ok_or_else(|| BuildError::BadVersion(said.to_string()))?;
        let version = MastraVersion {
            build: Label::new(&hash),
            ..release
        };
        // A build of a snapshot says no release; its CHANGELOG.md may.
        let changelog = if release.is_snapshot() {
            let text = if kind == "folder" {
                std::fs::read_to_string(given.join("CHANGELOG.md")).ok()
            } else {
                changelog_in(given).map_err(BuildError::NotTarball)?
            };
            text.as_deref().and_then(first_release_heading)
        } else {
            None
        };
        let tarball = self.build_tarball(&hash);
        if !tarball.is_file() {
            self.keep_build(given, kind == "folder", &tarball)?;
        }
        Ok(Build {
            path: given.to_path_buf(),
            version,
            kind,
            changelog,
        })
    }

    /// Copy (or, for a folder, `npm pack`) a build into `tarball`, through a
    /// temporary folder so that a half-written one is never taken.
    fn keep_build(&self, given: &Path, folder: bool, tarball: &Path) -> Result<(), BuildError> {
        let dir = tarball.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)
            .map_err(|e| BuildError::Keep(FsError::new("create", dir, e)))?;
        let tmp = tempfile::Builder::new()
            .prefix(".tmp-build-")
            .tempdir_in(dir)
            .map_err(|e| BuildError::Keep(FsError::new("create a folder in", dir, e)))?;
        let made = if folder {
            let abs = std::fs::canonicalize(given).map_err(BuildError::Unreadable)?;
            self.npm(&["pack", "--pack-destination"], tmp.path())
                .arg(tmp.path())
                .arg(&abs)
                .run_capture()
                .map_err(BuildError::Pack)?;
            // npm names the file for the package; it is the only one there.
            std::fs::read_dir(tmp.path())
                .map_err(|e| BuildError::Keep(FsError::new("read", tmp.path(), e)))?
                .flatten()
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|x| x == "tgz"))
                .ok_or_else(|| BuildError::NothingPacked(tmp.path().to_path_buf()))?
        } else {
            let to = tmp.path().join("build.tgz");
            std::fs::copy(given, &to)
                .map_err(|e| BuildError::Keep(FsError::new("copy", given, e)))?;
            to
        };
        std::fs::rename(&made, tarball)
            .map_err(|e| BuildError::Keep(FsError::new("write", tarball, e)))
    }
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
    let mut h = Sha256::new();
    for f in files {
        let rel = f.strip_prefix(root).unwrap_or(&f);
        h.update(rel.to_string_lossy().as_bytes());
        h.update([0]);
        let bytes = std::fs::read(&f)?;
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Ok(digest_hex(h, BUILD_HASH_DIGITS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_folder_hashes_its_files_and_ignores_node_modules() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("dist")).unwrap();
        std::fs::write(root.join("package.json"), "{}").unwrap();
        std::fs::write(root.join("dist/a.js"), "a").unwrap();
        let first = folder_digest(root).unwrap();
        assert_eq!(first.len(), BUILD_HASH_DIGITS);
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
    fn a_folder_that_is_no_core_build_is_refused_naming_what_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let installs = Installs::scratch(dir.path());
        let folder = dir.path().join("b");
        std::fs::create_dir_all(&folder).unwrap();
        let e = installs.prepare_build(&folder).unwrap_err();
        assert!(matches!(e, BuildError::NoManifest(_)), "{e:?}");
        std::fs::write(folder.join("package.json"), r#"{"name":"x"}"#).unwrap();
        let e = installs.prepare_build(&folder).unwrap_err();
        assert_eq!(e.to_string(), "package.json names \"x\", not @mastra/core");
        std::fs::write(
            folder.join("package.json"),
            r#"{"name":"@mastra/core","version":"one"}"#,
        )
        .unwrap();
        let e = installs.prepare_build(&folder).unwrap_err();
        assert!(
            matches!(e, BuildError::BadVersion(ref v) if v == "one"),
            "{e:?}"
        );
        assert!(!dir.path().join("cache").exists(), "nothing kept");
    }
}
