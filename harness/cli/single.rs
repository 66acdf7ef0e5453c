//! Commands on one case or one version: `predict`, `observe`, `bench`.

use super::out::{print_out, stop_flag};
use crate::case::{Case, Reply};
use crate::model::predict as model_predict;
use crate::outcome::{Exit, Failure};
use crate::report::write_atomically;
use crate::run::config::repo_root;
use crate::run::config::Config;
use crate::run::corpus::load_cases;
use crate::run::session::{CaseResult, Session};
use crate::versions::spec::{MastraVersion, Selection, VersionSpec};
use std::path::{Path, PathBuf};

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

/// `predict CASE --mastra-version V`: the model's projection.
pub fn predict(case: &Path, spec: &VersionSpec) -> Result<Exit, Failure> {
    let case = Case::load(case)?;
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

/// `observe CASE --mastra-version V`: the real projection.
pub fn observe(config: Config, case: &Path, spec: &VersionSpec) -> Result<Exit, Failure> {
    let case = Case::load(case)?;
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
/// through the in-process ceiling.
pub fn bench(
    config: Config,
    spec: &VersionSpec,
    repeat: u32,
    paths: &[PathBuf],
    json: Option<&Path>,
) -> Result<Exit, Failure> {
    let (corpus, errors) = load_cases(paths);
    if let Some(e) = errors.into_iter().next() {
        return Err(e.into());
    }
    // Cases that wait on retry back-off measure sleeping, not the pipeline;
    // the workload leaves them out.
    let corpus: Vec<Case> = corpus
        .into_iter()
        .filter(|c| {
            !c.replies.iter().any(
                |r| matches!(r, Reply::Error { status, .. } if *status >= 408 && *status != 400),
            )
        })
        .collect();
    let workload: Vec<Case> = (0..repeat).flat_map(|_| corpus.iter().cloned()).collect();
    let mut session = Session::new(config, stop_flag())?;
    let version = one_version(&mut session, spec)?;
    let result =
        crate::loops::bench::bench(&mut session, version, &workload).map_err(Failure::infra)?;
    print_out(&result.to_text());
    if let Some(path) = json {
        write_atomically(path, &result.to_json().to_pretty())
            .map_err(|e| Failure::infra_because(format!("cannot write {}", path.display()), e))?;
    }
    Ok(Exit::Ok)
}
