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
use std::path::{Path, PathBuf};

/// The `lint` flags.
pub struct LintFlags {
    pub keys: Vec<String>,
    pub file: Option<PathBuf>,
    pub tool_choice: Option<String>,
    pub active_tools: Vec<String>,
    pub prompt_names: Vec<String>,
    pub json: bool,
    pub all: bool,
}

/// The `lint --project` flags.
pub struct ProjectFlags {
    pub dir: PathBuf,
    pub entry: Option<PathBuf>,
    pub sarif: Option<PathBuf>,
    pub env_file: Option<PathBuf>,
    pub json: bool,
    pub all: bool,
}

pub fn lint_project(flags: ProjectFlags) -> Result<Exit, Failure> {
    let request = ProjectRequest {
        dir: flags.dir,
        entry: flags.entry,
        env_file: flags.env_file,
    };
    let config = Config::new(&repo_root());
    let loaded = load_project(&config, &request).map_err(|e| match e {
        LoadError::Project(what) => Failure::bad(what),
        LoadError::Infra(what) => Failure::infra(what),
    })?;
    let linted = lint_project_model(loaded);
    if let Some(path) = &flags.sarif {
        let log = sarif(&linted, env!("CARGO_PKG_VERSION"));
        write_atomically(path, &format!("{}\n", log.to_pretty())).map_err(|e| {
            Failure::bad_because(format!("--sarif {}: cannot write", path.display()), e)
        })?;
    }
    if flags.json {
        print_out(&format!("{}\n", linted.to_json().to_pretty()));
    } else {
        print_out(&linted.to_text(flags.all));
    }
    Ok(if linted.worst() == Severity::Error {
        Exit::Finding
    } else {
        Exit::Ok
    })
}

pub fn lint(flags: LintFlags) -> Result<Exit, Failure> {
    let mut input = LintInput {
        keys: flags
            .keys
            .iter()
            .map(|k| JsString::from(k.as_str()))
            .collect(),
        tool_choice: flags.tool_choice.map(JsString::from),
        active_tools: flags.active_tools.into_iter().map(JsString::from).collect(),
        prompt_names: flags.prompt_names.into_iter().map(JsString::from).collect(),
    };
    if let Some(path) = &flags.file {
        read_lint_file(path, &mut input)?;
    }
    if input.keys.is_empty() {
        return Err(Failure::bad(
            "lint: give tool keys as arguments or with --file",
        ));
    }
    let report = run_lint(&input);
    if flags.json {
        print_out(&format!("{}\n", report.to_json().to_pretty()));
    } else {
        print_out(&report.to_text(flags.all));
    }
    Ok(if report.worst() == Severity::Error {
        Exit::Finding
    } else {
        Exit::Ok
    })
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
    let v = Json::parse(&text).map_err(|e| bad("", format!("not valid JSON: {e}")))?;
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
