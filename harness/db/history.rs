//! `History`: results across nights in one SQLite file
//! (`matrix --history FILE`).
//!
//! In: a finished run's database (`RunDb`). Out: one row of totals per
//! night (`night`), and, per case and version, only the nights where its
//! result changed (`change`: its verdict and its observation's hash), so the
//! file grows with what changes, not with nights; and `NightChanges`, what
//! changed since the previous night, which the summary leads with.
//!
//! A night is recorded in one `BEGIN IMMEDIATE` transaction: two runs
//! writing one history file at once take turns (each waits for the other's
//! lock), and a night that cannot be written whole (a full disk) leaves the
//! file as it was, with one error naming it.

use super::{sql, DbError, RunDb};
use rusqlite::{params, Connection};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS night (
    id INTEGER PRIMARY KEY,
    -- seconds since the Unix epoch
    at INTEGER NOT NULL,
    commit_id TEXT NOT NULL,
    results INTEGER NOT NULL,
    -- the run did not end, or was interrupted: its missing results are no change
    partial INTEGER NOT NULL,
    -- JSON: results per verdict
    totals TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS change (
    case_name TEXT NOT NULL,
    version TEXT NOT NULL,
    night INTEGER NOT NULL REFERENCES night(id),
    route TEXT NOT NULL,
    verdict TEXT NOT NULL,
    -- the observation's hash in the night's database; null when nothing ran
    observed TEXT,
    PRIMARY KEY (case_name, version, night)
) WITHOUT ROWID;
";

/// How long a run waits for another run's night to be written.
const WAIT: Duration = Duration::from_secs(600);

/// A result's state on a night: its verdict and its observation's hash.
pub type State = (String, Option<String>);

/// One result that differs from its last recorded state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub case: String,
    pub version: String,
    /// `None`: the first night it was seen.
    pub before: Option<State>,
    pub after: State,
}

/// What one night recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NightChanges {
    pub history: PathBuf,
    pub night: i64,
    /// The night before it in the file, if any.
    pub previous: Option<i64>,
    pub changes: Vec<Change>,
}

impl NightChanges {
    /// The summary's first lines: what changed since the previous night.
    /// A result whose verdict changed leads, those that became a
    /// divergence first; then tonight's flaky results, whose tries
    /// disagree, so their change says nothing yet; then, counted apart,
    /// those whose verdict stands but whose observation differs (every
    /// `nondeterministic` result, each night), which would otherwise bury
    /// the verdicts that moved.
    pub fn summary(&self, show: usize) -> String {
        use crate::judge::compare::Verdict;
        let Some(previous) = self.previous else {
            return format!(
                "history: night {} is the first in {} ({} results recorded)\n",
                self.night,
                self.history.display(),
                self.changes.len()
            );
        };
        let new = self.changes.iter().filter(|c| c.before.is_none()).count();
        let (mut changed, mut flaky, mut observed) = (Vec::new(), Vec::new(), Vec::new());
        for c in &self.changes {
            let Some((was, _)) = &c.before else { continue };
            if c.after.0 == Verdict::Flaky.name() {
                flaky.push((c, was));
            } else if *was != c.after.0 {
                changed.push((c, was));
            } else {
                observed.push(c);
            }
        }
        let divergence = |v: &str| Verdict::from_name(v).is_some_and(Verdict::is_divergence);
        // Stable: within each kind, in case order.
        changed.sort_by_key(|(c, _)| !divergence(&c.after.0));
        let mut out = format!(
            "since the previous night (night {previous} of {}): {} changed, {new} new{}{}\n",
            self.history.display(),
            changed.len(),
            match flaky.len() {
                0 => String::new(),
                n => format!(", {n} flaky"),
            },
            match observed.len() {
                0 => String::new(),
                n => format!(", {n} observed differently"),
            }
        );
        let more = |out: &mut String, n: usize, what: &str| {
            if n > show {
                out.push_str(&format!("  … and {} more{what}\n", n - show));
            }
        };
        for (c, was) in changed.iter().take(show) {
            out.push_str(&format!(
                "  {} on {}: {was} -> {}\n",
                c.case, c.version, c.after.0
            ));
        }
        more(&mut out, changed.len(), "");
        for (c, was) in flaky.iter().take(show) {
            out.push_str(&format!(
                "  flaky: {} on {}: {was} -> flaky (observed again, the tries disagree)\n",
                c.case, c.version
            ));
        }
        more(&mut out, flaky.len(), " flaky");
        for c in observed.iter().take(show) {
            out.push_str(&format!(
                "  {} on {}: {}, observed differently\n",
                c.case, c.version, c.after.0
            ));
        }
        more(&mut out, observed.len(), " observed differently");
        out
    }
}

/// Each (case, version)'s state on the last night it changed.
fn last_states(
    conn: &Connection,
    path: &Path,
) -> Result<HashMap<(String, String), State>, DbError> {
    let at = || sql(path, "cannot read table `change`");
    let mut last = HashMap::new();
    let mut stmt = conn
        .prepare(
            "SELECT case_name, version, verdict, observed FROM change ORDER BY case_name, version, night",
        )
        .map_err(at())?;
    let rows = stmt
        .query_map([], |r| Ok(((r.get(0)?, r.get(1)?), (r.get(2)?, r.get(3)?))))
        .map_err(at())?;
    for row in rows {
        let (key, state) = row.map_err(at())?;
        last.insert(key, state);
    }
    Ok(last)
}

/// A history file, open for recording.
pub struct History {
    conn: Connection,
    path: PathBuf,
}

impl History {
    /// Open `path`, creating it when it is not there.
    pub fn open(path: &Path) -> Result<History, DbError> {
        if path.exists() && !super::is_database(path) {
            return Err(DbError::Bad {
                why: "not a history database (no SQLite header)".into(),
                path: path.to_path_buf(),
            });
        }
        let conn = Connection::open(path).map_err(sql(path, "cannot open the history"))?;
        conn.busy_timeout(WAIT)
            .map_err(sql(path, "cannot set a lock timeout"))?;
        conn.execute_batch(SCHEMA)
            .map_err(sql(path, "cannot create the history's tables"))?;
        Ok(History {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Record the run `run` as the next night (at `at`, seconds since the
    /// epoch): its totals, and each result whose state differs from the
    /// last recorded one.
    pub fn record(&mut self, run: &RunDb, at: u64) -> Result<NightChanges, DbError> {
        let at_path = |what: &'static str| {
            let path = self.path.clone();
            move |source| DbError::Sql {
                path: path.clone(),
                what: what.to_string(),
                source,
            }
        };
        let info = run.run_info()?;
        let commit = info
            .get("commit")
            .and_then(crate::js::json::Json::as_str)
            .map(crate::js::string::JsString::to_lossy)
            .unwrap_or_default();
        let partial = run.partial()?.is_some() || run.ended()?.1;
        // The lock is taken before anything is read, so the state compared
        // against is the one the other run left.
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(at_path("cannot lock the history"))?;
        let previous: Option<i64> = tx
            .query_row("SELECT max(id) FROM night", [], |r| r.get(0))
            .map_err(at_path("cannot read table `night`"))?;
        let mut last = last_states(&tx, &self.path)?;
        tx.execute(
            "INSERT INTO night (at, commit_id, results, partial, totals) VALUES (?1, ?2, 0, ?3, '{}')",
            params![at as i64, commit, partial as i64],
        )
        .map_err(at_path("cannot write table `night`"))?;
        let night = tx.last_insert_rowid();
        let mut totals: BTreeMap<String, i64> = BTreeMap::new();
        let mut changes = Vec::new();
        let mut results = 0i64;
        {
            let mut insert = tx
                .prepare(
                    "INSERT INTO change (case_name, version, night, route, verdict, observed) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )
                .map_err(at_path("cannot write table `change`"))?;
            run.each_result(|r| {
                results += 1;
                *totals.entry(r.verdict.clone()).or_default() += 1;
                let state: State = (r.verdict.clone(), r.observed.map(|h| h.to_string()));
                let before = last.remove(&(r.case.clone(), r.version.clone()));
                if before.as_ref() != Some(&state) {
                    insert
                        .execute(params![r.case, r.version, night, r.route, state.0, state.1])
                        .map_err(at_path("cannot write table `change`"))?;
                    changes.push(Change {
                        case: r.case,
                        version: r.version,
                        before,
                        after: state,
                    });
                }
                Ok::<_, DbError>(())
            })?;
        }
        let totals_json = crate::js::json::Json::object(
            totals
                .iter()
                .map(|(k, n)| (k.as_str(), crate::js::json::Json::int(*n))),
        );
        tx.execute(
            "UPDATE night SET results = ?1, totals = ?2 WHERE id = ?3",
            params![results, totals_json.to_compact(), night],
        )
        .map_err(at_path("cannot write table `night`"))?;
        tx.commit()
            .map_err(at_path("cannot record the night; the history is as it was"))?;
        Ok(NightChanges {
            history: self.path.clone(),
            night,
            previous,
            changes,
        })
    }

    /// Each result's last recorded state, by (case, version): what a run
    /// is compared with to find what changed since the last night
    /// (`--recheck`).
    pub fn last_states(&self) -> Result<HashMap<(String, String), State>, DbError> {
        last_states(&self.conn, &self.path)
    }

    /// The nights recorded: id, results, totals (JSON).
    pub fn nights(&self) -> Result<Vec<(i64, i64, String)>, DbError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, results, totals FROM night ORDER BY id")
            .map_err(sql(&self.path, "cannot read table `night`"))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(sql(&self.path, "cannot read table `night`"))?;
        rows.collect::<Result<_, _>>()
            .map_err(sql(&self.path, "cannot read table `night`"))
    }

    /// One case's nights of change (its first night included), on every
    /// version: `(version, night, at, verdict)`, by version then night.
    pub fn case_history(&self, case: &str) -> Result<Vec<(String, i64, i64, String)>, DbError> {
        let at = || sql(&self.path, "cannot read table `change`");
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT c.version, c.night, n.at, c.verdict FROM change c
                 JOIN night n ON n.id = c.night WHERE c.case_name = ?1
                 ORDER BY c.version, c.night",
            )
            .map_err(at())?;
        let rows = stmt
            .query_map([case], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .map_err(at())?;
        rows.collect::<Result<_, _>>().map_err(at())
    }

    /// Rows of `change`: every night some result changed on.
    pub fn change_rows(&self) -> Result<usize, DbError> {
        self.conn
            .query_row("SELECT count(*) FROM change", [], |r| r.get::<_, i64>(0))
            .map(|n| n as usize)
            .map_err(sql(&self.path, "cannot read table `change`"))
    }

    #[cfg(test)]
    fn limit_pages(&self, pages: i64) {
        // SQLite's own limit on the file's size: past it, a write fails as
        // on a full disk (SQLITE_FULL).
        let _: i64 = self
            .conn
            .query_row(&format!("PRAGMA max_page_count = {pages}"), [], |r| {
                r.get(0)
            })
            .unwrap();
    }

    #[cfg(test)]
    fn pages(&self) -> i64 {
        self.conn
            .query_row("PRAGMA page_count", [], |r| r.get(0))
            .unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::super::write::DbWriter;
    use super::*;
    use crate::js::json::Json;

    /// A finished run of `cases` on 1.0.4, each with `verdict` and tools
    /// `[tool]`.
    fn night(dir: &Path, name: &str, rows: &[(&str, &str, &str)]) -> RunDb {
        let path = dir.join(name);
        let run = Json::object([
            ("commit", Json::str("abc")),
            ("versions", Json::Array(vec![Json::str("1.0.4")])),
        ]);
        let mut w = DbWriter::create(&path, &run).unwrap();
        for (i, (case, verdict, tool)) in rows.iter().enumerate() {
            let tools = Json::object([("tools", Json::Array(vec![Json::str(tool)]))]);
            w.add(
                Some(i),
                &Json::object([
                    ("case", Json::str(case)),
                    ("route", Json::str("openai")),
                    ("version", Json::str("1.0.4")),
                    ("verdict", Json::str(verdict)),
                    ("predicted", tools.clone()),
                    ("observed", tools),
                ]),
            )
            .unwrap();
        }
        w.finish(&run, false).unwrap();
        RunDb::open(&path).unwrap()
    }

    fn many(n: usize, tool: &str) -> Vec<(String, String, String)> {
        (0..n)
            .map(|i| {
                (
                    format!("cases/c{i}.json"),
                    "as-modelled".to_string(),
                    format!("{tool}{i}"),
                )
            })
            .collect()
    }

    fn refs(rows: &[(String, String, String)]) -> Vec<(&str, &str, &str)> {
        rows.iter()
            .map(|(c, v, t)| (c.as_str(), v.as_str(), t.as_str()))
            .collect()
    }

    #[test]
    fn two_nights_with_one_planted_change_name_exactly_that_change() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("history.sqlite");
        let first = [
            ("cases/a.json", "as-modelled", "a"),
            ("cases/b.json", "known-issue", "b"),
            ("cases/c.json", "as-modelled", "c"),
        ];
        let mut h = History::open(&file).unwrap();
        let one = h.record(&night(dir.path(), "1.sqlite", &first), 1).unwrap();
        assert_eq!((one.night, one.previous, one.changes.len()), (1, None, 3));
        assert!(
            one.summary(10).contains("is the first"),
            "{}",
            one.summary(10)
        );
        // The same night again: nothing changed, nothing written but totals.
        let two = h.record(&night(dir.path(), "2.sqlite", &first), 2).unwrap();
        assert_eq!((two.previous, two.changes.len()), (Some(1), 0));
        // One planted change: b's observation differs.
        let mut planted = first;
        planted[1] = ("cases/b.json", "diverged", "B");
        let three = h
            .record(&night(dir.path(), "3.sqlite", &planted), 3)
            .unwrap();
        assert_eq!(three.changes.len(), 1, "{:?}", three.changes);
        let text = three.summary(10);
        assert!(
            text.starts_with("since the previous night (night 2 of")
                && text.contains("1 changed, 0 new")
                && text.contains("cases/b.json on 1.0.4: known-issue -> diverged"),
            "{text}"
        );
        assert_eq!(text.lines().count(), 2, "only that change: {text}");
        assert_eq!(h.nights().unwrap().len(), 3, "one row of totals a night");
        assert_eq!(
            h.change_rows().unwrap(),
            4,
            "rows only for the nights a result changed"
        );
    }

    /// Results whose verdict stands but whose observation differs (a
    /// `nondeterministic` one, each night) come before, in case order, the
    /// one whose verdict moved; the summary leads with that one all the same,
    /// a divergence before a calm change, and counts the rest apart.
    #[test]
    fn the_summary_names_the_verdict_that_moved_first() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("history.sqlite");
        let first = [
            ("cases/a.json", "nondeterministic", "a"),
            ("cases/b.json", "nondeterministic", "b"),
            ("cases/c.json", "known-issue", "c"),
            ("cases/d.json", "as-modelled", "d"),
        ];
        let second = [
            ("cases/a.json", "nondeterministic", "A"),
            ("cases/b.json", "nondeterministic", "B"),
            ("cases/c.json", "as-modelled", "c"),
            ("cases/d.json", "diverged", "D"),
        ];
        let mut h = History::open(&file).unwrap();
        h.record(&night(dir.path(), "1.sqlite", &first), 1).unwrap();
        let two = h
            .record(&night(dir.path(), "2.sqlite", &second), 2)
            .unwrap();
        assert_eq!(two.changes.len(), 4);
        let text = two.summary(10);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].ends_with(": 2 changed, 0 new, 2 observed differently"),
            "{text}"
        );
        assert_eq!(
            lines[1..],
            [
                "  cases/d.json on 1.0.4: as-modelled -> diverged",
                "  cases/c.json on 1.0.4: known-issue -> as-modelled",
                "  cases/a.json on 1.0.4: nondeterministic, observed differently",
                "  cases/b.json on 1.0.4: nondeterministic, observed differently",
            ]
        );
        // Cut to one line of each kind, each cut says how many more.
        let cut = two.summary(1);
        assert!(cut.contains("  … and 1 more\n"), "{cut}");
        assert!(
            cut.contains("  … and 1 more observed differently\n"),
            "{cut}"
        );
        assert_eq!(cut.lines().count(), 5, "{cut}");
    }

    #[test]
    fn two_runs_recording_at_once_take_turns() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("history.sqlite");
        History::open(&file).unwrap();
        let nights: Vec<NightChanges> = std::thread::scope(|s| {
            let jobs: Vec<_> = [("a.sqlite", many(2000, "a")), ("b.sqlite", many(2000, "b"))]
                .into_iter()
                .map(|(name, rows)| {
                    let (dir, file) = (dir.path(), file.clone());
                    s.spawn(move || {
                        let run = night(dir, name, &refs(&rows));
                        History::open(&file).unwrap().record(&run, 1).unwrap()
                    })
                })
                .collect();
            jobs.into_iter().map(|j| j.join().unwrap()).collect()
        });
        let mut ids: Vec<i64> = nights.iter().map(|n| n.night).collect();
        ids.sort();
        assert_eq!(ids, [1, 2]);
        // Whichever went second saw the first's whole night: every result
        // changed, none was new.
        let second = nights.iter().find(|n| n.night == 2).unwrap();
        assert_eq!(second.previous, Some(1));
        assert!(
            second.changes.iter().all(|c| c.before.is_some()) && second.changes.len() == 2000,
            "{} changes",
            second.changes.len()
        );
    }

    #[test]
    fn a_full_disk_is_one_clear_error_and_the_history_is_intact() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("history.sqlite");
        let mut h = History::open(&file).unwrap();
        h.record(&night(dir.path(), "1.sqlite", &refs(&many(3, "x"))), 1)
            .unwrap();
        let run = night(dir.path(), "2.sqlite", &refs(&many(5000, "y")));
        h.limit_pages(h.pages() + 2);
        let e = h.record(&run, 2).unwrap_err().to_string();
        assert!(
            e.contains("history.sqlite") && e.contains("full"),
            "one error, naming the file and why: {e}"
        );
        drop(h);
        let h = History::open(&file).unwrap();
        assert_eq!(h.nights().unwrap().len(), 1, "the first night, whole");
        assert_eq!(h.change_rows().unwrap(), 3);
    }
}
