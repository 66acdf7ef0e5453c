//! JUnit XML for CI: one `<testsuite>` per version, one `<testcase>` per
//! case.
//!
//! A divergence (`diverged`, `known-issue-fixed`, `snapshot-changed`) is a
//! `<failure>` with its diff; an infrastructure outcome is an `<error>`, so
//! CI tells "Mastra changed" from "the machine failed us"; `not-applicable`,
//! `unmodelled` and `flaky` (re-checks that disagree) are `<skipped>`. Everything else passes, a known issue or
//! a provider rejection with a note in `<system-out>`.

use super::doc::{escape, ReportDoc, Row};
use super::query::{Order, ReportSource, Which};
use crate::judge::compare::Verdict;
use std::io::Write;

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
    } else if matches!(
        v,
        Verdict::NotApplicable | Verdict::Unmodelled | Verdict::Flaky
    ) {
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
    if !r.tries.is_empty() {
        lines.push(format!("observed again: {}", r.tries.join(" -> ")));
    }
    lines.join("\n")
}

/// The JUnit XML of `doc`, whole (for a document already in memory).
pub fn render(doc: &ReportDoc) -> String {
    let mut out = Vec::new();
    write(doc, &mut out).expect("writing to memory");
    String::from_utf8(out).expect("the XML is UTF-8")
}

/// The JUnit XML of `src`, written as its rows are read, a version's suite
/// at a time.
pub fn write(src: &dyn ReportSource, w: &mut dyn Write) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    let counts = src.counts()?;
    let n = |version: Option<&str>, o: fn(&Outcome) -> bool| -> usize {
        counts
            .iter()
            .filter(|(v, verdict, _)| version.is_none_or(|x| x == v) && o(&outcome(*verdict)))
            .map(|(_, _, n)| n)
            .sum()
    };
    let incomplete = src.incomplete();
    let partial = usize::from(incomplete.is_some());
    write!(
        w,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mastra-conform\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n",
        n(None, |_| true) + partial,
        n(None, |o| matches!(o, Outcome::Failure)),
        n(None, |o| matches!(o, Outcome::Error)) + partial,
        n(None, |o| matches!(o, Outcome::Skipped)),
    )
    .map_err(io)?;
    // A partial run is one error of its own, so that CI never reads the
    // results that are there as the whole run.
    if let Some(why) = incomplete {
        write!(
            w,
            "  <testsuite name=\"run\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n    <testcase classname=\"mastra-conform.run\" name=\"complete\">\n      <error message=\"partial\" type=\"partial\">{}</error>\n    </testcase>\n  </testsuite>\n",
            escape(&why)
        )
        .map_err(io)?;
    }
    let versions = src.versions()?;
    let suite = |w: &mut dyn Write, version: &str| {
        writeln!(
            w,
            "  <testsuite name=\"@mastra/core {v}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">",
            n(Some(version), |_| true),
            n(Some(version), |o| matches!(o, Outcome::Failure)),
            n(Some(version), |o| matches!(o, Outcome::Error)),
            n(Some(version), |o| matches!(o, Outcome::Skipped)),
            v = escape(version),
        )
        .map_err(io)
    };
    // Suites open in the run's order of versions, an empty one for a
    // version without results; the rows come version by version.
    let mut next = 0;
    let mut open: Option<String> = None;
    src.each(Which::All, Order::ByVersion, false, &mut |r: &Row| {
        if open.as_deref() != Some(r.version.as_str()) {
            if open.take().is_some() {
                w.write_all(b"  </testsuite>\n").map_err(io)?;
            }
            while let Some(v) = versions.get(next).filter(|v| **v != r.version) {
                suite(w, v)?;
                w.write_all(b"  </testsuite>\n").map_err(io)?;
                next += 1;
            }
            next += 1;
            suite(w, &r.version)?;
            open = Some(r.version.clone());
        }
        testcase(w, r).map_err(io)
    })?;
    if open.is_some() {
        w.write_all(b"  </testsuite>\n").map_err(io)?;
    }
    for version in versions.iter().skip(next) {
        suite(w, version)?;
        w.write_all(b"  </testsuite>\n").map_err(io)?;
    }
    w.write_all(b"</testsuites>\n").map_err(io)
}

fn testcase(w: &mut dyn Write, r: &Row) -> std::io::Result<()> {
    writeln!(
        w,
        "    <testcase classname=\"mastra-conform.{}\" name=\"{}\">",
        escape(&r.version),
        escape(&r.case)
    )?;
    let verdict = r.verdict.name();
    match outcome(r.verdict) {
        Outcome::Failure => writeln!(
            w,
            "      <failure message=\"{verdict}\" type=\"{verdict}\">{}</failure>",
            escape(r.diff.as_deref().unwrap_or(verdict))
        )?,
        Outcome::Error => writeln!(
            w,
            "      <error message=\"{verdict}\" type=\"{verdict}\">{}</error>",
            escape(r.detail.as_deref().unwrap_or(verdict))
        )?,
        Outcome::Skipped => writeln!(w, "      <skipped message=\"{verdict}\"/>")?,
        Outcome::Pass => {}
    }
    let note = note(r);
    if !note.is_empty() {
        writeln!(w, "      <system-out>{}</system-out>", escape(&note))?;
    }
    w.write_all(b"    </testcase>\n")
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
