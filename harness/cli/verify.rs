//! `verify ISSUE|all --versions L`: per version, is a known upstream issue
//! present or fixed? The runs (`loops::verify`), printed as runs of versions
//! that agree.

use super::args::{DefaultPinnedLatest, ProbeArgs, RoutesArgs, StoreArgs, VersionsArgs};
use super::out::{say, stop_flag};
use super::version::predicted_as;
use crate::judge::known::IssueState;
use crate::loops::verify::{runs, select, verify as run_verify, Status};
use crate::outcome::{Exit, Failure, RunEnd};
use crate::report::write_atomically;
use crate::run::session::Session;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct VerifyArgs {
    /// An issue id, or `all`.
    pub issue: String,
    #[command(flatten)]
    pub versions: VersionsArgs<DefaultPinnedLatest>,
    /// Write the per-version, per-case states here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    #[command(flatten)]
    pub routes: RoutesArgs,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub probe: ProbeArgs,
}

pub fn verify(args: VerifyArgs) -> Result<Exit, Failure> {
    let mut session = Session::new(args.store.on(args.probe.config()), stop_flag())?;
    let issues = select(&session.refiner.known, &args.issue)?;
    let versions = session.resolve(args.versions.specs(), args.versions.selection())?;
    for v in versions.iter().filter(|v| !v.is_release()) {
        say!("{}", predicted_as(&session, *v));
    }
    let total = versions.len();
    let mut n = 0;
    let done = run_verify(
        &mut session,
        issues,
        &versions,
        args.routes.route.as_ref(),
        |v, line| {
            n += 1;
            let line: Vec<String> = line
                .iter()
                .map(|(id, status)| format!("{id} {}", status.name()))
                .collect();
            eprintln!("[{n}/{total}] {v}: {}", line.join(", "));
        },
    )?;
    for (issue, rows) in done.issues.iter().zip(&done.rows) {
        say!("\n{}: {}", issue.id, issue.title);
        if let Some(link) = &issue.upstream {
            say!("  upstream: {link}");
        }
        say!("  known to be seen on: {}", issue.seen);
        for (first, last, count, status) in runs(rows) {
            let span = if count == 1 {
                first.to_string()
            } else {
                format!("{first} … {last} ({count} versions)")
            };
            say!("  {status:<22} {span}", status = status.name());
        }
        for r in rows.iter().filter(|r| {
            matches!(
                r.status,
                Status::Fixed | Status::PartlyFixed | Status::Changed
            )
        }) {
            for (case, state, verdict, _) in &r.cases {
                say!(
                    "    {} {case}: {} ({})",
                    r.version,
                    state.map_or("-", IssueState::name),
                    verdict.name()
                );
            }
        }
        // Each version that gave no answer, with why: one that could not
        // run and one the registry does not serve alike.
        for r in rows
            .iter()
            .filter(|r| matches!(r.status, Status::Unknown | Status::Unavailable))
        {
            if let Some((case, _, verdict, detail)) = r.cases.first() {
                let why = detail
                    .as_deref()
                    .and_then(|d| d.lines().next())
                    .unwrap_or("");
                say!("    {} {case}: {} {why}", r.version, verdict.name());
            }
        }
        if let Some(fixed) = &issue.fixed_shows {
            let checked: Vec<String> = rows
                .iter()
                .filter_map(|r| {
                    r.as_described.map(|ok| {
                        format!(
                            "{} {}",
                            r.version,
                            if ok { "shows it" } else { "does NOT show it" }
                        )
                    })
                })
                .collect();
            if !checked.is_empty() {
                say!(
                    "  the ledger's fixed behaviour {fixed}: {}",
                    checked.join("; ")
                );
            }
        }
        let count = |s: Status| rows.iter().filter(|r| r.status == s).count();
        say!(
            "  summary: present on {} of {} versions, fixed on {}, partly fixed on {}, changed otherwise on {}, absent on {}, unknown on {}, not served {}",
            count(Status::Present),
            rows.len(),
            count(Status::Fixed),
            count(Status::PartlyFixed),
            count(Status::Changed),
            count(Status::Absent),
            count(Status::Unknown),
            count(Status::Unavailable)
        );
    }
    if let Some(path) = &args.json {
        write_atomically(path, &done.to_json().to_pretty())
            .map_err(|e| Failure::infra_because(format!("cannot write {}", path.display()), e))?;
    }
    Ok(Exit::of_run(RunEnd {
        infra: done.any_unknown(),
        interrupted: done.interrupted,
        // Present and fixed are both answers: the contract
        // (`docs/case-format.md`) gives `verify` 0, 2 and 3 only.
        finding: false,
        bad_input: false,
    }))
}
