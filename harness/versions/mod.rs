//! `@mastra/core` versions: what they are (`spec`, pure: `MastraVersion`,
//! the `--versions` grammar and its resolution; `extras`, pure: the
//! packages installed beside each core for every tool source) apart from
//! getting them (I/O): the registry's list (`registry`), builds given as
//! paths and the digests the cache names things by (`build`), where the
//! cache keeps things (`layout`) and its locks (`lock`), the package
//! managers (`manager`) and pnpm's one store (`store`), installing a
//! version (`install`, the entry point), the Node runtime (`node`), and
//! what the cache holds and pruning it (`cache`).

pub mod spec;
pub mod extras;
pub mod registry;
pub mod build;
pub mod layout;
pub mod lock;
pub mod manager;
pub mod store;
pub mod install;
pub mod node;
pub mod cache;
