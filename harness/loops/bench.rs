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
//!
//! Out: a `BenchResult` and `RouteRate`s, as text and as the `bench --json`
//! document, and `figures_markdown`, which renders that document (with the
//! `Provenance` it carries) as `docs/figures/bench.md`.

use crate::case::Case;
use crate::js::json::Json;
use crate::observe::cpu::{CpuMeter, CpuTally};
use crate::observe::proc::CommandSpec;
use crate::route::Route;
use crate::run::session::Session;
use crate::version::spec::MastraVersion;
use std::io::Write;
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct BenchResult {
    pub version: MastraVersion,
    pub cases: usize,
    pub concurrency: usize,
    /// Cases per second with 1, 2, .. `--probes` probes (start-up excluded).
    pub scaling: Vec<(usize, f64)>,
    /// For each row of `scaling`, the cores its run kept busy: the CPU
    /// seconds of the harness and everything under it from the first
    /// result to the last, over that wall time. One probe's figure bounds
    /// what more probes can gain: the machine's cores over it.
    pub cores_busy: Vec<f64>,
    pub install: Duration,
    pub startup: Duration,
    pub harness_seconds: f64,
    pub harness_rate: f64,
    pub ceiling_rate: f64,
    /// The ceiling's CPU seconds a case (every thread of its one process):
    /// what a case costs on the cores, where `1 / ceiling_rate` is what it
    /// costs on the clock.
    pub ceiling_cpu: f64,
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
            (
                "ceilingCpuSecondsPerCase",
                Json::Number(format!("{:.6}", self.ceiling_cpu)),
            ),
            ("ratio", n(self.ratio())),
            (
                "scaling",
                Json::Array(
                    self.scaling
                        .iter()
                        .zip(&self.cores_busy)
                        .map(|((p, rate), cores)| {
                            Json::object([
                                ("probes", Json::int(*p as i64)),
                                ("casesPerSecond", n(*rate)),
                                ("ratio", n(rate / self.ceiling_rate.max(1e-9))),
                                ("coresBusy", n(*cores)),
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
    let mut cores_busy = Vec::new();
    let mut not_as_modelled = 0;
    let (mut harness_seconds, mut startup) = (0.0, Duration::ZERO);
    for probes in 1..=budget {
        session.config.pool.probes = probes;
        let mut wrong = 0;
        let t = Instant::now();
        // Counted from the first result, as the rate leaves the probes'
        // start out.
        let meter = CpuMeter::start();
        let mut first: Option<(Instant, CpuTally)> = None;
        let stats = session.run_version(version, workload, |r| {
            if first.is_none() {
                first = Some((Instant::now(), meter.now()));
            }
            if !matches!(
                r.verdict,
                crate::judge::compare::Verdict::AsModelled
                    | crate::judge::compare::Verdict::Unmodelled
            ) {
                wrong += 1;
            }
        });
        let wall = t.elapsed();
        let tally = meter.finish();
        if let Some(outcome) = stats.outcome {
            session.config.pool.probes = budget;
            return Err(outcome);
        }
        let busy = first.map_or(0.0, |(at, base)| {
            tally.since(&base).total() / at.elapsed().as_secs_f64().max(1e-9)
        });
        cores_busy.push(busy);
        // Probes start side by side: the longest start is what the wall
        // clock held, about the total over the probes that ran.
        startup = stats.pool.startup_total / stats.pool.probes.max(1);
        harness_seconds = wall.saturating_sub(startup).as_secs_f64();
        scaling.push((probes, workload.len() as f64 / harness_seconds.max(1e-9)));
        not_as_modelled = not_as_modelled.max(wrong);
    }
    session.config.pool.probes = budget;

    let ceiling = ceiling(session, version, workload)?;
    Ok(BenchResult {
        version,
        cases: workload.len(),
        concurrency: session.config.pool.concurrency,
        scaling: scaling.clone(),
        cores_busy,
        install,
        startup,
        harness_seconds,
        harness_rate: scaling.last().map_or(0.0, |s| s.1),
        ceiling_rate: ceiling.rate,
        ceiling_cpu: ceiling.cpu_per_case,
        not_as_modelled,
    })
}

/// How many plain fuzz cases `bench` runs beside the corpus.
pub const PLAIN_FUZZ_CASES: usize = 1_500;

/// The first `n` cases of fuzz seed 1 on the default route that start no
/// MCP server and wait on no retry back-off: many small cases, where what
/// the pipeline adds per case (the process boundary, the listener, the
/// model, the comparison) weighs most against the bare loop.
pub fn plain_fuzz(n: usize) -> Vec<Case> {
    (0u64..)
        .map(|i| crate::loops::fuzz::gen::generate(1, i))
        .filter(|c| c.sources.mcp.is_none() && !c.waits_on_retries())
        .take(n)
        .collect()
}

/// How long the model takes to predict one case of `n` tools, for each `n`
/// of `sizes`: the cost a case's size adds, which must stay linear
/// (100,000 tools in under 2 s on the version `version`).
pub fn model_scale(version: MastraVersion, sizes: &[usize]) -> Result<Vec<(usize, f64)>, String> {
    let mut out = Vec::new();
    for &n in sizes {
        // Keys that formatTools renames (a dot each), so every key takes
        // the rewrite's whole path: lookups, a define and a delete.
        let tools: Vec<Json> = (0..n).map(|i| Json::str(&format!("tool.{i}"))).collect();
        let case = Json::object([
            ("about", Json::str("model scale")),
            ("tools", Json::Array(tools)),
        ]);
        let case = Case::from_json(std::path::Path::new("model-scale.json"), case)
            .map_err(|e| e.to_string())?;
        let began = Instant::now();
        let prediction = crate::model::predict(&case, version);
        let took = began.elapsed().as_secs_f64();
        drop(prediction);
        out.push((n, took));
    }
    Ok(out)
}

pub fn model_scale_text(scale: &[(usize, f64)]) -> String {
    let mut out = String::from("model    tools  seconds (one case, predicted)\n");
    for (n, s) in scale {
        out.push_str(&format!("       {n:>7}  {s:>7.3}\n"));
    }
    out
}

pub fn model_scale_json(scale: &[(usize, f64)]) -> Json {
    Json::Array(
        scale
            .iter()
            .map(|(n, s)| {
                Json::object([
                    ("tools", Json::int(*n as i64)),
                    ("seconds", Json::Number(format!("{s:.3}"))),
                ])
            })
            .collect(),
    )
}

/// The harness's rate on each route: `workload` with every case moved to
/// that route, through the whole pipeline, start-up subtracted; the routes
/// are compared with each other (and with `openai-compatible`).
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
    ceiling(session, version, cases).map(|c| c.rate)
}

/// What the ceiling's run of a workload measured.
#[derive(Debug, Clone, Copy)]
pub struct Ceiling {
    /// Cases per second.
    pub rate: f64,
    /// CPU seconds a case, every thread of its process.
    pub cpu_per_case: f64,
}

/// `node-probe/ceiling.mjs` on `cases`: its rate and its CPU a case.
pub fn ceiling(
    session: &mut Session,
    version: MastraVersion,
    cases: &[Case],
) -> Result<Ceiling, String> {
    let dir = session
        .install(version)
        .map_err(|o| o.infra_detail().unwrap_or_default())?;
    let node = session
        .node()
        .map_err(|e| crate::outcome::error_chain(&e))?;
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
    let number = |k: &str| {
        v.get(k)
            .and_then(Json::as_f64)
            .ok_or_else(|| format!("the ceiling printed no {k}: {line:?}"))
    };
    Ok(Ceiling {
        rate: number("casesPerSecond")?,
        cpu_per_case: number("cpuSeconds")? / cases.len().max(1) as f64,
    })
}

/// What the OS sandbox costs: the same workload run with probes in the
/// sandbox and without, side by side (each twice, alternating, the better
/// of each kept, so a burst of load on a shared machine weighs on neither).
#[derive(Debug, Clone)]
pub struct SandboxCost {
    /// The isolation the sandboxed runs had (`observe::sandbox::Isolation`).
    pub isolation: String,
    pub cases: usize,
    /// Per probe start, seconds: Node's start and Mastra's import.
    pub start_sandboxed: f64,
    pub start_plain: f64,
    /// Per case, seconds, start-up excluded.
    pub case_sandboxed: f64,
    pub case_plain: f64,
    /// Wall seconds of the whole workload, start-up included.
    pub wall_sandboxed: f64,
    pub wall_plain: f64,
}

impl SandboxCost {
    /// The sandbox's share of a sandboxed run of the workload: what it adds
    /// over the plain run, over the sandboxed run's wall time.
    pub fn share(&self) -> f64 {
        (self.wall_sandboxed - self.wall_plain) / self.wall_sandboxed.max(1e-9)
    }

    pub fn to_text(&self) -> String {
        format!(
            "sandbox ({}): probe start {:.3}s vs {:.3}s without; per case {:.2}ms vs {:.2}ms; \
             {} cases {:.2}s vs {:.2}s: {:+.1}% of the run\n",
            self.isolation,
            self.start_sandboxed,
            self.start_plain,
            self.case_sandboxed * 1e3,
            self.case_plain * 1e3,
            self.cases,
            self.wall_sandboxed,
            self.wall_plain,
            self.share() * 100.0
        )
    }

    pub fn to_json(&self) -> Json {
        let n = |x: f64| Json::Number(format!("{x:.6}"));
        Json::object([
            ("isolation", Json::str(&self.isolation)),
            ("cases", Json::int(self.cases as i64)),
            ("startSandboxedSeconds", n(self.start_sandboxed)),
            ("startPlainSeconds", n(self.start_plain)),
            ("caseSandboxedSeconds", n(self.case_sandboxed)),
            ("casePlainSeconds", n(self.case_plain)),
            ("wallSandboxedSeconds", n(self.wall_sandboxed)),
            ("wallPlainSeconds", n(self.wall_plain)),
            ("share", n(self.share())),
        ])
    }
}

/// Run `workload` with and without the OS sandbox (`SandboxCost`). An
/// error when this machine has no sandbox: there is nothing to measure.
pub fn sandbox_cost(
    session: &mut Session,
    version: MastraVersion,
    workload: &[Case],
) -> Result<SandboxCost, String> {
    let isolation = crate::observe::sandbox::isolation();
    if !isolation.is_sandboxed() {
        return Err(format!(
            "no sandbox cost to measure: {}",
            isolation.describe()
        ));
    }
    let was = session.config.sandboxed;
    // (start per probe, per case, wall), the best of each side.
    let mut best = [(f64::MAX, f64::MAX, f64::MAX); 2];
    for round in 0..4 {
        let side = round % 2;
        session.config.sandboxed = side == 0;
        let t = Instant::now();
        let stats = session.run_version(version, workload, |_| {});
        let wall = t.elapsed();
        if let Some(outcome) = stats.outcome {
            session.config.sandboxed = was;
            return Err(outcome);
        }
        let start = stats.pool.startup_total.as_secs_f64() / f64::from(stats.pool.starts.max(1));
        let startup = stats.pool.startup_total / stats.pool.probes.max(1);
        let per_case = wall.saturating_sub(startup).as_secs_f64() / workload.len().max(1) as f64;
        let b = &mut best[side];
        *b = (
            b.0.min(start),
            b.1.min(per_case),
            b.2.min(wall.as_secs_f64()),
        );
    }
    session.config.sandboxed = was;
    Ok(SandboxCost {
        isolation: isolation.describe(),
        cases: workload.len(),
        start_sandboxed: best[0].0,
        start_plain: best[1].0,
        case_sandboxed: best[0].1,
        case_plain: best[1].1,
        wall_sandboxed: best[0].2,
        wall_plain: best[1].2,
    })
}

/// `docs/figures/bench.md`: the figures of a `bench --json` document, with
/// the provenance it carries (`measured`). Read from the JSON rather than
/// from `BenchResult`, so the Markdown says exactly what the JSON says. An
/// error names the missing field.
pub fn figures_markdown(report: &Json) -> Result<String, String> {
    let (field, text) = (number_at, text_at);
    let measured = crate::loops::provenance::Provenance::from_json(
        report.get("measured").ok_or("measured: missing")?,
    )?;
    let f = |k: &str| field(report, "", k);
    let mut out = String::from(
        "# Bench: the harness against its ceiling\n\n\
         Written by `mastra-conform bench --markdown FILE` (`make bench` writes this file); \
         run it again rather than editing it. The figures are one run's: on a shared machine \
         they move with the load, so compare the ratios within this file, which were measured \
         side by side.\n\n",
    );
    out.push_str(&measured.markdown());

    let ceiling = f("ceilingCasesPerSecond")?;
    // Documents written before it was measured lack it.
    let ceiling_cpu = report
        .get("ceilingCpuSecondsPerCase")
        .map(|_| f("ceilingCpuSecondsPerCase"))
        .transpose()?;
    out.push_str(&format!(
        "\n## The corpus through the whole pipeline\n\n\
         @mastra/core {}, {} cases (the corpus less the cases that wait on retry back-off, on \
         every route of `--route`, times `--repeat`), {} in flight per probe. Install {:.2} s (0 when cached); \
         probe start (Node and the import of Mastra) {:.2} s, left out of every rate.\n\n\
         | | cases/s | ratio to the ceiling | cores busy |\n|---|---:|---:|---:|\n",
        text(report, "", "version")?,
        f("cases")?,
        f("concurrency")?,
        f("installSeconds")?,
        f("startupSeconds")?,
    ));
    out.push_str(&scaling_rows(report, "")?);
    out.push_str(&format!(
        "| ceiling (`node-probe/ceiling.mjs`: the same cases in one Node process, no harness) | {ceiling:.1} | 1.00 | {} |\n{}\n\
         Results other than as-modelled or unmodelled (known issues and provider rejections among \
         them): {}.\n",
        ceiling_cpu.map_or(String::new(), |c| format!("{:.2}", c * ceiling)),
        scaling_bound(report, measured.cores),
        f("notAsModelled")?
    ));

    if let Some(p) = report.get("plainFuzz") {
        out.push_str(&plain_fuzz_markdown(p)?);
    }
    if let Some(routes) = report.get("routes") {
        out.push_str(&routes_markdown(routes)?);
    }
    if let Some(m) = report.get("matrix") {
        out.push_str(&matrix_markdown(m, (ceiling, ceiling_cpu), measured.cores)?);
    }
    if let Some(c) = report.get("cpu") {
        out.push_str(&crate::loops::cpu_cost::markdown(c)?);
    }
    if let Some(s) = report.get("sandbox") {
        out.push_str(&sandbox_markdown(s)?);
    }
    if let Some(scale) = report.get("modelScale").and_then(Json::as_array) {
        out.push_str(&scale_markdown(scale)?);
    }
    Ok(out)
}

/// A `BenchResult::to_json` document's `scaling` as table rows, one per
/// probe count; errors name the field as `AT` + `scaling[I].K`.
fn scaling_rows(doc: &Json, at: &str) -> Result<String, String> {
    let scaling = doc
        .get("scaling")
        .and_then(Json::as_array)
        .ok_or_else(|| format!("{at}scaling: missing or not an array"))?;
    let mut out = String::new();
    for (i, row) in scaling.iter().enumerate() {
        let at = format!("{at}scaling[{i}].");
        let probes = number_at(row, &at, "probes")?;
        // Documents written before the figure was measured lack it.
        let busy = row
            .get("coresBusy")
            .map(|_| number_at(row, &at, "coresBusy").map(|c| format!("{c:.2}")))
            .transpose()?
            .unwrap_or_else(|| "not measured".into());
        out.push_str(&format!(
            "| harness, {probes} probe{} | {:.1} | {:.2} | {busy} |\n",
            if probes == 1.0 { "" } else { "s" },
            number_at(row, &at, "casesPerSecond")?,
            number_at(row, &at, "ratio")?,
        ));
    }
    Ok(out)
}

/// What one probe's busy cores leave more probes to gain, on `cores`:
/// a sentence for the figures, empty where the rows do not say.
fn scaling_bound(doc: &Json, cores: usize) -> String {
    let rows = doc.get("scaling").and_then(Json::as_array);
    let busy = |i: usize| {
        let row = rows?.get(i)?;
        row.get("coresBusy")?.as_f64()
    };
    let (Some(one), Some(rate1), Some(rate2)) = (
        busy(0),
        rows.and_then(|r| r.first()?.get("casesPerSecond")?.as_f64()),
        rows.and_then(|r| r.get(1)?.get("casesPerSecond")?.as_f64()),
    ) else {
        return String::new();
    };
    format!(
        "\nOne probe's run already keeps {one:.2} of the {cores} cores busy (the probe's own \
         threads, V8's garbage collector and compiler among them, and the harness beside it), \
         so more probes can gain at most {:.2} times its rate; two probes gave {:.2} times it.\n",
        cores as f64 / one.max(1e-9),
        rate2 / rate1.max(1e-9),
    )
}

/// The figures' section for the plain fuzz cases: the harness on 1, 2, ..
/// probes against the bare loop on the same cases.
fn plain_fuzz_markdown(p: &Json) -> Result<String, String> {
    let at = "plainFuzz.";
    let ceiling = number_at(p, at, "ceilingCasesPerSecond")?;
    let mut out = format!(
        "\n## Plain fuzz cases against the bare loop\n\n\
         The first {} cases of fuzz seed 1 that start no MCP server, on the default route, \
         through the whole pipeline and through the ceiling (the bare single-process loop), \
         probe start left out.\n\n\
         | | cases/s | ratio to the bare loop | cores busy |\n|---|---:|---:|---:|\n",
        number_at(p, at, "cases")?
    );
    out.push_str(&scaling_rows(p, at)?);
    out.push_str(&format!("| the bare loop | {ceiling:.1} | 1.00 | |\n"));
    Ok(out)
}

/// The figures' "Each route" section: each route's rate against
/// `openai-compatible`'s.
fn routes_markdown(routes: &Json) -> Result<String, String> {
    let (field, text) = (number_at, text_at);
    let mut out = String::new();
    let routes = routes.as_array().ok_or("routes: not an array")?;
    let rate = |r: &Json, at: &str| field(r, at, "casesPerSecond");
    let base = routes
        .iter()
        .find(|r| text(r, "", "route").ok().as_deref() == Some(Route::OpenAiCompatible.name()))
        .map(|r| rate(r, "routes[openai-compatible]."))
        .transpose()?;
    out.push_str(
        "\n## Each route\n\n\
         The corpus (times `--repeat`) with every case moved to one route, through the whole \
         pipeline, probe start left out, each compared with `openai-compatible`.\n\n\
         | route | cases | cases/s | ratio to openai-compatible | not as expected |\n\
         |---|---:|---:|---:|---:|\n",
    );
    for (i, r) in routes.iter().enumerate() {
        let at = format!("routes[{i}].");
        let own = rate(r, &at)?;
        out.push_str(&format!(
            "| {} | {} | {own:.1} | {} | {} |\n",
            text(r, &at, "route")?,
            field(r, &at, "cases")?,
            base.map_or_else(|| "-".into(), |b| format!("{:.2}", own / b.max(1e-9))),
            field(r, &at, "notAsModelled")?,
        ));
    }
    Ok(out)
}

/// The figures' matrix section: cold and warm, against the floor the
/// ceiling (its rate, and its CPU a case where measured) sets on `cores`
/// cores, and what the observation store saves.
fn matrix_markdown(
    m: &Json,
    (ceiling, cpu): (f64, Option<f64>),
    cores: usize,
) -> Result<String, String> {
    let (field, text) = (number_at, text_at);
    let mut out = String::new();
    let at = "matrix.";
    let per: &[Json] = m
        .get("perVersion")
        .and_then(Json::as_array)
        .ok_or("matrix.perVersion: missing or not an array")?;
    let installs = per
        .iter()
        .enumerate()
        .map(|(i, v)| field(v, &format!("matrix.perVersion[{i}]."), "installSeconds"))
        .sum::<Result<f64, String>>()?;
    let mb = |bytes: f64| bytes / 1e6;
    // What the ceiling would take for the same results on every core. Its
    // CPU a case is the cost the cores can share; its rate also holds the
    // cores its collector and compiler kept busy beside the loop, so the
    // floor from the rate (every core as fast as its one process) is lower
    // than any run of its work can reach, and is kept beside it.
    let cores = cores.max(1);
    let (results, warm) = (field(m, at, "results")?, field(m, at, "warmSeconds")?);
    let by_rate = results / ceiling.max(1e-9) / cores as f64;
    let floors = match cpu {
        Some(cpu) => {
            let floor = results * cpu / cores as f64;
            format!(
                "| its floor: results × the ceiling's {:.2} ms of CPU a case ÷ {cores} cores | {floor:.1} s |\n\
                 | warm ÷ floor | {:.2} |\n\
                 | the floor as if the ceiling kept one core busy: results ÷ its {ceiling:.1} cases/s ÷ {cores} cores | {by_rate:.1} s |\n\
                 | warm ÷ that floor | {:.2} |\n",
                cpu * 1e3,
                warm / floor.max(1e-9),
                warm / by_rate.max(1e-9),
            )
        }
        None => format!(
            "| its floor: results ÷ the ceiling's {ceiling:.1} cases/s ÷ {cores} cores | {by_rate:.1} s |\n\
             | warm ÷ floor | {:.2} |\n",
            warm / by_rate.max(1e-9),
        ),
    };
    out.push_str(&format!(
        "\n## The matrix from an empty cache, then warm\n\n\
         `--matrix-versions`: {}, {} results per run, run first from an empty cache \
         of its own (sharing only the pinned Node and pnpm), then again on that cache.\n\n\
         | | |\n|---|---:|\n\
         | cold (installs included) | {:.1} s |\n\
         | installs, summed | {installs:.1} s |\n\
         | warm | {warm:.1} s |\n\
         {floors}\
         | disk, hard links counted once | {:.0} MB |\n\
         | of which the shared store | {:.0} MB |\n\
         | results that diverged or could not run | {} |\n\n\
         | version | install s | MB only it holds |\n|---|---:|---:|\n",
        plural(field(m, at, "versions")?, "version"),
        field(m, at, "results")?,
        field(m, at, "coldSeconds")?,
        mb(field(m, at, "diskBytes")?),
        mb(field(m, at, "storeBytes")?),
        field(m, at, "notAsExpected")?,
    ));
    for (i, v) in per.iter().enumerate() {
        let at = format!("matrix.perVersion[{i}].");
        out.push_str(&format!(
            "| {} | {:.1} | {:.1} |\n",
            text(v, &at, "version")?,
            field(v, &at, "installSeconds")?,
            mb(field(v, &at, "ownBytes")?),
        ));
    }
    // The observation store's runs, in a bench that measured them.
    if let Some(rerun) = m.get("rerunSeconds").and_then(Json::as_f64) {
        let warm = field(m, at, "warmSeconds")?.max(1e-9);
        let mut rows = format!(
            "\nWith the observation store (the warm run stored {:.1} MB of observations):\n\n\
             | run | s | × warm |\n|---|---:|---:|\n\
             | unchanged re-run ({} observed, {} reused, verdicts {}) | {rerun:.1} | {:.3} |\n",
            mb(field(m, at, "observationBytes")?),
            field(m, at, "rerunObserved")?,
            field(m, at, "rerunReused")?,
            if m.get("rerunIdentical").and_then(Json::as_bool) == Some(true) {
                "identical"
            } else {
                "different"
            },
            rerun / warm,
        );
        if let Some(v) = m.get("newVersion").and_then(Json::as_str) {
            let secs = field(m, at, "newVersionSeconds")?;
            rows.push_str(&format!(
                "| one new version ({} observed, the rest reused) | {secs:.1} | {:.3} |\n",
                v.to_lossy(),
                secs / warm
            ));
        }
        out.push_str(&rows);
    }
    Ok(out)
}

fn scale_markdown(scale: &[Json]) -> Result<String, String> {
    let mut out = String::new();
    out.push_str(
        "\n## The model's time on one case of many tools\n\n\
         | tools | seconds |\n|---:|---:|\n",
    );
    for (i, row) in scale.iter().enumerate() {
        let at = format!("modelScale[{i}].");
        out.push_str(&format!(
            "| {} | {:.3} |\n",
            number_at(row, &at, "tools")?,
            number_at(row, &at, "seconds")?
        ));
    }
    Ok(out)
}

/// The section of `figures_markdown` for `SandboxCost::to_json`.
fn sandbox_markdown(s: &Json) -> Result<String, String> {
    let f = |k: &str| number_at(s, "sandbox.", k);
    Ok(format!(
        "\n## What the OS sandbox costs\n\n\
         The workload ({} cases) with probes in the sandbox ({}) and without, alternating, \
         twice each, the better of each kept.\n\n\
         | | sandboxed | without | |\n|---|---:|---:|---:|\n\
         | probe start (Node and Mastra's import) | {:.3} s | {:.3} s | {:+.3} s |\n\
         | per case, start left out | {:.2} ms | {:.2} ms | {:+.2} ms |\n\
         | the whole workload | {:.2} s | {:.2} s | {:+.1} % of the run |\n",
        f("cases")?,
        text_at(s, "sandbox.", "isolation")?,
        f("startSandboxedSeconds")?,
        f("startPlainSeconds")?,
        f("startSandboxedSeconds")? - f("startPlainSeconds")?,
        f("caseSandboxedSeconds")? * 1e3,
        f("casePlainSeconds")? * 1e3,
        (f("caseSandboxedSeconds")? - f("casePlainSeconds")?) * 1e3,
        f("wallSandboxedSeconds")?,
        f("wallPlainSeconds")?,
        f("share")? * 100.0,
    ))
}

/// `1 version`, `2 versions`.
fn plural(n: f64, noun: &str) -> String {
    if n == 1.0 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The number at `v.k`; the error names the field as `AT` + `k`.
fn number_at(v: &Json, at: &str, k: &str) -> Result<f64, String> {
    v.get(k)
        .and_then(Json::as_f64)
        .ok_or_else(|| format!("{at}{k}: missing or not a number"))
}

/// The string at `v.k`; the error names the field as `AT` + `k`.
fn text_at(v: &Json, at: &str, k: &str) -> Result<String, String> {
    v.get(k)
        .and_then(Json::as_str)
        .map(crate::js::string::JsString::to_lossy)
        .ok_or_else(|| format!("{at}{k}: missing or not a string"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `bench --json` document as `bench --route all --matrix-versions`
    /// writes it (figures from a real run, two routes and two versions kept).
    const FIXTURE: &str = r#"{
      "version": "1.67.0", "cases": 1150, "concurrency": 8,
      "installSeconds": 0.000, "startupSeconds": 1.234,
      "harnessCasesPerSecond": 20.800, "ceilingCasesPerSecond": 24.300,
      "ratio": 0.856,
      "scaling": [
        {"probes": 1, "casesPerSecond": 13.600, "ratio": 0.560},
        {"probes": 2, "casesPerSecond": 20.800, "ratio": 0.856}
      ],
      "notAsModelled": 0,
      "routes": [
        {"route": "openai-compatible", "cases": 1150, "seconds": 45.4, "casesPerSecond": 25.300, "startupSeconds": 1.0, "notAsModelled": 0},
        {"route": "groq", "cases": 1150, "seconds": 40.6, "casesPerSecond": 28.300, "startupSeconds": 1.0, "notAsModelled": 2}
      ],
      "matrix": {
        "versions": 2, "results": 1262, "coldSeconds": 303.700, "warmSeconds": 283.200,
        "diskBytes": 255000000, "storeBytes": 23000000, "notAsExpected": 0,
        "perVersion": [
          {"version": "1.60.0", "installSeconds": 5.300, "ownBytes": 15000000},
          {"version": "1.67.0", "installSeconds": 2.500, "ownBytes": 35000000}
        ]
      },
      "measured": {"date": "2026-11-30 21:40 UTC",
        "command": "mastra-conform bench --mastra-version 1.67.0 --repeat 10 --route all --matrix-versions '>=1.60.0 <1.70.0'",
        "commit": "8951d87", "cores": 2, "loadAverage": "1.20 1.50 1.70"}
    }"#;

    #[test]
    fn the_figures_file_says_what_the_bench_json_says() {
        let md = figures_markdown(&Json::parse(FIXTURE).unwrap()).unwrap();
        for line in [
            "| date | 2026-11-30 21:40 UTC |",
            "| command | `mastra-conform bench --mastra-version 1.67.0 --repeat 10 --route all --matrix-versions '>=1.60.0 <1.70.0'` |",
            "| commit | `8951d87` |",
            "| cores | 2 |",
            "| load average at the start (1, 5, 15 min) | 1.20 1.50 1.70 |",
            "@mastra/core 1.67.0, 1150 cases",
            "probe start (Node and the import of Mastra) 1.23 s",
            "| harness, 1 probe | 13.6 | 0.56 |",
            "| harness, 2 probes | 20.8 | 0.86 |",
            "| 24.3 | 1.00 |",
            "| openai-compatible | 1150 | 25.3 | 1.00 | 0 |",
            "| groq | 1150 | 28.3 | 1.12 | 2 |",
            "2 versions, 1262 results per run",
            "| cold (installs included) | 303.7 s |",
            "| installs, summed | 7.8 s |",
            "| warm | 283.2 s |",
            "| its floor: results ÷ the ceiling's 24.3 cases/s ÷ 2 cores | 26.0 s |",
            "| warm ÷ floor | 10.91 |",
            "| disk, hard links counted once | 255 MB |",
            "| 1.67.0 | 2.5 | 35.0 |",
        ] {
            assert!(md.contains(line), "no {line:?} in:\n{md}");
        }
    }

    #[test]
    fn the_cores_one_probe_keeps_busy_bound_what_two_can_gain() {
        let md = figures_markdown(&Json::parse(FIXTURE).unwrap()).unwrap();
        assert!(
            md.contains("| harness, 1 probe | 13.6 | 0.56 | not measured |"),
            "{md}"
        );
        assert!(!md.contains("keeps"), "{md}");
        let with = FIXTURE
            .replace(
                r#""ratio": 0.560}"#,
                r#""ratio": 0.560, "coresBusy": 1.250}"#,
            )
            .replace(
                r#""ratio": 0.856}"#,
                r#""ratio": 0.856, "coresBusy": 1.970}"#,
            );
        let md = figures_markdown(&Json::parse(&with).unwrap()).unwrap();
        for line in [
            "| harness, 1 probe | 13.6 | 0.56 | 1.25 |",
            "| harness, 2 probes | 20.8 | 0.86 | 1.97 |",
            "keeps 1.25 of the 2 cores busy",
            "can gain at most 1.60 times its rate; two probes gave 1.53 times it.",
        ] {
            assert!(md.contains(line), "no {line:?} in:\n{md}");
        }
        let bad = with.replace(r#""coresBusy": 1.250"#, r#""coresBusy": "many""#);
        let err = figures_markdown(&Json::parse(&bad).unwrap()).unwrap_err();
        assert_eq!(err, "scaling[0].coresBusy: missing or not a number");
    }

    #[test]
    fn the_matrix_floor_is_the_ceilings_cpu_a_case_where_measured() {
        let with = FIXTURE.replace(
            r#""ceilingCasesPerSecond": 24.300,"#,
            r#""ceilingCasesPerSecond": 24.300, "ceilingCpuSecondsPerCase": 0.060000,"#,
        );
        let md = figures_markdown(&Json::parse(&with).unwrap()).unwrap();
        for line in [
            "| ceiling (`node-probe/ceiling.mjs`: the same cases in one Node process, no harness) | 24.3 | 1.00 | 1.46 |",
            // 1262 × 0.06 ÷ 2 = 37.86; 283.2 ÷ 37.86 = 7.48.
            "| its floor: results × the ceiling's 60.00 ms of CPU a case ÷ 2 cores | 37.9 s |",
            "| warm ÷ floor | 7.48 |",
            "| the floor as if the ceiling kept one core busy: results ÷ its 24.3 cases/s ÷ 2 cores | 26.0 s |",
            "| warm ÷ that floor | 10.91 |",
        ] {
            assert!(md.contains(line), "no {line:?} in:\n{md}");
        }
        let bad = with.replace("0.060000", "\"fast\"");
        let err = figures_markdown(&Json::parse(&bad).unwrap()).unwrap_err();
        assert_eq!(err, "ceilingCpuSecondsPerCase: missing or not a number");
    }

    #[test]
    fn the_store_runs_appear_when_measured_as_ratios_of_the_warm_run() {
        let md = figures_markdown(&Json::parse(FIXTURE).unwrap()).unwrap();
        assert!(!md.contains("With the observation store"), "{md}");
        let with = FIXTURE.replace(
            r#""notAsExpected": 0,"#,
            r#""notAsExpected": 0, "rerunSeconds": 2.832, "rerunObserved": 0,
               "rerunReused": 1262, "rerunIdentical": true, "newVersion": "1.67.0",
               "newVersionSeconds": 141.6, "observationBytes": 180000,"#,
        );
        let md = figures_markdown(&Json::parse(&with).unwrap()).unwrap();
        for line in [
            "the warm run stored 0.2 MB of observations",
            "| unchanged re-run (0 observed, 1262 reused, verdicts identical) | 2.8 | 0.010 |",
            "| one new version (1.67.0 observed, the rest reused) | 141.6 | 0.500 |",
        ] {
            assert!(md.contains(line), "no {line:?} in:\n{md}");
        }
    }

    #[test]
    fn one_version_is_singular() {
        let one = FIXTURE.replace(r#""versions": 2,"#, r#""versions": 1,"#);
        let md = figures_markdown(&Json::parse(&one).unwrap()).unwrap();
        assert!(md.contains("`--matrix-versions`: 1 version, 1262"), "{md}");
    }

    #[test]
    fn routes_and_the_matrix_appear_only_when_measured() {
        let mut doc = Json::parse(FIXTURE).unwrap();
        if let Json::Object(members) = &mut doc {
            members.retain(|(k, _)| k.to_lossy() != "routes" && k.to_lossy() != "matrix");
        }
        let md = figures_markdown(&doc).unwrap();
        assert!(md.contains("| harness, 2 probes |"), "{md}");
        assert!(!md.contains("## Each route"), "{md}");
        assert!(!md.contains("## The matrix"), "{md}");
    }

    #[test]
    fn the_plain_fuzz_cases_appear_against_the_bare_loop_when_measured() {
        let with = FIXTURE.replace(
            r#""notAsModelled": 0,"#,
            r#""notAsModelled": 0, "plainFuzz": {"version": "1.67.0", "cases": 1500,
               "ceilingCasesPerSecond": 160.000, "scaling": [
                 {"probes": 1, "casesPerSecond": 150.000, "ratio": 0.938},
                 {"probes": 2, "casesPerSecond": 230.000, "ratio": 1.438}]},"#,
        );
        let md = figures_markdown(&Json::parse(&with).unwrap()).unwrap();
        for line in [
            "## Plain fuzz cases against the bare loop",
            "The first 1500 cases of fuzz seed 1",
            "| harness, 2 probes | 230.0 | 1.44 |",
            "| the bare loop | 160.0 | 1.00 |",
        ] {
            assert!(md.contains(line), "no {line:?} in:\n{md}");
        }
        let without = figures_markdown(&Json::parse(FIXTURE).unwrap()).unwrap();
        assert!(!without.contains("## Plain fuzz"), "{without}");
    }

    /// The plain workload is what it says: as many cases as asked, none
    /// with an MCP server, none waiting on back-off, the same every time.
    #[test]
    fn the_plain_fuzz_workload_holds_no_mcp_case() {
        let cases = plain_fuzz(300);
        assert_eq!(cases.len(), 300);
        assert!(cases
            .iter()
            .all(|c| c.sources.mcp.is_none() && !c.waits_on_retries()));
        assert_eq!(cases, plain_fuzz(300));
    }

    #[test]
    fn a_document_without_its_provenance_or_a_figure_is_refused() {
        let without = |key: &str| {
            let mut doc = Json::parse(FIXTURE).unwrap();
            if let Json::Object(members) = &mut doc {
                members.retain(|(k, _)| k.to_lossy() != key);
            }
            figures_markdown(&doc).unwrap_err()
        };
        assert_eq!(without("measured"), "measured: missing");
        assert_eq!(
            without("ceilingCasesPerSecond"),
            "ceilingCasesPerSecond: missing or not a number"
        );
        let cut = FIXTURE.replace(r#""installSeconds": 2.500, "#, "");
        let err = figures_markdown(&Json::parse(&cut).unwrap()).unwrap_err();
        assert_eq!(
            err,
            "matrix.perVersion[1].installSeconds: missing or not a number"
        );
    }
}
