//! JUnit XML for CI: one `<testsuite>` per version, one `<testcase>` per
//! case.
//!
//! A divergence (`diverged`, `known-issue-fixed`, `snapshot-changed`) is a
//! `<failure>` with its diff; an infrastructure outcome is an `<error>`, so
//! CI tells "Mastra changed" from "the machine failed us"; `not-applicable`
//! and `unmodelled` are `<skipped>`. Everything else passes, a known issue or
//! a provider rejection with a note in `<system-out>`.

use super::doc::{escape, ReportDoc, Row};
use crate::judge::compare::Verdict;

enum Outcome {
    Pass,
    Failure,
    Error,
    Skipped,
}

fn outcome(v: Verdict) -> Outcome {
    if v.is_divergence() {
        Outcome::Failure
    } else if v.is_infrastructure() {
        Outcome::Error
    } else if matches!(v, Verdict::NotApplicable | Verdict::Unmodelled) {
        Outcome::Skipped
    } else {
        Outcome::Pass
    }
}

fn note(r: &Row) -> String {
    let mut lines = Vec::new();
    if let Some((id, state)) = &r.known_issue {
        lines.push(format!("known issue {id}: {state}"));
    }
    for p in &r.provider {
        lines.push(format!("a provider would reject: {p}"));
    }
    lines.join("\n")
}

pub fn render(doc: &ReportDoc) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let count = |f: &dyn Fn(&Row) -> bool| doc.rows.iter().filter(|r| f(r)).count();
    out.push_str(&format!(
        "<testsuites name=\"mastra-conform\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n",
        doc.rows.len() + usize::from(doc.incomplete().is_some()),
        count(&|r| matches!(outcome(r.verdict), Outcome::Failure)),
        count(&|r| matches!(outcome(r.verdict), Outcome::Error))
            + usize::from(doc.incomplete().is_some()),
        count(&|r| matches!(outcome(r.verdict), Outcome::Skipped)),
    ));
    // A partial run is one error of its own, so that CI never reads the
    // results that are there as the whole run.
    if let Some(why) = doc.incomplete() {
        out.push_str(&format!(
            "  <testsuite name=\"run\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n    <testcase classname=\"mastra-conform.run\" name=\"complete\">\n      <error message=\"partial\" type=\"partial\">{}</error>\n    </testcase>\n  </testsuite>\n",
            escape(&why)
        ));
    }
    for version in doc.versions() {
        let rows: Vec<&Row> = doc.rows.iter().filter(|r| r.version == version).collect();
        let n = |o: fn(&Outcome) -> bool| rows.iter().filter(|r| o(&outcome(r.verdict))).count();
        out.push_str(&format!(
            "  <testsuite name=\"@mastra/core {v}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n",
            rows.len(),
            n(|o| matches!(o, Outcome::Failure)),
            n(|o| matches!(o, Outcome::Error)),
            n(|o| matches!(o, Outcome::Skipped)),
            v = escape(&version),
        ));
        for r in rows {
            out.push_str(&format!(
                "    <testcase classname=\"mastra-conform.{}\" name=\"{}\">\n",
                escape(&version),
                escape(&r.case)
            ));
            let verdict = r.verdict.name();
            match outcome(r.verdict) {
                Outcome::Failure => out.push_str(&format!(
                    "      <failure message=\"{verdict}\" type=\"{verdict}\">{}</failure>\n",
                    escape(r.diff.as_deref().unwrap_or(verdict))
                )),
                Outcome::Error => out.push_str(&format!(
                    "      <error message=\"{verdict}\" type=\"{verdict}\">{}</error>\n",
                    escape(r.detail.as_deref().unwrap_or(verdict))
                )),
                Outcome::Skipped => {
                    out.push_str(&format!("      <skipped message=\"{verdict}\"/>\n"))
                }
                Outcome::Pass => {}
            }
            let note = note(r);
            if !note.is_empty() {
                out.push_str(&format!(
                    "      <system-out>{}</system-out>\n",
                    escape(&note)
                ));
            }
            out.push_str("    </testcase>\n");
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::doc::tests::sample;

    #[test]
    fn divergences_fail_and_infrastructure_errs() {
        let xml = render(&sample());
        assert!(xml.contains("<testsuites name=\"mastra-conform\" tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"0\">"), "{xml}");
        assert!(xml.contains("<failure message=\"diverged\""));
        assert!(xml.contains(
            "<error message=\"install-failed\" type=\"install-failed\">npm failed</error>"
        ));
        assert!(
            xml.contains("name=\"cases/b&lt;c&gt;.json\""),
            "names are escaped"
        );
        assert!(xml.contains("known issue toolchoice-not-rewritten: present"));
    }
}
