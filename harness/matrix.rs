//! `matrix`: the nightly job. The corpus (with the fuzz finds saved under
//! `cases/found/`) and a fuzz budget, across a version set, through `run`
//! (`commands::run_observed`), watched by a `MatrixObserver` that:
//! - writes each result to `results.jsonl` the moment it completes (a first
//!   line carries the run information), so an interrupted or killed matrix
//!   keeps what finished, and `mastra-conform report results.jsonl` renders
//!   it;
//! - shows a progress bar (on a terminal; a CI log gets one line per
//!   version);
//! - at the end writes `report.json`, `report.xml` (JUnit), `report.md` and
//!   `report.html` beside it.
//!
//! Exit statuses are `run`'s: 0 all as expected, 1 a divergence (a known
//! issue still present is not one), 3 infrastructure or interrupted.

use crate::commands::{run_observed, CommandError, RunObserver, RunOptions};
use crate::config::Config;
use crate::pipeline::CaseResult;
use crate::report::doc::ReportDoc;
use crate::report::{html, junit, markdown, report_json, result_json, write_atomically, RunInfo};
use indicatif::{ProgressBar, ProgressStyle};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What the nightly job runs.
#[derive(Debug, Clone)]
pub struct MatrixPlan {
    pub cases: Vec<PathBuf>,
    pub versions: String,
    pub out: PathBuf,
    pub fuzz_count: usize,
    pub seed: u64,
    /// This runner's slice of the work (issue 7).
    pub shard: Option<crate::shard::Shard>,
}

/// The report files of a matrix, by name inside its output folder.
pub const JSONL: &str = "results.jsonl";
pub const JSON: &str = "report.json";
pub const JUNIT: &str = "report.xml";
pub const MARKDOWN: &str = "report.md";
pub const HTML: &str = "report.html";

/// Render every report from one `ReportDoc` into `out`.
pub fn write_reports(doc: &ReportDoc, out: &Path) -> Result<(), CommandError> {
    for (name, text) in [
        (JUNIT, junit::render(doc)),
        (MARKDOWN, markdown::render(doc)),
        (HTML, html::render(doc)),
    ] {
        let path = out.join(name);
        write_atomically(&path, &text)
            .map_err(|e| CommandError::Infra(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

struct MatrixObserver {
    out: PathBuf,
    seed: Option<u64>,
    jsonl: Option<File>,
    bar: Option<ProgressBar>,
    last_version: Option<String>,
    written: usize,
}

impl MatrixObserver {
    fn fail(&self, what: &str, e: std::io::Error) -> CommandError {
        CommandError::Infra(format!(
            "cannot write {}: {e}",
            self.out.join(what).display()
        ))
    }
}

impl RunObserver for MatrixObserver {
    fn started(&mut self, info: &mut RunInfo, cases: usize) -> Result<(), CommandError> {
        info.seed = self.seed;
        let mut file = File::create(self.out.join(JSONL)).map_err(|e| self.fail(JSONL, e))?;
        let head = crate::json::Json::object([("run", info.to_json())]).to_compact();
        writeln!(file, "{head}").map_err(|e| self.fail(JSONL, e))?;
        self.jsonl = Some(file);
        let total = (cases * info.versions.len()) as u64;
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:40} {pos}/{len} {msg} [{elapsed_precise}, eta {eta}]",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        self.bar = Some(bar);
        Ok(())
    }

    fn result(&mut self, r: &CaseResult) {
        let line = result_json(r).to_compact();
        // One write per line, then flush: a killed run loses at most the
        // line being written, which the JSONL reader skips.
        if let Some(f) = self.jsonl.as_mut() {
            if writeln!(f, "{line}").and_then(|_| f.flush()).is_ok() {
                self.written += 1;
            }
        }
        let version = r.version.to_string();
        if let Some(bar) = &self.bar {
            if self.last_version.as_deref() != Some(version.as_str()) {
                if bar.is_hidden() {
                    eprintln!("matrix: {version}");
                }
                bar.set_message(version.clone());
                self.last_version = Some(version);
            }
            bar.inc(1);
        }
    }

    fn finished(&mut self, info: &RunInfo, results: &[CaseResult]) -> Result<(), CommandError> {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        // The renderers read the JSON form, as they would read a report
        // file, so a report rebuilt later from disk looks the same.
        let doc = ReportDoc::parse(&report_json(info, results).to_compact())
            .map_err(CommandError::Infra)?;
        write_reports(&doc, &self.out)?;
        eprintln!(
            "matrix: {} results in {}/{{{JSONL},{JSON},{JUNIT},{MARKDOWN},{HTML}}}",
            self.written,
            self.out.display()
        );
        Ok(())
    }
}

/// The fuzz stage's hook. `mastra-conform fuzz` (issue 4) is built on
/// another branch; once it is on main, this writes `count` cases generated
/// from `seed` into `dir` as ordinary case files, and they run with the
/// corpus. Until then a budget is reported as skipped, never silently
/// ignored.
fn generate_fuzz_cases(seed: u64, count: usize, dir: &Path) -> Result<usize, String> {
    if count == 0 {
        return Ok(0);
    }
    // Every slice of a sharded matrix writes the same cases; the shard plan
    // then gives each (case, version) to exactly one slice.
    crate::fuzz::write_cases(seed, count as u64, dir)
        .map_err(|e| format!("cannot write {}: {e}", dir.display()))
}

pub fn matrix(config: Config, plan: &MatrixPlan) -> Result<u8, CommandError> {
    std::fs::create_dir_all(&plan.out)
        .map_err(|e| CommandError::Infra(format!("cannot create {}: {e}", plan.out.display())))?;
    let root = crate::config::repo_root();
    let mut cases = if plan.cases.is_empty() {
        vec![root.join("cases")]
    } else {
        plan.cases.clone()
    };
    let fuzz_dir = plan.out.join("fuzz-cases");
    let _ = std::fs::remove_dir_all(&fuzz_dir);
    let mut seed = None;
    match generate_fuzz_cases(plan.seed, plan.fuzz_count, &fuzz_dir) {
        Ok(0) => {}
        Ok(n) => {
            seed = Some(plan.seed);
            eprintln!(
                "matrix: {n} fuzz cases from seed {} in {}",
                plan.seed,
                fuzz_dir.display()
            );
            cases.push(fuzz_dir);
        }
        Err(why) => eprintln!("matrix: fuzz stage skipped: {why}"),
    }
    let mut observer = MatrixObserver {
        out: plan.out.clone(),
        seed,
        jsonl: None,
        bar: None,
        last_version: None,
        written: 0,
    };
    let json = plan.out.join(JSON);
    let opts = RunOptions {
        command: "matrix",
        bodies: None,
        shard: plan.shard,
    };
    run_observed(
        config,
        &cases,
        &plan.versions,
        Some(&json),
        opts,
        &mut observer,
    )
}

/// The `report` command: render the reports of a `report.json` or a
/// `results.jsonl` (from an interrupted matrix, say) into `out`.
pub fn report(input: &Path, out: &Path) -> Result<u8, CommandError> {
    let doc = ReportDoc::load(input).map_err(CommandError::BadInput)?;
    std::fs::create_dir_all(out)
        .map_err(|e| CommandError::Infra(format!("cannot create {}: {e}", out.display())))?;
    write_reports(&doc, out)?;
    println!(
        "{} results: {}/{{{JUNIT},{MARKDOWN},{HTML}}}",
        doc.rows.len(),
        out.display()
    );
    Ok(crate::commands::exit::OK)
}
