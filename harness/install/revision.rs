//! Revisions of a local mastra checkout as builds: `Installs::build_revision`
//! checks a commit out into a worktree of its own, builds `packages/core`
//! there and packs it, so the tarball is a build like any other
//! (`install::build`); `commits_between` lists what a bisection searches.
//!
//! In: a git checkout (`Checkout`), a commit, how to build it (`Recipe`).
//! Out: the packed tarball, kept in `CACHE/revisions/KEY.tgz`, where KEY is
//! a digest of the revision's tree (the whole repository's: a build may read
//! any of it, its lockfile and workspace packages included) and of the
//! recipe, so a commit whose tree another commit already built (a revert,
//! an empty commit) is not built again, and another recipe builds anew.
//!
//! The default recipe is the repository's own: `pnpm install` at its root
//! (frozen to its `pnpm-lock.yaml` when it has one), then the package's
//! `build` script (`pnpm --filter ./packages/core... run build` in a pnpm
//! workspace, which builds the workspace packages core depends on first,
//! else `pnpm --dir packages/core run build`). Unlike an install of a
//! version, a build runs the repository's scripts: building is what they
//! are for. `--build CMD` replaces the recipe with `sh -c CMD` at the root.
//! The package is packed with pnpm, which writes `workspace:` dependencies
//! as the versions they name, as a publish would.

use crate::install::layout::{FsError, InstallError, Installs};
use crate::observe::proc::{CommandSpec, ProcError};
use crate::version::digest::digest_hex;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long one revision may take to build: a whole mastra install and
/// build takes minutes on a fresh checkout.
pub const BUILD_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// Where the package is inside the checkout.
pub const CORE_DIR: &str = "packages/core";

/// A local git checkout of mastra, found by `Checkout::open`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    /// Its top-level folder.
    pub root: PathBuf,
}

/// One commit of the first-parent history a bisection walks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Commit {
    pub sha: String,
    /// The first line of its message.
    pub subject: String,
    /// The pull request its message names (`(#1234)`, `Merge pull request
    /// #1234`), if any.
    pub pull: Option<u64>,
}

impl Commit {
    /// Twelve hex digits, as the steps print it.
    pub fn short(&self) -> &str {
        &self.sha[..self.sha.len().min(12)]
    }
}

impl std::fmt::Display for Commit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.short())
    }
}

/// How a revision is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recipe {
    /// The repository's own install and the package's build script.
    Default,
    /// `sh -c CMD` at the root of the checkout (`--build CMD`).
    Command(String),
}

impl Recipe {
    /// What the cache key takes of the recipe.
    fn key(&self) -> String {
        match self {
            Recipe::Default => "default".into(),
            Recipe::Command(c) => format!("sh -c {c}"),
        }
    }
}

/// Why a checkout or a revision could not be had.
#[derive(Debug, thiserror::Error)]
pub enum RevisionError {
    #[error("{}: not a git checkout", .0.display())]
    NotARepo(PathBuf, #[source] ProcError),
    #[error("{rev:?} names no commit of {}", repo.display())]
    UnknownRev { repo: PathBuf, rev: String },
    #[error("--good {good} is not an ancestor of --bad {bad}: bisect walks the history from one to the other")]
    NotAncestor { good: String, bad: String },
    #[error("git {0} failed")]
    Git(String, #[source] ProcError),
    #[error("the build of {sha} failed")]
    Build {
        sha: String,
        #[source]
        cause: ProcError,
    },
    #[error("{sha} has no {CORE_DIR}/package.json to pack")]
    NoPackage { sha: String },
    #[error("packing {CORE_DIR} of {sha} failed")]
    Pack {
        sha: String,
        #[source]
        cause: ProcError,
    },
    #[error("cannot keep the build of {sha} in the cache")]
    Keep {
        sha: String,
        #[source]
        cause: FsError,
    },
    #[error("no pnpm to build with")]
    Pnpm(#[source] InstallError),
}

impl RevisionError {
    /// Whether this is the revision's own failure (its build or its
    /// package), which a bisection skips, rather than a wrong flag or the
    /// machine's.
    pub fn is_the_revisions(&self) -> bool {
        matches!(
            self,
            RevisionError::Build { .. }
                | RevisionError::NoPackage { .. }
                | RevisionError::Pack { .. }
        )
    }
}

fn git(root: &Path, args: &[&str]) -> CommandSpec {
    CommandSpec::new("git")
        .arg("-C")
        .arg(root)
        .args(args.iter().copied())
        // The user's pager, editor and prompts play no part.
        .env("GIT_PAGER", "cat")
        .env("GIT_TERMINAL_PROMPT", "0")
        .timeout(Duration::from_secs(120))
}

fn git_text(root: &Path, args: &[&str]) -> Result<String, RevisionError> {
    let out = git(root, args)
        .run_capture()
        .map_err(|e| RevisionError::Git(args.join(" "), e))?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

impl Checkout {
    /// The git checkout at (or above) `dir`.
    pub fn open(dir: &Path) -> Result<Checkout, RevisionError> {
        let out = git(dir, &["rev-parse", "--show-toplevel"])
            .run_capture()
            .map_err(|e| RevisionError::NotARepo(dir.to_path_buf(), e))?;
        let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        Ok(Checkout { root })
    }

    /// The full hash of the commit `rev` names.
    pub fn commit(&self, rev: &str) -> Result<String, RevisionError> {
        let unknown = || RevisionError::UnknownRev {
            repo: self.root.clone(),
            rev: rev.to_string(),
        };
        // `--end-of-options`: a revision that looks like a flag stays one.
        let spec = format!("{rev}^{{commit}}");
        git(
            &self.root,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                "--end-of-options",
                &spec,
            ],
        )
        .run_capture()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .ok()
        .filter(|sha| !sha.is_empty())
        .ok_or_else(unknown)
    }

    /// The commits after `good` up to `bad`, oldest first, along the
    /// first-parent history: each merge of a pull request is one step, as
    /// the per-merge builds cargo-bisect-rustc goes on to are.
    pub fn commits_between(&self, good: &str, bad: &str) -> Result<Vec<Commit>, RevisionError> {
        let ancestor = git(&self.root, &["merge-base", "--is-ancestor", good, bad]).run_capture();
        if ancestor.is_err() {
            return Err(RevisionError::NotAncestor {
                good: good.to_string(),
                bad: bad.to_string(),
            });
        }
        // One record per commit: its hash, a NUL, its message, a record
        // separator.
        let range = format!("{good}..{bad}");
        let log = git_text(
            &self.root,
            &[
                "log",
                "--first-parent",
                "--reverse",
                "--format=%H%x00%B%x1e",
                &range,
            ],
        )?;
        Ok(log
            .split('\u{1e}')
            .filter_map(|record| {
                let (sha, message) = record.trim().split_once('\0')?;
                Some(Commit {
                    sha: sha.to_string(),
                    subject: message.lines().next().unwrap_or("").to_string(),
                    pull: pull_request(message),
                })
            })
            .collect())
    }

    /// The commit `sha` with its subject and pull request.
    pub fn describe(&self, sha: &str) -> Result<Commit, RevisionError> {
        let message = git_text(&self.root, &["log", "-1", "--format=%B", sha])?;
        Ok(Commit {
            sha: sha.to_string(),
            subject: message.lines().next().unwrap_or("").to_string(),
            pull: pull_request(&message),
        })
    }

    /// Where the repository's pull requests are, when its `origin` is on
    /// GitHub: `https://github.com/OWNER/REPO/pull/`.
    pub fn pulls_url(&self) -> Option<String> {
        let url = git_text(&self.root, &["remote", "get-url", "origin"]).ok()?;
        github_repo(&url).map(|r| format!("https://github.com/{r}/pull/"))
    }
}

/// The pull request a commit message names: a squash merge's `(#1234)` at
/// the end of its subject, or a merge commit's `Merge pull request #1234`.
pub fn pull_request(message: &str) -> Option<u64> {
    let subject = message.lines().next().unwrap_or("");
    let number = |s: &str| -> Option<u64> {
        let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    if let Some(rest) = subject.strip_prefix("Merge pull request #") {
        return number(rest);
    }
    let open = subject.trim_end().strip_suffix(')')?.rfind("(#")?;
    let inner = &subject.trim_end()[open + 2..subject.trim_end().len() - 1];
    inner
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| number(inner))
        .flatten()
}

/// `OWNER/REPO` of a GitHub remote URL (https or ssh).
fn github_repo(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix("https://github.com/")
        .or_else(|| url.strip_prefix("git@github.com:"))
        .or_else(|| url.strip_prefix("ssh://git@github.com/"))?;
    let rest = rest.trim_end_matches('/').trim_end_matches(".git");
    let mut parts = rest.split('/');
    let (owner, repo) = (parts.next()?, parts.next()?);
    (parts.next().is_none() && !owner.is_empty() && !repo.is_empty())
        .then(|| format!("{owner}/{repo}"))
}

/// The default recipe's commands, each a program and its arguments after
/// the pnpm binary: install at the root, then build the package (and, in a
/// workspace, the workspace packages it depends on).
pub fn default_steps(has_lockfile: bool, is_workspace: bool) -> Vec<Vec<String>> {
    let mut install = vec!["install".to_string()];
    if has_lockfile {
        install.push("--frozen-lockfile".into());
    }
    let build = if is_workspace {
        vec![
            "--filter".into(),
            format!("./{CORE_DIR}..."),
            "run".into(),
            "build".into(),
        ]
    } else {
        vec![
            "--dir".into(),
            CORE_DIR.into(),
            "run".into(),
            "build".into(),
        ]
    };
    vec![install, build]
}

impl Installs {
    /// Where the build of a revision with cache key `key` is kept.
    fn revision_tarball(&self, key: &str) -> PathBuf {
        self.cache.join("revisions").join(format!("{key}.tgz"))
    }

    /// The packed `packages/core` of commit `sha`, built by `recipe` with
    /// `node` (a folder holding the `node` binary goes first on PATH), from
    /// the cache when a build of the same tree and recipe is kept there.
    /// Returns the tarball and whether it was built now.
    pub fn build_revision(
        &self,
        checkout: &Checkout,
        sha: &str,
        recipe: &Recipe,
        node: &Path,
    ) -> Result<(PathBuf, bool), RevisionError> {
        let tree = git_text(&checkout.root, &["rev-parse", &format!("{sha}^{{tree}}")])?;
        let mut h = Sha256::new();
        h.update(tree.as_bytes());
        h.update([0]);
        h.update(recipe.key().as_bytes());
        let key = digest_hex(h, 16);
        let kept = self.revision_tarball(&key);
        if kept.is_file() {
            return Ok((kept, false));
        }
        let keep = |cause| RevisionError::Keep {
            sha: sha.to_string(),
            cause,
        };
        let dir = kept.parent().unwrap_or(Path::new(".")).to_path_buf();
        std::fs::create_dir_all(&dir).map_err(|e| keep(FsError::new("create", &dir, e)))?;
        let scratch = tempfile::Builder::new()
            .prefix(".tmp-revision-")
            .tempdir_in(&dir)
            .map_err(|e| keep(FsError::new("create a folder in", &dir, e)))?;
        let tree_dir = scratch.path().join("tree");
        // A worktree left by a run that was killed is forgotten first.
        let _ = git(&checkout.root, &["worktree", "prune"]).run_capture();
        let worktree = tree_dir.to_string_lossy().into_owned();
        git_text(
            &checkout.root,
            &["worktree", "add", "--detach", "--force", &worktree, sha],
        )?;
        let built = self.build_in(&tree_dir, sha, recipe, node, scratch.path());
        let _ = git(
            &checkout.root,
            &["worktree", "remove", "--force", &worktree],
        )
        .run_capture();
        let packed = built?;
        std::fs::rename(&packed, &kept).map_err(|e| keep(FsError::new("write", &kept, e)))?;
        Ok((kept, true))
    }

    /// Build the checked-out tree at `root` and pack its package into
    /// `out`; returns the tarball.
    fn build_in(
        &self,
        root: &Path,
        sha: &str,
        recipe: &Recipe,
        node: &Path,
        out: &Path,
    ) -> Result<PathBuf, RevisionError> {
        let pnpm = self.pnpm().map_err(RevisionError::Pnpm)?;
        let home = self.pnpm_home();
        // The pinned Node and pnpm first on PATH, for the scripts the build
        // runs; pnpm's own state inside the cache.
        let mut path = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .collect::<Vec<_>>();
        for bin in [pnpm.parent(), node.parent()].into_iter().flatten() {
            path.insert(0, bin.to_path_buf());
        }
        let path = std::env::join_paths(path)
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let command = |program: &Path| {
            super::manager::xdg_home(
                CommandSpec::new(program)
                    .dir(root)
                    .env("PATH", &path)
                    .timeout(BUILD_TIMEOUT)
                    .cancel_on(self.cancel.clone()),
                &home,
            )
        };
        let failed = |cause| RevisionError::Build {
            sha: sha.to_string(),
            cause,
        };
        match recipe {
            Recipe::Default => {
                let steps = default_steps(
                    root.join("pnpm-lock.yaml").is_file(),
                    root.join("pnpm-workspace.yaml").is_file(),
                );
                for step in steps {
                    command(&pnpm)
                        .args(step.iter().map(String::as_str))
                        .run_capture()
                        .map_err(failed)?;
                }
            }
            Recipe::Command(cmd) => {
                command(Path::new("sh"))
                    .args(["-c", cmd.as_str()])
                    .run_capture()
                    .map_err(failed)?;
            }
        }
        let core = root.join(CORE_DIR);
        if !core.join("package.json").is_file() {
            return Err(RevisionError::NoPackage {
                sha: sha.to_string(),
            });
        }
        let packed = out.join("packed");
        std::fs::create_dir_all(&packed).map_err(|e| RevisionError::Keep {
            sha: sha.to_string(),
            cause: FsError::new("create", &packed, e),
        })?;
        command(&pnpm)
            .arg("pack")
            .arg("--pack-destination")
            .arg(&packed)
            .dir(&core)
            .run_capture()
            .map_err(|cause| RevisionError::Pack {
                sha: sha.to_string(),
                cause,
            })?;
        std::fs::read_dir(&packed)
            .ok()
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "tgz"))
            .ok_or_else(|| RevisionError::NoPackage {
                sha: sha.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pull_request_is_read_from_a_squash_or_a_merge() {
        let table = [
            (
                "fix(core): toolChoice follows the rewrite (#4242)",
                Some(4242),
            ),
            ("fix: x (#12)\n\nbody (#99)", Some(12)),
            ("Merge pull request #7 from someone/branch", Some(7)),
            ("chore: bump (#abc)", None),
            ("feat: without a number", None),
            ("refs #5 in the subject", None),
            ("", None),
        ];
        for (message, want) in table {
            assert_eq!(pull_request(message), want, "{message:?}");
        }
    }

    #[test]
    fn github_remotes_name_their_repository() {
        for url in [
            "https://github.com/mastra-ai/mastra.git",
            "https://github.com/mastra-ai/mastra",
            "git@github.com:mastra-ai/mastra.git",
            "ssh://git@github.com/mastra-ai/mastra/",
        ] {
            assert_eq!(
                github_repo(url).as_deref(),
                Some("mastra-ai/mastra"),
                "{url}"
            );
        }
        assert_eq!(github_repo("https://gitlab.com/a/b"), None);
        assert_eq!(github_repo("https://github.com/a"), None);
    }

    #[test]
    fn the_default_recipe_installs_then_builds_the_package() {
        assert_eq!(
            default_steps(true, true),
            [
                vec!["install", "--frozen-lockfile"],
                vec!["--filter", "./packages/core...", "run", "build"]
            ]
        );
        assert_eq!(
            default_steps(false, false),
            [
                vec!["install"],
                vec!["--dir", "packages/core", "run", "build"]
            ]
        );
    }
}
