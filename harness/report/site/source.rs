//! `SiteSource`: what the site is rendered from, one result at a time, each
//! case file's results together and case files in byte order of their paths.
//!
//! In: a run's header (`run`, as the JSON report writes it) and its results
//! as report rows. Out: the rows, in that order. `DocSource` serves a
//! `ReportDoc` (`report.json`, `results.jsonl`) sorted into that order; a
//! results database serves the same order from a query, so the renderer
//! never holds more than one case's results.

use crate::js::json::Json;
use crate::report::doc::{ReportDoc, Row};
use crate::route::Route;

/// Results for the site, each case file's together (every route and
/// version of it), case files in byte order of their paths (`case_path`).
/// The order lets the renderer write a case's files the moment its last
/// result has arrived and walk a previous night's results beside this
/// night's.
pub trait SiteSource {
    /// The run's header, as the JSON report's `run` member.
    fn run(&self) -> &Json;
    /// Why the results are not a whole run (a killed run), or `None`.
    fn incomplete(&self) -> Option<String>;
    /// The next result, or `None` after the last.
    fn next_row(&mut self) -> Result<Option<Row>, String>;
}

/// A case's name split into its file and its route: a case on any route but
/// the default is named `PATH@ROUTE`.
pub fn case_path(name: &str) -> (&str, Route) {
    match name.rsplit_once('@') {
        Some((path, route)) => match Route::parse(route) {
            Some(r) => (path, r),
            None => (name, Route::default()),
        },
        None => (name, Route::default()),
    }
}

/// A report document's results in the site's order, each cloned as it is
/// asked for.
pub struct DocSource<'a> {
    doc: &'a ReportDoc,
    order: std::vec::IntoIter<&'a Row>,
}

impl<'a> DocSource<'a> {
    pub fn new(doc: &'a ReportDoc) -> DocSource<'a> {
        let mut order: Vec<&Row> = doc.rows.iter().collect();
        // Stable: within a case file, the results keep the report's order.
        order.sort_by(|a, b| case_path(&a.case).0.cmp(case_path(&b.case).0));
        DocSource {
            doc,
            order: order.into_iter(),
        }
    }
}

impl SiteSource for DocSource<'_> {
    fn run(&self) -> &Json {
        &self.doc.run
    }

    fn incomplete(&self) -> Option<String> {
        self.doc.incomplete()
    }

    fn next_row(&mut self) -> Result<Option<Row>, String> {
        Ok(self.order.next().cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_route_suffix_is_split_off_only_when_it_names_a_route() {
        assert_eq!(
            case_path("cases/a.json@anthropic"),
            ("cases/a.json", Route::Anthropic)
        );
        assert_eq!(
            case_path("cases/a.json"),
            ("cases/a.json", Route::default())
        );
        assert_eq!(
            case_path("cases/a@b.json"),
            ("cases/a@b.json", Route::default())
        );
    }

    #[test]
    fn a_document_comes_out_grouped_by_case_file() {
        let doc = ReportDoc::parse(
            r#"{"run":{"versions":["1.0.4","1.67.0"]},"results":[
              {"case":"cases/b.json","version":"1.0.4","verdict":"as-modelled"},
              {"case":"cases/a.json","version":"1.0.4","verdict":"as-modelled"},
              {"case":"cases/a.json2.json","version":"1.0.4","verdict":"as-modelled"},
              {"case":"cases/a.json@groq","version":"1.0.4","verdict":"as-modelled"},
              {"case":"cases/a.json","version":"1.67.0","verdict":"diverged"}]}"#,
        )
        .unwrap();
        let mut s = DocSource::new(&doc);
        let mut names = Vec::new();
        while let Some(r) = s.next_row().unwrap() {
            names.push(format!("{}@{}", r.case, r.version));
        }
        assert_eq!(
            names,
            [
                "cases/a.json@1.0.4",
                "cases/a.json@groq@1.0.4",
                "cases/a.json@1.67.0",
                "cases/a.json2.json@1.0.4",
                "cases/b.json@1.0.4"
            ]
        );
    }
}
