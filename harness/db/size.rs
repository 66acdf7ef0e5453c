//! The size of a whole matrix's database, without running the matrix: every
//! corpus case and the nightly's 200 generated cases (seed 1) on every
//! route, predicted by the real model on every release of both lines that
//! `node-probe/costs.json` lists, the first 150,000 of those results, each prediction stored
//! as the observation (as a matrix where everything is as modelled). The
//! projections differ between releases exactly where the model says
//! behaviour changed, as a sweep's do, so the content store meets the same
//! sharing a real run would.
//!
//! Time and memory stay in `make bench`; this test keeps the bytes.

use super::write::DbWriter;
use super::RunDb;
use crate::js::json::Json;
use crate::judge::refine::input_json;
use crate::model::{predict, Prediction};
use crate::route::RouteSet;
use crate::run::corpus::{load_cases, on_routes};
use crate::version::spec::MastraVersion;
use std::path::Path;

/// The database of the whole matrix (1.x, and 0.x beside it, about 150,000
/// results) and the site built from it must fit in 40 MB together; the
/// database keeps to 30 MB of that.
const DATABASE_LIMIT: u64 = 30 << 20;

#[test]
fn a_database_of_150000_realistic_results_stays_under_its_limit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let costs = std::fs::read_to_string(root.join("node-probe/costs.json")).unwrap();
    let costs = Json::parse_document(&costs).unwrap();
    let mut versions: Vec<MastraVersion> = costs
        .get("versions")
        .and_then(Json::members)
        .unwrap()
        .into_iter()
        .filter_map(|(v, _)| MastraVersion::parse(&v.to_lossy()))
        .collect();
    versions.sort();
    let dir = tempfile::tempdir().unwrap();
    let generated = dir.path().join("fuzz-cases");
    crate::loops::fuzz::write_cases(1, 200, &generated).unwrap();
    let (cases, errors) = load_cases(&[root.join("cases"), generated]);
    assert!(errors.is_empty(), "{errors:?}");
    let cases = on_routes(cases, Some(&RouteSet::all()));
    const TOTAL: usize = 150_000;
    assert!(
        cases.len() * versions.len() >= TOTAL,
        "{} cases on {} versions",
        cases.len(),
        versions.len()
    );
    let total = TOTAL;

    let path = dir.path().join(super::FILE);
    let run = Json::object([(
        "versions",
        Json::Array(versions.iter().map(|v| Json::str(&v.to_string())).collect()),
    )]);
    let mut db = DbWriter::create(&path, &run).unwrap();
    let mut json_bytes = 0usize;
    let mut added = 0;
    'all: for (index, case) in cases.iter().enumerate() {
        let input = Json::str(&input_json(case).to_pretty());
        for &version in &versions {
            if added == total {
                break 'all;
            }
            added += 1;
            let predicted = predict(case, version);
            let observed = match &predicted {
                Prediction::Projection(p) => p.to_json(),
                _ => Json::Null,
            };
            let result = Json::object([
                ("case", Json::str(&case.name())),
                ("route", Json::str(case.route.name())),
                ("version", Json::str(&version.to_string())),
                ("verdict", Json::str("as-modelled")),
                ("predicted", predicted.to_json()),
                ("observed", observed),
                ("input", input.clone()),
            ]);
            if added % 100 == 0 {
                // One result in a hundred, measured: the JSONL it would
                // have been.
                json_bytes += 100 * result.to_compact().len();
            }
            db.add(Some(index), &result).unwrap();
        }
    }
    assert_eq!(db.finish(&run, false).unwrap(), total);
    let (bytes, blobs, results) = RunDb::open(&path).unwrap().sizes().unwrap();
    eprintln!(
        "{results} results, {blobs} distinct values: {bytes} bytes ({} per result; \
         about {json_bytes} bytes as compact JSON lines)",
        bytes / results as u64
    );
    assert_eq!(results, total);
    // The model's projections differ between releases and cases (3,144
    // distinct values when this was written): far more than one per case,
    // far fewer than one per result.
    assert!(
        blobs > 2_000 && blobs < results / 10,
        "{blobs} distinct values"
    );
    assert!(
        bytes <= DATABASE_LIMIT,
        "{bytes} bytes for {results} results, over {DATABASE_LIMIT}"
    );
}
