//! `VersionStats`: what each version of a run cost, with what its probes
//! measured (`PoolStats`) and said at their start (`Hello`), as pure data;
//! `RunInfo` (`info`): what the run was. Each result is a
//! `judge::case_result::CaseResult`.
//!
//! In: the figures the probes and the installer measured. Out: the values
//! `report` renders and the loops fold. Nothing here starts a process,
//! listens or installs: `run` and `observe` fill these in.

pub mod info;

use crate::version::spec::MastraVersion;
use std::time::Duration;

/// What one version cost.
#[derive(Debug, Clone, Default)]
pub struct VersionStats {
    pub version: Option<MastraVersion>,
    pub install: Duration,
    pub installed_now: bool,
    pub pool: PoolStats,
    /// Cases its probes observed in this run.
    pub cases: usize,
    /// Cases whose stored observation was judged again instead.
    pub reused: usize,
    /// Why the version's cases did not run, when they did not.
    pub outcome: Option<String>,
}

impl VersionStats {
    /// Cases per second while the probe ran (start-up included); reused
    /// cases are not counted, their probes never ran them.
    pub fn cases_per_second(&self) -> f64 {
        let secs = self.pool.busy.as_secs_f64();
        if secs > 0.0 {
            self.cases as f64 / secs
        } else {
            0.0
        }
    }
}

/// What running one version's cases on its probes cost, for the report and
/// `make bench`.
#[derive(Debug, Clone, Default)]
pub struct PoolStats {
    pub hello: Option<Hello>,
    /// Probes that ran this version's cases side by side.
    pub probes: u32,
    pub starts: u32,
    pub startup_total: Duration,
    pub restarts_after_crash: u32,
    pub restarts_after_timeout: u32,
    pub recycled: u32,
    pub garbage_lines: u64,
    pub max_rss: u64,
    /// Wall time from the first probe's start to the last one's end.
    pub busy: Duration,
}

impl PoolStats {
    /// Fold in the figures of another probe of the same version (its wall
    /// time is the caller's to measure).
    pub fn absorb(&mut self, other: PoolStats) {
        if self.hello.is_none() {
            self.hello = other.hello;
        }
        self.probes += other.probes;
        self.starts += other.starts;
        self.startup_total += other.startup_total;
        self.restarts_after_crash += other.restarts_after_crash;
        self.restarts_after_timeout += other.restarts_after_timeout;
        self.recycled += other.recycled;
        self.garbage_lines += other.garbage_lines;
        self.max_rss = self.max_rss.max(other.max_rss);
    }
}

/// What a probe said of itself once Mastra was imported.
#[derive(Debug, Clone, PartialEq)]
pub struct Hello {
    pub node: String,
    pub mastra: String,
    pub zod: String,
    /// The packages installed beside it for the other tool sources
    /// (`@mastra/mcp`, the MCP SDK, `@mastra/memory`, `@mastra/libsql`):
    /// name and version, as the install holds them.
    pub packages: Vec<(String, String)>,
    pub builtins: Vec<String>,
    /// From spawn to hello: Node start plus Mastra import.
    pub startup: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(starts: u32, rss: u64, hello: Option<&str>) -> PoolStats {
        PoolStats {
            hello: hello.map(|node| Hello {
                node: node.into(),
                mastra: "1.67.0".into(),
                zod: "3.25.76".into(),
                packages: Vec::new(),
                builtins: Vec::new(),
                startup: Duration::from_millis(500),
            }),
            probes: 1,
            starts,
            startup_total: Duration::from_millis(500) * starts,
            max_rss: rss,
            busy: Duration::from_secs(9),
            ..PoolStats::default()
        }
    }

    #[test]
    fn probes_of_one_version_add_up_and_keep_the_first_hello() {
        let mut all = PoolStats::default();
        all.absorb(probe(1, 300, None));
        all.absorb(probe(2, 700, Some("v24.0.0")));
        all.absorb(probe(1, 500, Some("v22.13.0")));
        assert_eq!((all.probes, all.starts), (3, 4));
        assert_eq!(all.startup_total, Duration::from_secs(2));
        assert_eq!(all.max_rss, 700, "the peak, not a sum");
        assert_eq!(all.hello.map(|h| h.node).as_deref(), Some("v24.0.0"));
        assert_eq!(all.busy, Duration::ZERO, "wall time is the caller's");
    }

    #[test]
    fn the_rate_is_cases_over_busy_time_and_zero_without_any() {
        let mut stats = VersionStats {
            cases: 30,
            ..VersionStats::default()
        };
        assert_eq!(stats.cases_per_second(), 0.0);
        stats.pool.busy = Duration::from_secs(10);
        assert_eq!(stats.cases_per_second(), 3.0);
    }
}
