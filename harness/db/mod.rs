//! `RunDb`: one run's results in one SQLite file (`results.sqlite`), written
//! as results complete and read back by queries, never as a whole.
//!
//! In: the run's description and each result as the JSON report writes it
//! (`write::DbWriter`). Out: the read API every renderer, `compare`, `merge`,
//! `sweep --from` and the site use: `RunDb::open`, `run_info`, `partial`,
//! `each_result` (a stable order: case, then version), `blob` (a stored JSON
//! value by its hash), and `result_json` (one result, rebuilt exactly as the
//! JSON report writes it).
//!
//! The heavy parts of a result (its case's input, the prediction, the
//! observation, and the rest of its findings) are stored once by content:
//! a table of zstd-compressed compact JSON keyed by a hash, which results
//! refer to. A projection seen on forty releases is one row. A run that is
//! killed leaves a readable file whose `run.ended` is null: partial, as a
//! `results.jsonl` without its footer is.
//!
//! The schema (`SCHEMA`) is the format; `FORMAT` is its version, refused
//! when it is not this harness's.

pub mod history;
pub mod write;

use crate::js::json::Json;
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use std::fmt;
use std::path::{Path, PathBuf};

/// The database's file name inside a run's output folder.
pub const FILE: &str = "results.sqlite";

/// The schema's version, in `run.format`.
pub const FORMAT: i64 = 1;

/// The first bytes of every SQLite file: how a reader tells the database
/// from a JSON report.
pub const MAGIC: &[u8] = b"SQLite format 3\0";

/// The tables. `blob` holds each distinct JSON value once; `result` one row
/// per case and version, in the order `(case_ord, version_ord)` the JSON
/// report lists them.
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS run (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    format INTEGER NOT NULL,
    -- the JSON report's `run` member, compact; rewritten when the run ends
    info TEXT NOT NULL,
    -- null until the run ends: the number of results it reported
    ended INTEGER,
    interrupted INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS blob (
    id INTEGER PRIMARY KEY,
    -- the first 16 bytes of the SHA-256 of the compact JSON
    hash BLOB NOT NULL UNIQUE,
    -- zstd of the compact JSON
    body BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS cases (
    ord INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    input INTEGER REFERENCES blob(id)
);
CREATE TABLE IF NOT EXISTS result (
    case_ord INTEGER NOT NULL REFERENCES cases(ord),
    version TEXT NOT NULL,
    version_ord INTEGER NOT NULL,
    route TEXT NOT NULL,
    verdict TEXT NOT NULL,
    predicted INTEGER NOT NULL REFERENCES blob(id),
    observed INTEGER REFERENCES blob(id),
    -- the other members (detail, diff, knownIssue, snapshot, providerRejects)
    extra INTEGER REFERENCES blob(id),
    PRIMARY KEY (case_ord, version_ord)
) WITHOUT ROWID;
";

/// A stored JSON value's key: the first 16 bytes of the SHA-256 of its
/// compact text. Shown as 32 hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlobHash(pub [u8; 16]);

impl BlobHash {
    pub fn of(compact: &str) -> BlobHash {
        use sha2::{Digest, Sha256};
        let full = Sha256::digest(compact.as_bytes());
        let mut out = [0u8; 16];
        out.copy_from_slice(&full[..16]);
        BlobHash(out)
    }

    pub fn parse(hex: &str) -> Option<BlobHash> {
        if hex.len() != 32 {
            return None;
        }
        let mut out = [0u8; 16];
        for (i, b) in out.iter_mut().enumerate() {
            *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(BlobHash(out))
    }

    fn from_sql(bytes: &[u8]) -> Option<BlobHash> {
        Some(BlobHash(bytes.try_into().ok()?))
    }
}

impl fmt::Display for BlobHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// One result as stored: its keys, and its parts by hash.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredResult {
    /// The case's place in the run's corpus (the run loop's case index).
    pub case_ord: usize,
    pub case: String,
    pub route: String,
    pub version: String,
    pub verdict: String,
    /// The case's input (the text the JSON report's `input` carries), when
    /// the run recorded one.
    pub input: Option<BlobHash>,
    pub predicted: BlobHash,
    /// Null when nothing ran (an infrastructure outcome).
    pub observed: Option<BlobHash>,
    /// The result's other members as one JSON object, when it had any.
    pub extra: Option<BlobHash>,
}

/// One (case, version) of two runs, as `RunDb::each_pair_with` gives it:
/// each side's verdict by name (`None`: not in that run), and the newer
/// side's other members by hash.
#[derive(Debug, Clone, PartialEq)]
pub struct VerdictPair {
    pub case: String,
    pub version: String,
    pub old: Option<String>,
    pub new: Option<String>,
    pub new_extra: Option<BlobHash>,
}

/// Which results `RunDb::each_result_where` gives, and in which order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Select {
    /// Only these verdicts (by name); `None`: every result.
    pub verdicts: Option<Vec<String>>,
    /// Only this case's results.
    pub case_ord: Option<usize>,
    /// Version, then case (JUnit's order), rather than the report's case,
    /// then version.
    pub by_version: bool,
}

/// What went wrong reading or writing a database: always with its file.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("{}: {what}: {source}", path.display())]
    Sql {
        path: PathBuf,
        what: String,
        source: rusqlite::Error,
    },
    #[error("{}: {why}", path.display())]
    Bad { why: String, path: PathBuf },
    /// A second result for one (case, version): a run gives each one.
    #[error("{}: {case} on {version} is there twice", path.display())]
    Twice {
        case: String,
        version: String,
        path: PathBuf,
    },
}

fn sql<'a>(path: &'a Path, what: &str) -> impl Fn(rusqlite::Error) -> DbError + 'a {
    let what = what.to_string();
    move |source| DbError::Sql {
        path: path.to_path_buf(),
        what: what.clone(),
        source,
    }
}

/// Whether the file at `path` is a SQLite database (by its first bytes).
pub fn is_database(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head == MAGIC)
}

/// Compress a compact JSON text for the `blob` table.
fn pack(compact: &str) -> Vec<u8> {
    zstd::bulk::compress(compact.as_bytes(), 9).expect("zstd compresses any input in memory")
}

fn unpack(body: &[u8]) -> std::io::Result<String> {
    let bytes = zstd::stream::decode_all(body)?;
    String::from_utf8(bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// A results database opened for reading.
pub struct RunDb {
    conn: Connection,
    path: PathBuf,
}

impl RunDb {
    /// Open `path` read-only. A database a killed run left (with its `-wal`
    /// file beside it) opens too, with every result it committed.
    pub fn open(path: &Path) -> Result<RunDb, DbError> {
        if !is_database(path) {
            return Err(DbError::Bad {
                why: "not a results database (no SQLite header)".into(),
                path: path.to_path_buf(),
            });
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sql(path, "cannot open"))?;
        let db = RunDb {
            conn,
            path: path.to_path_buf(),
        };
        let format: Option<i64> = db
            .conn
            .query_row("SELECT format FROM run WHERE id = 1", [], |r| r.get(0))
            .optional()
            .map_err(sql(path, "table `run`"))?;
        match format {
            Some(FORMAT) => Ok(db),
            Some(other) => Err(db.bad(format!(
                "field `run.format` is {other}; this harness reads format {FORMAT}"
            ))),
            None => Err(db.bad("table `run` has no row: the run never started".into())),
        }
    }

    /// An error about this database.
    pub fn bad(&self, why: String) -> DbError {
        DbError::Bad {
            why,
            path: self.path.clone(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The run's description: the JSON report's `run` member.
    pub fn run_info(&self) -> Result<Json, DbError> {
        let text: String = self
            .conn
            .query_row("SELECT info FROM run WHERE id = 1", [], |r| r.get(0))
            .map_err(sql(&self.path, "field `run.info`"))?;
        Json::parse_document(&text).map_err(|e| self.bad(format!("field `run.info`: {e}")))
    }

    /// Why the results are not a whole run: the run did not end (killed, or
    /// still going), or fewer results are there than it reported.
    pub fn partial(&self) -> Result<Option<String>, DbError> {
        let (ended, _) = self.ended()?;
        let count = self.count()?;
        Ok(match ended {
            None => Some("it has no end mark: the run did not end".into()),
            Some(n) if n != count => Some(format!(
                "its end mark counts {n} results and {count} are there"
            )),
            Some(_) => None,
        })
    }

    /// The end mark (`None` while the run goes on) and whether the run was
    /// interrupted.
    pub fn ended(&self) -> Result<(Option<usize>, bool), DbError> {
        self.conn
            .query_row("SELECT ended, interrupted FROM run WHERE id = 1", [], |r| {
                Ok((r.get::<_, Option<i64>>(0)?, r.get::<_, i64>(1)?))
            })
            .map(|(e, i)| (e.map(|n| n as usize), i != 0))
            .map_err(sql(&self.path, "table `run`"))
    }

    /// How many results are stored.
    pub fn count(&self) -> Result<usize, DbError> {
        self.conn
            .query_row("SELECT count(*) FROM result", [], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .map_err(sql(&self.path, "table `result`"))
    }

    /// Every result, in the JSON report's order (case, then version), one at
    /// a time: nothing is held but the row being read.
    pub fn each_result<E: From<DbError>>(
        &self,
        f: impl FnMut(StoredResult) -> Result<(), E>,
    ) -> Result<(), E> {
        self.each_result_where(&Select::default(), f)
    }

    /// The results `select` picks, in its order, one at a time.
    pub fn each_result_where<E: From<DbError>>(
        &self,
        select: &Select,
        mut f: impl FnMut(StoredResult) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut clauses = Vec::new();
        let mut params: Vec<rusqlite::types::Value> = Vec::new();
        if let Some(verdicts) = &select.verdicts {
            clauses.push(format!(
                "r.verdict IN ({})",
                vec!["?"; verdicts.len()].join(",")
            ));
            params.extend(verdicts.iter().map(|v| v.clone().into()));
        }
        if let Some(ord) = select.case_ord {
            clauses.push("r.case_ord = ?".into());
            params.push((ord as i64).into());
        }
        let filter = if clauses.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", clauses.join(" AND "))
        };
        let order = if select.by_version {
            "r.version_ord, r.case_ord"
        } else {
            "r.case_ord, r.version_ord"
        };
        let at = || sql(&self.path, "table `result`");
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT c.name, r.route, r.version, r.verdict, bi.hash, bp.hash, bo.hash, be.hash, r.case_ord
                 FROM result r JOIN cases c ON c.ord = r.case_ord
                 JOIN blob bp ON bp.id = r.predicted
                 LEFT JOIN blob bi ON bi.id = c.input
                 LEFT JOIN blob bo ON bo.id = r.observed
                 LEFT JOIN blob be ON be.id = r.extra
                 {filter} ORDER BY {order}"
            ))
            .map_err(at())?;
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params))
            .map_err(at())?;
        let hash = |v: Option<Vec<u8>>| -> Result<Option<BlobHash>, DbError> {
            v.map(|b| {
                BlobHash::from_sql(&b)
                    .ok_or_else(|| self.bad(format!("a blob hash of {} bytes", b.len())))
            })
            .transpose()
        };
        while let Some(row) = rows.next().map_err(at())? {
            let get = |i: usize| -> Result<String, DbError> { row.get(i).map_err(at()) };
            let blob = |i: usize| -> Result<Option<Vec<u8>>, DbError> { row.get(i).map_err(at()) };
            let stored = StoredResult {
                case_ord: row.get::<_, i64>(8).map_err(at())? as usize,
                case: get(0)?,
                route: get(1)?,
                version: get(2)?,
                verdict: get(3)?,
                input: hash(blob(4)?)?,
                predicted: hash(blob(5)?)?
                    .ok_or_else(|| self.bad("a result without its prediction".into()))?,
                observed: hash(blob(6)?)?,
                extra: hash(blob(7)?)?,
            };
            f(stored)?;
        }
        Ok(())
    }

    /// How many results each version has of each verdict, versions in the
    /// report's order: `(version, verdict, count)`.
    pub fn verdict_counts(&self) -> Result<Vec<(String, String, usize)>, DbError> {
        let at = || sql(&self.path, "table `result`");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT version, verdict, count(*) FROM result
                 GROUP BY version_ord, version, verdict ORDER BY version_ord, verdict",
            )
            .map_err(at())?;
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as usize))
            })
            .map_err(at())?;
        rows.collect::<Result<_, _>>().map_err(at())
    }

    /// The versions on which some case ran (was observed), in the report's
    /// order.
    pub fn versions_observed(&self) -> Result<Vec<String>, DbError> {
        let at = || sql(&self.path, "table `result`");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT version FROM result WHERE observed IS NOT NULL
                 GROUP BY version_ord, version ORDER BY version_ord",
            )
            .map_err(at())?;
        let rows = stmt.query_map([], |r| r.get(0)).map_err(at())?;
        rows.collect::<Result<_, _>>().map_err(at())
    }

    /// Every case of the run: its place (`case_ord`) and its name.
    pub fn cases(&self) -> Result<Vec<(usize, String)>, DbError> {
        let at = || sql(&self.path, "table `cases`");
        let mut stmt = self
            .conn
            .prepare_cached("SELECT ord, name FROM cases ORDER BY ord")
            .map_err(at())?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, i64>(0)? as usize, r.get(1)?)))
            .map_err(at())?;
        rows.collect::<Result<_, _>>().map_err(at())
    }

    /// The JSON value stored under `hash`, or `None` when there is none.
    pub fn blob(&self, hash: &BlobHash) -> Result<Option<Json>, DbError> {
        let body: Option<Vec<u8>> = self
            .conn
            .prepare_cached("SELECT body FROM blob WHERE hash = ?1")
            .and_then(|mut s| s.query_row([&hash.0[..]], |r| r.get(0)).optional())
            .map_err(sql(&self.path, "table `blob`"))?;
        let Some(body) = body else { return Ok(None) };
        let text = unpack(&body).map_err(|e| self.bad(format!("blob {hash}: {e}")))?;
        Json::parse_document(&text)
            .map(Some)
            .map_err(|e| self.bad(format!("blob {hash}: {e}")))
    }

    fn need_blob(&self, hash: &BlobHash) -> Result<Json, DbError> {
        self.blob(hash)?
            .ok_or_else(|| self.bad(format!("blob {hash} is missing")))
    }

    /// One result as the JSON report writes it.
    pub fn result_json(&self, r: &StoredResult) -> Result<Json, DbError> {
        let mut members = vec![
            ("case".into(), Json::str(&r.case)),
            ("route".into(), Json::str(&r.route)),
            ("version".into(), Json::str(&r.version)),
            ("verdict".into(), Json::str(&r.verdict)),
            ("predicted".into(), self.need_blob(&r.predicted)?),
            (
                "observed".into(),
                match &r.observed {
                    Some(h) => self.need_blob(h)?,
                    None => Json::Null,
                },
            ),
        ];
        if let Some(h) = &r.extra {
            match self.need_blob(h)? {
                Json::Object(more) => members.extend(more),
                other => return Err(self.bad(format!("blob {h}: {}, not an object", other.kind()))),
            }
        }
        if let Some(h) = &r.input {
            members.push(("input".into(), self.need_blob(h)?));
        }
        Ok(Json::Object(members))
    }

    /// Every (case, version) of `old` and of `self` side by side, ordered
    /// by case name then version, with each side's verdict and the newer
    /// side's other members (for its diff): a merge of two sorted queries,
    /// so that comparing two nights holds one row of each, never a run.
    /// Pairs by name, not by place, since two runs' corpora may differ.
    pub fn each_pair_with<E: From<DbError>>(
        &self,
        old: &RunDb,
        mut f: impl FnMut(VerdictPair) -> Result<(), E>,
    ) -> Result<(), E> {
        const SIDE: &str = "SELECT c.name, r.version, r.verdict, be.hash
             FROM result r JOIN cases c ON c.ord = r.case_ord
             LEFT JOIN blob be ON be.id = r.extra
             ORDER BY c.name, r.version";
        type Side = (String, String, String, Option<Vec<u8>>);
        fn side(r: &rusqlite::Row) -> rusqlite::Result<Side> {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        }
        let (oat, nat) = (
            || sql(&old.path, "table `result`"),
            || sql(&self.path, "table `result`"),
        );
        let mut os = old.conn.prepare(SIDE).map_err(oat())?;
        let mut ns = self.conn.prepare(SIDE).map_err(nat())?;
        let mut orows = os.query_map([], side).map_err(oat())?;
        let mut nrows = ns.query_map([], side).map_err(nat())?;
        let mut o = orows.next().transpose().map_err(oat())?;
        let mut n = nrows.next().transpose().map_err(nat())?;
        loop {
            let order = match (&o, &n) {
                (None, None) => return Ok(()),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (Some(a), Some(b)) => (&a.0, &a.1).cmp(&(&b.0, &b.1)),
            };
            let take_old = order != std::cmp::Ordering::Greater;
            let take_new = order != std::cmp::Ordering::Less;
            let old_side = if take_old { o.take() } else { None };
            let new_side = if take_new { n.take() } else { None };
            let (case, version) = match (&old_side, &new_side) {
                (_, Some(b)) => (b.0.clone(), b.1.clone()),
                (Some(a), None) => (a.0.clone(), a.1.clone()),
                (None, None) => unreachable!("one side is taken"),
            };
            let new_extra = match new_side.as_ref().and_then(|b| b.3.as_deref()) {
                Some(b) => Some(
                    BlobHash::from_sql(b)
                        .ok_or_else(|| self.bad(format!("a blob hash of {} bytes", b.len())))?,
                ),
                None => None,
            };
            f(VerdictPair {
                case,
                version,
                old: old_side.map(|a| a.2),
                new: new_side.map(|b| b.2),
                new_extra,
            })?;
            if take_old {
                o = orows.next().transpose().map_err(oat())?;
            }
            if take_new {
                n = nrows.next().transpose().map_err(nat())?;
            }
        }
    }

    /// The distinct versions with a result, in the run's order.
    pub fn versions(&self) -> Result<Vec<String>, DbError> {
        let at = || sql(&self.path, "table `result`");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT version FROM result GROUP BY version_ord, version ORDER BY version_ord",
            )
            .map_err(at())?;
        let rows = stmt.query_map([], |r| r.get(0)).map_err(at())?;
        rows.collect::<Result<_, _>>().map_err(at())
    }

    /// Sizes, for `docs/` and the size test: bytes of the file, distinct
    /// stored values, results.
    pub fn sizes(&self) -> Result<(u64, usize, usize), DbError> {
        let bytes = std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0);
        let blobs: i64 = self
            .conn
            .query_row("SELECT count(*) FROM blob", [], |r| r.get(0))
            .map_err(sql(&self.path, "table `blob`"))?;
        Ok((bytes, blobs as usize, self.count()?))
    }
}
