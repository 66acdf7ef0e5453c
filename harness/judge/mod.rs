//! The judges: pure functions from a prediction and an observation to a
//! `Verdict`, and `case_result::judge`, which gives one case on one version
//! its `CaseResult`. `compare` sets the two projections side by side; `refine`
//! then consults the known upstream issues (`known`), the body snapshots
//! (`snapshot`) and each provider's rules (`provider`).
//!
//! Nothing here starts a process, listens or installs: the observation
//! types come from `observation`, versions from `version::spec`.

pub mod case_result;
pub mod compare;
pub mod known;
pub mod provider;
pub mod refine;
pub mod snapshot;
