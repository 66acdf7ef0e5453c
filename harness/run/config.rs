//! `Config`: the validated settings every other module takes, built once
//! from the raw flags in `cli` (which nothing below the CLI sees).

use crate::install::layout::{default_cache, Installs};
use crate::judge::known::{KnownError, KnownIssues, Paths};
use crate::judge::refine::Refiner;
use crate::judge::snapshot::Shelf;
use crate::observe::capture::DEFAULT_BODY_LIMIT;
use crate::observe::pool::{available_cores, PoolConfig};
use crate::observe::probe::ProbeCommand;
use crate::observe::proc::CommandSpec;
use crate::version::spec::MastraVersion;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct Config {
    /// The repository: `cases/`, `node-probe/costs.json` and the rest are
    /// found from here.
    pub root: PathBuf,
    /// The repository's `node-probe/` folder.
    pub probe_dir: PathBuf,
    /// The version cache (outside the repository).
    pub cache: PathBuf,
    pub pool: PoolConfig,
    pub start_timeout: Duration,
    pub install_timeout: Duration,
    pub body_limit: usize,
    /// An unavailable version is an infrastructure failure (exit 3), not
    /// only a reported result.
    pub strict: bool,
    /// Where snapshots of captured bodies live (`snapshots/`).
    pub snapshots: PathBuf,
    /// The known upstream issues file.
    pub known_issues: PathBuf,
    /// What the run does with the observation store.
    pub reuse: Reuse,
    /// The observation store's folder when it is not the cache's
    /// (`CACHE/observations`): `$MASTRA_CONFORM_OBSERVATIONS`, or the store
    /// of its own `bench` measures reuse on.
    pub store_dir: Option<PathBuf>,
    /// Probes start in the OS sandbox where the machine has one
    /// (`observe::sandbox`); `bench` turns it off to measure its cost.
    pub sandboxed: bool,
    /// The release a snapshot build is predicted as when neither its
    /// CHANGELOG nor the registry's times say (`--predict-as`).
    pub predict_as: Option<MastraVersion>,
}

/// What a run does with the observation store (`recorded`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reuse {
    /// Neither reads nor writes it: the commands that measure or show a
    /// probe at work (`bench`, `fuzz`, `observe`, `repro`).
    #[default]
    Off,
    /// Judges what is stored for a case again instead of observing it, and
    /// stores what it observes.
    Stored,
    /// Observes every case, and stores what it observes (`--fresh`).
    Fresh,
}

/// Where the repository is: the working directory when it holds
/// `node-probe/`, else the folder this binary was built from.
pub fn repo_root() -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    if cwd.join("node-probe").join("probe.mjs").is_file() {
        return cwd;
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The commit the repository at `root` is at (`git rev-parse HEAD`), or
/// `unknown` outside a git checkout: the harness a report was made with.
pub fn commit(root: &Path) -> String {
    CommandSpec::new("git")
        .args(["rev-parse", "HEAD"])
        .dir(root)
        .timeout(Duration::from_secs(10))
        .run_capture()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

impl Config {
    pub fn new(root: &Path) -> Config {
        Config {
            root: root.to_path_buf(),
            probe_dir: std::env::var_os("MASTRA_CONFORM_PROBE_DIR")
                .map_or_else(|| root.join("node-probe"), PathBuf::from),
            cache: default_cache(),
            // One probe per core the process may use, as the budget of a run.
            pool: PoolConfig {
                probes: available_cores(),
                ..PoolConfig::default()
            },
            start_timeout: Duration::from_secs(60),
            install_timeout: Duration::from_secs(600),
            body_limit: DEFAULT_BODY_LIMIT,
            strict: false,
            snapshots: root.join("snapshots"),
            known_issues: root.join("known-issues.json"),
            reuse: Reuse::Off,
            store_dir: std::env::var_os("MASTRA_CONFORM_OBSERVATIONS").map(PathBuf::from),
            sandboxed: true,
            predict_as: None,
        }
    }

    /// The observation store this run reads and writes.
    pub fn store(&self) -> crate::recorded::ObservationStore {
        match &self.store_dir {
            Some(dir) => crate::recorded::ObservationStore::new(dir, &self.cache.join("locks")),
            None => crate::recorded::ObservationStore::in_cache(&self.cache),
        }
    }

    pub fn installs(&self) -> Installs {
        Installs {
            cache: self.cache.clone(),
            probe_dir: self.probe_dir.clone(),
            install_timeout: self.install_timeout,
            cancel: None,
        }
    }

    pub fn probe_command(&self, node: &Path) -> ProbeCommand {
        ProbeCommand {
            node: node.to_path_buf(),
            script: self.probe_dir.join("probe.mjs"),
            start_timeout: self.start_timeout,
            sandboxed: self.sandboxed,
            // This binary serves a case's MCP servers (`mcp-server`).
            mcp_server: std::env::current_exe().ok(),
            node_flags: self
                .pool
                .heap_growing_percent
                .map(|p| format!("--heap-growing-percent={p}"))
                .into_iter()
                .collect(),
        }
    }
}

/// What refines a run's results: the ledger of known issues read from
/// `ledger`, and the snapshots under `snapshots`, read as the judge
/// asks for them.
pub fn refiner(ledger: &Path, snapshots: &Path) -> Result<Refiner, KnownError> {
    let dir = snapshots.to_path_buf();
    Ok(Refiner {
        known: known_issues(ledger)?,
        snapshots: Shelf::new(move |file| std::fs::read_to_string(dir.join(file)).ok()),
    })
}

/// The ledger of known issues in `file`; a missing file is a project
/// without known issues. Its case paths, and each case's, are compared as
/// the files they name.
pub fn known_issues(file: &Path) -> Result<KnownIssues, KnownError> {
    let paths = Paths::new(|p: &Path| {
        p.is_file()
            .then(|| p.canonicalize().unwrap_or_else(|_| p.to_path_buf()))
    });
    match std::fs::read_to_string(file) {
        Ok(text) => KnownIssues::parse(file, &text, paths),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(KnownIssues {
            file: file.to_path_buf(),
            issues: Vec::new(),
            paths,
        }),
        Err(e) => Err(KnownError {
            file: file.to_path_buf(),
            field: "(file)".into(),
            problem: format!("cannot read: {e}"),
        }),
    }
}
