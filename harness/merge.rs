//! `merge`: the JSON reports of a sharded run's slices, combined into the one
//! report the unsharded run would have written.
//!
//! In: shard reports. Out: one report, or one error that says what does not
//! fit: reports of different harness commits, corpora or seeds are never
//! combined, and a missing slice (or a slice given twice) is named.

use crate::commands::{exit, CommandError};
use crate::json::Json;
use crate::jsstr::JsString;
use crate::pipeline::CaseResult;
use crate::report::{report_json, result_from_json, summary, write_atomically, RunInfo};
use crate::shard::Shard;
use crate::versions::MastraVersion;
use std::path::{Path, PathBuf};

/// One shard report as read.
pub struct ShardReport {
    pub path: PathBuf,
    pub run: Json,
    pub results: Vec<CaseResult>,
}

fn field(run: &Json, k: &str) -> String {
    run.get(k).map_or_else(String::new, |v| {
        v.as_str()
            .map_or_else(|| v.to_compact(), JsString::to_lossy)
    })
}

pub fn read(path: &Path) -> Result<ShardReport, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let v = Json::parse(&text).map_err(|e| format!("{}: not valid JSON: {e}", path.display()))?;
    let run = v
        .get("run")
        .cloned()
        .ok_or_else(|| format!("{}: field `run`: missing", path.display()))?;
    let items = v.get("results").and_then(Json::as_array).ok_or_else(|| {
        format!(
            "{}: field `results`: missing or not an array",
            path.display()
        )
    })?;
    let results = items
        .iter()
        .enumerate()
        .map(|(i, r)| {
            result_from_json(r, i)
                .map_err(|e| format!("{}: field `results[{i}]`: {e}", path.display()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ShardReport {
        path: path.to_path_buf(),
        run,
        results,
    })
}

/// Check that the reports are the slices of one run and combine them.
pub fn merge(reports: &[ShardReport]) -> Result<(RunInfo, Vec<CaseResult>), String> {
    let first = reports.first().ok_or("no report to merge")?;
    for key in ["commit", "corpus", "seed"] {
        let want = field(&first.run, key);
        for r in &reports[1..] {
            let got = field(&r.run, key);
            if got != want {
                return Err(format!(
                    "{} and {} come from different runs: field `run.{key}` is {want:?} in one and {got:?} in the other",
                    first.path.display(),
                    r.path.display()
                ));
            }
        }
    }
    let shards: Vec<(Shard, &Path)> = reports
        .iter()
        .map(|r| {
            let s = field(&r.run, "shard");
            Shard::parse(&s).map(|sh| (sh, r.path.as_path())).map_err(|_| {
                format!("{}: field `run.shard`: {s:?} is not a slice K/N (was it run with --shard?)", r.path.display())
            })
        })
        .collect::<Result<_, _>>()?;
    let count = shards[0].0.count;
    if let Some((s, p)) = shards.iter().find(|(s, _)| s.count != count) {
        return Err(format!("{}: slice {s} is not one of {count}", p.display()));
    }
    for k in 1..=count {
        let holders: Vec<&Path> = shards
            .iter()
            .filter(|(s, _)| s.index == k)
            .map(|(_, p)| *p)
            .collect();
        match holders.len() {
            0 => return Err(format!("slice {k}/{count} is missing")),
            1 => {}
            _ => {
                return Err(format!(
                    "slice {k}/{count} is given twice: {}",
                    holders
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
        }
    }
    let mut info = RunInfo {
        harness: field(&first.run, "harness"),
        commit: field(&first.run, "commit"),
        node: field(&first.run, "node"),
        command: field(&first.run, "command"),
        corpus: field(&first.run, "corpus"),
        seed: first
            .run
            .get("seed")
            .and_then(Json::as_f64)
            .map(|s| s as u64),
        ..RunInfo::default()
    };
    let mut versions: Vec<MastraVersion> = Vec::new();
    for r in reports {
        for v in r
            .run
            .get("versions")
            .and_then(Json::as_array)
            .unwrap_or_default()
        {
            if let Some(v) = v.as_str().and_then(|s| MastraVersion::parse(&s.to_lossy())) {
                if !versions.contains(&v) {
                    versions.push(v);
                }
            }
        }
        info.interrupted |= r
            .run
            .get("interrupted")
            .and_then(Json::as_bool)
            .unwrap_or(false);
    }
    info.versions = versions.clone();
    let mut results: Vec<CaseResult> = reports
        .iter()
        .flat_map(|r| r.results.iter().cloned())
        .collect();
    let rank = |v: MastraVersion| versions.iter().position(|x| *x == v).unwrap_or(usize::MAX);
    results.sort_by(|a, b| (&a.case, rank(a.version)).cmp(&(&b.case, rank(b.version))));
    if let Some(w) = results
        .windows(2)
        .find(|w| w[0].case == w[1].case && w[0].version == w[1].version)
    {
        return Err(format!(
            "{} on {} appears in two slices",
            w[0].case, w[0].version
        ));
    }
    Ok((info, results))
}

pub fn merge_command(paths: &[PathBuf], out: &Path) -> Result<u8, CommandError> {
    let reports = paths
        .iter()
        .map(|p| read(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(CommandError::BadInput)?;
    let (info, results) = merge(&reports).map_err(CommandError::BadInput)?;
    write_atomically(out, &report_json(&info, &results).to_pretty())
        .map_err(|e| CommandError::Infra(format!("cannot write {}: {e}", out.display())))?;
    print!("{}", summary(&info, &results));
    println!(
        "merged {} slices, {} results, into {}",
        reports.len(),
        results.len(),
        out.display()
    );
    Ok(if results.iter().any(|r| r.verdict.is_divergence()) {
        exit::FINDING
    } else {
        exit::OK
    })
}
