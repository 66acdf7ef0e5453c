//! `SessionMachine`: the decisions of a session that runs several versions
//! side by side (which version installs next, when a version's cases are
//! dealt to probes and to how many, what an install that fails or probes
//! that cannot run mean for its cases, what a stop ends) as a pure state
//! machine. No thread, process, channel or clock is touched here: the
//! driver (`session::Session::run_versions`, its workers in `workers.rs`) feeds it `SessionEvent`s and
//! carries out the `SessionAction`s it returns, so every rule is
//! unit-tested without installing or starting anything.
//!
//! In: each version's case count, the `--probes` budget, events (an install
//! ended, a case has its observation, one of a version's probes was given
//! back, a version's probes ended, stop).
//! Out: actions (install a version, run it on N probes, grow it by N
//! probes, judge its cases left without a result by the failure that kept
//! them from running, the version is done).
//!
//! The rules. Installs run ahead, `INSTALLS_AT_ONCE` at a time, in the
//! order the versions were given. Versions start in that order too, each
//! as soon as it is installed and the budget has its probes free: a version
//! gets `probes_for` probes for the cases it has left to observe (those
//! the observation store answered are observed before its install ends),
//! so one with few cases takes one probe and leaves the rest to the next
//! versions at the same time, and one with none left is done at once. A probe costs a
//! Node start and an import of Mastra (0.4 to 1.8 s, more on a busy
//! machine), worth about `CASES_PER_PROBE` cases of work (40 to 140 cases/s
//! per probe). A version whose install failed has every case judged by that
//! failure; one whose probes could not run its cases has those left judged
//! by the probes' failure. A stop starts nothing more, and a failure that
//! the stop caused is not reported: those cases were never attempted.
//! Every version that ran, or failed on its own, is done exactly once,
//! after all its results.
//!
//! Versions overlap. A version's probes share one queue of its cases; when
//! the queue is empty, each probe ends with its last case, and the driver
//! says so (`ProbeReleased`): that probe is free at once, not when the
//! version's slowest case ends. Freed probes go first to a running version
//! that has fewer than it asked for and still has cases queued (`Grow`),
//! then to the next version: at its full share as before, or, when every
//! version running before it has drained its queue (so every probe they
//! hold will come free within a case), at once with what is free, growing
//! as the rest come free. A driver that never reports a release gets the
//! rules above unchanged.
//!
//! Results. Every `CaseResult` exists on the driver's thread the moment its
//! event does (a case observed, stored or failed); the driver hands it to
//! its sink there, and `Done` follows the last of a version's results, so a
//! sink (a report, a results database) sees each version complete when it
//! is told so.

/// Installs made side by side: network-bound (pnpm fetches), so more than
/// the cores, few enough to leave the registry and the disk some room.
pub const INSTALLS_AT_ONCE: usize = 4;

/// Cases one more probe must have to be worth its start.
pub const CASES_PER_PROBE: usize = 128;

/// Probes for a version with `cases` cases under a budget of `budget`.
pub fn probes_for(cases: usize, budget: usize) -> usize {
    cases.div_ceil(CASES_PER_PROBE).clamp(1, budget.max(1))
}

/// What happened, as the driver saw it. Versions are named by their
/// position in the list the machine was made with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionEvent {
    /// A version's install ended: `ok`, it can run; else its failure is
    /// with the driver.
    InstallEnded { version: usize, ok: bool },
    /// Case `index` of a version has its observation (and its result).
    CaseObserved { version: usize, index: usize },
    /// One probe of a running version ended because the version's queue
    /// of cases is empty: its slot is free while the version's other
    /// probes finish the cases they hold.
    ProbeReleased { version: usize },
    /// A version's probes ended: `ok`, they ran every case (or were
    /// stopped); else no probe could run the cases left, and the driver
    /// holds why.
    ProbesEnded { version: usize, ok: bool },
    /// The run is to stop (raised once; later ones change nothing).
    Stop,
}

/// What the driver must do, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionAction {
    /// Install a version (in the background; `InstallEnded` follows).
    Install { version: usize },
    /// Deal a version's cases to `probes` probes (`CaseObserved` for each
    /// case, then `ProbesEnded`).
    Run { version: usize, probes: usize },
    /// Add `probes` probes to a running version's queue (each ends in a
    /// `ProbeReleased`, or with the version's `ProbesEnded`).
    Grow { version: usize, probes: usize },
    /// Judge these cases of a version, in this order, by the failure that
    /// kept them from running (its install's, or its probes').
    Fail { version: usize, cases: Vec<usize> },
    /// A version is done: its costs are final.
    Done { version: usize },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Not yet installing.
    Waiting,
    Installing,
    /// Installed, waiting for its turn and its probes.
    Installed,
    /// On `held` probes of the `wanted` it was to have; `drained` once a
    /// probe of it was released (its queue is empty: a new probe would
    /// find nothing to do).
    Running {
        held: usize,
        wanted: usize,
        drained: bool,
    },
    /// Done, failed, or left out by a stop.
    Over,
}

#[derive(Debug, Clone)]
struct VersionState {
    stage: Stage,
    /// Which cases have their observation.
    observed: Vec<bool>,
}

/// The scheduling state of one session's versions.
#[derive(Debug, Clone)]
pub struct SessionMachine {
    versions: Vec<VersionState>,
    budget: usize,
    /// Probes not taken by a running version.
    free: usize,
    /// The next version to install, and the next to start, in order.
    next_install: usize,
    next_run: usize,
    stopping: bool,
}

impl SessionMachine {
    /// A machine for versions with these case counts, under a budget of
    /// `budget` probes (at least one).
    pub fn new(case_counts: &[usize], budget: usize) -> SessionMachine {
        let budget = budget.max(1);
        SessionMachine {
            versions: case_counts
                .iter()
                .map(|&n| VersionState {
                    stage: Stage::Waiting,
                    observed: vec![false; n],
                })
                .collect(),
            budget,
            free: budget,
            next_install: 0,
            next_run: 0,
            stopping: false,
        }
    }

    /// The first actions: the installs that may start at once.
    pub fn start(&mut self) -> Vec<SessionAction> {
        let mut out = Vec::new();
        self.advance(&mut out);
        out
    }

    /// React to what happened.
    pub fn on(&mut self, event: SessionEvent) -> Vec<SessionAction> {
        let mut out = Vec::new();
        match event {
            SessionEvent::Stop => self.stopping = true,
            SessionEvent::InstallEnded { version, ok } => {
                if self.stage(version) != Some(Stage::Installing) {
                    return out;
                }
                if ok {
                    self.versions[version].stage = Stage::Installed;
                } else {
                    self.versions[version].stage = Stage::Over;
                    if !self.stopping {
                        out.push(SessionAction::Fail {
                            version,
                            cases: self.unobserved(version),
                        });
                        out.push(SessionAction::Done { version });
                    }
                }
            }
            SessionEvent::CaseObserved { version, index } => {
                if let Some(seen) = self
                    .versions
                    .get_mut(version)
                    .and_then(|v| v.observed.get_mut(index))
                {
                    *seen = true;
                }
            }
            SessionEvent::ProbeReleased { version } => {
                let Some(Stage::Running { held, wanted, .. }) = self.stage(version) else {
                    return out;
                };
                if held == 0 {
                    return out;
                }
                self.free += 1;
                self.versions[version].stage = Stage::Running {
                    held: held - 1,
                    wanted,
                    drained: true,
                };
            }
            SessionEvent::ProbesEnded { version, ok } => {
                let Some(Stage::Running { held, .. }) = self.stage(version) else {
                    return out;
                };
                self.free += held;
                self.versions[version].stage = Stage::Over;
                if !ok && !self.stopping {
                    out.push(SessionAction::Fail {
                        version,
                        cases: self.unobserved(version),
                    });
                }
                out.push(SessionAction::Done { version });
            }
        }
        self.advance(&mut out);
        out
    }

    /// Nothing is running or installing, and nothing more will start.
    pub fn is_finished(&self) -> bool {
        let busy = self
            .versions
            .iter()
            .any(|v| matches!(v.stage, Stage::Installing | Stage::Running { .. }));
        !busy && (self.stopping || self.versions.iter().all(|v| v.stage == Stage::Over))
    }

    pub fn is_stopping(&self) -> bool {
        self.stopping
    }

    fn stage(&self, version: usize) -> Option<Stage> {
        self.versions.get(version).map(|v| v.stage)
    }

    fn unobserved(&self, version: usize) -> Vec<usize> {
        let observed = &self.versions[version].observed;
        (0..observed.len()).filter(|&i| !observed[i]).collect()
    }

    /// Probes that no version holds.
    pub fn free(&self) -> usize {
        self.free
    }

    /// Whether every version started so far, and still running, has
    /// drained its queue: each probe it holds comes free within a case.
    fn all_running_drained(&self) -> bool {
        self.versions[..self.next_run]
            .iter()
            .all(|v| match v.stage {
                Stage::Running { drained, .. } => drained,
                _ => true,
            })
    }

    /// Free probes to running versions, in order, that hold fewer than
    /// they asked for and still have cases queued.
    fn grow(&mut self, out: &mut Vec<SessionAction>) {
        for version in 0..self.next_run {
            if self.free == 0 {
                return;
            }
            if let Stage::Running {
                held,
                wanted,
                drained: false,
            } = self.versions[version].stage
            {
                let more = wanted.saturating_sub(held).min(self.free);
                if more > 0 {
                    self.free -= more;
                    self.versions[version].stage = Stage::Running {
                        held: held + more,
                        wanted,
                        drained: false,
                    };
                    out.push(SessionAction::Grow {
                        version,
                        probes: more,
                    });
                }
            }
        }
    }

    /// Start what may start: installs while fewer than `INSTALLS_AT_ONCE`
    /// run, probes for running versions short of their share, then
    /// versions in order while the next one is installed and its probes
    /// are free (or, once every running version has drained, whatever is
    /// free).
    fn advance(&mut self, out: &mut Vec<SessionAction>) {
        if self.stopping {
            return;
        }
        let installing = |m: &SessionMachine| {
            m.versions
                .iter()
                .filter(|v| v.stage == Stage::Installing)
                .count()
        };
        while self.next_install < self.versions.len() && installing(self) < INSTALLS_AT_ONCE {
            let version = self.next_install;
            self.versions[version].stage = Stage::Installing;
            self.next_install += 1;
            out.push(SessionAction::Install { version });
        }
        self.grow(out);
        while let Some(state) = self.versions.get(self.next_run) {
            match state.stage {
                // Failed or done: the next one's turn.
                Stage::Over => self.next_run += 1,
                Stage::Installed => {
                    let left = state.observed.iter().filter(|seen| !**seen).count();
                    let version = self.next_run;
                    if left == 0 {
                        // Every case has its observation already (the
                        // store's): nothing to start, and nothing waits.
                        self.versions[version].stage = Stage::Over;
                        self.next_run += 1;
                        out.push(SessionAction::Done { version });
                        continue;
                    }
                    let wanted = probes_for(left, self.budget);
                    let probes = if self.free >= wanted {
                        wanted
                    } else if self.free > 0 && self.all_running_drained() {
                        self.free
                    } else {
                        return;
                    };
                    self.free -= probes;
                    self.versions[version].stage = Stage::Running {
                        held: probes,
                        wanted,
                        drained: false,
                    };
                    self.next_run += 1;
                    out.push(SessionAction::Run { version, probes });
                }
                Stage::Waiting | Stage::Installing | Stage::Running { .. } => return,
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::too_many_lines)] // the table of event sequences is one list
mod tests {
    use super::*;
    use proptest::prelude::*;
    use SessionAction::{Done, Fail, Grow, Install, Run};
    use SessionEvent::{CaseObserved, InstallEnded, ProbeReleased, ProbesEnded, Stop};

    fn installed(m: &mut SessionMachine, version: usize) -> Vec<SessionAction> {
        m.on(InstallEnded { version, ok: true })
    }

    #[test]
    fn a_version_with_few_cases_takes_one_probe_and_many_take_the_budget() {
        assert_eq!(probes_for(0, 2), 1);
        assert_eq!(probes_for(1, 2), 1);
        assert_eq!(
            probes_for(67, 2),
            1,
            "the corpus: versions side by side instead"
        );
        assert_eq!(probes_for(128, 2), 1);
        assert_eq!(probes_for(129, 2), 2);
        assert_eq!(probes_for(1500, 2), 2);
        assert_eq!(probes_for(1500, 8), 8);
        assert_eq!(probes_for(400, 8), 4);
        assert_eq!(probes_for(200, 0), 1, "a budget of 0 still runs");
    }

    #[test]
    fn installs_run_ahead_four_at_a_time_in_order() {
        let mut m = SessionMachine::new(&[1; 6], 2);
        assert_eq!(
            m.start(),
            vec![
                Install { version: 0 },
                Install { version: 1 },
                Install { version: 2 },
                Install { version: 3 }
            ]
        );
        // The third finishing first frees a place for the fifth; it cannot
        // run before the first and second.
        assert_eq!(installed(&mut m, 2), vec![Install { version: 4 }]);
        assert_eq!(
            installed(&mut m, 0),
            vec![
                Install { version: 5 },
                Run {
                    version: 0,
                    probes: 1
                }
            ]
        );
        assert_eq!(
            installed(&mut m, 1),
            vec![Run {
                version: 1,
                probes: 1
            }]
        );
        assert!(installed(&mut m, 3).is_empty(), "two probes, both taken");
    }

    #[test]
    fn cases_observed_before_the_install_ends_are_not_run() {
        // Version 0 had every case in the store, version 1 all but one of
        // 300, version 2 none of its 300.
        let mut m = SessionMachine::new(&[3, 300, 300], 4);
        m.start();
        for index in 0..3 {
            assert!(m.on(CaseObserved { version: 0, index }).is_empty());
        }
        for index in 1..300 {
            m.on(CaseObserved { version: 1, index });
        }
        assert_eq!(
            installed(&mut m, 0),
            vec![Done { version: 0 }],
            "nothing left to run: done, and no probe taken"
        );
        assert_eq!(
            installed(&mut m, 1),
            vec![Run {
                version: 1,
                probes: 1
            }],
            "one case left: one probe"
        );
        assert_eq!(
            installed(&mut m, 2),
            vec![Run {
                version: 2,
                probes: 3
            }]
        );
        assert_eq!(
            m.on(ProbesEnded {
                version: 1,
                ok: false
            }),
            vec![
                Fail {
                    version: 1,
                    cases: vec![0]
                },
                Done { version: 1 }
            ],
            "a failure judges only the case that was to run"
        );
        m.on(ProbesEnded {
            version: 2,
            ok: true,
        });
        assert!(m.is_finished());
    }

    #[test]
    fn versions_start_in_order_when_their_probes_are_free() {
        // 300 cases want three probes of a budget of four; 10 cases want one.
        let mut m = SessionMachine::new(&[300, 300, 10], 4);
        m.start();
        assert_eq!(
            installed(&mut m, 0),
            vec![Run {
                version: 0,
                probes: 3
            }]
        );
        assert!(
            installed(&mut m, 2).is_empty(),
            "the third waits for the second, though a probe is free"
        );
        assert!(installed(&mut m, 1).is_empty(), "three probes are not free");
        assert_eq!(
            m.on(ProbesEnded {
                version: 0,
                ok: true
            }),
            vec![
                Done { version: 0 },
                Run {
                    version: 1,
                    probes: 3
                },
                Run {
                    version: 2,
                    probes: 1
                }
            ]
        );
    }

    #[test]
    fn a_failed_install_judges_every_case_by_it_and_the_next_version_goes_on() {
        let mut m = SessionMachine::new(&[3, 2], 1);
        m.start();
        assert_eq!(
            m.on(InstallEnded {
                version: 0,
                ok: false
            }),
            vec![
                Fail {
                    version: 0,
                    cases: vec![0, 1, 2]
                },
                Done { version: 0 }
            ]
        );
        assert_eq!(
            installed(&mut m, 1),
            vec![Run {
                version: 1,
                probes: 1
            }]
        );
        m.on(CaseObserved {
            version: 1,
            index: 0,
        });
        m.on(CaseObserved {
            version: 1,
            index: 1,
        });
        assert!(!m.is_finished());
        assert_eq!(
            m.on(ProbesEnded {
                version: 1,
                ok: true
            }),
            vec![Done { version: 1 }]
        );
        assert!(m.is_finished());
    }

    #[test]
    fn probes_that_cannot_run_judge_only_the_cases_left_and_free_their_slots() {
        let mut m = SessionMachine::new(&[4, 1], 1);
        m.start();
        installed(&mut m, 0);
        assert!(installed(&mut m, 1).is_empty(), "the one probe is taken");
        m.on(CaseObserved {
            version: 0,
            index: 2,
        });
        assert_eq!(
            m.on(ProbesEnded {
                version: 0,
                ok: false
            }),
            vec![
                Fail {
                    version: 0,
                    cases: vec![0, 1, 3]
                },
                Done { version: 0 },
                Run {
                    version: 1,
                    probes: 1
                }
            ]
        );
    }

    #[test]
    fn a_stop_starts_nothing_and_reports_no_failure_it_caused() {
        let mut m = SessionMachine::new(&[2, 2, 2, 2, 2, 2], 1);
        m.start();
        assert_eq!(
            installed(&mut m, 0),
            vec![
                Install { version: 4 },
                Run {
                    version: 0,
                    probes: 1
                }
            ]
        );
        assert!(m.on(Stop).is_empty());
        assert!(!m.is_finished(), "a version runs, four install");
        assert!(installed(&mut m, 1).is_empty(), "nothing starts");
        assert!(m
            .on(InstallEnded {
                version: 2,
                ok: false
            })
            .is_empty());
        m.on(InstallEnded {
            version: 3,
            ok: false,
        });
        assert!(installed(&mut m, 4).is_empty(), "the sixth never installs");
        assert!(!m.is_finished(), "the running version is not done yet");
        assert_eq!(
            m.on(ProbesEnded {
                version: 0,
                ok: false
            }),
            vec![Done { version: 0 }],
            "its cases were cut off by the stop, not failed"
        );
        assert!(m.is_finished());
        assert!(m.on(Stop).is_empty());
    }

    #[test]
    fn events_for_no_such_version_or_twice_change_nothing() {
        let mut m = SessionMachine::new(&[1], 1);
        m.start();
        assert!(m
            .on(ProbesEnded {
                version: 0,
                ok: true
            })
            .is_empty());
        assert!(m
            .on(InstallEnded {
                version: 7,
                ok: true
            })
            .is_empty());
        m.on(CaseObserved {
            version: 7,
            index: 0,
        });
        assert_eq!(
            installed(&mut m, 0),
            vec![Run {
                version: 0,
                probes: 1
            }]
        );
        assert!(installed(&mut m, 0).is_empty());
        assert_eq!(
            m.on(ProbesEnded {
                version: 0,
                ok: true
            }),
            vec![Done { version: 0 }]
        );
        assert!(m
            .on(ProbesEnded {
                version: 0,
                ok: true
            })
            .is_empty());
        assert!(m.is_finished());
    }

    #[test]
    fn no_versions_is_finished_at_once() {
        let mut m = SessionMachine::new(&[], 4);
        assert!(m.start().is_empty());
        assert!(m.is_finished());
    }

    /// One row of the table: versions' case counts, the budget, the
    /// actions `start` gives, then each event with the actions it gives.
    struct Row {
        name: &'static str,
        counts: &'static [usize],
        budget: usize,
        start: Vec<SessionAction>,
        steps: Vec<(SessionEvent, Vec<SessionAction>)>,
        finished: bool,
    }

    fn table() -> Vec<Row> {
        vec![
            Row {
                name: "a failed install judges every case by it",
                counts: &[2],
                budget: 1,
                start: vec![Install { version: 0 }],
                steps: vec![(
                    InstallEnded {
                        version: 0,
                        ok: false,
                    },
                    vec![
                        Fail {
                            version: 0,
                            cases: vec![0, 1],
                        },
                        Done { version: 0 },
                    ],
                )],
                finished: true,
            },
            Row {
                name: "a probe that fails to start judges the cases left by it",
                counts: &[3],
                budget: 2,
                start: vec![Install { version: 0 }],
                steps: vec![
                    (
                        InstallEnded {
                            version: 0,
                            ok: true,
                        },
                        vec![Run {
                            version: 0,
                            probes: 1,
                        }],
                    ),
                    (
                        CaseObserved {
                            version: 0,
                            index: 1,
                        },
                        vec![],
                    ),
                    (
                        ProbesEnded {
                            version: 0,
                            ok: false,
                        },
                        vec![
                            Fail {
                                version: 0,
                                cases: vec![0, 2],
                            },
                            Done { version: 0 },
                        ],
                    ),
                ],
                finished: true,
            },
            Row {
                name: "a stop mid-version ends it without failing what it cut off",
                counts: &[3, 3],
                budget: 1,
                start: vec![Install { version: 0 }, Install { version: 1 }],
                steps: vec![
                    (
                        InstallEnded {
                            version: 0,
                            ok: true,
                        },
                        vec![Run {
                            version: 0,
                            probes: 1,
                        }],
                    ),
                    (
                        CaseObserved {
                            version: 0,
                            index: 0,
                        },
                        vec![],
                    ),
                    (Stop, vec![]),
                    (
                        InstallEnded {
                            version: 1,
                            ok: true,
                        },
                        vec![],
                    ),
                    (
                        ProbesEnded {
                            version: 0,
                            ok: false,
                        },
                        vec![Done { version: 0 }],
                    ),
                ],
                finished: true,
            },
            Row {
                name: "a reused shelf: what the store answered is not run",
                counts: &[2, 2],
                budget: 1,
                start: vec![Install { version: 0 }, Install { version: 1 }],
                steps: vec![
                    (
                        CaseObserved {
                            version: 0,
                            index: 0,
                        },
                        vec![],
                    ),
                    (
                        CaseObserved {
                            version: 0,
                            index: 1,
                        },
                        vec![],
                    ),
                    (
                        CaseObserved {
                            version: 1,
                            index: 1,
                        },
                        vec![],
                    ),
                    (
                        InstallEnded {
                            version: 0,
                            ok: true,
                        },
                        vec![Done { version: 0 }],
                    ),
                    (
                        InstallEnded {
                            version: 1,
                            ok: true,
                        },
                        vec![Run {
                            version: 1,
                            probes: 1,
                        }],
                    ),
                    (
                        ProbesEnded {
                            version: 1,
                            ok: false,
                        },
                        vec![
                            Fail {
                                version: 1,
                                cases: vec![0],
                            },
                            Done { version: 1 },
                        ],
                    ),
                ],
                finished: true,
            },
            Row {
                name: "overlap: the next version starts on a drained version's freed probe and grows",
                counts: &[300, 300],
                budget: 2,
                start: vec![Install { version: 0 }, Install { version: 1 }],
                steps: vec![
                    (
                        InstallEnded {
                            version: 0,
                            ok: true,
                        },
                        vec![Run {
                            version: 0,
                            probes: 2,
                        }],
                    ),
                    (
                        InstallEnded {
                            version: 1,
                            ok: true,
                        },
                        vec![],
                    ),
                    (
                        ProbeReleased { version: 0 },
                        vec![Run {
                            version: 1,
                            probes: 1,
                        }],
                    ),
                    (
                        ProbesEnded {
                            version: 0,
                            ok: true,
                        },
                        vec![
                            Done { version: 0 },
                            Grow {
                                version: 1,
                                probes: 1,
                            },
                        ],
                    ),
                    (
                        ProbesEnded {
                            version: 1,
                            ok: true,
                        },
                        vec![Done { version: 1 }],
                    ),
                ],
                finished: true,
            },
            Row {
                name: "overlap: a freed probe goes to a version short of its share before the next starts",
                counts: &[300, 300, 300],
                budget: 2,
                start: vec![
                    Install { version: 0 },
                    Install { version: 1 },
                    Install { version: 2 },
                ],
                steps: vec![
                    (
                        InstallEnded {
                            version: 0,
                            ok: true,
                        },
                        vec![Run {
                            version: 0,
                            probes: 2,
                        }],
                    ),
                    (
                        InstallEnded {
                            version: 1,
                            ok: true,
                        },
                        vec![],
                    ),
                    (
                        InstallEnded {
                            version: 2,
                            ok: true,
                        },
                        vec![],
                    ),
                    (
                        ProbeReleased { version: 0 },
                        vec![Run {
                            version: 1,
                            probes: 1,
                        }],
                    ),
                    (
                        ProbeReleased { version: 0 },
                        vec![Grow {
                            version: 1,
                            probes: 1,
                        }],
                    ),
                    (
                        ProbesEnded {
                            version: 0,
                            ok: true,
                        },
                        vec![Done { version: 0 }],
                    ),
                    (
                        ProbeReleased { version: 1 },
                        vec![Run {
                            version: 2,
                            probes: 1,
                        }],
                    ),
                    (
                        ProbesEnded {
                            version: 1,
                            ok: true,
                        },
                        vec![
                            Done { version: 1 },
                            Grow {
                                version: 2,
                                probes: 1,
                            },
                        ],
                    ),
                ],
                finished: false,
            },
            Row {
                name: "overlap: a version not drained keeps the next one waiting for its share",
                counts: &[300, 10, 300],
                budget: 3,
                start: vec![
                    Install { version: 0 },
                    Install { version: 1 },
                    Install { version: 2 },
                ],
                steps: vec![
                    (
                        InstallEnded {
                            version: 0,
                            ok: true,
                        },
                        vec![Run {
                            version: 0,
                            probes: 3,
                        }],
                    ),
                    (
                        InstallEnded {
                            version: 1,
                            ok: true,
                        },
                        vec![],
                    ),
                    (
                        InstallEnded {
                            version: 2,
                            ok: true,
                        },
                        vec![],
                    ),
                    (
                        ProbeReleased { version: 0 },
                        vec![Run {
                            version: 1,
                            probes: 1,
                        }],
                    ),
                    (
                        ProbeReleased { version: 0 },
                        vec![],
                    ),
                    (
                        ProbeReleased { version: 1 },
                        vec![Run {
                            version: 2,
                            probes: 2,
                        }],
                    ),
                    (
                        ProbesEnded {
                            version: 0,
                            ok: true,
                        },
                        vec![
                            Done { version: 0 },
                            Grow {
                                version: 2,
                                probes: 1,
                            },
                        ],
                    ),
                ],
                finished: false,
            },
            Row {
                name: "a release from no running version, or past its probes, changes nothing",
                counts: &[300],
                budget: 2,
                start: vec![Install { version: 0 }],
                steps: vec![
                    (ProbeReleased { version: 0 }, vec![]),
                    (ProbeReleased { version: 9 }, vec![]),
                    (
                        InstallEnded {
                            version: 0,
                            ok: true,
                        },
                        vec![Run {
                            version: 0,
                            probes: 2,
                        }],
                    ),
                    (ProbeReleased { version: 0 }, vec![]),
                    (ProbeReleased { version: 0 }, vec![]),
                    (ProbeReleased { version: 0 }, vec![]),
                    (
                        ProbesEnded {
                            version: 0,
                            ok: true,
                        },
                        vec![Done { version: 0 }],
                    ),
                ],
                finished: true,
            },
        ]
    }

    #[test]
    fn the_table_of_event_sequences_gives_its_actions() {
        for row in table() {
            let mut m = SessionMachine::new(row.counts, row.budget);
            assert_eq!(m.start(), row.start, "{}: start", row.name);
            for (i, (event, expected)) in row.steps.into_iter().enumerate() {
                let said = format!("{}: step {i}, {event:?}", row.name);
                assert_eq!(m.on(event), expected, "{said}");
                assert!(m.free() <= row.budget.max(1), "{said}");
            }
            assert_eq!(m.is_finished(), row.finished, "{}: finished", row.name);
        }
    }

    /// What an event can be, for the property test: a choice of kind and a
    /// version, applied only where it makes sense (a driver never reports
    /// an install it did not start, nor the release of a probe a version
    /// does not hold). The probes the versions hold, as the actions grant
    /// and the releases return them, never exceed the budget.
    /// Returns every action, and whether a stop was sent.
    fn drive(
        counts: &[usize],
        budget: usize,
        picks: &[(u8, usize, bool)],
    ) -> (Vec<SessionAction>, bool) {
        let mut m = SessionMachine::new(counts, budget);
        let mut all = m.start();
        let mut installing: Vec<usize> = Vec::new();
        let mut running: Vec<usize> = Vec::new();
        let mut held = vec![0usize; counts.len()];
        let note = |a: &[SessionAction],
                    installing: &mut Vec<usize>,
                    running: &mut Vec<usize>,
                    held: &mut Vec<usize>| {
            for x in a {
                match x {
                    Install { version } => installing.push(*version),
                    Run { version, probes } => {
                        running.push(*version);
                        held[*version] += probes;
                    }
                    Grow { version, probes } => held[*version] += probes,
                    _ => {}
                }
            }
        };
        note(&all, &mut installing, &mut running, &mut held);
        // The picks once, then every install and run ends well, in order.
        let mut picks = picks.iter();
        let mut stopped = false;
        let mut steps = 0;
        while !m.is_finished() && steps < 10_000 {
            steps += 1;
            let &(kind, at, ok) = picks.next().unwrap_or(&(9, 0, true));
            let releasable: Vec<usize> = running.iter().copied().filter(|&v| held[v] > 0).collect();
            let event = match kind {
                0 if !installing.is_empty() => {
                    let v = installing.remove(at % installing.len());
                    InstallEnded { version: v, ok }
                }
                1 if !running.is_empty() => {
                    let v = running[at % running.len()];
                    CaseObserved {
                        version: v,
                        index: at % counts[v].max(1),
                    }
                }
                2 if !running.is_empty() => {
                    let v = running.remove(at % running.len());
                    held[v] = 0;
                    ProbesEnded { version: v, ok }
                }
                3 if at % 17 == 0 => {
                    stopped = true;
                    Stop
                }
                4 if !releasable.is_empty() => {
                    let v = releasable[at % releasable.len()];
                    held[v] -= 1;
                    ProbeReleased { version: v }
                }
                _ if !installing.is_empty() => InstallEnded {
                    version: installing.remove(0),
                    ok: true,
                },
                _ if !running.is_empty() => {
                    let v = running.remove(0);
                    held[v] = 0;
                    ProbesEnded {
                        version: v,
                        ok: true,
                    }
                }
                _ => panic!("not finished with nothing in flight: {all:?}"),
            };
            let a = m.on(event);
            note(&a, &mut installing, &mut running, &mut held);
            all.extend(a);
            let in_use: usize = held.iter().sum();
            assert!(in_use <= budget.max(1), "{in_use} probes in use: {all:?}");
            assert_eq!(in_use + m.free(), budget.max(1), "{all:?}");
        }
        assert!(m.is_finished(), "the machine never finished: {all:?}");
        (all, stopped)
    }

    proptest! {
        /// Whatever happens: probes in use never exceed the budget (checked
        /// in `drive`), installs and starts keep the given order, a version
        /// grows only while it runs and never past its share, a version is
        /// done at most once and after its failures, and without a stop
        /// every version is done.
        #[test]
        fn the_rules_hold_in_any_order_of_events(
            counts in prop::collection::vec(0usize..400, 0..9),
            budget in 0usize..6,
            picks in prop::collection::vec((0u8..5, 0usize..50, prop::bool::weighted(0.8)), 1..60),
        ) {
            let (all, stopped) = drive(&counts, budget, &picks);
            let (mut installs, mut runs, mut done) = (Vec::new(), Vec::new(), Vec::new());
            let mut granted = vec![0usize; counts.len()];
            for a in &all {
                match a {
                    Install { version } => installs.push(*version),
                    Run { version, probes } => {
                        prop_assert!(*probes >= 1);
                        prop_assert!(*probes <= probes_for(counts[*version], budget));
                        granted[*version] = *probes;
                        runs.push(*version);
                    }
                    Grow { version, probes } => {
                        prop_assert!(runs.contains(version) && !done.contains(version), "{:?}", all);
                        prop_assert!(*probes >= 1);
                        granted[*version] += *probes;
                        prop_assert!(granted[*version] <= probes_for(counts[*version], budget), "{:?}", all);
                    }
                    Done { version } => {
                        prop_assert!(!done.contains(version), "done twice: {:?}", all);
                        done.push(*version);
                    }
                    Fail { version, cases } => {
                        prop_assert!(!done.contains(version), "failed after done: {:?}", all);
                        prop_assert!(cases.windows(2).all(|w| w[0] < w[1]));
                        prop_assert!(cases.iter().all(|c| *c < counts[*version]));
                    }
                }
            }
            prop_assert!(installs.windows(2).all(|w| w[0] < w[1]), "installs out of order");
            prop_assert!(runs.windows(2).all(|w| w[0] < w[1]), "starts out of order");
            if !stopped {
                prop_assert_eq!(done.len(), counts.len(), "{:?}", all);
            }
        }
    }
}
