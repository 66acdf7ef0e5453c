//! Scheduling many cases over one version's probe: `run_cases`.
//!
//! In: cases, an installed version, the capture listener. Out: one
//! `Observation` per case, handed to a callback the moment it completes (so a
//! run that is interrupted keeps what finished).
//!
//! Up to `concurrency` cases are in flight in one Node process. A crash or a
//! hang cannot be pinned on one case while several run (one case that
//! blocks the event loop makes all of them late), so when the probe dies, or
//! a case passes its deadline, with several in flight, the probe is ended as
//! a whole process group and every case it was running becomes a suspect,
//! run again alone on a fresh probe. A case alone past its deadline is the
//! timeout; a case that kills the probe alone is retried once, and recorded
//! as the crash the second time. Its neighbours get their real results. A
//! probe that dies `MAX_FUTILE_DEATHS` times without a case finishing in
//! between ends this version's run with an error instead of a restart loop.
//! Every `ping_every` cases the probe's memory is read, and a probe over
//! `recycle_rss` is replaced between cases.
//!
//! A result is trusted only if every request the probe counted for the case
//! reached the listener, and none went anywhere but the case's model URL;
//! otherwise the case is a fault that says what went missing.

use super::probe::{Answer, Hello, Probe, ProbeCommand, ProbeError};
use crate::case::Case;
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::observation::Observation;
use crate::observe::capture::Listener;
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct PoolConfig {
    pub concurrency: usize,
    pub case_timeout: Duration,
    pub ping_every: usize,
    pub recycle_rss: u64,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            concurrency: 8,
            case_timeout: Duration::from_secs(30),
            ping_every: 500,
            recycle_rss: 1536 << 20,
        }
    }
}

/// What running the cases cost, for the report and `make bench`.
#[derive(Debug, Clone, Default)]
pub struct PoolStats {
    pub hello: Option<Hello>,
    pub starts: u32,
    pub startup_total: Duration,
    pub restarts_after_crash: u32,
    pub restarts_after_timeout: u32,
    pub recycled: u32,
    pub garbage_lines: u64,
    pub max_rss: u64,
    pub busy: Duration,
}

/// Sequence numbers are unique per harness process, so one listener can
/// serve several pools and a retried case never sees an old capture.
static NEXT_SEQ: AtomicU64 = AtomicU64::new(1);

/// Probe deaths with no case finished in between, after which the version's
/// run gives up: enough to pin two poison cases in a row (a shared crash,
/// then two alone for each), few enough that a probe that dies whatever it
/// runs costs seconds, not a restart per case.
pub const MAX_FUTILE_DEATHS: u32 = 6;

/// How long a case may run when its timeout would overflow the clock: a
/// `--case-timeout` of `u64::MAX` seconds means "never", not a panic.
const FOREVER: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

struct InFlight {
    index: usize,
    deadline: Instant,
}

/// Run `cases` on the probe for `install`; call `emit(index, observation)` as
/// each completes. Cases left when `stop` is raised are not run and not
/// emitted. An error means no probe could be started (or kept alive); the
/// cases not emitted then have no result, and the caller says why.
pub fn run_cases(
    cmd: &ProbeCommand,
    install: &Path,
    listener: &Listener,
    cases: &[&Case],
    cfg: &PoolConfig,
    stop: &AtomicBool,
    mut emit: impl FnMut(usize, Observation),
) -> Result<PoolStats, ProbeError> {
    let mut stats = PoolStats::default();
    let began = Instant::now();
    let mut probe = start(cmd, install, stop, &mut stats)?;
    let mut queue: VecDeque<usize> = (0..cases.len()).collect();
    let mut suspects: VecDeque<usize> = VecDeque::new();
    let mut crashes_seen: HashMap<usize, u32> = HashMap::new();
    let mut in_flight: HashMap<u64, InFlight> = HashMap::new();
    let mut since_ping = 0usize;
    let mut recycle_wanted = false;
    let mut futile_deaths = 0u32;
    let case_timeout = cfg.case_timeout.min(FOREVER);

    while !queue.is_empty() || !suspects.is_empty() || !in_flight.is_empty() {
        if stop.load(Ordering::SeqCst) {
            for (seq, _) in in_flight.drain() {
                listener.take(seq);
            }
            break;
        }
        // Recycle only between cases: let the in-flight ones finish first.
        if recycle_wanted && in_flight.is_empty() {
            probe.shutdown();
            stats.recycled += 1;
            probe = start(cmd, install, stop, &mut stats)?;
            recycle_wanted = false;
        }
        while !recycle_wanted && in_flight.len() < cfg.concurrency.max(1) {
            // A suspect runs alone, so that a second crash is its own.
            let next = if suspects.is_empty() {
                queue.pop_front().map(|i| (i, false))
            } else if in_flight.is_empty() {
                suspects.pop_front().map(|i| (i, true))
            } else {
                None
            };
            let Some((index, alone)) = next else {
                break;
            };
            let case = cases[index];
            let seq = NEXT_SEQ.fetch_add(1, Ordering::Relaxed);
            listener.register(seq, case.replies.clone());
            if probe
                .send_run(seq, &listener.url_for(seq), &case.raw)
                .is_err()
            {
                // The pipe is gone: the probe died. Put the case back; the
                // Closed answer that follows handles the restart.
                listener.take(seq);
                if alone {
                    suspects.push_front(index);
                } else {
                    queue.push_front(index);
                }
                break;
            }
            in_flight.insert(
                seq,
                InFlight {
                    index,
                    deadline: Instant::now() + case_timeout,
                },
            );
            since_ping += 1;
        }
        if since_ping >= cfg.ping_every {
            since_ping = 0;
            let _ = probe.send_ping(NEXT_SEQ.fetch_add(1, Ordering::Relaxed));
        }

        let next_deadline = in_flight.values().map(|f| f.deadline).min();
        let wait = next_deadline.map_or(Duration::from_millis(200), |d| {
            d.saturating_duration_since(Instant::now())
                .min(Duration::from_millis(200))
        });
        match probe.recv(wait) {
            Some(Answer::Result { seq, result }) => {
                if let Some(f) = in_flight.remove(&seq) {
                    let captured = listener.take(seq);
                    futile_deaths = 0;
                    match unreached(&result, captured.len()) {
                        Some(why) => emit(f.index, Observation::Fault(why)),
                        None => emit(f.index, Observation::Done { result, captured }),
                    }
                }
            }
            Some(Answer::Fault {
                seq: Some(seq),
                message,
            }) if in_flight.contains_key(&seq) => {
                let f = in_flight.remove(&seq).map(|f| f.index).unwrap_or_default();
                listener.take(seq);
                futile_deaths = 0;
                emit(f, Observation::Fault(message));
            }
            Some(Answer::Pong { rss, .. }) => {
                stats.max_rss = stats.max_rss.max(rss);
                recycle_wanted = rss > cfg.recycle_rss;
            }
            Some(Answer::Fault { .. } | Answer::Hello(_)) => stats.garbage_lines += 1,
            Some(Answer::Garbage(_)) => stats.garbage_lines += 1,
            Some(Answer::Closed) => {
                let stderr = probe.stderr_tail();
                probe.kill();
                stats.restarts_after_crash += 1;
                futile_deaths += 1;
                // Only a case that was alone is charged with the crash.
                let alone = in_flight.len() == 1;
                for (seq, f) in in_flight.drain() {
                    listener.take(seq);
                    let seen = crashes_seen.entry(f.index).or_insert(0);
                    *seen += u32::from(alone);
                    if *seen >= 2 {
                        emit(f.index, Observation::Crash(stderr.clone()));
                    } else {
                        suspects.push_back(f.index);
                    }
                }
                if queue.is_empty() && suspects.is_empty() {
                    stats.busy = began.elapsed();
                    return Ok(stats);
                }
                if futile_deaths >= MAX_FUTILE_DEATHS {
                    return Err(ProbeError::Unstable {
                        install: install.display().to_string(),
                        restarts: futile_deaths,
                        stderr,
                    });
                }
                probe = start(cmd, install, stop, &mut stats)?;
            }
            None => {
                let now = Instant::now();
                if !in_flight.values().any(|f| f.deadline <= now) {
                    continue;
                }
                probe.kill();
                stats.restarts_after_timeout += 1;
                if in_flight.len() == 1 {
                    futile_deaths = 0;
                    for (seq, f) in in_flight.drain() {
                        listener.take(seq);
                        emit(f.index, Observation::Timeout(cfg.case_timeout));
                    }
                } else {
                    for (seq, f) in in_flight.drain() {
                        listener.take(seq);
                        suspects.push_back(f.index);
                    }
                }
                if queue.is_empty() && suspects.is_empty() {
                    stats.busy = began.elapsed();
                    return Ok(stats);
                }
                probe = start(cmd, install, stop, &mut stats)?;
            }
        }
    }
    probe.shutdown();
    stats.busy = began.elapsed();
    Ok(stats)
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

fn start(
    cmd: &ProbeCommand,
    install: &Path,
    stop: &AtomicBool,
    stats: &mut PoolStats,
) -> Result<Probe, ProbeError> {
    let probe = Probe::start(cmd, install, stop)?;
    stats.starts += 1;
    stats.startup_total += probe.hello.startup;
    stats.hello.get_or_insert_with(|| probe.hello.clone());
    Ok(probe)
}
