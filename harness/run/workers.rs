//! The two workers of a session: a version's install (with a look at its
//! shelf in the observation store) and a version's probes (with the retry
//! of a damaged install). Each runs on a thread of its own and ends in one
//! `Produced` message; the probe worker also sends one per case as it
//! completes. What to run, and when, is `schedule::SessionMachine`'s
//! decision; what the messages mean for the session, `session.rs`'s.
//!
//! In: the session's shared context (`Shared`), one version and its cases.
//! Out: `Produced` messages on a channel to the session's thread.

use crate::case::Case;
use crate::install::layout::{remedy, Installs, Made};
use crate::install::mastra::VersionError;
use crate::judge::case_result::{judge_parsed, CaseResult};
use crate::judge::refine::Refiner;
use crate::observation::Observed;
use crate::observe::capture::Listener;
use crate::observe::pool::{run_shared, PoolConfig, PoolNews, ProbeShare};
use crate::observe::probe::{ProbeCommand, ProbeError};
use crate::outcome::error_chain;
use crate::recorded::format::Record;
use crate::recorded::key::{CaseKey, ShelfKey, FORMAT};
use crate::recorded::{install_identity_of, ObservationStore};
use crate::results::{Hello, PoolStats};
use crate::version::spec::MastraVersion;
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// What the workers hand the session's thread.
pub enum Produced {
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
        held: Option<File>,
    },
    /// A case's observation, and its record for the store when it is whole.
    Case {
        version: usize,
        index: usize,
        observed: Observed,
        record: Option<Record>,
    },
    /// One of a version's probes ended with nothing left queued.
    Released { version: usize },
    /// A version's probes ended (the error as it is reported), and the
    /// install's use lock back (a remade install's own).
    Probes {
        version: usize,
        ran: Result<PoolStats, String>,
        held: Option<File>,
    },
}

/// What every worker of one session shares, read-only (the warnings
/// behind a lock): asked once, before any worker starts.
pub struct Shared<'a> {
    pub installs: &'a Installs,
    pub listener: &'a Listener,
    pub pool: &'a PoolConfig,
    pub stop: &'a AtomicBool,
    pub refiner: &'a Refiner,
    /// What the registry serves, when an install may need it.
    pub published: Option<Vec<MastraVersion>>,
    /// The probe's command; `None` without Node, and `node_error` says why.
    pub probe_command: Option<ProbeCommand>,
    pub node_error: Option<String>,
    /// The store, with the parts of a shelf's key every version shares
    /// (Node's version, the probe's code digest).
    pub store: Option<(ObservationStore, String, String)>,
    /// Whether stored observations are read (else only written).
    pub read: bool,
    /// What went wrong writing the store: it cost reuse, never a result.
    pub warnings: Mutex<Vec<String>>,
}

/// A version's shelf as its install worker found it.
pub struct Opened {
    pub key: ShelfKey,
    /// The key of each of the version's cases, in order.
    pub case_keys: Arc<Vec<CaseKey>>,
    /// The cases stored under their keys, judged, those that may be reused.
    pub judged: Vec<CaseResult>,
    /// What the probe that made them loaded.
    pub hello: Option<Hello>,
    pub unreadable: usize,
}

/// The name of the verdict of a result that depends on the arrival order of
/// concurrent requests (`docs/case-format.md`): its observation is one
/// draw among several, so it is never stored and never reused.
const NONDETERMINISTIC: &str = "nondeterministic";

/// Whether a result's observation may be stored or reused.
pub fn reusable(r: &CaseResult) -> bool {
    r.observed.projection().is_some() && r.verdict.name() != NONDETERMINISTIC
}

/// Whether the probes of an install failed as a probe does when it cannot
/// load what the install holds: at start, or dying before any case ended.
fn failed_to_start(e: &ProbeError) -> bool {
    matches!(
        e,
        ProbeError::LoadFailed { .. } | ProbeError::NoHello { .. } | ProbeError::Unstable { .. }
    )
}

/// The shelf of the install of `v` at `dir`, and the cases of `cases` it
/// holds when `read`, judged by today's code and model (on the install's
/// thread, so that a run the store answers judges on every core), those
/// that may be reused; `None` when the install has no identity (no
/// lockfile says what it holds), so nothing of it is stored.
fn open_shelf(
    (store, refiner): (&ObservationStore, &Refiner),
    (v, dir): (MastraVersion, &Path),
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
        judged: Vec::new(),
        hello: None,
        unreadable: 0,
    };
    if read {
        // Cases alike in every field share a key, and so a record.
        let mut by_key: HashMap<&CaseKey, Vec<usize>> = HashMap::new();
        for (i, k) in case_keys.iter().enumerate() {
            by_key.entry(k).or_default().push(i);
        }
        // Each record is judged as it is read and its bodies dropped: a
        // version's shelf is never held whole.
        let judge_record = |r: Record| -> Vec<CaseResult> {
            let (&last, before) = by_key[&r.case].split_last().expect("a key has a case");
            let judge_one = |index: usize, record: Record| {
                let case = &cases[index];
                let (observed, parsed) =
                    Observed::from_observation_parsed(case, record.into_observation());
                judge_parsed(refiner, case, (index, v), observed, Some(&parsed))
            };
            let mut out: Vec<CaseResult> =
                before.iter().map(|&i| judge_one(i, r.clone())).collect();
            out.push(judge_one(last, r));
            out
        };
        let folded = store.fold_shelf(&opened.key, |k| by_key.contains_key(k), judge_record);
        opened.judged = folded
            .each
            .into_values()
            .flatten()
            .filter(reusable)
            .collect();
        opened.judged.sort_by_key(|r| r.index);
        opened.hello = folded.meta.and_then(|m| m.hello);
        opened.unreadable = folded.unreadable;
    }
    opened.case_keys = Arc::new(case_keys);
    Some(opened)
}

/// Install version number `version` (`v`, with `cases`), and open and
/// judge its shelf when the run uses the store.
pub fn install(ctx: &Shared<'_>, version: usize, v: MastraVersion, cases: &[Case]) -> Produced {
    let began = Instant::now();
    let got = ctx.installs.ensure_held(v, ctx.published.as_deref());
    let took = began.elapsed();
    // Only the run that made the install says so; one that waited for
    // another's did not.
    let fresh = matches!(got, Ok((_, Made::Here, _)));
    let (got, held) = match got {
        Ok((dir, _, held)) => (Ok(dir), Some(held)),
        Err(e) => (Err(e), None),
    };
    let shelf = match (&got, &ctx.store) {
        (Ok(dir), Some((store, node, code))) => open_shelf(
            (store, ctx.refiner),
            (v, dir),
            (node, code),
            cases,
            ctx.read,
        )
        .map(Box::new),
        _ => None,
    };
    Produced::Install {
        version,
        took,
        fresh,
        got,
        shelf,
        held,
    }
}

/// One version's run on its probes, as the session starts it.
pub struct ProbeRun<'a> {
    pub version: usize,
    pub v: MastraVersion,
    pub cases: &'a [Case],
    /// The cases the store did not answer.
    pub runnable: Vec<usize>,
    /// Each case's key on the version's shelf, when it has one.
    pub keys: Option<Arc<Vec<CaseKey>>>,
    pub cmd: &'a ProbeCommand,
    pub dir: PathBuf,
    pub held: Option<File>,
    /// The probes it runs on, as the session grants and the pool gives
    /// them back.
    pub share: Arc<ProbeShare>,
}

/// Run a version's cases on its probes, sending each case's observation on
/// `tx` as it completes. When the probes cannot start and the install
/// proves damaged, it is moved aside and made again once, and the cases
/// left run on it; a second failure is the user's to see, with the remedy.
pub fn probe(ctx: &Shared<'_>, run: ProbeRun<'_>, tx: &mpsc::Sender<Produced>) -> Produced {
    let ProbeRun {
        version,
        v,
        cases,
        runnable: mut left,
        keys,
        cmd,
        mut dir,
        mut held,
        share,
    } = run;
    let mut remade = false;
    let ran = loop {
        // A retry runs on the probes the version holds now.
        let pool = PoolConfig {
            probes: share.held().max(1),
            ..ctx.pool.clone()
        };
        let done = Mutex::new(Vec::new());
        let refs: Vec<&Case> = left.iter().map(|&i| &cases[i]).collect();
        let on = (dir.as_path(), ctx.listener);
        let ran = run_shared(cmd, on, &refs, &pool, ctx.stop, &share, |news| {
            let PoolNews::Observed(k, obs) = news else {
                let _ = tx.send(Produced::Released { version });
                return;
            };
            let index = left[k];
            done.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(index);
            let obs = crate::run::planted::first_try(&cases[index], v, obs);
            let record = keys.as_ref().and_then(|ks| Record::of(ks[index], &obs));
            let observed = Observed::from_observation(&cases[index], obs);
            let _ = tx.send(Produced::Case {
                version,
                index,
                observed,
                record,
            });
        });
        let e = match ran {
            Err(e) if failed_to_start(&e) && !ctx.stop.load(Ordering::SeqCst) => e,
            other => break other.map_err(|e| error_chain(&e)),
        };
        if let Err(said) = check_damage(ctx.installs, &cmd.node, &dir, &e, remade) {
            break Err(said);
        }
        // Once a run: a second failure is the user's to see, with the remedy.
        remade = true;
        // Making the install again takes its lock alone.
        drop(held.take());
        match remake(ctx, v, &dir) {
            Ok((again, h)) => {
                dir = again;
                held = Some(h);
                let done = done.into_inner().unwrap_or_else(PoisonError::into_inner);
                left.retain(|i| !done.contains(i));
            }
            Err(said) => break Err(said),
        }
    };
    Produced::Probes { version, ran, held }
}

/// After probes failed to start (`e`) on the install at `dir`: `Ok` when
/// the install proves damaged and was not `remade` already (it is to be
/// made again), else the error the version's cases get.
fn check_damage(
    installs: &Installs,
    node: &Path,
    dir: &Path,
    e: &ProbeError,
    remade: bool,
) -> Result<(), String> {
    let Some((damage, _)) = installs.damage(dir, Some(node)) else {
        return Err(error_chain(e));
    };
    if remade {
        let said = format!(
            "the install at {} is damaged ({damage}), also when made again: {}",
            dir.display(),
            remedy(dir, &installs.store().dir)
        );
        eprintln!("error: {said}");
        return Err(format!("{}\n  caused by: {said}", error_chain(e)));
    }
    eprintln!(
        "notice: the install at {} is damaged ({damage}); moving it aside and installing it again",
        dir.display()
    );
    Ok(())
}

/// Make the damaged install of `v` at `dir` again: its new folder and use
/// lock, or the error (with the remedy) the version's cases get.
fn remake(ctx: &Shared<'_>, v: MastraVersion, dir: &Path) -> Result<(PathBuf, File), String> {
    let installs = ctx.installs;
    match installs.remake(v, dir, ctx.published.as_deref()) {
        Ok((again, _, h)) => Ok((again, h)),
        Err(e) => {
            let said = format!(
                "{}\n  the install at {} was damaged and could not be made again: {}",
                error_chain(&e),
                dir.display(),
                remedy(dir, &installs.store().dir)
            );
            eprintln!("error: {said}");
            Err(said)
        }
    }
}
