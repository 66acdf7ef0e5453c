//! mastra-conform: a differential conformance harness for the tool-naming
//! layer of `@mastra/core`.
//!
//! The data flows one way, and the tree draws it:
//!
//! ```text
//! cases/*.json --case--> Case --model (pure)------------------> Prediction --+
//!                             \--observe (Node, Mastra, listener) --> Observed --+--judge (pure)--> Verdict
//!                                                                                     |
//!              results: CaseResult, VersionStats, RunInfo (pure) <-------------------|
//!              recorded: observations kept from earlier runs, reused by key -------->|
//!              run: the pipeline for one version (session), the loop over versions   |
//!              loops: matrix, fuzz, bisect, verify, sweep, bench: loops around run   |
//!              report: terminal, JSON, JUnit, Markdown, HTML  <-----------------------+
//!              cli: flags -> domain values -> a command -> an exit status
//! ```
//!
//! Two rules hold the flow: types live below the code that does I/O (the
//! model and the judges read `case`, `projection`, `observation` and
//! `version::spec`, the reports read `results`, pure data, and none of
//! them imports anything that starts a process, listens or installs), and
//! nothing imports upward (only `cli` turns a domain value into output and
//! an exit status).
//!
//! Modules in reading order, bottom first:

// `make check` runs clippy once over every target with `too_many_lines`
// on; test code (built with cfg(test)) may be longer.
#![cfg_attr(test, allow(clippy::too_many_lines))]

/// Exit statuses and the one error type commands return.
pub mod outcome;
/// JavaScript strings (UTF-16 code units) and JSON exact to `JSON.stringify`.
pub mod js;
/// The wire routes a case's model takes to its provider, and reading a
/// captured body on each.
pub mod route;
/// The rewrite `formatTools` applies to one key, and the names every
/// JavaScript object inherits: facts every stage reads.
pub mod naming;
/// A case file: the contract's input format.
pub mod case;
/// A projection: what a case did on a version, the contract's output format.
pub mod projection;
/// What a probe and the listener saw, as pure data.
pub mod observation;
/// Versions as values: `MastraVersion`, the `--versions` grammar, the
/// prediction of builds, what is installed beside each (pure).
pub mod version;
/// The reference model: Case x version -> Prediction (pure).
pub mod model;
/// Compare, known issues, snapshots, provider validity -> Verdict (pure).
pub mod judge;
/// What a run produced: one `CaseResult` per case and version, each
/// version's costs, and what the run was (pure).
pub mod results;
/// A run's results database (`results.sqlite`): results written as they
/// complete, values stored once by content, read back by queries.
pub mod db;
/// The observation store: observations of earlier runs, under a key of
/// everything they depend on, for a run to judge again instead of observing.
pub mod recorded;
/// Child processes, probes, the capture listener.
pub mod observe;
/// Getting versions: the registry, builds, installs, the pinned Node, the
/// package store, the cache's locks (I/O).
pub mod install;
/// The pipeline for one version and the run loop over versions.
pub mod run;
/// Terminal summary, JSON, JUnit, Markdown, HTML; merging shard reports.
pub mod report;
/// Loops around the pipeline: matrix, fuzz, bisect, verify, sweep, bench.
pub mod loops;
/// Users' tool keys through the model.
pub mod lint;
/// The command line: flags into domain values, one function per command.
pub mod cli;
