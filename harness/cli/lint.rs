//! `lint KEY... [--file F]`: what each tool key becomes on the wire, and what
//! breaks (`lint::lint`, the model's own rewrite); `lint --project DIR`: the
//! same for every agent of a Mastra project (`lint::load`, `lint::project`),
//! on the terminal, as JSON, and as SARIF.

use super::out::print_out;
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::lint::load::{load_project, LoadError, ProjectRequest};
use crate::lint::project::lint_project as lint_project_model;
use crate::lint::sarif::sarif;
use crate::lint::{lint as run_lint, LintInput, Severity};
use crate::outcome::{Exit, Failure};
use crate::report::write_atomically;
use crate::run::config::{repo_root, Config};
use clap::Args;
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
}

/// How the findings are printed.
#[derive(Debug, Args, Clone, Copy, PartialEq, Eq)]
pub struct LintOutputArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Print every key, not only the problems.
    #[arg(long)]
    pub all: bool,
}

/// A Mastra project to lint instead of keys.
#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct ProjectArgs {
    /// Lint a Mastra project instead: load DIR with its own installed
    /// @mastra/core and lint every agent's tools.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["keys", "file", "tool_choice", "active_tools", "prompt_names"])]
    pub project: Option<PathBuf>,
    /// The file that exports the Mastra instance, relative to DIR
    /// (default: src/mastra/index.ts).
    #[arg(long, value_name = "FILE", requires = "project")]
    pub entry: Option<PathBuf>,
    /// Also write the findings as SARIF 2.1.0 to FILE (for code scanning).
    #[arg(long, value_name = "FILE", requires = "project")]
    pub sarif: Option<PathBuf>,
    /// Variables the project needs to load (credentials included): the
    /// loader runs with no other environment than what Node needs.
    #[arg(long = "env-file", value_name = "FILE", requires = "project")]
    pub env_file: Option<PathBuf>,
}

impl LintOutputArgs {
    /// Print the findings as asked; a finding that breaks a request is
    /// exit 1.
    fn finish(
        self,
        worst: Severity,
        json: impl FnOnce() -> Json,
        text: impl FnOnce(bool) -> String,
    ) -> Exit {
        if self.json {
            print_out(&format!("{}\n", json().to_pretty()));
        } else {
            print_out(&text(self.all));
        }
        if worst == Severity::Error {
            Exit::Finding
        } else {
            Exit::Ok
        }
    }
}

/// `lint KEY...` or `lint --project DIR`.
pub fn lint(args: LintArgs) -> Result<Exit, Failure> {
    match args.project.project {
        Some(dir) => lint_project(
            ProjectRequest {
                dir,
                entry: args.project.entry,
                env_file: args.project.env_file,
            },
            args.project.sarif.as_deref(),
            args.output,
        ),
        None => lint_keys(args.keys.input()?, args.output),
    }
}

fn lint_project(
    request: ProjectRequest,
    sarif_to: Option<&Path>,
    output: LintOutputArgs,
) -> Result<Exit, Failure> {
    let config = Config::new(&repo_root());
    let loaded = load_project(&config, &request).map_err(|e| match e {
        LoadError::Project(what) => Failure::bad(what),
        LoadError::Infra(what) => Failure::infra(what),
    })?;
    let linted = lint_project_model(loaded);
    if let Some(path) = sarif_to {
        let log = sarif(&linted, env!("CARGO_PKG_VERSION"));
        write_atomically(path, &format!("{}\n", log.to_pretty())).map_err(|e| {
            Failure::bad_because(format!("--sarif {}: cannot write", path.display()), e)
        })?;
    }
    Ok(output.finish(
        linted.worst(),
        || linted.to_json(),
        |all| linted.to_text(all),
    ))
}

fn lint_keys(input: LintInput, output: LintOutputArgs) -> Result<Exit, Failure> {
    if input.keys.is_empty() {
        return Err(Failure::bad(
            "lint: give tool keys as arguments or with --file",
        ));
    }
    let report = run_lint(&input);
    Ok(output.finish(
        report.worst(),
        || report.to_json(),
        |all| report.to_text(all),
    ))
}

impl KeysArgs {
    /// The keys and their uses, from the flags and then `--file`.
    fn input(self) -> Result<LintInput, Failure> {
        let mut input = LintInput {
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
