//! One function per command: turn raw flags into a `Config` and validated
//! values, run the pipeline, print, and say which documented exit applies.

use crate::case::{discover, Case, CaseError};
use crate::cli::{Command, ProbeFlags};
use crate::compare::Verdict;
use crate::config::{repo_root, Config};
use crate::json::Json;
use crate::jsstr::JsString;
use crate::lint::{lint, LintInput, Severity};
use crate::model::predict;
use crate::observe::Observed;
use crate::pipeline::{error_chain, CaseResult, Session};
use crate::report::{report_json, summary, write_atomically, RunInfo};
use crate::shard::{Costs, Shard};
use crate::snapshot;
use crate::versions::{MastraVersion, VersionError, VersionSpec};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The documented exit statuses (`shared/case-format.md`).
pub mod exit {
    /// Everything as expected.
    pub const OK: u8 = 0;
    /// A divergence (or, for `lint`, a key that breaks a request; for
    /// `bisect`, no change in the range).
    pub const FINDING: u8 = 1;
    /// Bad input: a case file, a flag, a version string.
    pub const BAD_INPUT: u8 = 2;
    /// Infrastructure: a version or Node could not be had, a probe failed.
    pub const INFRA: u8 = 3;
}

/// A command's failure, already mapped to its exit status.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("{0}")]
    BadInput(String),
    #[error("{0}")]
    Infra(String),
}

impl CommandError {
    pub fn exit_code(&self) -> u8 {
        match self {
            CommandError::BadInput(_) => exit::BAD_INPUT,
            CommandError::Infra(_) => exit::INFRA,
        }
    }
}

impl From<CaseError> for CommandError {
    fn from(e: CaseError) -> Self {
        CommandError::BadInput(e.to_string())
    }
}

fn bad_version(e: VersionError) -> CommandError {
    match e {
        VersionError::BadSpec(_) | VersionError::Empty(_) => CommandError::BadInput(e.to_string()),
        other => CommandError::Infra(error_chain(&other)),
    }
}

/// `--shard K/N`, when given.
fn parse_shard(text: Option<&str>) -> Result<Option<Shard>, CommandError> {
    text.map(Shard::parse)
        .transpose()
        .map_err(CommandError::BadInput)
}

fn exact_version(text: &str) -> Result<MastraVersion, CommandError> {
    MastraVersion::parse(text).ok_or_else(|| {
        CommandError::BadInput(format!(
            "--mastra-version: bad version {text:?}: expected an exact version like 1.67.0"
        ))
    })
}

fn config(flags: Option<&ProbeFlags>) -> Result<Config, CommandError> {
    let mut c = Config::new(&repo_root());
    if let Some(f) = flags {
        if f.concurrency == 0 || f.concurrency > 256 {
            return Err(CommandError::BadInput(format!(
                "--concurrency: {} is not from 1 to 256",
                f.concurrency
            )));
        }
        if f.case_timeout == 0 {
            return Err(CommandError::BadInput(
                "--case-timeout: must be at least 1 second".into(),
            ));
        }
        c.pool.concurrency = f.concurrency;
        c.pool.case_timeout = Duration::from_secs(f.case_timeout);
        if let Some(cache) = &f.cache {
            c.cache = cache.clone();
        }
    }
    Ok(c)
}

/// Print to stdout. A reader that went away (`| head`) is not an error, and
/// must not become a panic.
fn print_out(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush());
}

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

pub fn execute(command: Command) -> Result<u8, CommandError> {
    match command {
        Command::Predict {
            case,
            mastra_version,
        } => {
            let version = exact_version(&mastra_version)?;
            let case = Case::load(&case)?;
            print_out(&format!(
                "{}\n",
                predict(&case, version).to_json().to_pretty()
            ));
            Ok(exit::OK)
        }
        Command::Observe {
            case,
            mastra_version,
            probe,
        } => {
            let version = exact_version(&mastra_version)?;
            let case = Case::load(&case)?;
            let mut session = Session::new(config(Some(&probe))?, stop_flag()).map_err(|e| {
                CommandError::Infra(format!("cannot start the capture listener: {e}"))
            })?;
            let mut got: Option<CaseResult> = None;
            session.run_version(version, std::slice::from_ref(&case), |r| got = Some(r));
            let r = got.ok_or_else(|| {
                CommandError::Infra("interrupted before the case finished".into())
            })?;
            match r.observed.projection() {
                Some(p) => {
                    print_out(&format!("{}\n", p.to_json().to_pretty()));
                    Ok(exit::OK)
                }
                None => Err(CommandError::Infra(format!(
                    "{} on {version}: {}: {}",
                    r.case,
                    r.verdict.name(),
                    r.observed.infra_detail().unwrap_or_default()
                ))),
            }
        }
        Command::Run {
            cases,
            versions,
            json,
            strict,
            bodies,
            shard,
            probe,
        } => {
            let mut c = config(Some(&probe))?;
            c.strict = strict;
            let shard = parse_shard(shard.as_deref())?;
            let opts = RunOptions {
                command: "run",
                bodies: bodies.as_deref(),
                shard,
            };
            run_observed(c, &cases, &versions, json.as_deref(), opts, &mut ())
        }
        Command::Plan { versions, shards } => plan(&versions, shards),
        Command::Merge { reports, out } => crate::merge::merge_command(&reports, &out),
        Command::Sweep {
            cases,
            versions,
            out,
            json,
            probe,
        } => sweep(
            config(Some(&probe))?,
            &cases,
            &versions,
            &out,
            json.as_deref(),
        ),
        Command::Bench {
            mastra_version,
            repeat,
            cases,
            json,
            probe,
        } => {
            let version = exact_version(&mastra_version)?;
            let paths = if cases.is_empty() {
                vec![repo_root().join("cases")]
            } else {
                cases
            };
            let (corpus, errors) = load_cases(&paths);
            if let Some(e) = errors.first() {
                return Err(CommandError::BadInput(e.to_string()));
            }
            // Cases that wait on retry back-off measure sleeping, not the
            // pipeline; the workload leaves them out.
            let corpus: Vec<Case> = corpus
                .into_iter()
                .filter(|c| !c.replies.iter().any(|r| matches!(r, crate::case::Reply::Error { status, .. } if *status >= 408 && *status != 400)))
                .collect();
            let workload: Vec<Case> = (0..repeat.max(1))
                .flat_map(|_| corpus.iter().cloned())
                .collect();
            let mut session = Session::new(config(Some(&probe))?, stop_flag()).map_err(|e| {
                CommandError::Infra(format!("cannot start the capture listener: {e}"))
            })?;
            let result = crate::bench::bench(&mut session, version, &workload)
                .map_err(CommandError::Infra)?;
            print_out(&result.to_text());
            if let Some(path) = json {
                write_atomically(&path, &result.to_json().to_pretty()).map_err(|e| {
                    CommandError::Infra(format!("cannot write {}: {e}", path.display()))
                })?;
            }
            Ok(exit::OK)
        }
        Command::Fuzz {
            seed,
            count,
            versions,
            found,
            ceiling,
            shard,
            json,
            probe,
        } => {
            let shard = parse_shard(shard.as_deref())?;
            let opts = FuzzOptions {
                seed,
                count,
                versions: &versions,
                found: found.as_deref(),
                ceiling,
                json: json.as_deref(),
                shard,
            };
            fuzz(config(Some(&probe))?, opts)
        }
        Command::Lint {
            keys,
            file,
            tool_choice,
            active_tools,
            prompt_names,
            json,
        } => {
            let mut input = LintInput {
                keys: keys.iter().map(|k| JsString::from(k.as_str())).collect(),
                tool_choice: tool_choice.map(JsString::from),
                active_tools: active_tools.into_iter().map(JsString::from).collect(),
                prompt_names: prompt_names.into_iter().map(JsString::from).collect(),
            };
            if let Some(path) = file {
                read_lint_file(&path, &mut input)?;
            }
            if input.keys.is_empty() {
                return Err(CommandError::BadInput(
                    "lint: give tool keys as arguments or with --file".into(),
                ));
            }
            let report = lint(&input);
            if json {
                print_out(&format!("{}\n", report.to_json().to_pretty()));
            } else {
                print_out(&report.to_text());
            }
            Ok(if report.worst() == Severity::Error {
                exit::FINDING
            } else {
                exit::OK
            })
        }
        Command::Bisect {
            case,
            good,
            bad,
            on,
            probe,
        } => {
            let (good, bad) = (exact_version(&good)?, exact_version(&bad)?);
            let case = Case::load(&case)?;
            let mut session = Session::new(config(Some(&probe))?, stop_flag())
                .map_err(|e| CommandError::Infra(format!("cannot start the session: {e}")))?;
            crate::bisect::bisect(&mut session, &case, good, bad, on)
        }
        Command::Verify {
            issue,
            versions,
            json,
            probe,
        } => crate::verify::command(config(Some(&probe))?, &issue, &versions, json.as_deref()),
        Command::Matrix {
            cases,
            versions,
            out,
            fuzz_count,
            seed,
            strict,
            shard,
            probe,
        } => {
            let mut c = config(Some(&probe))?;
            c.strict = strict;
            let shard = parse_shard(shard.as_deref())?;
            let plan = crate::matrix::MatrixPlan {
                cases,
                versions,
                out,
                fuzz_count,
                seed,
                shard,
            };
            crate::matrix::matrix(c, &plan)
        }
        Command::Report { input, out } => crate::matrix::report(&input, &out),
        Command::Compare { old, new } => {
            let load =
                |p: &Path| crate::report::doc::ReportDoc::load(p).map_err(CommandError::BadInput);
            let (text, code) = crate::report::changes::render(&load(&old)?, &load(&new)?);
            print_out(&text);
            Ok(code)
        }
    }
}

fn read_lint_file(path: &Path, input: &mut LintInput) -> Result<(), CommandError> {
    let bad = |field: &str, what: String| {
        CommandError::BadInput(if field.is_empty() {
            format!("{}: {what}", path.display())
        } else {
            format!("{}: field `{field}`: {what}", path.display())
        })
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad("", format!("cannot read: {e}")))?;
    let v = Json::parse(&text).map_err(|e| bad("", format!("not valid JSON: {e}")))?;
    let strings = |v: &Json, field: &str| -> Result<Vec<JsString>, CommandError> {
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

/// Load every case under `paths`; every bad file is reported, and the good
/// ones still run.
pub fn load_cases(paths: &[PathBuf]) -> (Vec<Case>, Vec<CaseError>) {
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    for root in paths {
        match discover(root) {
            Ok(files) => {
                for f in files {
                    match Case::load(&f) {
                        Ok(c) => cases.push(c),
                        Err(e) => errors.push(e),
                    }
                }
            }
            Err(e) => errors.push(CaseError {
                file: root.clone(),
                field: String::new(),
                problem: format!("cannot read: {e}"),
            }),
        }
    }
    (cases, errors)
}

/// What watches a run as it goes (the matrix writes each result the moment
/// it completes, and renders its reports at the end).
pub trait RunObserver {
    fn started(&mut self, _info: &mut RunInfo, _cases: usize) -> Result<(), CommandError> {
        Ok(())
    }
    fn result(&mut self, _result: &CaseResult) {}
    fn finished(&mut self, _info: &RunInfo, _results: &[CaseResult]) -> Result<(), CommandError> {
        Ok(())
    }
}

impl RunObserver for () {}

/// How a run is named and sliced, beyond its cases and versions.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions<'a> {
    /// The command, as the report names it.
    pub command: &'a str,
    /// Write each case's snapshot text here.
    pub bodies: Option<&'a Path>,
    pub shard: Option<Shard>,
}

/// What a run collects before it prints.
pub struct RunOutcome {
    pub info: RunInfo,
    pub results: Vec<CaseResult>,
    pub case_errors: Vec<CaseError>,
}

/// Load the cases, resolve the versions, run every case on every version
/// (of this slice) through one `Session`, and give the results in case
/// order, then version order. Bad case files are reported and left out; the
/// rest runs. `observer` sees each result the moment it exists.
pub fn collect_run(
    config: Config,
    case_paths: &[PathBuf],
    versions: &str,
    opts: RunOptions,
    observer: &mut dyn RunObserver,
) -> Result<RunOutcome, CommandError> {
    let root = repo_root();
    let paths = if case_paths.is_empty() {
        vec![root.join("cases")]
    } else {
        case_paths.to_vec()
    };
    let specs = VersionSpec::parse_list(versions)
        .map_err(|e| CommandError::BadInput(format!("--versions: {e}")))?;
    if let Some(dir) = opts.bodies {
        std::fs::create_dir_all(dir).map_err(|e| {
            CommandError::Infra(format!(
                "cannot create --bodies folder {}: {e}",
                dir.display()
            ))
        })?;
    }
    let (cases, case_errors) = load_cases(&paths);
    for e in &case_errors {
        eprintln!("error: {e}");
    }
    if cases.is_empty() {
        return Err(CommandError::BadInput("no case to run".into()));
    }
    let stop = stop_flag();
    let mut session = Session::new(config, stop.clone())
        .map_err(|e| CommandError::Infra(format!("cannot start the session: {e}")))?;
    let versions = session.resolve(&specs).map_err(bad_version)?;
    let mut info = RunInfo::new(opts.command, &root);
    info.versions = versions.clone();
    info.corpus = crate::report::corpus_digest(&cases);
    info.shard = opts.shard.map(|s| s.to_string());
    let units = opts
        .shard
        .map(|s| crate::shard::units_of(&versions, s, &Costs::load(&costs_path(&root))));
    observer.started(&mut info, cases.len())?;
    let mut results: Vec<CaseResult> = Vec::new();
    for &v in &versions {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        // This slice's cases of `v` (all of them without --shard).
        let selected: Vec<usize> = (0..cases.len())
            .filter(|i| {
                units
                    .as_ref()
                    .is_none_or(|us| us.iter().any(|u| u.version == v && u.holds(*i)))
            })
            .collect();
        if selected.is_empty() {
            continue;
        }
        let subset: Vec<Case> = selected.iter().map(|&i| cases[i].clone()).collect();
        let stats = session.run_version(v, &subset, |mut r| {
            r.index = selected[r.index];
            if let (Some(dir), Observed::Ran { bodies, .. }) = (opts.bodies, &r.observed) {
                let file = dir.join(format!("{}.txt", snapshot::name(&r.case, r.version)));
                if let Err(e) = std::fs::write(&file, snapshot::text(bodies)) {
                    eprintln!("error: cannot write {}: {e}", file.display());
                }
            }
            observer.result(&r);
            results.push(r)
        });
        if versions.len() > 3 {
            eprintln!(
                "{v}: {} cases in {:.1}s",
                stats.cases,
                stats.pool.busy.as_secs_f64()
            );
        }
        info.absorb(stats);
    }
    info.interrupted = stop.load(Ordering::SeqCst);
    // Completion order is not reproducible; case order then version order is.
    let version_rank =
        |v: MastraVersion| versions.iter().position(|x| *x == v).unwrap_or(usize::MAX);
    results.sort_by_key(|r| (r.index, version_rank(r.version)));
    Ok(RunOutcome {
        info,
        results,
        case_errors,
    })
}

/// The `run` command, named in its report by `opts.command` and watched by
/// `observer`: print the summary, write the report, map to an exit status.
pub fn run_observed(
    config: Config,
    case_paths: &[PathBuf],
    versions: &str,
    json: Option<&Path>,
    opts: RunOptions,
    observer: &mut dyn RunObserver,
) -> Result<u8, CommandError> {
    if let Some(j) = json {
        check_writable(j)?;
    }
    let strict = config.strict;
    let RunOutcome {
        info,
        results,
        case_errors,
    } = collect_run(config, case_paths, versions, opts, observer)?;
    print_out(&summary(&info, &results));
    if let Some(path) = json {
        save_report(path, &report_json(&info, &results).to_pretty())?;
    }
    observer.finished(&info, &results)?;
    let divergent = results.iter().any(|r| r.verdict.is_divergence());
    let infra = results.iter().any(|r| {
        r.verdict.is_infrastructure() && (strict || r.verdict != Verdict::VersionUnavailable)
    });
    Ok(if infra || info.interrupted {
        exit::INFRA
    } else if divergent {
        exit::FINDING
    } else if !case_errors.is_empty() {
        exit::BAD_INPUT
    } else {
        exit::OK
    })
}

fn sweep(
    config: Config,
    case_paths: &[PathBuf],
    versions: &str,
    out: &Path,
    json: Option<&Path>,
) -> Result<u8, CommandError> {
    check_writable(out)?;
    let command = format!("mastra-conform sweep --versions '{versions}'");
    let RunOutcome { info, results, .. } = collect_run(
        config,
        case_paths,
        versions,
        RunOptions {
            command: "sweep",
            bodies: None,
            shard: None,
        },
        &mut (),
    )?;
    record_costs(&info);
    let changes = crate::sweep::changes(&results);
    let ran: Vec<MastraVersion> = info
        .versions
        .iter()
        .copied()
        .filter(|v| {
            results
                .iter()
                .any(|r| r.version == *v && r.observed.projection().is_some())
        })
        .collect();
    let skipped: Vec<(MastraVersion, String)> = info
        .versions
        .iter()
        .filter(|v| !ran.contains(v))
        .map(|v| {
            let why = results
                .iter()
                .find(|r| r.version == *v)
                .and_then(|r| r.observed.infra_detail())
                .unwrap_or_default();
            (*v, why)
        })
        .collect();
    write_atomically(
        out,
        &crate::sweep::markdown(&ran, &skipped, &changes, &command),
    )
    .map_err(|e| CommandError::Infra(format!("cannot write {}: {e}", out.display())))?;
    if let Some(path) = json {
        save_report(path, &report_json(&info, &results).to_pretty())?;
    }
    print_out(&summary(&info, &results));
    let untaught = changes.iter().filter(|c| !c.modelled).count();
    print_out(&format!(
        "{} versions ran; {} changes between neighbours ({untaught} not modelled); written to {}\n",
        ran.len(),
        changes.len(),
        out.display()
    ));
    Ok(if results.iter().any(|r| r.verdict.is_divergence()) {
        exit::FINDING
    } else {
        exit::OK
    })
}

fn plan(versions: &str, shards: u32) -> Result<u8, CommandError> {
    let shard = Shard::parse(&format!("1/{shards}")).map_err(CommandError::BadInput)?;
    let specs = VersionSpec::parse_list(versions)
        .map_err(|e| CommandError::BadInput(format!("--versions: {e}")))?;
    let mut session = Session::new(config(None)?, stop_flag())
        .map_err(|e| CommandError::Infra(format!("cannot start the capture listener: {e}")))?;
    let versions = session.resolve(&specs).map_err(bad_version)?;
    let costs = Costs::load(&costs_path(&repo_root()));
    let loads = crate::shard::projected_loads(&versions, shard.count, &costs);
    let plan = crate::shard::plan(&versions, shard.count, &costs);
    let serial: f64 = versions.iter().map(|v| costs.version_cost(*v)).sum();
    print_out(&format!(
        "{} versions; one runner, nothing cached: {:.0}s ({:.1} min)\n",
        versions.len(),
        serial,
        serial / 60.0
    ));
    for (k, load) in loads.iter().enumerate() {
        let units: Vec<String> = plan
            .iter()
            .filter(|(_, s)| *s as usize == k + 1)
            .map(|(u, _)| {
                if u.chunks > 1 {
                    format!("{}#{}/{}", u.version, u.chunk + 1, u.chunks)
                } else {
                    u.version.to_string()
                }
            })
            .collect();
        print_out(&format!(
            "shard {}/{}: {:>6.0}s  {}\n",
            k + 1,
            shard.count,
            load,
            units.join(" ")
        ));
    }
    let wall = loads.iter().copied().fold(0.0, f64::max);
    print_out(&format!(
        "projected wall time with {} runners: {:.0}s ({:.1} min)\n",
        shard.count,
        wall,
        wall / 60.0
    ));
    Ok(exit::OK)
}

/// Where measured per-version costs are kept for `--shard`.
pub fn costs_path(root: &Path) -> PathBuf {
    root.join("node-probe").join("costs.json")
}

/// Fold what this run measured into `node-probe/costs.json`: run seconds for
/// every version that ran, install seconds where an install happened now.
fn record_costs(info: &RunInfo) {
    let path = costs_path(&repo_root());
    let mut costs = Costs::load(&path);
    for s in &info.stats {
        let Some(v) = s.version else { continue };
        if s.cases > 0 {
            costs.run.insert(v, s.pool.busy.as_secs_f64());
        }
        if s.installed_now {
            costs.install.insert(v, s.install.as_secs_f64());
        }
    }
    if let Err(e) = write_atomically(&path, &costs.to_json().to_pretty()) {
        eprintln!("warning: cannot record costs in {}: {e}", path.display());
    }
}

/// Fail early, before any work, when the report could not be written.
fn check_writable(path: &Path) -> Result<(), CommandError> {
    if path.is_dir() {
        return Err(CommandError::BadInput(format!(
            "--json: {} is a folder; give the report's file name",
            path.display()
        )));
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    tempfile::NamedTempFile::new_in(dir).map(drop).map_err(|e| {
        CommandError::Infra(format!("cannot write the report {}: {e}", path.display()))
    })
}

/// Write the report. When its place will not take it after all (the disk
/// filled up, the folder went away during the run), the results are not
/// thrown away: they go to the temporary folder, or as a last resort to
/// stderr, and the error says where.
fn save_report(path: &Path, text: &str) -> Result<(), CommandError> {
    let Err(e) = write_atomically(path, text) else {
        return Ok(());
    };
    let first = format!("cannot write the report {}: {e}", path.display());
    let fallback =
        std::env::temp_dir().join(format!("mastra-conform-report-{}.json", std::process::id()));
    match write_atomically(&fallback, text) {
        Ok(()) => Err(CommandError::Infra(format!(
            "{first}; it was written to {} instead",
            fallback.display()
        ))),
        Err(e) => {
            eprintln!(
                "error: {first}; nor to {}: {e}; the report follows",
                fallback.display()
            );
            eprintln!("{text}");
            Err(CommandError::Infra(format!(
                "{first}; the report was printed to stderr"
            )))
        }
    }
}

/// `fuzz`: per version, the saved findings and the generated cases in one
/// batch, then each divergence shrunk and saved. Exit 1 when a divergence
/// (new or replayed) is left, 3 when interrupted or the machine failed.
/// The `fuzz` command's validated options.
pub struct FuzzOptions<'a> {
    pub seed: u64,
    pub count: u64,
    pub versions: &'a str,
    pub found: Option<&'a Path>,
    pub ceiling: bool,
    pub json: Option<&'a Path>,
    pub shard: Option<Shard>,
}

fn fuzz(config: Config, opts: FuzzOptions) -> Result<u8, CommandError> {
    let FuzzOptions {
        seed,
        count,
        versions,
        found,
        ceiling,
        json,
        shard,
    } = opts;
    use crate::fuzz::{self, found::Saved, Plan, SessionOracle};
    let root = repo_root();
    let found_dir = found.map_or_else(|| fuzz::default_found_dir(&root), Path::to_path_buf);
    let specs = VersionSpec::parse_list(versions)
        .map_err(|e| CommandError::BadInput(format!("--versions: {e}")))?;
    if let Some(j) = json {
        check_writable(j)?;
    }
    let (mut saved_cases, errors) = fuzz::found::load(&found_dir);
    if let Some(e) = errors.first() {
        return Err(CommandError::BadInput(e.to_string()));
    }
    let strict = config.strict;
    let stop = stop_flag();
    let mut session = Session::new(config, stop.clone())
        .map_err(|e| CommandError::Infra(format!("cannot start the capture listener: {e}")))?;
    let versions = session.resolve(&specs).map_err(bad_version)?;
    let generated = fuzz::generate_slice(seed, count, shard.unwrap_or_else(Shard::whole));
    let replay = saved_cases.clone();
    let plan = Plan::new(seed);
    let mut info = RunInfo::new("fuzz", &root);
    info.versions = versions.clone();
    info.seed = Some(seed);
    info.shard = shard.map(|s| s.to_string());
    let (mut results, mut findings) = (Vec::new(), Vec::new());
    let (mut divergent, mut infra) = (false, false);
    for &v in &versions {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let bar = fuzz::progress_bar(&v.to_string());
        let run = fuzz::fuzz_version(
            &mut SessionOracle {
                session: &mut session,
            },
            v,
            &plan,
            &replay,
            &generated,
            json.is_some(),
            &bar,
        );
        bar.finish_and_clear();
        let mut saved = Vec::new();
        for f in &run.findings {
            let s = fuzz::found::save(&found_dir, f, &mut saved_cases).map_err(|e| {
                CommandError::Infra(format!(
                    "cannot save a finding under {}: {e}",
                    found_dir.display()
                ))
            })?;
            saved.push(s);
        }
        let rate = if ceiling && !run.interrupted && run.stats.cases > 0 {
            let cases: Vec<Case> = generated.iter().map(|g| g.case.clone()).collect();
            match crate::bench::ceiling_rate(&mut session, v, &cases) {
                Ok(r) => Some(r),
                Err(e) => {
                    eprintln!("error: the ceiling on {v}: {e}");
                    None
                }
            }
        } else {
            None
        };
        print!("{}", run.summary(v, seed, rate, &saved));
        divergent |= !run.findings.is_empty()
            || run
                .replayed
                .iter()
                .any(|r| r.result.verdict.is_divergence());
        infra |= run
            .tally
            .keys()
            .chain(run.replayed.iter().map(|r| &r.result.verdict))
            .any(|v| v.is_infrastructure() && (strict || *v != Verdict::VersionUnavailable));
        info.interrupted |= run.interrupted;
        results.extend(run.replayed.into_iter().map(|r| r.result));
        results.extend(run.results);
        for (f, s) in run.findings.iter().zip(&saved) {
            findings.push(Json::object([
                ("seed", Json::Number(f.seed.to_string())),
                ("case", Json::Number(f.index.to_string())),
                ("version", Json::str(&f.version.to_string())),
                ("signature", Json::str(&f.signature.describe())),
                ("saved", Json::str(&s.path().to_string_lossy())),
                ("new", Json::Bool(matches!(s, Saved::New(_)))),
            ]));
        }
        info.absorb(run.stats);
    }
    info.interrupted |= stop.load(Ordering::SeqCst);
    if let Some(path) = json {
        let mut report = report_json(&info, &results);
        if let Json::Object(members) = &mut report {
            members.push(("findings".into(), Json::Array(findings)));
        }
        save_report(path, &report.to_pretty())?;
    }
    Ok(if infra || info.interrupted {
        exit::INFRA
    } else if divergent {
        exit::FINDING
    } else {
        exit::OK
    })
}
