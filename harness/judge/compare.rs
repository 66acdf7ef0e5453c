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
        (Prediction::Projection(p), Observed::Ran { projection: o, .. }) => exact(p, o),
        // Whole, the stream is as modelled; short of chunks the model
        // cannot name in advance, it is one way Mastra may go.
        (Prediction::Dropping(p), Observed::Ran { projection: o, .. }) => match exact(p, o) {
            Verdict::Diverged if lost_chunks_only(p, o) => Verdict::Nondeterministic,
            verdict => verdict,
        },
    }
}

fn exact(p: &Projection, o: &Projection) -> Verdict {
    match (p.applicable, o.applicable) {
        (false, false) => Verdict::NotApplicable,
        (true, true) if comparable(p) == comparable(o) => Verdict::AsModelled,
        _ => Verdict::Diverged,
    }
}

/// Whether `got` is `full` short of some of what a chunk-dropping stream
/// loses (`Prediction::Dropping`): each `seen`'s stream chunks, `toolCalls`
/// and `toolResults` an in-order subset of the full one's, and nothing else
/// different.
fn lost_chunks_only(full: &Projection, got: &Projection) -> bool {
    let mut got = got.clone();
    let seen_pairs = |full: &Projection, got: &mut Projection| -> bool {
        let flat = [(full.seen.as_deref(), got.seen.as_deref_mut())];
        let turns = full
            .turns
            .iter()
            .flatten()
            .zip(got.turns.iter_mut().flatten());
        let per_turn = turns.map(|(f, g)| (f.seen.as_deref(), g.seen.as_deref_mut()));
        flat.into_iter().chain(per_turn).all(|pair| match pair {
            (Some(f), Some(g)) => restore_if_lost(f, g),
            (f, g) => f.is_none() && g.is_none(),
        })
    };
    if full.turns.as_ref().map(Vec::len) != got.turns.as_ref().map(Vec::len) {
        return false;
    }
    seen_pairs(full, &mut got) && comparable(full) == comparable(&got)
}

/// If `got`'s lists are in-order subsets of `full`'s, put `full`'s in their
/// place (so the rest can be compared whole) and say so.
fn restore_if_lost(full: &crate::projection::Seen, got: &mut crate::projection::Seen) -> bool {
    let names = |l: &Option<Vec<Json>>| l.clone().unwrap_or_default();
    let lost = is_subsequence(&got.stream, &full.stream)
        && full.tool_calls.is_some() == got.tool_calls.is_some()
        && full.tool_results.is_some() == got.tool_results.is_some()
        && is_subsequence(&names(&got.tool_calls), &names(&full.tool_calls))
        && is_subsequence(&names(&got.tool_results), &names(&full.tool_results));
    if lost {
        got.stream.clone_from(&full.stream);
        got.tool_calls.clone_from(&full.tool_calls);
        got.tool_results.clone_from(&full.tool_results);
    }
    lost
}

fn is_subsequence<T: PartialEq>(part: &[T], whole: &[T]) -> bool {
    let mut rest = whole.iter();
    part.iter().all(|x| rest.any(|y| y == x))
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

    fn streamed(chunks: &[&str], calls: &[&str]) -> Projection {
        let names = |l: &[&str]| l.iter().map(|n| Json::str(n)).collect::<Vec<_>>();
        let mut p = Projection::empty();
        p.seen = Some(Box::new(crate::projection::Seen {
            stream: chunks
                .iter()
                .map(|c| ((*c).into(), Json::str("search_web")))
                .collect(),
            tool_calls: Some(names(calls)),
            tool_results: Some(names(calls)),
            ..Default::default()
        }));
        p
    }

    #[test]
    fn a_dropping_stream_is_exact_whole_and_nondeterministic_short() {
        let full = streamed(&["tool-call", "tool-call", "tool-result"], &["a", "b"]);
        let p = Prediction::Dropping(full.clone());
        assert_eq!(compare(&p, &ran(full.clone())), Verdict::AsModelled);
        let short = streamed(&["tool-call", "tool-result"], &["b"]);
        assert_eq!(compare(&p, &ran(short.clone())), Verdict::Nondeterministic);
        // A chunk the full stream never had, or one out of order, is not lost.
        let extra = streamed(&["tool-call", "tool-error"], &["b"]);
        assert_eq!(compare(&p, &ran(extra)), Verdict::Diverged);
        let swapped = streamed(&["tool-result", "tool-call"], &[]);
        assert_eq!(compare(&p, &ran(swapped)), Verdict::Diverged);
        // Short of chunks, but something else differs too.
        let mut also = short;
        also.mutated.push("tools".into());
        assert_eq!(compare(&p, &ran(also)), Verdict::Diverged);
        // The same shortfall against a plain prediction is a divergence.
        let plain = Prediction::Projection(full);
        let short = streamed(&["tool-call"], &[]);
        assert_eq!(compare(&plain, &ran(short)), Verdict::Diverged);
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
