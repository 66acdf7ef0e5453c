//! `repro CASE|ISSUE [--mastra-version V] [--route R] [--upstream-report]`:
//! the known issue a case shows, as a standalone Node script anyone can run
//! (`report::repro`), or as a draft upstream report in Markdown with the
//! wire body observed on V. Given an issue id, the issue's smallest case.

use super::out::{print_out, stop_flag};
use crate::case::Case;
use crate::judge::known::KnownIssues;
use crate::judge::snapshot;
use crate::observation::Observed;
use crate::outcome::{Exit, Failure};
use crate::report::repro::Repro;
use crate::route::Route;
use crate::run::config::Config;
use crate::run::session::Session;
use crate::versions::spec::MastraVersion;
use std::path::Path;

pub fn repro(
    config: Config,
    case: &Path,
    version: MastraVersion,
    route: Route,
    upstream_report: bool,
) -> Result<Exit, Failure> {
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
    let repro = Repro {
        case: &case,
        issue,
        symptom,
        made_on: version.to_string(),
        route: case.route,
    };
    if !upstream_report {
        print_out(&repro.script());
        return Ok(Exit::Ok);
    }
    // The report quotes what the case really sent on `version`.
    let mut session = Session::new(config, stop_flag())?;
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
