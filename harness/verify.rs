//! `verify`: for each version, whether a known upstream issue is present or
//! fixed. It answers "did the upstream fix land?".
//!
//! In: a `KnownIssue` (or all of them) and a version set. Only the issue's
//! own cases run, through the one pipeline, so even `--versions all` stays
//! quick. Out: one `Status` per version, from the `IssueState` that
//! `refine` already gave each result, printed as runs of versions that agree
//! and, with `--json`, per version and per case.

use crate::case::Case;
use crate::commands::{exit, stop_flag, CommandError};
use crate::compare::Verdict;
use crate::json::Json;
use crate::known::{IssueState, KnownIssue};
use crate::pipeline::{CaseResult, Session};
use crate::report::write_atomically;
use crate::versions::MastraVersion;
use std::path::Path;
use std::sync::atomic::Ordering;

/// An issue on one version, over all its cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Every case that ran shows it (or shows it where the model expects it).
    Present,
    /// Some cases show it, others are fixed.
    PartlyFixed,
    /// No case shows it, and the model expects at least one to.
    Fixed,
    /// No case shows it, and the model expects none to on this version.
    Absent,
    /// No case could be judged (infrastructure, not applicable, unmodelled).
    Unknown,
    /// The registry does not serve the version: reported, not a failure (as
    /// in `run` without `--strict`).
    Unavailable,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Present => "present",
            Status::PartlyFixed => "partly fixed",
            Status::Fixed => "FIXED",
            Status::Absent => "absent (as modelled)",
            Status::Unknown => "unknown",
            Status::Unavailable => "not served",
        }
    }

    /// One version's status from its cases' states (`None`: not judged).
    pub fn of(states: &[Option<IssueState>]) -> Status {
        let has = |s| states.contains(&Some(s));
        match (
            has(IssueState::Present),
            has(IssueState::Fixed),
            has(IssueState::Absent),
        ) {
            (true, true, _) => Status::PartlyFixed,
            (true, false, _) => Status::Present,
            (false, true, _) => Status::Fixed,
            (false, false, true) => Status::Absent,
            (false, false, false) => Status::Unknown,
        }
    }
}

/// One issue on one version.
#[derive(Debug, Clone)]
pub struct Row {
    pub version: MastraVersion,
    pub status: Status,
    pub cases: Vec<(String, Option<IssueState>, Verdict, Option<String>)>,
}

/// Consecutive rows that agree, as `(first, last, count, status)`.
pub fn runs(rows: &[Row]) -> Vec<(MastraVersion, MastraVersion, usize, Status)> {
    let mut out: Vec<(MastraVersion, MastraVersion, usize, Status)> = Vec::new();
    for r in rows {
        match out.last_mut() {
            Some(last) if last.3 == r.status => {
                last.1 = r.version;
                last.2 += 1;
            }
            _ => out.push((r.version, r.version, 1, r.status)),
        }
    }
    out
}

fn row(version: MastraVersion, mut results: Vec<CaseResult>) -> Row {
    results.sort_by_key(|r| r.index);
    let cases: Vec<_> = results
        .into_iter()
        .map(|r| {
            let state = r.findings.known_issue.as_ref().map(|(_, s)| *s);
            (r.case, state, r.verdict, r.observed.infra_detail())
        })
        .collect();
    let states: Vec<Option<IssueState>> = cases.iter().map(|c| c.1).collect();
    let unserved = !cases.is_empty() && cases.iter().all(|c| c.2 == Verdict::VersionUnavailable);
    Row {
        version,
        status: if unserved {
            Status::Unavailable
        } else {
            Status::of(&states)
        },
        cases,
    }
}

fn row_json(r: &Row) -> Json {
    let cases = r
        .cases
        .iter()
        .map(|(case, state, verdict, detail)| {
            Json::object([
                ("case", Json::str(case)),
                ("state", state.map_or(Json::Null, |s| Json::str(s.name()))),
                ("verdict", Json::str(verdict.name())),
                ("detail", detail.as_deref().map_or(Json::Null, Json::str)),
            ])
        })
        .collect();
    Json::object([
        ("version", Json::str(&r.version.to_string())),
        ("status", Json::str(r.status.name())),
        ("cases", Json::Array(cases)),
    ])
}

/// Run `issues` on `versions`; print each issue's runs of versions; return
/// the exit status: 0 present (or absent as modelled) everywhere, 1 fixed on
/// some version (update `known-issues.json`), 3 a version could not be judged.
pub fn verify(
    session: &mut Session,
    issues: &[KnownIssue],
    versions: &[MastraVersion],
    json: Option<&Path>,
) -> Result<u8, CommandError> {
    let mut cases: Vec<Case> = Vec::new();
    let mut owner: Vec<usize> = Vec::new();
    for (i, issue) in issues.iter().enumerate() {
        for c in &issue.cases {
            cases.push(Case::load(&c.path)?);
            owner.push(i);
        }
    }
    let stop = session.stop.clone();
    let mut rows: Vec<Vec<Row>> = vec![Vec::new(); issues.len()];
    for (n, &v) in versions.iter().enumerate() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let mut per_issue: Vec<Vec<CaseResult>> = vec![Vec::new(); issues.len()];
        session.run_version(v, &cases, |r| per_issue[owner[r.index]].push(r));
        let line: Vec<String> = per_issue
            .into_iter()
            .enumerate()
            .map(|(i, results)| {
                let r = row(v, results);
                let s = format!("{} {}", issues[i].id, r.status.name());
                rows[i].push(r);
                s
            })
            .collect();
        eprintln!("[{}/{}] {v}: {}", n + 1, versions.len(), line.join(", "));
    }
    let mut any_fixed = false;
    let mut any_unknown = false;
    for (issue, rows) in issues.iter().zip(&rows) {
        println!("\n{}: {}", issue.id, issue.title);
        if let Some(link) = &issue.upstream {
            println!("  upstream: {link}");
        }
        println!("  known to be seen on: {}", issue.seen);
        for (first, last, count, status) in runs(rows) {
            let span = if count == 1 {
                first.to_string()
            } else {
                format!("{first} … {last} ({count} versions)")
            };
            println!("  {status:<22} {span}", status = status.name());
        }
        for r in rows
            .iter()
            .filter(|r| matches!(r.status, Status::Fixed | Status::PartlyFixed))
        {
            for (case, state, verdict, _) in &r.cases {
                println!(
                    "    {} {case}: {} ({})",
                    r.version,
                    state.map_or("-", IssueState::name),
                    verdict.name()
                );
            }
        }
        for r in rows.iter().filter(|r| r.status == Status::Unknown) {
            if let Some((case, _, verdict, detail)) = r.cases.first() {
                let why = detail
                    .as_deref()
                    .and_then(|d| d.lines().next())
                    .unwrap_or("");
                println!("    {} {case}: {} {why}", r.version, verdict.name());
            }
        }
        let count = |s: Status| rows.iter().filter(|r| r.status == s).count();
        println!(
            "  summary: present on {} of {} versions, fixed on {}, partly fixed on {}, absent on {}, unknown on {}, not served {}",
            count(Status::Present),
            rows.len(),
            count(Status::Fixed),
            count(Status::PartlyFixed),
            count(Status::Absent),
            count(Status::Unknown),
            count(Status::Unavailable)
        );
        any_fixed |= count(Status::Fixed) + count(Status::PartlyFixed) > 0;
        any_unknown |= count(Status::Unknown) > 0;
    }
    let interrupted = stop.load(Ordering::SeqCst);
    if let Some(path) = json {
        let doc = Json::object([
            (
                "versions",
                Json::Array(versions.iter().map(|v| Json::str(&v.to_string())).collect()),
            ),
            ("interrupted", Json::Bool(interrupted)),
            (
                "issues",
                Json::Array(
                    issues
                        .iter()
                        .zip(&rows)
                        .map(|(issue, rows)| {
                            Json::object([
                                ("issue", issue.to_json()),
                                ("versions", Json::Array(rows.iter().map(row_json).collect())),
                            ])
                        })
                        .collect(),
                ),
            ),
        ]);
        write_atomically(path, &doc.to_pretty())
            .map_err(|e| CommandError::Infra(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(if any_unknown || interrupted {
        exit::INFRA
    } else if any_fixed {
        exit::FINDING
    } else {
        exit::OK
    })
}

/// The `verify` command: `issue` is an id from `known-issues.json`, or
/// `all`.
pub fn command(
    config: crate::config::Config,
    issue: &str,
    versions: &str,
    json: Option<&Path>,
) -> Result<u8, CommandError> {
    let specs = crate::versions::VersionSpec::parse_list(versions)
        .map_err(|e| CommandError::BadInput(format!("--versions: {e}")))?;
    let mut session = Session::new(config, stop_flag())
        .map_err(|e| CommandError::Infra(format!("cannot start the session: {e}")))?;
    let known = &session.refiner.known;
    let issues: Vec<KnownIssue> = if issue == "all" {
        known.issues.clone()
    } else {
        let found = known.get(issue).cloned().ok_or_else(|| {
            CommandError::BadInput(format!(
                "no known issue {issue:?} in {} (known: {}, or `all`)",
                known.file.display(),
                known.ids().join(", ")
            ))
        })?;
        vec![found]
    };
    let versions = session.resolve(&specs).map_err(|e| match e {
        crate::versions::VersionError::BadSpec(_) | crate::versions::VersionError::Empty(_) => {
            CommandError::BadInput(e.to_string())
        }
        other => CommandError::Infra(crate::pipeline::error_chain(&other)),
    })?;
    verify(&mut session, &issues, &versions, json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use IssueState::*;

    #[test]
    fn a_version_status_from_its_cases() {
        assert_eq!(Status::of(&[Some(Present), Some(Present)]), Status::Present);
        assert_eq!(Status::of(&[Some(Present), Some(Absent)]), Status::Present);
        assert_eq!(
            Status::of(&[Some(Present), Some(Fixed)]),
            Status::PartlyFixed
        );
        assert_eq!(Status::of(&[Some(Fixed), None]), Status::Fixed);
        assert_eq!(Status::of(&[Some(Absent), Some(Absent)]), Status::Absent);
        assert_eq!(Status::of(&[None, None]), Status::Unknown);
        assert_eq!(Status::of(&[]), Status::Unknown);
    }

    #[test]
    fn runs_group_agreeing_neighbours() {
        let v = |m| MastraVersion::new(1, m, 0);
        let row = |m, status| Row {
            version: v(m),
            status,
            cases: Vec::new(),
        };
        let rows = [
            row(0, Status::Absent),
            row(1, Status::Present),
            row(2, Status::Present),
            row(3, Status::Fixed),
        ];
        assert_eq!(
            runs(&rows),
            vec![
                (v(0), v(0), 1, Status::Absent),
                (v(1), v(2), 2, Status::Present),
                (v(3), v(3), 1, Status::Fixed)
            ]
        );
    }
}
