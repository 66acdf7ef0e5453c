//! `Session`: the one pipeline every command is a loop around.
//!
//! A `Case` goes to the model and to the probe of a version; both give a
//! projection; `compare` gives a `Verdict`; the caller receives each
//! `CaseResult` the moment it exists. `run`, `matrix`, `fuzz`, `verify` and
//! `bisect` differ only in which cases and versions they feed it.

use crate::case::Case;
use crate::judge::compare::{compare, Verdict};
use crate::judge::refine::{Findings, Refiner};
use crate::model::{predict, Prediction};
use crate::observation::Observed;
use crate::observe::capture::Listener;
use crate::observe::pool::{run_cases, PoolStats};
use crate::outcome::{error_chain, Failure};
use crate::run::config::Config;
use crate::versions::install::{Installs, NodeRuntime, VersionError};
use crate::versions::spec::{resolve, Build, MastraVersion, Registry, Selection, VersionSpec};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One case on one version.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// Index into the cases given to `run_version`.
    pub index: usize,
    pub case: String,
    pub version: MastraVersion,
    pub verdict: Verdict,
    pub predicted: Prediction,
    pub observed: Observed,
    /// Known issue, snapshot and provider findings (`refine`).
    pub findings: Findings,
}

/// What one version cost.
#[derive(Debug, Clone, Default)]
pub struct VersionStats {
    pub version: Option<MastraVersion>,
    pub install: Duration,
    pub installed_now: bool,
    pub pool: PoolStats,
    pub cases: usize,
    pub outcome: Option<String>,
}

impl VersionStats {
    /// Cases per second while the probe ran (start-up included).
    pub fn cases_per_second(&self) -> f64 {
        let secs = self.pool.busy.as_secs_f64();
        if secs > 0.0 {
            self.cases as f64 / secs
        } else {
            0.0
        }
    }
}

pub struct Session {
    pub config: Config,
    pub installs: Installs,
    pub listener: Listener,
    node: Option<Result<NodeRuntime, String>>,
    registry: Option<Result<Registry, String>>,
    /// The builds this session was given, as `versions::install` named them.
    pub builds: Vec<Build>,
    pub stop: Arc<AtomicBool>,
    /// Known issues and snapshots, loaded once.
    pub refiner: Arc<Refiner>,
}

impl Session {
    /// Load the ledger of known issues and start the capture listener. A
    /// malformed ledger is bad input; a listener that cannot start is the
    /// machine's failure.
    pub fn new(config: Config, stop: Arc<AtomicBool>) -> Result<Session, Failure> {
        let refiner = Refiner::load(&config.known_issues, &config.snapshots)?;
        let listener = Listener::start(config.body_limit)
            .map_err(|e| Failure::infra_because("cannot start the capture listener", e))?;
        let refiner = Arc::new(refiner);
        let installs = Installs {
            cancel: Some(stop.clone()),
            ..config.installs()
        };
        Ok(Session {
            installs,
            config,
            listener,
            node: None,
            registry: None,
            builds: Vec::new(),
            stop,
            refiner,
        })
    }

    /// What the registry serves (asked once per session).
    pub fn registry(&mut self) -> Result<Registry, String> {
        if self.registry.is_none() {
            self.registry = Some(self.installs.registry().map_err(|e| error_chain(&e)));
        }
        self.registry
            .clone()
            .unwrap_or_else(|| Err("unreachable".into()))
    }

    /// Every published version, prereleases included, ascending.
    pub fn published(&mut self) -> Result<Vec<MastraVersion>, String> {
        self.registry().map(|r| r.versions)
    }

    /// Resolve `--versions`; the registry is asked only when a spec needs it,
    /// and each build given as a path is hashed, named and kept in the cache
    /// first (`Installs::prepare_build`).
    pub fn resolve(
        &mut self,
        specs: &[VersionSpec],
        selection: Selection,
    ) -> Result<Vec<MastraVersion>, VersionError> {
        let registry = if specs.iter().any(VersionSpec::needs_registry) {
            self.registry()
                .map_err(|e| VersionError::Registry(crate::observe::proc::ProcError::Output(e)))?
        } else {
            Registry::default()
        };
        for spec in specs {
            if let VersionSpec::Build(path) = spec {
                if !self.builds.iter().any(|b| &b.path == path) {
                    let build = self.installs.prepare_build(path)?;
                    self.builds.push(build);
                }
            }
        }
        Ok(resolve(specs, &registry, &self.builds, selection)?)
    }

    /// Where a build came from (`tarball ./x.tgz`), for reports; `None` for
    /// a registry version.
    pub fn build_source(&self, v: MastraVersion) -> Option<String> {
        self.builds
            .iter()
            .find(|b| b.version == v)
            .map(|b| format!("{} {}", b.kind, b.path.display()))
    }

    pub fn node(&mut self) -> Result<NodeRuntime, String> {
        if self.node.is_none() {
            self.node = Some(self.installs.node().map_err(|e| error_chain(&e)));
        }
        self.node
            .clone()
            .unwrap_or_else(|| Err("unreachable".into()))
    }

    /// Make sure `version` is installed. `Err` carries the observation every
    /// case of that version gets instead of running (by value, once per
    /// version: boxing it would buy nothing).
    #[allow(clippy::result_large_err)]
    pub fn install(&mut self, version: MastraVersion) -> Result<std::path::PathBuf, Observed> {
        if self.installs.is_installed(version) {
            return Ok(self.installs.install_dir(version));
        }
        // Only ask the registry when an install is needed: a cached version
        // runs offline.
        let published = self.published().ok();
        self.installs
            .ensure(version, published.as_deref())
            .map_err(|e| {
                if e.is_unavailable() {
                    Observed::Unavailable(e.to_string())
                } else {
                    Observed::InstallFailed(error_chain(&e))
                }
            })
    }

    /// Run `cases` on `version`; `on_result` gets each result as it is made.
    #[allow(clippy::result_large_err)]
    pub fn run_version(
        &mut self,
        version: MastraVersion,
        cases: &[Case],
        mut on_result: impl FnMut(CaseResult),
    ) -> VersionStats {
        let mut stats = VersionStats {
            version: Some(version),
            cases: 0,
            ..VersionStats::default()
        };
        let refiner = self.refiner.clone();
        let result = |index: usize, observed: Observed| {
            let case = &cases[index];
            let predicted = predict(case, version);
            let (verdict, findings) = refiner.refine(
                case,
                version,
                &predicted,
                &observed,
                compare(&predicted, &observed),
            );
            CaseResult {
                index,
                case: case.name(),
                version,
                verdict,
                predicted,
                observed,
                findings,
            }
        };
        let began = Instant::now();
        let was_installed = self.installs.is_installed(version);
        let install = self.install(version);
        stats.install = began.elapsed();
        stats.installed_now = !was_installed && install.is_ok();
        let ready = install.and_then(|dir| {
            self.node()
                .map(|n| (dir, n))
                .map_err(Observed::InstallFailed)
        });
        let (dir, node) = match ready {
            Ok(x) => x,
            // Interrupted while installing: the cases were not attempted,
            // and a report of what finished must not claim they failed.
            Err(_) if self.stop.load(std::sync::atomic::Ordering::SeqCst) => return stats,
            Err(observed) => {
                stats.outcome = observed.infra_detail();
                for index in 0..cases.len() {
                    on_result(result(index, observed.clone()));
                }
                return stats;
            }
        };
        let refs: Vec<&Case> = cases.iter().collect();
        let cmd = self.config.probe_command(&node.path);
        let mut done = vec![false; cases.len()];
        let run = run_cases(
            &cmd,
            &dir,
            &self.listener,
            &refs,
            &self.config.pool,
            &self.stop,
            |index, obs| {
                done[index] = true;
                stats.cases += 1;
                on_result(result(
                    index,
                    Observed::from_observation(&cases[index], obs),
                ));
            },
        );
        match run {
            Ok(pool) => stats.pool = pool,
            Err(_) if self.stop.load(std::sync::atomic::Ordering::SeqCst) => {}
            Err(e) => {
                // No probe could start for this version: every case not yet
                // done gets the reason, as an infrastructure result.
                let why = error_chain(&e);
                stats.outcome = Some(why.clone());
                for (index, _) in done.iter().enumerate().filter(|(_, d)| !**d) {
                    on_result(result(index, Observed::InstallFailed(why.clone())));
                }
            }
        }
        stats
    }
}
