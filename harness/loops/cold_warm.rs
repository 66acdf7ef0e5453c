//! `bench --matrix-versions RANGE`: the matrix on a version range from an
//! empty cache, then again warm, with each version's install time and disk;
//! then with the observation store: the warm run stores what it observes
//! (in a store of the bench's own), an unchanged re-run judges it all again
//! from the store, and a re-run without the newest version's shelf costs
//! what one new release costs a night.
//!
//! The cold run gets a cache of its own beside the real one (so the store
//! starts empty), sharing only the pinned Node and pnpm (`node/`, `tools/`),
//! which are the harness's own tools, not a version's install. The folder
//! goes when the bench ends, interrupted or not.

use crate::install::cache;
use crate::js::json::Json;
use crate::outcome::Failure;
use crate::results::VersionStats;
use crate::run::config::{Config, Reuse};
use crate::run::corpus::{collect_run, RunObserver, RunRequest};
use crate::version::spec::MastraVersion;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One version's cost in the cold run.
#[derive(Debug, Clone)]
pub struct VersionCost {
    pub version: MastraVersion,
    pub install: Duration,
    /// Bytes only this install holds (files no other install links).
    pub own_bytes: u64,
}

#[derive(Debug, Clone)]
pub struct ColdWarm {
    pub versions: Vec<VersionCost>,
    /// (case, version) results per run.
    pub results: usize,
    pub cold: Duration,
    pub warm: Duration,
    /// The store and every install, hard links counted once.
    pub disk_bytes: u64,
    pub store_bytes: u64,
    /// Results that diverged or could not run, in either run (a bench of a
    /// broken pipeline is no bench); what the model leaves unmodelled is
    /// expected.
    pub not_as_expected: usize,
    /// The unchanged re-run, every observation from the store.
    pub rerun: Duration,
    /// (observed, reused) in the unchanged re-run.
    pub rerun_counts: (usize, usize),
    /// The re-run's verdicts are the warm run's, result for result.
    pub rerun_identical: bool,
    /// The newest version, and the re-run that observes it alone.
    pub new_version: Option<MastraVersion>,
    pub new_version_run: Duration,
    /// The observation store's bytes on disk after the warm run.
    pub observation_bytes: u64,
}

#[derive(Default)]
struct Costs {
    stats: Vec<VersionStats>,
    results: usize,
    wrong: usize,
    /// Each result as (version, route, case, verdict), to compare runs by.
    verdicts: Vec<(MastraVersion, String, String, String)>,
}

impl Costs {
    fn counts(&self) -> (usize, usize) {
        self.stats
            .iter()
            .fold((0, 0), |(o, r), s| (o + s.cases, r + s.reused))
    }

    fn sorted_verdicts(&self) -> Vec<(MastraVersion, String, String, String)> {
        let mut v = self.verdicts.clone();
        v.sort();
        v
    }
}

impl RunObserver for Costs {
    fn result(&mut self, r: &crate::judge::case_result::CaseResult) {
        use crate::judge::compare::Verdict;
        self.results += 1;
        self.verdicts.push((
            r.version,
            r.route.name().to_string(),
            r.case.clone(),
            r.verdict.name().to_string(),
        ));
        if !matches!(
            r.verdict,
            Verdict::AsModelled
                | Verdict::KnownIssue
                | Verdict::ProviderRejects
                | Verdict::NotApplicable
                | Verdict::Unmodelled
        ) {
            self.wrong += 1;
        }
    }
    fn version_done(&mut self, stats: &VersionStats) {
        self.stats.push(stats.clone());
    }
}

/// Run `plan` cold (an empty cache of its own), then warm (the same cache).
pub fn cold_warm(
    config: &Config,
    plan: &RunRequest,
    stop: Arc<AtomicBool>,
) -> Result<ColdWarm, Failure> {
    let parent = config.cache.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .map_err(|e| Failure::infra_because(format!("cannot create {}", parent.display()), e))?;
    let tmp = tempfile::Builder::new()
        .prefix("mastra-conform-bench-")
        .tempdir_in(parent)
        .map_err(|e| {
            Failure::infra_because(format!("cannot make a cache in {}", parent.display()), e)
        })?;
    // The pinned Node and pnpm come first, outside the timing: they are the
    // harness's tools, installed once per machine, not per version.
    config
        .installs()
        .node()
        .map_err(|e| Failure::infra_because("the pinned Node", e))?;
    config
        .installs()
        .pnpm()
        .map_err(|e| Failure::infra_because("the pinned pnpm", e))?;
    for shared in ["node", "tools"] {
        let from = config.cache.join(shared);
        if from.is_dir() {
            std::os::unix::fs::symlink(&from, tmp.path().join(shared)).map_err(|e| {
                Failure::infra_because(format!("cannot link {}", from.display()), e)
            })?;
        }
    }
    let mut cold_config = config.clone();
    cold_config.cache = tmp.path().to_path_buf();

    let mut cold = Costs::default();
    let began = Instant::now();
    collect_run(cold_config.clone(), stop.clone(), plan, &mut cold)?;
    let cold_time = began.elapsed();

    // The warm run stores what it observes, in a store of the bench's own.
    let store_dir = tmp.path().join(crate::recorded::OBSERVATIONS);
    let stored = |reuse| Config {
        reuse,
        store_dir: Some(store_dir.clone()),
        ..cold_config.clone()
    };
    let mut warm = Costs::default();
    let began = Instant::now();
    collect_run(stored(Reuse::Fresh), stop.clone(), plan, &mut warm)?;
    let warm_time = began.elapsed();
    let store = stored(Reuse::Fresh).store();
    let observation_bytes = store.status().bytes;

    let mut rerun = Costs::default();
    let began = Instant::now();
    collect_run(stored(Reuse::Stored), stop.clone(), plan, &mut rerun)?;
    let rerun_time = began.elapsed();

    // One new release: the newest version's shelf gone, the rest stored.
    let new_version = warm.stats.iter().filter_map(|s| s.version).max();
    let mut new_run = Duration::ZERO;
    if let Some(v) = new_version {
        for shelf in store.status().shelves {
            if shelf.meta.as_ref().is_some_and(|m| m.key.version == v) {
                std::fs::remove_dir_all(&shelf.path).map_err(|e| {
                    Failure::infra_because(format!("cannot remove {}", shelf.path.display()), e)
                })?;
            }
        }
        let mut newest = Costs::default();
        let began = Instant::now();
        collect_run(stored(Reuse::Stored), stop, plan, &mut newest)?;
        new_run = began.elapsed();
    }

    let status = cache::status(&cold_config.installs());
    let mut versions: Vec<VersionCost> = cold
        .stats
        .iter()
        .filter_map(|s| {
            let version = s.version?;
            let own_bytes = status
                .installs
                .iter()
                .find(|e| e.version == Some(version))
                .map_or(0, |e| e.own_bytes);
            Some(VersionCost {
                version,
                install: s.install,
                own_bytes,
            })
        })
        .collect();
    versions.sort_by_key(|v| v.version);
    let installs_bytes: u64 = status.installs.iter().map(|e| e.own_bytes).sum();
    Ok(ColdWarm {
        versions,
        results: cold.results,
        cold: cold_time,
        warm: warm_time,
        disk_bytes: status.store_bytes + installs_bytes,
        store_bytes: status.store_bytes,
        not_as_expected: cold.wrong + warm.wrong,
        rerun: rerun_time,
        rerun_counts: rerun.counts(),
        rerun_identical: rerun.sorted_verdicts() == warm.sorted_verdicts(),
        new_version,
        new_version_run: new_run,
        observation_bytes,
    })
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

impl ColdWarm {
    pub fn to_text(&self) -> String {
        let n = self.versions.len().max(1);
        let installs: f64 = self.versions.iter().map(|v| v.install.as_secs_f64()).sum();
        let mut out = format!(
            "matrix on {} version(s), {} results per run\n\
             cold (empty cache)  {:>7.1}s  (installs {:.1}s summed, {:.1}s per version)\n\
             warm                {:>7.1}s\n\
             disk                {:>7.0} MB  ({:.0} MB per version; store {:.0} MB)\n",
            self.versions.len(),
            self.results,
            self.cold.as_secs_f64(),
            installs,
            installs / n as f64,
            self.warm.as_secs_f64(),
            mb(self.disk_bytes),
            mb(self.disk_bytes) / n as f64,
            mb(self.store_bytes),
        );
        out.push_str("version    install s   own MB\n");
        for v in &self.versions {
            out.push_str(&format!(
                "{:<10} {:>9.1} {:>8.1}\n",
                v.version.to_string(),
                v.install.as_secs_f64(),
                mb(v.own_bytes)
            ));
        }
        let warm = self.warm.as_secs_f64().max(1e-9);
        out.push_str(&format!(
            "with the observation store (the warm run stored {:.1} MB):\n\
             unchanged re-run    {:>7.1}s  ({:.3}x warm; {} observed, {} reused; verdicts {})\n",
            mb(self.observation_bytes),
            self.rerun.as_secs_f64(),
            self.rerun.as_secs_f64() / warm,
            self.rerun_counts.0,
            self.rerun_counts.1,
            if self.rerun_identical {
                "identical"
            } else {
                "DIFFERENT"
            },
        ));
        if let Some(v) = self.new_version {
            out.push_str(&format!(
                "one new version     {:>7.1}s  ({:.3}x warm; {v} observed, the rest reused)\n",
                self.new_version_run.as_secs_f64(),
                self.new_version_run.as_secs_f64() / warm,
            ));
        }
        if self.not_as_expected > 0 {
            out.push_str(&format!(
                "{} result(s) were divergences or faults: the times above are not a clean run's\n",
                self.not_as_expected
            ));
        }
        out
    }

    pub fn to_json(&self) -> Json {
        let n = |x: f64| Json::Number(format!("{x:.3}"));
        let int = |x: u64| Json::int(x as i64);
        Json::object([
            ("versions", int(self.versions.len() as u64)),
            ("results", int(self.results as u64)),
            ("coldSeconds", n(self.cold.as_secs_f64())),
            ("warmSeconds", n(self.warm.as_secs_f64())),
            ("diskBytes", int(self.disk_bytes)),
            ("storeBytes", int(self.store_bytes)),
            ("notAsExpected", int(self.not_as_expected as u64)),
            ("rerunSeconds", n(self.rerun.as_secs_f64())),
            ("rerunObserved", int(self.rerun_counts.0 as u64)),
            ("rerunReused", int(self.rerun_counts.1 as u64)),
            ("rerunIdentical", Json::Bool(self.rerun_identical)),
            (
                "newVersion",
                self.new_version
                    .map_or(Json::Null, |v| Json::str(&v.to_string())),
            ),
            ("newVersionSeconds", n(self.new_version_run.as_secs_f64())),
            ("observationBytes", int(self.observation_bytes)),
            (
                "perVersion",
                Json::Array(
                    self.versions
                        .iter()
                        .map(|v| {
                            Json::object([
                                ("version", Json::str(&v.version.to_string())),
                                ("installSeconds", n(v.install.as_secs_f64())),
                                ("ownBytes", int(v.own_bytes)),
                            ])
                        })
                        .collect(),
                ),
            ),
        ])
    }
}
