//! `bench`: the harness end to end against its ceiling.
//!
//! The ceiling is `node-probe/ceiling.mjs`: the same cases, built by the same
//! `cases.mjs`, in one Node process against an in-process HTTP server, with
//! no process boundary, no line protocol, no Rust listener, no model and no
//! comparison. The harness runs the same workload through the whole pipeline
//! (`Session::run_version`), on 1, 2, .. `--probes` probes (the scaling
//! with the cores); its rate is the last one's. Both rates exclude the one-off import of
//! Mastra (the ceiling does not time it; for the harness it is subtracted and
//! reported on its own), so the ratio measures what the pipeline costs per
//! case.

use crate::case::Case;
use crate::js::json::Json;
use crate::observe::proc::CommandSpec;
use crate::route::Route;
use crate::run::session::Session;
use crate::versions::spec::MastraVersion;
use std::io::Write;
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct BenchResult {
    pub version: MastraVersion,
    pub cases: usize,
    pub concurrency: usize,
    /// Cases per second with 1, 2, .. `--probes` probes (start-up excluded).
    pub scaling: Vec<(usize, f64)>,
    pub install: Duration,
    pub startup: Duration,
    pub harness_seconds: f64,
    pub harness_rate: f64,
    pub ceiling_rate: f64,
    pub not_as_modelled: usize,
}

impl BenchResult {
    pub fn ratio(&self) -> f64 {
        if self.ceiling_rate > 0.0 {
            self.harness_rate / self.ceiling_rate
        } else {
            0.0
        }
    }

    pub fn to_text(&self) -> String {
        format!(
            "@mastra/core {} · {} cases · {} in flight\n\
             fixed costs: install {:.2}s (0 when cached), probe start (Node + import) {:.2}s\n\
             harness  {:>7.1} cases/s  ({:.2}s, whole pipeline: probe, listener, model, compare)\n\
             ceiling  {:>7.1} cases/s  (in-process Node loop, in-process server)\n\
             ratio    {:>7.2}  with {} probe(s) (target >= 1.6 on 2 cores)\n{}",
            self.version,
            self.cases,
            self.concurrency,
            self.install.as_secs_f64(),
            self.startup.as_secs_f64(),
            self.harness_rate,
            self.harness_seconds,
            self.ceiling_rate,
            self.ratio(),
            self.scaling.last().map_or(1, |s| s.0),
            self.scaling
                .iter()
                .map(|(n, rate)| format!(
                    "probes {n:>2}  {rate:>7.1} cases/s  ratio {:.2}\n",
                    rate / self.ceiling_rate.max(1e-9)
                ))
                .collect::<String>()
        )
    }

    pub fn to_json(&self) -> Json {
        let n = |x: f64| Json::Number(format!("{x:.3}"));
        Json::object([
            ("version", Json::str(&self.version.to_string())),
            ("cases", Json::int(self.cases as i64)),
            ("concurrency", Json::int(self.concurrency as i64)),
            ("installSeconds", n(self.install.as_secs_f64())),
            ("startupSeconds", n(self.startup.as_secs_f64())),
            ("harnessCasesPerSecond", n(self.harness_rate)),
            ("ceilingCasesPerSecond", n(self.ceiling_rate)),
            ("ratio", n(self.ratio())),
            (
                "scaling",
                Json::Array(
                    self.scaling
                        .iter()
                        .map(|(p, rate)| {
                            Json::object([
                                ("probes", Json::int(*p as i64)),
                                ("casesPerSecond", n(*rate)),
                                ("ratio", n(rate / self.ceiling_rate.max(1e-9))),
                            ])
                        })
                        .collect(),
                ),
            ),
            ("notAsModelled", Json::int(self.not_as_modelled as i64)),
        ])
    }
}

/// Run `workload` through the harness, then through the ceiling.
pub fn bench(
    session: &mut Session,
    version: MastraVersion,
    workload: &[Case],
) -> Result<BenchResult, String> {
    // Install first, so the harness's timing below holds no install.
    let began = Instant::now();
    session
        .install(version)
        .map_err(|o| o.infra_detail().unwrap_or_default())?;
    let install = began.elapsed();

    // The same workload on 1, 2, .. `--probes` probes: how the harness
    // scales with the cores (each rate without its probes' start-up).
    let budget = session.config.pool.probes.max(1);
    let mut scaling = Vec::new();
    let mut not_as_modelled = 0;
    let (mut harness_seconds, mut startup) = (0.0, Duration::ZERO);
    for probes in 1..=budget {
        session.config.pool.probes = probes;
        let mut wrong = 0;
        let t = Instant::now();
        let stats = session.run_version(version, workload, |r| {
            if !matches!(
                r.verdict,
                crate::judge::compare::Verdict::AsModelled
                    | crate::judge::compare::Verdict::Unmodelled
            ) {
                wrong += 1;
            }
        });
        let wall = t.elapsed();
        if let Some(outcome) = stats.outcome {
            session.config.pool.probes = budget;
            return Err(outcome);
        }
        // Probes start side by side: the longest start is what the wall
        // clock held, about the total over the probes that ran.
        startup = stats.pool.startup_total / stats.pool.probes.max(1);
        harness_seconds = wall.saturating_sub(startup).as_secs_f64();
        scaling.push((probes, workload.len() as f64 / harness_seconds.max(1e-9)));
        not_as_modelled = not_as_modelled.max(wrong);
    }
    session.config.pool.probes = budget;

    let ceiling_rate = ceiling_rate(session, version, workload)?;
    Ok(BenchResult {
        version,
        cases: workload.len(),
        concurrency: session.config.pool.concurrency,
        scaling: scaling.clone(),
        install,
        startup,
        harness_seconds,
        harness_rate: scaling.last().map_or(0.0, |s| s.1),
        ceiling_rate,
        not_as_modelled,
    })
}

/// The harness's rate on each route: the same workload with every case on
/// that route, through the whole pipeline, start-up subtracted. The ceiling
/// speaks only the OpenAI-compatible format, so routes are compared with
/// each other (and with `openai-compatible`), not with the ceiling.
pub fn route_rates(
    session: &mut Session,
    version: MastraVersion,
    workload: &[Case],
    routes: &[Route],
) -> Result<Vec<RouteRate>, String> {
    session
        .install(version)
        .map_err(|o| o.infra_detail().unwrap_or_default())?;
    let mut out = Vec::new();
    for &route in routes {
        let cases: Vec<Case> = workload.iter().map(|c| c.on_route(route)).collect();
        let mut not_as_modelled = 0;
        let t = Instant::now();
        let stats = session.run_version(version, &cases, |r| {
            if !matches!(
                r.verdict,
                crate::judge::compare::Verdict::AsModelled
                    | crate::judge::compare::Verdict::Unmodelled
                    | crate::judge::compare::Verdict::KnownIssue
                    | crate::judge::compare::Verdict::ProviderRejects
            ) {
                not_as_modelled += 1;
            }
        });
        let wall = t.elapsed();
        if let Some(outcome) = stats.outcome {
            return Err(outcome);
        }
        let seconds = wall.saturating_sub(stats.pool.startup_total).as_secs_f64();
        out.push(RouteRate {
            route,
            cases: cases.len(),
            seconds,
            rate: cases.len() as f64 / seconds.max(1e-9),
            startup: stats.pool.startup_total,
            not_as_modelled,
        });
    }
    Ok(out)
}

/// One route's figures in `bench --route`.
#[derive(Debug, Clone)]
pub struct RouteRate {
    pub route: Route,
    pub cases: usize,
    pub seconds: f64,
    pub rate: f64,
    pub startup: Duration,
    pub not_as_modelled: usize,
}

/// The route table: each route's rate and its ratio to `openai-compatible`
/// (the target is >= 0.80).
pub fn route_table(rates: &[RouteRate]) -> String {
    let base = rates
        .iter()
        .find(|r| r.route == Route::OpenAiCompatible)
        .map(|r| r.rate);
    let mut out = String::from(
        "route               cases/s   ratio to openai-compatible   not as modelled\n",
    );
    for r in rates {
        let ratio = base.map_or_else(
            || "-".to_string(),
            |b| format!("{:.2}", r.rate / b.max(1e-9)),
        );
        out.push_str(&format!(
            "{:<18} {:>8.1}   {:>26}   {:>15}\n",
            r.route.name(),
            r.rate,
            ratio,
            r.not_as_modelled
        ));
    }
    out
}

pub fn route_rates_json(rates: &[RouteRate]) -> Json {
    let n = |x: f64| Json::Number(format!("{x:.3}"));
    Json::Array(
        rates
            .iter()
            .map(|r| {
                Json::object([
                    ("route", Json::str(r.route.name())),
                    ("cases", Json::int(r.cases as i64)),
                    ("seconds", n(r.seconds)),
                    ("casesPerSecond", n(r.rate)),
                    ("startupSeconds", n(r.startup.as_secs_f64())),
                    ("notAsModelled", Json::int(r.not_as_modelled as i64)),
                ])
            })
            .collect(),
    )
}

/// Cases per second of `node-probe/ceiling.mjs` on `cases`: the same cases
/// in one Node process, with no process boundary, line protocol, Rust
/// listener, model or comparison. `bench` and `fuzz --ceiling` both use it.
pub fn ceiling_rate(
    session: &mut Session,
    version: MastraVersion,
    cases: &[Case],
) -> Result<f64, String> {
    let dir = session
        .install(version)
        .map_err(|o| o.infra_detail().unwrap_or_default())?;
    let node = session.node()?;
    let mut jsonl = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
    for c in cases {
        writeln!(jsonl, "{}", c.to_json().to_compact()).map_err(|e| e.to_string())?;
    }
    let out = CommandSpec::new(&node.path)
        .arg(session.config.probe_dir.join("ceiling.mjs"))
        .arg(&dir)
        .arg(jsonl.path())
        .arg(session.config.pool.concurrency.to_string())
        .scrubbed()
        .timeout(Duration::from_secs(3600))
        .run_capture()
        .map_err(|e| format!("the ceiling run failed: {e}"))?;
    let line = String::from_utf8_lossy(&out.stdout);
    let v = Json::parse(line.trim()).map_err(|e| format!("the ceiling printed {line:?}: {e}"))?;
    v.get("casesPerSecond")
        .and_then(Json::as_f64)
        .ok_or_else(|| "the ceiling printed no rate".to_string())
}
