//! `Diff`: the same cases observed on two builds (`diff --from A --to B`),
//! compared with each other and never with the model. It shows a maintainer
//! everything a patch changes on the wire.
//!
//! In: cases and two versions (releases, prereleases or builds). Each case
//! runs through the one pipeline on both sides; only the observed side of
//! each result is read. Out: one `CaseDiff` per case: the same, differing
//! (in its projection or its normalised bodies, with both diffs), or not
//! compared (infrastructure on a side). A difference is put under the known
//! issue whose fixed behaviour it matches: the issue showed on `from`, is
//! gone on `to`, and `to` shows the ledger's `fixedShows`.
//!
//! Equality, written down: projections compare as JSON with sorted keys and
//! arrays in order, without `reason` (prose that names the version); bodies
//! compare as their snapshot text (normalised, ids redacted).

use crate::case::Case;
use crate::js::json::Json;
use crate::judge::case_result::CaseResult;
use crate::judge::known::{KnownIssue, KnownIssues};
use crate::judge::snapshot;
use crate::observation::Observed;
use crate::projection::Projection;
use crate::run::session::Session;
use crate::version::spec::MastraVersion;
use std::collections::BTreeMap;

/// One case on both sides.
#[derive(Debug, Clone, PartialEq)]
pub enum CaseDiff {
    Same,
    Differs {
        /// A unified diff of the projections, when they differ.
        projection: Option<String>,
        /// A unified diff of the normalised bodies, when they differ.
        bodies: Option<String>,
        /// The known issue whose fixed behaviour `to` shows, if any.
        fixes: Option<String>,
    },
    /// A side could not run the case: nothing is known.
    NotCompared(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct DiffEntry {
    pub case: String,
    pub outcome: CaseDiff,
}

/// Everything `diff` found.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    pub from: MastraVersion,
    pub to: MastraVersion,
    pub entries: Vec<DiffEntry>,
}

/// Observe `cases` on `from` and on `to`, and compare each case's two sides.
/// An interrupted run leaves out the cases that did not finish on both.
pub fn diff(session: &mut Session, cases: &[Case], from: MastraVersion, to: MastraVersion) -> Diff {
    let mut sides: Vec<[Option<Observed>; 2]> = vec![[None, None]; cases.len()];
    for (side, version) in [from, to].into_iter().enumerate() {
        session.run_version(version, cases, |r: CaseResult| {
            sides[r.index][side] = Some(r.observed);
        });
    }
    let known = &session.refiner.known;
    let entries = cases
        .iter()
        .zip(sides)
        .filter_map(|(case, [a, b])| {
            Some(DiffEntry {
                case: case.name(),
                outcome: compare_sides(case, &a?, &b?, known),
            })
        })
        .collect();
    Diff { from, to, entries }
}

/// One case's two observations, compared. A difference is filed under the
/// issue the case shows (the ledger's for a listed case, else the one its
/// symptom is recognised as) when it matches that issue's fix.
pub fn compare_sides(case: &Case, from: &Observed, to: &Observed, known: &KnownIssues) -> CaseDiff {
    let (
        Observed::Ran {
            projection: pa,
            bodies: ba,
        },
        Observed::Ran {
            projection: pb,
            bodies: bb,
        },
    ) = (from, to)
    else {
        let why = [from, to]
            .iter()
            .filter_map(|o| o.infra_detail())
            .collect::<Vec<_>>()
            .join("; ");
        return CaseDiff::NotCompared(why);
    };
    let (ja, jb) = (comparable(pa), comparable(pb));
    let projection = (ja != jb).then(|| unified(&ja, &jb));
    let (ta, tb) = (snapshot::text(ba), snapshot::text(bb));
    let bodies = (ta != tb).then(|| unified(&ta, &tb));
    if projection.is_none() && bodies.is_none() {
        return CaseDiff::Same;
    }
    // The issue the case shows, found as `run` finds it (`recognise`), so
    // `diff` and the run's reports put a case in the same group.
    let fixes = known
        .recognise(case, &[pa, pb])
        .map(|(i, _)| i)
        .filter(|i| matches_fix(i, pa, pb))
        .map(|i| i.id.clone());
    CaseDiff::Differs {
        projection,
        bodies,
        fixes,
    }
}

/// Whether `from` shows the issue, `to` no longer does, and `to` shows the
/// fixed behaviour the ledger describes. Any of the issue's symptoms
/// counts.
pub fn matches_fix(issue: &KnownIssue, from: &Projection, to: &Projection) -> bool {
    let Some(fixed) = &issue.fixed_shows else {
        return false;
    };
    let shows = |p: &Projection| issue.cases.iter().any(|c| c.shows.shows(p));
    shows(from) && !shows(to) && fixed.shows(to)
}

fn comparable(p: &Projection) -> String {
    let mut j = p.to_json();
    if let Json::Object(members) = &mut j {
        members.retain(|(k, _)| k.to_lossy() != "reason");
    }
    j.to_pretty_sorted()
}

fn unified(a: &str, b: &str) -> String {
    similar::TextDiff::from_lines(a, b)
        .unified_diff()
        .context_radius(2)
        .to_string()
}

impl Diff {
    pub fn differing(&self) -> impl Iterator<Item = &DiffEntry> {
        self.entries
            .iter()
            .filter(|e| matches!(e.outcome, CaseDiff::Differs { .. }))
    }

    pub fn not_compared(&self) -> impl Iterator<Item = &DiffEntry> {
        self.entries
            .iter()
            .filter(|e| matches!(e.outcome, CaseDiff::NotCompared(_)))
    }

    /// Differing cases grouped by the issue whose fix they match (`None`:
    /// a change no known issue explains), issues by id, the unexplained last.
    pub fn groups(&self) -> Vec<(Option<&str>, Vec<&DiffEntry>)> {
        let mut by: BTreeMap<(bool, Option<&str>), Vec<&DiffEntry>> = BTreeMap::new();
        for e in self.differing() {
            if let CaseDiff::Differs { fixes, .. } = &e.outcome {
                by.entry((fixes.is_none(), fixes.as_deref()))
                    .or_default()
                    .push(e);
            }
        }
        by.into_iter().map(|((_, id), list)| (id, list)).collect()
    }

    pub fn to_json(&self) -> Json {
        let entry = |e: &DiffEntry| {
            let mut m = vec![("case", Json::str(&e.case))];
            match &e.outcome {
                CaseDiff::Same => m.push(("differs", Json::Bool(false))),
                CaseDiff::Differs {
                    projection,
                    bodies,
                    fixes,
                } => {
                    m.push(("differs", Json::Bool(true)));
                    m.push(("fixes", fixes.as_deref().map_or(Json::Null, Json::str)));
                    m.push((
                        "projectionDiff",
                        projection.as_deref().map_or(Json::Null, Json::str),
                    ));
                    m.push(("bodyDiff", bodies.as_deref().map_or(Json::Null, Json::str)));
                }
                CaseDiff::NotCompared(why) => {
                    m.push(("differs", Json::Null));
                    m.push(("notCompared", Json::str(why)));
                }
            }
            Json::object(m)
        };
        Json::object([
            ("from", Json::str(&self.from.to_string())),
            ("to", Json::str(&self.to.to_string())),
            (
                "cases",
                Json::Array(self.entries.iter().map(entry).collect()),
            ),
        ])
    }

    /// The Markdown report: the groups, then every difference in full.
    pub fn markdown(&self) -> String {
        let mut md = format!("# diff: {} -> {}\n\n", self.from, self.to);
        md.push_str(&format!(
            "{} cases observed on both; {} differ; {} not compared.\n\n",
            self.entries.len(),
            self.differing().count(),
            self.not_compared().count()
        ));
        for (issue, list) in self.groups() {
            match issue {
                Some(id) => md.push_str(&format!(
                    "## Matches the fixed behaviour of `{id}` ({})\n\n",
                    list.len()
                )),
                None => md.push_str(&format!(
                    "## Not explained by a known issue ({})\n\n",
                    list.len()
                )),
            }
            for e in list {
                md.push_str(&format!("### `{}`\n\n", e.case));
                if let CaseDiff::Differs {
                    projection, bodies, ..
                } = &e.outcome
                {
                    for (what, d) in [("projection", projection), ("bodies", bodies)] {
                        if let Some(d) = d {
                            md.push_str(&format!("{what}:\n\n```diff\n{d}```\n\n"));
                        }
                    }
                }
            }
        }
        let skipped: Vec<_> = self.not_compared().collect();
        if !skipped.is_empty() {
            md.push_str(&format!("## Not compared ({})\n\n", skipped.len()));
            for e in skipped {
                if let CaseDiff::NotCompared(why) = &e.outcome {
                    md.push_str(&format!(
                        "- `{}`: {}\n",
                        e.case,
                        why.lines().next().unwrap_or("")
                    ));
                }
            }
            md.push('\n');
        }
        md
    }

    /// The terminal summary: one line per differing case, under its group.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        for (issue, list) in self.groups() {
            match issue {
                Some(id) => out.push_str(&format!(
                    "matches the fixed behaviour of {id} ({}):\n",
                    list.len()
                )),
                None => out.push_str(&format!(
                    "not explained by a known issue ({}):\n",
                    list.len()
                )),
            }
            for e in list {
                out.push_str(&format!("  {}\n", e.case));
                if let CaseDiff::Differs {
                    projection: Some(d),
                    ..
                } = &e.outcome
                {
                    for line in d.lines().filter(|l| {
                        l.starts_with(['-', '+']) && !l.starts_with("---") && !l.starts_with("+++")
                    }) {
                        out.push_str(&format!("    {line}\n"));
                    }
                }
            }
        }
        for e in self.not_compared() {
            if let CaseDiff::NotCompared(why) = &e.outcome {
                out.push_str(&format!(
                    "not compared: {}: {}\n",
                    e.case,
                    why.lines().next().unwrap_or("")
                ));
            }
        }
        out.push_str(&format!(
            "{} -> {}: {} cases, {} differ, {} not compared\n",
            self.from,
            self.to,
            self.entries.len(),
            self.differing().count(),
            self.not_compared().count()
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::known::{Condition, IssueCase, Symptom};
    use crate::observation::Captured;
    use crate::projection::RequestView;
    use crate::route::Route;
    use std::path::{Path, PathBuf};

    fn ran(body: &str) -> Observed {
        let json = Json::parse(body).unwrap();
        Observed::Ran {
            projection: Projection {
                requests: vec![RequestView::on(Route::OpenAiCompatible, &json)],
                ..Projection::empty()
            },
            bodies: vec![Captured {
                bytes: body.as_bytes().to_vec(),
                problem: None,
            }],
        }
    }

    fn body(tools: &[&str], choice: Option<&str>, extra: &str) -> String {
        let tools: Vec<String> = tools
            .iter()
            .map(|t| format!(r#"{{"type":"function","function":{{"name":"{t}"}}}}"#))
            .collect();
        let choice = choice.map_or(String::new(), |c| {
            format!(r#","tool_choice":{{"type":"function","function":{{"name":"{c}"}}}}"#)
        });
        format!(
            r#"{{"model":"m","tools":[{}]{choice}{extra}}}"#,
            tools.join(",")
        )
    }

    fn ledger() -> KnownIssues {
        KnownIssues {
            paths: Default::default(),
            file: PathBuf::from("known-issues.json"),
            issues: vec![KnownIssue {
                id: "toolchoice-not-rewritten".into(),
                title: String::new(),
                severity: crate::judge::known::Severity::Error,
                wrong: String::new(),
                fixed: String::new(),
                fixed_shows: Some(Symptom::ToolChoiceSent),
                upstream: None,
                seen: "all".into(),
                recognise: vec![Condition::ChoiceNeedsRewrite],
                fix_at: None,
                advisory: None,
                cases: vec![IssueCase {
                    case: "elsewhere.json".into(),
                    path: PathBuf::from("/nonexistent/elsewhere.json"),
                    route: None,
                    shows: Symptom::ToolChoiceNotSent,
                }],
            }],
        }
    }

    #[test]
    fn differences_are_filed_under_the_fix_they_match_and_nothing_else() {
        let case = Case::parse(
            Path::new("cases/x.json"),
            r#"{"about":"a","tools":["search.web"]}"#,
        )
        .unwrap();
        let bug = body(&["search_web"], Some("search.web"), "");
        let fixed = body(&["search_web"], Some("search_web"), "");
        let dropped = body(&["search_web"], None, "");
        let other = body(&["search_web", "extra"], Some("search.web"), "");
        let body_only = body(&["search_web"], Some("search.web"), r#","temperature":0"#);
        let known = ledger();
        let outcome = |a: &str, b: &str| compare_sides(&case, &ran(a), &ran(b), &known);
        let fixes = |d: CaseDiff| match d {
            CaseDiff::Differs { fixes, .. } => fixes,
            other => panic!("expected a difference, got {other:?}"),
        };
        assert_eq!(outcome(&bug, &bug), CaseDiff::Same);
        assert_eq!(
            fixes(outcome(&bug, &fixed)).as_deref(),
            Some("toolchoice-not-rewritten"),
            "the symptom is gone and the fixed behaviour shows"
        );
        assert_eq!(
            fixes(outcome(&bug, &dropped)),
            None,
            "gone, but not as the ledger's fix: a third behaviour"
        );
        assert_eq!(fixes(outcome(&bug, &other)), None, "a change of its own");
        match outcome(&bug, &body_only) {
            CaseDiff::Differs {
                projection: None,
                bodies: Some(d),
                fixes: None,
            } => assert!(d.contains("+  \"temperature\": 0"), "{d}"),
            other => panic!("a body-only difference, got {other:?}"),
        }
        let down = Observed::Timeout(std::time::Duration::from_secs(30));
        assert!(matches!(
            compare_sides(&case, &ran(&bug), &down, &known),
            CaseDiff::NotCompared(_)
        ));
    }
}
