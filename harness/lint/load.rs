//! `load_project`: runs `node-probe/project.mjs` on a user's Mastra project
//! and reads what it prints into a `LoadedProject`.
//!
//! In: the project folder, its entry file, an optional `--env-file`, the
//! harness's `Config` (the Node runtime, the probe folder). Out: the
//! `LoadedProject`, or a `LoadError` that says whose fault it was: the
//! project's (bad input, exit 2) or the harness's (Node could not be had,
//! the loader died: infrastructure, exit 3).
//!
//! Loading a project runs its code, so the loader is a child process with the
//! probes' isolation: `CommandSpec::scrubbed()` (the allowlisted environment:
//! no credentials, no proxies), its own process group ended when it is done,
//! a timeout, and inside it every outgoing request is refused. The only way
//! in for credentials is the user's own `--env-file`, read by Node itself.

use super::project::{parse_loaded, DecodeError, LoadedProject};
use crate::js::json::Json;
use crate::observe::proc::{CommandSpec, ProcError};
use crate::observe::sandbox::{self, Policy};
use crate::run::config::Config;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The entry Mastra's own templates use.
pub const DEFAULT_ENTRY: &str = "src/mastra/index.ts";

/// How long importing a project and walking its agents may take.
pub const LOAD_TIMEOUT: Duration = Duration::from_secs(120);

#[derive(Debug, Clone)]
pub struct ProjectRequest {
    pub dir: PathBuf,
    /// Relative to `dir` unless absolute.
    pub entry: Option<PathBuf>,
    pub env_file: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The project is at fault: not installed, no or too old
    /// `@mastra/core`, the entry throws, no Mastra instance, an agent's
    /// function throws, a flag names nothing.
    #[error("{0}")]
    Project(String),
    /// The harness could not do its job.
    #[error("{0}")]
    Infra(String),
}

pub fn load_project(config: &Config, req: &ProjectRequest) -> Result<LoadedProject, LoadError> {
    let dir = &req.dir;
    if !dir.is_dir() {
        return Err(LoadError::Project(format!(
            "--project {}: no such folder",
            dir.display()
        )));
    }
    let entry = req
        .entry
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_ENTRY));
    let entry_path = if entry.is_absolute() {
        entry.clone()
    } else {
        dir.join(&entry)
    };
    if !entry_path.is_file() {
        return Err(LoadError::Project(format!(
            "{}: no such entry file (give the file that exports your Mastra instance with --entry FILE)",
            entry_path.display()
        )));
    }
    if let Some(f) = &req.env_file {
        if !f.is_file() {
            return Err(LoadError::Project(format!(
                "--env-file {}: no such file",
                f.display()
            )));
        }
    }
    let node = config.installs().node().map_err(|e| {
        LoadError::Infra(format!(
            "no Node to load the project with: {}",
            crate::outcome::error_line(&e)
        ))
    })?;
    let script = config.probe_dir.join("project.mjs");
    let mut cmd = CommandSpec::new(&node.path);
    if let Some(f) = &req.env_file {
        cmd = cmd.arg(format!("--env-file={}", absolute(f).display()));
    }
    let cmd = cmd
        .arg(&script)
        .arg(absolute(dir))
        // Absolute: the loader runs in the project folder.
        .arg(absolute(&entry_path))
        .dir(dir)
        .scrubbed()
        .timeout(LOAD_TIMEOUT);
    // The OS sandbox: the project, its packages and the loader read-only,
    // no network.
    let mut policy = Policy::new().node_project(dir).read_only(&config.probe_dir);
    if let Some(f) = &req.env_file {
        policy = policy.read_only(f);
    }
    let out = sandbox::confine(cmd, &policy)
        .run_capture()
        .map_err(|e| match e {
            // Import-time code that never ends is the project's doing.
            ProcError::Timeout { after, .. } => LoadError::Project(format!(
                "{}: the project did not finish loading in {}s (import-time code that waits for ever: a server, a connection, a timer)",
                entry_path.display(),
                after.as_secs()
            )),
            e => LoadError::Infra(format!("loading the project {} failed: {e}", dir.display())),
        })?;
    let line = String::from_utf8_lossy(&out.stdout);
    let line = line
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let doc = Json::parse_document(line).map_err(|e| {
        LoadError::Infra(format!(
            "{} printed no document ({e}); its stderr: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ))
    })?;
    parse_loaded(&doc).map_err(|e| match e {
        DecodeError::Reported(failure) if failure.status == 2 => {
            LoadError::Project(failure.message)
        }
        DecodeError::Reported(failure) => LoadError::Infra(failure.message),
        malformed => LoadError::Infra(format!("{}: {malformed}", script.display())),
    })
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}
