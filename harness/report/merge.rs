//! `merge`: the results of a sharded run's slices (their databases or JSON
//! reports), combined into the one run the unsharded run would have
//! written: its database, and every report format.
//!
//! In: shard databases or reports. Out: one report folder, or one error that says what
//! does not fit: reports of different harness commits, corpora or seeds are
//! never combined, and a missing slice (or one given twice) is named.
//! Databases are merged a result at a time, each case keeping its place in
//! the corpus (every slice ran the same one); JSON reports are read whole,
//! as their text is.

use crate::js::json::Json;
use crate::js::string::JsString;
use crate::run::shard::Shard;
use std::path::{Path, PathBuf};

/// One shard report as read.
pub struct ShardReport {
    pub path: PathBuf,
    pub run: Json,
    pub results: Results,
}

/// A slice's results: a database, read when the merge writes them, or a
/// JSON report's, read whole.
pub enum Results {
    Database(crate::db::RunDb),
    Loaded(Vec<Json>),
}

fn field(run: &Json, k: &str) -> String {
    run.get(k).map_or_else(String::new, |v| {
        v.as_str()
            .map_or_else(|| v.to_compact(), JsString::to_lossy)
    })
}

fn text(v: &Json, k: &str) -> String {
    v.get(k)
        .and_then(Json::as_str)
        .map(JsString::to_lossy)
        .unwrap_or_default()
}

/// Read one slice: its results database, JSON report or `results.jsonl`.
pub fn read(path: &Path) -> Result<ShardReport, String> {
    if crate::db::is_database(path) {
        let err = |e: crate::db::DbError| e.to_string();
        let db = crate::db::RunDb::open(path).map_err(err)?;
        if let Some(why) = db.partial().map_err(err)? {
            return Err(format!("{}: PARTIAL: {why}", path.display()));
        }
        return Ok(ShardReport {
            path: path.to_path_buf(),
            run: db.run_info().map_err(err)?,
            results: Results::Database(db),
        });
    }
    let body = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let v = Json::parse_document(&body)
        .map_err(|e| format!("{}: not valid JSON: {e}", path.display()))?;
    let run = v
        .get("run")
        .cloned()
        .ok_or_else(|| format!("{}: field `run`: missing", path.display()))?;
    let results = v
        .get("results")
        .and_then(Json::as_array)
        .ok_or_else(|| {
            format!(
                "{}: field `results`: missing or not an array",
                path.display()
            )
        })?
        .to_vec();
    Ok(ShardReport {
        path: path.to_path_buf(),
        run,
        results: Results::Loaded(results),
    })
}

/// Check that the reports are the N slices of one run; give the merged
/// run (the JSON report's `run` member).
pub fn merged_run(reports: &[ShardReport]) -> Result<Json, String> {
    let first = reports.first().ok_or("no report to merge")?;
    for key in ["commit", "corpus", "seed"] {
        let want = field(&first.run, key);
        for r in &reports[1..] {
            let got = field(&r.run, key);
            if got != want {
                return Err(format!(
                    "{} and {} come from different runs: field `run.{key}` is {want:?} in one and {got:?} in the other",
                    first.path.display(),
                    r.path.display()
                ));
            }
        }
    }
    let mut shards: Vec<(Shard, &Path)> = Vec::new();
    for r in reports {
        let s = field(&r.run, "shard");
        let shard = s.parse::<Shard>().map_err(|_| {
            format!(
                "{}: field `run.shard`: {s:?} is not a slice K/N (was it run with --shard?)",
                r.path.display()
            )
        })?;
        shards.push((shard, &r.path));
    }
    let count = shards[0].0.count;
    if let Some((s, p)) = shards.iter().find(|(s, _)| s.count != count) {
        return Err(format!("{}: slice {s} is not one of {count}", p.display()));
    }
    for k in 1..=count {
        let holders: Vec<String> = shards
            .iter()
            .filter(|(s, _)| s.index == k)
            .map(|(_, p)| p.display().to_string())
            .collect();
        match holders.len() {
            0 => return Err(format!("slice {k}/{count} is missing")),
            1 => {}
            _ => {
                return Err(format!(
                    "slice {k}/{count} is given twice: {}",
                    holders.join(", ")
                ))
            }
        }
    }

    // The run: the first slice's, with the versions and costs of all.
    let mut versions: Vec<Json> = Vec::new();
    let mut stats: Vec<Json> = Vec::new();
    let mut interrupted = false;
    for r in reports {
        for v in r
            .run
            .get("versions")
            .and_then(Json::as_array)
            .unwrap_or_default()
        {
            if !versions.contains(v) {
                versions.push(v.clone());
            }
        }
        stats.extend(
            r.run
                .get("stats")
                .and_then(Json::as_array)
                .unwrap_or_default()
                .iter()
                .cloned(),
        );
        interrupted |= r
            .run
            .get("interrupted")
            .and_then(Json::as_bool)
            .unwrap_or(false);
    }
    let mut run: Vec<(JsString, Json)> = first
        .run
        .members()
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (k, v) in run.iter_mut() {
        match k.to_lossy().as_str() {
            "versions" => *v = Json::Array(versions.clone()),
            "stats" => *v = Json::Array(stats.clone()),
            "interrupted" => *v = Json::Bool(interrupted),
            "shard" => *v = Json::str(&format!("merged from {count} slices")),
            _ => {}
        }
    }
    Ok(Json::Object(run))
}

/// Write the slices' results into a new database at `path` for the merged
/// run `run`; give the number of results. Either every slice is a database
/// or none is: a database's cases keep their places in the corpus, which a
/// JSON report's rows do not carry.
pub fn write(reports: &[ShardReport], run: &Json, path: &Path) -> Result<usize, String> {
    use crate::db::write::DbWriter;
    use crate::db::DbError;
    let databases = reports
        .iter()
        .filter(|r| matches!(r.results, Results::Database(_)))
        .count();
    if databases != 0 && databases != reports.len() {
        let odd = reports
            .iter()
            .find(|r| matches!(r.results, Results::Loaded(_)))
            .map_or_else(String::new, |r| r.path.display().to_string());
        return Err(format!(
            "{odd}: a JSON report among results databases: merge the slices' results.sqlite files, or all their reports"
        ));
    }
    let twice = |e: DbError| match e {
        DbError::Twice { case, version, .. } => {
            format!("{case} on {version} appears in two slices")
        }
        e => e.to_string(),
    };
    let mut db = DbWriter::create(path, run).map_err(|e| e.to_string())?;
    let interrupted = run
        .get("interrupted")
        .and_then(Json::as_bool)
        .unwrap_or(false);
    for r in reports {
        match &r.results {
            Results::Database(slice) => slice
                .each_result(|stored| db.add(Some(stored.case_ord), &slice.result_json(&stored)?))
                .map_err(twice)?,
            Results::Loaded(_) => {}
        }
    }
    for result in loaded_in_order(reports, run)? {
        db.add(None, result).map_err(twice)?;
    }
    db.finish(run, interrupted).map_err(|e| e.to_string())
}

/// The JSON reports' results, in the unsharded run's order (case, then
/// version as the run lists them); a (case, version) in two is refused.
fn loaded_in_order<'a>(reports: &'a [ShardReport], run: &Json) -> Result<Vec<&'a Json>, String> {
    let versions = run
        .get("versions")
        .and_then(Json::as_array)
        .unwrap_or_default();
    let rank = |v: &str| {
        versions
            .iter()
            .position(|x| x.as_str().is_some_and(|s| s.to_lossy() == v))
    };
    let mut results: Vec<&Json> = reports
        .iter()
        .flat_map(|r| match &r.results {
            Results::Loaded(rows) => rows.iter().collect(),
            Results::Database(_) => Vec::new(),
        })
        .collect();
    results.sort_by_key(|r| (text(r, "case"), rank(&text(r, "version"))));
    if let Some(w) = results.windows(2).find(|w| {
        text(w[0], "case") == text(w[1], "case") && text(w[0], "version") == text(w[1], "version")
    }) {
        return Err(format!(
            "{} on {} appears in two slices",
            text(w[0], "case"),
            text(w[0], "version")
        ));
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slice `k` of `n` of one run, holding the given (case, version) rows.
    fn slice(k: u32, n: u32, commit: &str, rows: &[(&str, &str)]) -> ShardReport {
        let results = rows
            .iter()
            .map(|(case, version)| {
                Json::object([
                    ("case", Json::str(case)),
                    ("version", Json::str(version)),
                    ("verdict", Json::str("as-modelled")),
                ])
            })
            .collect();
        let run = Json::object([
            ("commit", Json::str(commit)),
            ("corpus", Json::str("c0ffee")),
            ("seed", Json::Null),
            ("shard", Json::str(&format!("{k}/{n}"))),
            (
                "versions",
                Json::Array(rows.iter().map(|(_, v)| Json::str(v)).collect()),
            ),
            ("stats", Json::Array(Vec::new())),
            ("interrupted", Json::Bool(k == 2)),
        ]);
        ShardReport {
            path: PathBuf::from(format!("slice-{k}.json")),
            run,
            results: Results::Loaded(results),
        }
    }

    /// Merge into a database in a temporary folder; its run and its results
    /// as (case, version).
    fn merged(reports: &[ShardReport]) -> Result<(Json, Vec<(String, String)>), String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("merged.sqlite");
        let run = merged_run(reports)?;
        write(reports, &run, &path)?;
        let db = crate::db::RunDb::open(&path).unwrap();
        let mut rows = Vec::new();
        db.each_result(|r| {
            rows.push((r.case, r.version));
            Ok::<_, crate::db::DbError>(())
        })
        .unwrap();
        Ok((db.run_info().unwrap(), rows))
    }

    /// Slice `k` of `n` as a database in `dir`, its cases at the corpus
    /// places `ords`.
    fn slice_db(dir: &Path, k: u32, n: u32, rows: &[(usize, &str, &str)]) -> ShardReport {
        use crate::db::write::DbWriter;
        let s = slice(
            k,
            n,
            "abc",
            &rows.iter().map(|(_, c, v)| (*c, *v)).collect::<Vec<_>>(),
        );
        let path = dir.join(format!("slice-{k}.sqlite"));
        let mut w = DbWriter::create(&path, &s.run).unwrap();
        for (ord, case, version) in rows {
            let result = Json::object([
                ("case", Json::str(case)),
                ("route", Json::str("openai")),
                ("version", Json::str(version)),
                ("verdict", Json::str("as-modelled")),
                ("predicted", Json::Object(Vec::new())),
                ("observed", Json::Null),
            ]);
            w.add(Some(*ord), &result).unwrap();
        }
        w.finish(&s.run, false).unwrap();
        read(&path).unwrap()
    }

    #[test]
    fn slices_merge_into_one_run_in_case_order() {
        let (run, rows) = merged(&[
            slice(2, 2, "abc", &[("cases/b.json", "1.67.0")]),
            slice(1, 2, "abc", &[("cases/a.json", "1.0.4")]),
        ])
        .unwrap();
        let cases: Vec<&str> = rows.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(cases, ["cases/a.json", "cases/b.json"]);
        assert_eq!(
            run.get("versions")
                .and_then(Json::as_array)
                .map(<[Json]>::len),
            Some(2)
        );
        assert_eq!(
            run.get("interrupted").and_then(Json::as_bool),
            Some(true),
            "one interrupted slice makes the whole run interrupted"
        );
        assert_eq!(field(&run, "shard"), "merged from 2 slices");
    }

    #[test]
    fn database_slices_keep_each_case_at_its_place_in_the_corpus() {
        let dir = tempfile::tempdir().unwrap();
        // Slice 2 holds the corpus's first case: the merge lists it first,
        // as the unsharded run would, whatever order the slices come in.
        let one = slice_db(
            dir.path(),
            1,
            2,
            &[(1, "cases/z.json", "1.0.4"), (2, "cases/b.json", "1.0.4")],
        );
        let two = slice_db(
            dir.path(),
            2,
            2,
            &[(0, "cases/y.json", "1.67.0"), (1, "cases/z.json", "1.67.0")],
        );
        let (_, rows) = merged(&[one, two]).unwrap();
        let rows: Vec<(&str, &str)> = rows.iter().map(|(c, v)| (c.as_str(), v.as_str())).collect();
        assert_eq!(
            rows,
            [
                ("cases/y.json", "1.67.0"),
                ("cases/z.json", "1.0.4"),
                ("cases/z.json", "1.67.0"),
                ("cases/b.json", "1.0.4")
            ]
        );
        let one = slice_db(dir.path(), 1, 2, &[(0, "cases/a.json", "1.0.4")]);
        let two = slice_db(dir.path(), 2, 2, &[(0, "cases/a.json", "1.0.4")]);
        let e = merged(&[one, two]).unwrap_err();
        assert_eq!(e, "cases/a.json on 1.0.4 appears in two slices");
        let one = slice_db(dir.path(), 1, 2, &[(0, "cases/a.json", "1.0.4")]);
        let e = merged(&[one, slice(2, 2, "abc", &[("cases/b.json", "1.0.4")])]).unwrap_err();
        assert!(
            e.starts_with("slice-2.json: a JSON report among results databases"),
            "{e}"
        );
    }

    #[test]
    fn a_slice_is_read_from_its_database_and_refused_while_partial() {
        use crate::db::write::DbWriter;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.sqlite");
        let s = slice(1, 2, "abc", &[("cases/a.json", "1.0.4")]);
        let mut w = DbWriter::create(&path, &s.run).unwrap();
        let result = Json::object([
            ("case", Json::str("cases/a.json")),
            ("route", Json::str("openai")),
            ("version", Json::str("1.0.4")),
            ("verdict", Json::str("as-modelled")),
            (
                "predicted",
                Json::object([("tools", Json::Array(Vec::new()))]),
            ),
            ("observed", Json::Null),
        ]);
        w.add(Some(0), &result).unwrap();
        let e = read(&path).err().unwrap();
        assert!(e.contains("PARTIAL") && e.contains("results.sqlite"), "{e}");
        w.finish(&s.run, false).unwrap();
        let read = read(&path).unwrap();
        let Results::Database(db) = &read.results else {
            panic!("a database is read as one")
        };
        let mut results = Vec::new();
        db.each_result(|r| {
            results.push(db.result_json(&r)?);
            Ok::<_, crate::db::DbError>(())
        })
        .unwrap();
        assert_eq!(results, [result]);
        assert_eq!(field(&read.run, "shard"), "1/2");
    }

    #[test]
    fn slices_of_different_runs_or_missing_slices_are_refused() {
        let e = merged(&[
            slice(1, 2, "abc", &[("cases/a.json", "1.0.4")]),
            slice(2, 2, "def", &[("cases/b.json", "1.0.4")]),
        ])
        .unwrap_err();
        assert!(e.contains("run.commit"), "{e}");
        let e = merged(&[slice(1, 3, "abc", &[("cases/a.json", "1.0.4")])]).unwrap_err();
        assert!(e.contains("slice 2/3 is missing"), "{e}");
        let e = merged(&[
            slice(1, 2, "abc", &[("cases/a.json", "1.0.4")]),
            slice(1, 2, "abc", &[("cases/b.json", "1.0.4")]),
        ])
        .unwrap_err();
        assert!(e.contains("given twice"), "{e}");
        let e = merged(&[
            slice(1, 2, "abc", &[("cases/a.json", "1.0.4")]),
            slice(2, 2, "abc", &[("cases/a.json", "1.0.4")]),
        ])
        .unwrap_err();
        assert!(e.contains("appears in two slices"), "{e}");
    }
}
