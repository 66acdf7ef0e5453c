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
//!
//! With the observation store (`Config::reuse`), a version's install is
//! followed by a look at its shelf (`recorded`): each case stored under a
//! key of everything it depends on is judged again from its stored
//! observation, by today's code and model, and only the others go to
//! probes; what the probes observe whole is stored when the version is
//! done. A result whose verdict says it depends on the arrival order of
//! concurrent requests is never stored nor reused.

use crate::case::Case;
use crate::install::layout::{remedy, Installs, Made};
use crate::install::mastra::VersionError;
use crate::install::node::{NodeError, NodeRuntime};
use crate::install::registry::RegistryError;
use crate::judge::case_result::{judge, judge_parsed, CaseResult};
use crate::judge::refine::Refiner;
use crate::observation::{Observation, Observed};
use crate::observe::capture::Listener;
use crate::observe::pool::{run_cases, PoolConfig};
use crate::observe::probe::ProbeError;
use crate::outcome::{error_chain, Failure};
use crate::recorded::format::Record;
use crate::recorded::key::{CaseKey, ShelfKey, FORMAT};
use crate::recorded::{install_identity_of, probe_code_digest, ObservationStore};
use crate::results::{Hello, PoolStats, VersionStats};
use crate::run::config::{Config, Reuse};
use crate::run::schedule::{SessionAction, SessionEvent, SessionMachine};
use crate::version::spec::{
    first_release_heading, predict_snapshot, resolve, Build, MastraVersion, PredictedAs, Registry,
    Selection, VersionSpec,
};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
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
        /// Its shelf in the observation store, when the run uses one
        /// (boxed: a shelf's hits are large beside the other messages).
        shelf: Option<Box<Opened>>,
        /// The install's use lock (`Installs::hold_for_use`).
        held: Option<std::fs::File>,
    },
    /// A case's observation, and its record for the store when it is whole.
    Case {
        version: usize,
        index: usize,
        observed: Observed,
        record: Option<Record>,
    },
    /// A version's probes ended (the error as it is reported), and the
    /// install's use lock back (a remade install's own).
    Probes {
        version: usize,
        ran: Result<PoolStats, String>,
        held: Option<std::fs::File>,
    },
}

/// Whether the probes of an install failed as a probe does when it cannot
/// load what the install holds: at start, or dying before any case ended.
fn failed_to_start(e: &ProbeError) -> bool {
    matches!(
        e,
        ProbeError::LoadFailed { .. } | ProbeError::NoHello { .. } | ProbeError::Unstable { .. }
    )
}

/// A version's shelf as its install thread found it.
struct Opened {
    key: ShelfKey,
    /// The key of each of the version's cases, in order.
    case_keys: Arc<Vec<CaseKey>>,
    /// The cases stored under their keys, with their observations.
    hits: Vec<(usize, Observation)>,
    /// The hits judged (on the install's thread, so that a run the store
    /// answers judges on every core), those that may be reused.
    judged: Vec<CaseResult>,
    /// What the probe that made them loaded.
    hello: Option<Hello>,
    unreadable: usize,
}

/// A version's shelf while its cases run: the records to add when done.
struct ShelfState {
    key: ShelfKey,
    case_keys: Arc<Vec<CaseKey>>,
    pending: Vec<Record>,
}

/// The name of the verdict of a result that depends on the arrival order of
/// concurrent requests (`shared/case-format.md`): its observation is one
/// draw among several, so it is never stored and never reused.
const NONDETERMINISTIC: &str = "nondeterministic";

/// Whether a result's observation may be stored or reused.
fn reusable(r: &CaseResult) -> bool {
    r.observed.projection().is_some() && r.verdict.name() != NONDETERMINISTIC
}

/// The shelf of the install of `v` at `dir`, and the cases of `cases` it
/// holds when `read`; `None` when the install has no identity (no
/// lockfile says what it holds), so nothing of it is stored.
fn open_shelf(
    store: &ObservationStore,
    (v, dir): (MastraVersion, &std::path::Path),
    (node, code): (&str, &str),
    cases: &[Case],
    read: bool,
) -> Option<Opened> {
    let key = ShelfKey {
        version: v,
        install: install_identity_of(v, dir)?,
        node: node.to_string(),
        code: code.to_string(),
        format: FORMAT,
    };
    let case_keys: Vec<CaseKey> = cases.iter().map(CaseKey::of).collect();
    let mut opened = Opened {
        key,
        case_keys: Arc::new(Vec::new()),
        hits: Vec::new(),
        judged: Vec::new(),
        hello: None,
        unreadable: 0,
    };
    if read {
        let shelf = store.shelf(&opened.key);
        opened.hits = case_keys
            .iter()
            .enumerate()
            .filter_map(|(i, k)| shelf.get(k).map(|r| (i, r.observation())))
            .collect();
        opened.hello = shelf.meta.and_then(|m| m.hello);
        opened.unreadable = shelf.unreadable;
    }
    opened.case_keys = Arc::new(case_keys);
    Some(opened)
}

pub struct Session {
    pub config: Config,
    pub installs: Installs,
    pub listener: Listener,
    node: Option<Result<NodeRuntime, Arc<NodeError>>>,
    registry: Option<Result<Registry, Arc<RegistryError>>>,
    /// The builds this session was given, as `install::build` named them.
    pub builds: Vec<Build>,
    /// The snapshot builds resolved so far, each with the release the model
    /// predicts it as and the rule that gave it.
    pub placed: Vec<(MastraVersion, PredictedAs)>,
    pub stop: Arc<AtomicBool>,
    /// Known issues and snapshots, loaded once.
    pub refiner: Arc<Refiner>,
    /// The probe's code digest, for the observation store (read once).
    code: Option<Result<String, String>>,
    /// What went wrong with the observation store (a shelf not written, a
    /// segment unreadable): it cost reuse, never a result.
    pub store_warnings: Vec<String>,
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
        let refiner = crate::run::config::refiner(&config.known_issues, &config.snapshots)?;
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
            placed: Vec::new(),
            stop,
            refiner,
            code: None,
            store_warnings: Vec::new(),
        })
    }

    /// The digest of the probe's modules and the wire code (read once).
    fn code_digest(&mut self) -> Result<String, String> {
        let dir = &self.config.probe_dir;
        self.code
            .get_or_insert_with(|| probe_code_digest(dir).map_err(|e| e.to_string()))
            .clone()
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
        let found = resolve(specs, &registry, &self.builds, selection)?;
        found.into_iter().map(|v| self.place(v)).collect()
    }

    /// A snapshot with the release it was cut from (`predict_snapshot`'s
    /// rules: its CHANGELOG, the registry's times, `--predict-as`), found
    /// once and remembered; any other version as it is.
    fn place(&mut self, v: MastraVersion) -> Result<MastraVersion, VersionError> {
        if !v.is_snapshot() {
            return Ok(v);
        }
        if let Some((placed, _)) = self.placed.iter().find(|(p, _)| *p == v) {
            return Ok(*placed);
        }
        // A snapshot the registry does not serve has no CHANGELOG to read
        // and nothing to run: it stays unplaced, and its install says it is
        // not served, as an unserved release's does.
        let is_build = self.builds.iter().any(|b| b.version == v);
        if !is_build && !self.registry()?.versions.contains(&v) {
            return Ok(v);
        }
        let (heading, registry) = match self.builds.iter().find(|b| b.version == v) {
            // A build is in no registry: its CHANGELOG or --predict-as.
            Some(b) => (b.changelog, Registry::default()),
            None => {
                let text = self
                    .installs
                    .snapshot_changelog(v)
                    .map_err(|e| VersionError::Changelog(Arc::new(e)))?;
                (
                    text.as_deref().and_then(first_release_heading),
                    self.registry()?,
                )
            }
        };
        let predicted = predict_snapshot(v, heading, &registry, self.config.predict_as)?;
        let placed = v.cut_from(predicted.release);
        self.placed.push((placed, predicted));
        Ok(placed)
    }

    /// Where a build came from (`tarball ./x.tgz`), for reports; `None` for
    /// a registry version.
    pub fn build_source(&self, v: MastraVersion) -> Option<String> {
        self.builds
            .iter()
            .find(|b| b.version == v)
            .map(|b| format!("{} {}", b.kind, b.path.display()))
    }

    /// Where a version that is no release came from: a build's source, else
    /// `registry snapshot` or `registry prerelease`.
    pub fn origin(&self, v: MastraVersion) -> String {
        self.build_source(v).unwrap_or_else(|| {
            if v.is_snapshot() {
                "registry snapshot".into()
            } else {
                "registry prerelease".into()
            }
        })
    }

    /// Whether `v` is a snapshot no rule placed (the registry does not
    /// serve it), so the model predicts it as nothing.
    pub fn unplaced(&self, v: MastraVersion) -> bool {
        v.is_snapshot() && !self.placed.iter().any(|(p, _)| *p == v)
    }

    /// The release the model predicts `v` as, and the rule that gave it.
    pub fn predicted_as(&self, v: MastraVersion) -> PredictedAs {
        self.placed
            .iter()
            .find(|(p, _)| *p == v)
            .map(|(_, why)| why.clone())
            .unwrap_or_else(|| PredictedAs {
                release: v.release(),
                basis: crate::version::spec::Basis::Itself,
            })
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
        // The store, with the parts of a shelf's key every version shares;
        // without Node or the probe's code there is nothing to key by.
        let reuse = self.config.reuse;
        let store = match (reuse, &node) {
            (Reuse::Off, _) | (_, Err(_)) => None,
            (_, Ok(n)) => match self.code_digest() {
                Ok(code) => Some((self.config.store(), n.version.clone(), code)),
                Err(e) => {
                    self.store_warnings
                        .push(format!("observation store not used: {e}"));
                    None
                }
            },
        };
        let read = reuse == Reuse::Stored;
        let (installs, listener, pool) = (&self.installs, &self.listener, &self.config.pool);
        let stop: &AtomicBool = &self.stop;
        let refiner = self.refiner.clone();
        let counts: Vec<usize> = versions.iter().map(|j| j.cases.len()).collect();
        let mut machine = SessionMachine::new(&counts, pool.probes);
        // Per version: its install folder once installed, and the
        // observation its cases get when they cannot run.
        let mut dirs: Vec<Option<PathBuf>> = vec![None; versions.len()];
        let mut failures: Vec<Option<Observed>> = vec![None; versions.len()];
        // Per version: its shelf, and which of its cases the store answered.
        let mut shelves: Vec<Option<ShelfState>> = versions.iter().map(|_| None).collect();
        let mut reused: Vec<Vec<bool>> = counts.iter().map(|&n| vec![false; n]).collect();
        let warnings: Mutex<Vec<String>> = Mutex::new(Vec::new());
        let mut holds: Vec<std::fs::File> = Vec::new();
        // Per version: its install's use lock until its probes run, which
        // take it along (a damaged install is remade by them, and making
        // it takes the lock alone).
        let mut version_holds: Vec<Option<std::fs::File>> = versions.iter().map(|_| None).collect();
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
                            let (tx, published, store) = (tx.clone(), &published, &store);
                            let VersionCases { version: v, cases } = versions[version];
                            let refiner = &*refiner;
                            s.spawn(move || {
                                let began = Instant::now();
                                let got = installs.ensure_held(v, published.as_deref());
                                let took = began.elapsed();
                                // Only the run that made the install says
                                // so; one that waited for another's did not.
                                let fresh = matches!(got, Ok((_, Made::Here, _)));
                                let (got, held) = match got {
                                    Ok((dir, _, held)) => (Ok(dir), Some(held)),
                                    Err(e) => (Err(e), None),
                                };
                                let shelf = match (&got, store) {
                                    (Ok(dir), Some((store, node, code))) => {
                                        open_shelf(store, (v, dir), (node, code), cases, read).map(
                                            |mut opened| {
                                                opened.judged = std::mem::take(&mut opened.hits)
                                                    .into_iter()
                                                    .map(|(index, obs)| {
                                                        let case = &cases[index];
                                                        let (observed, parsed) =
                                                            Observed::from_observation_parsed(
                                                                case, obs,
                                                            );
                                                        judge_parsed(
                                                            refiner,
                                                            case,
                                                            (index, v),
                                                            observed,
                                                            Some(&parsed),
                                                        )
                                                    })
                                                    .filter(reusable)
                                                    .collect();
                                                Box::new(opened)
                                            },
                                        )
                                    }
                                    _ => None,
                                };
                                let _ = tx.send(Produced::Install {
                                    version,
                                    took,
                                    fresh,
                                    got,
                                    shelf,
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
                            let (v, cases) = (versions[version].version, versions[version].cases);
                            let held = version_holds[version].take();
                            let published = &published;
                            // The cases the store did not answer.
                            let runnable: Vec<usize> =
                                (0..cases.len()).filter(|&i| !reused[version][i]).collect();
                            let keys = shelves[version].as_ref().map(|sh| sh.case_keys.clone());
                            let pool = PoolConfig {
                                probes,
                                ..pool.clone()
                            };
                            s.spawn(move || {
                                let mut held = held;
                                let mut dir = dir;
                                let mut left = runnable;
                                let mut remade = false;
                                let ran = loop {
                                    let done = Mutex::new(Vec::new());
                                    let refs: Vec<&Case> = left.iter().map(|&i| &cases[i]).collect();
                                    let ran =
                                        run_cases(cmd, &dir, listener, &refs, &pool, stop, |k, obs| {
                                            let index = left[k];
                                            done.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(index);
                                            let record = keys
                                                .as_ref()
                                                .and_then(|ks| Record::of(ks[index], &obs));
                                            let observed =
                                                Observed::from_observation(&cases[index], obs);
                                            let _ = tx.send(Produced::Case {
                                                version,
                                                index,
                                                observed,
                                                record,
                                            });
                                        });
                                    let e = match ran {
                                        Err(e) if failed_to_start(&e) && !stop.load(Ordering::SeqCst) => e,
                                        other => break other.map_err(|e| error_chain(&e)),
                                    };
                                    let Some((damage, _)) = installs.damage(&dir, Some(&cmd.node)) else {
                                        break Err(error_chain(&e));
                                    };
                                    if remade {
                                        let said = format!(
                                            "the install at {} is damaged ({damage}), also when made again: {}",
                                            dir.display(),
                                            remedy(&dir, &installs.store().dir)
                                        );
                                        eprintln!("error: {said}");
                                        break Err(format!("{}\n  caused by: {said}", error_chain(&e)));
                                    }
                                    // Once a run: a second failure is the
                                    // user's to see, with the remedy.
                                    remade = true;
                                    eprintln!(
                                        "notice: the install at {} is damaged ({damage}); moving it aside and installing it again",
                                        dir.display()
                                    );
                                    drop(held.take());
                                    match installs.remake(v, &dir, published.as_deref()) {
                                        Ok((again, _, h)) => {
                                            dir = again;
                                            held = Some(h);
                                            let done = done.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
                                            left.retain(|i| !done.contains(i));
                                        }
                                        Err(e) => {
                                            let said = format!(
                                                "{}\n  the install at {} was damaged and could not be made again: {}",
                                                error_chain(&e),
                                                dir.display(),
                                                remedy(&dir, &installs.store().dir)
                                            );
                                            eprintln!("error: {said}");
                                            break Err(said);
                                        }
                                    }
                                };
                                let _ = tx.send(Produced::Probes { version, ran, held });
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
                        SessionAction::Done { version } => {
                            // What this version's probes observed whole goes
                            // on its shelf, off this thread.
                            if let (Some(shelf), Some((store, _, _))) =
                                (shelves[version].as_mut(), &store)
                            {
                                let records = std::mem::take(&mut shelf.pending);
                                if !records.is_empty() {
                                    let key = shelf.key.clone();
                                    let hello = stats[version].pool.hello.clone();
                                    let warnings = &warnings;
                                    s.spawn(move || {
                                        if let Err(e) = store.append(&key, hello.as_ref(), &records)
                                        {
                                            warnings
                                                .lock()
                                                .unwrap_or_else(std::sync::PoisonError::into_inner)
                                                .push(format!(
                                                    "{}: {} observation(s) not stored: {e}",
                                                    key.version,
                                                    records.len()
                                                ));
                                        }
                                    });
                                }
                            }
                            on_version(&stats[version]);
                        }
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
                        shelf,
                        held,
                    } => {
                        // Held until the session's run ends: no prune
                        // removes an install its probes are using.
                        version_holds[version] = held;
                        stats[version].install = took;
                        stats[version].installed_now = fresh && got.is_ok();
                        installs_made |= stats[version].installed_now;
                        let ok = got.is_ok();
                        match got {
                            Ok(dir) => dirs[version] = Some(dir),
                            Err(e) => failures[version] = Some(not_installed(&e)),
                        }
                        if let Some(opened) = shelf.map(|b| *b) {
                            if opened.unreadable > 0 {
                                self.store_warnings.push(format!(
                                    "{}: {} unreadable segment(s) of {} left out; their cases were observed again",
                                    opened.key.version,
                                    opened.unreadable,
                                    opened.key.folder()
                                ));
                            }
                            for r in opened.judged {
                                let index = r.index;
                                reused[version][index] = true;
                                stats[version].reused += 1;
                                on_result(version, r);
                                todo.extend(
                                    machine.on(SessionEvent::CaseObserved { version, index }),
                                );
                            }
                            // A version no probe runs reports what the
                            // probe that made its observations loaded.
                            stats[version].pool.hello = opened.hello;
                            shelves[version] = Some(ShelfState {
                                key: opened.key,
                                case_keys: opened.case_keys,
                                pending: Vec::new(),
                            });
                        }
                        SessionEvent::InstallEnded { version, ok }
                    }
                    Produced::Case {
                        version,
                        index,
                        observed,
                        record,
                    } => {
                        stats[version].cases += 1;
                        let r = judged(version, index, observed);
                        if let (Some(record), Some(shelf)) = (record, shelves[version].as_mut()) {
                            if reusable(&r) {
                                shelf.pending.push(record);
                            }
                        }
                        on_result(version, r);
                        SessionEvent::CaseObserved { version, index }
                    }
                    Produced::Probes { version, ran, held } => {
                        holds.extend(held);
                        let ok = ran.is_ok();
                        match ran {
                            Ok(p) => {
                                // The probe's own hello, when one started.
                                let hello = stats[version].pool.hello.take();
                                stats[version].pool = p;
                                if stats[version].pool.hello.is_none() {
                                    stats[version].pool.hello = hello;
                                }
                            }
                            // The probes could not run the cases left: a
                            // fault of the probe (its stderr is in the
                            // error), not of the install.
                            Err(e) => failures[version] = Some(Observed::ProbeFault(e)),
                        }
                        SessionEvent::ProbesEnded { version, ok }
                    }
                };
                todo.extend(machine.on(event));
            }
        });
        self.store_warnings.extend(
            warnings
                .into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
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
    use crate::install::layout::InstallError;
    use crate::observe::proc::ProcError;

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
