//! `Report`: the results of a run, rendered for people (the terminal
//! summary) and for scripts (JSON, `shared/case-format.md`).
//!
//! In: `CaseResult`s and what the run was (`RunInfo`). Out: text and files.
//! A report file is written to a temporary file beside it and renamed into
//! place, so a reader never sees half of one.

pub mod changes;
pub mod doc;
pub mod html;
pub mod junit;
pub mod markdown;

use crate::compare::{comparable, diff, Verdict};
use crate::json::Json;
use crate::model::Prediction;
use crate::observe::Observed;
use crate::pipeline::{CaseResult, VersionStats};
use crate::versions::MastraVersion;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// What a run was: enough to reproduce it.
#[derive(Debug, Clone, Default)]
pub struct RunInfo {
    pub harness: String,
    pub commit: String,
    pub node: String,
    pub versions: Vec<MastraVersion>,
    /// Per version: what the probe said it loaded (`@mastra/core`, zod).
    pub resolved: BTreeMap<MastraVersion, (String, String)>,
    pub seed: Option<u64>,
    pub command: String,
    pub interrupted: bool,
    pub stats: Vec<VersionStats>,
    /// `K/N` when the run is one slice of a sharded run.
    pub shard: Option<String>,
    /// A digest of the case files that ran, so reports of different corpora
    /// are never merged.
    pub corpus: String,
}

impl RunInfo {
    pub fn new(command: &str, root: &Path) -> RunInfo {
        let commit = crate::proc::CommandSpec::new("git")
            .args(["rev-parse", "HEAD"])
            .dir(root)
            .timeout(std::time::Duration::from_secs(10))
            .run_capture()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_else(|| "unknown".into());
        RunInfo {
            harness: format!("mastra-conform {}", env!("CARGO_PKG_VERSION")),
            commit,
            command: command.to_string(),
            ..RunInfo::default()
        }
    }

    pub fn absorb(&mut self, stats: VersionStats) {
        if let (Some(v), Some(h)) = (stats.version, &stats.pool.hello) {
            self.resolved.insert(v, (h.mastra.clone(), h.zod.clone()));
            if self.node.is_empty() {
                self.node = h.node.clone();
            }
        }
        self.stats.push(stats);
    }

    pub fn to_json(&self) -> Json {
        let resolved = Json::Object(
            self.resolved
                .iter()
                .map(|(v, (m, z))| {
                    (
                        v.to_string().into(),
                        Json::object([("@mastra/core", Json::str(m)), ("zod", Json::str(z))]),
                    )
                })
                .collect(),
        );
        let stats = self
            .stats
            .iter()
            .map(|s| {
                Json::object([
                    (
                        "version",
                        Json::str(&s.version.map(|v| v.to_string()).unwrap_or_default()),
                    ),
                    ("installSeconds", secs(s.install.as_secs_f64())),
                    ("installedNow", Json::Bool(s.installed_now)),
                    ("probeStarts", Json::int(i64::from(s.pool.starts))),
                    ("startupSeconds", secs(s.pool.startup_total.as_secs_f64())),
                    ("cases", Json::int(s.cases as i64)),
                    ("runSeconds", secs(s.pool.busy.as_secs_f64())),
                    ("casesPerSecond", secs(s.cases_per_second())),
                    ("maxRssBytes", Json::int(s.pool.max_rss as i64)),
                    (
                        "probeRestarts",
                        Json::int(i64::from(
                            s.pool.restarts_after_crash + s.pool.restarts_after_timeout,
                        )),
                    ),
                    ("garbageLines", Json::int(s.pool.garbage_lines as i64)),
                    (
                        "outcome",
                        s.outcome.as_deref().map_or(Json::Null, Json::str),
                    ),
                ])
            })
            .collect();
        Json::object([
            ("harness", Json::str(&self.harness)),
            ("commit", Json::str(&self.commit)),
            ("command", Json::str(&self.command)),
            ("node", Json::str(&self.node)),
            (
                "versions",
                Json::Array(
                    self.versions
                        .iter()
                        .map(|v| Json::str(&v.to_string()))
                        .collect(),
                ),
            ),
            ("resolved", resolved),
            (
                "seed",
                self.seed
                    .map_or(Json::Null, |s| Json::Number(s.to_string())),
            ),
            ("shard", self.shard.as_deref().map_or(Json::Null, Json::str)),
            ("corpus", Json::str(&self.corpus)),
            ("interrupted", Json::Bool(self.interrupted)),
            ("stats", Json::Array(stats)),
        ])
    }
}

fn secs(x: f64) -> Json {
    Json::Number(format!("{:.3}", if x.is_finite() { x } else { 0.0 }))
}

/// A digest of the cases (their names and raw JSON), the same on every
/// machine for the same corpus.
pub fn corpus_digest(cases: &[crate::case::Case]) -> String {
    // FNV-1a over names and compact JSON: an identity check, not security.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for c in cases {
        for b in c
            .name()
            .bytes()
            .chain([0])
            .chain(c.raw.to_compact().into_bytes())
            .chain([0])
        {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// One result as the JSON report writes it.
pub fn result_json(r: &CaseResult) -> Json {
    let mut members = vec![
        ("case", Json::str(&r.case)),
        ("version", Json::str(&r.version.to_string())),
        ("verdict", Json::str(r.verdict.name())),
        ("predicted", r.predicted.to_json()),
        (
            "observed",
            r.observed.projection().map_or(Json::Null, |p| p.to_json()),
        ),
    ];
    if let Some(detail) = r.observed.infra_detail() {
        members.push(("detail", Json::str(&detail)));
    }
    if let Some(d) = result_diff(r) {
        members.push(("diff", Json::str(&d)));
    }
    members.extend(crate::refine::findings_json(&r.findings));
    Json::object(members)
}

/// The diff of a divergence, if there is one.
pub fn result_diff(r: &CaseResult) -> Option<String> {
    match (&r.predicted, &r.observed) {
        (Prediction::Projection(p), Observed::Ran { projection: o, .. })
            if r.verdict == Verdict::Diverged =>
        {
            Some(diff(&comparable(p), &comparable(o)))
        }
        _ => None,
    }
}

pub fn report_json(info: &RunInfo, results: &[CaseResult]) -> Json {
    Json::object([
        ("run", info.to_json()),
        (
            "results",
            Json::Array(results.iter().map(result_json).collect()),
        ),
    ])
}

/// Write `text` to `path` atomically (temporary file, then rename).
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(text.as_bytes())?;
    tmp.flush()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Counts of verdicts, per version.
pub fn tally(results: &[CaseResult]) -> BTreeMap<MastraVersion, BTreeMap<Verdict, usize>> {
    let mut t: BTreeMap<MastraVersion, BTreeMap<Verdict, usize>> = BTreeMap::new();
    for r in results {
        *t.entry(r.version)
            .or_default()
            .entry(r.verdict)
            .or_default() += 1;
    }
    t
}

/// The terminal summary: one line per version, then every divergence with
/// its diff and every infrastructure failure with its reason.
pub fn summary(info: &RunInfo, results: &[CaseResult]) -> String {
    let mut out = String::new();
    for (version, counts) in tally(results) {
        let parts: Vec<String> = counts
            .iter()
            .map(|(v, n)| format!("{n} {}", v.name()))
            .collect();
        let speed = info
            .stats
            .iter()
            .find(|s| s.version == Some(version) && s.cases > 0)
            .map(|s| {
                format!(
                    "  ({:.1} cases/s, start {:.2}s)",
                    s.cases_per_second(),
                    s.pool.startup_total.as_secs_f64()
                )
            })
            .unwrap_or_default();
        out.push_str(&format!("{version:>8}: {}{speed}\n", parts.join(", ")));
    }
    let mut infra_shown = std::collections::BTreeSet::new();
    for r in results {
        if r.verdict.is_divergence() {
            out.push_str(&format!(
                "\n{} on {}: {}\n",
                r.case,
                r.version,
                r.verdict.name()
            ));
            if let Some(d) = result_diff(r) {
                out.push_str(&d);
            }
        } else if r.verdict.is_infrastructure() {
            let detail = r.observed.infra_detail().unwrap_or_default();
            // One line per distinct failure of a version, not one per case.
            if infra_shown.insert((r.version, r.verdict, detail.clone())) {
                out.push_str(&format!(
                    "\n{} on {}: {}: {detail}\n",
                    r.case,
                    r.version,
                    r.verdict.name()
                ));
            }
        }
    }
    if info.interrupted {
        out.push_str("\ninterrupted: the report holds the results that finished\n");
    }
    out
}
