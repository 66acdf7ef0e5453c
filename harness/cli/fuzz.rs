//! `fuzz --seed S --count N`: per version, the saved findings and the
//! generated cases in one batch, then each divergence shrunk and saved
//! (`loops::fuzz`). Exit 1 when a divergence (new or replayed) is left, 3
//! when interrupted or the machine failed.

use super::args::{DefaultPinned, JsonReportArgs, ProbeArgs, RoutesArgs, VersionsArgs};
use super::out::{bar, check_writable, print_out, save_report, stop_flag};
use crate::case::Case;
use crate::js::json::Json;
use crate::judge::compare::Verdict;
use crate::loops::fuzz::{self, found::Saved, Counted, FuzzSettings, SessionOracle, VersionRun};
use crate::outcome::{Exit, Failure, RunEnd};
use crate::report::report_json;
use crate::results::info::RunInfo;
use crate::run::progress::Progress;
use crate::run::session::Session;
use crate::run::shard::Shard;
use clap::Args;
use indicatif::ProgressBar;
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct FuzzArgs {
    /// The same seed gives the same cases on every machine.
    #[arg(long)]
    pub seed: u64,
    /// How many cases to generate.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub count: u64,
    #[command(flatten)]
    pub versions: VersionsArgs<DefaultPinned>,
    /// Where findings are saved and replayed from (default: cases/found).
    #[arg(long)]
    pub found: Option<PathBuf>,
    /// Also run the in-process ceiling on the same cases, for the ratio.
    #[arg(long)]
    pub ceiling: bool,
    /// Run only slice K of N of the generated cases (case indices K-1
    /// modulo N: disjoint streams, each reproducible alone).
    #[arg(long)]
    pub shard: Option<Shard>,
    #[command(flatten)]
    pub report: JsonReportArgs,
    // Each generated case draws its route from these.
    #[command(flatten)]
    pub routes: RoutesArgs,
    #[command(flatten)]
    pub probe: ProbeArgs,
}

pub fn fuzz(args: FuzzArgs) -> Result<Exit, Failure> {
    let config = args.probe.config();
    let FuzzArgs {
        seed,
        count,
        found,
        ceiling,
        shard,
        ..
    } = args;
    let (json, routes) = (args.report.json, args.routes.route);
    let root = config.root.clone();
    let found_dir = found.unwrap_or_else(|| fuzz::default_found_dir(&root));
    if let Some(j) = &json {
        check_writable("--json", j)?;
    }
    let (mut saved_cases, errors) = fuzz::found::load(&found_dir);
    if let Some(e) = errors.into_iter().next() {
        return Err(e.into());
    }
    let strict = config.strict;
    let stop = stop_flag();
    let mut session = Session::new(config, stop.clone())?;
    let versions = session.resolve(args.versions.specs(), args.versions.selection())?;
    let generated = fuzz::generate_slice_on(
        seed,
        count,
        shard.unwrap_or_else(Shard::whole),
        routes.as_ref(),
    );
    let replay = saved_cases.clone();
    let settings = FuzzSettings::new(seed);
    let mut info = RunInfo::new("fuzz", &crate::run::config::commit(&root));
    info.isolation = crate::observe::sandbox::isolation().describe();
    crate::observe::sandbox::notice_fallback();
    info.versions = versions.clone();
    info.seed = Some(seed);
    info.routes = routes.as_ref().map_or_else(
        || vec![crate::route::Route::default()],
        |r| r.routes().to_vec(),
    );
    info.shard = shard.map(|s| s.to_string());
    let (mut results, mut findings) = (Vec::new(), Vec::new());
    let mut coverage = Vec::new();
    let mut end = RunEnd::default();
    for &v in &versions {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let progress = Announced::new(bar(&v.to_string()), v.to_string());
        let run = fuzz::fuzz_version(
            &mut SessionOracle {
                session: &mut session,
            },
            v,
            &settings,
            &replay,
            &generated,
            json.is_some(),
            &progress,
        );
        progress.bar.finish_and_clear();
        let mut saved = Vec::new();
        for f in &run.found {
            let s = fuzz::found::save(&found_dir, f, &mut saved_cases).map_err(|e| {
                Failure::infra_because(
                    format!("cannot save a finding under {}", found_dir.display()),
                    e,
                )
            })?;
            saved.push(s);
        }
        let rate = if ceiling && !run.interrupted && run.stats.cases > 0 {
            let cases: Vec<Case> = generated.iter().map(|g| g.case.clone()).collect();
            match crate::loops::bench::ceiling_rate(&mut session, v, &cases) {
                Ok(r) => Some(r),
                Err(e) => {
                    eprintln!("error: the ceiling on {v}: {e}");
                    None
                }
            }
        } else {
            None
        };
        print_out(&run.summary(v, seed, rate, &saved));
        coverage.push(coverage_json(v, &run));
        end.finding |= !run.found.is_empty()
            || run
                .replayed
                .iter()
                .any(|r| r.result.verdict.is_divergence());
        end.infra |= run
            .tally
            .keys()
            .chain(run.replayed.iter().map(|r| &r.result.verdict))
            .any(|v| v.is_infrastructure() && (strict || *v != Verdict::VersionUnavailable));
        info.interrupted |= run.interrupted;
        results.extend(run.replayed.into_iter().map(|r| r.result));
        results.extend(run.results);
        for (f, s) in run.found.iter().zip(&saved) {
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
    info.refused = session.listener.refused();
    end.interrupted = info.interrupted;
    if let Some(path) = &json {
        write_report(path, &info, &results, findings, coverage)?;
    }
    Ok(Exit::of_run(end))
}

/// The run's JSON report, with the findings beside the results.
fn write_report(
    path: &Path,
    info: &RunInfo,
    results: &[crate::judge::case_result::CaseResult],
    findings: Vec<Json>,
    coverage: Vec<Json>,
) -> Result<(), Failure> {
    let mut report = report_json(info, results);
    if let Json::Object(members) = &mut report {
        members.push(("findings".into(), Json::Array(findings)));
        members.push(("coverage".into(), Json::Array(coverage)));
    }
    save_report(path, &report.to_pretty())
}

/// One version's generated cases per route and per kind of call: how many
/// ran, how many were unmodelled.
fn coverage_json(version: crate::version::spec::MastraVersion, run: &VersionRun) -> Json {
    let counts = |m: &std::collections::BTreeMap<&'static str, Counted>| {
        Json::object(m.iter().map(|(k, c)| {
            (
                *k,
                Json::object([
                    ("cases", Json::int(c.cases as i64)),
                    ("unmodelled", Json::int(c.unmodelled as i64)),
                ]),
            )
        }))
    };
    Json::object([
        ("version", Json::str(&version.to_string())),
        ("byRoute", counts(&run.by_route)),
        ("byKind", counts(&run.by_kind)),
    ])
}

/// The version's bar, and where no bar is drawn (a CI log, a pipe) a line
/// on stderr naming the version at its first result, as `matrix` does: a
/// long fuzz run in a log says where it is, and a caller waiting on the
/// run's first result has an event to wait on.
struct Announced {
    bar: ProgressBar,
    version: String,
    announced: Cell<bool>,
}

impl Announced {
    fn new(bar: ProgressBar, version: String) -> Announced {
        Announced {
            bar,
            version,
            announced: Cell::new(false),
        }
    }
}

impl Progress for Announced {
    fn restart(&self, len: u64) {
        self.bar.restart(len);
    }
    fn grow(&self, by: u64) {
        self.bar.grow(by);
    }
    fn advance(&self, by: u64) {
        if self.bar.is_hidden() && !self.announced.replace(true) {
            eprintln!("fuzz: {}", self.version);
        }
        self.bar.advance(by);
    }
    fn say(&self, message: &str) {
        self.bar.say(message);
    }
}
