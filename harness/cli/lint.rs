//! `lint KEY... [--file F]`: what each tool key becomes on the wire, and what
//! breaks (`lint::lint`, the model's own rewrite); `lint --project DIR`: the
//! same for every agent of a Mastra project (`lint::load`, `lint::project`),
//! on the terminal, as JSON, as GitHub annotations and as SARIF.
//!
//! Every failure under `--json` (or `--format json`) is also a JSON document
//! on stdout, `{"error": {"kind", "message", "status"}}`, whose message is the
//! line printed on stderr; under `--sarif FILE` (or `--format sarif`) it is a
//! SARIF log of a run that did not succeed.

use super::out::print_out;
use super::version::announced;
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::lint::load::{load_project, read_config, LoadError, LoaderChoice, ProjectRequest};
use crate::lint::paint::Paint;
use crate::lint::project::{lint_project as lint_project_model, ProjectLint, TextStyle};
use crate::lint::sarif::{failed as sarif_failed, sarif, SarifRoot};
use crate::lint::{lint as run_lint, LintInput, Severity};
use crate::outcome::{error_line, Exit, Failure};
use crate::report::write_atomically;
use crate::run::config::{repo_root, Config};
use crate::run::session::Session;
use crate::version::spec::VersionSpec;
use clap::{Args, ValueEnum};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct LintArgs {
    #[command(flatten)]
    pub keys: KeysArgs,
    #[command(flatten)]
    pub output: LintOutputArgs,
    #[command(flatten)]
    pub project: ProjectArgs,
}

/// The keys to lint, and how a request uses them.
#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct KeysArgs {
    /// Tool keys, in registration order.
    pub keys: Vec<String>,
    /// A JSON file: an array of keys, or { "keys": [...], "toolChoice":
    /// NAME, "activeTools": [...], "prompt": [...] } (lone surrogates allowed).
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// The name a named toolChoice uses.
    #[arg(long = "tool-choice")]
    pub tool_choice: Option<String>,
    /// A name activeTools uses (repeatable).
    #[arg(long = "active-tool")]
    pub active_tools: Vec<String>,
    /// A tool name a prompt mentions (repeatable).
    #[arg(long = "prompt-name")]
    pub prompt_names: Vec<String>,
    /// Judge the keys as this @mastra/core release treats them (default:
    /// the latest behaviour the model knows); a dist-tag is looked up.
    #[arg(long = "mastra-version", value_name = "V")]
    pub mastra_version: Option<VersionSpec>,
}

/// How the findings are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// Grouped by agent, for a person.
    #[default]
    Text,
    /// One JSON document.
    Json,
    /// SARIF 2.1.0, for code scanning (--project only).
    Sarif,
    /// GitHub workflow annotations (--project only).
    Github,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set.
    #[default]
    Auto,
    Always,
    Never,
}

/// How the findings are printed, and what fails the command.
#[derive(Debug, Args, Clone, Copy, PartialEq, Eq)]
pub struct LintOutputArgs {
    /// Print JSON (the same as --format json).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// How to print the findings.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<Format>,
    /// Print every key, not only the problems (and, with --project, what
    /// was suppressed).
    #[arg(long)]
    pub all: bool,
    /// Colour the text: auto (on a terminal, unless NO_COLOR is set),
    /// always, never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
    /// Exit 1 when there are more than N warnings (errors always exit 1).
    #[arg(long = "max-warnings", value_name = "N")]
    pub max_warnings: Option<usize>,
}

/// A Mastra project to lint instead of keys.
#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct ProjectArgs {
    /// Lint a Mastra project instead: load DIR with its own installed
    /// @mastra/core and lint every agent's tools.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["keys", "file", "tool_choice", "active_tools", "prompt_names", "mastra_version"])]
    pub project: Option<PathBuf>,
    /// The file that exports the Mastra instance, relative to DIR
    /// (default: src/mastra/index.ts).
    #[arg(long, value_name = "FILE", requires = "project")]
    pub entry: Option<PathBuf>,
    /// Also write the findings as SARIF 2.1.0 to FILE (for code scanning).
    #[arg(long, value_name = "FILE", requires = "project")]
    pub sarif: Option<PathBuf>,
    /// An env file the project needs to load (repeatable; credentials
    /// included), read after the project's own .env files.
    #[arg(long = "env-file", value_name = "FILE", requires = "project")]
    pub env_files: Vec<PathBuf>,
    /// How to get the project's TypeScript into Node: auto (Node's type
    /// stripping where it is enough, else esbuild), node, esbuild.
    #[arg(long, value_enum, default_value_t = LoaderArg::Auto, requires = "project")]
    pub loader: LoaderArg,
    /// Show what the project printed while it loaded (on stderr).
    #[arg(long, requires = "project")]
    pub verbose: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LoaderArg {
    Auto,
    Node,
    Esbuild,
}

impl LintOutputArgs {
    fn format(self) -> Format {
        if self.json {
            Format::Json
        } else {
            self.format.unwrap_or_default()
        }
    }

    fn paint(self) -> Paint {
        Paint::new(match self.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var("TERM").map_or(true, |t| t != "dumb")
            }
        })
    }

    /// A finding that breaks a request, or more warnings than allowed, is
    /// exit 1.
    fn exit(self, worst: Severity, warnings: usize) -> Exit {
        let too_many = self.max_warnings.is_some_and(|n| warnings > n);
        if worst == Severity::Error || too_many {
            Exit::Finding
        } else {
            Exit::Ok
        }
    }

    /// The failure, also as a JSON document on stdout under `--json`.
    fn fail(self, kind: &str, failure: Failure) -> Failure {
        if self.format() == Format::Json {
            let doc = Json::object([(
                "error",
                Json::object([
                    ("kind", Json::str(kind)),
                    ("message", Json::str(&error_line(&failure))),
                    ("status", Json::int(i64::from(failure.exit().code()))),
                ]),
            )]);
            print_out(&format!("{}\n", doc.to_pretty()));
        }
        failure
    }
}

/// `lint KEY...` or `lint --project DIR`.
pub fn lint(args: LintArgs) -> Result<Exit, Failure> {
    let output = args.output;
    match args.project.project.clone() {
        Some(dir) => lint_project(dir, args.project, output),
        None => {
            let format = output.format();
            if matches!(format, Format::Sarif | Format::Github) {
                return Err(output.fail(
                    "bad-input",
                    Failure::bad(format!(
                        "--format {}: only with --project DIR (keys have no place in a source to annotate)",
                        if format == Format::Sarif { "sarif" } else { "github" }
                    )),
                ));
            }
            let input = args.keys.input().map_err(|f| output.fail("bad-input", f))?;
            lint_keys(input, output).map_err(|f| output.fail("bad-input", f))
        }
    }
}

fn lint_project(dir: PathBuf, args: ProjectArgs, output: LintOutputArgs) -> Result<Exit, Failure> {
    let format = output.format();
    let github = format == Format::Github;
    let root = sarif_root(&dir);
    // A failure is still a SARIF log where one was asked for, so that a
    // workflow's upload step has a file to upload and says why.
    let fail = |kind: &str, failure: Failure| -> Failure {
        let line = error_line(&failure);
        if let Some(path) = &args.sarif {
            let log = sarif_failed(&line, env!("CARGO_PKG_VERSION"), &root);
            let _ = write_atomically(path, &format!("{}\n", log.to_pretty()));
        }
        if format == Format::Sarif {
            let log = sarif_failed(&line, env!("CARGO_PKG_VERSION"), &root);
            print_out(&format!("{}\n", log.to_pretty()));
        }
        if github {
            print_out(&format!(
                "::error title=mastra-conform::{}\n",
                crate::lint::project::render::escape_data(&line)
            ));
        }
        output.fail(kind, failure)
    };
    let config = read_config(&dir).map_err(|e| fail(e.kind(), Failure::bad(e.to_string())))?;
    let request = ProjectRequest {
        dir: dir.clone(),
        entry: args.entry.clone(),
        env_files: args.env_files.clone(),
        loader: match args.loader {
            LoaderArg::Auto => LoaderChoice::Auto,
            LoaderArg::Node => LoaderChoice::Node,
            LoaderArg::Esbuild => LoaderChoice::Esbuild,
        },
    };
    let run = load_project(&Config::new(&repo_root()), &request);
    if args.verbose {
        show_project_output(&run.output);
    }
    let loaded = run.result.map_err(|e| {
        let kind = e.kind().to_string();
        let failure = match e {
            LoadError::Project { message, .. } => Failure::bad(message),
            LoadError::Infra(what) => Failure::infra(what),
        };
        fail(&kind, failure)
    })?;
    let linted = lint_project_model(loaded, config);
    if let Some(path) = &args.sarif {
        let log = sarif(&linted, env!("CARGO_PKG_VERSION"), &root);
        write_atomically(path, &format!("{}\n", log.to_pretty())).map_err(|e| {
            Failure::bad_because(format!("--sarif {}: cannot write", path.display()), e)
        })?;
    }
    let style = TextStyle {
        paint: output.paint(),
        all: output.all,
        prefix: path_prefix(&dir, github),
    };
    match format {
        Format::Text => print_out(&linted.to_text(&style)),
        Format::Json => print_out(&format!(
            "{}\n",
            json_with_time(&linted, run.seconds).to_pretty()
        )),
        Format::Sarif => print_out(&format!(
            "{}\n",
            sarif(&linted, env!("CARGO_PKG_VERSION"), &root).to_pretty()
        )),
        Format::Github => print_out(&linted.to_github(&style)),
    }
    Ok(output.exit(linted.worst(), linted.counts().warnings))
}

/// The JSON rendering with how long the load took.
fn json_with_time(linted: &ProjectLint, seconds: f64) -> Json {
    let Json::Object(mut members) = linted.to_json() else {
        return linted.to_json();
    };
    let at = members
        .iter()
        .position(|(k, _)| *k == JsString::from("isolation"))
        .map_or(members.len(), |i| i + 1);
    members.insert(
        at,
        (
            JsString::from("seconds"),
            Json::Number(format!("{:.2}", seconds)),
        ),
    );
    Json::Object(members)
}

/// Each line the project printed while it loaded, marked with its stream.
fn show_project_output(runs: &[crate::lint::load::ProjectOutput]) {
    for (i, out) in runs.iter().enumerate() {
        let attempt = if runs.len() > 1 {
            format!(" (load {})", i + 1)
        } else {
            String::new()
        };
        for (name, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            for line in String::from_utf8_lossy(bytes).lines() {
                eprintln!("[project {name}{attempt}] {line}");
            }
        }
    }
}

/// The path from where paths are shown from to the project, with a
/// trailing slash (`""` when the project is that folder, or not below it):
/// the current folder, or for GitHub annotations the workspace, which is
/// where GitHub resolves `file=`.
fn path_prefix(dir: &Path, github: bool) -> String {
    let base = github
        .then(|| std::env::var_os("GITHUB_WORKSPACE").map(PathBuf::from))
        .flatten()
        .or_else(|| std::env::current_dir().ok());
    let (Some(base), Ok(project)) = (base.and_then(|b| b.canonicalize().ok()), dir.canonicalize())
    else {
        return String::new();
    };
    match project.strip_prefix(&base) {
        Ok(rel) if rel.as_os_str().is_empty() => String::new(),
        Ok(rel) => format!("{}/", rel.display()),
        Err(_) => String::new(),
    }
}

/// SARIF's root: the current folder when the project is below it, else the
/// project.
fn sarif_root(dir: &Path) -> SarifRoot {
    let prefix = path_prefix(dir, false);
    let project = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let dir = if prefix.is_empty() {
        project
    } else {
        std::env::current_dir().unwrap_or(project)
    };
    SarifRoot {
        dir: dir.display().to_string(),
        prefix,
    }
}

fn lint_keys(input: LintInput, output: LintOutputArgs) -> Result<Exit, Failure> {
    if input.keys.is_empty() {
        return Err(Failure::bad(
            "lint: give tool keys as arguments or with --file",
        ));
    }
    let report = run_lint(&input);
    match output.format() {
        Format::Json => print_out(&format!("{}\n", report.to_json().to_pretty())),
        _ => print_out(&report.to_text(output.all, output.paint())),
    }
    Ok(output.exit(report.worst(), report.count(Severity::Warning)))
}

impl KeysArgs {
    /// The keys and their uses, from the flags and then `--file`.
    fn input(self) -> Result<LintInput, Failure> {
        let version = match &self.mastra_version {
            None => None,
            Some(VersionSpec::Exact(v)) => Some(*v),
            // A tag or a build must be looked up first; the model never is.
            Some(other) => {
                let mut session = Session::new(Config::new(&repo_root()), super::out::stop_flag())?;
                Some(announced(&mut session, "--mastra-version", other)?)
            }
        };
        if let Some(v) = version {
            if v.release().major != 1 {
                return Err(Failure::bad(format!(
                    "--mastra-version {v}: lint judges keys for the @mastra/core 1.x line the model was swept on"
                )));
            }
        }
        let mut input = LintInput {
            version,
            keys: self
                .keys
                .iter()
                .map(|k| JsString::from(k.as_str()))
                .collect(),
            tool_choice: self.tool_choice.map(JsString::from),
            active_tools: self.active_tools.into_iter().map(JsString::from).collect(),
            prompt_names: self.prompt_names.into_iter().map(JsString::from).collect(),
        };
        if let Some(path) = &self.file {
            read_lint_file(path, &mut input)?;
        }
        Ok(input)
    }
}

fn read_lint_file(path: &Path, input: &mut LintInput) -> Result<(), Failure> {
    let bad = |field: &str, what: String| {
        Failure::bad(if field.is_empty() {
            format!("{}: {what}", path.display())
        } else {
            format!("{}: field `{field}`: {what}", path.display())
        })
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad("", format!("cannot read: {e}")))?;
    let v = Json::parse_document(&text).map_err(|e| bad("", format!("not valid JSON: {e}")))?;
    let strings = |v: &Json, field: &str| -> Result<Vec<JsString>, Failure> {
        v.as_array()
            .ok_or_else(|| {
                bad(
                    field,
                    format!("expected an array of strings, got {}", v.kind()),
                )
            })?
            .iter()
            .enumerate()
            .map(|(i, s)| {
                s.as_str().cloned().ok_or_else(|| {
                    bad(
                        &format!("{field}[{i}]"),
                        format!("expected a string, got {}", s.kind()),
                    )
                })
            })
            .collect()
    };
    match &v {
        Json::Array(_) => input.keys.extend(strings(&v, "(top level)")?),
        Json::Object(_) => {
            for (k, _) in v.members().unwrap_or_default() {
                if !["keys", "toolChoice", "activeTools", "prompt"]
                    .iter()
                    .any(|n| JsString::from(*n) == *k)
                {
                    return Err(bad(
                        &k.to_lossy(),
                        "unknown field (known: keys, toolChoice, activeTools, prompt)".into(),
                    ));
                }
            }
            if let Some(k) = v.get("keys") {
                input.keys.extend(strings(k, "keys")?);
            }
            if let Some(t) = v.get("toolChoice") {
                input.tool_choice = Some(t.as_str().cloned().ok_or_else(|| {
                    bad("toolChoice", format!("expected a string, got {}", t.kind()))
                })?);
            }
            if let Some(a) = v.get("activeTools") {
                input.active_tools.extend(strings(a, "activeTools")?);
            }
            if let Some(p) = v.get("prompt") {
                input.prompt_names.extend(strings(p, "prompt")?);
            }
        }
        other => {
            return Err(bad(
                "(top level)",
                format!("expected an array or an object, got {}", other.kind()),
            ))
        }
    }
    Ok(())
}
