//! `take`: the cache's locks (`flock`). Each install folder has one
//! (`CACHE/locks/`, `layout::lock_file`), so two runs never make the same
//! install at once and a prune never removes one being made; the store has
//! one that every install holds shared and a sweep holds alone
//! (`store::Store::hold`).
//!
//! In: a lock file, shared or exclusive, how long to wait, the run's stop
//! flag. Out: the open file, which holds the lock until it is dropped, or
//! why it could not be had. A lock dies with the process that held it, so a
//! killed run never leaves one behind.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Why a lock could not be had.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("cannot open the lock file {}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        cause: std::io::Error,
    },
    #[error("cannot take the lock {}", path.display())]
    Flock {
        path: PathBuf,
        #[source]
        cause: std::io::Error,
    },
    #[error("the wait for another run's install was ended because the run was interrupted")]
    Interrupted,
    #[error("another run held {} for the whole install timeout ({after:?})", path.display())]
    TimedOut { path: PathBuf, after: Duration },
}

/// How a lock is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// Alone: an install being made or removed, a sweep.
    Exclusive,
    /// Beside other holders: installs using the store.
    Shared,
}

/// How a wait for a lock ended, when no error ended it.
#[derive(Debug)]
pub enum Waited {
    Held(File),
    /// `wait` passed with another holder still there.
    TimedOut,
    /// The stop flag was raised first.
    Interrupted,
}

/// Take the lock at `path` (created with its folder when missing), asking
/// every `poll` until it is free, `wait` has passed, or `cancel` is raised.
pub fn take(
    path: &Path,
    hold: Hold,
    wait: Duration,
    poll: Duration,
    cancel: Option<&AtomicBool>,
) -> Result<Waited, LockError> {
    let open_error = |cause| LockError::Open {
        path: path.to_path_buf(),
        cause,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(open_error)?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(open_error)?;
    // A wait too long for the clock is a wait without end.
    let deadline = Instant::now().checked_add(wait);
    loop {
        let taken = try_flock(&file, hold).map_err(|cause| LockError::Flock {
            path: path.to_path_buf(),
            cause,
        })?;
        if taken {
            return Ok(Waited::Held(file));
        }
        if cancel.is_some_and(|c| c.load(Ordering::SeqCst)) {
            return Ok(Waited::Interrupted);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(Waited::TimedOut);
        }
        std::thread::sleep(poll);
    }
}

/// Take an install folder's lock, waiting for another run that holds it (as
/// long as an install may take, and not past a raised stop flag).
pub fn take_install(
    path: &Path,
    wait: Duration,
    cancel: Option<&AtomicBool>,
) -> Result<File, LockError> {
    match take(
        path,
        Hold::Exclusive,
        wait,
        Duration::from_millis(100),
        cancel,
    )? {
        Waited::Held(file) => Ok(file),
        Waited::Interrupted => Err(LockError::Interrupted),
        Waited::TimedOut => Err(LockError::TimedOut {
            path: path.to_path_buf(),
            after: wait,
        }),
    }
}

/// One attempt at `file`'s lock: `Ok(false)` while another holds it.
fn try_flock(file: &File, hold: Hold) -> std::io::Result<bool> {
    let how = match hold {
        Hold::Exclusive => libc::LOCK_EX,
        Hold::Shared => libc::LOCK_SH,
    };
    // SAFETY: flock(2) on a descriptor we own; touches no memory.
    if unsafe { libc::flock(file.as_raw_fd(), how | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLL: Duration = Duration::from_millis(10);

    #[test]
    fn an_exclusive_lock_waits_out_its_holder_and_shared_ones_coexist() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("locks/a.lock");
        let held = take_install(&path, Duration::ZERO, None).unwrap();
        let again = take(
            &path,
            Hold::Exclusive,
            Duration::from_millis(50),
            POLL,
            None,
        );
        assert!(matches!(again, Ok(Waited::TimedOut)), "{again:?}");
        match take_install(&path, Duration::from_millis(30), None) {
            Err(LockError::TimedOut { after, .. }) => {
                assert_eq!(after, Duration::from_millis(30))
            }
            other => panic!("not a timeout: {other:?}"),
        }
        drop(held);
        // A child another test forks in this process holds a copy of every
        // descriptor until it execs (close-on-exec), and with it the flock:
        // the free lock is taken within a wait, not always at once.
        assert!(take_install(&path, Duration::from_secs(10), None).is_ok());

        let store = dir.path().join("store.lock");
        let a = take(&store, Hold::Shared, Duration::ZERO, POLL, None).unwrap();
        let b = take(&store, Hold::Shared, Duration::ZERO, POLL, None).unwrap();
        assert!(matches!((&a, &b), (Waited::Held(_), Waited::Held(_))));
        let sweep = take(&store, Hold::Exclusive, Duration::ZERO, POLL, None).unwrap();
        assert!(matches!(sweep, Waited::TimedOut), "installs hold the store");
    }

    #[test]
    fn a_raised_stop_flag_ends_the_wait() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        let _held = take_install(&path, Duration::ZERO, None).unwrap();
        let stop = AtomicBool::new(true);
        let waited = take_install(&path, Duration::from_secs(600), Some(&stop));
        assert!(matches!(waited, Err(LockError::Interrupted)), "{waited:?}");
    }
}
