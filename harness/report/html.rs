//! `report.html`: a short page, the run at a glance, that links to the grid
//! (the static site beside it, `site/index.html`). It carries the run line,
//! the verdict counts by version, the known upstream issues shown (security
//! first), and the first divergences by name; never a result's detail,
//! so it stays a few kilobytes however many results the run has (the site
//! holds the rest, loaded as a person asks for it).
//!
//! Plain HTML, no script: it opens from `file://`, in a mail client's
//! preview, or from an artifact listing.

use super::doc::{escape, predicted_as, Row};
use super::query::{Order, ReportSource, Which};
use crate::judge::compare::Verdict;
use std::collections::BTreeMap;

/// The divergences the page names; the rest are counted.
const LISTED: usize = 50;

const CSS: &str = "body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; }
table { border-collapse: collapse; }
td, th { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.security { color: #b71c1c; font-weight: bold; }
";

/// Per known issue: its title, whether the ledger calls it a security
/// issue, and the versions it is present on and fixed on.
#[derive(Default)]
struct IssueSeen {
    title: Option<String>,
    present: Vec<String>,
    fixed: Vec<String>,
}

/// The page for `src`; `security` says which issue ids are security issues
/// (the ledger's `severity: security`).
pub fn render(src: &dyn ReportSource, security: &dyn Fn(&str) -> bool) -> Result<String, String> {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>mastra-conform report</title>\n<style>{CSS}</style>\n</head>\n<body>\n\
         <h1>mastra-conform</h1>\n<p id=\"run\">{}</p>\n",
        escape(&src.run_line()?)
    );
    for l in predicted_as(src.run()) {
        out.push_str(&format!("<p class=\"predicted-as\">{}</p>\n", escape(&l)));
    }
    out.push_str(
        "<p id=\"site\"><a href=\"site/index.html\">The grid: every case on every version and route</a> \
         (the static site beside this page), with each result's detail.</p>\n",
    );
    out.push_str(&issues(src, security)?);
    out.push_str(&counts(src)?);
    out.push_str(&divergent(src)?);
    out.push_str("</body>\n</html>\n");
    Ok(out)
}

/// The known issues shown, security issues first, each with its versions.
fn issues(src: &dyn ReportSource, security: &dyn Fn(&str) -> bool) -> Result<String, String> {
    let mut seen: BTreeMap<String, IssueSeen> = BTreeMap::new();
    src.each(Which::All, Order::ByVersion, false, &mut |r: &Row| {
        let Some((id, state)) = &r.known_issue else {
            return Ok(());
        };
        let issue = seen.entry(id.clone()).or_default();
        if issue.title.is_none() {
            issue.title = r.issue_title.clone();
        }
        let list = match state.as_str() {
            "present" => &mut issue.present,
            "fixed" => &mut issue.fixed,
            _ => return Ok(()),
        };
        if list.last() != Some(&r.version) {
            list.push(r.version.clone());
        }
        Ok(())
    })?;
    let mut ids: Vec<&String> = seen.keys().collect();
    ids.sort_by_key(|id| !security(id));
    let mut out = String::from("<h2>Known upstream issues</h2>\n<ul id=\"issues\">\n");
    if ids.is_empty() {
        out.push_str("<li>none shown</li>\n");
    }
    for id in ids {
        let i = &seen[id];
        let mark = if security(id) {
            "<span class=\"security\">SECURITY</span> "
        } else {
            ""
        };
        let title = i
            .title
            .as_deref()
            .map(|t| format!(" ({})", escape(t)))
            .unwrap_or_default();
        let mut line = format!("<li>{mark}{}{title}:", escape(id));
        if !i.present.is_empty() {
            line.push_str(&format!(" present on {}", escape(&i.present.join(", "))));
        }
        if !i.fixed.is_empty() {
            line.push_str(&format!(
                "{} fixed on {}",
                if i.present.is_empty() { "" } else { ";" },
                escape(&i.fixed.join(", "))
            ));
        }
        out.push_str(&line);
        out.push_str("</li>\n");
    }
    out.push_str("</ul>\n");
    Ok(out)
}

/// The verdict counts by version.
fn counts(src: &dyn ReportSource) -> Result<String, String> {
    let counts = src.counts()?;
    let present: Vec<Verdict> = Verdict::ALL
        .into_iter()
        .filter(|v| counts.iter().any(|(_, c, _)| c == v))
        .collect();
    let mut out =
        String::from("<h2>Verdicts by version</h2>\n<table id=\"counts\">\n<tr><th>version</th>");
    for v in &present {
        out.push_str(&format!("<th>{}</th>", v.name()));
    }
    out.push_str("</tr>\n");
    for version in src.versions()? {
        out.push_str(&format!("<tr><td>{}</td>", escape(&version)));
        for v in &present {
            let n = counts
                .iter()
                .find(|(ver, c, _)| *ver == version && c == v)
                .map_or(0, |(_, _, n)| *n);
            out.push_str(&format!(
                "<td>{}</td>",
                if n == 0 { String::new() } else { n.to_string() }
            ));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    Ok(out)
}

/// The first divergences by name, and how many more there are.
fn divergent(src: &dyn ReportSource) -> Result<String, String> {
    let mut out = String::from("<h2>Divergences</h2>\n<ul id=\"divergences\">\n");
    let mut n = 0;
    src.each(Which::Divergent, Order::Report, false, &mut |r: &Row| {
        n += 1;
        if n <= LISTED {
            out.push_str(&format!(
                "<li><code>{}</code> on {}: {}</li>\n",
                escape(&r.case),
                escape(&r.version),
                r.verdict.name()
            ));
        }
        Ok(())
    })?;
    match n {
        0 => out.push_str("<li>none</li>\n"),
        n if n > LISTED => out.push_str(&format!(
            "<li>… and {} more, in the grid</li>\n",
            n - LISTED
        )),
        _ => {}
    }
    out.push_str("</ul>\n");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::doc::tests::sample;

    #[test]
    fn the_page_is_short_links_the_grid_and_puts_security_first() {
        let mut doc = sample();
        // A second issue, a security one, on the other case.
        doc.rows[1].known_issue = Some(("policy-fails-open".into(), "present".into()));
        let html = render(&doc, &|id| id == "policy-fails-open").unwrap();
        assert!(html.contains("<a href=\"site/index.html\">"), "{html}");
        assert!(!html.contains("<script"), "no script, no data: {html}");
        let issues = &html[html.find("<ul id=\"issues\">").unwrap()..];
        let first = issues.lines().nth(1).unwrap();
        assert_eq!(
            first,
            "<li><span class=\"security\">SECURITY</span> policy-fails-open: present on 1.67.0</li>"
        );
        assert!(
            issues
                .lines()
                .nth(2)
                .unwrap()
                .starts_with("<li>toolchoice-not-rewritten:"),
            "{issues}"
        );
        assert!(html.contains("<li><code>cases/a.json</code> on 1.67.0: diverged</li>"));
        assert!(
            html.contains("<tr><td>1.67.0</td><td></td><td>1</td>"),
            "{html}"
        );
    }
}
