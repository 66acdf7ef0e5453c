//! Commands on one case or one version: `predict`, `observe`, `bench`.

use super::args::{CaseRouteArgs, CasesArgs, OneVersionArgs, PredictAsArgs, ProbeArgs, RoutesArgs};
use super::out::{check_writable, print_out, save_report, stop_flag};
use super::version::announced;
use crate::case::Case;
use crate::js::json::Json;
use crate::judge::case_result::CaseResult;
use crate::loops::provenance::{command_line, Provenance};
use crate::model::predict as model_predict;
use crate::outcome::{Exit, Failure};
use crate::run::config::{repo_root, Config};
use crate::run::corpus::{load_cases, RunRequest};
use crate::run::session::Session;
use crate::version::spec::{Selection, VersionList, VersionSpec};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct PredictArgs {
    pub case: PathBuf,
    #[command(flatten)]
    pub version: OneVersionArgs,
    #[command(flatten)]
    pub route: CaseRouteArgs,
    #[command(flatten)]
    pub predict_as: PredictAsArgs,
}

/// `predict CASE --mastra-version V [--route R]`: the model's projection.
pub fn predict(args: PredictArgs) -> Result<Exit, Failure> {
    let case = args.route.load(&args.case)?;
    let version = match &args.version.mastra_version {
        VersionSpec::Exact(v) if !v.is_snapshot() => *v,
        // A tag, a build or a snapshot must be looked up first (a snapshot
        // is predicted as the release it was cut from); the model never is.
        other => {
            let mut config = Config::new(&repo_root());
            config.predict_as = args.predict_as.predict_as;
            let mut session = Session::new(config, stop_flag())?;
            announced(&mut session, "--mastra-version", other)?
        }
    };
    print_out(&format!(
        "{}\n",
        model_predict(&case, version).to_json().to_pretty()
    ));
    Ok(Exit::Ok)
}

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct ObserveArgs {
    pub case: PathBuf,
    #[command(flatten)]
    pub version: OneVersionArgs,
    #[command(flatten)]
    pub route: CaseRouteArgs,
    #[command(flatten)]
    pub probe: ProbeArgs,
}

/// `observe CASE --mastra-version V [--route R]`: the real projection.
pub fn observe(args: ObserveArgs) -> Result<Exit, Failure> {
    let case = args.route.load(&args.case)?;
    let mut session = Session::new(args.probe.config(), stop_flag())?;
    let version = announced(
        &mut session,
        "--mastra-version",
        &args.version.mastra_version,
    )?;
    let mut got: Option<CaseResult> = None;
    session.run_version(version, std::slice::from_ref(&case), |r| got = Some(r));
    let r = got.ok_or_else(|| Failure::infra("interrupted before the case finished"))?;
    match r.observed.projection() {
        Some(p) => {
            print_out(&format!("{}\n", p.to_json().to_pretty()));
            Ok(Exit::Ok)
        }
        None => Err(Failure::infra(format!(
            "{} on {version}: {}: {}",
            r.case,
            r.verdict.name(),
            r.observed.infra_detail().unwrap_or_default()
        ))),
    }
}

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct BenchArgs {
    /// The version to measure on.
    #[arg(long = "mastra-version", default_value = "1.67.0")]
    pub mastra_version: VersionSpec,
    /// How many times the corpus is repeated in the workload.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub repeat: u32,
    #[command(flatten)]
    pub cases: CasesArgs,
    /// Also write the figures as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Also write the figures as Markdown here, with the date, command,
    /// commit and cores (make bench: docs/figures/bench.md).
    #[arg(long)]
    pub markdown: Option<PathBuf>,
    #[command(flatten)]
    pub routes: RoutesArgs,
    /// Also run the matrix (these cases, these routes) on these versions
    /// from an empty cache, then warm: both times, each version's install
    /// time and disk.
    #[arg(long = "matrix-versions")]
    pub matrix_versions: Option<VersionList>,
    #[command(flatten)]
    pub probe: ProbeArgs,
}

/// `bench`: the corpus repeated `--repeat` times through the harness, then
/// through the in-process ceiling; the figures, with their provenance, to
/// the JSON and Markdown files asked for.
pub fn bench(args: BenchArgs) -> Result<Exit, Failure> {
    let measured = Provenance::here(command_line(std::env::args()), &repo_root());
    for (flag, path) in [("--json", &args.json), ("--markdown", &args.markdown)] {
        if let Some(path) = path {
            check_writable(flag, path)?;
        }
    }
    let paths = args.cases.paths();
    let (corpus, errors) = load_cases(&paths);
    if let Some(e) = errors.into_iter().next() {
        return Err(e.into());
    }
    // Cases that wait on retry back-off measure sleeping, not the pipeline;
    // the workload leaves them out.
    let corpus: Vec<Case> = corpus
        .into_iter()
        .filter(|c| !c.waits_on_retries())
        .collect();
    let routes = args.routes.route;
    // The corpus on every route of `--route` (each case that names its own
    // route on that one), as a matrix runs it: the probes and the ceiling
    // are measured on the whole of it. Each route's own rate is measured on
    // the corpus alone, moved to that route.
    let repeated = |cases: &[Case]| -> Vec<Case> {
        (0..args.repeat)
            .flat_map(|_| cases.iter().cloned())
            .collect()
    };
    let per_route = repeated(&corpus);
    let workload = repeated(&crate::run::corpus::on_routes(
        corpus.clone(),
        routes.as_ref(),
    ));
    let config = args.probe.config();
    let matrix_config = config.clone();
    let mut session = Session::new(config, stop_flag())?;
    let version = announced(&mut session, "--mastra-version", &args.mastra_version)?;
    let result =
        crate::loops::bench::bench(&mut session, version, &workload).map_err(Failure::infra)?;
    print_out(&result.to_text());
    let mut report = result.to_json();
    // Where the cores go, plain cases apart from MCP cases, and the probes'
    // memory over the workload.
    let cpu = crate::loops::cpu_cost::cpu_cost(&mut session, version, &workload)
        .map_err(Failure::infra)?;
    print_out(&cpu.to_text());
    if let Json::Object(members) = &mut report {
        members.push(("cpu".into(), cpu.to_json()));
    }
    // Many small cases, where the pipeline's own cost per case shows most.
    let plain = crate::loops::bench::plain_fuzz(crate::loops::bench::PLAIN_FUZZ_CASES);
    let fuzz = crate::loops::bench::bench(&mut session, version, &plain).map_err(Failure::infra)?;
    print_out(&format!("plain fuzz cases:\n{}", fuzz.to_text()));
    if let Json::Object(members) = &mut report {
        members.push(("plainFuzz".into(), fuzz.to_json()));
    }
    // Where the machine has no sandbox there is no cost to measure: said
    // on stderr, left out of the figures.
    match crate::loops::bench::sandbox_cost(&mut session, version, &workload) {
        Ok(cost) => {
            print_out(&cost.to_text());
            if let Json::Object(members) = &mut report {
                members.push(("sandbox".into(), cost.to_json()));
            }
        }
        Err(why) => eprintln!("notice: {why}"),
    }
    let scale = crate::loops::bench::model_scale(version, &[1_000, 10_000, 100_000])
        .map_err(Failure::infra)?;
    print_out(&crate::loops::bench::model_scale_text(&scale));
    if let Json::Object(members) = &mut report {
        members.push((
            "modelScale".into(),
            crate::loops::bench::model_scale_json(&scale),
        ));
    }
    if let Some(set) = &routes {
        let rates =
            crate::loops::bench::route_rates(&mut session, version, &per_route, set.routes())
                .map_err(Failure::infra)?;
        print_out(&crate::loops::bench::route_table(&rates));
        if let Json::Object(members) = &mut report {
            members.push((
                "routes".into(),
                crate::loops::bench::route_rates_json(&rates),
            ));
        }
    }
    if let Some(versions) = args.matrix_versions {
        // The session above holds its listener and probes; they go first.
        drop(session);
        let matrix_run = RunRequest {
            command: "bench --matrix-versions".into(),
            cases: paths,
            versions: versions.0,
            selection: Selection::default(),
            bodies: None,
            shard: None,
            routes,
            keep: false,
            recheck: crate::run::recheck::Recheck::default(),
            generated: None,
        };
        let times = crate::loops::cold_warm::cold_warm(&matrix_config, &matrix_run, stop_flag())?;
        print_out(&times.to_text());
        if let Json::Object(members) = &mut report {
            members.push(("matrix".into(), times.to_json()));
        }
    }
    if let Json::Object(members) = &mut report {
        members.push(("measured".into(), measured.to_json()));
    }
    if let Some(path) = &args.json {
        save_report(path, &report.to_pretty())?;
    }
    if let Some(path) = &args.markdown {
        let figures = crate::loops::bench::figures_markdown(&report).map_err(Failure::infra)?;
        save_report(path, &figures)?;
    }
    Ok(Exit::Ok)
}
