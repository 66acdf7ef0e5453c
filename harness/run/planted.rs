//! A test hook of debug builds only, for planting a flaky probe:
//! with `MASTRA_CONFORM_TEST_FLAKY=TEXT`, the first answer the process gets
//! from a probe for each case whose name contains TEXT, on each version,
//! loses its last captured request (so it diverges); every later answer
//! for it, a re-check's, is the probe's own. The integration tests of
//! `--recheck` use it with real Node and a real `@mastra/core`. A release
//! build does not read the variable: the hook is not compiled in.

use crate::case::Case;
use crate::observation::Observation;
use crate::version::spec::MastraVersion;

/// The variable that plants it.
pub const VAR: &str = "MASTRA_CONFORM_TEST_FLAKY";

/// `obs`, the probe's answer for `case` on `version`, as the hook leaves it.
#[cfg(debug_assertions)]
pub fn first_try(case: &Case, version: MastraVersion, obs: Observation) -> Observation {
    use std::collections::BTreeSet;
    use std::sync::{Mutex, PoisonError};
    static PLANTED: Mutex<BTreeSet<(String, MastraVersion)>> = Mutex::new(BTreeSet::new());
    let Some(text) = std::env::var(VAR).ok().filter(|t| !t.is_empty()) else {
        return obs;
    };
    let name = case.name();
    if !name.contains(&text) {
        return obs;
    }
    let first = PLANTED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert((name, version));
    match obs {
        Observation::Done {
            result,
            mut captured,
        } if first => {
            captured.pop();
            Observation::Done { result, captured }
        }
        other => other,
    }
}

/// `obs` as it is: a release build plants nothing.
#[cfg(not(debug_assertions))]
pub fn first_try(_: &Case, _: MastraVersion, obs: Observation) -> Observation {
    obs
}
