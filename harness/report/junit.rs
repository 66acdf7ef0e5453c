//! JUnit XML for CI, as a folder (`junit/`) of files in Ant's and
//! Surefire's layout, `TEST-<suite>.xml`: one file per version, with one
//! `<testsuite>` of one `<testcase>` per case, so no file grows with the
//! number of versions. A version whose cases pass `PART_BYTES` goes on in
//! a second file (`TEST-mastra-core-1.70.0-part2.xml`, suite
//! `@mastra/core 1.70.0 (part 2)`), and a failure's text past `BODY_BYTES`
//! is cut, saying where it is whole (`report.json`, the site): a file stays
//! under 2 MB at any size. Every CI reader of JUnit takes a folder or a
//! glob (`junit/*.xml`, `**/TEST-*.xml`).
//!
//! A divergence (`diverged`, `known-issue-fixed`, `snapshot-changed`) is a
//! `<failure>` with its diff; an infrastructure outcome is an `<error>`, so
//! CI tells "Mastra changed" from "the machine failed us"; `not-applicable`,
//! `unmodelled` and `flaky` (re-checks that disagree) are `<skipped>`.
//! Everything else passes, a known issue or a provider rejection with a
//! note in `<system-out>`. A partial run adds `TEST-run.xml`, one error of
//! its own, so that CI never reads the results that are there as the whole
//! run.

use super::doc::{escape, ReportDoc, Row};
use super::query::{Order, ReportSource, Which};
use crate::judge::compare::Verdict;
use std::borrow::Cow;

/// A file takes no more test cases once its cases pass this many bytes.
pub const PART_BYTES: usize = 1 << 20;
/// A failure's or an error's text is cut past this many bytes.
pub const BODY_BYTES: usize = 32 << 10;

/// Where the files go: each file's name inside the folder, and its text.
pub type Emit<'a> = dyn FnMut(&str, &[u8]) -> Result<(), String> + 'a;

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

/// `text`, or its first `BODY_BYTES` and where the rest is.
fn cut(text: &str) -> Cow<'_, str> {
    if text.len() <= BODY_BYTES {
        return Cow::Borrowed(text);
    }
    let end = (0..=BODY_BYTES)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    Cow::Owned(format!(
        "{}\n[cut at {end} of {} bytes: the case's detail on the site, and report.json, have it whole]",
        &text[..end],
        text.len()
    ))
}

/// Test cases, failures, errors and skipped, as a suite's attributes.
#[derive(Default)]
struct Tally {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
}

impl Tally {
    fn add(&mut self, o: &Outcome) {
        self.tests += 1;
        match o {
            Outcome::Failure => self.failures += 1,
            Outcome::Error => self.errors += 1,
            Outcome::Skipped => self.skipped += 1,
            Outcome::Pass => {}
        }
    }

    fn attributes(&self) -> String {
        format!(
            "tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"",
            self.tests, self.failures, self.errors, self.skipped
        )
    }
}

/// A version's name as part of a file name: what is not a letter, a digit,
/// `.`, `-` or `_` becomes `_`.
fn file_part(version: &str) -> String {
    version
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// One file in the making: a version's suite, or the `part`th piece of it,
/// its test cases so far and their tally.
struct Part {
    version: String,
    part: usize,
    cases: Vec<u8>,
    tally: Tally,
}

impl Part {
    fn new(version: &str, part: usize) -> Part {
        Part {
            version: version.to_string(),
            part,
            cases: Vec::new(),
            tally: Tally::default(),
        }
    }

    fn add(&mut self, r: &Row) {
        let o = outcome(r.verdict);
        self.tally.add(&o);
        testcase(&mut self.cases, r, &o);
    }

    fn emit(self, emit: &mut Emit) -> Result<(), String> {
        let (name, suite) = match self.part {
            1 => (
                format!("TEST-mastra-core-{}.xml", file_part(&self.version)),
                format!("@mastra/core {}", self.version),
            ),
            n => (
                format!("TEST-mastra-core-{}-part{n}.xml", file_part(&self.version)),
                format!("@mastra/core {} (part {n})", self.version),
            ),
        };
        let tally = self.tally.attributes();
        let mut out = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mastra-conform\" {tally}>\n  <testsuite name=\"{}\" {tally}>\n",
            escape(&suite)
        )
        .into_bytes();
        out.extend_from_slice(&self.cases);
        out.extend_from_slice(b"  </testsuite>\n</testsuites>\n");
        emit(&name, &out)
    }
}

/// The JUnit files of `doc`, each name with its text (for a document
/// already in memory).
pub fn render(doc: &ReportDoc) -> Vec<(String, String)> {
    let mut files = Vec::new();
    write(doc, &mut |name: &str, text: &[u8]| {
        let text = String::from_utf8(text.to_vec()).expect("the XML is UTF-8");
        files.push((name.to_string(), text));
        Ok(())
    })
    .expect("writing to memory");
    files
}

/// The JUnit files of `src`, a version's at a time as its rows are read:
/// the run's versions in its order, a file with an empty suite for a
/// version without results. What is held is one file's text.
pub fn write(src: &dyn ReportSource, emit: &mut Emit) -> Result<(), String> {
    if let Some(why) = src.incomplete() {
        let text = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mastra-conform\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n  <testsuite name=\"run\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n    <testcase classname=\"mastra-conform.run\" name=\"complete\">\n      <error message=\"partial\" type=\"partial\">{}</error>\n    </testcase>\n  </testsuite>\n</testsuites>\n",
            escape(&why)
        );
        emit("TEST-run.xml", text.as_bytes())?;
    }
    let versions = src.versions()?;
    let mut next = 0;
    let mut open: Option<Part> = None;
    src.each(Which::All, Order::ByVersion, false, &mut |r: &Row| {
        match open.take() {
            Some(part) if part.version == r.version => {
                open = Some(if part.cases.len() >= PART_BYTES {
                    let n = part.part + 1;
                    part.emit(emit)?;
                    Part::new(&r.version, n)
                } else {
                    part
                });
            }
            done => {
                if let Some(part) = done {
                    part.emit(emit)?;
                }
                while let Some(v) = versions.get(next).filter(|v| **v != r.version) {
                    Part::new(v, 1).emit(emit)?;
                    next += 1;
                }
                next += 1;
                open = Some(Part::new(&r.version, 1));
            }
        }
        open.as_mut().expect("opened above").add(r);
        Ok(())
    })?;
    if let Some(part) = open {
        part.emit(emit)?;
    }
    for version in versions.iter().skip(next) {
        Part::new(version, 1).emit(emit)?;
    }
    Ok(())
}

fn testcase(w: &mut Vec<u8>, r: &Row, o: &Outcome) {
    use std::fmt::Write;
    let mut s = format!(
        "    <testcase classname=\"mastra-conform.{}\" name=\"{}\">\n",
        escape(&r.version),
        escape(&r.case)
    );
    let verdict = r.verdict.name();
    let _ = match o {
        Outcome::Failure => writeln!(
            s,
            "      <failure message=\"{verdict}\" type=\"{verdict}\">{}</failure>",
            escape(&cut(r.diff.as_deref().unwrap_or(verdict)))
        ),
        Outcome::Error => writeln!(
            s,
            "      <error message=\"{verdict}\" type=\"{verdict}\">{}</error>",
            escape(&cut(r.detail.as_deref().unwrap_or(verdict)))
        ),
        Outcome::Skipped => writeln!(s, "      <skipped message=\"{verdict}\"/>"),
        Outcome::Pass => Ok(()),
    };
    let note = note(r);
    if !note.is_empty() {
        let _ = writeln!(s, "      <system-out>{}</system-out>", escape(&cut(&note)));
    }
    s.push_str("    </testcase>\n");
    w.extend_from_slice(s.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::doc::tests::sample;

    fn file<'a>(files: &'a [(String, String)], name: &str) -> &'a str {
        let found = files.iter().find(|(n, _)| n == name);
        &found.unwrap_or_else(|| panic!("no {name} in {files:?}")).1
    }

    #[test]
    fn divergences_fail_and_infrastructure_errs() {
        let files = render(&sample());
        let names: Vec<_> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["TEST-mastra-core-1.0.4.xml", "TEST-mastra-core-1.67.0.xml"]
        );
        let old = file(&files, "TEST-mastra-core-1.0.4.xml");
        let new = file(&files, "TEST-mastra-core-1.67.0.xml");
        assert!(new.contains("<testsuites name=\"mastra-conform\" tests=\"2\" failures=\"1\" errors=\"1\" skipped=\"0\">"), "{new}");
        assert!(new.contains(
            "<testsuite name=\"@mastra/core 1.67.0\" tests=\"2\" failures=\"1\" errors=\"1\" skipped=\"0\">"
        ));
        assert!(new.contains("<failure message=\"diverged\""));
        assert!(new.contains(
            "<error message=\"install-failed\" type=\"install-failed\">npm failed</error>"
        ));
        assert!(
            old.contains("name=\"cases/b&lt;c&gt;.json\""),
            "names are escaped"
        );
        assert!(old.contains("known issue toolchoice-not-rewritten: present"));
    }

    #[test]
    fn a_long_diff_is_cut_where_a_character_ends() {
        let long = "é".repeat(BODY_BYTES);
        let shown = cut(&long);
        assert!(shown.len() < BODY_BYTES + 200, "{}", shown.len());
        assert!(shown.ends_with(&format!(
            "of {} bytes: the case's detail on the site, and report.json, have it whole]",
            long.len()
        )));
        assert_eq!(cut("-x 1\n+x 2\n"), "-x 1\n+x 2\n");
    }

    #[test]
    fn a_file_names_only_what_a_file_name_can_hold() {
        assert_eq!(file_part("1.67.0-alpha.4"), "1.67.0-alpha.4");
        assert_eq!(file_part("../1.0.0+b/x"), ".._1.0.0_b_x");
    }
}
