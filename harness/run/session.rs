//! `Session`: the one pipeline every command is a loop around.
//!
//! A `Case` goes to the model and to the probe of a version; both give a
//! projection; `compare` gives a `Verdict`; the caller's `ResultSink`
//! receives each `CaseResult` the moment it exists. `run`, `matrix`,
//! `fuzz`, `verify` and `bisect` differ only in which cases and versions
//! they feed it.
//!
//! `run_versions` is the driver of `schedule::SessionMachine`, which
//! decides which version installs next, when one runs and on how many
//! probes, when it gains or gives back a probe, and what a failure or a
//! stop means. The driver carries out its actions with the workers of
//! `workers.rs` (a version's install, a version's probes), each on a thread
//! of its own; what they produce comes back to the calling thread, which
//! judges it, hands the result to the sink, and tells the machine. The
//! per-version state the driver keeps is one `VersionRun`.
//!
//! With the observation store (`Config::reuse`), a version's install is
//! followed by a look at its shelf (`recorded`): each case stored under a
//! key of everything it depends on is judged again from its stored
//! observation, by today's code and model, and only the others go to
//! probes; what the probes observe whole is stored when the version is
//! done. A result whose verdict says it depends on the arrival order of
//! concurrent requests is never stored nor reused.

use crate::case::Case;
use crate::install::layout::Installs;
use crate::install::mastra::VersionError;
use crate::install::node::{NodeError, NodeRuntime};
use crate::install::registry::RegistryError;
use crate::judge::case_result::{judge, CaseResult};
use crate::judge::refine::Refiner;
use crate::observation::Observed;
use crate::observe::capture::Listener;
use crate::observe::pool::ProbeShare;
use crate::observe::probe::ProbeCommand;
use crate::outcome::{error_chain, Failure};
use crate::recorded::format::Record;
use crate::recorded::key::{CaseKey, ShelfKey};
use crate::recorded::{probe_code_digest, ObservationStore};
use crate::results::VersionStats;
use crate::run::config::{Config, Reuse};
use crate::run::schedule::{SessionAction, SessionEvent, SessionMachine};
use crate::run::workers::{self, reusable, Opened, ProbeRun, Produced, Shared};
use crate::version::spec::{
    first_release_heading, predict_snapshot, resolve, Build, MastraVersion, PredictedAs, Registry,
    Selection, VersionSpec,
};
use std::collections::VecDeque;
use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::thread::Scope;
use std::time::Duration;

/// One version's share of a run: its cases.
pub struct VersionCases<'a> {
    pub version: MastraVersion,
    pub cases: &'a [Case],
}

/// Where a session's results go, the moment each exists: each result with
/// the position of its version in the list run, and each version's costs
/// once every result of it is in (a version's results never follow its
/// costs). A store of results (a report, a database) is one.
pub trait ResultSink {
    fn result(&mut self, version: usize, r: CaseResult);
    fn version_done(&mut self, stats: &VersionStats);
}

/// A sink of two closures: results, and versions done.
pub struct Sinks<R, V>(pub R, pub V);

impl<R: FnMut(usize, CaseResult), V: FnMut(&VersionStats)> ResultSink for Sinks<R, V> {
    fn result(&mut self, version: usize, r: CaseResult) {
        (self.0)(version, r);
    }
    fn version_done(&mut self, stats: &VersionStats) {
        (self.1)(stats);
    }
}

/// A version's shelf while its cases run: the records to add when done.
struct ShelfState {
    key: ShelfKey,
    case_keys: Arc<Vec<CaseKey>>,
    pending: Vec<Record>,
}

pub struct Session {
    pub config: Config,
    pub installs: Installs,
    pub listener: Listener,
    node: Option<Result<NodeRuntime, Arc<NodeError>>>,
    registry: Option<Result<Registry, Arc<RegistryError>>>,
    /// The builds given to the `Session`, as `install::build` named them.
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
        on_result: impl FnMut(usize, CaseResult),
        on_version: impl FnMut(&VersionStats),
    ) -> Vec<VersionStats> {
        self.run_versions_into(versions, &mut Sinks(on_result, on_version))
    }

    /// `run_versions`, its results handed to `sink`.
    pub fn run_versions_into(
        &mut self,
        versions: &[VersionCases<'_>],
        sink: &mut dyn ResultSink,
    ) -> Vec<VersionStats> {
        if versions.is_empty() {
            return Vec::new();
        }
        let asked = self.ask_before_running(versions);
        let refiner = self.refiner.clone();
        let ctx = Shared {
            installs: &self.installs,
            listener: &self.listener,
            pool: &self.config.pool,
            stop: &self.stop,
            refiner: &refiner,
            published: asked.published,
            probe_command: asked.probe_command,
            node_error: asked.node_error,
            store: asked.store,
            read: self.config.reuse == Reuse::Stored,
            warnings: Mutex::new(Vec::new()),
        };
        let counts: Vec<usize> = versions.iter().map(|j| j.cases.len()).collect();
        let mut driver = Driver {
            ctx: &ctx,
            runs: versions.iter().map(VersionRun::new).collect(),
            machine: SessionMachine::new(&counts, ctx.pool.probes),
            todo: VecDeque::new(),
            holds: Vec::new(),
            installs_made: false,
            store_warnings: Vec::new(),
            sink,
        };
        std::thread::scope(|s| driver.drive(s));
        let Driver {
            runs,
            mut holds,
            installs_made,
            store_warnings,
            ..
        } = driver;
        // The use locks are held until the run's end, the sweep included.
        let stats: Vec<VersionStats> = runs
            .into_iter()
            .map(|r| {
                holds.extend(r.hold);
                r.stats
            })
            .collect();
        let written = ctx.warnings.into_inner();
        self.store_warnings.extend(store_warnings);
        self.store_warnings
            .extend(written.unwrap_or_else(PoisonError::into_inner));
        if installs_made {
            // The store files that only the stripped links held.
            let _ = self.installs.sweep();
        }
        drop(holds);
        stats
    }

    /// What every worker of a run needs, asked once before any starts:
    /// Node, what the registry serves (when an install may need it), and
    /// the store with the parts of a shelf's key every version shares
    /// (without Node or the probe's code there is nothing to key by).
    fn ask_before_running(&mut self, versions: &[VersionCases<'_>]) -> Asked {
        let node = self.node();
        let published = if versions
            .iter()
            .any(|j| !self.installs.is_installed(j.version))
        {
            self.published().ok()
        } else {
            None
        };
        let store = match (self.config.reuse, &node) {
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
        Asked {
            published,
            probe_command: node
                .as_ref()
                .ok()
                .map(|n| self.config.probe_command(&n.path)),
            node_error: node.as_ref().err().map(|e| error_chain(e)),
            store,
        }
    }
}

/// What `ask_before_running` found.
struct Asked {
    published: Option<Vec<MastraVersion>>,
    probe_command: Option<ProbeCommand>,
    node_error: Option<String>,
    store: Option<(ObservationStore, String, String)>,
}

/// One version's state while a session runs it.
struct VersionRun<'a> {
    version: MastraVersion,
    cases: &'a [Case],
    stats: VersionStats,
    /// Its install folder, once installed.
    dir: Option<PathBuf>,
    /// The observation its cases get when they cannot run.
    failure: Option<Observed>,
    /// Its shelf in the store, and which of its cases the store answered.
    shelf: Option<ShelfState>,
    reused: Vec<bool>,
    /// Its install's use lock until its probes run, which take it along (a
    /// damaged install is remade by them, and making it takes the lock
    /// alone).
    hold: Option<File>,
    /// The probes it runs on, once it runs.
    share: Arc<ProbeShare>,
}

impl<'a> VersionRun<'a> {
    fn new(j: &VersionCases<'a>) -> VersionRun<'a> {
        VersionRun {
            version: j.version,
            cases: j.cases,
            stats: VersionStats {
                version: Some(j.version),
                ..VersionStats::default()
            },
            dir: None,
            failure: None,
            shelf: None,
            reused: vec![false; j.cases.len()],
            hold: None,
            share: Arc::default(),
        }
    }
}

/// The driver of one run's `SessionMachine`: it starts the workers the
/// machine's actions ask for, and turns what they produce into results for
/// the sink and events for the machine, on the session's thread.
struct Driver<'a, 's> {
    ctx: &'a Shared<'a>,
    runs: Vec<VersionRun<'a>>,
    machine: SessionMachine,
    /// The machine's actions not yet carried out, in order.
    todo: VecDeque<SessionAction>,
    /// Use locks held until the run ends: no prune removes an install its
    /// probes were using.
    holds: Vec<File>,
    installs_made: bool,
    store_warnings: Vec<String>,
    sink: &'s mut dyn ResultSink,
}

impl<'a> Driver<'a, '_> {
    fn drive<'scope>(&mut self, s: &'scope Scope<'scope, '_>)
    where
        'a: 'scope,
    {
        let (tx, rx) = mpsc::channel::<Produced>();
        self.todo = self.machine.start().into();
        loop {
            while let Some(action) = self.todo.pop_front() {
                self.act(s, &tx, action);
            }
            if self.machine.is_finished() {
                break;
            }
            // This thread holds a sender: the wait ends by a message or the
            // timeout, never by a disconnection.
            let produced = rx.recv_timeout(Duration::from_millis(200)).ok();
            // A failure seen after the stop may be the stop's doing: the
            // machine hears of the stop first.
            if self.ctx.stop.load(Ordering::SeqCst) && !self.machine.is_stopping() {
                self.tell(SessionEvent::Stop);
            }
            if let Some(produced) = produced {
                let event = self.absorb(produced);
                self.tell(event);
            }
        }
    }

    fn tell(&mut self, event: SessionEvent) {
        self.todo.extend(self.machine.on(event));
    }

    /// A result, to the sink the moment it exists.
    fn deliver(&mut self, version: usize, r: CaseResult) {
        self.sink.result(version, r);
    }

    fn judged(&self, version: usize, index: usize, observed: Observed) -> CaseResult {
        let run = &self.runs[version];
        judge(
            self.ctx.refiner,
            &run.cases[index],
            index,
            run.version,
            observed,
        )
    }

    fn act<'scope>(
        &mut self,
        s: &'scope Scope<'scope, '_>,
        tx: &mpsc::Sender<Produced>,
        action: SessionAction,
    ) where
        'a: 'scope,
    {
        match action {
            SessionAction::Install { version } => {
                let (ctx, tx) = (self.ctx, tx.clone());
                let (v, cases) = (self.runs[version].version, self.runs[version].cases);
                s.spawn(move || {
                    let _ = tx.send(workers::install(ctx, version, v, cases));
                });
            }
            SessionAction::Run { version, probes } => self.run(s, tx, version, probes),
            // A grant that reaches a version whose probes have ended is
            // freed by its `ProbesEnded`, already on its way.
            SessionAction::Grow { version, probes } => self.runs[version].share.grant(probes),
            SessionAction::Fail { version, cases } => {
                let failure = self.runs[version]
                    .failure
                    .clone()
                    .unwrap_or_else(|| Observed::InstallFailed("the version could not run".into()));
                self.runs[version].stats.outcome = failure.infra_detail();
                for index in cases {
                    let r = self.judged(version, index, failure.clone());
                    self.deliver(version, r);
                }
            }
            SessionAction::Done { version } => {
                self.store(s, version);
                self.sink.version_done(&self.runs[version].stats);
                give_back_freed_memory();
            }
        }
    }

    /// Start a version's probes on its cases the store did not answer.
    fn run<'scope>(
        &mut self,
        s: &'scope Scope<'scope, '_>,
        tx: &mpsc::Sender<Produced>,
        version: usize,
        probes: usize,
    ) where
        'a: 'scope,
    {
        let ctx = self.ctx;
        let run = &mut self.runs[version];
        run.share = Arc::new(ProbeShare::of(probes));
        let (Some(cmd), Some(dir)) = (ctx.probe_command.as_ref(), run.dir.clone()) else {
            // No Node: no probe can start, and every case gets the reason.
            let why = ctx
                .node_error
                .clone()
                .unwrap_or_else(|| "no install folder".to_string());
            run.failure = Some(Observed::InstallFailed(why));
            self.tell(SessionEvent::ProbesEnded { version, ok: false });
            return;
        };
        let work = ProbeRun {
            version,
            v: run.version,
            cases: run.cases,
            runnable: (0..run.cases.len()).filter(|&i| !run.reused[i]).collect(),
            keys: run.shelf.as_ref().map(|sh| sh.case_keys.clone()),
            cmd,
            dir,
            held: run.hold.take(),
            share: run.share.clone(),
        };
        let tx = tx.clone();
        s.spawn(move || {
            let ended = workers::probe(ctx, work, &tx);
            let _ = tx.send(ended);
        });
    }

    /// What a version's probes observed whole goes on its shelf, off this
    /// thread.
    fn store<'scope>(&mut self, s: &'scope Scope<'scope, '_>, version: usize)
    where
        'a: 'scope,
    {
        let ctx = self.ctx;
        let run = &mut self.runs[version];
        let (Some(shelf), Some((store, _, _))) = (run.shelf.as_mut(), &ctx.store) else {
            return;
        };
        let records = std::mem::take(&mut shelf.pending);
        if records.is_empty() {
            return;
        }
        let key = shelf.key.clone();
        let hello = run.stats.pool.hello.clone();
        s.spawn(move || {
            if let Err(e) = store.append(&key, hello.as_ref(), &records) {
                ctx.warnings
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(format!(
                        "{}: {} observation(s) not stored: {e}",
                        key.version,
                        records.len()
                    ));
            }
        });
    }

    /// What a worker produced: results to the sink, and the event it is
    /// for the machine.
    fn absorb(&mut self, produced: Produced) -> SessionEvent {
        match produced {
            Produced::Install {
                version,
                took,
                fresh,
                got,
                shelf,
                held,
            } => {
                let run = &mut self.runs[version];
                run.hold = held;
                run.stats.install = took;
                run.stats.installed_now = fresh && got.is_ok();
                self.installs_made |= run.stats.installed_now;
                let ok = got.is_ok();
                match got {
                    Ok(dir) => run.dir = Some(dir),
                    Err(e) => run.failure = Some(not_installed(&e)),
                }
                if let Some(opened) = shelf {
                    self.reuse(version, *opened);
                }
                SessionEvent::InstallEnded { version, ok }
            }
            Produced::Case {
                version,
                index,
                observed,
                record,
            } => {
                self.runs[version].stats.cases += 1;
                let r = self.judged(version, index, observed);
                if let (Some(record), Some(shelf)) = (record, self.runs[version].shelf.as_mut()) {
                    if reusable(&r) {
                        shelf.pending.push(record);
                    }
                }
                self.deliver(version, r);
                SessionEvent::CaseObserved { version, index }
            }
            Produced::Released { version } => SessionEvent::ProbeReleased { version },
            Produced::Probes { version, ran, held } => {
                self.holds.extend(held);
                let stats = &mut self.runs[version].stats;
                let ok = ran.is_ok();
                match ran {
                    Ok(p) => {
                        // The probe's own hello, when one started.
                        let hello = stats.pool.hello.take();
                        stats.pool = p;
                        if stats.pool.hello.is_none() {
                            stats.pool.hello = hello;
                        }
                    }
                    // The probes could not run the cases left: a fault of
                    // the probe (its stderr is in the error), not of the
                    // install.
                    Err(e) => self.runs[version].failure = Some(Observed::ProbeFault(e)),
                }
                SessionEvent::ProbesEnded { version, ok }
            }
        }
    }

    /// A version's shelf as its install found it: each stored result that
    /// may be reused goes to the sink and is observed for the machine.
    fn reuse(&mut self, version: usize, opened: Opened) {
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
            self.runs[version].reused[index] = true;
            self.runs[version].stats.reused += 1;
            self.deliver(version, r);
            self.tell(SessionEvent::CaseObserved { version, index });
        }
        let run = &mut self.runs[version];
        // A version no probe runs reports what the probe that made its
        // observations loaded.
        run.stats.pool.hello = opened.hello;
        run.shelf = Some(ShelfState {
            key: opened.key,
            case_keys: opened.case_keys,
            pending: Vec::new(),
        });
        give_back_freed_memory();
    }
}

/// Keep glibc's threshold for serving an allocation from its own mapping
/// fixed at its starting 128 KiB. glibc raises it to the size of any
/// mapped block freed, up to 32 MiB, so after the first large buffer every
/// later one was carved from the heaps, where what it freed stayed behind
/// the allocations made after it, and a warm matrix's peak grew with the
/// versions it ran (docs/figures.md, "The whole 1.x on every route, warm").
/// Called once, first, before any thread allocates.
pub fn fix_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a number in glibc's allocator state, before
    // any thread of this process allocates.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

/// Hand the pages of freed allocations back to the system. A version's
/// shelf is decoded, judged and dropped in one burst, between allocations
/// that live on, and glibc keeps the freed pages inside its heaps for
/// reuse: a warm matrix's RSS grew with every version's burst (over every
/// 1.x on every route, 769 MB against 239 MB over ten releases, while the
/// heap's own peak was 122 MB; docs/figures.md).
fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks glibc's own free lists.
    unsafe {
        libc::malloc_trim(0);
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
