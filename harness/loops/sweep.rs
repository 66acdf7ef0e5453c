//! `sweep`: the corpus over a version list, and every place where what
//! Mastra does changes between neighbouring releases.
//!
//! In: `Sample`s of many versions: a live run's `CaseResult`s, or the
//! results of a JSON report already written (a matrix's), judged again by
//! today's model (`from_report`). Out: `Change`s (case, the last version
//! before, the first version after, the diff of the observed projections)
//! and `docs/figures/sweep.md`, the record of where each release the model
//! knows about came from (`model::releases`), opened by its `Provenance`.

use crate::case::Case;
use crate::js::json::Json;
use crate::judge::case_result::CaseResult;
use crate::judge::compare::{comparable, compare, Verdict};
use crate::loops::provenance::Provenance;
use crate::model::{predict, Prediction};
use crate::observation::Observed;
use crate::projection::Projection;
use crate::report::doc::ReportDoc;
use crate::route::Route;
use crate::version::spec::MastraVersion;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// What the sweep needs of one case on one version.
#[derive(Debug, Clone)]
pub struct Sample {
    pub case: String,
    pub version: MastraVersion,
    /// The observed projection as compared (`None`: the case did not run).
    pub observed: Option<Json>,
    /// The model did not predict it: it diverged, or the model says
    /// unmodelled (a change to or from it is no modelled change).
    pub divergent: bool,
    /// Why, when `divergent`: `diverged`, or `unmodelled: ` and the model's
    /// reason, so a sweep can say what is left to model by group.
    pub why: Option<String>,
}

impl Sample {
    pub fn of(r: &CaseResult) -> Sample {
        Sample {
            case: r.case.clone(),
            version: r.version,
            observed: r.observed.projection().map(comparable),
            divergent: r.verdict.is_divergence() || matches!(r.verdict, Verdict::Unmodelled),
            why: not_predicted(&r.predicted, r.verdict),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Change {
    pub case: String,
    pub before: MastraVersion,
    pub after: MastraVersion,
    pub diff: String,
    /// Whether the model predicted both sides (the change is taught).
    pub modelled: bool,
}

/// Every change between neighbouring versions, per case, in version order.
/// Versions where a case did not run (infrastructure) are skipped over, so a
/// change is reported between the two nearest versions that ran.
pub fn changes(samples: &[Sample]) -> Vec<Change> {
    let mut by_case: BTreeMap<&str, Vec<&Sample>> = BTreeMap::new();
    for s in samples {
        by_case.entry(s.case.as_str()).or_default().push(s);
    }
    let mut out = Vec::new();
    for (case, mut ss) in by_case {
        ss.sort_by_key(|s| s.version);
        let ran: Vec<(&Sample, &Json)> = ss
            .iter()
            .filter_map(|s| s.observed.as_ref().map(|o| (*s, o)))
            .collect();
        for pair in ran.windows(2) {
            let ((a, fa), (b, fb)) = (pair[0], pair[1]);
            if fa != fb {
                out.push(Change {
                    case: case.to_string(),
                    before: a.version,
                    after: b.version,
                    diff: crate::judge::compare::diff(fa, fb)
                        .replace("--- predicted", "--- before")
                        .replace("+++ observed", "+++ after"),
                    modelled: !a.divergent && !b.divergent,
                });
            }
        }
    }
    out.sort_by(|x, y| (x.after, &x.case).cmp(&(y.after, &y.case)));
    out
}

/// The versions and samples of a report already written (`run`'s or
/// `matrix`'s JSON report or results.jsonl, or a merged one), each
/// observation judged again by today's model: the case files are read from
/// `root` (by the name the report gives, `PATH` or `PATH@ROUTE`), so a sweep
/// can follow a model change without running Mastra again. A result whose
/// case file is gone or no longer parses is an error naming it.
pub fn from_report(
    doc: &ReportDoc,
    root: &Path,
) -> Result<(Vec<MastraVersion>, Vec<Sample>), String> {
    let versions = doc
        .versions()
        .iter()
        .map(|t| {
            MastraVersion::parse(t).ok_or_else(|| format!("run.versions: {t:?} is not a version"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut cases: HashMap<(String, Route), Case> = HashMap::new();
    let mut out = Vec::new();
    for (i, row) in doc.rows.iter().enumerate() {
        let at = |field: &str| format!("results[{i}].{field}");
        let version = MastraVersion::parse(&row.version)
            .ok_or_else(|| format!("{}: {:?} is not a version", at("version"), row.version))?;
        // A result on a route other than the default is named PATH@ROUTE.
        let (path, route) = Route::ALL
            .iter()
            .find_map(|r| {
                row.case
                    .strip_suffix(&format!("@{}", r.name()))
                    .map(|p| (p.to_string(), *r))
            })
            .unwrap_or_else(|| (row.case.clone(), Route::default()));
        let observed = match row.observed.get("applicable") {
            Some(_) => Some(
                Projection::from_json(&row.observed)
                    .map_err(|e| format!("{}: {e}", at("observed")))?,
            ),
            None => None,
        };
        let key = (path.clone(), route);
        if !cases.contains_key(&key) {
            let case = crate::run::corpus::read_case(&root.join(&path))
                .map_err(|e| format!("{}: {e}", at("case")))?;
            let case = if case.names_its_route() {
                case
            } else {
                case.on_route(route)
            };
            cases.insert(key.clone(), case);
        }
        // Judged as a run judges it, so a race or a dropping stream is
        // followed the same way; known issues and snapshots refine only
        // what is as modelled, so they change no answer here.
        let (observed, why) = match observed {
            Some(projection) => {
                let prediction = predict(&cases[&key], version);
                let ran = Observed::Ran {
                    projection,
                    bodies: Vec::new(),
                };
                let verdict = compare(&prediction, &ran);
                (
                    ran.projection().map(comparable),
                    not_predicted(&prediction, verdict),
                )
            }
            None => (None, None),
        };
        out.push(Sample {
            case: row.case.clone(),
            version,
            observed,
            divergent: why.is_some(),
            why,
        });
    }
    Ok((versions, out))
}

/// Why a result is not what the model predicts (`None` where it is).
fn not_predicted(prediction: &Prediction, verdict: Verdict) -> Option<String> {
    match (prediction, verdict) {
        (Prediction::Unmodelled(why), Verdict::Unmodelled) => Some(format!("unmodelled: {why}")),
        (_, v) if v.is_divergence() => Some("diverged".to_string()),
        _ => None,
    }
}

/// How many diffs each boundary shows unless every one is asked for: the
/// sweep of every 0.x on every route changes thousands of cases at once
/// (14 MB of diffs), which no reader reads and the repository should not
/// carry; the table still names every case.
pub const DIFFS_PER_BOUNDARY: usize = 5;

/// `docs/figures/sweep.md`: when, how and at which commit it was measured,
/// the versions swept, and each change with its diff: every one with
/// `all_diffs`, else the first `DIFFS_PER_BOUNDARY` of each boundary, those
/// not modelled first.
pub fn markdown(
    versions: &[MastraVersion],
    skipped: &[(MastraVersion, String)],
    (samples, changes): (&[Sample], &[Change]),
    measured: &Provenance,
    all_diffs: bool,
) -> String {
    let mut out = String::from("# Sweep: where what Mastra sends changes between releases\n\n");
    out.push_str(
        "Written by `mastra-conform sweep` (`make sweep` writes this file); run it again rather than \
         editing it. The corpus ran on every version below; each change is a case whose observed \
         projection differs between two neighbouring versions that both ran. `model/releases.rs` cites \
         these boundaries.\n\n",
    );
    out.push_str(&measured.markdown());
    out.push('\n');
    out.push_str(&format!("## Versions ({})\n\n", versions.len()));
    out.push_str(
        &versions
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    );
    out.push_str("\n\n");
    if !skipped.is_empty() {
        out.push_str("Did not run:\n\n");
        for (v, why) in skipped {
            out.push_str(&format!(
                "- {v}: {}\n",
                why.lines().next().unwrap_or_default()
            ));
        }
        out.push('\n');
    }
    out.push_str(&not_predicted_table(samples));
    let mut by_boundary: BTreeMap<(MastraVersion, MastraVersion), Vec<&Change>> = BTreeMap::new();
    for c in changes {
        by_boundary.entry((c.before, c.after)).or_default().push(c);
    }
    out.push_str(&format!(
        "## Changes ({} boundaries, {} case changes)\n\n",
        by_boundary.len(),
        changes.len()
    ));
    out.push_str("| before | after | cases | modelled |\n|---|---|---|---|\n");
    for ((a, b), cs) in &by_boundary {
        let names: Vec<String> = cs.iter().map(|c| format!("`{}`", short(&c.case))).collect();
        let modelled = cs.iter().all(|c| c.modelled);
        out.push_str(&format!(
            "| {a} | {b} | {} | {} |\n",
            names.join(", "),
            if modelled { "yes" } else { "**no**" }
        ));
    }
    for ((a, b), cs) in &by_boundary {
        out.push_str(&format!("\n### {a} → {b}\n"));
        let mut shown: Vec<&&Change> = cs.iter().collect();
        shown.sort_by_key(|c| c.modelled);
        let limit = if all_diffs {
            shown.len()
        } else {
            DIFFS_PER_BOUNDARY
        };
        for c in shown.iter().take(limit) {
            out.push_str(&format!("\n`{}`\n\n```diff\n{}```\n", c.case, c.diff));
        }
        if shown.len() > limit {
            out.push_str(&format!(
                "\n{} more cases change here (named in the table above); `sweep --all-diffs` writes every diff.\n",
                shown.len() - limit
            ));
        }
    }
    out
}

/// The results the model does not predict, by why: how many, on which
/// releases, and a few of the cases, so what is left to model reads as
/// groups rather than as boundaries marked "no". Empty when there are none.
fn not_predicted_table(samples: &[Sample]) -> String {
    let mut by_why: BTreeMap<&str, Vec<&Sample>> = BTreeMap::new();
    for s in samples {
        if let Some(why) = &s.why {
            by_why.entry(why.as_str()).or_default().push(s);
        }
    }
    if by_why.is_empty() {
        return String::new();
    }
    let total: usize = by_why.values().map(Vec::len).sum();
    let mut groups: Vec<(&str, Vec<&Sample>)> = by_why.into_iter().collect();
    groups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    let mut out = format!(
        "## Results the model does not predict ({total})\n\n\
         | why | results | releases | cases |\n|---|---:|---|---|\n"
    );
    for (why, ss) in groups {
        let mut versions: Vec<MastraVersion> = ss.iter().map(|s| s.version).collect();
        versions.sort();
        versions.dedup();
        // A case file once, whichever routes it ran on.
        let mut cases: Vec<&str> = ss
            .iter()
            .map(|s| {
                short(
                    s.case
                        .split_once('@')
                        .map_or(s.case.as_str(), |(path, _)| path),
                )
            })
            .collect();
        cases.sort_unstable();
        cases.dedup();
        let releases = match (versions.first(), versions.last()) {
            (Some(a), Some(b)) if a != b => format!("{a} to {b} ({})", versions.len()),
            (Some(a), _) => a.to_string(),
            _ => String::new(),
        };
        let mut named: Vec<String> = cases.iter().take(3).map(|c| format!("`{c}`")).collect();
        if cases.len() > 3 {
            named.push(format!("and {} more", cases.len() - 3));
        }
        out.push_str(&format!(
            "| {} | {} | {releases} | {} |\n",
            why.replace('|', "\\|").replace('\n', " "),
            ss.len(),
            named.join(", ")
        ));
    }
    out.push('\n');
    out
}

fn short(case: &str) -> &str {
    let c = case.strip_prefix("cases/").unwrap_or(case);
    c.strip_suffix(".json").unwrap_or(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::compare::Verdict;
    use crate::model::Prediction;
    use crate::observation::Observed;
    use crate::projection::Projection;

    fn result(case: &str, v: (u32, u32, u32), mutated: &[&str]) -> CaseResult {
        let p = Projection {
            mutated: mutated.iter().map(|s| s.to_string()).collect(),
            ..Projection::empty()
        };
        CaseResult {
            index: 0,
            case: case.into(),
            route: crate::route::Route::default(),
            version: MastraVersion::new(v.0, v.1, v.2),
            verdict: Verdict::AsModelled,
            predicted: Prediction::Projection(p.clone()),
            observed: Observed::Ran {
                projection: p,
                bodies: Vec::new(),
            },
            findings: Default::default(),
        }
    }

    #[test]
    fn a_change_is_found_between_the_neighbours_that_ran() {
        let mut rs = vec![
            result("c", (1, 2, 0), &[]),
            result("c", (1, 0, 4), &[]),
            result("c", (1, 3, 0), &["tools"]),
            result("d", (1, 0, 4), &[]),
            result("d", (1, 3, 0), &[]),
        ];
        let mut gap = result("c", (1, 2, 5), &[]);
        gap.observed = Observed::Timeout(std::time::Duration::from_secs(1));
        rs.push(gap);
        let samples: Vec<Sample> = rs.iter().map(Sample::of).collect();
        let cs = changes(&samples);
        assert_eq!(cs.len(), 1);
        assert_eq!(
            (cs[0].before, cs[0].after),
            (MastraVersion::new(1, 2, 0), MastraVersion::new(1, 3, 0))
        );
        assert!(cs[0].diff.contains("+    \"tools\""), "{}", cs[0].diff);
        let measured = Provenance {
            date: "2026-12-01 09:00 UTC".into(),
            command: "mastra-conform sweep --versions all".into(),
            commit: "2b7db7c".into(),
            cores: 2,
            load: None,
        };
        let md = markdown(
            &[MastraVersion::new(1, 0, 4)],
            &[],
            (&[], &cs),
            &measured,
            false,
        );
        assert!(md.contains("| 1.2.0 | 1.3.0 | `c` | yes |"), "{md}");
        for line in [
            "| date | 2026-12-01 09:00 UTC |",
            "| command | `mastra-conform sweep --versions all` |",
            "| commit | `2b7db7c` |",
            "| cores | 2 |",
        ] {
            assert!(md.contains(line), "no {line:?} in:\n{md}");
        }
    }

    #[test]
    fn a_boundary_shows_its_first_diffs_unmodelled_first_and_counts_the_rest() {
        let change = |i: usize, modelled: bool| Change {
            case: format!("cases/c{i}.json"),
            before: MastraVersion::new(1, 0, 4),
            after: MastraVersion::new(1, 1, 0),
            diff: format!("-a{i}\n+b{i}\n"),
            modelled,
        };
        let cs: Vec<Change> = (0..DIFFS_PER_BOUNDARY + 3)
            .map(|i| change(i, i != DIFFS_PER_BOUNDARY + 2))
            .collect();
        let measured = Provenance {
            date: "2026-12-02 04:00 UTC".into(),
            command: "mastra-conform sweep --versions 0.x".into(),
            commit: "0e314bd".into(),
            cores: 2,
            load: None,
        };
        let versions = [MastraVersion::new(1, 0, 4), MastraVersion::new(1, 1, 0)];
        let short = markdown(&versions, &[], (&[], &cs), &measured, false);
        let last = DIFFS_PER_BOUNDARY + 2;
        assert!(
            short.contains(&format!("`cases/c{last}.json`\n")),
            "the one not modelled is shown: {short}"
        );
        assert_eq!(
            short.matches("```diff").count(),
            DIFFS_PER_BOUNDARY,
            "{short}"
        );
        assert!(short.contains("\n3 more cases change here"), "{short}");
        assert!(
            short.contains(&format!("`c{}`", DIFFS_PER_BOUNDARY + 1)),
            "the table names every case: {short}"
        );
        let all = markdown(&versions, &[], (&[], &cs), &measured, true);
        assert_eq!(all.matches("```diff").count(), cs.len(), "{all}");
        assert!(!all.contains("more cases change here"), "{all}");
    }

    #[test]
    fn a_written_report_is_judged_again_by_todays_model() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let path = "cases/report/search-web-is-sent-as-search_web.json";
        let case = crate::run::corpus::read_case(&root.join(path))
            .unwrap()
            .on_route(Route::Mistral);
        let (old, new) = (MastraVersion::new(1, 0, 4), MastraVersion::new(1, 67, 0));
        let projection = |v| match predict(&case, v) {
            Prediction::Projection(p) => p.to_json(),
            Prediction::Races(_) => panic!("races"),
            Prediction::Dropping(_) => panic!("dropping"),
            Prediction::Unmodelled(why) => panic!("unmodelled: {why}"),
        };
        let result = |v: MastraVersion, observed: Json| {
            Json::object([
                ("case", Json::str(&format!("{path}@mistral"))),
                ("route", Json::str("mistral")),
                ("version", Json::str(&v.to_string())),
                ("verdict", Json::str("as-modelled")),
                ("observed", observed),
            ])
        };
        // 1.67.0 as the model predicts it; 1.0.4 with a tool renamed, which
        // no model predicts.
        let mut wrong = projection(old).to_compact();
        wrong = wrong.replacen("search_web", "search_wob", 1);
        let results = [
            result(old, Json::parse(&wrong).unwrap()),
            result(new, projection(new)),
        ];
        let doc = |results: Vec<Json>| {
            let report = Json::object([
                (
                    "run",
                    Json::object([(
                        "versions",
                        Json::Array(vec![Json::str("1.0.4"), Json::str("1.67.0")]),
                    )]),
                ),
                ("results", Json::Array(results)),
            ]);
            ReportDoc::parse(&report.to_compact()).unwrap()
        };
        let (versions, samples) = from_report(&doc(results.to_vec()), root).unwrap();
        assert_eq!(versions, [old, new]);
        assert!(samples[0].divergent, "the renamed tool is not predicted");
        assert_eq!(samples[0].why.as_deref(), Some("diverged"));
        assert!(!samples[1].divergent);
        let cs = changes(&samples);
        assert_eq!(cs.len(), 1);
        assert!(!cs[0].modelled);
        assert!(cs[0].diff.contains("search_wob"), "{}", cs[0].diff);

        let gone = vec![Json::object([
            ("case", Json::str("cases/no-such-case.json")),
            ("version", Json::str("1.0.4")),
            ("verdict", Json::str("as-modelled")),
        ])];
        let err = from_report(&doc(gone), root).unwrap_err();
        assert!(err.contains("results[0].case"), "{err}");
        assert!(err.contains("no-such-case.json"), "{err}");
    }

    #[test]
    fn a_change_to_or_from_an_unmodelled_result_is_not_modelled() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let path = "cases/approval/reused-call-id-answered-declined-stream.json";
        let case = crate::run::corpus::read_case(&root.join(path)).unwrap();
        let (open, held) = (MastraVersion::new(0, 22, 2), MastraVersion::new(0, 23, 1));
        assert!(matches!(predict(&case, open), Prediction::Unmodelled(_)));
        let Prediction::Projection(p) = predict(&case, held) else {
            panic!("{held} is modelled");
        };
        let observed = |v: MastraVersion, projection: Json| {
            Json::object([
                ("case", Json::str(path)),
                ("version", Json::str(&v.to_string())),
                ("verdict", Json::str("as-modelled")),
                ("observed", projection),
            ])
        };
        // What 0.22.2 observed matters not, only that it differs.
        let other = Projection::empty();
        assert!(!p.requests.is_empty());
        let report = Json::object([
            (
                "run",
                Json::object([(
                    "versions",
                    Json::Array(vec![Json::str("0.22.2"), Json::str("0.23.1")]),
                )]),
            ),
            (
                "results",
                Json::Array(vec![
                    observed(open, other.to_json()),
                    observed(held, p.to_json()),
                ]),
            ),
        ]);
        let doc = ReportDoc::parse(&report.to_compact()).unwrap();
        let (versions, samples) = from_report(&doc, root).unwrap();
        assert!(
            samples[0].divergent,
            "an unmodelled result counts as unpredicted"
        );
        let Prediction::Unmodelled(reason) = predict(&case, open) else {
            unreachable!()
        };
        assert_eq!(samples[0].why, Some(format!("unmodelled: {reason}")));
        assert!(!samples[1].divergent);
        assert_eq!(samples[1].why, None);
        let cs = changes(&samples);
        assert_eq!(cs.len(), 1);
        assert!(!cs[0].modelled);
        // The record names the group, its count, release and case.
        let measured = Provenance {
            date: "2026-12-01 09:00 UTC".into(),
            command: "mastra-conform sweep --from r.json".into(),
            commit: "2b7db7c".into(),
            cores: 2,
            load: None,
        };
        let md = markdown(&versions, &[], (&samples, &cs), &measured, false);
        assert!(
            md.contains("## Results the model does not predict (1)"),
            "{md}"
        );
        assert!(
            md.contains(&format!(
                "| unmodelled: {} | 1 | 0.22.2 | `approval/reused-call-id-answered-declined-stream` |",
                reason.replace('|', "\\|")
            )),
            "{md}"
        );
    }
}
