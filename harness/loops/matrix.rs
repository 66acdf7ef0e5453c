//! `MatrixWriter`: the nightly job's output. The corpus (with the fuzz finds
//! saved under `cases/found/`) and a fuzz budget (`write_fuzz_cases`) run
//! through the run loop (`run::corpus`), watched by a `MatrixWriter` that:
//! - writes each result to `results.jsonl` the moment it completes (a first
//!   line carries the run information, a last line `{"end": ...}` the count
//!   of results and whether the run was interrupted, written only when the
//!   run ends), so an interrupted or killed matrix keeps what finished, and
//!   `mastra-conform report results.jsonl` renders it, marked partial when
//!   the footer is missing;
//! - at the end writes `report.json`, `report.xml` (JUnit), `report.md` and
//!   `report.html`.
//!
//! Exit statuses are `run`'s: 0 all as expected, 1 a divergence (a known
//! issue still present is not one), 3 infrastructure or interrupted.

use crate::js::json::Json;
use crate::judge::case_result::CaseResult;
use crate::outcome::Failure;
use crate::report::doc::{ReportDoc, END};
use crate::report::{report_json, result_json, save_report, write_reports, JSON, JSONL};
use crate::results::info::RunInfo;
use crate::run::corpus::RunObserver;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes each result to `results.jsonl` as it completes, and every report
/// format at the end.
pub struct MatrixWriter {
    out: PathBuf,
    seed: Option<u64>,
    jsonl: Option<File>,
    /// Lines written to `results.jsonl`.
    pub written: usize,
}

impl MatrixWriter {
    /// A writer into `out`; `seed` is recorded when a fuzz budget ran.
    pub fn new(out: &Path, seed: Option<u64>) -> MatrixWriter {
        MatrixWriter {
            out: out.to_path_buf(),
            seed,
            jsonl: None,
            written: 0,
        }
    }

    fn fail(&self, what: &str, e: std::io::Error) -> Failure {
        Failure::infra_because(format!("cannot write {}", self.out.join(what).display()), e)
    }
}

impl RunObserver for MatrixWriter {
    fn started(&mut self, info: &mut RunInfo, _pairs: usize) -> Result<(), Failure> {
        info.seed = self.seed;
        let mut file = File::create(self.out.join(JSONL)).map_err(|e| self.fail(JSONL, e))?;
        let head = Json::object([("run", info.to_json())]).to_compact();
        writeln!(file, "{head}").map_err(|e| self.fail(JSONL, e))?;
        self.jsonl = Some(file);
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
    }

    fn finished(&mut self, info: &RunInfo, results: &[CaseResult]) -> Result<(), Failure> {
        if let Some(mut f) = self.jsonl.take() {
            let end = Json::object([(
                END,
                Json::object([
                    ("results", Json::int(self.written as i64)),
                    ("interrupted", Json::Bool(info.interrupted)),
                ]),
            )]);
            writeln!(f, "{}", end.to_compact())
                .and_then(|()| f.sync_all())
                .map_err(|e| self.fail(JSONL, e))?;
        }
        // The renderers read the JSON document `report.json` holds, as
        // they would read the file, so a report rebuilt later from disk
        // looks the same; the file is written while they render.
        let report = report_json(info, results);
        let doc = ReportDoc::of_report(&report).map_err(Failure::infra)?;
        std::thread::scope(|s| {
            let json = s.spawn(|| save_report(&self.out.join(JSON), &report.to_pretty()));
            let rendered = write_reports(&doc, &self.out);
            json.join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p))
                .and(rendered)
        })
    }
}

/// The fuzz stage: `count` cases generated from `seed`, written into `dir`
/// as ordinary case files that run with the corpus. Every slice of a sharded
/// matrix writes the same cases; the shard plan then gives each (case,
/// version) to exactly one slice.
pub fn write_fuzz_cases(seed: u64, count: usize, dir: &Path) -> Result<usize, Failure> {
    let _ = std::fs::remove_dir_all(dir);
    if count == 0 {
        return Ok(0);
    }
    crate::loops::fuzz::write_cases(seed, count as u64, dir)
        .map_err(|e| Failure::infra_because(format!("cannot write {}", dir.display()), e))
}
