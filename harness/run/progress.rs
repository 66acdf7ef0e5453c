//! `Progress`: how a long loop says how far it has come, without knowing
//! who listens. The command layer draws it (a bar on a terminal); tests and
//! quiet callers pass `&()`.

/// A sink for progress. Methods take `&self` so one sink can be shared by the
/// nested closures of a loop (implementations use interior mutability).
pub trait Progress {
    /// The total is now `len` steps, counted from zero again.
    fn restart(&self, _len: u64) {}
    /// `by` more steps are to come.
    fn grow(&self, _by: u64) {}
    /// `by` steps are done.
    fn advance(&self, _by: u64) {}
    /// What is happening now, in a few words.
    fn say(&self, _message: &str) {}
}

impl Progress for () {}
