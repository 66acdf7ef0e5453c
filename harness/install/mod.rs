//! Getting `@mastra/core` versions (I/O; what a version is, and what goes
//! beside it, is `crate::version`), each subject on the ones before it: the
//! cache's locks (`lock`), where it
//! keeps things and how an install gets there whole (`layout`, with
//! `Installs`), pnpm's one store (`store`), whether an install is whole
//! (`verify`), the package managers
//! (`manager`), the registry's list (`registry`), builds given as paths
//! (`build`), revisions of a mastra checkout built into such builds
//! (`revision`), the Node runtime (`node`), installing a version (`mastra`,
//! the entry point), and what the cache holds and pruning it (`cache`).

pub mod lock;
pub mod layout;
pub mod store;
pub mod verify;
pub mod manager;
pub mod registry;
pub mod build;
pub mod revision;
pub mod node;
pub mod mastra;
pub mod cache;
