//! `collect_run`: the run loop. Case files are loaded, versions resolved, and
//! every case run on every version (of this slice) through one `Session`;
//! the results come back in case order, then version order.
//!
//! In: a `RunRequest` (case paths, version specs, slice) and a `RunObserver`
//! that sees each result the moment it exists (the matrix writes it to disk,
//! the command layer draws progress). Out: a `RunOutcome`. `run`, `matrix`,
//! `sweep` and `diff` are this loop with different observers and reports.

use crate::case::{Case, CaseError};
use crate::judge::case_result::CaseResult;
use crate::observation::Observed;
use crate::outcome::Failure;
use crate::results::info::{corpus_digest, RunInfo};
use crate::results::VersionStats;
use crate::route::{Route, RouteSet};
use crate::run::config::{commit, Config};
use crate::run::recheck::{recheck, Held, Recheck, RecheckCount};
use crate::run::session::{ResultSink, Session, VersionCases};
use crate::run::shard::{costs_path, units_of, Costs, Shard};
use crate::version::spec::{MastraVersion, Selection, VersionSpec};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The case in the file at `path`, named by its path relative to the
/// working directory when it lies below it.
pub fn read_case(path: &Path) -> Result<Case, CaseError> {
    let unreadable = |problem: String| CaseError {
        file: path.to_path_buf(),
        field: String::new(),
        problem,
    };
    let bytes =
        std::fs::read(path).map_err(|e| unreadable(format!("cannot read the file: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| unreadable(format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to())))?;
    let cwd = std::env::current_dir().unwrap_or_default();
    Case::parse(path.strip_prefix(&cwd).unwrap_or(path), &text)
}

/// Every case file under `root` (a file, or a folder walked in sorted order).
/// Symbolic links are followed, each folder walked once: a link back up the
/// tree would otherwise be walked until the path is too long.
pub fn discover(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    discover_once(root, &mut std::collections::HashSet::new())
}

fn discover_once(
    root: &Path,
    seen: &mut std::collections::HashSet<PathBuf>,
) -> std::io::Result<Vec<PathBuf>> {
    if root.is_file() {
        return Ok(vec![root.to_path_buf()]);
    }
    if !seen.insert(std::fs::canonicalize(root)?) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(root)?.collect::<Result<Vec<_>, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            out.extend(discover_once(&path, seen)?);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(out)
}

/// Load every case under `paths`; every bad file is reported, and the good
/// ones still run.
pub fn load_cases(paths: &[PathBuf]) -> (Vec<Case>, Vec<CaseError>) {
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    for root in paths {
        match discover(root) {
            Ok(files) => {
                for f in files {
                    match read_case(&f) {
                        Ok(c) => cases.push(c),
                        Err(e) => errors.push(e),
                    }
                }
            }
            Err(e) => errors.push(CaseError {
                file: root.clone(),
                field: String::new(),
                problem: format!("cannot read: {e}"),
            }),
        }
    }
    (cases, errors)
}

/// What watches a run as it goes. Every method has a default that does
/// nothing, so an observer says only what it cares about.
pub trait RunObserver {
    /// Before the first case, with the run's description (which the observer
    /// may add to) and the number of (case, version) pairs to come.
    fn started(&mut self, _info: &mut RunInfo, _pairs: usize) -> Result<(), Failure> {
        Ok(())
    }
    /// A case file that cannot run; the rest runs.
    fn bad_case(&mut self, _error: &CaseError) {}
    fn result(&mut self, _result: &CaseResult) {}
    /// A version is done, with what it cost.
    fn version_done(&mut self, _stats: &VersionStats) {}
    fn finished(&mut self, _info: &RunInfo, _results: &[CaseResult]) -> Result<(), Failure> {
        Ok(())
    }
}

impl RunObserver for () {}

/// Two observers, each told everything, `A` first.
pub struct ObserverPair<'a, A: ?Sized, B: ?Sized>(pub &'a mut A, pub &'a mut B);

impl<A: RunObserver + ?Sized, B: RunObserver + ?Sized> RunObserver for ObserverPair<'_, A, B> {
    fn started(&mut self, info: &mut RunInfo, pairs: usize) -> Result<(), Failure> {
        self.0.started(info, pairs)?;
        self.1.started(info, pairs)
    }
    fn bad_case(&mut self, error: &CaseError) {
        self.0.bad_case(error);
        self.1.bad_case(error);
    }
    fn result(&mut self, result: &CaseResult) {
        self.0.result(result);
        self.1.result(result);
    }
    fn version_done(&mut self, stats: &VersionStats) {
        self.0.version_done(stats);
        self.1.version_done(stats);
    }
    fn finished(&mut self, info: &RunInfo, results: &[CaseResult]) -> Result<(), Failure> {
        self.0.finished(info, results)?;
        self.1.finished(info, results)
    }
}

/// What to run: the cases, the versions, the slice, where bodies go.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// The command, as the report names it.
    pub command: String,
    /// Case files and folders (the command layer defaults them to `cases/`).
    pub cases: Vec<PathBuf>,
    pub versions: Vec<VersionSpec>,
    /// Whether ranges and `all` take prereleases.
    pub selection: Selection,
    /// Write each case's snapshot text here.
    pub bodies: Option<PathBuf>,
    pub shard: Option<Shard>,
    /// `--route`: the routes of every case that does not name its own.
    pub routes: Option<RouteSet>,
    /// Keep every result in `RunOutcome::results` (`sweep` reads them side
    /// by side). Without it the results go to the observer and no further:
    /// a run's reports are rendered from its database.
    pub keep: bool,
    /// `--recheck N`: which results are observed again, and how often.
    pub recheck: Recheck,
    /// The folder of the generated cases (one of `cases`), whose cases are
    /// named by their place inside it (`generated_name`).
    pub generated: Option<PathBuf>,
}

/// A generated case's name: the folder's own name and the file's path
/// inside it (`fuzz-cases/case-000025-1f0c9a2b7d3e4f50.json`, named by
/// `loops::fuzz::case_file_name`), never where the folder is.
/// Each slice of a night writes the same cases under its own `--out`, and
/// `merge` takes slices whose corpus (names and contents) is the same and
/// lines their results up by name; named by their full paths, the slices
/// of every sharded night with generated cases were refused.
fn name_generated(cases: &mut [Case], dir: &Path) {
    let cwd = std::env::current_dir().unwrap_or_default();
    let shown = dir.strip_prefix(&cwd).unwrap_or(dir);
    let folder = Path::new(dir.file_name().unwrap_or_default());
    for case in cases {
        if let Ok(inside) = case.path.strip_prefix(shown) {
            case.path = folder.join(inside);
        }
    }
}

/// Each case on the routes of `--route`, one case per route, unless the case
/// names its own route; without `--route`, the cases as they are.
pub fn on_routes(cases: Vec<Case>, routes: Option<&RouteSet>) -> Vec<Case> {
    let Some(set) = routes else { return cases };
    cases
        .into_iter()
        .flat_map(|c| {
            if c.names_its_route() {
                vec![c]
            } else {
                set.routes().iter().map(|r| c.on_route(*r)).collect()
            }
        })
        .collect()
}

/// What a run's results came to, counted as they arrived.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunTally {
    pub results: usize,
    /// Some result diverged.
    pub divergence: bool,
    /// Some infrastructure outcome other than an unserved version.
    pub infra: bool,
    /// Some version was not served.
    pub unavailable: bool,
    /// Results whose re-checks disagree: neither divergence nor infrastructure.
    pub flaky: usize,
}

impl RunTally {
    fn add(&mut self, r: &CaseResult) {
        self.results += 1;
        self.divergence |= r.verdict.is_divergence();
        self.flaky += usize::from(r.verdict == crate::judge::compare::Verdict::Flaky);
        if r.verdict.is_infrastructure() {
            match r.verdict {
                crate::judge::compare::Verdict::VersionUnavailable => self.unavailable = true,
                _ => self.infra = true,
            }
        }
    }
}

/// What a run collected.
pub struct RunOutcome {
    pub info: RunInfo,
    pub tally: RunTally,
    /// What `--recheck` observed again.
    pub rechecked: RecheckCount,
    /// Every result, in case then version order, when the request asked to
    /// `keep` them; else empty.
    pub results: Vec<CaseResult>,
    pub case_errors: Vec<CaseError>,
    /// What went wrong with the observation store: reuse lost, no result.
    pub store_warnings: Vec<String>,
}

/// Run `request` through one `Session` (which owns the stop flag): bad case
/// files are reported to `observer` and left out, the rest runs.
pub fn collect_run(
    config: Config,
    stop: Arc<AtomicBool>,
    request: &RunRequest,
    observer: &mut dyn RunObserver,
) -> Result<RunOutcome, Failure> {
    let root = config.root.clone();
    let store = match config.reuse {
        crate::run::config::Reuse::Off => "off",
        crate::run::config::Reuse::Stored => "reuse",
        crate::run::config::Reuse::Fresh => "fresh",
    };
    if let Some(dir) = &request.bodies {
        std::fs::create_dir_all(dir).map_err(|e| {
            Failure::infra_because(
                format!("cannot create --bodies folder {}", dir.display()),
                e,
            )
        })?;
    }
    let (mut cases, case_errors) = load_cases(&request.cases);
    if let Some(dir) = &request.generated {
        name_generated(&mut cases, dir);
    }
    let cases = on_routes(cases, request.routes.as_ref());
    // With nothing left to run, the first bad file is the failure, said
    // once by `main`; the others are reported before it.
    if cases.is_empty() {
        let Some((first, others)) = case_errors.split_first() else {
            return Err(Failure::bad("no case to run"));
        };
        for e in others {
            observer.bad_case(e);
        }
        return Err(Failure::bad(first.to_string()));
    }
    for e in &case_errors {
        observer.bad_case(e);
    }
    let mut session = Session::new(config, stop.clone())?;
    let versions = session.resolve(&request.versions, request.selection)?;
    let mut info = RunInfo::new(&request.command, &commit(&root));
    info.store = store.to_string();
    info.isolation = crate::observe::sandbox::isolation().describe();
    crate::observe::sandbox::notice_fallback();
    info.versions = versions.clone();
    info.routes = {
        let mut routes: Vec<Route> = cases.iter().map(|c| c.route).collect();
        routes.sort();
        routes.dedup();
        routes
    };
    info.note_builds(|v| (session.origin(v), session.predicted_as(v)));
    info.corpus = corpus_digest(&cases);
    info.isolation = crate::observe::sandbox::isolation().describe();
    info.shard = request.shard.map(|s| s.to_string());
    let units = request
        .shard
        .map(|s| units_of(&versions, s, &Costs::load(&costs_path(&root))));
    // This slice's cases of each version (all of them without --shard).
    // A version that runs the whole corpus borrows it: a copy a version was
    // 280 MB before the first case ran, on every 1.x release on every route.
    let mut selected: Vec<Selected> = Vec::new();
    for &v in &versions {
        let chosen: Vec<usize> = (0..cases.len())
            .filter(|i| {
                units
                    .as_ref()
                    .is_none_or(|us| us.iter().any(|u| u.version == v && u.holds(*i)))
            })
            .collect();
        if !chosen.is_empty() {
            let subset = if chosen.len() == cases.len() {
                Cow::Borrowed(&cases[..])
            } else {
                Cow::Owned(chosen.iter().map(|&i| cases[i].clone()).collect())
            };
            selected.push((v, chosen, subset));
        }
    }
    let pairs = selected.iter().map(|(_, chosen, _)| chosen.len()).sum();
    observer.started(&mut info, pairs)?;
    let by_version: Vec<VersionCases> = selected
        .iter()
        .map(|(version, _, subset)| VersionCases {
            version: *version,
            cases: subset.as_ref(),
        })
        .collect();
    let mut collector = Collector {
        selected: &selected,
        request,
        observer: &mut *observer,
        results: Vec::new(),
        tally: RunTally::default(),
        costs: Vec::new(),
        held: Vec::new(),
        waiting: Vec::new(),
    };
    // Versions run side by side (`Session::run_versions`), so results and
    // finished versions arrive interleaved; the observer sees them as they
    // come, but for the results held for re-checks and their versions' costs.
    session.run_versions_into(&by_version, &mut collector);
    let rechecked = collector.recheck(&mut session);
    let Collector {
        mut results,
        tally,
        mut costs,
        ..
    } = collector;
    // The report's per-version costs in version order, whatever order the
    // versions finished in.
    costs.sort_by_key(|c| c.version);
    for stats in costs {
        info.absorb(stats);
    }
    info.interrupted = stop.load(Ordering::SeqCst);
    info.refused = session.listener.refused();
    // Completion order is not reproducible; case order then version order is.
    let version_rank =
        |v: MastraVersion| versions.iter().position(|x| *x == v).unwrap_or(usize::MAX);
    results.sort_by_key(|r| (r.index, version_rank(r.version)));
    observer.finished(&info, &results)?;
    Ok(RunOutcome {
        info,
        tally,
        rechecked,
        results,
        case_errors,
        store_warnings: std::mem::take(&mut session.store_warnings),
    })
}

/// A version run, its cases' indices in the corpus, and those cases.
type Selected<'c> = (MastraVersion, Vec<usize>, Cow<'c, [Case]>);

/// Where a run's results go as the session makes them: to the observer
/// (and kept, when asked), but for those `--recheck` holds back, which go
/// when their re-checks are done, with their versions' costs after them.
struct Collector<'a> {
    /// The versions run, each with its cases' indices in the corpus and
    /// the cases.
    selected: &'a [Selected<'a>],
    request: &'a RunRequest,
    observer: &'a mut dyn RunObserver,
    results: Vec<CaseResult>,
    tally: RunTally,
    costs: Vec<VersionStats>,
    held: Vec<Held>,
    /// The costs of versions with results held.
    waiting: Vec<VersionStats>,
}

impl Collector<'_> {
    fn deliver(&mut self, r: CaseResult) {
        if let (Some(dir), Observed::Ran { bodies, .. }) = (&self.request.bodies, &r.observed) {
            write_bodies(dir, &r, bodies, &mut *self.observer);
        }
        self.observer.result(&r);
        self.tally.add(&r);
        if self.request.keep {
            self.results.push(r);
        }
    }

    fn costs(&mut self, stats: &VersionStats) {
        self.observer.version_done(stats);
        self.costs.push(stats.clone());
    }

    /// Observe the held results again, then hand them on, and the costs
    /// that waited for them.
    fn recheck(&mut self, session: &mut Session) -> RecheckCount {
        let held = std::mem::take(&mut self.held);
        if held.is_empty() {
            return RecheckCount::default();
        }
        let versions: Vec<MastraVersion> = self.selected.iter().map(|s| s.0).collect();
        let (held, count) = recheck(session, &versions, held, self.request.recheck.tries);
        for h in held {
            self.deliver(h.settled());
        }
        for stats in std::mem::take(&mut self.waiting) {
            self.costs(&stats);
        }
        count
    }
}

impl ResultSink for Collector<'_> {
    fn result(&mut self, version: usize, mut r: CaseResult) {
        let (_, indices, cases) = &self.selected[version];
        let case = &cases[r.index];
        r.index = indices[r.index];
        if self.request.recheck.wants(&r) {
            self.held.push(Held::new(version, case.clone(), r));
        } else {
            self.deliver(r);
        }
    }

    fn version_done(&mut self, stats: &VersionStats) {
        if self
            .held
            .iter()
            .any(|h| Some(h.result.version) == stats.version)
        {
            self.waiting.push(stats.clone());
        } else {
            self.costs(stats);
        }
    }
}

/// `--bodies`: one case's normalised bodies, the snapshot text, unless
/// their order races (`snapshot::races`: no snapshot can hold them). A
/// file that cannot be written is told to the observer as a bad case would
/// be, and the run goes on.
fn write_bodies(
    dir: &Path,
    r: &CaseResult,
    bodies: &[crate::observation::Captured],
    observer: &mut dyn RunObserver,
) {
    use crate::judge::snapshot;
    if snapshot::races(r.version, bodies) {
        return;
    }
    let file = dir.join(format!("{}.txt", snapshot::name(&r.case, r.version)));
    if let Err(e) = std::fs::write(&file, snapshot::text(bodies)) {
        observer.bad_case(&CaseError {
            file,
            field: String::new(),
            problem: format!("cannot write the bodies: {e}"),
        });
    }
}
