//! `Session`: the one pipeline every command is a loop around.
//!
//! A `Case` goes to the model and to the probe of a version; both give a
//! projection; `compare` gives a `Verdict`; the caller receives each
//! `CaseResult` the moment it exists. `run`, `matrix`, `fuzz`, `verify` and
//! `bisect` differ only in which cases and versions they feed it.
//!
//! `run_versions` carries out the decisions of `schedule::SessionMachine`
//! (which version installs next, when one runs and on how many probes,
//! what a failure or a stop means): installs and each version's probes run
//! on threads of their own, and what they produce comes back to the
//! calling thread, which judges it and tells the machine.

use crate::case::Case;
use crate::judge::refine::Refiner;
use crate::observation::Observed;
use crate::observe::capture::Listener;
use crate::observe::pool::{run_cases, PoolConfig};
use crate::observe::probe::ProbeError;
use crate::outcome::{error_chain, Failure};
use crate::results::{judge, CaseResult, PoolStats, VersionStats};
use crate::run::config::Config;
use crate::run::schedule::{SessionAction, SessionEvent, SessionMachine};
use crate::versions::install::VersionError;
use crate::versions::layout::{Installs, Made};
use crate::versions::node::{NodeError, NodeRuntime};
use crate::versions::registry::RegistryError;
use crate::versions::spec::{resolve, Build, MastraVersion, Registry, Selection, VersionSpec};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One version's share of a run: its cases.
pub struct VersionCases<'a> {
    pub version: MastraVersion,
    pub cases: &'a [Case],
}

/// What the threads of `run_versions` hand the calling thread.
enum Produced {
    /// A version's install ended.
    Install {
        version: usize,
        took: Duration,
        fresh: bool,
        got: Result<PathBuf, VersionError>,
        /// The install's use lock (`Installs::hold_for_use`).
        held: Option<std::fs::File>,
    },
    /// A case's observation.
    Case {
        version: usize,
        index: usize,
        observed: Observed,
    },
    /// A version's probes ended.
    Probes {
        version: usize,
        ran: Result<PoolStats, ProbeError>,
    },
}

pub struct Session {
    pub config: Config,
    pub installs: Installs,
    pub listener: Listener,
    node: Option<Result<NodeRuntime, Arc<NodeError>>>,
    registry: Option<Result<Registry, Arc<RegistryError>>>,
    /// The builds this session was given, as `versions::build` named them.
    pub builds: Vec<Build>,
    pub stop: Arc<AtomicBool>,
    /// Known issues and snapshots, loaded once.
    pub refiner: Arc<Refiner>,
}

/// Asked once: the first answer, a failure included, is every later one.
fn once<T: Clone, E>(
    slot: &mut Option<Result<T, Arc<E>>>,
    ask: impl FnOnce() -> Result<T, E>,
) -> Result<T, Arc<E>> {
    slot.get_or_insert_with(|| ask().map_err(Arc::new)).clone()
}

/// What every case of a version that could not be installed observes.
fn not_installed(e: &VersionError) -> Observed {
    if e.is_unavailable() {
        Observed::Unavailable(e.to_string())
    } else {
        Observed::InstallFailed(error_chain(e))
    }
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
    pub fn registry(&mut self) -> Result<Registry, VersionError> {
        let installs = &self.installs;
        once(&mut self.registry, || installs.registry()).map_err(VersionError::Registry)
    }

    /// Every published version, prereleases included, ascending.
    pub fn published(&mut self) -> Result<Vec<MastraVersion>, VersionError> {
        self.registry().map(|r| r.versions)
    }

    /// The Node that runs the probes (found, or installed, once per session).
    pub fn node(&mut self) -> Result<NodeRuntime, VersionError> {
        let installs = &self.installs;
        once(&mut self.node, || installs.node()).map_err(VersionError::Node)
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
            self.registry()?
        } else {
            Registry::default()
        };
        for spec in specs {
            if let VersionSpec::Build(path) = spec {
                if !self.builds.iter().any(|b| &b.path == path) {
                    let build =
                        self.installs
                            .prepare_build(path)
                            .map_err(|cause| VersionError::Build {
                                path: path.clone(),
                                cause,
                            })?;
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

    /// Make sure `version` is installed. `Err` carries the observation every
    /// case of that version gets instead of running (by value, once per
    /// version: boxing it would buy nothing).
    #[allow(clippy::result_large_err)]
    pub fn install(&mut self, version: MastraVersion) -> Result<PathBuf, Observed> {
        if self.installs.is_installed(version) {
            return Ok(self.installs.install_dir(version));
        }
        // Only ask the registry when an install is needed: a cached version
        // runs offline.
        let published = self.published().ok();
        self.installs
            .ensure(version, published.as_deref())
            .map_err(|e| not_installed(&e))
    }

    /// Run `cases` on `version`; `on_result` gets each result as it is made.
    pub fn run_version(
        &mut self,
        version: MastraVersion,
        cases: &[Case],
        mut on_result: impl FnMut(CaseResult),
    ) -> VersionStats {
        let versions = [VersionCases { version, cases }];
        self.run_versions(&versions, |_, r| on_result(r), |_| {})
            .pop()
            .unwrap_or_default()
    }

    /// Run every version's cases, side by side as `SessionMachine` decides.
    /// `on_result` gets each result on this thread the moment it exists
    /// (with the position of its version in `versions`); `on_version` each
    /// version's costs when it is done. Returns the costs in the order given.
    pub fn run_versions(
        &mut self,
        versions: &[VersionCases<'_>],
        mut on_result: impl FnMut(usize, CaseResult),
        mut on_version: impl FnMut(&VersionStats),
    ) -> Vec<VersionStats> {
        let mut stats: Vec<VersionStats> = versions
            .iter()
            .map(|j| VersionStats {
                version: Some(j.version),
                ..VersionStats::default()
            })
            .collect();
        if versions.is_empty() {
            return stats;
        }
        // Asked once, before any thread needs them.
        let node = self.node();
        let published = if versions
            .iter()
            .any(|j| !self.installs.is_installed(j.version))
        {
            self.published().ok()
        } else {
            None
        };
        let probe_command = node
            .as_ref()
            .ok()
            .map(|n| self.config.probe_command(&n.path));
        let (installs, listener, pool) = (&self.installs, &self.listener, &self.config.pool);
        let stop: &AtomicBool = &self.stop;
        let refiner = self.refiner.clone();
        let counts: Vec<usize> = versions.iter().map(|j| j.cases.len()).collect();
        let mut machine = SessionMachine::new(&counts, pool.probes);
        // Per version: its install folder once installed, and the
        // observation its cases get when they cannot run.
        let mut dirs: Vec<Option<PathBuf>> = vec![None; versions.len()];
        let mut failures: Vec<Option<Observed>> = vec![None; versions.len()];
        let mut holds: Vec<std::fs::File> = Vec::new();
        let mut installs_made = false;
        let judged = |version: usize, index: usize, observed: Observed| {
            let VersionCases { version: v, cases } = &versions[version];
            judge(&refiner, &cases[index], index, *v, observed)
        };

        std::thread::scope(|s| {
            let (tx, rx) = mpsc::channel::<Produced>();
            let mut todo: VecDeque<SessionAction> = machine.start().into();
            loop {
                while let Some(action) = todo.pop_front() {
                    match action {
                        SessionAction::Install { version } => {
                            let (tx, published) = (tx.clone(), &published);
                            let v = versions[version].version;
                            s.spawn(move || {
                                let began = Instant::now();
                                let got = installs.ensure_held(v, published.as_deref());
                                // Only the run that made the install says
                                // so; one that waited for another's did not.
                                let fresh = matches!(got, Ok((_, Made::Here, _)));
                                let (got, held) = match got {
                                    Ok((dir, _, held)) => (Ok(dir), Some(held)),
                                    Err(e) => (Err(e), None),
                                };
                                let _ = tx.send(Produced::Install {
                                    version,
                                    took: began.elapsed(),
                                    fresh,
                                    got,
                                    held,
                                });
                            });
                        }
                        SessionAction::Run { version, probes } => {
                            let (Some(cmd), Some(dir)) =
                                (probe_command.as_ref(), dirs[version].clone())
                            else {
                                // No Node: no probe can start, and every
                                // case gets the reason.
                                let why = node.as_ref().err().map_or_else(
                                    || "no install folder".to_string(),
                                    |e| error_chain(e),
                                );
                                failures[version] = Some(Observed::InstallFailed(why));
                                todo.extend(
                                    machine.on(SessionEvent::ProbesEnded { version, ok: false }),
                                );
                                continue;
                            };
                            let tx = tx.clone();
                            let cases = versions[version].cases;
                            let pool = PoolConfig {
                                probes,
                                ..pool.clone()
                            };
                            s.spawn(move || {
                                let refs: Vec<&Case> = cases.iter().collect();
                                let ran = run_cases(
                                    cmd,
                                    &dir,
                                    listener,
                                    &refs,
                                    &pool,
                                    stop,
                                    |index, obs| {
                                        let observed =
                                            Observed::from_observation(&cases[index], obs);
                                        let _ = tx.send(Produced::Case {
                                            version,
                                            index,
                                            observed,
                                        });
                                    },
                                );
                                let _ = tx.send(Produced::Probes { version, ran });
                            });
                        }
                        SessionAction::Fail { version, cases } => {
                            let failure = failures[version].clone().unwrap_or_else(|| {
                                Observed::InstallFailed("the version could not run".into())
                            });
                            stats[version].outcome = failure.infra_detail();
                            for index in cases {
                                on_result(version, judged(version, index, failure.clone()));
                            }
                        }
                        SessionAction::Done { version } => on_version(&stats[version]),
                    }
                }
                if machine.is_finished() {
                    break;
                }
                // This thread holds a sender: the wait ends by a message or
                // the timeout, never by a disconnection.
                let produced = rx.recv_timeout(Duration::from_millis(200)).ok();
                // A failure seen after the stop may be the stop's doing: the
                // machine hears of the stop first.
                if stop.load(Ordering::SeqCst) && !machine.is_stopping() {
                    todo.extend(machine.on(SessionEvent::Stop));
                }
                let Some(produced) = produced else {
                    continue;
                };
                let event = match produced {
                    Produced::Install {
                        version,
                        took,
                        fresh,
                        got,
                        held,
                    } => {
                        // Held until the session's run ends: no prune
                        // removes an install its probes are using.
                        holds.extend(held);
                        stats[version].install = took;
                        stats[version].installed_now = fresh && got.is_ok();
                        installs_made |= stats[version].installed_now;
                        let ok = got.is_ok();
                        match got {
                            Ok(dir) => dirs[version] = Some(dir),
                            Err(e) => failures[version] = Some(not_installed(&e)),
                        }
                        SessionEvent::InstallEnded { version, ok }
                    }
                    Produced::Case {
                        version,
                        index,
                        observed,
                    } => {
                        stats[version].cases += 1;
                        on_result(version, judged(version, index, observed));
                        SessionEvent::CaseObserved { version, index }
                    }
                    Produced::Probes { version, ran } => {
                        let ok = ran.is_ok();
                        match ran {
                            Ok(p) => stats[version].pool = p,
                            // The probes could not run the cases left: a
                            // fault of the probe (its stderr is in the
                            // error), not of the install.
                            Err(e) => {
                                failures[version] = Some(Observed::ProbeFault(error_chain(&e)))
                            }
                        }
                        SessionEvent::ProbesEnded { version, ok }
                    }
                };
                todo.extend(machine.on(event));
            }
        });
        if installs_made {
            // The store files that only the stripped links held.
            let _ = self.installs.sweep();
        }
        stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::proc::ProcError;
    use crate::versions::layout::InstallError;

    #[test]
    fn an_unserved_version_is_unavailable_and_a_failed_install_keeps_its_causes() {
        let v = MastraVersion::new(1, 67, 0);
        assert!(matches!(
            not_installed(&VersionError::Unavailable(v)),
            Observed::Unavailable(m) if m == "@mastra/core@1.67.0 is not served by the registry"
        ));
        let failed = VersionError::Install {
            what: "@mastra/core@1.67.0".into(),
            cause: InstallError::Proc(ProcError::Failed {
                program: "pnpm".into(),
                status: "exit status: 1".into(),
                stderr: "ERR_PNPM_FETCH_404 boom".into(),
            }),
        };
        match not_installed(&failed) {
            Observed::InstallFailed(m) => {
                assert!(
                    m.starts_with(
                        "installing @mastra/core@1.67.0 failed\n  caused by: pnpm exited"
                    ),
                    "{m}"
                );
                assert!(m.contains("ERR_PNPM_FETCH_404 boom"), "{m}");
            }
            other => panic!("not an install failure: {other:?}"),
        }
    }

    #[test]
    fn a_failure_is_asked_once_and_kept_as_the_source() {
        let mut slot = None;
        let mut asked = 0;
        for _ in 0..3 {
            let got: Result<u8, Arc<RegistryError>> = once(&mut slot, || {
                asked += 1;
                Err(RegistryError::NoVersions)
            });
            assert!(got.is_err());
        }
        assert_eq!(asked, 1);
        let e = VersionError::Registry(once(&mut slot, || Ok(1)).unwrap_err());
        assert_eq!(
            error_chain(&e),
            "cannot list @mastra/core versions from the registry\n  caused by: npm view printed no `versions` list"
        );
    }
}
