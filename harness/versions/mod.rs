//! `@mastra/core` versions: what they are (`spec`, pure: `MastraVersion`,
//! the `--versions` grammar and its resolution) apart from getting them
//! (`install`: the registry, the install cache and the Node runtime).

pub mod install;
pub mod spec;
