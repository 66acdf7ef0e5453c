//! `bisect CASE --good V --bad V [--on projection|body]` over published
//! versions, and `bisect CASE --repo DIR --good REV --bad REV [--build CMD]`
//! over the commits of a local mastra checkout: the search
//! (`loops::bisect`), printed step by step.

use super::args::{CaseRouteArgs, ProbeArgs, StoreArgs};
use super::out::{print_out, say, stop_flag};
use super::version::{exactly_one, predicted_as};
use crate::install::revision::{Checkout, Commit, Recipe};
use crate::loops::bisect::{bisect as search, bisect_commits, Bisection, Compared, Step};
use crate::outcome::{Exit, Failure};
use crate::run::session::Session;
use crate::version::spec::{MastraVersion, VersionSpec};
use clap::Args;
use std::fmt::Display;
use std::path::PathBuf;

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct BisectArgs {
    pub case: PathBuf,
    /// Whose result is the reference: a release, a prerelease, a snapshot,
    /// or a dist-tag or range that names one; with --repo, a git revision
    /// (a commit, a branch, a tag).
    #[arg(long)]
    pub good: String,
    /// A later version, or revision, whose result may differ.
    #[arg(long)]
    pub bad: String,
    /// Bisect the commits of this local mastra checkout instead of the
    /// published versions: each step builds packages/core at a commit.
    #[arg(long)]
    pub repo: Option<PathBuf>,
    /// How each commit is built, run with `sh -c` at the checkout's root
    /// (default: its own `pnpm install` and the package's build script).
    #[arg(long, requires = "repo")]
    pub build: Option<String>,
    /// Compare projections (`projection`), or whole normalised request
    /// bodies (`body`).
    #[arg(long, default_value = "projection")]
    pub on: Compared,
    /// Bisect over prereleases too, for a finer answer than releases give.
    #[arg(long, conflicts_with = "repo")]
    pub include_prereleases: bool,
    #[command(flatten)]
    pub route: CaseRouteArgs,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub probe: ProbeArgs,
}

/// One end of the search over published versions. Any spec that names one
/// version will do (a dist-tag through the registry, as everywhere); a
/// build will not, for the search runs over the published versions between
/// the ends. Whether the version is published is for the search to check,
/// with the registry's list it bisects over.
fn search_end(session: &mut Session, flag: &str, text: &str) -> Result<MastraVersion, Failure> {
    let spec: VersionSpec = text
        .parse()
        .map_err(|e| Failure::bad(format!("{flag} {text}: {e}")))?;
    let v = exactly_one(session, flag, &spec)?;
    if v.is_build() {
        let source = session.build_source(v).unwrap_or_default();
        return Err(Failure::bad(format!(
            "{flag} {spec}: the build {v} ({source}) is no published version; bisect searches \
             the published versions between --good and --bad: give a release, a prerelease or a \
             dist-tag, or bisect its commits with --repo"
        )));
    }
    if v.is_snapshot() {
        eprintln!("{}", predicted_as(session, v));
    }
    Ok(v)
}

/// A step, as one line; `good` names the reference.
fn print_step<T: Display>(step: Step<T>, good: &str, name: &str, what: &str, unit: &str) {
    let vs = |differs: bool| {
        if differs {
            format!("differs from {good}")
        } else {
            format!("same as {good}")
        }
    };
    match step {
        Step::Start { between } => {
            say!("bisecting {name} on its {what}: {between} {unit} after {good}")
        }
        Step::Built {
            item,
            version,
            fresh,
        } => say!(
            "  {:>12}  {} {version}",
            item.to_string(),
            if fresh {
                "built as"
            } else {
                "built before, as"
            }
        ),
        Step::Reference(v) => say!("  {:>12}  good (the reference)", v.to_string()),
        Step::Bad { item, differs } => say!("  {:>12}  {}", item.to_string(), vs(differs)),
        Step::Tested {
            step,
            item,
            differs,
        } => say!(
            "  {:>12}  step {step}: {}",
            item.to_string(),
            match differs {
                Ok(d) => vs(d),
                Err(e) => format!("skipped: {}", e.lines().next().unwrap_or("")),
            }
        ),
    }
}

pub fn bisect(args: BisectArgs) -> Result<Exit, Failure> {
    let case = args.route.load(&args.case)?;
    let mut session = Session::new(args.store.on(args.probe.config()), stop_flag())?;
    let name = case.name();
    let what = args.on.name();
    if let Some(repo) = &args.repo {
        return bisect_repo(&mut session, &case, repo, &args, &name, what);
    }
    let good = search_end(&mut session, "--good", &args.good)?;
    let bad = search_end(&mut session, "--bad", &args.bad)?;
    let found = search(
        &mut session,
        &case,
        good,
        bad,
        args.on,
        args.include_prereleases,
        |step| {
            print_step(
                step,
                &good.to_string(),
                &name,
                what,
                &format!("published versions up to {bad}"),
            )
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

/// A commit as the answer names it: its hash, subject, and pull request
/// (a link when the checkout's origin is on GitHub).
fn commit_line(c: &Commit, pulls: Option<&str>) -> String {
    let mut line = format!("{} {}", c.sha, c.subject);
    if let Some(n) = c.pull {
        match pulls {
            Some(url) => line.push_str(&format!("\n  pull request #{n}: {url}{n}")),
            None => line.push_str(&format!("\n  pull request #{n}")),
        }
    }
    line
}

fn bisect_repo(
    session: &mut Session,
    case: &crate::case::Case,
    repo: &std::path::Path,
    args: &BisectArgs,
    name: &str,
    what: &str,
) -> Result<Exit, Failure> {
    let checkout = Checkout::open(repo).map_err(|e| {
        Failure::bad(format!(
            "--repo {}: {}",
            repo.display(),
            crate::outcome::error_chain(&e)
        ))
    })?;
    let recipe = match &args.build {
        Some(cmd) => Recipe::Command(cmd.clone()),
        None => Recipe::Default,
    };
    let good = args.good.as_str();
    let found = bisect_commits(
        session,
        case,
        &checkout,
        good,
        &args.bad,
        &recipe,
        args.on,
        |step| {
            print_step(
                step,
                good,
                name,
                what,
                &format!("commits of {} up to {}", checkout.root.display(), args.bad),
            )
        },
    )?;
    let pulls = checkout.pulls_url();
    match found {
        Bisection::NoChange => {
            say!("no change: {} gives the same {what} as {good}", args.bad);
            Ok(Exit::Finding)
        }
        Bisection::Found {
            first,
            last_same,
            steps,
            unknown,
            diff,
        } => {
            say!(
                "\nfirst changed commit: {}\nlast the same: {} {} ({steps} steps)",
                commit_line(&first, pulls.as_deref()),
                last_same.short(),
                last_same.subject
            );
            if !unknown.is_empty() {
                let names: Vec<String> = unknown
                    .iter()
                    .map(|c| format!("{} {}", c.short(), c.subject))
                    .collect();
                say!(
                    "could not be built or run in between: {} (the change may be there instead)",
                    names.join(", ")
                );
            }
            print_out(&diff);
            Ok(Exit::Ok)
        }
    }
}
