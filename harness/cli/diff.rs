//! `diff --from A --to B`: the same cases (the corpus, plus generated ones)
//! observed on two builds (`loops::diff`), printed grouped by the known issue
//! whose fix each difference matches; JSON and Markdown on request. Exit 0
//! when nothing differs, 1 when something does (with `--fail-on
//! unexplained`, only a difference no known issue explains), 3 when a case
//! could not be compared on a side.

use super::args::{CasesArgs, GeneratedArgs, JsonReportArgs, ProbeArgs, RoutesArgs, StoreArgs};
use super::out::{check_writable, print_out, save_report, stop_flag};
use super::version::announced;
use crate::loops::diff::diff as observe_both;
use crate::loops::fuzz;
use crate::outcome::{Exit, Failure};
use crate::run::corpus::{load_cases, on_routes};
use crate::run::session::Session;
use crate::version::spec::VersionSpec;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct DiffArgs {
    /// The build to compare from (any one version or build).
    #[arg(long)]
    pub from: VersionSpec,
    /// The build to compare to.
    #[arg(long)]
    pub to: VersionSpec,
    #[command(flatten)]
    pub cases: CasesArgs,
    #[command(flatten)]
    pub generated: GeneratedArgs,
    #[command(flatten)]
    pub report: JsonReportArgs,
    /// Write the Markdown report here.
    #[arg(long)]
    pub markdown: Option<PathBuf>,
    /// Which differences exit 1: any, or only those no known issue's fix
    /// explains (a pull request that fixes a known issue passes).
    #[arg(long, value_enum, default_value_t = FailOn::Any)]
    pub fail_on: FailOn,
    #[command(flatten)]
    pub routes: RoutesArgs,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub probe: ProbeArgs,
}

/// Which differences are a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum FailOn {
    #[default]
    Any,
    Unexplained,
}

pub fn diff(args: DiffArgs) -> Result<Exit, Failure> {
    let (json, markdown) = (&args.report.json, &args.markdown);
    for (flag, path) in [("--json", json), ("--markdown", markdown)] {
        if let Some(p) = path {
            check_writable(flag, p)?;
        }
    }
    let (mut cases, errors) = load_cases(&args.cases.paths());
    if let Some(e) = errors.into_iter().next() {
        return Err(e.into());
    }
    // Generated cases: the same ones on both sides, from the seed.
    let GeneratedArgs { fuzz_count, seed } = args.generated;
    cases.extend(fuzz::generate(seed, fuzz_count).into_iter().map(|g| g.case));
    // Each case on the routes asked for, as `run` does.
    let cases = on_routes(cases, args.routes.route.as_ref());
    let mut session = Session::new(args.store.on(args.probe.config()), stop_flag())?;
    let from = announced(&mut session, "--from", &args.from)?;
    let to = announced(&mut session, "--to", &args.to)?;
    if from == to {
        return Err(Failure::bad(format!(
            "--from and --to are the same build ({from})"
        )));
    }
    let found = observe_both(&mut session, &cases, from, to);
    if session.stop.load(std::sync::atomic::Ordering::SeqCst) {
        return Err(Failure::infra("interrupted: the diff is incomplete"));
    }
    print_out(&found.summary());
    if let Some(p) = json {
        save_report(p, &found.to_json().to_pretty())?;
    }
    if let Some(p) = markdown {
        save_report(p, &found.markdown())?;
    }
    Ok(if found.not_compared().next().is_some() {
        Exit::Infra
    } else if found
        .groups()
        .iter()
        .any(|(fixes, _)| fixes.is_none() || args.fail_on == FailOn::Any)
    {
        Exit::Finding
    } else {
        Exit::Ok
    })
}
