//! `Extras`: the packages installed beside each `@mastra/core` so that a
//! case can use every tool source (`docs/case-format.md`): `@mastra/mcp`
//! for MCP servers, the official MCP SDK (the reference the probe's own
//! server is compared with, `node-probe/testing/mcp-compare.mjs`),
//! `@mastra/memory` with `@mastra/libsql` for memory, `@mastra/observability`
//! for tracing, and on 1.x `@mastra/server` for the server's tool routes
//! (`lookups`).
//!
//! In: a `MastraVersion`. Out: `(package, exact version)` pairs for the
//! install manifest. Pure.
//!
//! Each package's version is the newest stable one whose `@mastra/core`
//! peer range accepts the core under test *and* which was built against a
//! core no newer than it (its `devDependencies["@mastra/core"]`): a peer
//! range alone is not enough, since `@mastra/mcp` 1.17.2 accepts
//! `>=1.0.0-0 <2.0.0-0` yet imports `@mastra/core/schema`, which 1.0.4 does
//! not have, and `@mastra/memory` 1.31.0 accepts 1.67.0 yet imports
//! `getMemoryTokenBoundary`, new in 1.68.0. The tables were computed from
//! `npm view @mastra/PKG@'>=1.0.0' version peerDependencies devDependencies`
//! (registry of 2026-11-30) over every served stable 1.x core.
//!
//! One exception: `@mastra/mcp` is never older than 1.0.3. Up to 1.0.2,
//! `MCPClient.listTools()` merged the servers in the order their listings
//! arrived (`eachClientTools`: `Promise.all` with a callback each), so the
//! tool order of a case with two servers was a race (measured on core
//! 1.0.4 with 1.0.0: 11 of 20 runs one order, 9 the other); 1.0.3 walks
//! the servers in `Object.keys` order, and runs on core 1.0.4 (checked on
//! 1.0.4 through 1.9.0 with `sweep`).

use super::spec::MastraVersion;

const fn v(major: u32, minor: u32, patch: u32) -> MastraVersion {
    MastraVersion::new(major, minor, patch)
}

/// The MCP SDK whose `Server` the probe's MCP server is compared with
/// (`node-probe/testing/mcp-compare.mjs`). Dropping it would change every
/// install's identity, and so remake every install and miss every stored
/// observation, for a package of about 5 MB.
pub const MCP_SDK: &str = "1.32.2";

/// `(first core, @mastra/mcp)`: from that core on, until the next row.
const MCP: &[(MastraVersion, &str)] = &[
    (v(1, 0, 0), "1.0.3"),
    (v(1, 10, 0), "1.1.0"),
    (v(1, 13, 2), "1.2.1"),
    (v(1, 14, 0), "1.3.0"),
    (v(1, 15, 0), "1.3.1"),
    (v(1, 18, 0), "1.3.2"),
    (v(1, 20, 0), "1.4.1"),
    (v(1, 24, 0), "1.4.2"),
    (v(1, 25, 0), "1.5.0"),
    (v(1, 26, 0), "1.5.1"),
    (v(1, 28, 0), "1.5.2"),
    (v(1, 29, 1), "1.6.0"),
    (v(1, 32, 1), "1.7.0"),
    (v(1, 36, 0), "1.8.0"),
    (v(1, 37, 1), "1.8.1"),
    (v(1, 39, 0), "1.9.1"),
    (v(1, 42, 0), "1.10.0"),
    (v(1, 45, 0), "1.11.0"),
    (v(1, 46, 0), "1.12.0"),
    (v(1, 48, 0), "1.12.1"),
    (v(1, 50, 0), "1.13.1"),
    (v(1, 51, 0), "1.14.0"),
    (v(1, 52, 0), "1.15.0"),
    (v(1, 57, 0), "1.15.1"),
    (v(1, 58, 0), "1.16.0"),
    (v(1, 61, 0), "1.17.1"),
    (v(1, 63, 1), "1.17.2"),
    (v(1, 64, 0), "1.17.3"),
    (v(1, 67, 0), "1.18.0"),
    (v(1, 68, 0), "2.0.0"),
];

/// `(first core, @mastra/memory)`.
const MEMORY: &[(MastraVersion, &str)] = &[
    (v(1, 0, 0), "1.0.0"),
    (v(1, 1, 0), "1.0.1"),
    (v(1, 2, 0), "1.1.0"),
    (v(1, 4, 0), "1.3.0"),
    (v(1, 5, 0), "1.4.0"),
    (v(1, 6, 0), "1.5.0"),
    (v(1, 7, 0), "1.5.1"),
    (v(1, 8, 0), "1.5.2"),
    (v(1, 9, 0), "1.6.0"),
    (v(1, 10, 0), "1.6.1"),
    (v(1, 11, 0), "1.6.2"),
    (v(1, 12, 0), "1.7.0"),
    (v(1, 13, 2), "1.8.2"),
    (v(1, 14, 0), "1.8.3"),
    (v(1, 15, 0), "1.9.0"),
    (v(1, 16, 0), "1.10.0"),
    (v(1, 18, 0), "1.11.0"),
    (v(1, 20, 0), "1.12.1"),
    (v(1, 21, 0), "1.13.0"),
    (v(1, 22, 0), "1.13.1"),
    (v(1, 23, 0), "1.14.0"),
    (v(1, 24, 0), "1.15.0"),
    (v(1, 25, 0), "1.15.1"),
    (v(1, 27, 0), "1.17.0"),
    (v(1, 28, 0), "1.17.1"),
    (v(1, 29, 1), "1.17.2"),
    (v(1, 30, 0), "1.17.4"),
    (v(1, 32, 1), "1.17.5"),
    (v(1, 33, 0), "1.18.0"),
    (v(1, 34, 0), "1.18.1"),
    (v(1, 35, 0), "1.18.2"),
    (v(1, 36, 0), "1.19.0"),
    (v(1, 37, 1), "1.20.0"),
    (v(1, 38, 0), "1.20.1"),
    (v(1, 39, 0), "1.20.2"),
    (v(1, 42, 0), "1.20.3"),
    (v(1, 43, 0), "1.20.5"),
    (v(1, 45, 0), "1.21.0"),
    (v(1, 46, 0), "1.21.1"),
    (v(1, 47, 0), "1.21.2"),
    (v(1, 48, 0), "1.22.0"),
    (v(1, 49, 0), "1.22.1"),
    (v(1, 50, 1), "1.22.2"),
    (v(1, 51, 0), "1.23.0"),
    (v(1, 52, 0), "1.23.1"),
    (v(1, 54, 0), "1.24.0"),
    (v(1, 57, 0), "1.26.0"),
    (v(1, 58, 0), "1.26.1"),
    (v(1, 59, 0), "1.26.2"),
    (v(1, 60, 0), "1.27.0"),
    (v(1, 63, 1), "1.28.1"),
    (v(1, 64, 0), "1.28.2"),
    (v(1, 65, 0), "1.28.3"),
    (v(1, 66, 0), "1.29.0"),
    (v(1, 67, 0), "1.30.0"),
    (v(1, 68, 0), "1.31.0"),
];

/// `(first core, @mastra/libsql)`.
const LIBSQL: &[(MastraVersion, &str)] = &[
    (v(1, 0, 0), "1.0.0"),
    (v(1, 1, 0), "1.1.0"),
    (v(1, 2, 0), "1.2.0"),
    (v(1, 4, 0), "1.4.0"),
    (v(1, 5, 0), "1.5.0"),
    (v(1, 6, 0), "1.6.0"),
    (v(1, 8, 0), "1.6.2"),
    (v(1, 10, 0), "1.6.4"),
    (v(1, 11, 0), "1.7.0"),
    (v(1, 14, 0), "1.7.1"),
    (v(1, 16, 0), "1.7.2"),
    (v(1, 18, 0), "1.7.3"),
    (v(1, 22, 0), "1.7.4"),
    (v(1, 23, 0), "1.8.0"),
    (v(1, 25, 0), "1.8.1"),
    (v(1, 26, 0), "1.9.0"),
    (v(1, 31, 0), "1.9.1"),
    (v(1, 32, 1), "1.10.0"),
    (v(1, 33, 0), "1.10.1"),
    (v(1, 35, 0), "1.11.0"),
    (v(1, 36, 0), "1.11.1"),
    (v(1, 39, 0), "1.12.1"),
    (v(1, 42, 0), "1.13.0"),
    (v(1, 43, 0), "1.13.2"),
    (v(1, 45, 0), "1.14.0"),
    (v(1, 46, 0), "1.14.1"),
    (v(1, 47, 0), "1.14.2"),
    (v(1, 48, 0), "1.14.3"),
    (v(1, 49, 0), "1.15.0"),
    (v(1, 50, 0), "1.15.1"),
    (v(1, 51, 0), "1.16.0"),
    (v(1, 52, 0), "1.17.0"),
    (v(1, 53, 0), "1.17.1"),
    (v(1, 54, 0), "1.18.0"),
    (v(1, 57, 0), "1.19.0"),
    (v(1, 58, 0), "1.20.0"),
    (v(1, 61, 0), "1.21.1"),
    (v(1, 63, 2), "1.22.2"),
    (v(1, 64, 0), "1.22.3"),
    (v(1, 66, 0), "1.22.5"),
    (v(1, 67, 0), "1.23.0"),
    (v(1, 68, 0), "1.23.1"),
];

/// `(first core, @mastra/observability)`: the package the 1.x cores take
/// their `observability` option from (`new Mastra({ observability: new
/// Observability({ configs }) })`, the `tracing` case field). Chosen by the
/// same rule, from `npm view @mastra/observability@'>=1.0.0' version
/// devDependencies peerDependencies` (registry of 2026-12-03).
const OBSERVABILITY: &[(MastraVersion, &str)] = &[
    (v(1, 0, 0), "1.0.0"),
    (v(1, 1, 0), "1.1.0"),
    (v(1, 2, 0), "1.2.0"),
    (v(1, 6, 0), "1.2.1"),
    (v(1, 9, 0), "1.3.0"),
    (v(1, 10, 0), "1.3.1"),
    (v(1, 11, 0), "1.4.0"),
    (v(1, 13, 0), "1.5.0"),
    (v(1, 15, 0), "1.5.1"),
    (v(1, 18, 0), "1.6.0"),
    (v(1, 20, 0), "1.7.0"),
    (v(1, 21, 0), "1.7.1"),
    (v(1, 22, 0), "1.7.2"),
    (v(1, 23, 0), "1.7.3"),
    (v(1, 24, 0), "1.8.0"),
    (v(1, 24, 1), "1.9.0"),
    (v(1, 25, 0), "1.9.1"),
    (v(1, 26, 0), "1.10.0"),
    (v(1, 29, 0), "1.10.1"),
    (v(1, 31, 0), "1.11.0"),
    (v(1, 32, 0), "1.11.1"),
    (v(1, 33, 0), "1.12.0"),
    (v(1, 36, 0), "1.13.0"),
    (v(1, 37, 0), "1.14.0"),
    (v(1, 38, 0), "1.14.1"),
    (v(1, 43, 0), "1.14.3"),
    (v(1, 45, 0), "1.15.0"),
    (v(1, 46, 0), "1.15.1"),
    (v(1, 47, 0), "1.15.2"),
    (v(1, 50, 0), "1.16.0"),
    (v(1, 51, 0), "1.16.1"),
    (v(1, 52, 0), "1.16.2"),
    (v(1, 54, 0), "1.16.3"),
    (v(1, 57, 0), "1.16.5"),
    (v(1, 58, 0), "1.16.6"),
    (v(1, 59, 0), "1.17.0"),
    (v(1, 60, 0), "1.17.1"),
    (v(1, 63, 1), "1.17.4"),
    (v(1, 64, 0), "1.17.5"),
    (v(1, 65, 0), "1.17.6"),
    (v(1, 66, 0), "1.17.7"),
    (v(1, 67, 0), "1.17.8"),
    (v(1, 68, 0), "1.17.9"),
];

/// `(first core, @mastra/server)`: the package `mastra dev` serves its
/// routes from, whose tool handlers the `lookups` case field calls in
/// process. Chosen by the same rule, from `npm view @mastra/server@'>=1.0.0
/// <2.0.0' version peerDependencies devDependencies` (registry of
/// 2026-12-06): each 1.x server is built against the core of its own
/// number, so a core takes the server of its number, or the newest before
/// it (1.70.0 and 1.71.0 take 1.69.0). The 1.0.2 and 1.0.3 on the registry
/// are an old line's (`@mastra/core ^0.8`); the 2.0.x tag `latest` peers
/// no 1.x core.
const SERVER: &[(MastraVersion, &str)] = &[
    (v(1, 0, 0), "1.0.4"),
    (v(1, 1, 0), "1.1.0"),
    (v(1, 2, 0), "1.2.0"),
    (v(1, 4, 0), "1.4.0"),
    (v(1, 5, 0), "1.5.0"),
    (v(1, 7, 0), "1.7.0"),
    (v(1, 8, 0), "1.8.0"),
    (v(1, 9, 0), "1.9.0"),
    (v(1, 10, 0), "1.10.0"),
    (v(1, 13, 2), "1.13.2"),
    (v(1, 14, 0), "1.14.0"),
    (v(1, 15, 0), "1.15.0"),
    (v(1, 16, 0), "1.16.0"),
    (v(1, 17, 0), "1.17.0"),
    (v(1, 20, 0), "1.20.0"),
    (v(1, 21, 0), "1.21.0"),
    (v(1, 22, 0), "1.22.0"),
    (v(1, 23, 0), "1.23.0"),
    (v(1, 24, 0), "1.24.0"),
    (v(1, 24, 1), "1.24.1"),
    (v(1, 25, 0), "1.25.0"),
    (v(1, 26, 0), "1.26.0"),
    (v(1, 28, 0), "1.28.0"),
    (v(1, 30, 0), "1.30.0"),
    (v(1, 31, 0), "1.31.0"),
    (v(1, 32, 0), "1.32.0"),
    (v(1, 32, 1), "1.32.1"),
    (v(1, 33, 0), "1.33.0"),
    (v(1, 33, 1), "1.33.1"),
    (v(1, 34, 0), "1.34.0"),
    (v(1, 35, 0), "1.35.0"),
    (v(1, 36, 0), "1.36.0"),
    (v(1, 37, 1), "1.37.1"),
    (v(1, 38, 0), "1.38.0"),
    (v(1, 40, 0), "1.40.0"),
    (v(1, 41, 0), "1.41.0"),
    (v(1, 42, 0), "1.42.0"),
    (v(1, 43, 0), "1.43.0"),
    (v(1, 45, 0), "1.45.0"),
    (v(1, 46, 0), "1.46.0"),
    (v(1, 47, 0), "1.47.0"),
    (v(1, 48, 0), "1.48.0"),
    (v(1, 49, 0), "1.49.0"),
    (v(1, 50, 0), "1.50.0"),
    (v(1, 50, 1), "1.50.1"),
    (v(1, 51, 0), "1.51.0"),
    (v(1, 52, 0), "1.52.0"),
    (v(1, 52, 1), "1.52.1"),
    (v(1, 53, 0), "1.53.0"),
    (v(1, 54, 0), "1.54.0"),
    (v(1, 55, 0), "1.55.0"),
    (v(1, 57, 0), "1.57.0"),
    (v(1, 58, 0), "1.58.0"),
    (v(1, 59, 0), "1.59.0"),
    (v(1, 60, 0), "1.60.0"),
    (v(1, 61, 0), "1.61.0"),
    (v(1, 63, 0), "1.63.0"),
    (v(1, 63, 2), "1.63.2"),
    (v(1, 64, 0), "1.64.0"),
    (v(1, 65, 0), "1.65.0"),
    (v(1, 66, 0), "1.66.0"),
    (v(1, 67, 0), "1.67.0"),
    (v(1, 68, 0), "1.68.0"),
    (v(1, 69, 0), "1.69.0"),
];

fn pick(table: &[(MastraVersion, &'static str)], core: MastraVersion) -> &'static str {
    table
        .iter()
        .rev()
        .find(|(from, _)| core >= *from)
        .map_or(table[0].1, |(_, pkg)| *pkg)
}

/// Whether `core` is a release of the 0.x line. A snapshot build
/// (`0.0.0-TAG-TIMESTAMP`) not yet placed on a release is not: Mastra cuts
/// them from its main line, so they take the 1.x packages and probe.
pub fn on_zero_line(core: MastraVersion) -> bool {
    core.major == 0 && (core.minor, core.patch) != (0, 0)
}

/// Whether the install's `@mastra/mcp` is from before `MCPConfiguration`
/// (its 0.3.0): its `MastraMCPClient` reaches one server and lists its
/// tools under their own names, the server's name only in each tool's id
/// (`${name}_${tool.name}`, 0.2.6 `dist/index.js:54` and `:72`). A user
/// connects one per server, in turn, and spreads each listing, so the
/// servers' tools join in the servers object's key order, with no race
/// (`cases/real/mcp-*` on core 0.4.4).
pub fn mcp_client_of_one_server(core: MastraVersion) -> bool {
    extras(core)
        .iter()
        .find(|(name, _)| *name == "@mastra/mcp")
        .and_then(|(_, at)| MastraVersion::parse(at))
        .is_some_and(|at| at < v(0, 3, 0))
}

/// The extra packages of an install of `core`, in manifest order.
pub fn extras(core: MastraVersion) -> Vec<(&'static str, &'static str)> {
    if on_zero_line(core) {
        return zero(core);
    }
    vec![
        ("@mastra/mcp", pick(MCP, core)),
        ("@mastra/memory", pick(MEMORY, core)),
        ("@mastra/libsql", pick(LIBSQL, core)),
        ("@mastra/observability", pick(OBSERVABILITY, core)),
        ("@mastra/server", pick(SERVER, core)),
        ("@modelcontextprotocol/sdk", MCP_SDK),
    ]
}

// ---------------------------------------------------------------------------
// The 0.x line
//
// Chosen by the same rule, over every served stable 0.x core from 0.2.0
// (0.1.x has no Agent: `version::extras::zero` gives it nothing), from
// `npm view @mastra/PKG@'<1.0.0-0' version peerDependencies devDependencies
// dependencies` (registry of 2026-12-01). Up to @mastra/mcp 0.5.0,
// @mastra/memory 0.3.4 and @mastra/libsql 0.0.4 the packages named the core
// as a dependency (`^0.8.3`: >=0.8.3 <0.9.0), which is read as the range.
// The registry serves no release of a package that fits some cores (`None`:
// @mastra/mcp for 0.19.1, @mastra/memory for 0.14.0, say); those installs go
// without it, and a case that needs it is not applicable there.

/// `(first core, @mastra/mcp)` on 0.x.
const MCP_ZERO: &[(MastraVersion, Option<&str>)] = &[
    (v(0, 2, 0), None),
    (v(0, 4, 4), Some("0.2.6")),
    (v(0, 5, 0), None),
    (v(0, 6, 3), Some("0.3.4")),
    (v(0, 6, 4), Some("0.3.5")),
    (v(0, 7, 0), None),
    (v(0, 8, 2), Some("0.3.9")),
    (v(0, 8, 3), Some("0.3.10")),
    (v(0, 9, 0), None),
    (v(0, 9, 4), Some("0.5.0")),
    (v(0, 10, 1), None),
    (v(0, 10, 2), Some("0.10.2")),
    (v(0, 10, 5), Some("0.10.3")),
    (v(0, 10, 6), Some("0.10.4")),
    (v(0, 10, 8), Some("0.10.5")),
    (v(0, 10, 14), Some("0.10.6")),
    (v(0, 11, 1), Some("0.10.7")),
    (v(0, 12, 0), Some("0.10.8")),
    (v(0, 12, 1), Some("0.10.9")),
    (v(0, 13, 0), Some("0.10.10")),
    (v(0, 13, 2), Some("0.10.11")),
    (v(0, 14, 0), Some("0.10.12")),
    (v(0, 15, 2), Some("0.11.2")),
    (v(0, 15, 3), Some("0.11.3")),
    (v(0, 16, 0), Some("0.11.4")),
    (v(0, 16, 1), Some("0.12.0")),
    (v(0, 17, 0), Some("0.13.0")),
    (v(0, 18, 0), Some("0.13.1")),
    (v(0, 19, 1), None),
    (v(0, 20, 0), Some("0.13.3")),
    (v(0, 20, 2), Some("0.13.4")),
    (v(0, 21, 0), Some("0.13.5")),
    (v(0, 22, 0), Some("0.14.0")),
    (v(0, 23, 1), Some("0.14.1")),
    (v(0, 24, 0), Some("0.14.2")),
    (v(0, 24, 2), Some("0.14.3")),
    (v(0, 24, 6), Some("0.14.4")),
    (v(0, 24, 7), Some("0.14.5")),
];

/// `(first core, @mastra/memory)` on 0.x.
const MEMORY_ZERO: &[(MastraVersion, Option<&str>)] = &[
    (v(0, 2, 0), None),
    (v(0, 4, 2), Some("0.1.5")),
    (v(0, 4, 4), Some("0.1.7")),
    (v(0, 5, 0), None),
    (v(0, 6, 0), Some("0.2.1")),
    (v(0, 6, 3), Some("0.2.4")),
    (v(0, 6, 4), Some("0.2.5")),
    (v(0, 7, 0), None),
    (v(0, 8, 2), Some("0.2.9")),
    (v(0, 8, 3), Some("0.2.10")),
    (v(0, 9, 0), None),
    (v(0, 9, 1), Some("0.3.1")),
    (v(0, 9, 4), Some("0.3.4")),
    (v(0, 10, 1), None),
    (v(0, 10, 2), Some("0.10.2")),
    (v(0, 10, 5), Some("0.10.3")),
    (v(0, 10, 8), Some("0.11.0")),
    (v(0, 10, 9), Some("0.11.1")),
    (v(0, 10, 14), Some("0.11.2")),
    (v(0, 11, 1), Some("0.11.5")),
    (v(0, 12, 0), Some("0.12.0")),
    (v(0, 13, 0), Some("0.12.1")),
    (v(0, 13, 2), Some("0.12.2")),
    (v(0, 14, 0), None),
    (v(0, 14, 1), Some("0.13.1")),
    (v(0, 15, 2), None),
    (v(0, 16, 0), Some("0.14.4")),
    (v(0, 16, 1), Some("0.15.0")),
    (v(0, 16, 3), Some("0.15.1")),
    (v(0, 17, 0), Some("0.15.2")),
    (v(0, 18, 0), Some("0.15.3")),
    (v(0, 19, 1), Some("0.15.4")),
    (v(0, 20, 0), Some("0.15.5")),
    (v(0, 20, 2), Some("0.15.6")),
    (v(0, 21, 0), Some("0.15.7")),
    (v(0, 22, 0), Some("0.15.8")),
    (v(0, 23, 1), Some("0.15.9")),
    (v(0, 23, 3), Some("0.15.10")),
    (v(0, 24, 0), Some("0.15.11")),
    (v(0, 24, 6), Some("0.15.12")),
    (v(0, 24, 7), Some("0.15.13")),
];

/// `(first core, @mastra/libsql)` on 0.x. Before it existed, storage came
/// with the core (`@mastra/core/storage`).
const LIBSQL_ZERO: &[(MastraVersion, Option<&str>)] = &[
    (v(0, 2, 0), None),
    (v(0, 9, 1), Some("0.0.1")),
    (v(0, 9, 4), Some("0.0.4")),
    (v(0, 10, 1), None),
    (v(0, 10, 2), Some("0.10.1")),
    (v(0, 10, 5), Some("0.10.2")),
    (v(0, 10, 6), Some("0.10.3")),
    (v(0, 10, 8), Some("0.11.0")),
    (v(0, 11, 1), Some("0.11.2")),
    (v(0, 12, 0), Some("0.12.0")),
    (v(0, 13, 0), None),
    (v(0, 13, 1), Some("0.13.1")),
    (v(0, 13, 2), Some("0.13.2")),
    (v(0, 14, 0), None),
    (v(0, 15, 3), Some("0.13.8")),
    (v(0, 16, 0), Some("0.14.0")),
    (v(0, 16, 3), Some("0.14.1")),
    (v(0, 17, 0), Some("0.14.2")),
    (v(0, 18, 0), Some("0.14.3")),
    (v(0, 19, 1), Some("0.15.0")),
    (v(0, 20, 0), Some("0.15.1")),
    (v(0, 21, 0), Some("0.15.2")),
    (v(0, 22, 0), None),
    (v(0, 23, 1), Some("0.16.1")),
    (v(0, 24, 0), Some("0.16.2")),
    (v(0, 24, 6), Some("0.16.3")),
    (v(0, 24, 7), Some("0.16.4")),
];

/// `(first core, @mastra/server)` on 0.x: the package `mastra dev` serves its
/// routes from, whose tool handlers the `lookups` case field calls in
/// process. From `npm view @mastra/server@'>=0.10.3 <1.0.0' version
/// peerDependencies` (registry of 2026-12-07): a core takes the server of its
/// number, or the newest before it, where that server's range admits the
/// core; 0.13.0, 0.14.0, 0.20.0 and 0.21.0 fall between two ranges (each
/// minor's first server is its .1 or .2) and go without one, as every core
/// before 0.10.3 does.
const SERVER_ZERO: &[(MastraVersion, Option<&str>)] = &[
    (v(0, 2, 0), None),
    (v(0, 10, 3), Some("0.10.3")),
    (v(0, 10, 5), Some("0.10.5")),
    (v(0, 10, 8), Some("0.10.8")),
    (v(0, 10, 9), Some("0.10.9")),
    (v(0, 10, 10), Some("0.10.10")),
    (v(0, 10, 14), Some("0.10.14")),
    (v(0, 10, 15), Some("0.10.15")),
    (v(0, 11, 1), Some("0.11.1")),
    (v(0, 12, 0), Some("0.12.0")),
    (v(0, 12, 1), Some("0.12.1")),
    (v(0, 13, 0), None),
    (v(0, 13, 1), Some("0.13.1")),
    (v(0, 13, 2), Some("0.13.2")),
    (v(0, 14, 0), None),
    (v(0, 14, 1), Some("0.14.1")),
    (v(0, 15, 2), Some("0.15.2")),
    (v(0, 15, 3), Some("0.15.3")),
    (v(0, 16, 0), Some("0.16.0")),
    (v(0, 16, 1), Some("0.16.1")),
    (v(0, 16, 3), Some("0.16.3")),
    (v(0, 17, 0), Some("0.17.0")),
    (v(0, 17, 1), Some("0.17.1")),
    (v(0, 18, 0), Some("0.18.0")),
    (v(0, 19, 1), Some("0.19.1")),
    (v(0, 20, 0), None),
    (v(0, 20, 2), Some("0.20.2")),
    (v(0, 21, 0), None),
    (v(0, 21, 1), Some("0.21.1")),
    (v(0, 22, 0), Some("0.22.0")),
    (v(0, 22, 2), Some("0.22.2")),
    (v(0, 23, 1), Some("0.23.1")),
    (v(0, 23, 3), Some("0.23.3")),
    (v(0, 24, 0), Some("0.24.0")),
    (v(0, 24, 1), Some("0.24.1")),
    (v(0, 24, 2), Some("0.24.2")),
    (v(0, 24, 5), Some("0.24.5")),
    (v(0, 24, 6), Some("0.24.6")),
    (v(0, 24, 8), Some("0.24.8")),
    (v(0, 24, 9), Some("0.24.9")),
];

/// Whether an install of `core` has `@mastra/server`: every 1.x, and the 0.x
/// cores `SERVER_ZERO` gives one.
pub fn has_server(core: MastraVersion) -> bool {
    extras(core)
        .iter()
        .any(|(name, _)| *name == "@mastra/server")
}

/// The AI SDK v4 provider packages a 0.x user installs to name a model
/// before `generate` took AI SDK v5 models (0.20.0): each the newest 1.x
/// (0.2.x for openai-compatible), all on `@ai-sdk/provider` 1.1.3 and
/// `@ai-sdk/provider-utils` 2.2.8, the ones the 0.12+ cores depend on.
/// `node-probe/legacy.mjs` builds each route's model from them.
pub const AI_SDK_V4_PROVIDERS: &[(&str, &str)] = &[
    ("@ai-sdk/openai-compatible", "0.2.16"),
    ("@ai-sdk/openai", "1.3.24"),
    ("@ai-sdk/anthropic", "1.2.12"),
    ("@ai-sdk/google", "1.2.22"),
    ("@ai-sdk/mistral", "1.2.8"),
    ("@ai-sdk/groq", "1.2.9"),
];

/// The first core whose `generate` and `stream` take AI SDK v5 models only
/// (0.20.0 `dist/chunk-DQISKQDE.js:713`: "is using AI SDK v4 model ... which
/// is not compatible with stream()"); before it they take v4 models.
pub const V5_GENERATE: MastraVersion = v(0, 20, 0);

/// The first 0.x with an Agent that takes AI SDK tools (0.2.0
/// `dist/agent/index.js`); 0.1.x is an integrations framework without one.
pub const FIRST_AGENT: MastraVersion = v(0, 2, 0);

fn pick_zero(
    table: &[(MastraVersion, Option<&'static str>)],
    core: MastraVersion,
) -> Option<&'static str> {
    table
        .iter()
        .rev()
        .find(|(from, _)| core >= *from)
        .and_then(|(_, pkg)| *pkg)
}

/// The extra packages of an install of a 0.x `core`.
fn zero(core: MastraVersion) -> Vec<(&'static str, &'static str)> {
    if core < FIRST_AGENT {
        return Vec::new();
    }
    let mut out: Vec<(&str, &str)> = [
        ("@mastra/mcp", pick_zero(MCP_ZERO, core)),
        ("@mastra/memory", pick_zero(MEMORY_ZERO, core)),
        ("@mastra/libsql", pick_zero(LIBSQL_ZERO, core)),
        ("@mastra/server", pick_zero(SERVER_ZERO, core)),
    ]
    .into_iter()
    .filter_map(|(name, pkg)| pkg.map(|p| (name, p)))
    .collect();
    out.push(("@modelcontextprotocol/sdk", MCP_SDK));
    if core < V5_GENERATE {
        out.extend_from_slice(AI_SDK_V4_PROVIDERS);
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn only_the_install_with_mastra_mcp_0_2_has_a_client_of_one_server() {
        // 0.4.4 gets @mastra/mcp 0.2.6; 0.6.3 0.3.4 (`MCPConfiguration`);
        // 0.5.0 none at all.
        assert!(mcp_client_of_one_server(v(0, 4, 4)));
        assert!(!mcp_client_of_one_server(v(0, 5, 0)));
        assert!(!mcp_client_of_one_server(v(0, 6, 3)));
        assert!(!mcp_client_of_one_server(v(0, 24, 9)));
    }
    use super::*;

    #[test]
    fn a_0x_core_has_a_server_from_0_10_3_where_a_range_admits_it() {
        assert!(!has_server(v(0, 10, 2)));
        assert!(has_server(v(0, 10, 3)));
        // Each minor's first server is its .1: its .0 core has none.
        assert!(!has_server(v(0, 13, 0)));
        assert!(has_server(v(0, 13, 1)));
        assert!(has_server(v(0, 24, 9)));
        assert!(has_server(v(1, 0, 4)));
    }

    #[test]
    fn the_measured_versions_get_the_packages_they_ran_with() {
        let get =
            |c: MastraVersion, p: &str| extras(c).into_iter().find(|(n, _)| *n == p).unwrap().1;
        assert_eq!(get(v(1, 0, 4), "@mastra/mcp"), "1.0.3");
        assert_eq!(get(v(1, 0, 4), "@mastra/memory"), "1.0.0");
        assert_eq!(get(v(1, 67, 0), "@mastra/mcp"), "1.18.0");
        assert_eq!(get(v(1, 67, 0), "@mastra/memory"), "1.30.0");
        assert_eq!(get(v(1, 71, 0), "@mastra/mcp"), "2.0.0");
        assert_eq!(get(v(1, 71, 0), "@mastra/libsql"), "1.23.1");
        assert_eq!(get(v(1, 0, 4), "@mastra/observability"), "1.0.0");
        assert_eq!(get(v(1, 67, 0), "@mastra/observability"), "1.17.8");
        assert_eq!(get(v(1, 71, 0), "@mastra/observability"), "1.17.9");
        assert_eq!(get(v(1, 0, 4), "@mastra/server"), "1.0.4");
        assert_eq!(get(v(1, 67, 0), "@mastra/server"), "1.67.0");
        assert_eq!(get(v(1, 71, 0), "@mastra/server"), "1.69.0");
        assert_eq!(get(v(1, 12, 0), "@mastra/server"), "1.10.0");
        // Between rows: the row below.
        assert_eq!(get(v(1, 66, 5), "@mastra/mcp"), "1.17.3");
    }

    #[test]
    fn tables_ascend() {
        for t in [MCP, MEMORY, LIBSQL, OBSERVABILITY, SERVER] {
            assert!(t.windows(2).all(|w| w[0].0 < w[1].0));
        }
        for t in [MCP_ZERO, MEMORY_ZERO, LIBSQL_ZERO] {
            assert!(t.windows(2).all(|w| w[0].0 < w[1].0));
            assert!(t.iter().all(|(core, _)| core.major == 0));
        }
    }

    #[test]
    fn a_zero_core_gets_its_own_peers_and_the_v4_providers_before_v5_generate() {
        let names = |c| extras(c).into_iter().map(|(n, _)| n).collect::<Vec<_>>();
        let get = |c, p: &str| extras(c).into_iter().find(|(n, _)| *n == p).map(|x| x.1);
        assert_eq!(get(v(0, 21, 1), "@mastra/mcp"), Some("0.13.5"));
        assert_eq!(get(v(0, 24, 9), "@mastra/memory"), Some("0.15.13"));
        assert_eq!(get(v(0, 19, 1), "@mastra/mcp"), None, "none served fits");
        assert!(names(v(0, 19, 1)).contains(&"@ai-sdk/openai"));
        assert!(!names(v(0, 20, 0)).contains(&"@ai-sdk/openai"));
        assert!(extras(v(0, 1, 26)).is_empty(), "0.1.x has no Agent");
        assert_eq!(
            extras(v(0, 0, 0)),
            extras(v(1, 0, 4)),
            "a snapshot not yet placed takes the main line's packages"
        );
    }
}
