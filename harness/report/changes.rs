//! `compare OLD.json NEW.json`: what regressed, what was fixed, what is new
//! and what is gone between two runs.
//!
//! Results are paired by (case, version). Each pair gets one `Change` from
//! one exhaustive match over the two verdicts' classes, crater-style:
//! infrastructure on either side is never called a regression or a fix
//! (the machine failed; nothing is known), nor is `flaky` on either side
//! (re-checks that disagree: listed apart), and a verdict that moved between
//! two calm ones (as-modelled to known-issue, say) is `changed`.

use super::doc::{ReportDoc, Row};
use crate::db::{DbError, RunDb};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::judge::compare::Verdict;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// Calm before, a divergence now.
    Regressed,
    /// A divergence before, calm now.
    Fixed,
    /// Only in NEW.
    New,
    /// Only in OLD.
    Gone,
    /// Another verdict of the same class.
    Changed,
    /// Flaky on one side or both (re-checks that disagree): not compared,
    /// never a regression nor a fix.
    Flaky,
    /// Infrastructure on one side or both: not compared.
    Infrastructure,
    Unchanged,
}

impl Change {
    pub fn name(self) -> &'static str {
        match self {
            Change::Regressed => "regressed",
            Change::Fixed => "fixed",
            Change::New => "new",
            Change::Gone => "gone",
            Change::Changed => "changed",
            Change::Flaky => "flaky (not compared)",
            Change::Infrastructure => "infrastructure (not compared)",
            Change::Unchanged => "unchanged",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Calm,
    Divergence,
    Flaky,
    Infrastructure,
}

fn class(v: Verdict) -> Class {
    if v == Verdict::Flaky {
        Class::Flaky
    } else if v.is_infrastructure() {
        Class::Infrastructure
    } else if v.is_divergence() {
        Class::Divergence
    } else {
        Class::Calm
    }
}

pub fn change(old: Option<Verdict>, new: Option<Verdict>) -> Option<Change> {
    Some(match (old, new) {
        (None, None) => return None,
        (None, Some(_)) => Change::New,
        (Some(_), None) => Change::Gone,
        (Some(o), Some(n)) if o == n => Change::Unchanged,
        (Some(o), Some(n)) => match (class(o), class(n)) {
            (Class::Flaky, _) | (_, Class::Flaky) => Change::Flaky,
            (Class::Infrastructure, _) | (_, Class::Infrastructure) => Change::Infrastructure,
            (Class::Calm, Class::Divergence) => Change::Regressed,
            (Class::Divergence, Class::Calm) => Change::Fixed,
            (Class::Calm, Class::Calm) | (Class::Divergence, Class::Divergence) => Change::Changed,
        },
    })
}

/// One result in OLD and in NEW (either may be missing).
type Pair<'a> = (Option<&'a Row>, Option<&'a Row>);

/// Every pair with its change, in (case, version) order.
pub fn changes<'a>(
    old: &'a ReportDoc,
    new: &'a ReportDoc,
) -> Vec<(Change, Option<&'a Row>, Option<&'a Row>)> {
    let mut pairs: BTreeMap<(String, String), Pair> = BTreeMap::new();
    for r in &old.rows {
        pairs.entry(r.key()).or_default().0 = Some(r);
    }
    for r in &new.rows {
        pairs.entry(r.key()).or_default().1 = Some(r);
    }
    pairs
        .into_values()
        .filter_map(|(o, n)| change(o.map(|r| r.verdict), n.map(|r| r.verdict)).map(|c| (c, o, n)))
        .collect()
}

/// What `compare` gathers, one pair at a time: the line of each pair that
/// changed, by kind, and how many did not. Only changes are held, so two
/// nights of any size compare in the memory of what moved between them.
#[derive(Default)]
struct Tally {
    lines: BTreeMap<Change, Vec<String>>,
    unchanged: usize,
}

impl Tally {
    /// One pair and its change. `diff` gives the newer side's diff, asked
    /// only for a regression, whose diff is printed.
    fn add<E>(
        &mut self,
        kind: Change,
        (case, version): (&str, &str),
        (old, new): (Option<Verdict>, Option<Verdict>),
        diff: impl FnOnce() -> Result<Option<String>, E>,
    ) -> Result<(), E> {
        if kind == Change::Unchanged {
            self.unchanged += 1;
            return Ok(());
        }
        let name = |v: Option<Verdict>| v.map_or("-", Verdict::name);
        let mut line = format!("  {case} on {version}: {} -> {}\n", name(old), name(new));
        if kind == Change::Regressed {
            for l in diff()?.unwrap_or_default().lines() {
                line.push_str(&format!("    {l}\n"));
            }
        }
        self.lines.entry(kind).or_default().push(line);
        Ok(())
    }

    /// The text `compare` prints, and whether something regressed.
    fn render(&self, new_versions: &[String]) -> (String, bool) {
        let mut out = String::new();
        let order = [
            Change::Regressed,
            Change::Fixed,
            Change::New,
            Change::Gone,
            Change::Changed,
            Change::Flaky,
            Change::Infrastructure,
        ];
        for kind in order {
            // The versions (a new release, a prerelease, a build) NEW ran
            // that OLD did not: the nightly's "what is new since last night".
            if kind == Change::New && !new_versions.is_empty() {
                out.push_str(&format!(
                    "new versions ({}): {}\n",
                    new_versions.len(),
                    new_versions.join(", ")
                ));
            }
            let Some(these) = self.lines.get(&kind) else {
                continue;
            };
            out.push_str(&format!("{} ({}):\n", kind.name(), these.len()));
            these.iter().for_each(|l| out.push_str(l));
        }
        out.push_str(&format!("unchanged: {}\n", self.unchanged));
        (out, self.lines.contains_key(&Change::Regressed))
    }
}

/// The versions of `new` that `old` does not have, in `new`'s order.
fn versions_new(old: &[String], new: &[String]) -> Vec<String> {
    let before: std::collections::BTreeSet<&String> = old.iter().collect();
    let mut seen = std::collections::BTreeSet::new();
    new.iter()
        .filter(|v| !before.contains(v) && seen.insert(*v))
        .cloned()
        .collect()
}

/// The text `compare` prints, and whether something regressed (a finding:
/// the command layer exits 1), for two reports read whole (JSON, JSONL).
pub fn render(old: &ReportDoc, new: &ReportDoc) -> (String, bool) {
    let mut tally = Tally::default();
    for (kind, o, n) in changes(old, new) {
        let any = o.or(n).expect("a pair has a side");
        let diff = || Ok::<_, std::convert::Infallible>(n.and_then(|r| r.diff.clone()));
        let Ok(()) = tally.add(
            kind,
            (&any.case, &any.version),
            (o.map(|r| r.verdict), n.map(|r| r.verdict)),
            diff,
        );
    }
    let sorted = |d: &ReportDoc| {
        let mut v: Vec<String> = d.rows.iter().map(|r| r.version.clone()).collect();
        v.sort();
        v
    };
    tally.render(&versions_new(&sorted(old), &sorted(new)))
}

/// `render` for two results databases, by queries: one row of each side at
/// a time (`RunDb::each_pair_with`).
pub fn render_db(old: &RunDb, new: &RunDb) -> Result<(String, bool), DbError> {
    let mut tally = Tally::default();
    let verdict = |db: &RunDb, name: Option<String>| -> Result<Option<Verdict>, DbError> {
        name.map(|n| {
            Verdict::from_name(&n).ok_or_else(|| {
                db.bad(format!(
                    "table `result`: field `verdict`: unknown verdict {n:?}"
                ))
            })
        })
        .transpose()
    };
    new.each_pair_with::<DbError>(old, |p| {
        let (o, n) = (verdict(old, p.old)?, verdict(new, p.new)?);
        let diff = || -> Result<Option<String>, DbError> {
            let Some(h) = &p.new_extra else {
                return Ok(None);
            };
            Ok(new
                .blob(h)?
                .and_then(|e| e.get("diff").and_then(Json::as_str).map(JsString::to_lossy)))
        };
        match change(o, n) {
            Some(kind) => tally.add(kind, (&p.case, &p.version), (o, n), diff),
            None => Ok(()),
        }
    })?;
    let sorted = |db: &RunDb| -> Result<Vec<String>, DbError> {
        let mut v = db.versions()?;
        v.sort();
        Ok(v)
    };
    let new_versions = versions_new(&sorted(old)?, &sorted(new)?);
    Ok(tally.render(&new_versions))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Verdict::*;

    #[test]
    fn one_match_for_every_pair() {
        let table = [
            (None, Some(AsModelled), Some(Change::New)),
            (Some(AsModelled), None, Some(Change::Gone)),
            (Some(AsModelled), Some(AsModelled), Some(Change::Unchanged)),
            (Some(AsModelled), Some(Diverged), Some(Change::Regressed)),
            (
                Some(KnownIssue),
                Some(KnownIssueFixed),
                Some(Change::Regressed),
            ),
            (Some(Diverged), Some(AsModelled), Some(Change::Fixed)),
            (Some(AsModelled), Some(KnownIssue), Some(Change::Changed)),
            (Some(Diverged), Some(SnapshotChanged), Some(Change::Changed)),
            (
                Some(AsModelled),
                Some(Timeout),
                Some(Change::Infrastructure),
            ),
            (
                Some(InstallFailed),
                Some(Diverged),
                Some(Change::Infrastructure),
            ),
            (Some(AsModelled), Some(Flaky), Some(Change::Flaky)),
            (Some(Flaky), Some(Diverged), Some(Change::Flaky)),
            (Some(Timeout), Some(Flaky), Some(Change::Flaky)),
            (Some(Flaky), Some(Flaky), Some(Change::Unchanged)),
            (None, None, None),
        ];
        for (old, new, want) in table {
            assert_eq!(change(old, new), want, "{old:?} -> {new:?}");
        }
    }

    #[test]
    fn infrastructure_is_never_a_regression_or_a_fix() {
        for o in Verdict::ALL {
            for n in Verdict::ALL {
                let c = change(Some(o), Some(n)).unwrap();
                // Flaky on either side is listed as flaky (its own test).
                let flaky = o == Flaky || n == Flaky;
                if !flaky && (o.is_infrastructure() || n.is_infrastructure()) {
                    assert!(
                        matches!(c, Change::Infrastructure | Change::Unchanged),
                        "{o:?} {n:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn flaky_is_never_a_regression_or_a_fix() {
        for v in Verdict::ALL {
            for c in [change(Some(v), Some(Flaky)), change(Some(Flaky), Some(v))] {
                assert!(
                    matches!(c, Some(Change::Flaky | Change::Unchanged)),
                    "{v:?} {c:?}"
                );
            }
        }
        let old = crate::report::doc::tests::sample();
        let mut new = old.clone();
        new.rows[0].verdict = Flaky;
        let (text, regressed) = render(&old, &new);
        assert!(!regressed, "{text}");
        assert!(
            text.contains(
                "flaky (not compared) (1):\n  cases/a.json on 1.0.4: as-modelled -> flaky\n"
            ),
            "{text}"
        );
        assert!(!text.contains("regressed"), "{text}");
    }

    #[test]
    fn a_regression_is_printed_with_its_diff_and_fails() {
        let old = crate::report::doc::tests::sample();
        let mut new = old.clone();
        new.rows[0].verdict = Diverged;
        new.rows[0].diff = Some("-a\n+b\n".into());
        new.rows[1].verdict = AsModelled;
        new.rows.pop();
        let (text, regressed) = render(&old, &new);
        assert!(regressed);
        assert!(text.contains("regressed (1):\n  cases/a.json on 1.0.4: as-modelled -> diverged\n    -a\n    +b\n"), "{text}");
        assert!(
            text.contains("fixed (1):\n  cases/a.json on 1.67.0: diverged -> as-modelled\n"),
            "{text}"
        );
        assert!(text.contains("gone (1):"), "{text}");
        assert!(!text.contains("new versions"), "{text}");
    }

    #[test]
    fn versions_new_since_the_old_report_are_named() {
        let old = crate::report::doc::tests::sample();
        let mut new = old.clone();
        let mut row = new.rows[0].clone();
        row.version = "1.72.0-alpha.1".into();
        new.rows.push(row);
        let (text, _) = render(&old, &new);
        assert!(
            text.contains("new versions (1): 1.72.0-alpha.1\n"),
            "{text}"
        );
    }

    /// A results database holding `doc`'s rows, as a run writes them.
    fn database(dir: &std::path::Path, name: &str, doc: &ReportDoc) -> RunDb {
        use crate::db::write::DbWriter;
        let path = dir.join(name);
        let run = Json::object([("commit", Json::str("abc"))]);
        let mut w = DbWriter::create(&path, &run).unwrap();
        for r in &doc.rows {
            let mut members = vec![
                ("case", Json::str(&r.case)),
                ("route", Json::str("openai")),
                ("version", Json::str(&r.version)),
                ("verdict", Json::str(r.verdict.name())),
                ("predicted", r.predicted.clone()),
                ("observed", r.observed.clone()),
            ];
            if let Some(d) = &r.diff {
                members.push(("diff", Json::str(d)));
            }
            w.add(None, &Json::object(members)).unwrap();
        }
        w.finish(&run, false).unwrap();
        RunDb::open(&path).unwrap()
    }

    #[test]
    fn two_databases_compare_as_their_reports_do() {
        let old = crate::report::doc::tests::sample();
        let mut new = old.clone();
        new.rows[0].verdict = Diverged;
        new.rows[0].diff = Some("-a\n+b\n".into());
        new.rows[1].verdict = AsModelled;
        new.rows[1].diff = None;
        new.rows[3].verdict = Flaky;
        new.rows.remove(2);
        let mut row = new.rows[0].clone();
        row.version = "1.72.0-alpha.1".into();
        row.verdict = AsModelled;
        new.rows.push(row);
        let dir = tempfile::tempdir().unwrap();
        let (o, n) = (
            database(dir.path(), "old.sqlite", &old),
            database(dir.path(), "new.sqlite", &new),
        );
        let by_query = render_db(&o, &n).unwrap();
        assert_eq!(by_query, render(&old, &new));
        let (text, regressed) = by_query;
        assert!(regressed, "{text}");
        for part in [
            "regressed (1):\n  cases/a.json on 1.0.4: as-modelled -> diverged\n    -a\n    +b\n",
            "fixed (1):\n  cases/a.json on 1.67.0: diverged -> as-modelled\n",
            "new versions (1): 1.72.0-alpha.1\nnew (1):\n",
            "gone (1):\n  cases/b<c>.json on 1.0.4: known-issue -> -\n",
            "flaky (not compared) (1):\n",
            "unchanged: 0\n",
        ] {
            assert!(text.contains(part), "{part:?} in {text}");
        }
        let (same, regressed) = render_db(&o, &o).unwrap();
        assert!(!regressed && same.ends_with("unchanged: 4\n"), "{same}");
    }
}
