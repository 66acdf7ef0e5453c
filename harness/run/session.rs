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
use crate::observe::pool::{run_cases, PoolConfig, PoolStats};
use crate::outcome::{error_chain, Failure};
use crate::run::config::Config;
use crate::run::schedule::{probes_for, Slots};
use crate::versions::install::{Installs, NodeRuntime, VersionError};
use crate::versions::spec::{resolve, Build, MastraVersion, Registry, Selection, VersionSpec};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
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

/// One version's share of a run: its cases.
pub struct Job<'a> {
    pub version: MastraVersion,
    pub cases: &'a [Case],
}

/// What the threads of `run_versions` tell the calling thread.
enum Msg {
    /// Job `job`'s install ended (`Err`: every case gets this observation).
    Installed {
        job: usize,
        took: Duration,
        fresh: bool,
        failed: Option<Observed>,
    },
    Case {
        job: usize,
        index: usize,
        observed: Observed,
    },
    Ran {
        job: usize,
        run: Result<PoolStats, String>,
    },
}

/// Installs made side by side: network-bound (pnpm fetches), so more than
/// the cores, few enough to leave the registry and the disk some room.
pub const INSTALLS_AT_ONCE: usize = 4;

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
    pub fn run_version(
        &mut self,
        version: MastraVersion,
        cases: &[Case],
        mut on_result: impl FnMut(CaseResult),
    ) -> VersionStats {
        let jobs = [Job { version, cases }];
        self.run_versions(&jobs, |_, r| on_result(r), |_| {})
            .pop()
            .unwrap_or_default()
    }

    /// Run every job: installs run ahead, `INSTALLS_AT_ONCE` at a time, in
    /// job order; each installed version runs on `probes_for` probes, and
    /// versions run side by side while the `--probes` budget has room, so
    /// a version with few cases does not leave cores idle. `on_result` gets
    /// each result on this thread the moment it exists; `on_version` each
    /// version's costs when it is done. Returns the costs in job order.
    pub fn run_versions(
        &mut self,
        jobs: &[Job<'_>],
        mut on_result: impl FnMut(usize, CaseResult),
        mut on_version: impl FnMut(&VersionStats),
    ) -> Vec<VersionStats> {
        let mut stats: Vec<VersionStats> = jobs
            .iter()
            .map(|j| VersionStats {
                version: Some(j.version),
                ..VersionStats::default()
            })
            .collect();
        if jobs.is_empty() {
            return stats;
        }
        // Asked once, before any thread needs them.
        let node = self.node();
        let published = if jobs.iter().any(|j| !self.installs.is_installed(j.version)) {
            self.published().ok()
        } else {
            None
        };
        let installs = &self.installs;
        let listener = &self.listener;
        let stop: &AtomicBool = &self.stop;
        let pool = &self.config.pool;
        let cmd = node
            .as_ref()
            .ok()
            .map(|n| self.config.probe_command(&n.path));
        let slots = Slots::new(pool.probes);
        let refiner = self.refiner.clone();
        let mut marks: Vec<Vec<bool>> = jobs.iter().map(|j| vec![false; j.cases.len()]).collect();
        let mut installs_made = false;

        // Each job's install, handed from the installers to the dispatcher.
        let (ready_tx, ready_rx): (Vec<_>, Vec<_>) = jobs
            .iter()
            .map(|_| mpsc::channel::<Result<PathBuf, Observed>>())
            .unzip();
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            let (tx, rx) = mpsc::channel::<Msg>();
            for _ in 0..INSTALLS_AT_ONCE.min(jobs.len()) {
                let (tx, ready_tx, next, published) = (tx.clone(), &ready_tx, &next, &published);
                s.spawn(move || loop {
                    let job = next.fetch_add(1, Ordering::SeqCst);
                    if job >= jobs.len() || stop.load(Ordering::SeqCst) {
                        return;
                    }
                    let v = jobs[job].version;
                    let began = Instant::now();
                    let fresh = !installs.is_installed(v);
                    let got = installs.ensure(v, published.as_deref()).map_err(|e| {
                        if e.is_unavailable() {
                            Observed::Unavailable(e.to_string())
                        } else {
                            Observed::InstallFailed(error_chain(&e))
                        }
                    });
                    let _ = tx.send(Msg::Installed {
                        job,
                        took: began.elapsed(),
                        fresh: fresh && got.is_ok(),
                        failed: got.as_ref().err().cloned(),
                    });
                    let _ = ready_tx[job].send(got);
                });
            }
            // The dispatcher: versions start in job order as they are
            // installed and probe slots are free.
            {
                let (tx, slots, cmd, node) = (tx.clone(), &slots, &cmd, &node);
                s.spawn(move || {
                    for (job, ready) in ready_rx.into_iter().enumerate() {
                        let dir = loop {
                            match ready.recv_timeout(Duration::from_millis(200)) {
                                Ok(got) => break got,
                                Err(_) if stop.load(Ordering::SeqCst) => return,
                                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                                Err(mpsc::RecvTimeoutError::Disconnected) => return,
                            }
                        };
                        // Not installed: the collector reports it.
                        let Ok(dir) = dir else {
                            continue;
                        };
                        if stop.load(Ordering::SeqCst) {
                            return;
                        }
                        let Some(cmd) = cmd.as_ref() else {
                            let why = node.as_ref().err().cloned().unwrap_or_default();
                            let _ = tx.send(Msg::Ran { job, run: Err(why) });
                            continue;
                        };
                        let cases = jobs[job].cases;
                        let probes = probes_for(cases.len(), pool.probes);
                        slots.take(probes);
                        let tx = tx.clone();
                        let pool = PoolConfig {
                            probes,
                            ..pool.clone()
                        };
                        s.spawn(move || {
                            let refs: Vec<&Case> = cases.iter().collect();
                            let run =
                                run_cases(cmd, &dir, listener, &refs, &pool, stop, |index, obs| {
                                    let observed = Observed::from_observation(&cases[index], obs);
                                    let _ = tx.send(Msg::Case {
                                        job,
                                        index,
                                        observed,
                                    });
                                });
                            slots.give(probes);
                            let _ = tx.send(Msg::Ran {
                                job,
                                run: run.map_err(|e| error_chain(&e)),
                            });
                        });
                    }
                });
            }
            drop(tx);
            let judge = |job: usize, index: usize, observed: Observed| {
                let (v, case) = (jobs[job].version, &jobs[job].cases[index]);
                let predicted = predict(case, v);
                let (verdict, findings) = refiner.refine(
                    case,
                    v,
                    &predicted,
                    &observed,
                    compare(&predicted, &observed),
                );
                CaseResult {
                    index,
                    case: case.name(),
                    version: v,
                    verdict,
                    predicted,
                    observed,
                    findings,
                }
            };
            for msg in rx {
                match msg {
                    Msg::Installed {
                        job,
                        took,
                        fresh,
                        failed,
                    } => {
                        stats[job].install = took;
                        stats[job].installed_now = fresh;
                        installs_made |= fresh;
                        if let Some(observed) = failed {
                            // Interrupted while installing: the cases were not
                            // attempted, and must not be reported as failed.
                            if stop.load(Ordering::SeqCst) {
                                continue;
                            }
                            stats[job].outcome = observed.infra_detail();
                            for index in 0..jobs[job].cases.len() {
                                on_result(job, judge(job, index, observed.clone()));
                            }
                            on_version(&stats[job]);
                        }
                    }
                    Msg::Case {
                        job,
                        index,
                        observed,
                    } => {
                        marks[job][index] = true;
                        stats[job].cases += 1;
                        on_result(job, judge(job, index, observed));
                    }
                    Msg::Ran { job, run } => {
                        match run {
                            Ok(p) => stats[job].pool = p,
                            Err(_) if stop.load(Ordering::SeqCst) => {}
                            Err(why) => {
                                // No probe could run these cases: each gets
                                // the reason, as an infrastructure result.
                                stats[job].outcome = Some(why.clone());
                                let left: Vec<usize> = (0..jobs[job].cases.len())
                                    .filter(|i| !marks[job][*i])
                                    .collect();
                                for index in left {
                                    let observed = Observed::InstallFailed(why.clone());
                                    on_result(job, judge(job, index, observed));
                                }
                            }
                        }
                        on_version(&stats[job]);
                    }
                }
            }
        });
        if installs_made {
            // The store files that only the stripped links held.
            let _ = self.installs.sweep();
        }
        stats
    }
}
