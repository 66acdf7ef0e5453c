//! `repro CASE|ISSUE [--mastra-version V] [--route R] [--upstream-report]`:
//! the known issue a case shows, as a standalone Node script anyone can run
//! (`report::repro`), or as a draft upstream report in Markdown with the
//! wire body observed on V. Given an issue id, the issue's smallest case.

use super::args::ProbeArgs;
use super::out::{print_out, stop_flag};
use super::version::exactly_one;
use crate::js::json::Json;
use crate::model::{predict as model_predict, Prediction};
use crate::observation::Observed;
use crate::outcome::{Exit, Failure};
use crate::report::repro::{expected_view, Environment, Repro, Shows};
use crate::route::Route;
use crate::run::session::Session;
use crate::version::spec::VersionSpec;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct ReproArgs {
    /// A case file (any: a known issue it shows is recognised by its
    /// symptom; one that shows none gets a script checking the model's
    /// prediction), or a known issue's id (its smallest case).
    pub case: PathBuf,
    /// The version the script's install line names: exact, a prerelease, a
    /// snapshot build (0.0.0-TAG-TIMESTAMP), a dist-tag, or a build (a
    /// packed tarball or a folder).
    #[arg(long = "mastra-version", default_value = "1.67.0")]
    pub mastra_version: VersionSpec,
    /// The wire route the script's agent takes (a case that names its
    /// own route keeps it).
    #[arg(long, default_value = "openai-compatible")]
    pub route: Route,
    /// Print a draft upstream report in Markdown instead: the issue, the
    /// smallest case, the wire body observed on --mastra-version, the
    /// repro and the fixed behaviour.
    #[arg(long)]
    pub upstream_report: bool,
    #[command(flatten)]
    pub probe: ProbeArgs,
}

pub fn repro(args: ReproArgs) -> Result<Exit, Failure> {
    let config = args.probe.config();
    let (case, route) = (args.case.as_path(), args.route);
    let known = crate::run::config::known_issues(&config.known_issues)
        .map_err(|e| Failure::bad(e.to_string()))?;
    // An issue id instead of a case: its smallest case (fewest characters
    // of case JSON), the one an upstream report is best made from.
    let by_id = (!case.exists())
        .then(|| known.get(&case.to_string_lossy()))
        .flatten();
    let case = match by_id {
        Some(issue) => {
            let mut cases = issue
                .cases
                .iter()
                .map(|c| crate::run::corpus::read_case(&c.path))
                .collect::<Result<Vec<_>, _>>()?;
            cases.sort_by_key(|c| c.to_json().to_compact().len());
            cases.remove(0)
        }
        None => crate::run::corpus::read_case(case)?,
    };
    let case = if case.names_its_route() {
        case
    } else {
        case.on_route(route)
    };
    // An exact version needs no session unless the report observes it; a
    // dist-tag, a snapshot or a build is resolved as every version flag is.
    let mut session = None;
    let version = match &args.mastra_version {
        VersionSpec::Exact(v) if !v.is_snapshot() => *v,
        spec => exactly_one(
            session.insert(Session::new(config.clone(), stop_flag())?),
            "--mastra-version",
            spec,
        )?,
    };
    // The issue the case shows: the ledger's for a case it lists, else the
    // one its symptom is recognised by on the model's projection; else the
    // script checks the model's prediction itself.
    let predicted = match model_predict(&case, version) {
        // The script checks requests and the error, exact either way.
        Prediction::Projection(p) | Prediction::Dropping(p) => p,
        Prediction::Unmodelled(why) => {
            return Err(Failure::bad(format!(
                "{}: the model does not predict this case on {version} ({why}), so there is no \
                 symptom to recognise and no prediction to check",
                case.name()
            )))
        }
        Prediction::Races(ps) => {
            return Err(Failure::bad(format!(
                "{}: on {version} what is sent depends on the order its sub-agents' requests \
                 arrive in ({} possible results), so a script cannot check one prediction; give \
                 each sub-agent its own replies (subAgentReplies)",
                case.name(),
                ps.len()
            )))
        }
    };
    let shows = match known.recognise(&case, &[&predicted]) {
        Some((issue, symptom)) => Shows::Issue { issue, symptom },
        None if args.upstream_report => {
            return Err(Failure::bad(format!(
                "{}: shows no known issue of {} on {version}; an upstream report is made for a \
                 known issue. `repro {}` without --upstream-report writes a script that checks \
                 what is sent against the model's prediction",
                case.name(),
                known.file.display(),
                case.name()
            )))
        }
        None => Shows::Prediction(expected_view(&predicted)),
    };
    let repro = Repro {
        case: &case,
        shows,
        made_on: version.to_string(),
        route: case.route,
    };
    if !args.upstream_report {
        print_out(&repro.script());
        return Ok(Exit::Ok);
    }
    // The report quotes what the case really sent on `version`.
    let mut session = match session {
        Some(s) => s,
        None => Session::new(config, stop_flag())?,
    };
    let mut observed = None;
    session.run_version(version, std::slice::from_ref(&case), |r| {
        observed = Some(r.observed)
    });
    let sent = match observed {
        Some(Observed::Ran { projection, .. }) => projection,
        Some(other) => {
            return Err(Failure::infra(format!(
                "{} on {version} could not be observed: {}",
                case.name(),
                other.infra_detail().unwrap_or_default()
            )))
        }
        None => return Err(Failure::infra("interrupted before the case finished")),
    };
    let node = session.node()?.version;
    let env = environment(&session.installs.install_dir(version), &node, case.route);
    let seen = match &repro.shows {
        Shows::Issue { issue, .. } => issue.seen.clone(),
        Shows::Prediction(_) => String::new(),
    };
    if let Some(report) = repro.upstream_report(&sent, &seen, &env) {
        print_out(&report);
    }
    Ok(Exit::Ok)
}

/// The version of package `name` installed in `dir`'s node_modules, if any.
fn installed(dir: &Path, name: &str) -> Option<String> {
    let text =
        std::fs::read_to_string(dir.join("node_modules").join(name).join("package.json")).ok()?;
    Json::parse(&text)
        .ok()?
        .get("version")?
        .as_str()
        .map(|v| v.to_lossy())
}

/// The route's AI SDK provider package, and the model class it sends with.
fn provider_package(route: Route) -> (&'static str, &'static str) {
    match route {
        Route::OpenAiCompatible => (
            "@ai-sdk/openai-compatible",
            "OpenAICompatibleChatLanguageModel",
        ),
        Route::OpenAi => ("@ai-sdk/openai", "OpenAIResponsesLanguageModel"),
        Route::Anthropic => ("@ai-sdk/anthropic", "AnthropicMessagesLanguageModel"),
        Route::Google => ("@ai-sdk/google", "GoogleGenerativeAILanguageModel"),
        Route::Mistral => ("@ai-sdk/mistral", "MistralChatLanguageModel"),
        Route::Groq => ("@ai-sdk/groq", "GroqChatLanguageModel"),
    }
}

/// The Environment section, read from the install the case ran on: the
/// versions of @mastra/core and zod, and the route's provider package, or
/// the dist file of @mastra/core that bundles it.
fn environment(install: &Path, node: &str, route: Route) -> Environment {
    let unknown = || "(not found in the install)".to_string();
    let (package, class) = provider_package(route);
    let provider = match installed(install, package) {
        Some(v) => format!("{package} {v}"),
        None => {
            let dist = install.join("node_modules/@mastra/core/dist");
            let bundled = std::fs::read_dir(&dist)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "js"))
                .find_map(|p| {
                    let text = std::fs::read_to_string(&p).ok()?;
                    text.contains(&format!("var {class} = class"))
                        .then(|| bundled_version(&text, package))
                        .flatten()
                        .map(|v| (p, v))
                });
            match bundled {
                Some((p, v)) => format!(
                    "{package} {v}, bundled into @mastra/core (`{class}` in dist/{})",
                    p.file_name().unwrap_or_default().to_string_lossy()
                ),
                None => format!("{package}: {}", unknown()),
            }
        }
    };
    Environment {
        node: node.to_string(),
        core: installed(install, "@mastra/core").unwrap_or_else(unknown),
        zod: installed(install, "zod").unwrap_or_else(unknown),
        provider,
    }
}

/// The version of `package` a bundle was built from, as its `//#region`
/// comments name the file they came from (`…/@ai-sdk/openai-compatible/
/// 2.0.62/…/node_modules/@ai-sdk/openai-compatible/dist/index.mjs`, or
/// pnpm's `.pnpm/@ai-sdk+openai-compatible@2.0.62/…`).
pub fn bundled_version(text: &str, package: &str) -> Option<String> {
    let flat = format!("{}@", package.replace('/', "+"));
    let linked = format!("/{package}/");
    text.lines()
        .filter(|l| l.starts_with("//#region") && l.contains(&format!("node_modules/{package}/")))
        .find_map(|l| {
            let after = l
                .split_once(&flat)
                .map(|(_, r)| r)
                .or_else(|| l.split_once(&linked).map(|(_, r)| r))?;
            let v: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
                .collect();
            v.starts_with(|c: char| c.is_ascii_digit()).then_some(v)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundled_provider_is_named_by_its_region_comments() {
        let linked = "x\n//#region ../../setup-pnpm/node_modules/.bin/store/v11/links/@ai-sdk/openai-compatible/2.0.62/b7ac/node_modules/@ai-sdk/openai-compatible/dist/index.mjs\n";
        assert_eq!(
            bundled_version(linked, "@ai-sdk/openai-compatible").as_deref(),
            Some("2.0.62")
        );
        let flat = "//#region ../../node_modules/.pnpm/@ai-sdk+mistral@3.0.1_zod@3.25.76/node_modules/@ai-sdk/mistral/dist/index.mjs\n";
        assert_eq!(
            bundled_version(flat, "@ai-sdk/mistral").as_deref(),
            Some("3.0.1")
        );
        assert_eq!(bundled_version(linked, "@ai-sdk/mistral"), None);
    }
}
