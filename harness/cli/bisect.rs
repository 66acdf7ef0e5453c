//! `bisect CASE --good V --bad V [--on projection|body]`: the search
//! (`loops::bisect`), printed step by step.

use super::args::{CaseRouteArgs, ProbeArgs, StoreArgs};
use super::out::{print_out, say, stop_flag};
use super::version::exactly_one;
use crate::loops::bisect::{bisect as search, Bisection, Compared, Step};
use crate::outcome::{Exit, Failure};
use crate::run::session::Session;
use crate::versions::spec::{MastraVersion, VersionSpec};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct BisectArgs {
    pub case: PathBuf,
    /// A version whose result is the reference: a release, a prerelease, or
    /// a dist-tag or range that names one.
    #[arg(long)]
    pub good: VersionSpec,
    /// A later version whose result may differ, given as --good is.
    #[arg(long)]
    pub bad: VersionSpec,
    /// Compare projections (`projection`), or whole normalised request
    /// bodies (`body`).
    #[arg(long, default_value = "projection")]
    pub on: Compared,
    /// Bisect over prereleases too, for a finer answer than releases give.
    #[arg(long)]
    pub include_prereleases: bool,
    #[command(flatten)]
    pub route: CaseRouteArgs,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub probe: ProbeArgs,
}

/// One end of the search. Any spec that names one version will do (a
/// dist-tag through the registry, as everywhere); a build will not, for the
/// search runs over the published versions between the ends. Whether the
/// version is published is for the search to check, with the registry's
/// list it bisects over.
fn search_end(
    session: &mut Session,
    flag: &str,
    spec: &VersionSpec,
) -> Result<MastraVersion, Failure> {
    let v = exactly_one(session, flag, spec)?;
    if v.is_build() {
        let source = session.build_source(v).unwrap_or_default();
        return Err(Failure::bad(format!(
            "{flag} {spec}: the build {v} ({source}) is no published version; bisect searches \
             the published versions between --good and --bad: give a release, a prerelease or a \
             dist-tag"
        )));
    }
    Ok(v)
}

pub fn bisect(args: BisectArgs) -> Result<Exit, Failure> {
    let case = args.route.load(&args.case)?;
    let mut session = Session::new(args.store.on(args.probe.config()), stop_flag())?;
    let good = search_end(&mut session, "--good", &args.good)?;
    let bad = search_end(&mut session, "--bad", &args.bad)?;
    let name = case.name();
    let what = args.on.name();
    let found = search(
        &mut session,
        &case,
        good,
        bad,
        args.on,
        args.include_prereleases,
        |step| match step {
            Step::Start { between } => say!(
            "bisecting {name} on its {what}: {between} published versions after {good} up to {bad}"
        ),
            Step::Reference(v) => say!("  {:>8}  good (the reference)", v.to_string()),
            Step::Bad { version, differs } => say!(
                "  {:>8}  {}",
                version.to_string(),
                if differs {
                    format!("differs from {good}")
                } else {
                    format!("same as {good}")
                }
            ),
            Step::Tested {
                step,
                version,
                differs,
            } => say!(
                "  {:>8}  step {step}: {}",
                version.to_string(),
                match differs {
                    Ok(true) => format!("differs from {good}"),
                    Ok(false) => format!("same as {good}"),
                    Err(e) => format!("could not be run ({})", e.lines().next().unwrap_or("")),
                }
            ),
        },
    )?;
    match found {
        Bisection::NoChange => {
            say!("no change: {bad} gives the same {what} as {good}");
            Ok(Exit::Finding)
        }
        Bisection::Found {
            first,
            last_same,
            steps,
            unknown,
            diff,
        } => {
            say!("\nfirst changed version: {first} (last the same: {last_same}; {steps} steps)");
            if !unknown.is_empty() {
                let names: Vec<String> = unknown.iter().map(ToString::to_string).collect();
                say!(
                    "could not be run in between: {} (the change may be there instead)",
                    names.join(", ")
                );
            }
            print_out(&diff);
            Ok(Exit::Ok)
        }
    }
}
