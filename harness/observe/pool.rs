//! Running many cases of one version over several probes: `run_cases`.
//!
//! In: cases, an installed version, the capture listener, how many probes.
//! Out: one `Observation` per case, handed to a callback the moment it
//! completes (so a run that is interrupted keeps what finished).
//!
//! The cases wait in one queue (`CaseQueue`) shared by the version's probes;
//! each probe, on its own thread, takes what its `PoolMachine` has room for,
//! so a probe slowed by a retry or a recycle takes less and none idles while
//! cases wait. The rules (suspects, retries, timeouts, recycling, giving up)
//! are the machine's (`machine.rs`, unit-tested without processes); this
//! file only carries out its actions on real probes and the listener.
//!
//! A result is trusted only if every request the probe counted for the case
//! reached the listener, and none went anywhere but the case's model URL;
//! otherwise the case is a fault that says what went missing.

use super::machine::{Action, Ending, Event, Limits, PoolMachine};
use super::probe::{Answer, Probe, ProbeCommand, ProbeError};
use crate::case::Case;
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::observation::Observation;
use crate::observe::capture::Listener;
use crate::results::PoolStats;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Cases between two readings of a probe's memory; the reading after this
/// many cases of a run's first process is the baseline growth is measured
/// against.
pub const PING_EVERY: usize = 100;

/// Cases between two readings where a probe is replaced by growth
/// (`bench`'s second policy): often enough that a process is replaced soon
/// after it passes the bound, rather than up to `PING_EVERY` cases later.
pub const GROWTH_PING_EVERY: usize = 10;

/// V8's heap growth where a probe is replaced by growth: the old generation
/// may grow to 1.5 times what it kept at its last collection, where V8's
/// own choice on these machines is up to 4 times. Measured on the corpus,
/// it halves a probe's growth for about 10 % more CPU, and a replacement
/// costs more than that (docs/figures.md, "What a probe's memory grows by").
pub const GROWTH_HEAP_PERCENT: u32 = 50;

/// The growth `bench` measures recycling at (`machine::Limits::recycle_growth`):
/// a probe whose memory passes this multiple of its first reading is
/// replaced between cases. It is not the default: measured on the corpus,
/// a probe replaced this often costs far more time than its memory is worth
/// (docs/figures.md, "The probes' memory"), so by default only `recycle_rss`
/// replaces a probe.
pub const RECYCLE_GROWTH: f64 = 1.2;

#[derive(Debug, Clone)]
pub struct PoolConfig {
    /// Cases in flight per probe.
    pub concurrency: usize,
    /// Probes this version's cases are dealt across (`run::schedule`
    /// picks it from `--probes` and the version's case count).
    pub probes: usize,
    pub case_timeout: Duration,
    pub ping_every: usize,
    pub recycle_rss: u64,
    pub recycle_growth: Option<f64>,
    /// Cases a process runs before the reading that is the baseline.
    pub baseline_after: usize,
    /// Node's `--heap-growing-percent` for each probe (`None`: V8's own).
    pub heap_growing_percent: Option<u32>,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            concurrency: 8,
            probes: 1,
            case_timeout: Duration::from_secs(30),
            ping_every: PING_EVERY,
            recycle_rss: 1536 << 20,
            recycle_growth: None,
            baseline_after: PING_EVERY,
            heap_growing_percent: None,
        }
    }
}

impl PoolConfig {
    fn limits(&self) -> Limits {
        Limits {
            concurrency: self.concurrency,
            case_timeout: self.case_timeout,
            ping_every: self.ping_every,
            recycle_rss: self.recycle_rss,
            recycle_growth: self.recycle_growth,
            baseline_after: self.baseline_after,
            max_futile_deaths: super::machine::MAX_FUTILE_DEATHS,
        }
    }
}

/// The cores this process may use (its affinity mask and cgroup quota, as
/// the standard library reads them), at least 1.
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Sequence numbers are unique per harness process, so one listener can
/// serve every probe and a retried case never sees an old capture.
static NEXT_SEQ: AtomicU64 = AtomicU64::new(1);

fn next_seq() -> u64 {
    NEXT_SEQ.fetch_add(1, Ordering::Relaxed)
}

/// The cases of one version not yet taken by a probe.
struct CaseQueue(Mutex<VecDeque<usize>>);

impl CaseQueue {
    fn is_empty(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .is_empty()
    }

    fn take(&self, room: usize) -> Vec<usize> {
        let mut q = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let n = room.min(q.len());
        q.drain(..n).collect()
    }
}

/// The order cases are dealt in: those that sleep through retry back-off
/// first, so their seconds asleep overlap the other cases' work instead of
/// holding the version's probes (and the next version) at its end; the rest
/// as given. Results carry their index, so the order run is not the order
/// reported.
fn deal_order(cases: &[&Case]) -> VecDeque<usize> {
    let mut order: Vec<usize> = (0..cases.len()).collect();
    order.sort_by_key(|&i| !cases[i].waits_on_retries());
    order.into()
}

/// A version's probes as the session changes them while its cases run:
/// probes added to it (`grant`), and those it holds, less each that ended
/// with nothing left queued. Shared by the session's thread and the
/// version's `run_shared`.
#[derive(Debug, Default)]
pub struct ProbeShare {
    /// Granted and not yet started.
    pending: AtomicUsize,
    held: AtomicUsize,
}

impl ProbeShare {
    /// A share of `probes` probes.
    pub fn of(probes: usize) -> ProbeShare {
        ProbeShare {
            pending: AtomicUsize::new(0),
            held: AtomicUsize::new(probes),
        }
    }

    /// Add `probes` probes to the version's run.
    pub fn grant(&self, probes: usize) {
        self.held.fetch_add(probes, Ordering::SeqCst);
        self.pending.fetch_add(probes, Ordering::SeqCst);
    }

    /// The probes the version holds.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::SeqCst)
    }

    fn release(&self) {
        let _ = self
            .held
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |h| h.checked_sub(1));
    }
}

/// What `run_shared` tells its caller, on the caller's thread.
#[derive(Debug)]
pub enum PoolNews {
    /// Case `index` completed.
    Observed(usize, Observation),
    /// A probe ended with nothing left queued (or a grant found nothing to
    /// take): its core is free while the others finish what they hold.
    Released,
}

/// What a probe's thread sends the caller's.
enum Sent {
    Observed(usize, Observation),
    Released,
}

/// Run `cases` on `cfg.probes` probes of `install`; call `emit(index,
/// observation)` as each completes. Cases left when `stop` is raised are
/// not run and not emitted. An error means a probe could not be started (or
/// kept alive); the cases not emitted then have no result, and the caller
/// says why. Probes that did start keep running what is left.
pub fn run_cases(
    cmd: &ProbeCommand,
    install: &Path,
    listener: &Listener,
    cases: &[&Case],
    cfg: &PoolConfig,
    stop: &AtomicBool,
    mut emit: impl FnMut(usize, Observation),
) -> Result<PoolStats, ProbeError> {
    let share = ProbeShare::of(cfg.probes);
    run_shared(cmd, (install, listener), cases, cfg, stop, &share, |news| {
        if let PoolNews::Observed(index, observation) = news {
            emit(index, observation);
        }
    })
}

/// `run_cases`, on the probes of `share`: those `cfg.probes` starts with,
/// and those granted while it runs (a grant finding nothing queued, or a
/// stop, is given back at once). Each probe that ends with nothing left
/// queued is given back as it ends (`PoolNews::Released`), so the session
/// can start the next version's probes while this one's last cases finish.
pub fn run_shared(
    cmd: &ProbeCommand,
    (install, listener): (&Path, &Listener),
    cases: &[&Case],
    cfg: &PoolConfig,
    stop: &AtomicBool,
    share: &ProbeShare,
    mut news: impl FnMut(PoolNews),
) -> Result<PoolStats, ProbeError> {
    let began = Instant::now();
    let queue = CaseQueue(Mutex::new(deal_order(cases)));
    let probes = cfg.probes.clamp(1, cases.len().max(1));
    let (tx, rx) = mpsc::channel::<Sent>();
    let mut emitted = 0usize;
    let outcomes: Vec<(Result<PoolStats, ProbeError>, bool)> = std::thread::scope(|s| {
        let spawn = || {
            let (tx, queue) = (tx.clone(), &queue);
            s.spawn(move || {
                let ended = drive(cmd, install, listener, cases, queue, cfg, stop, &tx);
                if ended.is_ok() && queue.is_empty() {
                    let _ = tx.send(Sent::Released);
                }
                ended
            })
        };
        let mut workers: Vec<_> = (0..probes).map(|_| (spawn(), false)).collect();
        // Results reach the caller on this thread, as they complete; the
        // wait is short so that a grant starts its probe promptly.
        loop {
            for _ in 0..share.pending.swap(0, Ordering::SeqCst) {
                if queue.is_empty() || stop.load(Ordering::SeqCst) {
                    share.release();
                    news(PoolNews::Released);
                } else {
                    workers.push((spawn(), true));
                }
            }
            let sent = match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(sent) => sent,
                Err(_) if workers.iter().all(|(w, _)| w.is_finished()) => match rx.try_recv() {
                    Ok(sent) => sent,
                    Err(_) => break,
                },
                Err(_) => continue,
            };
            match sent {
                Sent::Observed(index, observation) => {
                    emitted += 1;
                    news(PoolNews::Observed(index, observation));
                }
                Sent::Released => {
                    share.release();
                    news(PoolNews::Released);
                }
            }
        }
        workers
            .into_iter()
            .map(|(w, grown)| (w.join().unwrap_or(Err(ProbeError::DriverPanicked)), grown))
            .collect()
    });
    let mut stats = PoolStats::default();
    let mut first_error = None;
    for (outcome, grown) in outcomes {
        match outcome {
            // A probe granted after the queue emptied started nothing.
            Ok(s) if grown && s.starts == 0 => {}
            Ok(s) => stats.absorb(s),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    stats.busy = began.elapsed();
    // A probe that failed while the others finished every case cost
    // nothing: only cases left without a result make the failure the version's.
    match first_error {
        Some(e) if emitted < cases.len() && !stop.load(Ordering::SeqCst) => Err(e),
        _ => Ok(stats),
    }
}

/// One probe: take work from the queue while the machine has room, carry
/// out the machine's actions, feed it what the probe says.
#[allow(clippy::too_many_arguments)]
fn drive(
    cmd: &ProbeCommand,
    install: &Path,
    listener: &Listener,
    cases: &[&Case],
    queue: &CaseQueue,
    cfg: &PoolConfig,
    stop: &AtomicBool,
    out: &mpsc::Sender<Sent>,
) -> Result<PoolStats, ProbeError> {
    let mut d = Driver {
        cmd,
        install,
        listener,
        cases,
        cfg,
        stop,
        out,
        probe: None,
        stderr: String::new(),
        stats: PoolStats {
            probes: 1,
            ..PoolStats::default()
        },
    };
    let mut m = PoolMachine::new(cfg.limits(), Box::new(next_seq));
    let result = d.run(&mut m, queue);
    if let Some(p) = d.probe.take() {
        p.shutdown();
    }
    for a in m.abandon() {
        d.act(&mut m, a, None)?;
    }
    result.map(|()| d.stats)
}

struct Driver<'a> {
    cmd: &'a ProbeCommand,
    install: &'a Path,
    listener: &'a Listener,
    cases: &'a [&'a Case],
    cfg: &'a PoolConfig,
    stop: &'a AtomicBool,
    out: &'a mpsc::Sender<Sent>,
    probe: Option<Probe>,
    /// The end of the last dead probe's stderr, for crashes and giving up.
    stderr: String,
    stats: PoolStats,
}

/// What came with an answer, for the case it finishes.
enum CaseAnswer {
    Result(Json),
    Fault(String),
}

impl Driver<'_> {
    fn run(&mut self, m: &mut PoolMachine, queue: &CaseQueue) -> Result<(), ProbeError> {
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Ok(());
            }
            for index in queue.take(m.room()) {
                m.give(index);
            }
            // Done when nothing is left here or in the queue (a machine with
            // no room, waiting to recycle, is idle with cases still queued).
            if m.is_idle() && queue.is_empty() {
                return Ok(());
            }
            let actions = m.next_actions(Instant::now());
            let restarted = actions
                .iter()
                .any(|a| matches!(a, Action::Start | Action::Recycle));
            for a in actions {
                self.act(m, a, None)?;
            }
            if restarted {
                // A fresh probe has room: send before waiting.
                continue;
            }
            let Some(probe) = self.probe.as_ref() else {
                continue;
            };
            let now = Instant::now();
            let wait = m
                .next_deadline()
                .map_or(Duration::from_millis(200), |d| {
                    d.saturating_duration_since(now)
                })
                .min(Duration::from_millis(200));
            let (event, answer) = match probe.recv(wait) {
                Some(Answer::Result { seq, result }) => (
                    Event::Answered { seq, fault: false },
                    Some(CaseAnswer::Result(result)),
                ),
                Some(Answer::Fault {
                    seq: Some(seq),
                    message,
                }) => (
                    Event::Answered { seq, fault: true },
                    Some(CaseAnswer::Fault(message)),
                ),
                Some(Answer::Pong { rss, .. }) => {
                    self.stats.max_rss = self.stats.max_rss.max(rss);
                    (Event::Rss(rss), None)
                }
                Some(Answer::Fault { seq: None, .. } | Answer::Hello(_) | Answer::Garbage(_)) => {
                    self.stats.garbage_lines += 1;
                    continue;
                }
                Some(Answer::Closed) => {
                    self.stderr = probe.stderr_tail();
                    (Event::Died, None)
                }
                None => (Event::Tick, None),
            };
            let fault = matches!(answer, Some(CaseAnswer::Fault(_)));
            let actions = m.on(event, Instant::now());
            if fault && actions.is_empty() {
                // A fault for a request not in flight is not an answer.
                self.stats.garbage_lines += 1;
            }
            let mut answer = answer;
            for a in actions {
                self.act(m, a, answer.take())?;
            }
        }
    }

    fn act(
        &mut self,
        m: &mut PoolMachine,
        action: Action,
        answer: Option<CaseAnswer>,
    ) -> Result<(), ProbeError> {
        match action {
            Action::Start => self.start(m)?,
            Action::Recycle => {
                if let Some(p) = self.probe.take() {
                    p.shutdown();
                }
                self.stats.recycled += 1;
                self.start(m)?;
            }
            Action::Send { seq, index } => {
                let case = self.cases[index];
                self.listener.register_case(seq, case);
                let sent = self.probe.as_mut().is_some_and(|p| {
                    p.send_run(seq, &self.listener.url_for(seq), &case.to_json())
                        .is_ok()
                });
                if !sent {
                    for a in m.on(Event::SendFailed { seq }, Instant::now()) {
                        self.act(m, a, None)?;
                    }
                }
            }
            Action::Ping => {
                if let Some(p) = self.probe.as_mut() {
                    let _ = p.send_ping(next_seq());
                }
            }
            Action::Kill { timeout } => {
                if let Some(p) = self.probe.take() {
                    p.kill();
                }
                if timeout {
                    self.stats.restarts_after_timeout += 1;
                } else {
                    self.stats.restarts_after_crash += 1;
                }
            }
            Action::Forget { seq } => {
                self.listener.take(seq);
            }
            Action::Emit { index, ending } => {
                let observation = match (ending, answer) {
                    (Ending::Answered { seq, .. }, Some(CaseAnswer::Result(result))) => {
                        let captured = self.listener.take(seq);
                        match unreached(&result, captured.len()) {
                            Some(why) => Observation::Fault(why),
                            None => Observation::Done { result, captured },
                        }
                    }
                    (Ending::Answered { seq, .. }, Some(CaseAnswer::Fault(message))) => {
                        self.listener.take(seq);
                        Observation::Fault(message)
                    }
                    (Ending::Answered { seq, .. }, None) => {
                        self.listener.take(seq);
                        Observation::Fault("the probe's answer was lost".into())
                    }
                    (Ending::Timeout, _) => Observation::Timeout(self.cfg.case_timeout),
                    (Ending::Crash, _) => Observation::Crash(self.stderr.clone()),
                };
                // The receiver lives until every driver has ended.
                let _ = self.out.send(Sent::Observed(index, observation));
            }
            Action::GiveUp { restarts } => {
                return Err(ProbeError::Unstable {
                    install: self.install.display().to_string(),
                    restarts,
                    stderr: self.stderr.clone(),
                })
            }
        }
        Ok(())
    }

    fn start(&mut self, m: &mut PoolMachine) -> Result<(), ProbeError> {
        let probe = Probe::start(
            self.cmd,
            self.install,
            Some(&self.listener.reach()),
            self.stop,
        )?;
        self.stats.starts += 1;
        self.stats.startup_total += probe.hello.startup;
        self.stats.hello.get_or_insert_with(|| probe.hello.clone());
        self.probe = Some(probe);
        m.on(Event::Started, Instant::now());
        Ok(())
    }
}

/// Why a result cannot be trusted, if it cannot: the probe counted more
/// requests for the case than reached the listener, or sent one elsewhere.
/// (`fetches` and `elsewhere` are the probe's own count, `PROTOCOL.md`; a
/// probe that does not count is not checked.)
fn unreached(result: &Json, captured: usize) -> Option<String> {
    let elsewhere: Vec<String> = result
        .get("elsewhere")
        .and_then(Json::as_array)
        .unwrap_or_default()
        .iter()
        .map(|u| {
            u.as_str()
                .map_or_else(|| u.to_compact(), JsString::to_lossy)
        })
        .collect();
    if !elsewhere.is_empty() {
        return Some(format!(
            "the probe sent {} request(s) somewhere other than the case's model URL: {}",
            elsewhere.len(),
            elsewhere.join(", ")
        ));
    }
    let fetches = result.get("fetches").and_then(Json::as_f64)?;
    (fetches > captured as f64).then(|| {
        format!(
            "the probe made {fetches} request(s) for this case but the listener received {captured}: \
             a request was lost on the way"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_asleep_in_retries_are_dealt_first() {
        let case = |text: &str| Case::parse(Path::new("c.json"), text).unwrap();
        let plain = case(r#"{"about":"p","tools":["a"]}"#);
        let retried =
            case(r#"{"about":"r","tools":["a"],"replies":[{"status":503},{"text":"ok"}]}"#);
        let rejected = case(r#"{"about":"x","tools":["a"],"replies":[{"status":400}]}"#);
        let cases = [&plain, &rejected, &retried, &plain, &retried];
        assert_eq!(Vec::from(deal_order(&cases)), [2, 4, 0, 1, 3]);
    }
}
