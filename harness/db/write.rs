//! `DbWriter`: a run's results database written as results complete.
//!
//! In: the run's description (`create`), each result as the JSON report
//! writes it (`add`), and the description once more when the run ends
//! (`finish`, which writes the end mark). Out: `results.sqlite`.
//!
//! The file is in WAL mode while the run goes, each result its own
//! transaction, so a killed run loses nothing it reported and the file stays
//! readable; `finish` folds the log back in and leaves one self-contained
//! file, which is what gets copied, uploaded and shared. The file is created
//! by SQLite with the user's umask (0644 under 022), not 0600.

use super::{pack, sql, BlobHash, DbError, FORMAT, SCHEMA};
use crate::js::json::Json;
use crate::js::string::JsString;
use rusqlite::{params, Connection, OptionalExtension};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The members of a result that are its keys, stored as columns.
const KEYS: [&str; 4] = ["case", "route", "version", "verdict"];

pub struct DbWriter {
    conn: Connection,
    path: PathBuf,
    /// Each stored value's row, so a value seen again is neither hashed
    /// into the file again nor compressed again. It grows with distinct
    /// values, not with results.
    blobs: HashMap<BlobHash, i64>,
    cases: HashMap<String, i64>,
    versions: Vec<String>,
    /// Results added.
    pub written: usize,
}

impl DbWriter {
    /// A new database at `path` (any earlier one there is replaced) for the
    /// run `run` (the JSON report's `run` member).
    pub fn create(path: &Path, run: &Json) -> Result<DbWriter, DbError> {
        for leftover in [
            path.to_path_buf(),
            with_suffix(path, "-wal"),
            with_suffix(path, "-shm"),
            with_suffix(path, "-journal"),
        ] {
            match std::fs::remove_file(&leftover) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(DbError::Bad {
                        why: format!("cannot replace the database there: {e}"),
                        path: leftover,
                    })
                }
            }
        }
        let conn = Connection::open(path).map_err(sql(path, "cannot create"))?;
        // A reader (a report of the run so far) may hold the file when the
        // run ends and the log is folded in: wait for it a while.
        conn.busy_timeout(std::time::Duration::from_secs(30))
            .map_err(sql(path, "cannot set a lock timeout"))?;
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;",
        )
        .map_err(sql(path, "cannot set WAL mode"))?;
        conn.execute_batch(SCHEMA)
            .map_err(sql(path, "cannot create the tables"))?;
        conn.execute(
            "INSERT INTO run (id, format, info) VALUES (1, ?1, ?2)",
            params![FORMAT, run.to_compact()],
        )
        .map_err(sql(path, "cannot write table `run`"))?;
        Ok(DbWriter {
            conn,
            path: path.to_path_buf(),
            blobs: HashMap::new(),
            cases: HashMap::new(),
            versions: run_versions(run),
            written: 0,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Store `value` once; its row.
    fn blob(&mut self, value: &Json) -> Result<i64, DbError> {
        let text = value.to_compact();
        let hash = BlobHash::of(&text);
        if let Some(id) = self.blobs.get(&hash) {
            return Ok(*id);
        }
        let at = sql(&self.path, "cannot write table `blob`");
        let existing: Option<i64> = self
            .conn
            .prepare_cached("SELECT id FROM blob WHERE hash = ?1")
            .and_then(|mut s| s.query_row([&hash.0[..]], |r| r.get(0)).optional())
            .map_err(&at)?;
        let id = match existing {
            Some(id) => id,
            None => {
                self.conn
                    .prepare_cached("INSERT INTO blob (hash, body) VALUES (?1, ?2)")
                    .and_then(|mut s| s.execute(params![&hash.0[..], pack(&text)]))
                    .map_err(&at)?;
                self.conn.last_insert_rowid()
            }
        };
        self.blobs.insert(hash, id);
        Ok(id)
    }

    fn version_ord(&mut self, version: &str) -> i64 {
        let at = match self.versions.iter().position(|v| v == version) {
            Some(i) => i,
            None => {
                self.versions.push(version.to_string());
                self.versions.len() - 1
            }
        };
        at as i64
    }

    /// Add one result (`report::result_json`'s shape). `case_ord` places its
    /// case among the run's (the run loop's case index); `None` places a case
    /// not seen before after every other.
    pub fn add(&mut self, case_ord: Option<usize>, result: &Json) -> Result<(), DbError> {
        // One transaction per result: committed, it survives the process
        // being killed; cut short, none of its rows are there.
        self.conn
            .execute_batch("BEGIN")
            .map_err(sql(&self.path, "cannot begin"))?;
        match self.insert(case_ord, result) {
            Ok(()) => {
                self.conn
                    .execute_batch("COMMIT")
                    .map_err(sql(&self.path, "cannot commit"))?;
                self.written += 1;
                Ok(())
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    fn bad(&self, why: String) -> DbError {
        DbError::Bad {
            why,
            path: self.path.clone(),
        }
    }

    fn insert(&mut self, case_ord: Option<usize>, result: &Json) -> Result<(), DbError> {
        let Json::Object(members) = result else {
            return Err(self.bad(format!("a result that is {}, not an object", result.kind())));
        };
        let text = |k: &str| result.get(k).and_then(Json::as_str).map(JsString::to_lossy);
        let [case, route, version, verdict] = KEYS.map(|k| text(k).unwrap_or_default());
        let case_ord = match self.cases.get(&case) {
            Some(ord) => *ord,
            None => {
                // A case's input is the same on every version: stored with
                // the case, the first time it comes.
                let input = match result.get("input") {
                    Some(v) => Some(self.blob(v)?),
                    None => None,
                };
                let ord = case_ord.map_or(self.cases.len() as i64, |o| o as i64);
                self.conn
                    .prepare_cached("INSERT INTO cases (ord, name, input) VALUES (?1, ?2, ?3)")
                    .and_then(|mut s| s.execute(params![ord, case, input]))
                    .map_err(sql(&self.path, "cannot write table `cases`"))?;
                self.cases.insert(case.clone(), ord);
                ord
            }
        };
        let predicted = self.blob(result.get("predicted").unwrap_or(&Json::Null))?;
        let observed = match result.get("observed") {
            None | Some(Json::Null) => None,
            Some(v) => Some(self.blob(v)?),
        };
        let rest: Vec<(JsString, Json)> = members
            .iter()
            .filter(|(k, _)| {
                let k = k.to_lossy();
                !KEYS.contains(&k.as_str()) && !["predicted", "observed", "input"].contains(&&*k)
            })
            .cloned()
            .collect();
        let extra = if rest.is_empty() {
            None
        } else {
            Some(self.blob(&Json::Object(rest))?)
        };
        let version_ord = self.version_ord(&version);
        self.conn
            .prepare_cached(
                "INSERT INTO result (case_ord, version, version_ord, route, verdict, predicted, observed, extra)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    case_ord,
                    version,
                    version_ord,
                    route,
                    verdict,
                    predicted,
                    observed,
                    extra
                ])
            })
            .map_err(|e| match e {
                rusqlite::Error::SqliteFailure(f, _)
                    if f.code == rusqlite::ErrorCode::ConstraintViolation =>
                {
                    DbError::Twice {
                        case: case.clone(),
                        version: version.clone(),
                        path: self.path.clone(),
                    }
                }
                e => sql(&self.path, "cannot write table `result`")(e),
            })?;
        Ok(())
    }

    /// Write the end mark: the run's final description, the number of
    /// results, whether it was interrupted; then fold the write-ahead log
    /// into the one file. Gives the number of results.
    pub fn finish(self, run: &Json, interrupted: bool) -> Result<usize, DbError> {
        self.conn
            .execute(
                "UPDATE run SET info = ?1, ended = ?2, interrupted = ?3 WHERE id = 1",
                params![run.to_compact(), self.written as i64, interrupted as i64],
            )
            .map_err(sql(&self.path, "cannot write the end mark"))?;
        self.conn
            .execute_batch("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE;")
            .map_err(sql(&self.path, "cannot fold the write-ahead log in"))?;
        Ok(self.written)
    }
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// `run.versions` as text, the order results are listed in.
fn run_versions(run: &Json) -> Vec<String> {
    run.get("versions")
        .and_then(Json::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(|v| v.as_str().map(JsString::to_lossy))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::{RunDb, StoredResult};
    use super::*;

    fn run() -> Json {
        Json::parse_document(
            r#"{"commit":"abc","versions":["1.0.4","1.67.0"],"interrupted":false}"#,
        )
        .unwrap()
    }

    fn result(case: &str, version: &str, tools: &[&str]) -> Json {
        let t = || {
            Json::object([(
                "tools",
                Json::Array(tools.iter().map(|t| Json::str(t)).collect()),
            )])
        };
        Json::object([
            ("case", Json::str(case)),
            ("route", Json::str("openai")),
            ("version", Json::str(version)),
            ("verdict", Json::str("as-modelled")),
            ("predicted", t()),
            ("observed", t()),
            (
                "knownIssue",
                Json::object([
                    ("id", Json::str("cut-at-63")),
                    ("state", Json::str("present")),
                ]),
            ),
            ("input", Json::str(&t().to_compact())),
        ])
    }

    #[test]
    fn results_round_trip_in_report_order_and_values_are_stored_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.sqlite");
        let mut w = DbWriter::create(&path, &run()).unwrap();
        // Completion order is not the report's order.
        let rows = [
            (1, result("cases/b.json@openai", "1.67.0", &["b"])),
            (0, result("cases/a.json@openai", "1.67.0", &["a"])),
            (1, result("cases/b.json@openai", "1.0.4", &["b"])),
            (0, result("cases/a.json@openai", "1.0.4", &["a"])),
        ];
        for (ord, r) in &rows {
            w.add(Some(*ord), r).unwrap();
        }
        let partial = RunDb::open(&path).unwrap();
        assert!(
            partial.partial().unwrap().unwrap().contains("no end mark"),
            "a run still going is partial"
        );
        drop(partial);
        assert_eq!(w.finish(&run(), false).unwrap(), 4);
        let db = RunDb::open(&path).unwrap();
        assert_eq!(db.partial().unwrap(), None);
        let mut seen: Vec<StoredResult> = Vec::new();
        db.each_result(|r| {
            seen.push(r);
            Ok::<_, DbError>(())
        })
        .unwrap();
        let order: Vec<(&str, &str)> = seen
            .iter()
            .map(|r| (r.case.as_str(), r.version.as_str()))
            .collect();
        assert_eq!(
            order,
            [
                ("cases/a.json@openai", "1.0.4"),
                ("cases/a.json@openai", "1.67.0"),
                ("cases/b.json@openai", "1.0.4"),
                ("cases/b.json@openai", "1.67.0"),
            ]
        );
        assert_eq!(
            seen[0].predicted,
            seen[1].observed.unwrap(),
            "one projection, one hash"
        );
        let (_, blobs, results) = db.sizes().unwrap();
        // a's projection and input, b's, and one findings object.
        assert_eq!((blobs, results), (5, 4));
        assert_eq!(db.result_json(&seen[3]).unwrap(), rows[0].1);
        let h = seen[2].predicted;
        assert_eq!(BlobHash::parse(&h.to_string()), Some(h));
        assert_eq!(
            db.blob(&h).unwrap().unwrap().to_compact(),
            r#"{"tools":["b"]}"#
        );
    }

    #[test]
    fn a_result_given_twice_and_a_file_that_is_no_database_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.sqlite");
        let mut w = DbWriter::create(&path, &run()).unwrap();
        w.add(Some(0), &result("a", "1.0.4", &[])).unwrap();
        let e = w.add(Some(0), &result("a", "1.0.4", &[])).unwrap_err();
        assert!(e.to_string().contains("a on 1.0.4 is there twice"), "{e}");
        let json = dir.path().join("report.json");
        std::fs::write(&json, "{}").unwrap();
        let e = RunDb::open(&json).err().unwrap().to_string();
        assert!(
            e.contains("report.json") && e.contains("not a results database"),
            "{e}"
        );
    }
}
