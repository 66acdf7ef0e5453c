//! `verify`: for each version, whether a known upstream issue is present or
//! fixed. It answers "did the upstream fix land?".
//!
//! In: a `KnownIssue` (or all of them) and a version set. Only the issue's
//! own cases run, through the one pipeline, so even `--versions all` stays
//! quick. Out: a `Verification`, one `Status` per issue and version, from
//! the `IssueState` that `refine` already gave each result; the command
//! layer prints it as runs of versions that agree (`runs`) and, with
//! `--json`, per version and per case.

use crate::case::Case;
use crate::js::json::Json;
use crate::judge::case_result::CaseResult;
use crate::judge::compare::Verdict;
use crate::judge::known::{IssueState, KnownIssue, KnownIssues};
use crate::outcome::Failure;
use crate::route::RouteSet;
use crate::run::session::Session;
use crate::version::spec::{versions_json, MastraVersion};
use std::sync::atomic::Ordering;

/// An issue on one version, over all its cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Every case that ran shows it (or shows it where the model expects it).
    Present,
    /// Some cases show it, others are fixed.
    PartlyFixed,
    /// No case shows it, the model expects at least one to, and each case
    /// where it is gone shows the fixed behaviour the ledger describes
    /// (`fixedShows`, when the ledger gives one).
    Fixed,
    /// No case shows it, but some case where it is gone does not show the
    /// ledger's fixed behaviour: a third behaviour, not the fix.
    Changed,
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
            Status::Changed => "CHANGED (not the fixed behaviour)",
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
    /// Whether every case where the issue is gone shows the ledger's fixed
    /// behaviour (`None`: no such case, or the ledger gives none).
    pub as_described: Option<bool>,
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

fn row(version: MastraVersion, issue: &KnownIssue, mut results: Vec<CaseResult>) -> Row {
    results.sort_by_key(|r| r.index);
    // For each case where the issue is gone: is the new behaviour the one
    // the ledger calls fixed?
    let as_described = issue.fixed_shows.as_ref().and_then(|fixed| {
        let checks: Vec<bool> = results
            .iter()
            .filter(|r| matches!(r.findings.known_issue, Some((_, IssueState::Fixed))))
            .filter_map(|r| r.observed.projection().map(|p| fixed.shows(p)))
            .collect();
        (!checks.is_empty()).then(|| checks.iter().all(|c| *c))
    });
    let cases: Vec<_> = results
        .into_iter()
        .map(|r| {
            let state = r.findings.known_issue.as_ref().map(|(_, s)| *s);
            (r.case, state, r.verdict, r.observed.infra_detail())
        })
        .collect();
    let states: Vec<Option<IssueState>> = cases.iter().map(|c| c.1).collect();
    let unserved = !cases.is_empty() && cases.iter().all(|c| c.2 == Verdict::VersionUnavailable);
    let status = match Status::of(&states) {
        _ if unserved => Status::Unavailable,
        Status::Fixed if as_described == Some(false) => Status::Changed,
        s => s,
    };
    Row {
        version,
        status,
        cases,
        as_described,
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
        (
            "fixedAsDescribed",
            r.as_described.map_or(Json::Null, Json::Bool),
        ),
        ("cases", Json::Array(cases)),
    ])
}

/// The answer of `verify`: per issue, one row per version that ran. Present
/// and fixed are both answers; only a version that could not be judged
/// (`any_unknown`) or an interruption makes the command fail.
#[derive(Debug, Clone)]
pub struct Verification {
    pub issues: Vec<KnownIssue>,
    pub versions: Vec<MastraVersion>,
    /// `rows[i]` belongs to `issues[i]`, in version order.
    pub rows: Vec<Vec<Row>>,
    pub interrupted: bool,
}

impl Verification {
    /// Whether some version could not say (an infrastructure outcome).
    pub fn any_unknown(&self) -> bool {
        self.rows
            .iter()
            .flatten()
            .any(|r| r.status == Status::Unknown)
    }

    /// The JSON record: per issue, per version, per case.
    pub fn to_json(&self) -> Json {
        Json::object([
            ("versions", versions_json(&self.versions)),
            ("interrupted", Json::Bool(self.interrupted)),
            (
                "issues",
                Json::Array(
                    self.issues
                        .iter()
                        .zip(&self.rows)
                        .map(|(issue, rows)| {
                            Json::object([
                                ("issue", issue.to_json()),
                                ("versions", Json::Array(rows.iter().map(row_json).collect())),
                            ])
                        })
                        .collect(),
                ),
            ),
        ])
    }
}

/// Pick the issues `id` names: one id, or `all`.
pub fn select(known: &KnownIssues, id: &str) -> Result<Vec<KnownIssue>, Failure> {
    if id == "all" {
        return Ok(known.issues.clone());
    }
    let found = known.get(id).cloned().ok_or_else(|| {
        Failure::bad(format!(
            "no known issue {id:?} in {} (known: {}, or `all`)",
            known.file.display(),
            known.ids().join(", ")
        ))
    })?;
    Ok(vec![found])
}

/// Run the issues' own cases on each version; `on_version` hears each
/// version's statuses (issue id, status) as soon as they are known.
pub fn verify(
    session: &mut Session,
    issues: Vec<KnownIssue>,
    versions: &[MastraVersion],
    routes: Option<&RouteSet>,
    mut on_version: impl FnMut(MastraVersion, &[(String, Status)]),
) -> Result<Verification, Failure> {
    let mut cases: Vec<Case> = Vec::new();
    let mut owner: Vec<usize> = Vec::new();
    for (i, issue) in issues.iter().enumerate() {
        for c in &issue.cases {
            let case = crate::run::corpus::read_case(&c.path)?;
            // An entry for one route runs there; an entry for every route
            // runs on the routes asked for (default: the case's own).
            match (c.route, routes) {
                (Some(r), _) => cases.push(case.on_route(r)),
                (None, Some(set)) if !case.names_its_route() => {
                    for &r in set.routes() {
                        let taken = issue
                            .cases
                            .iter()
                            .any(|o| o.path == c.path && o.route == Some(r));
                        if !taken {
                            cases.push(case.on_route(r));
                            owner.push(i);
                        }
                    }
                    continue;
                }
                _ => cases.push(case),
            }
            owner.push(i);
        }
    }
    let stop = session.stop.clone();
    let mut rows: Vec<Vec<Row>> = vec![Vec::new(); issues.len()];
    for &v in versions {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let mut per_issue: Vec<Vec<CaseResult>> = vec![Vec::new(); issues.len()];
        session.run_version(v, &cases, |r| per_issue[owner[r.index]].push(r));
        let line: Vec<(String, Status)> = per_issue
            .into_iter()
            .enumerate()
            .map(|(i, results)| {
                let r = row(v, &issues[i], results);
                let s = (issues[i].id.clone(), r.status);
                rows[i].push(r);
                s
            })
            .collect();
        on_version(v, &line);
    }
    Ok(Verification {
        issues,
        versions: versions.to_vec(),
        rows,
        interrupted: stop.load(Ordering::SeqCst),
    })
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
            as_described: None,
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
