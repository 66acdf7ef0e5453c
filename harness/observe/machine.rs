//! `PoolMachine`: the decisions of one probe's scheduler (what to send, who
//! is a suspect, when to retry, recycle, time out or give up) as a pure state
//! machine. No process, pipe, clock or listener is touched here: the driver
//! (`pool::run_cases`) feeds it `Event`s with the time they happened and
//! carries out the `Action`s it returns, so every rule is unit-tested
//! without starting Node.
//!
//! In: case indices dealt to this probe (`give`), events (`on`), the time.
//! Out: actions (start, send, ping, recycle, kill, emit an outcome, forget a
//! capture, give up).
//!
//! The rules. Up to `concurrency` cases are in flight on one probe. A crash
//! or a hang cannot be pinned on one case while several run (one case that
//! blocks the event loop makes all of them late), so when the probe dies, or
//! a case passes its deadline, with several in flight, the probe is ended
//! and every case it was running becomes a suspect, run again alone. A case
//! alone past its deadline is the timeout; a case that kills the probe alone
//! is retried once, and recorded as the crash the second time. Its
//! neighbours get their real results. A probe that dies `max_futile_deaths`
//! times without a case finishing in between makes the machine give up
//! instead of restarting forever. A ping goes out every `ping_every` cases;
//! an answer over `recycle_rss` has the probe replaced between cases, and so
//! does one over `recycle_growth` times the baseline: the answer to the
//! first ping sent once a process has run `baseline_after` cases, kept for
//! every process that follows. V8 grows its heap long before it must, and a
//! process's live heap grows while it meets kinds of case it had not met, so
//! a probe's memory climbs with the cases it has run; a fresh process comes
//! back under the baseline, and measuring each against its own first answer
//! would let the bound creep up with every replacement.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// Probe deaths with no case finished in between, after which a version's
/// run gives up: enough to pin two poison cases in a row (a shared crash,
/// then two alone for each), few enough that a probe that dies whatever it
/// runs costs seconds, not a restart per case.
pub const MAX_FUTILE_DEATHS: u32 = 6;

/// How long a case may run when its timeout would overflow the clock: a
/// `--case-timeout` of `u64::MAX` seconds means "never", not a panic.
const FOREVER: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// The rules' numbers.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub concurrency: usize,
    pub case_timeout: Duration,
    pub ping_every: usize,
    pub recycle_rss: u64,
    /// Recycle once the probe's memory passes this multiple of its first
    /// answer (`None`: only `recycle_rss` recycles).
    pub recycle_growth: Option<f64>,
    /// Cases a process runs before the ping whose answer is the baseline.
    pub baseline_after: usize,
    pub max_futile_deaths: u32,
}

/// What happened to the probe, as the driver saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A probe said hello (after an `Action::Start` or `Action::Recycle`).
    Started,
    /// The probe answered case `seq` (a result or a fault: either finishes it).
    Answered { seq: u64, fault: bool },
    /// A ping's answer: the probe's resident memory.
    Rss(u64),
    /// The request for `seq` could not be written: the pipe is gone, and
    /// the probe's death is about to be seen.
    SendFailed { seq: u64 },
    /// The probe's stdout closed: it exited or was killed by something else.
    Died,
    /// Time passed with nothing said (deadlines are checked).
    Tick,
}

/// How a case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The probe answered `seq` (`fault` when it could not build the case).
    Answered {
        seq: u64,
        fault: bool,
    },
    Timeout,
    /// It killed the probe twice, alone.
    Crash,
}

/// What the driver must do, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Start a probe (there is none, and there is work).
    Start,
    /// Close the probe between cases (its memory grew) and start a new one.
    Recycle,
    /// Send case `index` as request `seq`.
    Send {
        seq: u64,
        index: usize,
    },
    Ping,
    /// End the probe now: it hung (`timeout`) or is already dead.
    Kill {
        timeout: bool,
    },
    /// Case `index` is finished.
    Emit {
        index: usize,
        ending: Ending,
    },
    /// Request `seq` will never be answered: drop what the listener holds for it.
    Forget {
        seq: u64,
    },
    /// The probe died `restarts` times without a case finishing in between.
    GiveUp {
        restarts: u32,
    },
}

struct Flight {
    index: usize,
    deadline: Instant,
    alone: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probe {
    Down,
    Starting,
    Up,
}

/// One probe's scheduler state.
pub struct PoolMachine {
    limits: Limits,
    queue: VecDeque<usize>,
    suspects: VecDeque<usize>,
    crashes: HashMap<usize, u32>,
    in_flight: HashMap<u64, Flight>,
    probe: Probe,
    since_ping: usize,
    /// Cases sent to the process now running.
    sent: usize,
    /// Pings sent to the process now running, and answers had from it.
    pings: (u64, u64),
    /// Which of those pings the baseline is the answer to.
    baseline_ping: Option<u64>,
    /// The baseline answer, once there is one (see the module's rules).
    baseline_rss: Option<u64>,
    recycle_wanted: bool,
    futile_deaths: u32,
    gave_up: bool,
    next_seq: Box<dyn FnMut() -> u64 + Send>,
}

impl PoolMachine {
    /// `next_seq` hands out request numbers unique across every machine that
    /// shares a listener.
    pub fn new(limits: Limits, next_seq: Box<dyn FnMut() -> u64 + Send>) -> PoolMachine {
        PoolMachine {
            limits: Limits {
                concurrency: limits.concurrency.max(1),
                case_timeout: limits.case_timeout.min(FOREVER),
                ..limits
            },
            queue: VecDeque::new(),
            suspects: VecDeque::new(),
            crashes: HashMap::new(),
            in_flight: HashMap::new(),
            probe: Probe::Down,
            since_ping: 0,
            sent: 0,
            pings: (0, 0),
            baseline_ping: None,
            baseline_rss: None,
            recycle_wanted: false,
            futile_deaths: 0,
            gave_up: false,
            next_seq,
        }
    }

    /// Deal case `index` to this probe.
    pub fn give(&mut self, index: usize) {
        self.queue.push_back(index);
    }

    /// How many more cases this probe would take now: none while it has
    /// suspects to clear or a recycle pending, so shared work goes to
    /// probes that can run it.
    pub fn room(&self) -> usize {
        if !self.suspects.is_empty()
            || self.suspect_in_flight()
            || self.recycle_wanted
            || self.gave_up
        {
            return 0;
        }
        self.limits
            .concurrency
            .saturating_sub(self.in_flight.len() + self.queue.len())
    }

    /// Nothing dealt to this probe is left to run.
    pub fn is_idle(&self) -> bool {
        self.queue.is_empty() && self.suspects.is_empty() && self.in_flight.is_empty()
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// The earliest deadline of a case in flight.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.in_flight.values().map(|f| f.deadline).min()
    }

    /// What to do now: start or recycle the probe, send what fits.
    pub fn next_actions(&mut self, now: Instant) -> Vec<Action> {
        let mut out = Vec::new();
        if self.gave_up {
            return out;
        }
        match self.probe {
            Probe::Starting => return out,
            Probe::Down => {
                if self.queue.is_empty() && self.suspects.is_empty() {
                    return out;
                }
                if self.futile_deaths >= self.limits.max_futile_deaths {
                    self.gave_up = true;
                    out.push(Action::GiveUp {
                        restarts: self.futile_deaths,
                    });
                    return out;
                }
                self.probe = Probe::Starting;
                out.push(Action::Start);
                return out;
            }
            Probe::Up => {}
        }
        // Recycle only between cases: the ones in flight finish first.
        if self.recycle_wanted {
            if self.in_flight.is_empty() {
                self.recycle_wanted = false;
                self.probe = Probe::Starting;
                out.push(Action::Recycle);
            }
            return out;
        }
        // A suspect runs alone, so that a second crash is its own: nothing
        // joins it, and it waits for the probe to be empty.
        while self.in_flight.len() < self.limits.concurrency && !self.suspect_in_flight() {
            let next = if self.suspects.is_empty() {
                self.queue.pop_front().map(|i| (i, false))
            } else if self.in_flight.is_empty() {
                self.suspects.pop_front().map(|i| (i, true))
            } else {
                None
            };
            let Some((index, alone)) = next else {
                break;
            };
            let seq = (self.next_seq)();
            self.in_flight.insert(
                seq,
                Flight {
                    index,
                    deadline: now + self.limits.case_timeout,
                    alone,
                },
            );
            out.push(Action::Send { seq, index });
            self.since_ping += 1;
            self.sent += 1;
        }
        if self.since_ping >= self.limits.ping_every {
            self.since_ping = 0;
            self.pings.0 += 1;
            let first_past = self.baseline_rss.is_none() && self.baseline_ping.is_none();
            if first_past && self.sent >= self.limits.baseline_after {
                self.baseline_ping = Some(self.pings.0);
            }
            out.push(Action::Ping);
        }
        out
    }

    /// Whether a ping's answer of `rss` bytes asks for a new process; the
    /// answer the baseline was waiting for sets it.
    fn grown_past_limits(&mut self, rss: u64) -> bool {
        self.pings.1 += 1;
        if self.baseline_ping == Some(self.pings.1) {
            self.baseline_ping = None;
            self.baseline_rss = Some(rss);
        }
        let grown = match (self.limits.recycle_growth, self.baseline_rss) {
            (Some(g), Some(baseline)) => rss as f64 > baseline as f64 * g,
            _ => false,
        };
        grown || rss > self.limits.recycle_rss
    }

    /// React to what the probe did.
    pub fn on(&mut self, event: Event, now: Instant) -> Vec<Action> {
        let mut out = Vec::new();
        match event {
            Event::Started => {
                self.probe = Probe::Up;
                // A new process is pinged after its own first cases, and
                // measured against the baseline already taken, if any.
                self.since_ping = 0;
                self.sent = 0;
                self.pings = (0, 0);
                self.baseline_ping = None;
            }
            Event::Answered { seq, fault } => {
                if let Some(f) = self.in_flight.remove(&seq) {
                    self.futile_deaths = 0;
                    out.push(Action::Emit {
                        index: f.index,
                        ending: Ending::Answered { seq, fault },
                    });
                }
            }
            Event::Rss(rss) => self.recycle_wanted = self.grown_past_limits(rss),
            Event::SendFailed { seq } => {
                // Put the case back where it came from; the death that
                // follows handles the restart.
                if let Some(f) = self.in_flight.remove(&seq) {
                    out.push(Action::Forget { seq });
                    if f.alone {
                        self.suspects.push_front(f.index);
                    } else {
                        self.queue.push_front(f.index);
                    }
                }
            }
            Event::Died => {
                if self.probe == Probe::Down {
                    return out;
                }
                self.probe = Probe::Down;
                self.futile_deaths += 1;
                out.push(Action::Kill { timeout: false });
                // Only a case that was alone is charged with the crash.
                let alone = self.in_flight.len() == 1;
                for (seq, f) in self.drain_in_flight() {
                    out.push(Action::Forget { seq });
                    let seen = self.crashes.entry(f.index).or_insert(0);
                    *seen += u32::from(alone);
                    if *seen >= 2 {
                        out.push(Action::Emit {
                            index: f.index,
                            ending: Ending::Crash,
                        });
                    } else {
                        self.suspects.push_back(f.index);
                    }
                }
            }
            Event::Tick => {
                if !self.in_flight.values().any(|f| f.deadline <= now) {
                    return out;
                }
                self.probe = Probe::Down;
                out.push(Action::Kill { timeout: true });
                let alone = self.in_flight.len() == 1;
                if alone {
                    self.futile_deaths = 0;
                }
                for (seq, f) in self.drain_in_flight() {
                    out.push(Action::Forget { seq });
                    if alone {
                        out.push(Action::Emit {
                            index: f.index,
                            ending: Ending::Timeout,
                        });
                    } else {
                        self.suspects.push_back(f.index);
                    }
                }
            }
        }
        out
    }

    /// The run stops: the requests in flight will never be answered.
    pub fn abandon(&mut self) -> Vec<Action> {
        self.drain_in_flight()
            .into_iter()
            .map(|(seq, _)| Action::Forget { seq })
            .collect()
    }

    fn suspect_in_flight(&self) -> bool {
        self.in_flight.values().any(|f| f.alone)
    }

    /// In flight, in sending order (so outcomes and retries keep case order).
    fn drain_in_flight(&mut self) -> Vec<(u64, Flight)> {
        let mut all: Vec<(u64, Flight)> = self.in_flight.drain().collect();
        all.sort_by_key(|(seq, _)| *seq);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Duration = Duration::from_secs(30);

    fn machine(concurrency: usize) -> PoolMachine {
        machine_with(Limits {
            concurrency,
            case_timeout: T,
            ping_every: 4,
            recycle_rss: 1000,
            recycle_growth: Some(1.2),
            baseline_after: 4,
            max_futile_deaths: MAX_FUTILE_DEATHS,
        })
    }

    /// A machine under `limits`, handing out request numbers from 1.
    fn machine_with(limits: Limits) -> PoolMachine {
        let mut seq = 0;
        PoolMachine::new(
            limits,
            Box::new(move || {
                seq += 1;
                seq
            }),
        )
    }

    fn dealt(concurrency: usize, cases: usize) -> PoolMachine {
        let mut m = machine(concurrency);
        for i in 0..cases {
            m.give(i);
        }
        m
    }

    /// Start the probe and return the first sends.
    fn up(m: &mut PoolMachine, now: Instant) -> Vec<Action> {
        assert_eq!(m.next_actions(now), vec![Action::Start]);
        assert!(
            m.next_actions(now).is_empty(),
            "nothing is sent while starting"
        );
        assert!(m.on(Event::Started, now).is_empty());
        m.next_actions(now)
    }

    fn sends(actions: &[Action]) -> Vec<(u64, usize)> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::Send { seq, index } => Some((*seq, *index)),
                _ => None,
            })
            .collect()
    }

    fn emitted(actions: &[Action]) -> Vec<(usize, Ending)> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::Emit { index, ending } => Some((*index, *ending)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn no_work_no_probe() {
        let mut m = machine(8);
        assert!(m.next_actions(Instant::now()).is_empty());
        assert!(m.is_idle());
    }

    #[test]
    fn cases_go_out_up_to_the_concurrency_and_answers_emit_them() {
        let now = Instant::now();
        let mut m = dealt(3, 5);
        let first = up(&mut m, now);
        assert_eq!(sends(&first), vec![(1, 0), (2, 1), (3, 2)]);
        assert_eq!(m.room(), 0, "three in flight and two queued fill it");
        let a = m.on(
            Event::Answered {
                seq: 2,
                fault: false,
            },
            now,
        );
        assert_eq!(
            emitted(&a),
            vec![(
                1,
                Ending::Answered {
                    seq: 2,
                    fault: false
                }
            )]
        );
        assert_eq!(sends(&m.next_actions(now)), vec![(4, 3)]);
        // An answer to a request not in flight (late, or garbage) changes nothing.
        assert!(m
            .on(
                Event::Answered {
                    seq: 99,
                    fault: false
                },
                now
            )
            .is_empty());
    }

    #[test]
    fn room_counts_queued_and_in_flight_cases() {
        let now = Instant::now();
        let mut m = dealt(4, 1);
        assert_eq!(m.room(), 3);
        up(&mut m, now);
        m.give(1);
        assert_eq!(m.room(), 2);
    }

    #[test]
    fn a_crash_with_several_in_flight_makes_them_suspects_run_alone_and_blames_none() {
        let now = Instant::now();
        let mut m = dealt(3, 3);
        up(&mut m, now);
        let a = m.on(Event::Died, now);
        assert_eq!(a[0], Action::Kill { timeout: false });
        assert_eq!(
            a.iter()
                .filter(|x| matches!(x, Action::Forget { .. }))
                .count(),
            3
        );
        assert!(
            emitted(&a).is_empty(),
            "nobody is charged with a shared crash"
        );
        assert_eq!(m.room(), 0, "suspects first: no new work is taken");
        assert_eq!(m.next_actions(now), vec![Action::Start]);
        m.on(Event::Started, now);
        // Suspects go one at a time.
        let s = sends(&m.next_actions(now));
        assert_eq!(s, vec![(4, 0)]);
        assert!(
            sends(&m.next_actions(now)).is_empty(),
            "a suspect runs alone"
        );
        m.on(
            Event::Answered {
                seq: 4,
                fault: false,
            },
            now,
        );
        assert_eq!(sends(&m.next_actions(now)), vec![(5, 1)]);
    }

    #[test]
    fn the_last_suspect_runs_alone_too() {
        let now = Instant::now();
        let mut m = dealt(2, 3);
        up(&mut m, now);
        m.on(Event::Died, now);
        m.next_actions(now);
        m.on(Event::Started, now);
        let mut order = Vec::new();
        while !m.is_idle() {
            let s = sends(&m.next_actions(now));
            assert_eq!(s.len(), 1, "suspects and what follows them one at a time");
            order.push(s[0].1);
            m.on(
                Event::Answered {
                    seq: s[0].0,
                    fault: false,
                },
                now,
            );
            if order.len() == 2 {
                break;
            }
        }
        assert_eq!(order, vec![0, 1]);
        assert_eq!(m.room(), 1, "the suspects cleared, work is taken again");
        assert_eq!(sends(&m.next_actions(now)), vec![(5, 2)]);
    }

    #[test]
    fn a_case_that_crashes_the_probe_alone_twice_is_the_crash_and_its_neighbours_finish() {
        let now = Instant::now();
        let mut m = dealt(2, 2);
        up(&mut m, now);
        m.on(Event::Died, now); // both suspects, nobody charged
        m.next_actions(now);
        m.on(Event::Started, now);
        assert_eq!(sends(&m.next_actions(now)), vec![(3, 0)]);
        let a = m.on(Event::Died, now); // case 0 alone: first charge, retried
        assert!(emitted(&a).is_empty());
        m.next_actions(now);
        m.on(Event::Started, now);
        // The neighbour waiting as a suspect goes first; the retried case after it.
        assert_eq!(sends(&m.next_actions(now)), vec![(4, 1)]);
        m.on(
            Event::Answered {
                seq: 4,
                fault: false,
            },
            now,
        );
        assert_eq!(sends(&m.next_actions(now)), vec![(5, 0)]);
        let a = m.on(Event::Died, now);
        assert_eq!(emitted(&a), vec![(0, Ending::Crash)]);
        assert!(m.is_idle());
        assert!(
            m.next_actions(now).is_empty(),
            "no probe is started for no work"
        );
    }

    #[test]
    fn a_case_alone_past_its_deadline_is_the_timeout_and_the_probe_is_replaced() {
        let now = Instant::now();
        let mut m = dealt(1, 2);
        up(&mut m, now);
        assert!(
            m.on(Event::Tick, now + T / 2).is_empty(),
            "before the deadline"
        );
        assert_eq!(m.next_deadline(), Some(now + T));
        let a = m.on(Event::Tick, now + T);
        assert_eq!(a[0], Action::Kill { timeout: true });
        assert_eq!(emitted(&a), vec![(0, Ending::Timeout)]);
        assert_eq!(m.next_actions(now + T), vec![Action::Start]);
    }

    #[test]
    fn a_deadline_passed_with_several_in_flight_makes_them_all_suspects() {
        let now = Instant::now();
        let mut m = dealt(2, 2);
        up(&mut m, now);
        let a = m.on(Event::Tick, now + T);
        assert_eq!(a[0], Action::Kill { timeout: true });
        assert!(emitted(&a).is_empty());
        m.next_actions(now + T);
        m.on(Event::Started, now + T);
        assert_eq!(sends(&m.next_actions(now + T)).len(), 1);
    }

    #[test]
    fn the_probe_is_pinged_every_n_cases_and_recycled_between_cases_when_big() {
        let now = Instant::now();
        let mut m = dealt(8, 6);
        let a = up(&mut m, now);
        assert_eq!(sends(&a).len(), 6);
        assert_eq!(a.last(), Some(&Action::Ping), "a ping after 4 sends");
        m.on(Event::Rss(2000), now);
        m.give(6);
        assert_eq!(m.room(), 0, "no new work while a recycle is pending");
        assert!(
            m.next_actions(now).is_empty(),
            "cases in flight finish first"
        );
        for seq in 1..=6 {
            m.on(Event::Answered { seq, fault: false }, now);
        }
        assert_eq!(m.next_actions(now), vec![Action::Recycle]);
        assert!(m.next_actions(now).is_empty());
        m.on(Event::Started, now);
        assert_eq!(sends(&m.next_actions(now)), vec![(7, 6)]);
    }

    /// Answer every case in flight, then take the next actions.
    fn finish(
        m: &mut PoolMachine,
        seqs: std::ops::RangeInclusive<u64>,
        now: Instant,
    ) -> Vec<Action> {
        for seq in seqs {
            m.on(Event::Answered { seq, fault: false }, now);
        }
        m.next_actions(now)
    }

    #[test]
    fn a_probe_grown_past_the_baseline_is_recycled_and_the_next_measured_against_it() {
        let now = Instant::now();
        let mut m = dealt(4, 24);
        assert_eq!(up(&mut m, now).last(), Some(&Action::Ping));
        m.on(Event::Rss(500), now);
        let a = finish(&mut m, 1..=4, now);
        assert_eq!(a.last(), Some(&Action::Ping), "pinged again 4 cases on");
        m.on(Event::Rss(600), now);
        let a = finish(&mut m, 5..=8, now);
        assert_eq!(sends(&a).len(), 4, "1.2 times the baseline is not past it");
        assert_eq!(a.last(), Some(&Action::Ping));
        m.on(Event::Rss(601), now);
        assert_eq!(m.room(), 0, "past 1.2 times the baseline");
        assert_eq!(finish(&mut m, 9..=12, now), vec![Action::Recycle]);
        m.on(Event::Started, now);
        let a = m.next_actions(now);
        assert_eq!(sends(&a).len(), 4);
        assert_eq!(
            a.last(),
            Some(&Action::Ping),
            "the new process is pinged after its own 4"
        );
        // Measured against the first process's baseline, not its own answer.
        m.on(Event::Rss(550), now);
        let a = finish(&mut m, 13..=16, now);
        assert_eq!(sends(&a).len(), 4, "550 is under 1.2 times 500");
        assert_eq!(a.last(), Some(&Action::Ping));
        m.on(Event::Rss(601), now);
        assert_eq!(finish(&mut m, 17..=20, now), vec![Action::Recycle]);
    }

    #[test]
    fn the_baseline_is_the_answer_to_the_first_ping_past_its_cases() {
        let now = Instant::now();
        let mut m = machine_with(Limits {
            concurrency: 2,
            ping_every: 2,
            ..machine(2).limits
        });
        for i in 0..12 {
            m.give(i);
        }
        assert_eq!(up(&mut m, now).last(), Some(&Action::Ping));
        let a = finish(&mut m, 1..=2, now);
        assert_eq!(a.last(), Some(&Action::Ping), "the ping after 4 cases");
        // The first ping's answer comes after the second ping went out: it
        // is no baseline, and nothing it is compared with recycles.
        m.on(Event::Rss(100), now);
        m.on(Event::Rss(500), now);
        let a = finish(&mut m, 3..=4, now);
        assert_eq!(sends(&a).len(), 2);
        m.on(Event::Rss(590), now);
        let a = finish(&mut m, 5..=6, now);
        assert_eq!(sends(&a).len(), 2, "590 is under 1.2 times 500");
        m.on(Event::Rss(601), now);
        assert_eq!(m.room(), 0, "past 1.2 times 500");
    }

    #[test]
    fn a_small_probe_is_not_recycled() {
        let now = Instant::now();
        let mut m = dealt(1, 2);
        up(&mut m, now);
        m.on(Event::Rss(999), now);
        m.on(
            Event::Answered {
                seq: 1,
                fault: true,
            },
            now,
        );
        assert_eq!(sends(&m.next_actions(now)), vec![(2, 1)]);
    }

    #[test]
    fn a_probe_that_dies_whatever_it_runs_is_given_up_on() {
        let now = Instant::now();
        let mut m = dealt(1, 10);
        up(&mut m, now);
        let mut deaths = 0;
        loop {
            m.on(Event::Died, now);
            deaths += 1;
            let a = m.next_actions(now);
            if a.iter().any(|x| matches!(x, Action::GiveUp { .. })) {
                assert_eq!(
                    a,
                    vec![Action::GiveUp {
                        restarts: MAX_FUTILE_DEATHS
                    }]
                );
                break;
            }
            assert_eq!(a, vec![Action::Start]);
            m.on(Event::Started, now);
            m.next_actions(now);
            assert!(deaths < 100, "never gave up");
        }
        assert_eq!(deaths, MAX_FUTILE_DEATHS);
        assert!(m.next_actions(now).is_empty());
        assert_eq!(m.room(), 0);
    }

    #[test]
    fn a_finished_case_resets_the_futile_deaths() {
        let now = Instant::now();
        let mut m = dealt(1, 20);
        up(&mut m, now);
        let mut seq = 1;
        for _ in 0..3 {
            for _ in 0..MAX_FUTILE_DEATHS - 1 {
                m.on(Event::Died, now);
                assert_eq!(m.next_actions(now), vec![Action::Start]);
                m.on(Event::Started, now);
                seq = sends(&m.next_actions(now))[0].0;
            }
            m.on(Event::Answered { seq, fault: false }, now);
            seq = sends(&m.next_actions(now))[0].0;
        }
        assert!(!m.is_idle());
    }

    #[test]
    fn a_failed_send_puts_the_case_back_and_the_death_restarts() {
        let now = Instant::now();
        let mut m = dealt(2, 2);
        up(&mut m, now);
        let a = m.on(Event::SendFailed { seq: 2 }, now);
        assert_eq!(a, vec![Action::Forget { seq: 2 }]);
        let a = m.on(Event::Died, now);
        assert!(emitted(&a).is_empty());
        assert_eq!(m.next_actions(now), vec![Action::Start]);
        m.on(Event::Started, now);
        // Case 0 was in flight alone at the death: a suspect, then case 1.
        assert_eq!(sends(&m.next_actions(now)), vec![(3, 0)]);
    }

    #[test]
    fn a_death_seen_twice_counts_once() {
        let now = Instant::now();
        let mut m = dealt(1, 1);
        up(&mut m, now);
        assert!(!m.on(Event::Died, now).is_empty());
        assert!(m.on(Event::Died, now).is_empty());
    }

    #[test]
    fn abandoning_forgets_what_is_in_flight() {
        let now = Instant::now();
        let mut m = dealt(3, 3);
        up(&mut m, now);
        let a = m.abandon();
        assert_eq!(
            a,
            vec![
                Action::Forget { seq: 1 },
                Action::Forget { seq: 2 },
                Action::Forget { seq: 3 }
            ]
        );
    }

    #[test]
    fn an_endless_case_timeout_does_not_overflow() {
        let mut m = PoolMachine::new(
            Limits {
                concurrency: 1,
                case_timeout: Duration::from_secs(u64::MAX),
                ping_every: 500,
                recycle_rss: u64::MAX,
                recycle_growth: None,
                baseline_after: 500,
                max_futile_deaths: 6,
            },
            Box::new(|| 1),
        );
        m.give(0);
        let now = Instant::now();
        up(&mut m, now);
        assert!(m
            .on(Event::Tick, now + Duration::from_secs(3600))
            .is_empty());
    }
}
