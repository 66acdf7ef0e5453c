//! `@mastra/core` versions: what they are (`spec`, pure: `MastraVersion`,
//! the `--versions` grammar and its resolution; `extras`, pure: the
//! packages installed beside each core for every tool source) apart from
//! getting them (I/O), each subject on the ones before it: the digests the
//! cache names things by (`digest`, pure), its locks (`lock`), where it
//! keeps things and how an install gets there whole (`layout`, with
//! `Installs`), pnpm's one store (`store`), whether an install is whole
//! (`verify`), the package managers
//! (`manager`), the registry's list (`registry`), builds given as paths
//! (`build`), revisions of a mastra checkout built into such builds
//! (`revision`), the Node runtime (`node`), installing a version (`install`,
//! the entry point), and what the cache holds and pruning it (`cache`).

pub mod spec;
pub mod extras;
pub mod digest;
pub mod lock;
pub mod layout;
pub mod store;
pub mod verify;
pub mod manager;
pub mod registry;
pub mod build;
pub mod revision;
pub mod node;
pub mod install;
pub mod cache;
