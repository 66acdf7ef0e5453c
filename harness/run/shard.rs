//! `Shard`: a deterministic slice of a run's work, so that CI can fan one
//! matrix out over N runners and `merge` can put the reports back together.
//!
//! The work is a set of `Unit`s: one version, and the cases of that version
//! whose index falls in one of `chunks` residue classes. Versions are kept
//! whole when there are at least as many as shards (an install and a probe
//! start are paid once per version and runner), and split into chunks only
//! when there are more shards than versions. Units are weighed by measured
//! cost (`Costs`, recorded by `sweep`/`run` in `node-probe/costs.json`) and
//! dealt by longest-processing-time-first onto the least-loaded shard, ties
//! broken by unit order, so every machine computes the same slices and the N
//! slices cover every (case, version) exactly once.

use crate::js::json::Json;
use crate::version::spec::MastraVersion;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// `--shard K/N`: the K-th of N slices, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    pub fn whole() -> Shard {
        Shard { index: 1, count: 1 }
    }
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("bad value {text:?}: expected K/N with 1 <= K <= N, like 2/3");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if count == 0 || index == 0 || index > count || count > 1024 {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// One version's cases whose index `i` has `i % chunks == chunk`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Unit {
    pub version: MastraVersion,
    pub chunk: u32,
    pub chunks: u32,
}

impl Unit {
    pub fn holds(&self, case_index: usize) -> bool {
        case_index as u64 % u64::from(self.chunks) == u64::from(self.chunk)
    }
}

/// Measured seconds per version: installing it, and running the corpus on it
/// (probe start included). Versions without a measurement get the median.
#[derive(Debug, Clone, Default)]
pub struct Costs {
    pub install: BTreeMap<MastraVersion, f64>,
    pub run: BTreeMap<MastraVersion, f64>,
}

/// An install measured on these machines (~13 s per version); the default
/// when a version has no measurement of its own.
const DEFAULT_INSTALL: f64 = 13.0;

impl Costs {
    pub fn load(path: &Path) -> Costs {
        let Ok(text) = std::fs::read_to_string(path) else {
            return Costs::default();
        };
        let Ok(v) = Json::parse_document(&text) else {
            return Costs::default();
        };
        let mut costs = Costs::default();
        for (k, entry) in v
            .get("versions")
            .and_then(Json::members)
            .unwrap_or_default()
        {
            if let Some(version) = MastraVersion::parse(&k.to_lossy()) {
                if let Some(x) = entry.get("install").and_then(Json::as_f64) {
                    costs.install.insert(version, x);
                }
                if let Some(x) = entry.get("run").and_then(Json::as_f64) {
                    costs.run.insert(version, x);
                }
            }
        }
        costs
    }

    pub fn to_json(&self) -> Json {
        let versions: std::collections::BTreeSet<&MastraVersion> =
            self.install.keys().chain(self.run.keys()).collect();
        Json::object([(
            "versions",
            Json::Object(
                versions
                    .into_iter()
                    .map(|v| {
                        let mut m = Vec::new();
                        if let Some(x) = self.install.get(v) {
                            m.push(("install", Json::Number(format!("{x:.2}"))));
                        }
                        if let Some(x) = self.run.get(v) {
                            m.push(("run", Json::Number(format!("{x:.2}"))));
                        }
                        (v.to_string().into(), Json::object(m))
                    })
                    .collect(),
            ),
        )])
    }

    fn median(map: &BTreeMap<MastraVersion, f64>, default: f64) -> f64 {
        let mut xs: Vec<f64> = map.values().copied().collect();
        if xs.is_empty() {
            return default;
        }
        xs.sort_by(f64::total_cmp);
        xs[xs.len() / 2]
    }

    /// The expected seconds of one version on a fresh runner.
    pub fn version_cost(&self, v: MastraVersion) -> f64 {
        let install = self
            .install
            .get(&v)
            .copied()
            .unwrap_or_else(|| Self::median(&self.install, DEFAULT_INSTALL));
        let run = self
            .run
            .get(&v)
            .copied()
            .unwrap_or_else(|| Self::median(&self.run, 2.0));
        install + run
    }
}

/// The units of work, each with the shard (1-based) it is assigned to.
pub fn assign(versions: &[MastraVersion], count: u32, costs: &Costs) -> Vec<(Unit, u32)> {
    let n = versions.len().max(1) as u32;
    let chunks = count.div_ceil(n).max(1);
    let mut units: Vec<(Unit, f64)> = Vec::new();
    for &version in versions {
        let cost = costs.version_cost(version);
        let install = costs
            .install
            .get(&version)
            .copied()
            .unwrap_or(DEFAULT_INSTALL);
        for chunk in 0..chunks {
            // Each chunk of a split version pays the install again on its
            // runner, and a share of the running.
            let run_share = (cost - install).max(0.0) / f64::from(chunks);
            units.push((
                Unit {
                    version,
                    chunk,
                    chunks,
                },
                install + run_share,
            ));
        }
    }
    // Longest first; ties by unit order, so every machine assigns alike.
    units.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut load = vec![0.0f64; count as usize];
    let mut out = Vec::with_capacity(units.len());
    for (unit, cost) in units {
        let (shard, _) = load
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1).then(a.0.cmp(&b.0)))
            .unwrap_or((0, &0.0));
        load[shard] += cost;
        out.push((unit, shard as u32 + 1));
    }
    out.sort_by_key(|(u, _)| *u);
    out
}

/// The units of one shard.
pub fn units_of(versions: &[MastraVersion], shard: Shard, costs: &Costs) -> Vec<Unit> {
    assign(versions, shard.count, costs)
        .into_iter()
        .filter(|(_, s)| *s == shard.index)
        .map(|(u, _)| u)
        .collect()
}

/// The expected wall time of each shard, as `assign` shares the work out.
pub fn projected_loads(versions: &[MastraVersion], count: u32, costs: &Costs) -> Vec<f64> {
    let chunks = count.div_ceil(versions.len().max(1) as u32).max(1);
    let mut load = vec![0.0; count as usize];
    for (unit, shard) in assign(versions, count, costs) {
        let install = costs
            .install
            .get(&unit.version)
            .copied()
            .unwrap_or(DEFAULT_INSTALL);
        let run_share = (costs.version_cost(unit.version) - install).max(0.0) / f64::from(chunks);
        load[shard as usize - 1] += install + run_share;
    }
    load
}

/// Where measured per-version costs are kept for `--shard`.
pub fn costs_path(root: &Path) -> std::path::PathBuf {
    root.join("node-probe").join("costs.json")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn versions(n: u32) -> Vec<MastraVersion> {
        (0..n).map(|i| MastraVersion::new(1, i, 0)).collect()
    }

    #[test]
    fn shard_flags_parse_strictly() {
        assert_eq!("2/3".parse(), Ok(Shard { index: 2, count: 3 }));
        for bad in ["0/3", "4/3", "1/0", "x/2", "3", "", "1/2/3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn heavy_versions_are_spread_out() {
        let vs = versions(4);
        let mut costs = Costs::default();
        costs.run.insert(vs[0], 100.0);
        costs.run.insert(vs[1], 100.0);
        costs.run.insert(vs[2], 1.0);
        costs.run.insert(vs[3], 1.0);
        let p = assign(&vs, 2, &costs);
        let shard_of = |v: MastraVersion| p.iter().find(|(u, _)| u.version == v).unwrap().1;
        assert_ne!(
            shard_of(vs[0]),
            shard_of(vs[1]),
            "the two heavy versions go to different shards"
        );
    }

    proptest! {
        /// N slices cover every (case, version) exactly once, whatever the
        /// counts and costs.
        #[test]
        fn slices_cover_everything_exactly_once(nv in 1u32..12, count in 1u32..20, cases in 1usize..30,
                                                 runs in prop::collection::vec(0.0f64..50.0, 12)) {
            let vs = versions(nv);
            let mut costs = Costs::default();
            for (v, r) in vs.iter().zip(&runs) { costs.run.insert(*v, *r); }
            let mut seen = std::collections::BTreeMap::new();
            for k in 1..=count {
                for unit in units_of(&vs, Shard { index: k, count }, &costs) {
                    for case in (0..cases).filter(|i| unit.holds(*i)) {
                        *seen.entry((unit.version, case)).or_insert(0) += 1;
                    }
                }
            }
            prop_assert_eq!(seen.len(), vs.len() * cases);
            prop_assert!(seen.values().all(|&c| c == 1));
        }
    }
}
