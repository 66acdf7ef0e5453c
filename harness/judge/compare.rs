//! `Verdict`: one exhaustive match from (predicted, observed) to what a
//! result means.
//!
//! Equality is `Json`'s (`json.rs`): strings as UTF-16 code units, numbers by
//! value, objects by key, arrays in order. A projection's `reason` is not
//! compared: it is prose for people, and its wording names the version.
//! Infrastructure outcomes (timeout, crash, install) are never divergences,
//! and divergences are never infrastructure.

use crate::js::json::Json;
use crate::model::Prediction;
use crate::observation::Observed;
use crate::projection::Projection;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    /// The observation is what the model predicted.
    AsModelled,
    /// It is not: a new divergence, to be explained.
    Diverged,
    /// As modelled, and what is modelled is a known upstream issue.
    KnownIssue,
    /// A known upstream issue's case no longer shows it: fixed upstream?
    KnownIssueFixed,
    /// The case cannot run on this version (a builtin it lacks), as predicted.
    NotApplicable,
    /// The model says it does not cover this case; the observation stands.
    Unmodelled,
    /// The case's result depends on the order concurrent requests arrive
    /// in: the observation is one of the projections the model gives for
    /// the orders possible. Never a divergence: run again, it may differ.
    Nondeterministic,
    /// As modelled, but the captured bodies changed against their snapshot.
    SnapshotChanged,
    /// As modelled, but a provider would reject a body Mastra sent.
    ProviderRejects,
    Timeout,
    Crash,
    ProbeFault,
    VersionUnavailable,
    InstallFailed,
    /// Observed again (`--recheck N`), and the tries disagree: their
    /// observations or verdicts differ. Seen, not predicted (unlike
    /// `Nondeterministic`); never a divergence nor a regression.
    Flaky,
}

impl Verdict {
    pub const ALL: [Verdict; 15] = [
        Verdict::AsModelled,
        Verdict::Diverged,
        Verdict::KnownIssue,
        Verdict::KnownIssueFixed,
        Verdict::NotApplicable,
        Verdict::Unmodelled,
        Verdict::Nondeterministic,
        Verdict::SnapshotChanged,
        Verdict::ProviderRejects,
        Verdict::Timeout,
        Verdict::Crash,
        Verdict::ProbeFault,
        Verdict::VersionUnavailable,
        Verdict::InstallFailed,
        Verdict::Flaky,
    ];

    /// The name used in reports and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::AsModelled => "as-modelled",
            Verdict::Diverged => "diverged",
            Verdict::KnownIssue => "known-issue",
            Verdict::KnownIssueFixed => "known-issue-fixed",
            Verdict::NotApplicable => "not-applicable",
            Verdict::Unmodelled => "unmodelled",
            Verdict::Nondeterministic => "nondeterministic",
            Verdict::SnapshotChanged => "snapshot-changed",
            Verdict::ProviderRejects => "provider-rejects",
            Verdict::Timeout => "probe-timeout",
            Verdict::Crash => "probe-crash",
            Verdict::ProbeFault => "probe-fault",
            Verdict::VersionUnavailable => "version-unavailable",
            Verdict::InstallFailed => "install-failed",
            Verdict::Flaky => "flaky",
        }
    }

    pub fn from_name(name: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.name() == name)
    }

    /// The machine failed us; says nothing about Mastra.
    pub fn is_infrastructure(self) -> bool {
        matches!(
            self,
            Verdict::Timeout
                | Verdict::Crash
                | Verdict::ProbeFault
                | Verdict::VersionUnavailable
                | Verdict::InstallFailed
        )
    }

    /// Needs a person: the model and Mastra disagree.
    pub fn is_divergence(self) -> bool {
        matches!(
            self,
            Verdict::Diverged | Verdict::KnownIssueFixed | Verdict::SnapshotChanged
        )
    }
}

/// Projections as compared: everything but the prose `reason`.
pub fn comparable(p: &Projection) -> Json {
    let mut p = p.clone();
    p.reason = None;
    p.to_json()
}

/// The verdict of one case on one version, before known issues, snapshots
/// and provider checks refine an `AsModelled`.
pub fn compare(predicted: &Prediction, observed: &Observed) -> Verdict {
    match (predicted, observed) {
        (_, Observed::Unavailable(_)) => Verdict::VersionUnavailable,
        (_, Observed::InstallFailed(_)) => Verdict::InstallFailed,
        (_, Observed::Timeout(_)) => Verdict::Timeout,
        (_, Observed::Crash(_)) => Verdict::Crash,
        (_, Observed::ProbeFault(_)) => Verdict::ProbeFault,
        (Prediction::Unmodelled(_), Observed::Ran { .. }) => Verdict::Unmodelled,
        // Any order's projection is what Mastra may do; one no order gives
        // is a divergence like any other.
        (Prediction::Races(ps), Observed::Ran { projection: o, .. }) => {
            if ps.iter().any(|p| comparable(p) == comparable(o)) {
                Verdict::Nondeterministic
            } else {
                Verdict::Diverged
            }
        }
        (Prediction::Projection(p), Observed::Ran { projection: o, .. }) => {
            match (p.applicable, o.applicable) {
                (false, false) => Verdict::NotApplicable,
                (true, true) if comparable(p) == comparable(o) => Verdict::AsModelled,
                _ => Verdict::Diverged,
            }
        }
    }
}

/// A readable diff of two projections (sorted keys, arrays in order).
pub fn diff(predicted: &Json, observed: &Json) -> String {
    let (a, b) = (predicted.to_pretty_sorted(), observed.to_pretty_sorted());
    similar::TextDiff::from_lines(&a, &b)
        .unified_diff()
        .context_radius(3)
        .header("predicted", "observed")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::projection::Projection;
    use std::time::Duration;

    fn ran(p: Projection) -> Observed {
        Observed::Ran {
            projection: p,
            bodies: Vec::new(),
        }
    }

    #[test]
    fn every_pairing_has_one_verdict() {
        let p = Prediction::Projection(Projection::empty());
        assert_eq!(compare(&p, &ran(Projection::empty())), Verdict::AsModelled);
        let mut other = Projection::empty();
        other.mutated.push("tools".into());
        assert_eq!(compare(&p, &ran(other)), Verdict::Diverged);
        let na = Prediction::Projection(Projection::not_applicable("a".into()));
        assert_eq!(
            compare(&na, &ran(Projection::not_applicable("b".into()))),
            Verdict::NotApplicable
        );
        assert_eq!(compare(&na, &ran(Projection::empty())), Verdict::Diverged);
        assert_eq!(
            compare(
                &Prediction::Unmodelled("x".into()),
                &ran(Projection::empty())
            ),
            Verdict::Unmodelled
        );
        let mut second = Projection::empty();
        second.executed.push(crate::projection::Executed {
            id: "t".into(),
            input: Json::Null,
        });
        let races = Prediction::Races(vec![Projection::empty(), second.clone()]);
        assert_eq!(compare(&races, &ran(second)), Verdict::Nondeterministic);
        let mut neither = Projection::empty();
        neither.mutated.push("tools".into());
        assert_eq!(compare(&races, &ran(neither)), Verdict::Diverged);
        assert_eq!(
            compare(&p, &Observed::Timeout(Duration::from_secs(1))),
            Verdict::Timeout
        );
        assert_eq!(
            compare(&p, &Observed::Unavailable("x".into())),
            Verdict::VersionUnavailable
        );
    }

    #[test]
    fn infrastructure_and_divergence_never_overlap() {
        for v in Verdict::ALL {
            assert!(!(v.is_infrastructure() && v.is_divergence()), "{v:?}");
            assert_eq!(Verdict::from_name(v.name()), Some(v));
        }
    }

    #[test]
    fn diffs_show_both_sides() {
        let d = diff(
            &Json::parse(r#"{"a":["x"]}"#).unwrap(),
            &Json::parse(r#"{"a":["y"]}"#).unwrap(),
        );
        assert!(d.contains("-    \"x\"") && d.contains("+    \"y\""), "{d}");
    }
}
