//! `@mastra/core` versions as values, pure: `MastraVersion`, the
//! `--versions` grammar and its resolution against a registry's list, and
//! the prediction of builds (`spec`); the packages installed beside each
//! core for every tool source (`extras`); the digests the cache names
//! things by (`digest`). Getting them is `crate::install`'s.

pub mod spec;
pub mod extras;
pub mod digest;
