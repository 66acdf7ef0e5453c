//! The commands built on the run loop (`run`, `matrix`, `sweep`), the ones
//! that only read reports (`report`, `merge`, `compare`), and `plan`.

use super::args::{
    DefaultAll, DefaultPinned, DefaultPinnedLatest, FailOnArgs, GeneratedArgs, JsonReportArgs,
    ProbeArgs, RecheckArgs, ScopeArgs, ShardArgs, StoreArgs, StrictArgs, VersionsArgs,
};
use super::out::{check_writable, print_out, save_report, say, stop_flag, Watcher};
use crate::judge::compare::Verdict;
use crate::loops::matrix::write_json_report;
use crate::loops::matrix::{write_fuzz_cases, MatrixFiles, MatrixWriter};
use crate::loops::provenance::Provenance;
use crate::loops::sweep::Sample;
use crate::outcome::{Exit, Failure, RunEnd};
use crate::report::doc::ReportDoc;
use crate::report::query::{DbReport, ReportSource};
use crate::report::{
    headline, is_security, report_json, summary, versions_that_ran, write_atomically,
    write_reports, write_reports_db,
};
use crate::report::{DATABASE, HTML, JSON, JSONL, JUNIT, MARKDOWN};
use crate::results::info::RunInfo;
use crate::run::config::{repo_root, Config};
use crate::run::corpus::{collect_run, ObserverPair, RunOutcome, RunRequest};
use crate::run::session::Session;
use crate::run::shard::{costs_path, Costs};
use crate::version::spec::MastraVersion;
use clap::Args;
use std::path::{Path, PathBuf};

/// How a run ends: infrastructure (an unavailable version only under
/// `--strict`) or an interruption, else a divergence, else a bad case file.
fn run_end(strict: bool, outcome: &RunOutcome) -> RunEnd {
    let t = &outcome.tally;
    RunEnd {
        infra: t.infra || (strict && t.unavailable),
        interrupted: outcome.info.interrupted,
        finding: t.divergence,
        bad_input: !outcome.case_errors.is_empty(),
    }
}

/// The line that says what the run took from the observation store, and
/// any trouble the store had (which cost reuse, never a result).
fn store_line(outcome: &RunOutcome) -> String {
    for w in &outcome.store_warnings {
        eprintln!("warning: {w}");
    }
    let (observed, reused) = outcome.info.observed_and_reused();
    match outcome.info.store.as_str() {
        "reuse" => format!(
            "observations: {observed} observed, {reused} reused from the store (--fresh observes every case)\n"
        ),
        "fresh" => format!("observations: {observed} observed (--fresh), none reused\n"),
        _ => String::new(),
    }
}

/// The line that says what `--recheck` observed again; none without it.
fn recheck_line(args: RecheckArgs, outcome: &RunOutcome) -> String {
    let n = outcome.rechecked;
    match (args.recheck, n.results) {
        (0, _) => String::new(),
        (_, 0) => "re-checks: none needed (nothing diverged, crashed, timed out or changed)\n".into(),
        (tries, results) => format!(
            "re-checks: {results} result(s) observed again ({} observations, --recheck {tries}): {} flaky\n",
            n.observations, n.flaky
        ),
    }
}

/// The last night's state of each result, from the history `file`, when
/// `--recheck` is to compare with it.
fn last_night(
    args: RecheckArgs,
    file: Option<&Path>,
) -> Result<Option<crate::run::recheck::LastNight>, Failure> {
    // No history yet is no last night: the first night re-checks only
    // what diverged, crashed or timed out.
    let Some(file) = file.filter(|f| args.recheck > 0 && f.exists()) else {
        return Ok(None);
    };
    let bad = |e: crate::db::DbError| Failure::bad(format!("--history: {e}"));
    let history = crate::db::history::History::open(file).map_err(bad)?;
    history.last_states().map(Some).map_err(bad)
}

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct RunArgs {
    #[command(flatten)]
    pub scope: ScopeArgs<DefaultPinned>,
    #[command(flatten)]
    pub report: JsonReportArgs,
    /// Write every report format (report.json, junit/, report.md,
    /// report.html) into this folder, and end with a headline: known
    /// issues per version, divergences, what could not run, where the
    /// reports are.
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub strict: StrictArgs,
    #[command(flatten)]
    pub fail_on: FailOnArgs,
    /// Write each case's normalised request bodies (the snapshot text) to
    /// DIR/VERSION__CASE.txt.
    #[arg(long)]
    pub bodies: Option<PathBuf>,
    #[command(flatten)]
    pub shard: ShardArgs,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub recheck: RecheckArgs,
    #[command(flatten)]
    pub probe: ProbeArgs,
}

/// `run`: the summary, the reports asked for, the exit status.
pub fn run(args: RunArgs) -> Result<Exit, Failure> {
    let (json, out) = (args.report.json.as_deref(), args.out.as_deref());
    if let Some(j) = json {
        check_writable("--json", j)?;
    }
    if let Some(dir) = out {
        std::fs::create_dir_all(dir).map_err(|e| {
            Failure::infra_because(format!("--out: cannot create {}", dir.display()), e)
        })?;
        check_writable("--out", &dir.join(JSON))?;
    }
    let strict = args.strict.strict;
    let config = Config {
        strict,
        ..args.store.on(args.probe.config())
    };
    let mut scope = args.scope.run_plan("run");
    scope.bodies = args.bodies;
    scope.shard = args.shard.shard;
    scope.recheck = args.recheck.recheck(None);
    let ledger = session_ledger()?;
    let Some(dir) = out else {
        return run_in_memory(config, scope, json, &ledger, (args.fail_on, args.recheck));
    };
    // With --out the results go to the database there and nowhere else;
    // every rendering is a query over it.
    let mut writer = MatrixWriter::new(dir, None, MatrixFiles::default());
    let outcome = collect_run(
        config,
        stop_flag(),
        &scope,
        &mut ObserverPair(&mut Watcher::new(), &mut writer),
    )?;
    let report = DbReport::open(&writer.database()).map_err(Failure::infra)?;
    print_out(&summary(&outcome.info, &report).map_err(Failure::infra)?);
    print_out(&store_line(&outcome));
    print_out(&recheck_line(args.recheck, &outcome));
    if let Some(path) = json {
        write_json_report(report.db(), path)?;
    }
    write_json_report(report.db(), &dir.join(JSON))?;
    write_reports_db(&report, &|id| is_security(&ledger, id), None, dir)?;
    print_out(&headline(&outcome.info, &report, &ledger, dir).map_err(Failure::infra)?);
    let mut end = run_end(strict, &outcome);
    end.finding |= fails_on(args.fail_on, &report, &ledger)?;
    Ok(Exit::of_run(end))
}

/// `run` without `--out`: the summary and at most one JSON report, from the
/// results kept in memory, so that a report whose place will not take it
/// (a full disk, a folder gone) still reaches the temporary folder or
/// stderr (`save_report`) where no database could have been written.
fn run_in_memory(
    config: Config,
    scope: RunRequest,
    json: Option<&Path>,
    ledger: &crate::judge::known::KnownIssues,
    (fail_on, recheck): (FailOnArgs, RecheckArgs),
) -> Result<Exit, Failure> {
    let strict = config.strict;
    let scope = RunRequest {
        keep: true,
        ..scope
    };
    let outcome = collect_run(config, stop_flag(), &scope, &mut Watcher::new())?;
    let report = report_json(&outcome.info, &outcome.results);
    let doc = ReportDoc::of_report(&report).map_err(Failure::infra)?;
    print_out(&summary(&outcome.info, &doc).map_err(Failure::infra)?);
    print_out(&store_line(&outcome));
    print_out(&recheck_line(recheck, &outcome));
    if let Some(path) = json {
        save_report(path, &report.to_pretty())?;
    }
    let mut end = run_end(strict, &outcome);
    end.finding |= fails_on(fail_on, &doc, ledger)?;
    Ok(Exit::of_run(end))
}

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct MatrixArgs {
    #[command(flatten)]
    pub scope: ScopeArgs<DefaultPinnedLatest>,
    /// The folder for the results database (results.sqlite) and the
    /// reports (junit/, report.md, report.html).
    #[arg(long, default_value = "target/matrix")]
    pub out: PathBuf,
    /// Also write each result to OUT/results.jsonl as it completes.
    #[arg(long)]
    pub jsonl: bool,
    /// Record this run as the next night in the history file FILE (SQLite,
    /// created when missing): per case and version only the nights its
    /// result changed, and one row of totals a night. The summary then
    /// starts with what changed since the previous night.
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
    #[command(flatten)]
    pub report: JsonReportArgs,
    #[command(flatten)]
    pub generated: GeneratedArgs,
    #[command(flatten)]
    pub strict: StrictArgs,
    #[command(flatten)]
    pub fail_on: FailOnArgs,
    #[command(flatten)]
    pub shard: ShardArgs,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub recheck: RecheckArgs,
    #[command(flatten)]
    pub probe: ProbeArgs,
}

/// `matrix`: the corpus and a fuzz budget, each result written as it
/// completes, then every report format, and the headline.
pub fn matrix(args: MatrixArgs) -> Result<Exit, Failure> {
    let out = args.out.as_path();
    let GeneratedArgs { fuzz_count, seed } = args.generated;
    let mut scope = args.scope.run_plan("matrix");
    scope.shard = args.shard.shard;
    scope.recheck = args
        .recheck
        .recheck(last_night(args.recheck, args.history.as_deref())?);
    std::fs::create_dir_all(out)
        .map_err(|e| Failure::infra_because(format!("cannot create {}", out.display()), e))?;
    let fuzz_dir = out.join("fuzz-cases");
    let mut ran_seed = None;
    match write_fuzz_cases(seed, fuzz_count as usize, &fuzz_dir)? {
        0 => {}
        n => {
            ran_seed = Some(seed);
            eprintln!(
                "matrix: {n} fuzz cases from seed {seed} in {}",
                fuzz_dir.display()
            );
            scope.cases.push(fuzz_dir.clone());
            scope.generated = Some(fuzz_dir);
        }
    }
    let strict = args.strict.strict;
    let config = Config {
        strict,
        ..args.store.on(args.probe.config())
    };
    if let Some(j) = args.report.json.as_deref() {
        check_writable("--json", j)?;
    }
    let files = MatrixFiles {
        jsonl: args.jsonl,
        json: args.report.json.clone(),
    };
    let mut writer = MatrixWriter::new(out, ran_seed, files);
    let mut watcher = Watcher::announcing("matrix");
    let outcome = collect_run(
        config,
        stop_flag(),
        &scope,
        &mut ObserverPair(&mut watcher, &mut writer),
    )?;
    eprintln!(
        "matrix: {} results in {}/{{{DATABASE},{JUNIT}/,{MARKDOWN},{HTML}}}{}{}",
        writer.written,
        out.display(),
        if args.jsonl {
            format!(", {JSONL}")
        } else {
            String::new()
        },
        args.report
            .json
            .as_deref()
            .map(|j| format!(", {}", j.display()))
            .unwrap_or_default(),
    );
    let ledger = session_ledger()?;
    let report = DbReport::open(&writer.database()).map_err(Failure::infra)?;
    // The night is recorded before the site is written, so that each case's
    // detail carries its history up to tonight.
    let history = match &args.history {
        Some(file) => {
            let (history, night) = record_night(file, &writer.database())?;
            print_out(&night.summary(20));
            Some(history)
        }
        None => None,
    };
    write_reports_db(
        &report,
        &|id| is_security(&ledger, id),
        history.as_ref(),
        out,
    )?;
    print_out(&headline(&outcome.info, &report, &ledger, out).map_err(Failure::infra)?);
    print_out(&store_line(&outcome));
    print_out(&recheck_line(args.recheck, &outcome));
    let mut end = run_end(strict, &outcome);
    end.finding |= fails_on(args.fail_on, &report, &ledger)?;
    Ok(Exit::of_run(end))
}

/// Record the run in `db` as the next night of the history `file`; the
/// history, open, and what the night changed.
fn record_night(
    file: &Path,
    db: &Path,
) -> Result<
    (
        crate::db::history::History,
        crate::db::history::NightChanges,
    ),
    Failure,
> {
    let infra = |e: crate::db::DbError| Failure::infra(e.to_string());
    let run = crate::db::RunDb::open(db).map_err(infra)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut history = crate::db::history::History::open(file).map_err(infra)?;
    let night = history.record(&run, now).map_err(infra)?;
    Ok((history, night))
}

/// Whether `--fail-on` fails the run: a known issue of its severity is
/// present on some version; each is said on stderr.
fn fails_on(
    args: FailOnArgs,
    src: &dyn ReportSource,
    ledger: &crate::judge::known::KnownIssues,
) -> Result<bool, Failure> {
    if args.fail_on.is_none() {
        return Ok(false);
    }
    let found = crate::report::security_present(src, ledger).map_err(Failure::infra)?;
    for (id, versions) in &found {
        say!(
            "--fail-on security: {id} is present on {}",
            versions.join(", ")
        );
    }
    Ok(!found.is_empty())
}

/// The known issues, for the headline.
fn session_ledger() -> Result<crate::judge::known::KnownIssues, Failure> {
    Ok(crate::run::config::known_issues(
        &repo_root().join("known-issues.json"),
    )?)
}

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct SweepArgs {
    #[command(flatten)]
    pub scope: ScopeArgs<DefaultAll>,
    /// The Markdown record.
    #[arg(long, default_value = "docs/figures/sweep.md")]
    pub out: PathBuf,
    /// Run nothing: sweep the results of a run already written (its results
    /// database, its JSON report, or its results.jsonl), each
    /// observation judged again by today's model.
    #[arg(long, conflicts_with_all = [
        "cases", "versions", "route", "json", "fresh", "concurrency", "probes", "case_timeout",
    ])]
    pub from: Option<PathBuf>,
    /// Every change's diff in the Markdown record, not only the first few
    /// of each boundary.
    #[arg(long)]
    pub all_diffs: bool,
    #[command(flatten)]
    pub report: JsonReportArgs,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub probe: ProbeArgs,
}

/// `sweep`, or `sweep --from REPORT`.
pub fn sweep(args: SweepArgs) -> Result<Exit, Failure> {
    match &args.from {
        Some(from) => sweep_from(from, &args.out, args.all_diffs),
        None => sweep_run(args),
    }
}

/// `sweep`: the corpus over many versions; every change between
/// neighbouring releases into the Markdown record, and the measured costs
/// into `node-probe/costs.json`.
fn sweep_run(args: SweepArgs) -> Result<Exit, Failure> {
    let (out, json) = (args.out.as_path(), args.report.json.as_deref());
    check_writable("--out", out)?;
    let config = args.store.on(args.probe.config());
    let scope = RunRequest {
        keep: true,
        ..args.scope.run_plan("sweep")
    };
    let root = config.root.clone();
    let routes = scope
        .routes
        .as_ref()
        .map(|r| format!(" --route {}", r.names().join(",")))
        .unwrap_or_default();
    let command = format!(
        "mastra-conform sweep --versions '{}'{routes}",
        scope
            .versions
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(",")
    );
    let measured = Provenance::here(command, &root);
    let outcome = collect_run(config, stop_flag(), &scope, &mut Watcher::new())?;
    record_costs(&root, &outcome.info);
    let stored = store_line(&outcome);
    let RunOutcome { info, results, .. } = outcome;
    let samples: Vec<Sample> = results.iter().map(Sample::of).collect();
    let changes = crate::loops::sweep::changes(&samples);
    let ran = versions_that_ran(&info, &results);
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
        &crate::loops::sweep::markdown(
            &ran,
            &skipped,
            (&samples, &changes),
            &measured,
            args.all_diffs,
        ),
    )
    .map_err(|e| Failure::infra_because(format!("cannot write {}", out.display()), e))?;
    if let Some(path) = json {
        save_report(path, &report_json(&info, &results).to_pretty())?;
    }
    let doc = ReportDoc::of_report(&report_json(&info, &results)).map_err(Failure::infra)?;
    print_out(&summary(&info, &doc).map_err(Failure::infra)?);
    print_out(&stored);
    let untaught = changes.iter().filter(|c| !c.modelled).count();
    say!(
        "{} versions ran; {} changes between neighbours ({untaught} not modelled); written to {}",
        ran.len(),
        changes.len(),
        out.display()
    );
    Ok(Exit::of_run(RunEnd {
        finding: results.iter().any(|r| r.verdict.is_divergence()),
        ..RunEnd::default()
    }))
}

/// `sweep --from REPORT`: the changes between neighbouring versions in a
/// report already written, judged by today's model; nothing runs.
fn sweep_from(from: &Path, out: &Path, all_diffs: bool) -> Result<Exit, Failure> {
    check_writable("--out", out)?;
    let doc = ReportDoc::load(from).map_err(Failure::bad)?;
    let run = &doc.run;
    let (versions, samples) = crate::loops::sweep::from_report(&doc, &repo_root())
        .map_err(|e| Failure::bad(format!("{}: {e}", from.display())))?;
    let ran: Vec<MastraVersion> = versions
        .iter()
        .copied()
        .filter(|v| {
            samples
                .iter()
                .any(|s| s.version == *v && s.observed.is_some())
        })
        .collect();
    let skipped: Vec<(MastraVersion, String)> = versions
        .iter()
        .filter(|v| !ran.contains(v))
        .map(|v| (*v, "no case ran on it in the report".to_string()))
        .collect();
    let changes = crate::loops::sweep::changes(&samples);
    let routes = run
        .get("routes")
        .and_then(crate::js::json::Json::as_array)
        .map(|rs| {
            rs.iter()
                .filter_map(|r| r.as_str().map(crate::js::string::JsString::to_lossy))
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default();
    let command = format!("mastra-conform sweep --from {}", from.display());
    let field = |k: &str| {
        run.get(k)
            .and_then(crate::js::json::Json::as_str)
            .map(crate::js::string::JsString::to_lossy)
            .unwrap_or_default()
    };
    let (command_run, commit) = (field("command"), field("commit"));
    let measured = Provenance::here(command, &repo_root());
    let md = crate::loops::sweep::markdown(&ran, &skipped, (&samples, &changes), &measured, all_diffs).replacen(
        "## Versions",
        &format!(
            "The observations are those of a `{command_run}` run at commit `{commit}` (routes: {routes}); the model that \
             judges them, and says whether each change is modelled, is this commit's.\n\n## Versions"
        ),
        1,
    );
    write_atomically(out, &md)
        .map_err(|e| Failure::infra_because(format!("cannot write {}", out.display()), e))?;
    let untaught = changes.iter().filter(|c| !c.modelled).count();
    let divergent = samples.iter().filter(|s| s.divergent).count();
    say!(
        "{} versions in the report; {} changes between neighbours ({untaught} not modelled); {divergent} result(s) the model does not predict; written to {}",
        ran.len(),
        changes.len(),
        out.display()
    );
    Ok(if divergent > 0 || untaught > 0 {
        Exit::Finding
    } else {
        Exit::Ok
    })
}

/// Fold what this run measured into `node-probe/costs.json`: run seconds for
/// every version that ran, install seconds where this run installed it.
fn record_costs(root: &Path, info: &RunInfo) {
    let path = costs_path(root);
    let mut costs = Costs::load(&path);
    for s in &info.stats {
        // A build is this machine's own: its cost means nothing to a plan.
        let Some(v) = s.version.filter(|v| !v.is_build()) else {
            continue;
        };
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

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct ShardSplitArgs {
    #[command(flatten)]
    pub versions: VersionsArgs<DefaultAll>,
    /// The number of shards (runners).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub shards: u32,
}

/// `plan --shards N`: how a sharded run splits, and each slice's projected
/// time from the recorded costs.
pub fn shard_split(args: ShardSplitArgs) -> Result<Exit, Failure> {
    let shards = args.shards;
    let config = Config::new(&repo_root());
    let costs = Costs::load(&costs_path(&config.root));
    let mut session = Session::new(config, stop_flag())?;
    let versions = session.resolve(args.versions.specs(), args.versions.selection())?;
    let loads = crate::run::shard::projected_loads(&versions, shards, &costs);
    let assignment = crate::run::shard::assign(&versions, shards, &costs);
    let serial: f64 = versions.iter().map(|v| costs.version_cost(*v)).sum();
    say!(
        "{} versions; one runner, nothing cached: {:.0}s ({:.1} min)",
        versions.len(),
        serial,
        serial / 60.0
    );
    for (k, load) in loads.iter().enumerate() {
        let units: Vec<String> = assignment
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
        say!(
            "shard {}/{shards}: {:>6.0}s  {}",
            k + 1,
            load,
            units.join(" ")
        );
    }
    let wall = loads.iter().copied().fold(0.0, f64::max);
    say!(
        "projected wall time with {shards} runners: {:.0}s ({:.1} min)",
        wall,
        wall / 60.0
    );
    Ok(Exit::Ok)
}

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct MergeArgs {
    /// The slices' results databases (results.sqlite) or JSON reports.
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    /// The folder for the merged results.sqlite, junit/, report.md and
    /// report.html.
    #[arg(long, default_value = "target/merged")]
    pub out: PathBuf,
    #[command(flatten)]
    pub report: JsonReportArgs,
    /// Record the merged run as the next night in the history file FILE,
    /// as `matrix --history` does, and say first what changed.
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
    #[command(flatten)]
    pub fail_on: FailOnArgs,
}

/// `merge SLICE... --out DIR`: DIR/results.sqlite and every other format.
pub fn merge(args: MergeArgs) -> Result<Exit, Failure> {
    use crate::report::merge::{merged_run, read, write};
    let out = args.out.as_path();
    let reports = args
        .reports
        .iter()
        .map(|p| read(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Failure::bad)?;
    let run = merged_run(&reports).map_err(Failure::bad)?;
    std::fs::create_dir_all(out)
        .map_err(|e| Failure::infra_because(format!("cannot create {}", out.display()), e))?;
    let db_path = out.join(DATABASE);
    write(&reports, &run, &db_path).map_err(Failure::bad)?;
    let slices = reports.len();
    drop(reports);
    let report = DbReport::open(&db_path).map_err(Failure::infra)?;
    if let Some(json) = args.report.json.as_deref() {
        write_json_report(report.db(), json)?;
    }
    let ledger = session_ledger()?;
    let history = match &args.history {
        Some(file) => {
            let (history, night) = record_night(file, &db_path)?;
            print_out(&night.summary(20));
            Some(history)
        }
        None => None,
    };
    write_reports_db(
        &report,
        &|id| is_security(&ledger, id),
        history.as_ref(),
        out,
    )?;
    let counts = report.counts().map_err(Failure::infra)?;
    let count = |f: &dyn Fn(Verdict) -> bool| -> usize {
        counts
            .iter()
            .filter(|(_, v, _)| f(*v))
            .map(|(_, _, n)| n)
            .sum()
    };
    let divergent = count(&|v| v.is_divergence());
    // An unserved version is reported, not failed, as in `run` without
    // --strict; every other infrastructure outcome left a case unchecked.
    let infra = count(&|v| v.is_infrastructure() && v != Verdict::VersionUnavailable);
    say!(
        "merged {slices} slices: {} results ({divergent} divergent, {infra} not checked) into {}",
        count(&|_| true),
        out.display()
    );
    let security = fails_on(args.fail_on, &report, &ledger)?;
    Ok(Exit::of_run(RunEnd {
        infra: infra > 0,
        finding: divergent > 0 || security,
        ..RunEnd::default()
    }))
}

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct RenderArgs {
    pub input: PathBuf,
    #[arg(long, default_value = "target/matrix")]
    pub out: PathBuf,
}

/// `report FILE --out DIR`: render the reports of a results database, a
/// `report.json` or a `results.jsonl` (from an interrupted matrix, say). Exit 3 when the
/// results are partial or interrupted.
pub fn report(args: RenderArgs) -> Result<Exit, Failure> {
    let out = args.out.as_path();
    std::fs::create_dir_all(out)
        .map_err(|e| Failure::infra_because(format!("cannot create {}", out.display()), e))?;
    let ledger = session_ledger()?;
    let security = |id: &str| is_security(&ledger, id);
    // A database is read by queries; a JSON report or JSONL is read whole,
    // as its text is.
    let (results, incomplete) = if crate::db::is_database(&args.input) {
        let report = DbReport::open(&args.input)
            .map_err(|e| Failure::bad(format!("{}: {e}", args.input.display())))?;
        write_reports_db(&report, &security, None, out)?;
        (report.total().map_err(Failure::infra)?, report.incomplete())
    } else {
        let doc = ReportDoc::load(&args.input).map_err(Failure::bad)?;
        let mut site = crate::report::site::DocSource::new(&doc);
        write_reports(&doc, &mut site, &security, None, out)?;
        (doc.rows.len(), doc.incomplete())
    };
    say!(
        "{results} results: {}/{{{JUNIT}/,{MARKDOWN},{HTML}}}",
        out.display()
    );
    // Results that are not a whole run prove nothing about the cases that
    // are missing: the renderings say so, and so does the exit status.
    if let Some(why) = incomplete {
        say!("{}: {why}", args.input.display());
        return Ok(Exit::Infra);
    }
    Ok(Exit::Ok)
}

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct CompareArgs {
    pub old: PathBuf,
    pub new: PathBuf,
}

/// `compare OLD NEW`: what regressed (exit 1), was fixed, is new, is gone.
pub fn compare(args: CompareArgs) -> Result<Exit, Failure> {
    let (old, new) = (args.old.as_path(), args.new.as_path());
    // Two databases compare by queries, a row of each at a time; a JSON
    // report or JSONL is read whole, as its text is.
    let (text, regressed) = if crate::db::is_database(old) && crate::db::is_database(new) {
        let open = |p: &Path| crate::db::RunDb::open(p).map_err(|e| Failure::bad(e.to_string()));
        crate::report::changes::render_db(&open(old)?, &open(new)?)
            .map_err(|e| Failure::bad(e.to_string()))?
    } else {
        let load = |p: &Path| ReportDoc::load(p).map_err(Failure::bad);
        crate::report::changes::render(&load(old)?, &load(new)?)
    };
    print_out(&text);
    Ok(if regressed { Exit::Finding } else { Exit::Ok })
}
