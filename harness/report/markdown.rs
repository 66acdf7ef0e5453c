//! Markdown, for a PR or issue comment: the run, a table of verdict counts
//! by version, then every divergence with its diff, the flaky results
//! (re-checks that disagree) apart from them, the known issues seen,
//! provider rejections and infrastructure failures, each folded in
//! `<details>` so a long matrix stays readable.

use super::doc::{predicted_as, ReportDoc, Row};
use super::query::{Order, ReportSource, Which};
use crate::judge::compare::Verdict;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::Write;

/// A table cell or inline text: no pipes, no newlines, no stray markup.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('\n', " ")
        .replace('<', "&lt;")
}

/// A fenced block that no line of `body` can close early.
fn fenced(lang: &str, body: &str) -> String {
    let mut fence = String::from("```");
    while body.contains(&fence) {
        fence.push('`');
    }
    format!("{fence}{lang}\n{}\n{fence}\n", body.trim_end())
}

/// Where one issue is in one state: the versions, and the cases (each
/// once, first seen first).
#[derive(Default)]
struct Seen {
    versions: BTreeSet<String>,
    cases: Vec<String>,
    has: HashSet<String>,
}

/// The Markdown of `doc`, whole (for a document already in memory).
pub fn render(doc: &ReportDoc) -> String {
    let mut out = Vec::new();
    write(doc, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("the Markdown is UTF-8")
}

/// The Markdown of `src`, each section from a pass over its rows.
pub fn write(src: &dyn ReportSource, w: &mut dyn Write) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    w.write_all(head(src)?.as_bytes()).map_err(io)?;
    w.write_all(counts_table(src)?.as_bytes()).map_err(io)?;
    divergences(src, w)?;
    w.write_all(flaky(src)?.as_bytes()).map_err(io)?;
    w.write_all(known_issues(src)?.as_bytes()).map_err(io)?;
    w.write_all(rejected(src)?.as_bytes()).map_err(io)?;
    w.write_all(infrastructure(src)?.as_bytes()).map_err(io)
}

/// The title, the run line, and what each build was predicted as.
fn head(src: &dyn ReportSource) -> Result<String, String> {
    let mut out = String::from("## mastra-conform\n\n");
    out.push_str(&format!("{}\n\n", cell(&src.run_line()?)));
    // What each build or snapshot was predicted as, and why: its results
    // mean nothing without it.
    let predicted = predicted_as(src.run());
    for line in &predicted {
        out.push_str(&format!("- {}\n", cell(line)));
    }
    if !predicted.is_empty() {
        out.push('\n');
    }
    Ok(out)
}

/// The verdict line and the table of verdict counts by version.
fn counts_table(src: &dyn ReportSource) -> Result<String, String> {
    let counts = src.counts()?;
    let sum = |f: fn(Verdict) -> bool| -> usize {
        counts
            .iter()
            .filter(|(_, v, _)| f(*v))
            .map(|(_, _, n)| n)
            .sum()
    };
    let (divergences, infra) = (sum(|v| v.is_divergence()), sum(|v| v.is_infrastructure()));
    let flaky = match sum(|v| v == Verdict::Flaky) {
        0 => String::new(),
        n => format!(" · {n} flaky"),
    };
    let mut out = format!(
        "**{}** · {divergences} divergence(s){flaky} · {infra} infrastructure failure(s)\n\n",
        if divergences == 0 {
            "no divergence"
        } else {
            "DIVERGED"
        },
    );
    let present: Vec<Verdict> = Verdict::ALL
        .into_iter()
        .filter(|v| counts.iter().any(|(_, c, _)| c == v))
        .collect();
    out.push_str("| version |");
    for v in &present {
        out.push_str(&format!(" {} |", v.name()));
    }
    out.push_str("\n|---|");
    out.push_str(&"---:|".repeat(present.len()));
    out.push('\n');
    for version in src.versions()? {
        out.push_str(&format!("| {} |", cell(&version)));
        for v in &present {
            let n = counts
                .iter()
                .find(|(ver, c, _)| *ver == version && c == v)
                .map_or(0, |(_, _, n)| *n);
            out.push_str(&if n == 0 {
                " |".to_string()
            } else {
                format!(" {n} |")
            });
        }
        out.push('\n');
    }
    Ok(out)
}

/// Divergences shown with their diffs; the rest are counted in one line
/// that says where the whole list is. A GitHub job summary takes 1 MiB and
/// `nightly.yml` appends this file to it: a night's divergences with their
/// diffs were 259,020 bytes for 173 (about 1.5 kB each, docs/figures.md),
/// so 200 keep the section near 300 kB whatever the night finds.
pub const DIVERGENCES_SHOWN: usize = 200;

/// The first `DIVERGENCES_SHOWN` divergences with their diffs, each
/// folded, then how many more and where they all are.
fn divergences(src: &dyn ReportSource, w: &mut dyn Write) -> Result<(), String> {
    divergences_up_to(src, w, DIVERGENCES_SHOWN)
}

fn divergences_up_to(
    src: &dyn ReportSource,
    w: &mut dyn Write,
    shown: usize,
) -> Result<(), String> {
    let mut seen = 0usize;
    src.each(Which::Divergent, Order::Report, false, &mut |r: &Row| {
        seen += 1;
        if seen > shown {
            return Ok(());
        }
        let mut out = String::new();
        if seen == 1 {
            out.push_str("\n### Divergences\n\n");
        }
        out.push_str(&format!(
            "<details><summary><code>{}</code> on {}: <b>{}</b></summary>\n\n",
            cell(&r.case),
            cell(&r.version),
            r.verdict.name()
        ));
        if let Some(d) = &r.diff {
            out.push_str(&fenced("diff", d));
        } else if let Some((id, state)) = &r.known_issue {
            out.push_str(&format!("known issue `{id}`: {state}\n"));
        }
        out.push_str("\n</details>\n");
        w.write_all(out.as_bytes()).map_err(|e| e.to_string())
    })?;
    if seen > shown {
        let line = format!(
            "\n… and {} more divergence(s), not shown here ({seen} in all): every one, with its diff, \
             is in the results database beside this report (`{db}`: `mastra-conform report {db}`) \
             and on its site (`{site}/index.html`).\n",
            seen - shown,
            db = super::DATABASE,
            site = super::SITE,
        );
        w.write_all(line.as_bytes()).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Per issue and state: the versions, and the cases. The cases are the
/// groups `diff` files its differences under, so a reader can hold the two
/// side by side.
fn known_issues(src: &dyn ReportSource) -> Result<String, String> {
    let mut issues: BTreeMap<String, BTreeMap<String, Seen>> = BTreeMap::new();
    src.each(Which::All, Order::Report, false, &mut |r: &Row| {
        if let Some((id, state)) = &r.known_issue {
            let seen = issues
                .entry(id.clone())
                .or_default()
                .entry(state.clone())
                .or_default();
            seen.versions.insert(r.version.clone());
            if seen.has.insert(r.case.clone()) {
                seen.cases.push(r.case.clone());
            }
        }
        Ok(())
    })?;
    if issues.is_empty() {
        return Ok(String::new());
    }
    let versions = src.versions()?;
    let mut out = String::from(
        "\n### Known upstream issues\n\n| issue | state | versions | cases |\n|---|---|---|---:|\n",
    );
    for (id, states) in &issues {
        for (state, seen) in states {
            // Each version once, in the run's order (not string order).
            let vs: Vec<&str> = versions
                .iter()
                .filter(|v| seen.versions.contains(*v))
                .map(String::as_str)
                .collect();
            out.push_str(&format!(
                "| `{id}` | {state} | {} | {} |\n",
                cell(&vs.join(", ")),
                seen.cases.len()
            ));
        }
    }
    for (id, states) in &issues {
        for (state, seen) in states {
            out.push_str(&format!(
                "\n<details><summary><code>{id}</code> {state}: {} case(s)</summary>\n\n",
                seen.cases.len()
            ));
            for c in &seen.cases {
                out.push_str(&format!("- `{}`\n", cell(c)));
            }
            out.push_str("\n</details>\n");
        }
    }
    Ok(out)
}

/// The results observed again whose tries disagree, apart from the
/// divergences: each with the verdict of every try.
fn flaky(src: &dyn ReportSource) -> Result<String, String> {
    let mut out = String::new();
    src.each(
        Which::One(Verdict::Flaky),
        Order::Report,
        false,
        &mut |r: &Row| {
            if out.is_empty() {
                out.push_str(
                    "\n### Flaky (observed again, the tries disagree; not divergences)\n\n",
                );
            }
            out.push_str(&format!(
                "- `{}` on {}: {}\n",
                cell(&r.case),
                cell(&r.version),
                cell(&r.tries.join(" → "))
            ));
            Ok(())
        },
    )?;
    Ok(out)
}

/// The bodies a provider would reject that no known issue explains: a line
/// a case and reason, with the versions it holds on (runs of neighbouring
/// versions as `A to B`). A line a result made this section 1.3 MB on a
/// merged night (67,024 results), past the 1 MB a GitHub job summary takes.
fn rejected(src: &dyn ReportSource) -> Result<String, String> {
    let versions = src.versions()?;
    let mut out = String::new();
    // The case and reason being gathered, and the places of its versions.
    let mut open: Option<(String, String, Vec<usize>)> = None;
    let line = |out: &mut String, (case, why, at): (String, String, Vec<usize>)| {
        out.push_str(&format!(
            "- `{}` on {}: {}\n",
            cell(&case),
            cell(&version_runs(&at, &versions)),
            cell(&why)
        ));
    };
    src.each(
        Which::One(Verdict::ProviderRejects),
        Order::Report,
        false,
        &mut |r: &Row| {
            let why = r.provider.join("; ");
            let at = versions
                .iter()
                .position(|v| *v == r.version)
                .unwrap_or(usize::MAX);
            match open.as_mut() {
                Some((case, was, places)) if *case == r.case && *was == why => places.push(at),
                _ => {
                    if let Some(done) = open.replace((r.case.clone(), why, vec![at])) {
                        line(&mut out, done);
                    }
                }
            }
            Ok(())
        },
    )?;
    if let Some(done) = open {
        line(&mut out, done);
    }
    if !out.is_empty() {
        out.insert_str(
            0,
            "\n### Bodies a provider would reject (not a known issue)\n\n",
        );
    }
    Ok(out)
}

/// Versions by their places in `versions`: each run of neighbours as
/// `FIRST to LAST`, a version alone as itself.
fn version_runs(places: &[usize], versions: &[String]) -> String {
    let name = |i: usize| versions.get(i).map_or("?", String::as_str);
    let mut sorted = places.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut runs: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        runs.push(match j - i {
            0 => name(sorted[i]).to_string(),
            1 => format!("{}, {}", name(sorted[i]), name(sorted[j])),
            _ => format!("{} to {}", name(sorted[i]), name(sorted[j])),
        });
        i = j + 1;
    }
    runs.join(", ")
}

/// Each distinct infrastructure failure of a version, once.
fn infrastructure(src: &dyn ReportSource) -> Result<String, String> {
    let mut out = String::new();
    let mut shown = BTreeSet::new();
    src.each(
        Which::Infrastructure,
        Order::Report,
        false,
        &mut |r: &Row| {
            if out.is_empty() {
                out.push_str("\n### Infrastructure (not divergences)\n\n");
            }
            let first = r
                .detail
                .as_deref()
                .and_then(|d| d.lines().next())
                .unwrap_or("")
                .to_string();
            if shown.insert((r.version.clone(), r.verdict, first.clone())) {
                out.push_str(&format!(
                    "- {} `{}`: {} {}\n",
                    cell(&r.version),
                    cell(&r.case),
                    r.verdict.name(),
                    cell(&first)
                ));
            }
            Ok(())
        },
    )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::doc::tests::sample;

    #[test]
    fn the_comment_has_counts_diffs_and_issues() {
        let md = render(&sample());
        assert!(
            md.contains("| version | as-modelled | diverged | known-issue | install-failed |"),
            "{md}"
        );
        assert!(md.contains("| 1.67.0 | | 1 | | 1 |"), "{md}");
        assert!(md.contains("```diff\n-x 1\n+x 2\n```"), "{md}");
        assert!(
            md.contains("| `toolchoice-not-rewritten` | present | 1.0.4 | 1 |"),
            "{md}"
        );
        assert!(
            md.contains("<code>toolchoice-not-rewritten</code> present: 1 case(s)</summary>\n\n- `cases/b&lt;c>.json`\n"),
            "the cases under each issue: {md}"
        );
        assert!(md.contains("npm failed"));
        assert!(
            md.contains("- 0.0.0-x-1: registry snapshot, predicted as 1.58.0: its CHANGELOG.md's"),
            "{md}"
        );
    }

    #[test]
    fn a_rejection_is_one_line_a_case_and_reason_over_its_versions() {
        let row = |case: &str, v: &str, why: &str| {
            format!(
                r#"{{"case":"{case}","version":"{v}","verdict":"provider-rejects","predicted":{{}},"observed":{{}},"providerRejects":["{why}"]}}"#
            )
        };
        let mut rows = Vec::new();
        for v in ["1.0.4", "1.1.0", "1.2.0", "1.4.0"] {
            rows.push(row("cases/a.json", v, "name \\\"a.b\\\""));
        }
        rows.push(row("cases/a.json", "1.5.0", "too long"));
        rows.push(row("cases/b.json", "1.1.0", "too long"));
        let text = format!(
            r#"{{"run":{{"versions":["1.0.4","1.1.0","1.2.0","1.3.0","1.4.0","1.5.0"]}},"results":[{}]}}"#,
            rows.join(",")
        );
        let md = render(&ReportDoc::parse(&text).unwrap());
        let section = md
            .split("### Bodies a provider would reject (not a known issue)\n\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{md}"));
        assert_eq!(
            section,
            "- `cases/a.json` on 1.0.4 to 1.2.0, 1.4.0: name \"a.b\"\n\
             - `cases/a.json` on 1.5.0: too long\n\
             - `cases/b.json` on 1.1.0: too long\n"
        );
    }

    /// `n` divergent results of `cases/dN.json` on 1.67.0, each with a diff.
    fn diverging(n: usize) -> ReportDoc {
        let rows: Vec<String> = (0..n)
            .map(|i| {
                format!(
                    r#"{{"case":"cases/d{i}.json","version":"1.67.0","verdict":"diverged","predicted":{{"x":1}},"observed":{{"x":{i}}}}}"#
                )
            })
            .collect();
        let text = format!(
            r#"{{"run":{{"versions":["1.67.0"]}},"results":[{}]}}"#,
            rows.join(",")
        );
        ReportDoc::parse(&text).unwrap()
    }

    #[test]
    fn the_divergences_are_cut_after_the_first_few_with_where_the_rest_are() {
        let md = render(&diverging(DIVERGENCES_SHOWN + 3));
        let section = md
            .split("### Divergences\n\n")
            .nth(1)
            .and_then(|s| s.split("\n### ").next())
            .unwrap_or_else(|| panic!("{md}"));
        assert_eq!(section.matches("<details>").count(), DIVERGENCES_SHOWN);
        assert!(
            section.contains(&format!(
                "<code>cases/d{}.json</code>",
                DIVERGENCES_SHOWN - 1
            )) && !section.contains(&format!("<code>cases/d{DIVERGENCES_SHOWN}.json</code>")),
            "the first ones, in report order"
        );
        let last = section.trim_end().lines().last().unwrap();
        assert_eq!(
            last,
            format!(
                "… and 3 more divergence(s), not shown here ({} in all): every one, with its diff, \
                 is in the results database beside this report (`results.sqlite`: \
                 `mastra-conform report results.sqlite`) and on its site (`site/index.html`).",
                DIVERGENCES_SHOWN + 3
            )
        );
        // The counts above it still say every divergence.
        assert!(
            md.contains(&format!(
                "**DIVERGED** · {} divergence(s)",
                DIVERGENCES_SHOWN + 3
            )),
            "{md}"
        );
        // At the cap exactly, nothing is cut and no line says so.
        let whole = render(&diverging(DIVERGENCES_SHOWN));
        assert_eq!(whole.matches("<details>").count(), DIVERGENCES_SHOWN);
        assert!(!whole.contains("more divergence(s)"), "{whole}");
    }

    #[test]
    fn fences_outgrow_their_content() {
        assert_eq!(fenced("", "a ``` b"), "````\na ``` b\n````\n");
    }
}
