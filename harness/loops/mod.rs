//! Loops around the pipeline (`run::session`): each feeds it cases and
//! versions of its own choosing and returns a domain value (a bisection, a
//! verification, a set of changes) that only the command layer prints and
//! maps to an exit status.

pub mod bench;
pub mod bisect;
pub mod cold_warm;
pub mod cpu_cost;
pub mod diff;
pub mod fuzz;
pub mod matrix;
pub mod provenance;
pub mod sweep;
pub mod verify;
