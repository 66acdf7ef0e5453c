//! `RunInfo`: what a run was, enough to reproduce it (the harness and its
//! commit, Node, the versions it resolved and what each loaded, the corpus
//! digest, the slice, the costs it measured, the listener's refusals), and
//! its JSON form, the `run` member of every report.
//!
//! In: what the run loop learns as it goes (`absorb` takes each version's
//! costs). Out: `to_json`. Pure: the commit comes in as text
//! (`run::config::commit`).

use crate::case::Case;
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::observation::Refused;
use crate::results::VersionStats;
use crate::route::Route;
use crate::version::digest::digest_hex;
use crate::version::spec::{versions_json, Basis, MastraVersion, PredictedAs};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// What one version loaded: `@mastra/core`'s and zod's versions, then each
/// package installed beside them for the other tool sources (name, version).
pub type Loaded = (String, String, Vec<(String, String)>);

/// What a run was: enough to reproduce it.
#[derive(Debug, Clone, Default)]
pub struct RunInfo {
    pub harness: String,
    pub commit: String,
    pub node: String,
    pub versions: Vec<MastraVersion>,
    /// The wire routes the cases ran on.
    pub routes: Vec<Route>,
    /// Per version: what the probe said it loaded (`@mastra/core`, zod).
    pub resolved: BTreeMap<MastraVersion, Loaded>,
    pub seed: Option<u64>,
    pub command: String,
    pub interrupted: bool,
    pub stats: Vec<VersionStats>,
    /// `K/N` when the run is one slice of a sharded run.
    pub shard: Option<String>,
    /// A digest of the case files that ran, so reports of different corpora
    /// are never merged.
    pub corpus: String,
    /// What the capture listener turned away during the run (requests for no
    /// case, bad tokens, non-loopback peers, connections over the cap): a
    /// probe that sent somewhere unexpected shows here.
    pub refused: Refused,
    /// Each version that is no stable release, where it came from
    /// (`tarball ./x.tgz`, `folder ../core`, `registry prerelease`,
    /// `registry snapshot`), and the release the model predicts it as, by
    /// which rule: reports say so.
    pub builds: Vec<(MastraVersion, String, PredictedAs)>,
    /// How the run used the observation store: `reuse` (stored observations
    /// judged again, new ones stored), `fresh` (everything observed, new
    /// ones stored) or `off`.
    pub store: String,
    /// The walls the code under test had (`observe::sandbox::Isolation`):
    /// the OS sandbox and the JavaScript guard, or the guard alone and why.
    pub isolation: String,
}

impl RunInfo {
    /// A run of `command` by this harness at `commit`.
    pub fn new(command: &str, commit: &str) -> RunInfo {
        RunInfo {
            harness: format!("mastra-conform {}", env!("CARGO_PKG_VERSION")),
            commit: commit.to_string(),
            command: command.to_string(),
            ..RunInfo::default()
        }
    }

    /// Record where each non-release version came from and what it is
    /// predicted as (`origin`).
    pub fn note_builds(&mut self, origin: impl Fn(MastraVersion) -> (String, PredictedAs)) {
        self.builds = self
            .versions
            .iter()
            .filter(|v| !v.is_release())
            .map(|&v| {
                let (source, predicted) = origin(v);
                (v, source, predicted)
            })
            .collect();
    }

    /// One line per non-release version: what it is, the release the model
    /// predicts it as, and, for a snapshot, by which rule.
    pub fn builds_text(&self) -> String {
        self.builds
            .iter()
            .map(|(v, source, p)| {
                let why = match p.basis {
                    Basis::Itself => String::new(),
                    _ => format!(": {}", p.because()),
                };
                format!("{v}: {source}, predicted as {}{why}\n", p.release)
            })
            .collect()
    }

    /// Results observed by this run's probes, and results judged again from
    /// the observation store, over every version.
    pub fn observed_and_reused(&self) -> (usize, usize) {
        self.stats
            .iter()
            .fold((0, 0), |(o, r), s| (o + s.cases, r + s.reused))
    }

    pub fn absorb(&mut self, stats: VersionStats) {
        if let (Some(v), Some(h)) = (stats.version, &stats.pool.hello) {
            self.resolved
                .insert(v, (h.mastra.clone(), h.zod.clone(), h.packages.clone()));
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
                .map(|(v, (m, z, packages))| {
                    let mut loaded = vec![
                        (JsString::from("@mastra/core"), Json::str(m)),
                        (JsString::from("zod"), Json::str(z)),
                    ];
                    for (name, version) in packages {
                        loaded.push((JsString::from(name.as_str()), Json::str(version)));
                    }
                    (v.to_string().into(), Json::Object(loaded))
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
                        s.version
                            .map_or_else(|| Json::str(""), MastraVersion::to_json),
                    ),
                    ("installSeconds", secs(s.install.as_secs_f64())),
                    ("installedNow", Json::Bool(s.installed_now)),
                    ("probeStarts", Json::int(i64::from(s.pool.starts))),
                    ("startupSeconds", secs(s.pool.startup_total.as_secs_f64())),
                    ("cases", Json::int(s.cases as i64)),
                    ("reused", Json::int(s.reused as i64)),
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
            ("versions", versions_json(&self.versions)),
            (
                "routes",
                Json::Array(self.routes.iter().map(|r| Json::str(r.name())).collect()),
            ),
            ("resolved", resolved),
            (
                "builds",
                Json::Array(
                    self.builds
                        .iter()
                        .map(|(v, source, p)| {
                            Json::object([
                                ("name", v.to_json()),
                                ("source", Json::str(source)),
                                ("predictedAs", p.release.to_json()),
                                ("predictedBy", Json::str(p.rule())),
                                ("because", Json::str(&p.because())),
                            ])
                        })
                        .collect(),
                ),
            ),
            (
                "seed",
                self.seed
                    .map_or(Json::Null, |s| Json::Number(s.to_string())),
            ),
            ("shard", self.shard.as_deref().map_or(Json::Null, Json::str)),
            ("corpus", Json::str(&self.corpus)),
            (
                "store",
                Json::str(if self.store.is_empty() {
                    "off"
                } else {
                    &self.store
                }),
            ),
            ("isolation", Json::str(&self.isolation)),
            ("interrupted", Json::Bool(self.interrupted)),
            (
                "listenerRefused",
                Json::object([
                    ("badToken", Json::int(self.refused.bad_token as i64)),
                    ("unknownCase", Json::int(self.refused.unknown_case as i64)),
                    ("notLoopback", Json::int(self.refused.not_loopback as i64)),
                    ("overCapacity", Json::int(self.refused.over_capacity as i64)),
                    ("malformed", Json::int(self.refused.malformed as i64)),
                    (
                        "headerTimeout",
                        Json::int(self.refused.header_timeout as i64),
                    ),
                ]),
            ),
            ("stats", Json::Array(stats)),
        ])
    }
}

fn secs(x: f64) -> Json {
    Json::Number(format!("{:.3}", if x.is_finite() { x } else { 0.0 }))
}

/// A digest of the cases (their names and case files), the same on every
/// machine for the same corpus: 16 hex digits of SHA-256, an identity check
/// for `merge`.
pub fn corpus_digest(cases: &[Case]) -> String {
    let mut h = Sha256::new();
    for c in cases {
        h.update(c.name().as_bytes());
        h.update([0]);
        h.update(c.to_json().to_compact().as_bytes());
        h.update([0]);
    }
    digest_hex(h, 16)
}
