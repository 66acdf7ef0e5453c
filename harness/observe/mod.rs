//! Observing Mastra for real: child processes (`proc`), the long-lived Node
//! probe (`probe`), the pool that deals a version's cases across its probes
//! (`pool`, carrying out the decisions of the pure `machine`), and the
//! capture listener on loopback with its scripted replies (`capture`),
//! written in each route's provider format (`wire`), and the stdio MCP
//! server a probe starts for a case's `mcp` servers (`mcp_server`).
//!
//! In: cases and an install folder. Out: `observation::Observation`s, pure
//! data the judges read without importing anything here.

pub mod capture;
pub mod cpu;
pub mod machine;
pub mod mcp_server;
pub mod pool;
pub mod probe;
pub mod proc;
pub mod sandbox;
pub mod wire;
