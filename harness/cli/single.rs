//! Commands on one case or one version: `predict`, `observe`, `bench`.

use super::out::{check_writable, print_out, save_report, stop_flag};
use crate::case::Case;
use crate::js::json::Json;
use crate::loops::provenance::{command_line, Provenance};
use crate::model::predict as model_predict;
use crate::outcome::{Exit, Failure};
use crate::route::{Route, RouteSet};
use crate::run::config::repo_root;
use crate::run::config::Config;
use crate::run::corpus::{load_cases, RunPlan};
use crate::run::session::{CaseResult, Session};
use crate::versions::spec::{MastraVersion, Selection, VersionList, VersionSpec};
use std::path::{Path, PathBuf};

/// The case at `path`, on `--route` unless it names its own route.
pub fn load_on(path: &Path, route: Option<Route>) -> Result<Case, Failure> {
    let case = Case::load(path)?;
    Ok(match route {
        Some(r) if !case.names_its_route() => case.on_route(r),
        _ => case,
    })
}

/// Resolve a `--mastra-version` to exactly one version: a release, a
/// prerelease, a dist-tag, or a build (hashed, named and kept in the cache).
/// A version that is no release is said on stderr with the release the model
/// predicts it as.
pub fn one_version(session: &mut Session, spec: &VersionSpec) -> Result<MastraVersion, Failure> {
    let found = session.resolve(std::slice::from_ref(spec), Selection::default())?;
    match found.as_slice() {
        [v] => {
            if !v.is_release() {
                let source = session
                    .build_source(*v)
                    .unwrap_or_else(|| "registry prerelease".into());
                eprintln!("{v}: {source}, predicted as {}", v.release());
            }
            Ok(*v)
        }
        many => Err(Failure::bad(format!(
            "--mastra-version {spec}: names {} versions; give one",
            many.len()
        ))),
    }
}

/// `predict CASE --mastra-version V [--route R]`: the model's projection.
pub fn predict(case: &Path, spec: &VersionSpec, route: Option<Route>) -> Result<Exit, Failure> {
    let case = load_on(case, route)?;
    let version = match spec {
        VersionSpec::Exact(v) => *v,
        // A tag or a build must be looked up first; the model never is.
        other => {
            let mut session = Session::new(Config::new(&repo_root()), stop_flag())?;
            one_version(&mut session, other)?
        }
    };
    print_out(&format!(
        "{}\n",
        model_predict(&case, version).to_json().to_pretty()
    ));
    Ok(Exit::Ok)
}

/// `observe CASE --mastra-version V [--route R]`: the real projection.
pub fn observe(
    config: Config,
    case: &Path,
    spec: &VersionSpec,
    route: Option<Route>,
) -> Result<Exit, Failure> {
    let case = load_on(case, route)?;
    let mut session = Session::new(config, stop_flag())?;
    let version = one_version(&mut session, spec)?;
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

/// `bench`: the corpus repeated `repeat` times through the harness, then
/// through the in-process ceiling; the figures, with their provenance, to
/// the JSON and Markdown files asked for.
pub fn bench(
    config: Config,
    spec: &VersionSpec,
    repeat: u32,
    paths: &[PathBuf],
    (json, markdown): (Option<&Path>, Option<&Path>),
    routes: Option<RouteSet>,
    matrix_versions: Option<VersionList>,
) -> Result<Exit, Failure> {
    let measured = Provenance::here(command_line(std::env::args()), &config.root);
    for (flag, path) in [("--json", json), ("--markdown", markdown)] {
        if let Some(path) = path {
            check_writable(flag, path)?;
        }
    }
    let (corpus, errors) = load_cases(paths);
    if let Some(e) = errors.into_iter().next() {
        return Err(e.into());
    }
    // Cases that wait on retry back-off measure sleeping, not the pipeline;
    // the workload leaves them out.
    let corpus: Vec<Case> = corpus
        .into_iter()
        .filter(|c| !c.waits_on_retries())
        .collect();
    let workload: Vec<Case> = (0..repeat).flat_map(|_| corpus.iter().cloned()).collect();
    let matrix_config = config.clone();
    let mut session = Session::new(config, stop_flag())?;
    let version = one_version(&mut session, spec)?;
    let result =
        crate::loops::bench::bench(&mut session, version, &workload).map_err(Failure::infra)?;
    print_out(&result.to_text());
    let mut report = result.to_json();
    if let Some(set) = &routes {
        let rates =
            crate::loops::bench::route_rates(&mut session, version, &workload, set.routes())
                .map_err(Failure::infra)?;
        print_out(&crate::loops::bench::route_table(&rates));
        if let Json::Object(members) = &mut report {
            members.push((
                "routes".into(),
                crate::loops::bench::route_rates_json(&rates),
            ));
        }
    }
    if let Some(versions) = matrix_versions {
        // The session above holds its listener and probes; they go first.
        drop(session);
        let plan = RunPlan {
            command: "bench --matrix-versions".into(),
            cases: paths.to_vec(),
            versions: versions.0,
            selection: Selection::default(),
            bodies: None,
            shard: None,
            routes,
        };
        let times = crate::loops::cold_warm::cold_warm(&matrix_config, &plan, stop_flag())?;
        print_out(&times.to_text());
        if let Json::Object(members) = &mut report {
            members.push(("matrix".into(), times.to_json()));
        }
    }
    if let Json::Object(members) = &mut report {
        members.push(("measured".into(), measured.to_json()));
    }
    if let Some(path) = json {
        save_report(path, &report.to_pretty())?;
    }
    if let Some(path) = markdown {
        let figures = crate::loops::bench::figures_markdown(&report).map_err(Failure::infra)?;
        save_report(path, &figures)?;
    }
    Ok(Exit::Ok)
}
