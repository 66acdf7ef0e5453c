//! `changes [VERSION] [--json]`: what changed at a release, each change with
//! its evidence (`model::releases::changes_at`), or the whole release table.
//! `changes --json` writes what `node-probe/releases.json` holds.

use super::out::print_out;
use crate::js::json::Json;
use crate::model::releases::{changes_at, table_json, Change, TABLE};
use crate::outcome::{Exit, Failure};
use crate::version::spec::MastraVersion;
use clap::Args;

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct ChangesArgs {
    /// A release (`1.69.0`; a prerelease is its release); without it, every
    /// line of the table.
    pub version: Option<String>,
    /// Write JSON: the changes at VERSION, or without one the whole table
    /// (what node-probe/releases.json holds).
    #[arg(long)]
    pub json: bool,
}

pub fn changes(args: ChangesArgs) -> Result<Exit, Failure> {
    let Some(text) = &args.version else {
        print_out(&if args.json {
            format!("{}\n", table_json().to_pretty())
        } else {
            table_text()
        });
        return Ok(Exit::Ok);
    };
    let version = MastraVersion::parse(text).ok_or_else(|| {
        Failure::bad(format!(
            "changes {text}: not a version (MAJOR.MINOR.PATCH, as 1.69.0)"
        ))
    })?;
    let found = changes_at(version);
    if args.json {
        let changes = found.iter().map(|(change, b)| {
            let mut line = b.to_json();
            if let Json::Object(members) = &mut line {
                members.insert(0, ("change".into(), Json::str(word(*change))));
            }
            line
        });
        let doc = Json::object([
            ("version", version.release().to_json()),
            ("changes", Json::Array(changes.collect())),
        ]);
        print_out(&format!("{}\n", doc.to_pretty()));
        return Ok(Exit::Ok);
    }
    let release = version.release();
    let mut out = match found.len() {
        0 => format!("@mastra/core {release}: no line of the release table begins or ends here\n"),
        1 => format!("@mastra/core {release}: 1 change\n"),
        n => format!("@mastra/core {release}: {n} changes\n"),
    };
    for (change, b) in &found {
        out.push_str(&format!(
            "\n{} {} (Release::{}; {})\n",
            word(*change),
            b.name,
            b.field,
            b.range()
        ));
        for line in b.evidence_text().lines() {
            out.push_str(&format!("    {line}\n").replace("    \n", "\n"));
        }
    }
    print_out(&out);
    Ok(Exit::Ok)
}

fn word(change: Change) -> &'static str {
    match change {
        Change::Began => "began",
        Change::Ended => "ended",
    }
}

/// Every line, one a row: its name, its releases, its field.
fn table_text() -> String {
    let width = TABLE.iter().map(|b| b.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for b in TABLE {
        let ended = b.ended.map(|e| format!(", ended {e}")).unwrap_or_default();
        out.push_str(&format!(
            "{:width$}  {}{ended}  (Release::{})\n",
            b.name,
            b.range(),
            b.field
        ));
    }
    out
}
