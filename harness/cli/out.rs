//! What the command layer puts on the terminal and on disk: stdout that
//! survives `| head`, the stop flag raised by signals, progress bars, and
//! reports written where asked (or somewhere safe when that fails).

use crate::case::CaseError;
use crate::judge::case_result::CaseResult;
use crate::outcome::Failure;
pub use crate::report::save_report;
use crate::results::info::RunInfo;
use crate::results::VersionStats;
use crate::run::corpus::RunObserver;
use crate::run::progress::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Print to stdout. A reader that went away (`| head`) is not an error, and
/// must not become a panic: what is left to print is dropped, and the
/// command ends as it would have.
pub fn print_out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

/// `print_out` with `format!` arguments and a newline.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::cli::out::print_out(&format!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use say;

/// Raise the stop flag on SIGINT, SIGTERM and SIGHUP (a closed terminal):
/// the run drops the cases in flight, ends its probes and writes its report.
pub fn stop_flag() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        let _ = signal_hook::flag::register(sig, stop.clone());
    }
    stop
}

/// A bar on stderr, drawn only on a terminal (a CI log gets none).
pub fn bar(label: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template(
        "{prefix:>8} [{bar:30}] {pos}/{len} {per_sec:>12} eta {eta:>4} {msg}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_prefix(label.to_string());
    bar
}

impl Progress for ProgressBar {
    fn restart(&self, len: u64) {
        self.set_length(len);
        self.set_position(0);
    }
    fn grow(&self, by: u64) {
        self.inc_length(by);
    }
    fn advance(&self, by: u64) {
        self.inc(by);
    }
    fn say(&self, message: &str) {
        self.set_message(message.to_string());
    }
}

/// Watches a run for a person: bad case files as they are found, a bar over
/// all (case, version) pairs, and a line per version on a long run.
pub struct Watcher {
    bar: Option<ProgressBar>,
    versions: usize,
    last_version: Option<String>,
    /// Where no bar is drawn (a CI log), name each version as it starts,
    /// prefixed with this.
    announce: Option<&'static str>,
}

impl Watcher {
    pub fn new() -> Watcher {
        Watcher {
            bar: None,
            versions: 0,
            last_version: None,
            announce: None,
        }
    }

    /// A watcher that names each version as it starts when no bar is drawn.
    pub fn announcing(label: &'static str) -> Watcher {
        Watcher {
            announce: Some(label),
            ..Watcher::new()
        }
    }
}

impl RunObserver for Watcher {
    fn started(&mut self, info: &mut RunInfo, pairs: usize) -> Result<(), Failure> {
        self.versions = info.versions.len();
        let b = bar("");
        b.set_length(pairs as u64);
        self.bar = Some(b);
        Ok(())
    }

    fn bad_case(&mut self, error: &CaseError) {
        match &self.bar {
            Some(b) => b.suspend(|| eprintln!("error: {error}")),
            None => eprintln!("error: {error}"),
        }
    }

    fn result(&mut self, r: &CaseResult) {
        let version = r.version.to_string();
        if let Some(b) = &self.bar {
            if self.last_version.as_deref() != Some(version.as_str()) {
                if let (true, Some(label)) = (b.is_hidden(), self.announce) {
                    eprintln!("{label}: {version}");
                }
                b.set_message(version.clone());
                self.last_version = Some(version);
            }
            b.inc(1);
        }
    }

    fn version_done(&mut self, stats: &VersionStats) {
        if self.versions > 3 {
            if let Some(v) = stats.version {
                let line = format!(
                    "{v}: {} cases in {:.1}s",
                    stats.cases,
                    stats.pool.busy.as_secs_f64()
                );
                match &self.bar {
                    Some(b) => b.suspend(|| eprintln!("{line}")),
                    None => eprintln!("{line}"),
                }
            }
        }
    }

    fn finished(&mut self, _info: &RunInfo, _results: &[CaseResult]) -> Result<(), Failure> {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
        Ok(())
    }
}

/// Fail early, before any work, when a report could not be written where
/// asked.
pub fn check_writable(flag: &str, path: &Path) -> Result<(), Failure> {
    if path.is_dir() {
        return Err(Failure::bad(format!(
            "{flag}: {} is a folder; give the report's file name",
            path.display()
        )));
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    tempfile::NamedTempFile::new_in(dir).map(drop).map_err(|e| {
        Failure::infra_because(format!("cannot write the report {}", path.display()), e)
    })
}
