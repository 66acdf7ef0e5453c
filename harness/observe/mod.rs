//! Observing Mastra for real: child processes (`proc`), the long-lived Node
//! probe (`probe`) and the pool that deals cases to it (`pool`), and the
//! capture listener on loopback with its scripted replies (`capture`).
//!
//! In: cases and an install folder. Out: `observation::Observation`s, pure
//! data the judges read without importing anything here.

pub mod capture;
pub mod pool;
pub mod probe;
pub mod proc;
