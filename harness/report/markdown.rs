//! Markdown, for a PR or issue comment: the run, a table of verdict counts
//! by version, then every divergence with its diff, the known issues seen,
//! provider rejections and infrastructure failures, each folded in
//! `<details>` so a long matrix stays readable.

use super::doc::{ReportDoc, Row};
use crate::judge::compare::Verdict;
use std::collections::BTreeMap;

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

/// Where one issue is in one state: the versions, and the cases.
type Seen<'a> = (Vec<&'a str>, Vec<&'a str>);

pub fn render(doc: &ReportDoc) -> String {
    let mut out = String::from("## mastra-conform\n\n");
    out.push_str(&format!("{}\n\n", cell(&doc.run_line())));
    // What each build or snapshot was predicted as, and why: its results
    // mean nothing without it.
    for line in doc.predicted_as() {
        out.push_str(&format!("- {}\n", cell(&line)));
    }
    if !doc.predicted_as().is_empty() {
        out.push('\n');
    }
    let divergences: Vec<&Row> = doc
        .rows
        .iter()
        .filter(|r| r.verdict.is_divergence())
        .collect();
    let infra: Vec<&Row> = doc
        .rows
        .iter()
        .filter(|r| r.verdict.is_infrastructure())
        .collect();
    out.push_str(&format!(
        "**{}** · {} divergence(s) · {} infrastructure failure(s)\n\n",
        if divergences.is_empty() {
            "no divergence"
        } else {
            "DIVERGED"
        },
        divergences.len(),
        infra.len()
    ));
    let present: Vec<Verdict> = Verdict::ALL
        .into_iter()
        .filter(|v| doc.rows.iter().any(|r| r.verdict == *v))
        .collect();
    out.push_str("| version |");
    for v in &present {
        out.push_str(&format!(" {} |", v.name()));
    }
    out.push_str("\n|---|");
    out.push_str(&"---:|".repeat(present.len()));
    out.push('\n');
    for version in doc.versions() {
        out.push_str(&format!("| {} |", cell(&version)));
        for v in &present {
            let n = doc
                .rows
                .iter()
                .filter(|r| r.version == version && r.verdict == *v)
                .count();
            out.push_str(&if n == 0 {
                " |".to_string()
            } else {
                format!(" {n} |")
            });
        }
        out.push('\n');
    }
    if !divergences.is_empty() {
        out.push_str("\n### Divergences\n\n");
        for r in &divergences {
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
        }
    }
    // Per issue and state: the versions, and the cases (each once, first
    // seen first). The cases are the groups `diff` files its differences
    // under, so a reader can hold the two side by side.
    let mut issues: BTreeMap<&str, BTreeMap<&str, Seen>> = BTreeMap::new();
    for r in &doc.rows {
        if let Some((id, state)) = &r.known_issue {
            let (versions, cases) = issues
                .entry(id.as_str())
                .or_default()
                .entry(state.as_str())
                .or_default();
            versions.push(r.version.as_str());
            if !cases.contains(&r.case.as_str()) {
                cases.push(r.case.as_str());
            }
        }
    }
    if !issues.is_empty() {
        out.push_str(
            "\n### Known upstream issues\n\n| issue | state | versions | cases |\n|---|---|---|---:|\n",
        );
        for (id, states) in &issues {
            for (state, (versions, cases)) in states {
                // Each version once, in the run's order (not string order).
                let vs: Vec<String> = doc
                    .versions()
                    .into_iter()
                    .filter(|v| versions.contains(&v.as_str()))
                    .collect();
                out.push_str(&format!(
                    "| `{id}` | {state} | {} | {} |\n",
                    cell(&vs.join(", ")),
                    cases.len()
                ));
            }
        }
        for (id, states) in &issues {
            for (state, (_, cases)) in states {
                out.push_str(&format!(
                    "\n<details><summary><code>{id}</code> {state}: {} case(s)</summary>\n\n",
                    cases.len()
                ));
                for c in cases {
                    out.push_str(&format!("- `{}`\n", cell(c)));
                }
                out.push_str("\n</details>\n");
            }
        }
    }
    let rejected: Vec<&Row> = doc
        .rows
        .iter()
        .filter(|r| r.verdict == Verdict::ProviderRejects)
        .collect();
    if !rejected.is_empty() {
        out.push_str("\n### Bodies a provider would reject (not a known issue)\n\n");
        for r in rejected {
            out.push_str(&format!(
                "- `{}` on {}: {}\n",
                cell(&r.case),
                cell(&r.version),
                cell(&r.provider.join("; "))
            ));
        }
    }
    if !infra.is_empty() {
        out.push_str("\n### Infrastructure (not divergences)\n\n");
        let mut shown = std::collections::BTreeSet::new();
        for r in infra {
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
        }
    }
    out
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
    fn fences_outgrow_their_content() {
        assert_eq!(fenced("", "a ``` b"), "````\na ``` b\n````\n");
    }
}
