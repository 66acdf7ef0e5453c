//! `Installs::registry`: what the npm registry serves of `@mastra/core`,
//! every version (prereleases and snapshots included), the dist-tags and
//! each version's publish time, from one `npm view`; and
//! `Installs::snapshot_changelog`: the CHANGELOG.md a snapshot build ships,
//! which says the release it was cut from.
//!
//! In: the npm the machine has, and its registry settings. Out: a
//! `Registry` (`spec`), sorted, for resolving `--versions`, for telling an
//! unserved version from a failed install, and for placing a snapshot; a
//! snapshot's CHANGELOG text, fetched once (`npm pack`) and kept in
//! `CACHE/snapshots/`, since what the registry published under a version
//! never changes.

use crate::install::layout::{FsError, Installs};
use crate::observe::proc::{CommandSpec, ProcError};
use crate::version::spec::{MastraVersion, Published, Registry};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why the registry's list could not be had.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("cannot create the cache folder {}", .0.display())]
    Cache(std::path::PathBuf, #[source] std::io::Error),
    #[error(transparent)]
    View(#[from] ProcError),
    #[error("npm view printed something other than JSON")]
    NotJson(#[source] serde_json::Error),
    #[error("npm view printed no `versions` list")]
    NoVersions,
}

/// Why a snapshot's CHANGELOG could not be read; each names the version
/// (as text: a `MastraVersion` is large to carry by value).
#[derive(Debug, thiserror::Error)]
pub enum ChangelogError {
    #[error("npm pack @mastra/core@{0} failed")]
    Pack(String, #[source] ProcError),
    #[error("npm pack @mastra/core@{0} wrote no tarball")]
    NothingPacked(String),
    #[error("cannot read the tarball of @mastra/core@{0}")]
    Tarball(String, #[source] ProcError),
    #[error("cannot keep the CHANGELOG of @mastra/core@{0} in the cache")]
    Keep(String, #[source] FsError),
}

impl Installs {
    /// Every version, ascending, and the dist-tags.
    pub fn registry(&self) -> Result<Registry, RegistryError> {
        std::fs::create_dir_all(&self.cache)
            .map_err(|e| RegistryError::Cache(self.cache.clone(), e))?;
        let out = self
            .npm(
                &[
                    "view",
                    "@mastra/core",
                    "versions",
                    "dist-tags",
                    "time",
                    "--json",
                ],
                &self.cache,
            )
            .timeout(Duration::from_secs(60))
            .run_capture()?;
        parse_view(&out.stdout)
    }

    /// The CHANGELOG.md of the snapshot `v` as the registry serves it, or
    /// `None` when its package has none; fetched once, then read from
    /// `CACHE/snapshots/`.
    pub fn snapshot_changelog(&self, v: MastraVersion) -> Result<Option<String>, ChangelogError> {
        let dir = self.cache.join("snapshots");
        let (kept, none) = (
            dir.join(format!("{v}.CHANGELOG.md")),
            dir.join(format!("{v}.no-changelog")),
        );
        if let Ok(text) = std::fs::read_to_string(&kept) {
            return Ok(Some(text));
        }
        if none.is_file() {
            return Ok(None);
        }
        let keep = |e| ChangelogError::Keep(v.to_string(), e);
        std::fs::create_dir_all(&dir).map_err(|e| keep(FsError::new("create", &dir, e)))?;
        let tmp = tempfile::Builder::new()
            .prefix(".tmp-snapshot-")
            .tempdir_in(&dir)
            .map_err(|e| keep(FsError::new("create a folder in", &dir, e)))?;
        let spec = format!("@mastra/core@{v}");
        self.npm(&["pack", &spec, "--pack-destination"], tmp.path())
            .arg(tmp.path())
            .run_capture()
            .map_err(|e| ChangelogError::Pack(v.to_string(), e))?;
        let tarball =
            only_tarball(tmp.path()).ok_or(ChangelogError::NothingPacked(v.to_string()))?;
        let text = changelog_in(&tarball).map_err(|e| ChangelogError::Tarball(v.to_string(), e))?;
        // Written beside, then renamed: a reader never takes half of one.
        let (target, content) = match &text {
            Some(t) => (&kept, t.as_str()),
            None => (&none, ""),
        };
        let part = tmp.path().join("kept");
        std::fs::write(&part, content).map_err(|e| keep(FsError::new("write", &part, e)))?;
        std::fs::rename(&part, target).map_err(|e| keep(FsError::new("write", target, e)))?;
        Ok(text)
    }
}

/// The one tarball `npm pack` wrote into `dir`.
fn only_tarball(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "tgz"))
}

/// `package/CHANGELOG.md` of a packed package, or `None` when it has none.
pub fn changelog_in(tarball: &Path) -> Result<Option<String>, ProcError> {
    let list = CommandSpec::new("tar")
        .arg("-tzf")
        .arg(tarball)
        .timeout(Duration::from_secs(120))
        .run_capture()?;
    let has = String::from_utf8_lossy(&list.stdout)
        .lines()
        .any(|l| l == "package/CHANGELOG.md");
    if !has {
        return Ok(None);
    }
    let out = CommandSpec::new("tar")
        .arg("-xzOf")
        .arg(tarball)
        .arg("package/CHANGELOG.md")
        .timeout(Duration::from_secs(120))
        .run_capture()?;
    Ok(Some(String::from_utf8_lossy(&out.stdout).into_owned()))
}

/// The registry as `npm view @mastra/core versions dist-tags time --json`
/// prints it; what is no version is left out (`time` also has `created`
/// and `modified`).
fn parse_view(stdout: &[u8]) -> Result<Registry, RegistryError> {
    let view: serde_json::Value = serde_json::from_slice(stdout).map_err(RegistryError::NotJson)?;
    let list = view["versions"]
        .as_array()
        .ok_or(RegistryError::NoVersions)?;
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
    let mut published: Vec<(MastraVersion, Published)> = view["time"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(v, t)| Some((MastraVersion::parse(v)?, Published::parse(t.as_str()?)?)))
        .collect();
    published.sort_by_key(|a| a.0);
    Ok(Registry {
        versions,
        tags,
        published,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_is_sorted_and_what_is_no_version_is_left_out() {
        let r = parse_view(
            br#"{"versions":["1.10.0","1.9.0","1.1.0-alpha.2","junk","0.0.0-om-20260204032032"],
                 "dist-tags":{"next":"1.10.0","latest":"1.9.0","bad":"x"},
                 "time":{"created":"2025-01-01T00:00:00.000Z","1.9.0":"2026-05-07T14:03:13.800000+00:00",
                         "0.0.0-om-20260204032032":"2026-05-18T04:33:01.704Z","1.10.0":"not a time"}}"#,
        )
        .unwrap();
        let v = |s: &str| MastraVersion::parse(s).unwrap();
        assert_eq!(
            r.versions,
            vec![
                v("0.0.0-om-20260204032032"),
                v("1.1.0-alpha.2"),
                v("1.9.0"),
                v("1.10.0")
            ]
        );
        assert_eq!(r.snapshots(), vec![v("0.0.0-om-20260204032032")]);
        let times: Vec<String> = r.published.iter().map(|(x, _)| x.to_string()).collect();
        assert_eq!(
            times,
            ["0.0.0-om-20260204032032", "1.9.0"],
            "created and a bad time left out"
        );
        assert_eq!(
            r.tags,
            vec![("latest".into(), v("1.9.0")), ("next".into(), v("1.10.0"))]
        );
    }

    #[test]
    fn a_view_without_versions_says_so() {
        assert!(matches!(
            parse_view(b"npm notice"),
            Err(RegistryError::NotJson(_))
        ));
        assert!(matches!(
            parse_view(br#"{"dist-tags":{}}"#),
            Err(RegistryError::NoVersions)
        ));
    }
}
