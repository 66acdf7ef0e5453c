//! `--recheck N`: the results worth a second look, observed again.
//!
//! A result that diverged, crashed or timed out, or (with the history of
//! earlier nights) whose verdict or observation changed since the last
//! night, is held back from the run's record while the run goes. When the
//! run is done, each held case is observed again, fresh (the observation
//! store neither read nor written), up to N more times. Where a try
//! disagrees with the first (another verdict, or another observation), the
//! result is `flaky` and no more tries are made; where every try agrees,
//! the first verdict stands. Either way the result records the verdict of
//! every try (`Findings::recheck`).
//!
//! A try that could not run at all (the version could not be installed)
//! says nothing about the case and is not counted.
//!
//! In: the held results, the session that made them. Out: the results as
//! they are to be recorded, and what the re-checks cost.

use crate::case::Case;
use crate::db::history::State;
use crate::db::BlobHash;
use crate::judge::case_result::CaseResult;
use crate::judge::compare::{comparable, Verdict};
use crate::run::config::Reuse;
use crate::run::session::{Session, VersionCases};
use crate::version::spec::MastraVersion;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The last recorded state of each result, by (case, version).
pub type LastNight = HashMap<(String, String), State>;

/// What a run re-checks (`--recheck N`, with `matrix --history`).
#[derive(Debug, Clone, Default)]
pub struct Recheck {
    /// How many more times a result is observed at most; 0 re-checks
    /// nothing.
    pub tries: u32,
    /// The last night's states: a result that differs from its state
    /// there is re-checked too.
    pub since: Option<Arc<LastNight>>,
}

impl Recheck {
    /// Whether `r` is to be observed again.
    pub fn wants(&self, r: &CaseResult) -> bool {
        if self.tries == 0 {
            return false;
        }
        if r.verdict.is_divergence() || matches!(r.verdict, Verdict::Timeout | Verdict::Crash) {
            return true;
        }
        self.since
            .as_ref()
            .and_then(|last| last.get(&(r.case.clone(), r.version.to_string())))
            .is_some_and(|was| *was != state_of(r))
    }
}

/// A result's state as the history records it: its verdict, and the hash
/// of its observed projection as the results database stores it.
pub fn state_of(r: &CaseResult) -> State {
    let observed = r
        .observed
        .projection()
        .map(|p| BlobHash::of(&p.to_json().to_compact()).to_string());
    (r.verdict.name().to_string(), observed)
}

/// Whether a later try says the same as the first: the same verdict, and
/// the same observed projection (its prose `reason` aside).
pub fn agree(first: &CaseResult, again: &CaseResult) -> bool {
    first.verdict == again.verdict
        && match (first.observed.projection(), again.observed.projection()) {
            (Some(a), Some(b)) => comparable(a) == comparable(b),
            (None, None) => true,
            _ => false,
        }
}

/// Whether a try ran at all: a version that could not be had says nothing
/// about the case.
fn counts(again: &CaseResult) -> bool {
    !matches!(
        again.verdict,
        Verdict::VersionUnavailable | Verdict::InstallFailed
    )
}

/// One result held back for its re-checks.
pub struct Held {
    /// The position of its version in the run's list of versions.
    pub version: usize,
    pub case: Case,
    /// The first try's result.
    pub result: CaseResult,
    /// The verdicts of the tries after the first.
    tries: Vec<Verdict>,
    flaky: bool,
}

impl Held {
    pub fn new(version: usize, case: Case, result: CaseResult) -> Held {
        Held {
            version,
            case,
            result,
            tries: Vec::new(),
            flaky: false,
        }
    }

    /// Another try's result.
    fn tried(&mut self, again: &CaseResult) {
        if !counts(again) {
            return;
        }
        self.tries.push(again.verdict);
        self.flaky |= !agree(&self.result, again);
    }

    /// The result as it is recorded: `flaky` where a try disagreed, the
    /// first verdict otherwise; with every try's verdict when there was
    /// another (a run stopped before its re-checks records none).
    pub fn settled(self) -> CaseResult {
        let mut r = self.result;
        if !self.tries.is_empty() {
            r.findings.recheck = std::iter::once(r.verdict).chain(self.tries).collect();
        }
        if self.flaky {
            r.verdict = Verdict::Flaky;
        }
        r
    }
}

/// What the re-checks of a run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecheckCount {
    /// Results observed again.
    pub results: usize,
    /// Observations made for them.
    pub observations: usize,
    pub flaky: usize,
}

/// Observe each held result again, fresh, up to `tries` times, on
/// `session` (its versions as `versions` lists them); a result stops being
/// observed once a try disagrees, and nothing is when the run was stopped.
pub fn recheck(
    session: &mut Session,
    versions: &[MastraVersion],
    mut held: Vec<Held>,
    tries: u32,
) -> (Vec<Held>, RecheckCount) {
    let mut count = RecheckCount {
        results: held.len(),
        ..RecheckCount::default()
    };
    // A re-check observes: what is stored is what is being doubted.
    let reuse = std::mem::replace(&mut session.config.reuse, Reuse::Off);
    for _ in 0..tries {
        if session.stop.load(Ordering::SeqCst) {
            break;
        }
        // Per version, the cases still undecided, each with its place in `held`.
        let mut open: BTreeMap<usize, (Vec<Case>, Vec<usize>)> = BTreeMap::new();
        for (i, h) in held.iter().enumerate().filter(|(_, h)| !h.flaky) {
            let group = open.entry(h.version).or_default();
            group.0.push(h.case.clone());
            group.1.push(i);
        }
        if open.is_empty() {
            break;
        }
        let groups: Vec<(MastraVersion, Vec<Case>, Vec<usize>)> = open
            .into_iter()
            .map(|(v, (cases, at))| (versions[v], cases, at))
            .collect();
        let by_version: Vec<VersionCases> = groups
            .iter()
            .map(|(version, cases, _)| VersionCases {
                version: *version,
                cases,
            })
            .collect();
        let mut again: Vec<(usize, CaseResult)> = Vec::new();
        session.run_versions(
            &by_version,
            |g, r| again.push((groups[g].2[r.index], r)),
            |_| {},
        );
        count.observations += again.len();
        for (i, r) in again {
            held[i].tried(&r);
        }
    }
    session.config.reuse = reuse;
    count.flaky = held.iter().filter(|h| h.flaky).count();
    (held, count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::refine::Findings;
    use crate::model::Prediction;
    use crate::observation::Observed;
    use crate::projection::Projection;
    use std::time::Duration;

    fn result(verdict: Verdict, observed: Observed) -> CaseResult {
        CaseResult {
            index: 0,
            case: "cases/a.json".into(),
            route: crate::route::Route::default(),
            version: MastraVersion::new(1, 67, 0),
            verdict,
            predicted: Prediction::Projection(Projection::empty()),
            observed,
            findings: Findings::default(),
        }
    }

    fn ran(tool: &str) -> Observed {
        let mut p = Projection::empty();
        p.mutated.push(tool.into());
        Observed::Ran {
            projection: p,
            bodies: Vec::new(),
        }
    }

    #[test]
    fn what_is_rechecked() {
        let none = Recheck::default();
        let two = Recheck {
            tries: 2,
            since: None,
        };
        let diverged = result(Verdict::Diverged, ran("a"));
        let calm = result(Verdict::AsModelled, ran("a"));
        let timeout = result(Verdict::Timeout, Observed::Timeout(Duration::from_secs(1)));
        let unserved = result(
            Verdict::VersionUnavailable,
            Observed::Unavailable("x".into()),
        );
        assert!(!none.wants(&diverged), "--recheck 0 re-checks nothing");
        assert!(two.wants(&diverged) && two.wants(&timeout));
        assert!(!two.wants(&calm) && !two.wants(&unserved));
        // With the last night: a calm result that changed since is re-checked,
        // one that did not, or was never seen, is not.
        let mut last = LastNight::new();
        last.insert(
            ("cases/a.json".into(), "1.67.0".into()),
            ("as-modelled".into(), state_of(&calm).1),
        );
        let since = Recheck {
            tries: 2,
            since: Some(Arc::new(last)),
        };
        assert!(!since.wants(&calm));
        assert!(since.wants(&result(Verdict::AsModelled, ran("b"))));
        let mut elsewhere = calm.clone();
        elsewhere.version = MastraVersion::new(1, 0, 4);
        assert!(!since.wants(&elsewhere));
    }

    #[test]
    fn tries_that_disagree_are_flaky_and_ones_that_agree_keep_the_verdict() {
        let first = result(Verdict::Diverged, ran("a"));
        let mut stable = Held::new(0, Case::new("cases/a.json", "a"), first.clone());
        stable.tried(&result(Verdict::Diverged, ran("a")));
        stable.tried(&result(Verdict::Diverged, ran("a")));
        let r = stable.settled();
        assert_eq!(r.verdict, Verdict::Diverged);
        assert_eq!(r.findings.recheck, vec![Verdict::Diverged; 3]);

        // Another observation under the same verdict is a disagreement too.
        let mut moved = Held::new(0, Case::new("cases/a.json", "a"), first.clone());
        moved.tried(&result(Verdict::Diverged, ran("b")));
        assert_eq!(moved.settled().verdict, Verdict::Flaky);

        let mut calmed = Held::new(0, Case::new("cases/a.json", "a"), first.clone());
        calmed.tried(&result(Verdict::AsModelled, ran("a")));
        let r = calmed.settled();
        assert_eq!(r.verdict, Verdict::Flaky);
        assert_eq!(
            r.findings.recheck,
            vec![Verdict::Diverged, Verdict::AsModelled]
        );

        // A try the machine could not run is no try.
        let mut unrun = Held::new(0, Case::new("cases/a.json", "a"), first);
        unrun.tried(&result(
            Verdict::InstallFailed,
            Observed::InstallFailed("x".into()),
        ));
        let r = unrun.settled();
        assert_eq!(r.verdict, Verdict::Diverged);
        assert!(r.findings.recheck.is_empty());
    }
}
