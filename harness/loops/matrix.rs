//! `MatrixWriter`: the nightly job's output. The corpus (with the fuzz finds
//! saved under `cases/found/`) and a fuzz budget (`write_fuzz_cases`) run
//! through the run loop (`run::corpus`), watched by a `MatrixWriter` that:
//! - writes each result to the results database (`results.sqlite`, `db`) the
//!   moment it completes, and its end mark only when the run ends, so an
//!   interrupted or killed matrix keeps what finished, and
//!   `mastra-conform report results.sqlite` renders it, marked partial when
//!   the mark is missing;
//! - with `--jsonl`, writes each result to `results.jsonl` too (a first line
//!   carries the run information, a last line `{"end": ...}` the count of
//!   results and whether the run was interrupted, written only when the run
//!   ends);
//! - at the end, with `--json FILE`, the whole JSON report, streamed out of
//!   the database; the command then renders `junit/` (JUnit),
//!   `report.md`, `report.html` and the site from the database
//!   (`report::write_reports_db`).
//!
//! Exit statuses are `run`'s: 0 all as expected, 1 a divergence (a known
//! issue still present is not one), 3 infrastructure or interrupted.

use crate::db::write::DbWriter;
use crate::db::{DbError, RunDb};
use crate::js::json::Json;
use crate::judge::case_result::CaseResult;
use crate::outcome::Failure;
use crate::report::doc::END;
use crate::report::{result_json, stream_report_json, write_streamed, DATABASE, JSONL};
use crate::results::info::RunInfo;
use crate::run::corpus::RunObserver;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What a matrix writes besides its database and the rendered reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MatrixFiles {
    /// `results.jsonl` as the run goes.
    pub jsonl: bool,
    /// The whole JSON report, at the end.
    pub json: Option<PathBuf>,
}

/// Writes each result to the database (and `results.jsonl` when asked) as
/// it completes, and every report format at the end.
pub struct MatrixWriter {
    out: PathBuf,
    seed: Option<u64>,
    files: MatrixFiles,
    db: Option<DbWriter>,
    /// The first failure to store a result: the run goes on (its
    /// observations are worth having in the other files), and ends with it.
    db_error: Option<DbError>,
    jsonl: Option<File>,
    /// Lines written to `results.jsonl`.
    lines: usize,
    /// Results stored.
    pub written: usize,
}

impl MatrixWriter {
    /// A writer into `out`; `seed` is recorded when a fuzz budget ran.
    pub fn new(out: &Path, seed: Option<u64>, files: MatrixFiles) -> MatrixWriter {
        MatrixWriter {
            out: out.to_path_buf(),
            seed,
            files,
            db: None,
            db_error: None,
            jsonl: None,
            lines: 0,
            written: 0,
        }
    }

    fn fail(&self, what: &str, e: std::io::Error) -> Failure {
        Failure::infra_because(format!("cannot write {}", self.out.join(what).display()), e)
    }

    /// The database's path.
    pub fn database(&self) -> PathBuf {
        self.out.join(DATABASE)
    }
}

impl RunObserver for MatrixWriter {
    fn started(&mut self, info: &mut RunInfo, _pairs: usize) -> Result<(), Failure> {
        info.seed = self.seed;
        let head = info.to_json();
        self.db = Some(
            DbWriter::create(&self.database(), &head).map_err(|e| Failure::infra(e.to_string()))?,
        );
        if self.files.jsonl {
            let mut file = File::create(self.out.join(JSONL)).map_err(|e| self.fail(JSONL, e))?;
            let head = Json::object([("run", head)]).to_compact();
            writeln!(file, "{head}").map_err(|e| self.fail(JSONL, e))?;
            self.jsonl = Some(file);
        }
        Ok(())
    }

    fn result(&mut self, r: &CaseResult) {
        let json = result_json(r);
        if let (Some(db), None) = (self.db.as_mut(), &self.db_error) {
            match db.add(Some(r.index), &json) {
                Ok(()) => self.written += 1,
                Err(e) => self.db_error = Some(e),
            }
        }
        // One write per line, then flush: a killed run loses at most the
        // line being written, which the JSONL reader skips.
        if let Some(f) = self.jsonl.as_mut() {
            if writeln!(f, "{}", json.to_compact())
                .and_then(|_| f.flush())
                .is_ok()
            {
                self.lines += 1;
            }
        }
    }

    fn finished(&mut self, info: &RunInfo, _results: &[CaseResult]) -> Result<(), Failure> {
        let run = info.to_json();
        if let Some(mut f) = self.jsonl.take() {
            let end = Json::object([(
                END,
                Json::object([
                    ("results", Json::int(self.lines as i64)),
                    ("interrupted", Json::Bool(info.interrupted)),
                ]),
            )]);
            writeln!(f, "{}", end.to_compact())
                .and_then(|()| f.sync_all())
                .map_err(|e| self.fail(JSONL, e))?;
        }
        if let Some(e) = self.db_error.take() {
            return Err(Failure::infra(format!("cannot store a result: {e}")));
        }
        let Some(db) = self.db.take() else {
            return Ok(());
        };
        db.finish(&run, info.interrupted)
            .map_err(|e| Failure::infra(e.to_string()))?;
        match self.files.json.as_deref() {
            Some(path) => {
                let db =
                    RunDb::open(&self.database()).map_err(|e| Failure::infra(e.to_string()))?;
                write_json_report(&db, path)
            }
            None => Ok(()),
        }
    }
}

/// The whole JSON report of a database, streamed into `path`.
pub fn write_json_report(db: &RunDb, path: &Path) -> Result<(), Failure> {
    /// Either side of streaming: reading the database or writing the file.
    enum Stream {
        Io(std::io::Error),
        Db(DbError),
    }
    impl From<std::io::Error> for Stream {
        fn from(e: std::io::Error) -> Stream {
            Stream::Io(e)
        }
    }
    impl From<DbError> for Stream {
        fn from(e: DbError) -> Stream {
            Stream::Db(e)
        }
    }
    let run = db.run_info().map_err(|e| Failure::infra(e.to_string()))?;
    let mut failed = None;
    let written = write_streamed(path, |w| {
        stream_report_json::<Stream>(w, &run, |each| {
            db.each_result(|r| each(&db.result_json(&r)?))
        })
        .map_err(|e| match e {
            Stream::Io(e) => e,
            Stream::Db(e) => {
                failed = Some(e);
                std::io::Error::other("reading the database")
            }
        })
    });
    match (written, failed) {
        (_, Some(e)) => Err(Failure::infra(e.to_string())),
        (Err(e), None) => Err(Failure::infra_because(
            format!("cannot write the report {}", path.display()),
            e,
        )),
        (Ok(()), None) => Ok(()),
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
