//! mastra-conform: a differential conformance harness for the tool-naming
//! layer of `@mastra/core`.
//!
//! The data flows one way:
//!
//! ```text
//! cases/*.json --case--> Case --model----------------> Prediction --+
//!                             \--probe (Node, Mastra) --> Observed --+--compare--> Verdict
//!                                  capture (listener) -/                               |
//!                   refine (known issues, snapshots, provider validity) <--------------+
//!                                                 \--> CaseResult --> report (JSON, JUnit, MD, HTML)
//! ```
//!
//! `pipeline` is that flow for one version. Every command is a loop around
//! it: `run` and `matrix` over cases and versions (`shard` slices them,
//! `merge` joins the slices), `fuzz` over generated cases, `bisect` and
//! `verify` over versions, `sweep` over every release. Modules in reading
//! order:

pub mod jsstr;
pub mod json;
pub mod case;
pub mod projection;
pub mod model;
pub mod proc;
pub mod versions;
pub mod capture;
pub mod probe;
pub mod observe;
pub mod compare;
pub mod provider;
pub mod known;
pub mod snapshot;
pub mod refine;
pub mod config;
pub mod pipeline;
pub mod report;
pub mod shard;
pub mod merge;
pub mod bisect;
pub mod verify;
pub mod fuzz;
pub mod matrix;
pub mod sweep;
pub mod bench;
pub mod lint;
pub mod cli;
pub mod commands;
