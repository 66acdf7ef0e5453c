//! Saved findings: each shrunk divergence is written under `cases/found/` as
//! an ordinary case file (its seed and case number in `source`), and every
//! later fuzz run replays that folder first.
//!
//! A finding whose case is already saved (the same case, prose aside) is
//! not written twice: re-running a seed finds the same divergences again
//! until they are explained.

use super::FoundDivergence;
use crate::case::{Case, CaseError};
use crate::run::corpus::discover;
use std::path::{Path, PathBuf};

/// Where a finding went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Saved {
    New(PathBuf),
    /// The same case was already saved here.
    Already(PathBuf),
}

impl Saved {
    pub fn path(&self) -> &Path {
        match self {
            Saved::New(p) | Saved::Already(p) => p,
        }
    }
}

/// The saved findings under `dir`, in file order; none when it does not
/// exist yet.
pub fn load(dir: &Path) -> (Vec<Case>, Vec<CaseError>) {
    if !dir.exists() {
        return (Vec::new(), Vec::new());
    }
    let files = match discover(dir) {
        Ok(f) => f,
        Err(e) => {
            return (
                Vec::new(),
                vec![CaseError {
                    file: dir.to_path_buf(),
                    field: String::new(),
                    problem: format!("cannot read: {e}"),
                }],
            )
        }
    };
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    for f in files {
        match crate::run::corpus::read_case(&f) {
            Ok(c) => cases.push(c),
            Err(e) => errors.push(e),
        }
    }
    (cases, errors)
}

/// Whether two cases are the same finding: the same case, where it came
/// from and what it says about itself aside.
fn same_finding(a: &Case, b: &Case) -> bool {
    let substance = |c: &Case| Case {
        path: PathBuf::new(),
        about: String::new(),
        source: None,
        ..c.clone()
    };
    substance(a) == substance(b)
}

/// Save `found` under `dir`, unless the same case is there already
/// (`existing`: the cases loaded from `dir`, kept up to date here).
pub fn save(
    dir: &Path,
    found: &FoundDivergence,
    existing: &mut Vec<Case>,
) -> std::io::Result<Saved> {
    let mut case = Case {
        about: found.about(),
        source: Some(found.source()),
        ..found.shrunk.clone()
    };
    if let Some(c) = existing.iter().find(|c| same_finding(c, &case)) {
        return Ok(Saved::Already(c.path.clone()));
    }
    std::fs::create_dir_all(dir)?;
    let stem = format!(
        "seed{}-case{}-{}-{}",
        found.seed,
        found.index,
        found.version,
        found.signature.slug()
    );
    let mut path = dir.join(format!("{stem}.json"));
    let mut n = 2;
    while path.exists() {
        path = dir.join(format!("{stem}-{n}.json"));
        n += 1;
    }
    let mut text = case.to_json().to_pretty();
    text.push('\n');
    crate::report::write_atomically(&path, &text)?;
    case.path = path.clone();
    existing.push(case);
    Ok(Saved::New(path))
}

#[cfg(test)]
mod tests {
    use super::super::gen::generate;
    use super::super::shrink::Ended;
    use super::super::{FoundDivergence, Signature};
    use super::*;
    use crate::judge::case_result::CaseResult;
    use crate::judge::compare::Verdict;
    use crate::model::Prediction;
    use crate::observation::Observed;
    use crate::version::spec::MastraVersion;

    fn divergence(index: u64) -> FoundDivergence {
        let d = generate(1, index);
        FoundDivergence {
            seed: 1,
            index,
            version: MastraVersion::new(1, 67, 0),
            signature: Signature(vec!["requests[].tools".into()]),
            seen: 1,
            original: d.clone(),
            shrunk: d,
            result: CaseResult {
                index: 0,
                case: "x".into(),
                route: crate::route::Route::default(),
                version: MastraVersion::new(1, 67, 0),
                verdict: Verdict::Diverged,
                predicted: Prediction::Unmodelled("x".into()),
                observed: Observed::Crash(String::new()),
                findings: Default::default(),
            },
            steps: 3,
            judged: 10,
            how: Ended::Minimal,
        }
    }

    #[test]
    fn a_finding_is_saved_once_as_an_ordinary_case() {
        let dir = tempfile::tempdir().unwrap();
        let found = dir.path().join("found");
        let (mut existing, errors) = load(&found);
        assert!(
            existing.is_empty() && errors.is_empty(),
            "a missing folder is no finding"
        );
        let f = divergence(5);
        let first = save(&found, &f, &mut existing).unwrap();
        let Saved::New(path) = &first else {
            panic!("{first:?}")
        };
        assert!(
            path.ends_with("seed1-case5-1.67.0-requests-tools.json"),
            "{path:?}"
        );
        let case = crate::run::corpus::read_case(path).unwrap();
        assert_eq!(case.source.as_deref(), Some("fuzz seed 1, case 5, shrunk"));
        assert_eq!(case.tools, f.shrunk.tools, "the shrunk case, as written");
        assert_eq!(
            &existing[0], &case,
            "what is kept is what the file reads as"
        );
        assert_eq!(
            save(&found, &f, &mut existing).unwrap(),
            Saved::Already(path.clone())
        );
        // Loaded again from disk, it is still recognised.
        let (mut reloaded, _) = load(&found);
        assert_eq!(reloaded.len(), 1);
        assert_eq!(
            save(&found, &f, &mut reloaded).unwrap(),
            Saved::Already(path.clone())
        );
        // Another case under the same name does not overwrite it.
        let mut other = divergence(6);
        other.index = 5;
        let Saved::New(second) = save(&found, &other, &mut reloaded).unwrap() else {
            panic!()
        };
        assert!(
            second.ends_with("seed1-case5-1.67.0-requests-tools-2.json"),
            "{second:?}"
        );
    }
}
