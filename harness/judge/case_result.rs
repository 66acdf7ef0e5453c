//! `CaseResult`: one case judged on one version, and `judge`, which makes
//! it: the model's prediction, `compare`'s verdict, refined by the known
//! issues, the snapshots and the provider rules.
//!
//! In: a case, a version, what was observed. Out: a `CaseResult`. Pure.

use crate::case::Case;
use crate::judge::compare::{compare, Verdict};
use crate::judge::refine::{Findings, Refiner};
use crate::model::{predict, Prediction};
use crate::observation::{Observed, ParsedBody};
use crate::route::Route;
use crate::version::spec::MastraVersion;

/// One case on one version.
#[derive(Debug, Clone)]
pub struct CaseResult {
    /// Index into the cases the version was given.
    pub index: usize,
    pub case: String,
    /// The route it ran on (its name carries it too, as `PATH@ROUTE`).
    pub route: Route,
    pub version: MastraVersion,
    pub verdict: Verdict,
    pub predicted: Prediction,
    pub observed: Observed,
    /// Known issue, snapshot and provider findings (`refine`).
    pub findings: Findings,
}

/// Case `index` on `version`, observed as `observed`: the model's
/// prediction, `compare`'s verdict, refined by the known issues, snapshots
/// and provider rules.
pub fn judge(
    refiner: &Refiner,
    case: &Case,
    index: usize,
    version: MastraVersion,
    observed: Observed,
) -> CaseResult {
    judge_parsed(refiner, case, (index, version), observed, None)
}

/// As `judge`, with the observed bodies as the projection parsed them
/// (`Observed::from_observation_parsed`), so that they are not parsed again.
pub fn judge_parsed(
    refiner: &Refiner,
    case: &Case,
    (index, version): (usize, MastraVersion),
    observed: Observed,
    parsed: Option<&[ParsedBody]>,
) -> CaseResult {
    let predicted = predict(case, version);
    let (verdict, findings) = refiner.refine(
        case,
        version,
        (&predicted, &observed),
        parsed,
        compare(&predicted, &observed),
    );
    CaseResult {
        index,
        case: case.name(),
        route: case.route,
        version,
        verdict,
        predicted,
        observed,
        findings,
    }
}
