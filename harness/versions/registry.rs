//! `Installs::registry`: what the npm registry serves of `@mastra/core`,
//! every version (prereleases included) and the dist-tags, from one
//! `npm view`.
//!
//! In: the npm the machine has, and its registry settings. Out: a
//! `Registry` (`spec`), sorted, for resolving `--versions` and for telling
//! an unserved version from a failed install.

use crate::observe::proc::ProcError;
use crate::versions::layout::Installs;
use crate::versions::spec::{MastraVersion, Registry};
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

impl Installs {
    /// Every version, ascending, and the dist-tags.
    pub fn registry(&self) -> Result<Registry, RegistryError> {
        std::fs::create_dir_all(&self.cache)
            .map_err(|e| RegistryError::Cache(self.cache.clone(), e))?;
        let out = self
            .npm(
                &["view", "@mastra/core", "versions", "dist-tags", "--json"],
                &self.cache,
            )
            .timeout(Duration::from_secs(60))
            .run_capture()?;
        parse_view(&out.stdout)
    }
}

/// The registry as `npm view @mastra/core versions dist-tags --json`
/// prints it; what is no version is left out.
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
    Ok(Registry { versions, tags })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_is_sorted_and_what_is_no_version_is_left_out() {
        let r = parse_view(
            br#"{"versions":["1.10.0","1.9.0","1.1.0-alpha.2","junk"],
                 "dist-tags":{"next":"1.10.0","latest":"1.9.0","bad":"x"}}"#,
        )
        .unwrap();
        let v = |s: &str| MastraVersion::parse(s).unwrap();
        assert_eq!(
            r.versions,
            vec![v("1.1.0-alpha.2"), v("1.9.0"), v("1.10.0")]
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
