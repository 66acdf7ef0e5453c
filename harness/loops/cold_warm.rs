//! `bench --matrix-versions RANGE`: the matrix on a version range from an
//! empty cache, then again warm, with each version's install time and disk.
//!
//! The cold run gets a cache of its own beside the real one (so the store
//! starts empty), sharing only the pinned Node and pnpm (`node/`, `tools/`),
//! which are the harness's own tools, not a version's install. The folder
//! goes when the bench ends, interrupted or not.

use crate::js::json::Json;
use crate::outcome::Failure;
use crate::results::VersionStats;
use crate::run::config::Config;
use crate::run::corpus::{collect_run, RunObserver, RunRequest};
use crate::versions::cache;
use crate::versions::spec::MastraVersion;
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
}

#[derive(Default)]
struct Costs {
    stats: Vec<VersionStats>,
    results: usize,
    wrong: usize,
}

impl RunObserver for Costs {
    fn result(&mut self, r: &crate::results::CaseResult) {
        use crate::judge::compare::Verdict;
        self.results += 1;
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

    let mut warm = Costs::default();
    let began = Instant::now();
    collect_run(cold_config.clone(), stop, plan, &mut warm)?;
    let warm_time = began.elapsed();

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
