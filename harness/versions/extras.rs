//! `Extras`: the packages installed beside each `@mastra/core` so that a
//! case can use every tool source (`shared/case-format.md`): `@mastra/mcp`
//! for MCP servers, the official MCP SDK the probe's own server runs on,
//! and `@mastra/memory` with `@mastra/libsql` for working memory.
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

/// The MCP SDK the probe's MCP server runs on (`node-probe/mcp-server.mjs`).
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

fn pick(table: &[(MastraVersion, &'static str)], core: MastraVersion) -> &'static str {
    table
        .iter()
        .rev()
        .find(|(from, _)| core >= *from)
        .map_or(table[0].1, |(_, pkg)| *pkg)
}

/// The extra packages of an install of `core`, in manifest order.
pub fn extras(core: MastraVersion) -> Vec<(&'static str, &'static str)> {
    vec![
        ("@mastra/mcp", pick(MCP, core)),
        ("@mastra/memory", pick(MEMORY, core)),
        ("@mastra/libsql", pick(LIBSQL, core)),
        ("@modelcontextprotocol/sdk", MCP_SDK),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // Between rows: the row below.
        assert_eq!(get(v(1, 66, 5), "@mastra/mcp"), "1.17.3");
    }

    #[test]
    fn tables_ascend() {
        for t in [MCP, MEMORY, LIBSQL] {
            assert!(t.windows(2).all(|w| w[0].0 < w[1].0));
        }
    }
}
