//! One version from a version flag (`--mastra-version`, `--from`, `--to`,
//! `--good`, `--bad`). Every such flag takes a `VersionSpec` and resolves it
//! through `Session::resolve`, as `--versions` does: a dist-tag through the
//! registry, a build hashed, named and kept in the cache.

use crate::install::mastra::VersionError;
use crate::outcome::Failure;
use crate::run::session::Session;
use crate::version::spec::{Basis, MastraVersion, Selection, VersionSpec};

/// The one version `spec` names; `flag` names it in the error when it names
/// none or several.
pub fn exactly_one(
    session: &mut Session,
    flag: &str,
    spec: &VersionSpec,
) -> Result<MastraVersion, Failure> {
    let found = session
        .resolve(std::slice::from_ref(spec), Selection::default())
        .map_err(|e| match e {
            // The spec is wrong, not `--versions`: name the flag given.
            VersionError::Spec(why) => Failure::bad(format!("{flag} {spec}: {why}")),
            other => other.into(),
        })?;
    match found.as_slice() {
        [v] => Ok(*v),
        many => Err(Failure::bad(format!(
            "{flag} {spec}: names {} versions; give one",
            many.len()
        ))),
    }
}

/// `exactly_one`, and a version that is no release said on stderr with the
/// release the model predicts it as.
pub fn announced(
    session: &mut Session,
    flag: &str,
    spec: &VersionSpec,
) -> Result<MastraVersion, Failure> {
    let v = exactly_one(session, flag, spec)?;
    if !v.is_release() {
        eprintln!("{}", predicted_as(session, v));
    }
    Ok(v)
}

/// What a version that is no release is, and the release the model
/// predicts it as: `1.67.0+8a28…: tarball ./x.tgz, predicted as 1.67.0`;
/// for a snapshot, also by which rule (`predicted as 1.58.0: its
/// CHANGELOG.md's first release heading is 1.58.0-alpha.12`).
pub fn predicted_as(session: &Session, v: MastraVersion) -> String {
    if session.unplaced(v) {
        return format!("{v}: {}, not served by the registry", session.origin(v));
    }
    let predicted = session.predicted_as(v);
    let mut line = format!(
        "{v}: {}, predicted as {}",
        session.origin(v),
        predicted.release
    );
    if predicted.basis != Basis::Itself {
        line.push_str(&format!(": {}", predicted.because()));
    }
    line
}
