//! The pipeline and the run loop every command is built on.
//!
//! `session` is the pipeline: install, probe, predict, judge, one
//! `CaseResult` per case, for one version or for many side by side, as the
//! pure `schedule::SessionMachine` decides (which version installs next,
//! when it runs and on how many of the `--probes` budget). `corpus` is the
//! loop over case files and versions (`run`, `matrix`, `sweep` and `fuzz`
//! use it); `shard` slices that loop across runners; `config` is the
//! validated settings it all takes. `workers` holds what runs on the
//! session's threads: a version's install, a version's probes.

// A function here past clippy.toml's threshold is a machine and its driver
// waiting to be told apart.
#![warn(clippy::too_many_lines)]

pub mod config;
pub mod corpus;
pub mod planted;
pub mod progress;
pub mod recheck;
pub mod schedule;
pub mod session;
pub mod shard;
pub mod workers;
