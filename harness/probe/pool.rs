//! Scheduling many cases over one version's probe: `run_cases`.
//!
//! In: cases, an installed version, the capture listener. Out: one
//! `Observation` per case, handed to a callback the moment it completes (so a
//! run that is interrupted keeps what finished).
//!
//! Up to `concurrency` cases are in flight in one Node process. When the
//! probe dies, the cases it was running are retried once on a fresh probe
//! (a crash cannot be pinned on one case while several run); a case in
//! flight at two crashes is recorded as the crash. A case past its deadline
//! is recorded as a timeout and the probe is ended as a whole process group,
//! since a hung call may hold what the next case needs; its neighbours are
//! retried. Every `ping_every` cases the probe's memory is read, and a probe
//! over `recycle_rss` is replaced between cases.

use super::{Answer, Hello, Probe, ProbeCommand, ProbeError};
use crate::capture::{Captured, Listener};
use crate::case::Case;
use crate::json::Json;
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// One case's outcome on one probe.
#[derive(Debug)]
pub enum Observation {
    /// The probe answered; `captured` is what reached the listener.
    Done {
        result: Json,
        captured: Vec<Captured>,
    },
    /// The probe could not build the case.
    Fault(String),
    Timeout(Duration),
    /// The probe died while running it (twice), with the end of its stderr.
    Crash(String),
}

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

struct InFlight {
    index: usize,
    deadline: Instant,
}

/// Run `cases` on the probe for `install`; call `emit(index, observation)` as
/// each completes. Cases left when `stop` is raised are not run and not
/// emitted. An error means no probe could be started at all.
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
    let mut probe = start(cmd, install, &mut stats)?;
    let mut queue: VecDeque<usize> = (0..cases.len()).collect();
    let mut crashes_seen: HashMap<usize, u32> = HashMap::new();
    let mut in_flight: HashMap<u64, InFlight> = HashMap::new();
    let mut since_ping = 0usize;
    let mut recycle_wanted = false;

    while !queue.is_empty() || !in_flight.is_empty() {
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
            probe = start(cmd, install, &mut stats)?;
            recycle_wanted = false;
        }
        while !recycle_wanted && in_flight.len() < cfg.concurrency.max(1) {
            let Some(index) = queue.pop_front() else {
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
                queue.push_front(index);
                break;
            }
            in_flight.insert(
                seq,
                InFlight {
                    index,
                    deadline: Instant::now() + cfg.case_timeout,
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
                    emit(f.index, Observation::Done { result, captured });
                }
            }
            Some(Answer::Fault {
                seq: Some(seq),
                message,
            }) if in_flight.contains_key(&seq) => {
                let f = in_flight.remove(&seq).map(|f| f.index).unwrap_or_default();
                listener.take(seq);
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
                for (seq, f) in in_flight.drain() {
                    listener.take(seq);
                    let seen = crashes_seen.entry(f.index).or_insert(0);
                    *seen += 1;
                    if *seen >= 2 {
                        emit(f.index, Observation::Crash(stderr.clone()));
                    } else {
                        queue.push_front(f.index);
                    }
                }
                if queue.is_empty() {
                    stats.busy = began.elapsed();
                    return Ok(stats);
                }
                probe = start(cmd, install, &mut stats)?;
            }
            None => {
                let now = Instant::now();
                let expired: Vec<u64> = in_flight
                    .iter()
                    .filter(|(_, f)| f.deadline <= now)
                    .map(|(s, _)| *s)
                    .collect();
                if expired.is_empty() {
                    continue;
                }
                probe.kill();
                stats.restarts_after_timeout += 1;
                for seq in expired {
                    if let Some(f) = in_flight.remove(&seq) {
                        listener.take(seq);
                        emit(f.index, Observation::Timeout(cfg.case_timeout));
                    }
                }
                for (seq, f) in in_flight.drain() {
                    listener.take(seq);
                    queue.push_front(f.index);
                }
                if queue.is_empty() {
                    stats.busy = began.elapsed();
                    return Ok(stats);
                }
                probe = start(cmd, install, &mut stats)?;
            }
        }
    }
    probe.shutdown();
    stats.busy = began.elapsed();
    Ok(stats)
}

fn start(cmd: &ProbeCommand, install: &Path, stats: &mut PoolStats) -> Result<Probe, ProbeError> {
    let probe = Probe::start(cmd, install)?;
    stats.starts += 1;
    stats.startup_total += probe.hello.startup;
    stats.hello.get_or_insert_with(|| probe.hello.clone());
    Ok(probe)
}
