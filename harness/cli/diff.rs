//! `diff --from A --to B`: the same cases (the corpus, plus generated ones)
//! observed on two builds (`loops::diff`), printed grouped by the known issue
//! whose fix each difference matches; JSON and Markdown on request. Exit 0
//! when nothing differs, 1 when something does, 3 when a case could not be
//! compared on a side.

use super::out::{check_writable, print_out, save_report, stop_flag};
use super::single::one_version;
use crate::loops::diff::diff as observe_both;
use crate::loops::fuzz;
use crate::outcome::{Exit, Failure};
use crate::route::RouteSet;
use crate::run::config::Config;
use crate::run::corpus::{load_cases, on_routes};
use crate::run::session::Session;
use crate::versions::spec::VersionSpec;
use std::path::PathBuf;

/// The `diff` flags.
pub struct DiffFlags {
    pub from: VersionSpec,
    pub to: VersionSpec,
    pub cases: Vec<PathBuf>,
    pub fuzz_count: u64,
    pub seed: u64,
    pub json: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    /// `--route`: the routes of every case that does not name its own.
    pub routes: Option<RouteSet>,
}

pub fn diff(config: Config, flags: DiffFlags) -> Result<Exit, Failure> {
    for (flag, path) in [("--json", &flags.json), ("--markdown", &flags.markdown)] {
        if let Some(p) = path {
            check_writable(flag, p)?;
        }
    }
    let (mut cases, errors) = load_cases(&flags.cases);
    if let Some(e) = errors.into_iter().next() {
        return Err(e.into());
    }
    // Generated cases: the same ones on both sides, from the seed.
    cases.extend(
        fuzz::generate(flags.seed, flags.fuzz_count)
            .into_iter()
            .map(|g| g.case),
    );
    // Each case on the routes asked for, as `run` does.
    let cases = on_routes(cases, flags.routes.as_ref());
    let mut session = Session::new(config, stop_flag())?;
    let from = one_version(&mut session, &flags.from)?;
    let to = one_version(&mut session, &flags.to)?;
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
    if let Some(p) = &flags.json {
        save_report(p, &found.to_json().to_pretty())?;
    }
    if let Some(p) = &flags.markdown {
        save_report(p, &found.markdown())?;
    }
    Ok(if found.not_compared().next().is_some() {
        Exit::Infra
    } else if found.differing().next().is_some() {
        Exit::Finding
    } else {
        Exit::Ok
    })
}
