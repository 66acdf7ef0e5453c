//! `bisect CASE --good V --bad V [--on projection|body]`: the search
//! (`loops::bisect`), printed step by step.

use super::out::{print_out, say, stop_flag};
use crate::case::Case;
use crate::loops::bisect::{bisect as search, Bisection, On, Step};
use crate::outcome::{Exit, Failure};
use crate::run::config::Config;
use crate::run::session::Session;
use crate::versions::spec::MastraVersion;
use std::path::Path;

pub fn bisect(
    config: Config,
    case: &Path,
    good: MastraVersion,
    bad: MastraVersion,
    on: On,
    prereleases: bool,
) -> Result<Exit, Failure> {
    let case = Case::load(case)?;
    let mut session = Session::new(config, stop_flag())?;
    let name = case.name();
    let what = on.name();
    let found = search(
        &mut session,
        &case,
        good,
        bad,
        on,
        prereleases,
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
