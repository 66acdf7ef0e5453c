//! `load_project`: runs `node-probe/project.mjs` on a user's Mastra project
//! and reads the document it writes into a `LoadedProject`; `read_config`:
//! the project's `LintConfig`.
//!
//! In: a `ProjectRequest` (the project folder, its entry file, the env files
//! the user adds, which loader to use) and the harness's `Config` (the Node
//! runtime, the probe folder, the loader's pinned esbuild). Out: a `LoadRun`:
//! the `LoadedProject` or a `LoadError` that says whose fault it was, the
//! project's (bad input, exit 2) or the harness's (Node or the loader's
//! tools could not be had, the loader died: infrastructure, exit 3); what
//! the project printed while it loaded; how long it took.
//!
//! Loading a project runs its code, so the loader is a child process with the
//! probes' isolation: `CommandSpec::scrubbed()` (the allowlisted environment:
//! no credentials, no proxies), its own process group ended when it is done,
//! a timeout, and inside it every outgoing request is refused. Its document
//! comes on a channel of its own (fd 3) and carries a nonce the loader reads
//! from stdin before the project runs, so nothing the project prints is
//! taken for it. Env files reach it in that request, never through its
//! environment: the user's `--env-file`s always, the project's own `.env`,
//! `.env.local` and `.env.development` (as `mastra dev` reads them) only
//! inside the OS sandbox, where nothing can leave.
//!
//! The loader first runs the project on Node's own type stripping, unless
//! its sources show that this cannot work; when the import proves it
//! cannot, the loader says so and the load is made again with esbuild.

use super::project::{parse_config, parse_loaded, DecodeError, LintConfig, LoadedProject};
use crate::js::json::Json;
use crate::observe::proc::{CommandSpec, ProcError};
use crate::observe::sandbox::{self, Policy};
use crate::run::config::Config;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The entry Mastra's own templates use.
pub const DEFAULT_ENTRY: &str = "src/mastra/index.ts";

/// How long importing a project and walking its agents may take.
pub const LOAD_TIMEOUT: Duration = Duration::from_secs(120);

/// The env files `mastra dev` reads from the project, in order, later ones
/// winning (`mastra`'s DevBundler `getEnvFiles`).
pub const PROJECT_ENV_FILES: [&str; 3] = [".env", ".env.local", ".env.development"];

/// Which way the loader gets the project's TypeScript into Node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LoaderChoice {
    /// Node's type stripping where the sources allow it, else esbuild.
    #[default]
    Auto,
    Node,
    Esbuild,
}

impl LoaderChoice {
    fn arg(self) -> &'static str {
        match self {
            LoaderChoice::Auto => "auto",
            LoaderChoice::Node => "node",
            LoaderChoice::Esbuild => "esbuild",
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct ProjectRequest {
    pub dir: PathBuf,
    /// Relative to `dir` unless absolute.
    pub entry: Option<PathBuf>,
    /// The user's own env files, in order, read after the project's.
    pub env_files: Vec<PathBuf>,
    pub loader: LoaderChoice,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The project is at fault: not installed, no or too old
    /// `@mastra/core`, a package missing, the entry throws, no Mastra
    /// instance, an agent's function throws, a flag names nothing, a bad
    /// configuration. `kind` is the loader's word for it.
    #[error("{message}")]
    Project { kind: String, message: String },
    /// The harness could not do its job.
    #[error("{0}")]
    Infra(String),
}

impl LoadError {
    fn project(kind: &str, message: String) -> LoadError {
        LoadError::Project {
            kind: kind.into(),
            message,
        }
    }

    /// The loader's word for the failure (`entry-throws`, `infra`, ...).
    pub fn kind(&self) -> &str {
        match self {
            LoadError::Project { kind, .. } => kind,
            LoadError::Infra(_) => "infra",
        }
    }
}

/// What the project printed while one load ran.
#[derive(Debug, Clone, Default)]
pub struct ProjectOutput {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

#[derive(Debug)]
pub struct LoadRun {
    pub result: Result<LoadedProject, LoadError>,
    /// One per load made (two when type stripping gave way to esbuild).
    pub output: Vec<ProjectOutput>,
    pub seconds: f64,
}

/// Load the project; see the module's doc.
pub fn load_project(config: &Config, req: &ProjectRequest) -> LoadRun {
    let started = Instant::now();
    let mut output = Vec::new();
    let result = load(config, req, &mut output);
    LoadRun {
        result,
        output,
        seconds: started.elapsed().as_secs_f64(),
    }
}

fn load(
    config: &Config,
    req: &ProjectRequest,
    output: &mut Vec<ProjectOutput>,
) -> Result<LoadedProject, LoadError> {
    let dir = &req.dir;
    if !dir.is_dir() {
        return Err(LoadError::project(
            "no-project",
            format!("--project {}: no such folder", dir.display()),
        ));
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
        return Err(LoadError::project(
            "no-entry",
            format!(
                "{}: no such entry file (give the file that exports your Mastra instance with --entry FILE)",
                entry_path.display()
            ),
        ));
    }
    let isolation = Isolation::available();
    let mut env = Vec::new();
    let mut env_not_read = Vec::new();
    for name in PROJECT_ENV_FILES {
        let path = dir.join(name);
        if path.is_file() {
            if isolation == Isolation::Sandbox {
                env.push((name.to_string(), read_env_file(&path, name)?));
            } else {
                env_not_read.push(name.to_string());
            }
        }
    }
    for f in &req.env_files {
        let shown = format!("--env-file {}", f.display());
        env.push((f.display().to_string(), read_env_file(f, &shown)?));
    }
    let node = config.installs().node().map_err(|e| {
        LoadError::Infra(format!(
            "no Node to load the project with: {}",
            crate::outcome::error_line(&e)
        ))
    })?;
    let tools = config.installs().esbuild().map_err(|e| {
        LoadError::Infra(format!(
            "the project loader's esbuild could not be installed: {}",
            crate::outcome::error_line(&e)
        ))
    })?;
    // The OS sandbox: the project, its packages, the loader and its esbuild
    // read-only, no network at all.
    let policy = Policy::new()
        .node_project(dir)
        .read_only(&config.probe_dir)
        .read_only(&tools);
    let attempt = |loader: LoaderChoice, reason: Option<&str>, output: &mut Vec<ProjectOutput>| {
        let nonce = nonce();
        let request = Json::object([
            ("nonce", Json::str(&nonce)),
            (
                "env",
                Json::Array(
                    env.iter()
                        .map(|(file, text)| {
                            Json::object([("file", Json::str(file)), ("text", Json::str(text))])
                        })
                        .collect(),
                ),
            ),
            (
                "envNotRead",
                Json::Array(env_not_read.iter().map(|f| Json::str(f)).collect()),
            ),
            ("loaderReason", reason.map_or(Json::Null, Json::str)),
        ]);
        let cmd = CommandSpec::new(&node.path)
            .arg(config.probe_dir.join("project.mjs"))
            .arg("--tools")
            .arg(&tools)
            .arg("--loader")
            .arg(loader.arg())
            .arg("--isolation")
            .arg(isolation.arg())
            .arg(absolute(dir))
            // Absolute: the loader runs in a scratch folder of its own.
            .arg(absolute(&entry_path))
            .dir(dir)
            .scrubbed()
            .timeout(LOAD_TIMEOUT)
            .input(format!("{}\n", request.to_compact()).into_bytes())
            .channel();
        let ran = spawn_loader(cmd, &policy);
        read_document(ran, &nonce, dir, output)
    };
    match attempt(req.loader, None, output) {
        Err(LoadError::Project { kind, message }) if kind == "needs-transpiler" => {
            attempt(LoaderChoice::Esbuild, Some(&message), output)
        }
        other => other,
    }
}

/// The one place the loader starts: `cmd` in the OS sandbox under
/// `policy` where the machine has one, else behind the guard alone.
fn spawn_loader(
    cmd: CommandSpec,
    policy: &Policy,
) -> Result<(std::process::ExitStatus, crate::observe::proc::Output), ProcError> {
    sandbox::confine(cmd, policy).run_to_end()
}

/// The document on the channel whose nonce is ours, decoded.
fn read_document(
    ran: Result<(std::process::ExitStatus, crate::observe::proc::Output), ProcError>,
    nonce: &str,
    dir: &Path,
    output: &mut Vec<ProjectOutput>,
) -> Result<LoadedProject, LoadError> {
    let (status, out) = match ran {
        Ok(r) => r,
        Err(ProcError::Timeout { after, .. }) => {
            return Err(LoadError::project(
                "timeout",
                format!(
                    "{} did not finish loading within {}s: something at import waits for ever (a connection, a prompt, a server that listens); lint ended it",
                    dir.display(),
                    after.as_secs()
                ),
            ))
        }
        Err(e) => {
            return Err(LoadError::Infra(format!(
                "loading the project {} failed: {e}",
                dir.display()
            )))
        }
    };
    output.push(ProjectOutput {
        stdout: out.stdout,
        stderr: out.stderr.clone(),
    });
    let channel = String::from_utf8_lossy(&out.channel);
    let doc = channel
        .lines()
        .filter_map(|l| Json::parse_document(l).ok())
        .find(|d| {
            d.get("nonce").and_then(Json::as_str).map(|n| n.to_lossy()) == Some(nonce.into())
        });
    let Some(doc) = doc else {
        let last = String::from_utf8_lossy(&out.stderr)
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .to_string();
        return Err(LoadError::Infra(format!(
            "the project loader wrote no document ({status}); the last line it or the project printed on stderr: {last} (--verbose shows all of it)"
        )));
    };
    parse_loaded(&doc).map_err(|e| match e {
        DecodeError::Reported(failure) if failure.status == 2 => LoadError::Project {
            kind: failure.kind,
            message: failure.message,
        },
        DecodeError::Reported(failure) => LoadError::Infra(failure.message),
        malformed => LoadError::Infra(format!("node-probe/project.mjs: {malformed}")),
    })
}

/// Which wall the load runs behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    /// The OS sandbox: no network, the project read-only, every process
    /// ending with it.
    Sandbox,
    /// The JavaScript guard alone.
    Guard,
}

impl Isolation {
    pub fn available() -> Isolation {
        if sandbox::detect().is_ok() {
            Isolation::Sandbox
        } else {
            Isolation::Guard
        }
    }

    fn arg(self) -> &'static str {
        match self {
            Isolation::Sandbox => "sandbox",
            Isolation::Guard => "guard",
        }
    }
}

fn read_env_file(path: &Path, shown: &str) -> Result<String, LoadError> {
    std::fs::read_to_string(path)
        .map_err(|e| LoadError::project("env-file", format!("{shown}: cannot read: {e}")))
}

/// A fresh random token: the document must carry it.
fn nonce() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::getrandom(&mut bytes).is_err() {
        // Unpredictable enough for its purpose (telling the loader's line
        // from a project's) when the OS has no randomness to give.
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes[..16].copy_from_slice(&(t ^ u128::from(std::process::id())).to_le_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The project's configuration: `mastra-conform.json` at its root, or the
/// `"mastra-conform"` key of its `package.json`; the default when it has
/// neither, an error when it has both.
pub fn read_config(dir: &Path) -> Result<LintConfig, LoadError> {
    let bad = |message: String| LoadError::project("config", message);
    let file = dir.join("mastra-conform.json");
    let own = if file.is_file() {
        let text = std::fs::read_to_string(&file)
            .map_err(|e| bad(format!("{}: cannot read: {e}", file.display())))?;
        let v = Json::parse(&text)
            .map_err(|e| bad(format!("{}: not valid JSON: {e}", file.display())))?;
        Some(v)
    } else {
        None
    };
    let manifest = dir.join("package.json");
    let key = std::fs::read_to_string(&manifest)
        .ok()
        .and_then(|t| Json::parse(&t).ok())
        .and_then(|v| v.get("mastra-conform").cloned());
    match (own, key) {
        (Some(_), Some(_)) => Err(bad(format!(
            "{} and the \"mastra-conform\" key of {} both configure lint: keep one",
            file.display(),
            manifest.display()
        ))),
        (Some(v), None) => {
            parse_config(&v, &file.display().to_string()).map_err(|e| bad(e.to_string()))
        }
        (None, Some(v)) => {
            parse_config(&v, &format!("{} (\"mastra-conform\")", manifest.display()))
                .map_err(|e| bad(e.to_string()))
        }
        (None, None) => Ok(LintConfig::default()),
    }
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}
