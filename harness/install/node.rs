//! `NodeRuntime`: the Node that runs the probes, new enough for
//! `@mastra/core` 1.x (`MIN_NODE`).
//!
//! In: `MASTRA_CONFORM_NODE`, the machine's `node`, the pinned runtime in
//! `node-probe/runtime/` (an npm package of the Node binary, from the npm
//! registry, installed into `CACHE/node/` with `npm ci`). Out: the binary
//! and the version it reports.

use crate::install::layout::{lock_digest, FsError, InstallError, Installs, Tool, COMPLETE};
use crate::install::manager::{npm_arch, says_version};
use crate::observe::proc::CommandSpec;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `@mastra/core` 1.x needs this Node or newer.
pub const MIN_NODE: (u32, u32) = (22, 13);

/// A Node binary and what it reported of itself.
#[derive(Debug, Clone)]
pub struct NodeRuntime {
    pub path: PathBuf,
    pub version: String,
}

/// Why no usable Node could be had.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    #[error("MASTRA_CONFORM_NODE={} does not run", .0.display())]
    OverrideDoesNotRun(PathBuf),
    #[error("{} has no package-lock.json", .0.display())]
    NoLockfile(PathBuf),
    #[error("installing the pinned Node failed")]
    Install(#[source] InstallError),
    #[error("the pinned Node at {} does not run", .0.display())]
    PinnedDoesNotRun(PathBuf),
}

impl Installs {
    /// A Node new enough for `@mastra/core` 1.x: the machine's when it fits,
    /// else the pinned one, installed into the cache. `MASTRA_CONFORM_NODE`
    /// overrides both.
    pub fn node(&self) -> Result<NodeRuntime, NodeError> {
        if let Some(p) = std::env::var_os("MASTRA_CONFORM_NODE") {
            let path = PathBuf::from(p);
            let version =
                node_version(&path).ok_or_else(|| NodeError::OverrideDoesNotRun(path.clone()))?;
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
        let digest = lock_digest(&runtime).ok_or_else(|| NodeError::NoLockfile(runtime.clone()))?;
        let dir = self.tool_dir(Tool::Node, &digest);
        let binary = |d: &Path| {
            d.join("node_modules")
                .join(format!("node-linux-{}", npm_arch()))
                .join("bin")
                .join("node")
        };
        let path = binary(&dir);
        if dir.join(COMPLETE).is_file() {
            if let Some(version) = node_version(&path) {
                return Ok(NodeRuntime { path, version });
            }
            // Marked complete and yet broken (a file cut short, the disk
            // full when an older harness marked it): moved aside and made
            // again, never reported for ever.
            eprintln!(
                "notice: the pinned Node at {} does not run; installing it again",
                dir.display()
            );
            self.remove_install(&dir)
                .map_err(|e| NodeError::Install(FsError::new("remove", &dir, e).into()))?;
        }
        self.install_npm_locked(&runtime, &dir, |tmp| says_version(&binary(tmp), tmp))
            .map_err(NodeError::Install)?;
        let version =
            node_version(&path).ok_or_else(|| NodeError::PinnedDoesNotRun(path.clone()))?;
        Ok(NodeRuntime { path, version })
    }
}

/// What `path --version` says, when it runs and says a version.
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
    (ma, mi) >= (major, minor)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_versions_compare_by_major_and_minor() {
        assert!(version_at_least("v24.22.3", MIN_NODE));
        assert!(version_at_least("v22.13.0", MIN_NODE));
        assert!(!version_at_least("v22.12.9", MIN_NODE));
        assert!(!version_at_least("v20.20.2", MIN_NODE));
    }

    #[test]
    fn a_node_that_does_not_run_says_nothing() {
        assert_eq!(node_version(Path::new("/nonexistent/node")), None);
        assert_eq!(node_version(Path::new("true")), None, "no version printed");
    }
}
