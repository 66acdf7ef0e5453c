//! mastra-conform: a differential conformance harness for the tool-naming
//! layer of `@mastra/core`.
//!
//! The data flows one way:
//!
//! ```text
//! cases/*.json --case--> Case --model----------------> Prediction --+
//!                             \--probe (Node, Mastra) --> Observed --+--compare--> Verdict --report
//!                                  capture (listener) -/
//! ```
//!
//! `pipeline` is that flow for one version; every command is a loop around
//! it. Modules in reading order:

pub mod bench;
pub mod capture;
pub mod case;
pub mod cli;
pub mod commands;
pub mod compare;
pub mod config;
pub mod json;
pub mod jsstr;
pub mod lint;
pub mod merge;
pub mod model;
pub mod observe;
pub mod pipeline;
pub mod probe;
pub mod proc;
pub mod projection;
pub mod report;
pub mod shard;
pub mod snapshot;
pub mod sweep;
pub mod versions;
