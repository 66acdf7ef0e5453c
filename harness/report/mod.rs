//! `Report`: the results of a run, rendered for people (the terminal
//! summary) and for scripts (JSON, `docs/case-format.md`).
//!
//! In: `CaseResult`s and what the run was (`RunInfo`). Out: text and files.
//! A report file is written to a temporary file beside it and renamed into
//! place, so a reader never sees half of one.

pub mod changes;
pub mod doc;
pub mod html;
pub mod junit;
pub mod markdown;
pub mod merge;
pub mod query;
pub mod repro;
pub mod site;

use crate::js::json::Json;
use crate::judge::case_result::CaseResult;
use crate::judge::compare::{comparable, diff, Verdict};
use crate::model::Prediction;
use crate::observation::Observed;
use crate::outcome::Failure;
use crate::report::doc::Row;
use crate::report::query::{Order, ReportSource, Which};
use crate::results::info::RunInfo;
use crate::version::spec::MastraVersion;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// One result as the JSON report writes it.
pub fn result_json(r: &CaseResult) -> Json {
    let mut members = vec![
        ("case", Json::str(&r.case)),
        ("route", Json::str(r.route.name())),
        ("version", Json::str(&r.version.to_string())),
        ("verdict", Json::str(r.verdict.name())),
        ("predicted", r.predicted.to_json()),
        (
            "observed",
            r.observed.projection().map_or(Json::Null, |p| p.to_json()),
        ),
    ];
    if let Some(detail) = r.observed.infra_detail() {
        members.push(("detail", Json::str(&detail)));
    }
    if let Some(d) = result_diff(r) {
        members.push(("diff", Json::str(&d)));
    }
    members.extend(crate::judge::refine::findings_json(&r.findings));
    Json::object(members)
}

/// The diff of a divergence, if there is one.
pub fn result_diff(r: &CaseResult) -> Option<String> {
    match (&r.predicted, &r.observed) {
        // A prediction that may drop stream chunks diverges in what it
        // cannot drop, or in a chunk it lacks: the diff is against the whole
        // stream it allows (a case of the night of 2026-12-06 on 1.4.0, an
        // extra `tool-error` chunk, was listed "with its diff" and had none).
        (
            Prediction::Projection(p) | Prediction::Dropping(p),
            Observed::Ran { projection: o, .. },
        ) if r.verdict == Verdict::Diverged => Some(diff(&comparable(p), &comparable(o))),
        // A flaky result's first try, when it diverged: what to look at.
        (Prediction::Projection(p), Observed::Ran { projection: o, .. })
            if r.verdict == Verdict::Flaky && comparable(p) != comparable(o) =>
        {
            Some(diff(&comparable(p), &comparable(o)))
        }
        _ => None,
    }
}

pub fn report_json(info: &RunInfo, results: &[CaseResult]) -> Json {
    Json::object([
        ("run", info.to_json()),
        (
            "results",
            Json::Array(results.iter().map(result_json).collect()),
        ),
    ])
}

/// Write the JSON report (`report_json`'s shape and text, byte for byte)
/// to `w` from the run `run` and its results in order, one result at a
/// time.
pub fn stream_report_json<E: From<std::io::Error>>(
    w: &mut dyn Write,
    run: &Json,
    each: impl FnOnce(&mut dyn FnMut(&Json) -> Result<(), E>) -> Result<(), E>,
) -> Result<(), E> {
    // Strings in JSON carry no raw line break, so a value's pretty text is
    // nested by indenting each of its lines.
    fn nested(text: &str, by: &str) -> String {
        text.replace('\n', &format!("\n{by}"))
    }
    write!(
        w,
        "{{\n  \"run\": {},\n  \"results\": [",
        nested(&run.to_pretty(), "  ")
    )?;
    let mut first = true;
    each(&mut |r: &Json| {
        let sep = if first { "\n    " } else { ",\n    " };
        first = false;
        write!(w, "{sep}{}", nested(&r.to_pretty(), "    ")).map_err(E::from)
    })?;
    if first {
        write!(w, "]\n}}")?;
    } else {
        write!(w, "\n  ]\n}}")?;
    }
    Ok(())
}

/// The report files of a matrix, by name inside its output folder.
pub const JSONL: &str = "results.jsonl";
pub const JSON: &str = "report.json";
pub const DATABASE: &str = crate::db::FILE;
/// JUnit, a folder of `TEST-*.xml` files, one a version (`junit.rs`).
pub const JUNIT: &str = "junit";
pub const MARKDOWN: &str = "report.md";
pub const HTML: &str = "report.html";
/// The grid as a static site, a folder (`site`).
pub const SITE: &str = "site";

/// Which known issues are security issues (the ledger's `severity:
/// security`), for the renderings that put them first.
pub type IsSecurity<'a> = &'a dyn Fn(&str) -> bool;

/// Render every report but the JSON one into `out` from `src` (the site from
/// `site`, the same results in the site's order), each by passes over the
/// results, none holding them all.
pub fn write_reports(
    src: &dyn query::ReportSource,
    site: &mut dyn site::SiteSource,
    security: IsSecurity,
    history: Option<&crate::db::history::History>,
    out: &Path,
) -> Result<(), Failure> {
    let fail =
        |path: &Path, e: String| Failure::infra(format!("cannot write {}: {e}", path.display()));
    let streamed = |name: &str, render: &dyn Fn(&mut dyn Write) -> Result<(), String>| {
        let path = out.join(name);
        let mut failed = None;
        let written = write_streamed(&path, |w| {
            render(w).map_err(|e| {
                failed = Some(e);
                std::io::Error::other("rendering")
            })
        });
        match (written, failed) {
            (_, Some(e)) => Err(fail(&path, e)),
            (Err(e), None) => Err(fail(&path, e.to_string())),
            (Ok(()), None) => Ok(()),
        }
    };
    write_junit(src, &out.join(JUNIT)).map_err(|(path, e)| fail(&path, e))?;
    streamed(MARKDOWN, &|w| markdown::write(src, w))?;
    streamed(HTML, &|w| {
        let page = html::render(src, security)?;
        w.write_all(page.as_bytes()).map_err(|e| e.to_string())
    })?;
    let path = out.join(SITE);
    let lookup = |case: &str| {
        history
            .expect("only called with a history")
            .case_history(case)
            .map_err(|e| e.to_string())
    };
    let history: Option<site::CaseHistory> = match history {
        Some(_) => Some(&lookup),
        None => None,
    };
    site::render_full(site, None, security, history, &path)
        .map(drop)
        .map_err(|e| fail(&path, e.to_string()))
}

/// The JUnit files of `src` into the folder `dir`, after the `TEST-*.xml`
/// an earlier run left there: a CI reader takes every file of the folder,
/// and a version this run does not have must not be read as its.
fn write_junit(src: &dyn query::ReportSource, dir: &Path) -> Result<(), (PathBuf, String)> {
    std::fs::create_dir_all(dir).map_err(|e| (dir.to_path_buf(), e.to_string()))?;
    let listed = std::fs::read_dir(dir).map_err(|e| (dir.to_path_buf(), e.to_string()))?;
    for entry in listed {
        let path = entry
            .map_err(|e| (dir.to_path_buf(), e.to_string()))?
            .path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("TEST-") && name.ends_with(".xml") {
            std::fs::remove_file(&path).map_err(|e| (path.clone(), e.to_string()))?;
        }
    }
    let mut failed = None;
    junit::write(src, &mut |name: &str, text: &[u8]| {
        let path = dir.join(name);
        write_streamed(&path, |w| w.write_all(text)).map_err(|e| {
            let shown = e.to_string();
            failed = Some(path);
            shown
        })
    })
    .map_err(|e| (failed.unwrap_or_else(|| dir.to_path_buf()), e))
}

/// `write_reports` from a results database.
pub fn write_reports_db(
    report: &query::DbReport,
    security: IsSecurity,
    history: Option<&crate::db::history::History>,
    out: &Path,
) -> Result<(), Failure> {
    let mut site = query::DbSiteSource::new(report).map_err(Failure::infra)?;
    write_reports(report, &mut site, security, history, out)
}

/// Write a report. When its place will not take it after all (the disk
/// filled up, the folder went away during the run), the results are not
/// thrown away: they go to the temporary folder, or as a last resort to
/// stderr, and the error says where.
pub fn save_report(path: &Path, text: &str) -> Result<(), Failure> {
    let Err(e) = write_atomically(path, text) else {
        return Ok(());
    };
    let first = format!("cannot write the report {}: {e}", path.display());
    let fallback =
        std::env::temp_dir().join(format!("mastra-conform-report-{}.json", std::process::id()));
    match write_atomically(&fallback, text) {
        Ok(()) => Err(Failure::infra(format!(
            "{first}; it was written to {} instead",
            fallback.display()
        ))),
        Err(e) => {
            eprintln!(
                "error: {first}; nor to {}: {e}; the report follows",
                fallback.display()
            );
            eprintln!("{text}");
            Err(Failure::infra(format!(
                "{first}; the report was printed to stderr"
            )))
        }
    }
}

/// Write `text` to `path` atomically (temporary file, then rename).
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    write_streamed(path, |w| w.write_all(text.as_bytes()))
}

/// Write `path` atomically from what `fill` writes, buffered: a report
/// rendered piece by piece never exists whole in memory, and a reader never
/// sees half of one.
///
/// The file gets the user's umask (0644 under 022), as any file the user
/// makes: a report is for sharing, and a temporary file is 0600 unless told
/// otherwise.
pub fn write_streamed(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.prefix(".tmp").tempfile_in(dir)?;
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, tmp.as_file_mut());
        fill(&mut w)?;
        w.flush()?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Counts of verdicts, per version.
pub fn tally(results: &[CaseResult]) -> BTreeMap<MastraVersion, BTreeMap<Verdict, usize>> {
    let mut t: BTreeMap<MastraVersion, BTreeMap<Verdict, usize>> = BTreeMap::new();
    for r in results {
        *t.entry(r.version)
            .or_default()
            .entry(r.verdict)
            .or_default() += 1;
    }
    t
}

/// A version as a report writes it, for ordering; one that does not parse
/// sorts first.
fn version_of(text: &str) -> MastraVersion {
    MastraVersion::parse(text).unwrap_or(MastraVersion::new(0, 0, 0))
}

/// The terminal summary: one line per version, then every divergence with
/// its diff and every infrastructure failure with its reason.
pub fn summary(info: &RunInfo, src: &dyn ReportSource) -> Result<String, String> {
    let mut out = info.builds_text();
    let mut t: BTreeMap<MastraVersion, BTreeMap<Verdict, usize>> = BTreeMap::new();
    for (version, verdict, n) in src.counts()? {
        *t.entry(version_of(&version))
            .or_default()
            .entry(verdict)
            .or_default() += n;
    }
    for (version, counts) in t {
        let parts: Vec<String> = counts
            .iter()
            .map(|(v, n)| format!("{n} {}", v.name()))
            .collect();
        let speed = info
            .stats
            .iter()
            .find(|s| s.version == Some(version) && s.cases > 0)
            .map(|s| {
                format!(
                    "  ({:.1} cases/s, start {:.2}s)",
                    s.cases_per_second(),
                    s.pool.startup_total.as_secs_f64()
                )
            })
            .unwrap_or_default();
        out.push_str(&format!("{version:>8}: {}{speed}\n", parts.join(", ")));
    }
    src.each(Which::Divergent, Order::Report, false, &mut |r: &Row| {
        out.push_str(&format!(
            "\n{} on {}: {}\n",
            r.case,
            r.version,
            r.verdict.name()
        ));
        if let Some(d) = &r.diff {
            out.push_str(d);
        }
        Ok(())
    })?;
    // Flaky results, apart from the divergences: their tries disagree.
    src.each(Which::One(Verdict::Flaky), Order::Report, false, &mut |r| {
        out.push_str(&format!(
            "\n{} on {}: flaky, not a divergence (observed again: {})\n",
            r.case,
            r.version,
            r.tries.join(" -> ")
        ));
        Ok(())
    })?;
    // Infrastructure: one line per distinct failure of a version, naming the
    // case only when it alone met it (a version the registry lacks is one
    // line, not one arbitrary case of it).
    let mut infra: BTreeMap<(MastraVersion, Verdict, String), (usize, String)> = BTreeMap::new();
    src.each(
        Which::Infrastructure,
        Order::Report,
        false,
        &mut |r: &Row| {
            let detail = r.detail.clone().unwrap_or_default();
            let seen = infra
                .entry((version_of(&r.version), r.verdict, detail))
                .or_insert((0, r.case.clone()));
            seen.0 += 1;
            Ok(())
        },
    )?;
    for ((version, verdict, detail), (n, one)) in &infra {
        match n {
            1 => out.push_str(&format!(
                "\n{one} on {version}: {}: {detail}\n",
                verdict.name()
            )),
            many => out.push_str(&format!(
                "\n{many} cases on {version}: {}: {detail}\n",
                verdict.name()
            )),
        }
    }
    if info.interrupted {
        out.push_str("\ninterrupted: the report holds the results that finished\n");
    }
    Ok(out)
}

/// The versions of a run on which at least one case ran (rather than meeting
/// an infrastructure failure), in the run's order.
pub fn versions_that_ran(info: &RunInfo, results: &[CaseResult]) -> Vec<MastraVersion> {
    info.versions
        .iter()
        .copied()
        .filter(|v| {
            results
                .iter()
                .any(|r| r.version == *v && r.observed.projection().is_some())
        })
        .collect()
}

/// Per known issue: the versions where some case shows it, and where it is
/// fixed.
type IssueVersions = BTreeMap<String, (Vec<MastraVersion>, Vec<MastraVersion>)>;

/// What the headline gathers in one pass over the results.
#[derive(Default)]
struct HeadlineSeen {
    cases: std::collections::HashSet<String>,
    issues: IssueVersions,
    divergent: Vec<String>,
    divergences: usize,
    /// The flaky results (re-checks that disagree), the first few named.
    flaky: Vec<String>,
    flakies: usize,
    /// Per version that could not run: the verdict, why, how many cases.
    unavailable: BTreeMap<MastraVersion, (Verdict, String, usize)>,
}

fn headline_pass(src: &dyn ReportSource) -> Result<HeadlineSeen, String> {
    let mut seen = HeadlineSeen::default();
    src.each(Which::All, Order::Report, false, &mut |r: &Row| {
        if !seen.cases.contains(&r.case) {
            seen.cases.insert(r.case.clone());
        }
        let version = version_of(&r.version);
        if let Some((id, state)) = &r.known_issue {
            let entry = seen.issues.entry(id.clone()).or_default();
            let list = match state.as_str() {
                "present" => Some(&mut entry.0),
                "fixed" => Some(&mut entry.1),
                _ => None,
            };
            if let Some(list) = list.filter(|l| !l.contains(&version)) {
                list.push(version);
            }
        }
        if r.verdict.is_divergence() {
            seen.divergences += 1;
            if seen.divergent.len() < 10 {
                seen.divergent.push(format!(
                    "  {} on {}: {}\n",
                    r.case,
                    r.version,
                    r.verdict.name()
                ));
            }
        } else if r.verdict == Verdict::Flaky {
            seen.flakies += 1;
            if seen.flaky.len() < 10 {
                seen.flaky.push(format!(
                    "  {} on {}: {}\n",
                    r.case,
                    r.version,
                    r.tries.join(" -> ")
                ));
            }
        } else if r.verdict.is_infrastructure() {
            let why = r
                .detail
                .as_deref()
                .unwrap_or_default()
                .lines()
                .next()
                .unwrap_or("")
                .to_string();
            seen.unavailable
                .entry(version)
                .or_insert((r.verdict, why, 0))
                .2 += 1;
        }
        Ok(())
    })?;
    Ok(seen)
}

/// One known issue's line: its id, title, and the versions it is present
/// and fixed on.
fn issue_line(
    id: &str,
    (present, fixed): &(Vec<MastraVersion>, Vec<MastraVersion>),
    ledger: &crate::judge::known::KnownIssues,
) -> String {
    let join = |vs: &[MastraVersion]| {
        let mut vs = vs.to_vec();
        vs.sort();
        vs.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let title = ledger
        .get(id)
        .map(|i| format!(" ({})", i.title))
        .unwrap_or_default();
    let mut line = format!("{id}{title}:");
    if !present.is_empty() {
        line.push_str(&format!(" present on {}", join(present)));
    }
    if !fixed.is_empty() {
        line.push_str(&format!(
            "{} FIXED on {}",
            if present.is_empty() { "" } else { ";" },
            join(fixed)
        ));
    }
    line
}

/// Whether the ledger calls the issue `id` a security issue.
pub fn is_security(ledger: &crate::judge::known::KnownIssues, id: &str) -> bool {
    ledger
        .get(id)
        .is_some_and(|i| i.severity == crate::judge::known::Severity::Security)
}

/// Each security issue (the ledger's `severity: security`) present on some
/// version, with those versions in the run's order.
pub fn security_present(
    src: &dyn ReportSource,
    ledger: &crate::judge::known::KnownIssues,
) -> Result<Vec<(String, Vec<String>)>, String> {
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    src.each(Which::All, Order::ByVersion, false, &mut |r: &Row| {
        if let Some((id, state)) = &r.known_issue {
            if state == "present" && is_security(ledger, id) {
                let vs = found.entry(id.clone()).or_default();
                if vs.last() != Some(&r.version) {
                    vs.push(r.version.clone());
                }
            }
        }
        Ok(())
    })?;
    Ok(found.into_iter().collect())
}

/// The few lines a person reads first, after a run that wrote its reports to
/// `out`: a security issue present (first, marked), which known upstream
/// issues are present on which versions, any divergence, each version that
/// could not run (once, with why), and where the reports are.
pub fn headline(
    info: &RunInfo,
    src: &dyn ReportSource,
    ledger: &crate::judge::known::KnownIssues,
    out: &Path,
) -> Result<String, String> {
    let seen = headline_pass(src)?;
    let mut text = String::from("\n");
    // A control the user wrote that does not hold is read before anything.
    for (id, versions) in seen
        .issues
        .iter()
        .filter(|(id, (present, _))| !present.is_empty() && is_security(ledger, id))
    {
        text.push_str(&format!("SECURITY: {}\n", issue_line(id, versions, ledger)));
    }
    let ran = src.versions_observed()?;
    text.push_str(&format!(
        "{} cases on {} of {} versions ({})\n",
        seen.cases.len(),
        ran.len(),
        info.versions.len(),
        info.versions
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    ));
    if seen.issues.is_empty() {
        text.push_str("known upstream issues: none shown\n");
    } else {
        text.push_str("known upstream issues:\n");
        let mut ids: Vec<&String> = seen.issues.keys().collect();
        ids.sort_by_key(|id| !is_security(ledger, id));
        for id in ids {
            let mark = if is_security(ledger, id) {
                "SECURITY "
            } else {
                ""
            };
            text.push_str(&format!(
                "  {mark}{}\n",
                issue_line(id, &seen.issues[id], ledger)
            ));
        }
    }
    if seen.divergences == 0 {
        text.push_str("divergences: none\n");
    } else {
        text.push_str(&format!(
            "divergences: {} (each with its diff above)\n",
            seen.divergences
        ));
        seen.divergent.iter().for_each(|l| text.push_str(l));
        if seen.divergences > 10 {
            text.push_str(&format!("  … and {} more\n", seen.divergences - 10));
        }
    }
    if seen.flakies > 0 {
        text.push_str(&format!(
            "flaky: {} (observed again, the tries disagree; not divergences)\n",
            seen.flakies
        ));
        seen.flaky.iter().for_each(|l| text.push_str(l));
        if seen.flakies > 10 {
            text.push_str(&format!("  … and {} more\n", seen.flakies - 10));
        }
    }
    // Versions that could not run: one line each, not one per case.
    for (v, (verdict, why, n)) in &seen.unavailable {
        text.push_str(&format!(
            "not run on {v}: {} ({n} cases): {why}\n",
            verdict.name()
        ));
    }
    if info.interrupted {
        text.push_str("interrupted: the reports hold the results that finished\n");
    }
    text.push_str(&format!(
        "reports: {} (also {JUNIT}/, {MARKDOWN} and the results there)\n",
        out.join(HTML).display()
    ));
    text.push_str(&format!(
        "site: {}\n",
        out.join(SITE).join("index.html").display()
    ));
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_divergence_from_a_prediction_that_may_drop_chunks_has_its_diff() {
        let projection = |chunks: &str| {
            let text = format!(
                r#"{{"applicable":true,"error":null,"requests":[],"executed":[],"seen":{{"stream":[{chunks}],"toolCalls":["search"],"toolResults":[],"approval":{{"asked":[],"pending":[]}},"spans":[]}}}}"#
            );
            crate::projection::Projection::from_json(&Json::parse(&text).unwrap()).unwrap()
        };
        let call = r#"{"type":"tool-call","toolName":"search"}"#;
        let error = r#"{"type":"tool-error","toolName":"search"}"#;
        let predicted = Prediction::Dropping(projection(call));
        let observed = Observed::Ran {
            projection: projection(&format!("{call},{error}")),
            bodies: Vec::new(),
        };
        let r = CaseResult {
            index: 0,
            case: "x".into(),
            route: crate::route::Route::default(),
            version: crate::version::spec::MastraVersion::new(1, 4, 0),
            verdict: crate::judge::compare::compare(&predicted, &observed),
            predicted,
            observed,
            findings: Default::default(),
        };
        assert_eq!(r.verdict, Verdict::Diverged);
        let d = result_diff(&r).expect("a diff");
        assert!(d.contains("+") && d.contains("tool-error"), "{d}");
    }

    #[test]
    fn the_streamed_json_report_is_the_whole_one_byte_for_byte() {
        let run = Json::parse_document(
            r#"{"commit":"abc","versions":["1.0.4"],"stats":[],"x":{"a":[1,{"b":"c\nd"}]}}"#,
        )
        .unwrap();
        let results: Vec<Json> = [
            r#"{"case":"a","predicted":{"tools":["x","y"]},"observed":null}"#,
            r#"{"case":"b","predicted":{},"observed":{"tools":[]},"diff":"-x\n+y\n"}"#,
        ]
        .iter()
        .map(|t| Json::parse_document(t).unwrap())
        .collect();
        for n in [0, 1, 2] {
            let whole = Json::object([
                ("run", run.clone()),
                ("results", Json::Array(results[..n].to_vec())),
            ])
            .to_pretty();
            let mut streamed = Vec::new();
            stream_report_json::<std::io::Error>(&mut streamed, &run, |each| {
                results[..n].iter().try_for_each(each)
            })
            .unwrap();
            assert_eq!(String::from_utf8(streamed).unwrap(), whole, "{n} results");
        }
    }

    #[cfg(unix)]
    #[test]
    fn reports_are_written_with_the_users_umask_not_0600() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.md");
        // The umask is the process's: this test sets the usual 022 and
        // checks the mode, which is 0644 under it (0600 if the file were
        // left as a temporary file makes it).
        let old = unsafe { libc::umask(0o022) };
        let written = write_atomically(&path, "# report\n");
        unsafe { libc::umask(old) };
        written.unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "mode {mode:o}");
    }
}
