//! `ReportSource`: what every rendering reads a run from, by query, one
//! result at a time. `DbReport` answers from a results database; a
//! `ReportDoc` (a JSON report or JSONL read whole, or a test's sample)
//! answers from memory. Renderers keep counts and the few rows they list,
//! never every result.
//!
//! In: a database or a document. Out: the run's header, whether it is
//! whole, its versions, verdict counts per version, and rows picked by
//! verdict in the report's order or by version.

use crate::db::{DbError, RunDb, Select};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::judge::compare::Verdict;
use crate::report::doc::{ReportDoc, Row};
use crate::report::site::{case_path, SiteSource};
use std::collections::VecDeque;
use std::path::Path;

/// Which results a pass reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    All,
    /// Divergences (`Verdict::is_divergence`).
    Divergent,
    /// Infrastructure outcomes.
    Infrastructure,
    One(Verdict),
}

impl Which {
    fn verdicts(self) -> Option<Vec<Verdict>> {
        let pick = |f: fn(&Verdict) -> bool| Some(Verdict::ALL.into_iter().filter(f).collect());
        match self {
            Which::All => None,
            Which::Divergent => pick(|v| v.is_divergence()),
            Which::Infrastructure => pick(|v| v.is_infrastructure()),
            Which::One(v) => Some(vec![v]),
        }
    }

    fn holds(self, v: Verdict) -> bool {
        self.verdicts().is_none_or(|vs| vs.contains(&v))
    }
}

/// How a pass orders its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Case, then version: the JSON report's order.
    Report,
    /// Version (in the run's order), then case.
    ByVersion,
}

/// A pass's callback: each row, by reference.
pub type EachRow<'a> = dyn FnMut(&Row) -> Result<(), String> + 'a;

/// A run's results as the renderers read them.
pub trait ReportSource {
    /// The run's header, `interrupted` as the end mark says.
    fn run(&self) -> &Json;
    /// Why the results are not the whole run, or `None`.
    fn incomplete(&self) -> Option<String>;
    /// `(version, verdict, count)`, versions in the run's order.
    fn counts(&self) -> Result<Vec<(String, Verdict, usize)>, String>;
    /// The versions on which some case was observed, in the run's order.
    fn versions_observed(&self) -> Result<Vec<String>, String>;
    /// Each row `which` picks, in `order`. `full` reads the prediction,
    /// the observation and the input too; without it they are null.
    fn each(&self, which: Which, order: Order, full: bool, f: &mut EachRow) -> Result<(), String>;

    /// The versions: the run's list, then any other a result names.
    fn versions(&self) -> Result<Vec<String>, String> {
        let mut out = listed_versions(self.run());
        for (v, _, _) in self.counts()? {
            if !out.contains(&v) {
                out.push(v);
            }
        }
        Ok(out)
    }

    /// How many results there are.
    fn total(&self) -> Result<usize, String> {
        Ok(self.counts()?.iter().map(|(_, _, n)| n).sum())
    }

    /// The one-line description of the run (`ReportDoc::run_line`'s).
    fn run_line(&self) -> Result<String, String> {
        Ok(crate::report::doc::run_line(
            self.run(),
            self.versions()?.len(),
            self.total()?,
            self.incomplete(),
        ))
    }
}

/// `run.versions` as text.
fn listed_versions(run: &Json) -> Vec<String> {
    run.get("versions")
        .and_then(Json::as_array)
        .unwrap_or_default()
        .iter()
        .filter_map(|v| v.as_str().map(JsString::to_lossy))
        .collect()
}

impl ReportSource for ReportDoc {
    fn run(&self) -> &Json {
        &self.run
    }

    fn incomplete(&self) -> Option<String> {
        ReportDoc::incomplete(self)
    }

    fn counts(&self) -> Result<Vec<(String, Verdict, usize)>, String> {
        let mut out = Vec::new();
        for version in ReportDoc::versions(self) {
            for v in Verdict::ALL {
                let n = self
                    .rows
                    .iter()
                    .filter(|r| r.version == version && r.verdict == v)
                    .count();
                if n > 0 {
                    out.push((version.clone(), v, n));
                }
            }
        }
        Ok(out)
    }

    fn versions_observed(&self) -> Result<Vec<String>, String> {
        Ok(ReportDoc::versions(self)
            .into_iter()
            .filter(|v| {
                self.rows
                    .iter()
                    .any(|r| r.version == *v && !r.observed.is_null())
            })
            .collect())
    }

    fn each(&self, which: Which, order: Order, _: bool, f: &mut EachRow) -> Result<(), String> {
        let picked = |r: &&Row| which.holds(r.verdict);
        match order {
            Order::Report => self.rows.iter().filter(picked).try_for_each(f),
            Order::ByVersion => ReportDoc::versions(self).iter().try_for_each(|v| {
                self.rows
                    .iter()
                    .filter(picked)
                    .filter(|r| r.version == *v)
                    .try_for_each(&mut *f)
            }),
        }
    }
}

/// A results database as a `ReportSource`.
pub struct DbReport {
    db: RunDb,
    run: Json,
    partial: Option<String>,
}

impl DbReport {
    pub fn open(path: &Path) -> Result<DbReport, String> {
        let db = RunDb::open(path).map_err(|e| e.to_string())?;
        DbReport::of(db).map_err(|e| e.to_string())
    }

    pub fn of(db: RunDb) -> Result<DbReport, DbError> {
        let mut run = db.run_info()?;
        if let (true, Json::Object(members)) = (db.ended()?.1, &mut run) {
            members.retain(|(k, _)| *k != JsString::from("interrupted"));
            members.push(("interrupted".into(), Json::Bool(true)));
        }
        let partial = db.partial()?;
        Ok(DbReport { db, run, partial })
    }

    pub fn db(&self) -> &RunDb {
        &self.db
    }

    /// One stored result as a row; `full` reads its heavy parts too.
    fn row(&self, r: &crate::db::StoredResult, full: bool) -> Result<Row, String> {
        let err = |e: DbError| e.to_string();
        let mut members = vec![
            ("case".into(), Json::str(&r.case)),
            ("version".into(), Json::str(&r.version)),
            ("verdict".into(), Json::str(&r.verdict)),
        ];
        if let Some(h) = &r.extra {
            match self.db.blob(h).map_err(err)? {
                Some(Json::Object(more)) => members.extend(more),
                _ => {
                    return Err(self
                        .db
                        .bad(format!("blob {h}: missing or no object"))
                        .to_string())
                }
            }
        }
        if full {
            let value = |h: &crate::db::BlobHash| -> Result<Json, String> {
                self.db
                    .blob(h)
                    .map_err(err)?
                    .ok_or_else(|| self.db.bad(format!("blob {h} is missing")).to_string())
            };
            members.push(("predicted".into(), value(&r.predicted)?));
            if let Some(h) = &r.observed {
                members.push(("observed".into(), value(h)?));
            }
            if let Some(h) = &r.input {
                members.push(("input".into(), value(h)?));
            }
        } else if r.observed.is_some() {
            // Whether the case ran is all a light row says of its observation.
            members.push(("observed".into(), Json::Bool(true)));
        }
        Row::from_json(&Json::Object(members))
            .map_err(|e| format!("{} on {}: {e}", r.case, r.version))
    }
}

impl ReportSource for DbReport {
    fn run(&self) -> &Json {
        &self.run
    }

    fn incomplete(&self) -> Option<String> {
        let interrupted = self.run.get("interrupted").and_then(Json::as_bool) == Some(true);
        match (&self.partial, interrupted) {
            (Some(why), _) => Some(format!("PARTIAL: {why}")),
            (None, true) => Some("INTERRUPTED (partial)".into()),
            (None, false) => None,
        }
    }

    fn counts(&self) -> Result<Vec<(String, Verdict, usize)>, String> {
        let rows = self.db.verdict_counts().map_err(|e| e.to_string())?;
        rows.into_iter()
            .map(|(version, verdict, n)| {
                let v = Verdict::from_name(&verdict).ok_or_else(|| {
                    self.db
                        .bad(format!("unknown verdict {verdict:?}"))
                        .to_string()
                })?;
                Ok((version, v, n))
            })
            .collect()
    }

    fn versions_observed(&self) -> Result<Vec<String>, String> {
        self.db.versions_observed().map_err(|e| e.to_string())
    }

    fn each(&self, which: Which, order: Order, full: bool, f: &mut EachRow) -> Result<(), String> {
        let select = Select {
            verdicts: which
                .verdicts()
                .map(|vs| vs.iter().map(|v| v.name().to_string()).collect()),
            case_ord: None,
            by_version: order == Order::ByVersion,
        };
        self.db
            .each_result_where(&select, |r| f(&self.row(&r, full)?))
    }
}

/// A results database's rows in the site's order (case files in byte order
/// of their paths, each file's cases in the run's order), one case's results
/// read at a time.
pub struct DbSiteSource<'a> {
    report: &'a DbReport,
    cases: std::vec::IntoIter<usize>,
    buffered: VecDeque<Row>,
}

impl<'a> DbSiteSource<'a> {
    pub fn new(report: &'a DbReport) -> Result<DbSiteSource<'a>, String> {
        let mut cases = report.db.cases().map_err(|e| e.to_string())?;
        // Stable: within a case file, its cases keep the run's order.
        cases.sort_by(|a, b| case_path(&a.1).0.cmp(case_path(&b.1).0));
        Ok(DbSiteSource {
            report,
            cases: cases
                .into_iter()
                .map(|(ord, _)| ord)
                .collect::<Vec<_>>()
                .into_iter(),
            buffered: VecDeque::new(),
        })
    }
}

impl SiteSource for DbSiteSource<'_> {
    fn run(&self) -> &Json {
        &self.report.run
    }

    fn incomplete(&self) -> Option<String> {
        ReportSource::incomplete(self.report)
    }

    fn next_row(&mut self) -> Result<Option<Row>, String> {
        while self.buffered.is_empty() {
            let Some(ord) = self.cases.next() else {
                return Ok(None);
            };
            let select = Select {
                case_ord: Some(ord),
                ..Select::default()
            };
            let report = self.report;
            let buffered = &mut self.buffered;
            report.db.each_result_where(&select, |r| {
                buffered.push_back(report.row(&r, true)?);
                Ok::<_, String>(())
            })?;
        }
        Ok(self.buffered.pop_front())
    }
}

impl From<DbError> for String {
    fn from(e: DbError) -> String {
        e.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::write::DbWriter;
    use crate::report::doc::tests::sample;
    use crate::report::{junit, markdown};

    /// The sample report stored in a database, in completion order (not the
    /// report's), as a run stores it.
    fn stored(dir: &Path) -> DbReport {
        let doc = sample();
        let path = dir.join("results.sqlite");
        let mut w = DbWriter::create(&path, &doc.run).unwrap();
        let text = r#"[
            {"case":"cases/b<c>.json","version":"1.67.0","verdict":"install-failed","predicted":{},"observed":null,"detail":"npm failed"},
            {"case":"cases/a.json","version":"1.67.0","verdict":"diverged","predicted":{"x":1},"observed":{"x":2},"diff":"-x 1\n+x 2\n"},
            {"case":"cases/a.json","version":"1.0.4","verdict":"as-modelled","predicted":{},"observed":{}},
            {"case":"cases/b<c>.json","version":"1.0.4","verdict":"known-issue","predicted":{},"observed":{},
             "knownIssue":{"id":"toolchoice-not-rewritten","state":"present"},"providerRejects":["request 1: tool_choice names \"search.web\""]}
        ]"#;
        let rows = Json::parse_document(text).unwrap();
        for r in rows.as_array().unwrap() {
            let ord =
                usize::from(r.get("case").unwrap().as_str().unwrap().to_lossy() != "cases/a.json");
            w.add(Some(ord), r).unwrap();
        }
        w.finish(&doc.run, false).unwrap();
        DbReport::open(&path).unwrap()
    }

    #[test]
    fn renderings_from_the_database_are_those_of_the_document_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let db = stored(dir.path());
        let doc = sample();
        let mut xml = Vec::new();
        junit::write(&db, &mut |name: &str, text: &[u8]| {
            xml.push((name.to_string(), String::from_utf8(text.to_vec()).unwrap()));
            Ok(())
        })
        .unwrap();
        assert_eq!(xml, junit::render(&doc));
        let mut md = Vec::new();
        markdown::write(&db, &mut md).unwrap();
        assert_eq!(String::from_utf8(md).unwrap(), markdown::render(&doc));
        assert_eq!(db.counts().unwrap(), doc.counts().unwrap());
        assert_eq!(db.versions_observed().unwrap(), ["1.0.4", "1.67.0"]);
        let security = |_: &str| false;
        assert_eq!(
            crate::report::html::render(&db, &security).unwrap(),
            crate::report::html::render(&doc, &security).unwrap()
        );
    }

    #[test]
    fn the_sites_rows_from_the_database_are_the_documents() {
        let dir = tempfile::tempdir().unwrap();
        let db = stored(dir.path());
        let doc = ReportDoc::from_db(db.db()).unwrap();
        let mut from_db = DbSiteSource::new(&db).unwrap();
        let mut from_doc = crate::report::site::DocSource::new(&doc);
        let mut n = 0;
        loop {
            let (a, b) = (from_db.next_row().unwrap(), from_doc.next_row().unwrap());
            assert_eq!(a, b, "row {n}");
            if a.is_none() {
                break;
            }
            n += 1;
        }
        assert_eq!(n, 4);
        assert_eq!(from_db.run(), from_doc.run());
    }

    #[test]
    fn a_pass_picks_by_verdict_and_orders_by_version() {
        let dir = tempfile::tempdir().unwrap();
        let db = stored(dir.path());
        for src in [&db as &dyn ReportSource, &sample()] {
            let mut seen = Vec::new();
            src.each(Which::All, Order::ByVersion, false, &mut |r| {
                seen.push(format!("{}@{}", r.case, r.version));
                Ok(())
            })
            .unwrap();
            assert_eq!(
                seen,
                [
                    "cases/a.json@1.0.4",
                    "cases/b<c>.json@1.0.4",
                    "cases/a.json@1.67.0",
                    "cases/b<c>.json@1.67.0"
                ]
            );
            let mut infra = Vec::new();
            src.each(Which::Infrastructure, Order::Report, false, &mut |r| {
                infra.push(r.detail.clone().unwrap());
                Ok(())
            })
            .unwrap();
            assert_eq!(infra, ["npm failed"]);
        }
    }
}
