//! `Exit` and `Failure`: how a command ends. The bottom of the tree: every
//! module may name these, and this module names no other.
//!
//! A command either returns an `Exit` (it ran, and this is what it found) or
//! fails with a `Failure` (it could not run as asked). A failure is bad input
//! (exit 2: the message names the file, field or flag and the value) or
//! infrastructure (exit 3: the machine, a version or Node could not be had),
//! and keeps its cause, which `main` prints once, as a chain.

use std::error::Error;
use std::fmt;

/// The documented exit statuses (`docs/case-format.md`, `docs/commands.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    /// Everything as expected.
    Ok,
    /// A finding: a divergence; for `lint`, a key that breaks a request; for
    /// `bisect`, no change in the range; for `diff`, a difference.
    Finding,
    /// Bad input: a case file, a flag, a version string, a ledger.
    BadInput,
    /// Infrastructure: a version or Node could not be had, a probe failed, the
    /// run was interrupted.
    Infra,
}

impl Exit {
    pub const fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::Finding => 1,
            Exit::BadInput => 2,
            Exit::Infra => 3,
        }
    }

    /// The one ladder every run-shaped command climbs: the machine failing
    /// (or the run being interrupted) outranks a finding, which outranks a
    /// bad case file that was left out while the rest ran.
    pub fn of_run(run: RunEnd) -> Exit {
        if run.infra || run.interrupted {
            Exit::Infra
        } else if run.finding {
            Exit::Finding
        } else if run.bad_input {
            Exit::BadInput
        } else {
            Exit::Ok
        }
    }
}

/// What a run-shaped command saw, for `Exit::of_run`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunEnd {
    /// An infrastructure outcome that counts (an unavailable version counts
    /// only under `--strict`).
    pub infra: bool,
    pub interrupted: bool,
    /// A divergence, a difference, a fix: whatever the command reports as a
    /// finding.
    pub finding: bool,
    /// Some input was bad and left out, and the rest ran.
    pub bad_input: bool,
}

/// A cause kept for the chain `main` prints.
pub type Cause = Box<dyn Error + Send + Sync + 'static>;

/// Why a command could not do what it was asked.
#[derive(Debug)]
pub enum Failure {
    BadInput { what: String, cause: Option<Cause> },
    Infra { what: String, cause: Option<Cause> },
}

impl Failure {
    pub fn bad(what: impl Into<String>) -> Failure {
        Failure::BadInput {
            what: what.into(),
            cause: None,
        }
    }

    pub fn infra(what: impl Into<String>) -> Failure {
        Failure::Infra {
            what: what.into(),
            cause: None,
        }
    }

    /// Bad input, with the error that showed it.
    pub fn bad_because(what: impl Into<String>, cause: impl Into<Cause>) -> Failure {
        Failure::BadInput {
            what: what.into(),
            cause: Some(cause.into()),
        }
    }

    /// Infrastructure, with the error that caused it.
    pub fn infra_because(what: impl Into<String>, cause: impl Into<Cause>) -> Failure {
        Failure::Infra {
            what: what.into(),
            cause: Some(cause.into()),
        }
    }

    pub fn exit(&self) -> Exit {
        match self {
            Failure::BadInput { .. } => Exit::BadInput,
            Failure::Infra { .. } => Exit::Infra,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::BadInput { what, .. } | Failure::Infra { what, .. } => f.write_str(what),
        }
    }
}

impl Error for Failure {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            Failure::BadInput { cause, .. } | Failure::Infra { cause, .. } => {
                cause.as_deref().map(|c| c as &(dyn Error + 'static))
            }
        }
    }
}

/// An error and its causes, one per line: `main` prints failures this way,
/// and reports record infrastructure details this way, so a chain reads the
/// same everywhere.
pub fn error_chain(e: &dyn Error) -> String {
    joined(e, "\n  caused by: ")
}

/// The same chain on one line, `what: cause: cause`, for a detail that must
/// stay one line (a body problem, a table cell).
pub fn error_line(e: &dyn Error) -> String {
    joined(e, ": ")
}

fn joined(e: &dyn Error, separator: &str) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        // A wrapper that repeats its cause's text (`#[error(transparent)]`,
        // or a message built from it) is not a second cause.
        if !out.ends_with(&text) {
            out.push_str(separator);
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ladder_puts_infrastructure_over_findings_over_bad_input() {
        let all = RunEnd {
            infra: true,
            interrupted: false,
            finding: true,
            bad_input: true,
        };
        assert_eq!(Exit::of_run(all), Exit::Infra);
        let interrupted = RunEnd {
            interrupted: true,
            ..RunEnd::default()
        };
        assert_eq!(Exit::of_run(interrupted), Exit::Infra);
        let finding = RunEnd {
            finding: true,
            bad_input: true,
            ..RunEnd::default()
        };
        assert_eq!(Exit::of_run(finding), Exit::Finding);
        let bad = RunEnd {
            bad_input: true,
            ..RunEnd::default()
        };
        assert_eq!(Exit::of_run(bad), Exit::BadInput);
        assert_eq!(Exit::of_run(RunEnd::default()), Exit::Ok);
        assert_eq!(
            [Exit::Ok, Exit::Finding, Exit::BadInput, Exit::Infra].map(Exit::code),
            [0, 1, 2, 3]
        );
    }

    #[test]
    fn a_chain_prints_each_cause_once() {
        let io = std::io::Error::other("disk full");
        let f = Failure::infra_because("cannot write report.json", io);
        assert_eq!(
            error_chain(&f),
            "cannot write report.json\n  caused by: disk full"
        );
        assert_eq!(f.exit(), Exit::Infra);
        assert_eq!(
            error_chain(&Failure::bad("--versions: bad")),
            "--versions: bad"
        );
    }
}
