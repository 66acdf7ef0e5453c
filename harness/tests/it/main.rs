//! The integration tests, one binary with a module per subject: the real
//! binary, real Node, real Mastra, real HTTP (`e2e`, `matrix`, `fuzz`,
//! `store`, `recheck`, `builds`, `lint_project`, `lookups`, `javascript`,
//! `zero`, `site`), the sizes of a whole matrix's database and site
//! (`size`), and the import
//! rules on the source (`structure`). One binary links the crate once; the
//! fault suite keeps a binary of its own (`faults.rs`: a plain `main` that
//! prints its figures on every run).
//!
//! `make unit` runs `structure` beside the library's unit tests;
//! `cargo test --test it MODULE::` runs one subject.

// Test code may be longer than the 120 lines `make check` holds the crate to.
#![allow(clippy::too_many_lines)]

#[path = "../common/mod.rs"]
mod common;

mod browser;
mod builds;
mod e2e;
mod fuzz;
mod javascript;
mod lint_project;
mod lookups;
mod matrix;
mod recheck;
mod site;
mod size;
mod store;
mod structure;
mod zero;
