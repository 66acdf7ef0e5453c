//! `@mastra/core` versions: what they are (`spec`, pure: `MastraVersion`,
//! the `--versions` grammar and its resolution) apart from getting them
//! (`install`: the registry, the install cache and the Node runtime;
//! `store`: pnpm and its one content-addressed store; `cache`: what the
//! cache holds, and pruning it), and the packages installed beside each
//! core for every tool source (`extras`).

pub mod cache;
pub mod extras;
pub mod install;
pub mod spec;
pub mod store;
