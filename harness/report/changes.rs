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

/// The text `compare` prints, and whether something regressed (a finding:
/// the command layer exits 1).
pub fn render(old: &ReportDoc, new: &ReportDoc) -> (String, bool) {
    let all = changes(old, new);
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
    // The versions (a new release, a prerelease, a build) NEW ran that OLD
    // did not: the nightly's "what is new since last night".
    let versions = |d: &ReportDoc| {
        d.rows
            .iter()
            .map(|r| r.version.clone())
            .collect::<std::collections::BTreeSet<String>>()
    };
    let (before, after) = (versions(old), versions(new));
    let new_versions: Vec<&String> = after.difference(&before).collect();
    for kind in order {
        if kind == Change::New && !new_versions.is_empty() {
            let names: Vec<&str> = new_versions.iter().map(|v| v.as_str()).collect();
            out.push_str(&format!(
                "new versions ({}): {}\n",
                names.len(),
                names.join(", ")
            ));
        }
        let these: Vec<_> = all.iter().filter(|(c, _, _)| *c == kind).collect();
        if these.is_empty() {
            continue;
        }
        out.push_str(&format!("{} ({}):\n", kind.name(), these.len()));
        for (_, o, n) in these {
            let any = o.or(*n).expect("a pair has a side");
            let verdict = |r: &Option<&Row>| r.map_or("-", |r| r.verdict.name());
            out.push_str(&format!(
                "  {} on {}: {} -> {}\n",
                any.case,
                any.version,
                verdict(o),
                verdict(n)
            ));
            if kind == Change::Regressed {
                if let Some(d) = n.and_then(|r| r.diff.as_deref()) {
                    for line in d.lines() {
                        out.push_str(&format!("    {line}\n"));
                    }
                }
            }
        }
    }
    let unchanged = all
        .iter()
        .filter(|(c, _, _)| *c == Change::Unchanged)
        .count();
    out.push_str(&format!("unchanged: {unchanged}\n"));
    let regressed = all.iter().any(|(c, _, _)| *c == Change::Regressed);
    (out, regressed)
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
}
