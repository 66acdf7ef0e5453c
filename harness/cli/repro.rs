//! `repro CASE|ISSUE [--mastra-version V] [--route R] [--upstream-report]`:
//! the known issue a case shows, as a standalone Node script anyone can run
//! (`report::repro`), or as a draft upstream report in Markdown with the
//! wire body observed on V. Given an issue id, the issue's smallest case.

use super::args::ProbeArgs;
use super::out::{print_out, stop_flag};
use super::version::exactly_one;
use crate::case::Case;
use crate::judge::known::KnownIssues;
use crate::judge::snapshot;
use crate::observation::Observed;
use crate::outcome::{Exit, Failure};
use crate::report::repro::Repro;
use crate::route::Route;
use crate::run::session::Session;
use crate::versions::spec::VersionSpec;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct ReproArgs {
    /// A case file that a known issue lists, or a known issue's id (its
    /// smallest case).
    pub case: PathBuf,
    /// The version the script's install line names: exact, a prerelease, a
    /// dist-tag, or a build (a packed tarball or a folder).
    #[arg(long = "mastra-version", default_value = "1.67.0")]
    pub mastra_version: VersionSpec,
    /// The wire route the script's agent takes (a case that names its
    /// own route keeps it).
    #[arg(long, default_value = "openai-compatible")]
    pub route: Route,
    /// Print a draft upstream report in Markdown instead: the issue, the
    /// smallest case, the wire body observed on --mastra-version, the
    /// repro and the fixed behaviour.
    #[arg(long)]
    pub upstream_report: bool,
    #[command(flatten)]
    pub probe: ProbeArgs,
}

pub fn repro(args: ReproArgs) -> Result<Exit, Failure> {
    let config = args.probe.config();
    let (case, route) = (args.case.as_path(), args.route);
    let known = KnownIssues::load(&config.known_issues).map_err(|e| Failure::bad(e.to_string()))?;
    // An issue id instead of a case: its smallest case (fewest characters
    // of case JSON), the one an upstream report is best made from.
    let by_id = (!case.exists())
        .then(|| known.get(&case.to_string_lossy()))
        .flatten();
    let case = match by_id {
        Some(issue) => {
            let mut cases = issue
                .cases
                .iter()
                .map(|c| Case::load(&c.path))
                .collect::<Result<Vec<_>, _>>()?;
            cases.sort_by_key(|c| c.to_json().to_compact().len());
            cases.remove(0)
        }
        None => Case::load(case)?,
    };
    let case = if case.names_its_route() {
        case
    } else {
        case.on_route(route)
    };
    let Some((issue, symptom)) = known.for_case(&case.path, case.route) else {
        let listed: Vec<&str> = known
            .issues
            .iter()
            .flat_map(|i| i.cases.iter().map(|c| c.case.as_str()))
            .collect();
        return Err(Failure::bad(format!(
            "{}: no known issue lists this case in {}; repro is for the cases that show one: {}",
            case.name(),
            known.file.display(),
            listed.join(", ")
        )));
    };
    // An exact version needs no session unless the report observes it; a
    // dist-tag or a build is resolved as every version flag is.
    let mut session = None;
    let version = match &args.mastra_version {
        VersionSpec::Exact(v) => *v,
        spec => exactly_one(
            session.insert(Session::new(config.clone(), stop_flag())?),
            "--mastra-version",
            spec,
        )?,
    };
    let repro = Repro {
        case: &case,
        issue,
        symptom,
        made_on: version.to_string(),
        route: case.route,
    };
    if !args.upstream_report {
        print_out(&repro.script());
        return Ok(Exit::Ok);
    }
    // The report quotes what the case really sent on `version`.
    let mut session = match session {
        Some(s) => s,
        None => Session::new(config, stop_flag())?,
    };
    let mut observed = None;
    session.run_version(version, std::slice::from_ref(&case), |r| {
        observed = Some(r.observed)
    });
    let body = match observed {
        Some(Observed::Ran { bodies, .. }) => snapshot::text(&bodies),
        Some(other) => {
            return Err(Failure::infra(format!(
                "{} on {version} could not be observed: {}",
                case.name(),
                other.infra_detail().unwrap_or_default()
            )))
        }
        None => return Err(Failure::infra("interrupted before the case finished")),
    };
    print_out(&repro.upstream_report(&body, &issue.seen));
    Ok(Exit::Ok)
}
