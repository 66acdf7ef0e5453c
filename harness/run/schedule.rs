//! `probes_for` and `Slots`: how many probes a version gets, and the
//! machine-wide budget of probes that versions running side by side share.
//!
//! In: a version's case count, the `--probes` budget. Out: a probe count per
//! version; slots taken and given back as versions start and end.
//!
//! A probe costs a Node start and an import of Mastra (0.4 to 1.8 s, more
//! on a busy machine), which is worth about `CASES_PER_PROBE` cases of work
//! (40 to 140 cases/s per probe); a version with fewer
//! cases than that per extra probe runs on fewer probes, and the probes it
//! leaves free run the next versions at the same time.

use std::sync::{Condvar, Mutex, PoisonError};

/// Cases one more probe must have to be worth its start.
pub const CASES_PER_PROBE: usize = 128;

/// Probes for a version with `cases` cases under a budget of `budget`.
pub fn probes_for(cases: usize, budget: usize) -> usize {
    cases.div_ceil(CASES_PER_PROBE).clamp(1, budget.max(1))
}

/// A counting semaphore of probe slots.
pub struct Slots {
    free: Mutex<usize>,
    freed: Condvar,
}

impl Slots {
    pub fn new(n: usize) -> Slots {
        Slots {
            free: Mutex::new(n.max(1)),
            freed: Condvar::new(),
        }
    }

    /// Wait for `n` free slots and take them.
    pub fn take(&self, n: usize) {
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        while *free < n {
            free = self
                .freed
                .wait(free)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *free -= n;
    }

    pub fn give(&self, n: usize) {
        *self.free.lock().unwrap_or_else(PoisonError::into_inner) += n;
        self.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn slots_block_until_given_back() {
        let slots = std::sync::Arc::new(Slots::new(2));
        slots.take(2);
        let s = slots.clone();
        let waiter = std::thread::spawn(move || {
            s.take(1);
            true
        });
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!waiter.is_finished(), "no slot is free");
        slots.give(1);
        assert!(waiter.join().unwrap());
    }
}
