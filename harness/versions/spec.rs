//! Versions as data: `MastraVersion`, the `--versions` grammar
//! (`VersionSpec`) and its resolution against a list of published versions.
//! Pure: the registry's list comes in as a slice; installs live in
//! `versions::install`.

use std::fmt;

/// A published stable `@mastra/core` version, `MAJOR.MINOR.PATCH`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MastraVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl MastraVersion {
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        MastraVersion {
            major,
            minor,
            patch,
        }
    }

    /// Parse an exact stable version; prereleases are not versions the
    /// harness runs.
    pub fn parse(text: &str) -> Option<MastraVersion> {
        let mut parts = text.trim().split('.');
        let mut next = || -> Option<u32> {
            let p = parts.next()?;
            if p.is_empty()
                || p.len() > 9
                || !p.bytes().all(|b| b.is_ascii_digit())
                || (p.len() > 1 && p.starts_with('0'))
            {
                return None;
            }
            p.parse().ok()
        };
        let v = MastraVersion::new(next()?, next()?, next()?);
        parts.next().is_none().then_some(v)
    }
}

impl fmt::Display for MastraVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl fmt::Debug for MastraVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The versions the harness keeps lockfiles for: the two the report
/// measured, and 1.0.4, the earliest 1.0.x the reachable registry serves.
pub const PINNED: &[MastraVersion] = &[
    MastraVersion::new(1, 0, 0),
    MastraVersion::new(1, 0, 4),
    MastraVersion::new(1, 67, 0),
];

/// A `--versions` list that cannot be read, or selects nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("bad version {0:?}: expected an exact version like 1.67.0, `pinned`, `latest`, `all`, or a range like `>=1.60.0 <1.70.0`")]
    BadSpec(String),
    #[error("version set {0:?} selects no published stable 1.x version")]
    Empty(String),
}

impl std::str::FromStr for MastraVersion {
    type Err = String;
    fn from_str(text: &str) -> Result<MastraVersion, String> {
        MastraVersion::parse(text)
            .ok_or_else(|| format!("bad version {text:?}: expected an exact version like 1.67.0"))
    }
}

/// A parsed `--versions` list: at least one spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionList(pub Vec<VersionSpec>);

impl std::str::FromStr for VersionList {
    type Err = SpecError;
    fn from_str(text: &str) -> Result<VersionList, SpecError> {
        VersionSpec::parse_list(text).map(VersionList)
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::Ge(v) => write!(f, ">={v}"),
            Bound::Gt(v) => write!(f, ">{v}"),
            Bound::Le(v) => write!(f, "<={v}"),
            Bound::Lt(v) => write!(f, "<{v}"),
            Bound::Eq(v) => write!(f, "={v}"),
        }
    }
}

/// A spec written back as `--versions` takes it.
impl fmt::Display for VersionSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionSpec::Exact(v) => write!(f, "{v}"),
            VersionSpec::Pinned => f.write_str("pinned"),
            VersionSpec::Latest => f.write_str("latest"),
            VersionSpec::All => f.write_str("all"),
            VersionSpec::Range(bounds) => {
                let words: Vec<String> = bounds.iter().map(ToString::to_string).collect();
                f.write_str(&words.join(" "))
            }
        }
    }
}

/// One comparator of a range: `>=1.60.0`, `<1.70.0`, `=1.2.3`, ...
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Ge(MastraVersion),
    Gt(MastraVersion),
    Le(MastraVersion),
    Lt(MastraVersion),
    Eq(MastraVersion),
}

impl Bound {
    fn admits(self, v: MastraVersion) -> bool {
        match self {
            Bound::Ge(b) => v >= b,
            Bound::Gt(b) => v > b,
            Bound::Le(b) => v <= b,
            Bound::Lt(b) => v < b,
            Bound::Eq(b) => v == b,
        }
    }
}

/// One element of a `--versions` list, before it meets the registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionSpec {
    Exact(MastraVersion),
    Pinned,
    Latest,
    All,
    Range(Vec<Bound>),
}

impl VersionSpec {
    /// Parse a comma-separated `--versions` list.
    pub fn parse_list(text: &str) -> Result<Vec<VersionSpec>, SpecError> {
        let specs: Vec<VersionSpec> = text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(VersionSpec::parse)
            .collect::<Result<_, _>>()?;
        if specs.is_empty() {
            return Err(SpecError::BadSpec(text.to_string()));
        }
        Ok(specs)
    }

    pub fn parse(text: &str) -> Result<VersionSpec, SpecError> {
        let bad = || SpecError::BadSpec(text.to_string());
        match text.trim() {
            "pinned" => return Ok(VersionSpec::Pinned),
            "latest" => return Ok(VersionSpec::Latest),
            "all" => return Ok(VersionSpec::All),
            _ => {}
        }
        if let Some(v) = MastraVersion::parse(text) {
            return Ok(VersionSpec::Exact(v));
        }
        let mut bounds = Vec::new();
        for word in text.split_whitespace() {
            let (op, rest) =
                word.split_at(word.find(|c: char| c.is_ascii_digit()).ok_or_else(bad)?);
            let v = MastraVersion::parse(rest).ok_or_else(bad)?;
            bounds.push(match op {
                ">=" => Bound::Ge(v),
                ">" => Bound::Gt(v),
                "<=" => Bound::Le(v),
                "<" => Bound::Lt(v),
                "=" => Bound::Eq(v),
                _ => return Err(bad()),
            });
        }
        if bounds.is_empty() {
            return Err(bad());
        }
        Ok(VersionSpec::Range(bounds))
    }

    /// Whether resolving this spec needs the registry's version list.
    pub fn needs_registry(&self) -> bool {
        !matches!(self, VersionSpec::Exact(_) | VersionSpec::Pinned)
    }
}

/// Resolve specs against the published stable versions (sorted ascending).
/// Exact and pinned versions are kept even when unpublished: that the
/// registry lacks them is a result the run reports.
pub fn resolve(
    specs: &[VersionSpec],
    published: &[MastraVersion],
) -> Result<Vec<MastraVersion>, SpecError> {
    let mut out: Vec<MastraVersion> = Vec::new();
    let stable_1x = published.iter().copied().filter(|v| v.major == 1);
    for spec in specs {
        let chosen: Vec<MastraVersion> = match spec {
            VersionSpec::Exact(v) => vec![*v],
            VersionSpec::Pinned => PINNED.to_vec(),
            VersionSpec::Latest => stable_1x.clone().max().into_iter().collect(),
            VersionSpec::All => stable_1x.clone().collect(),
            VersionSpec::Range(bounds) => stable_1x
                .clone()
                .filter(|v| bounds.iter().all(|b| b.admits(*v)))
                .collect(),
        };
        if chosen.is_empty() {
            return Err(SpecError::Empty(format!("{spec:?}")));
        }
        for v in chosen {
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> MastraVersion {
        MastraVersion::parse(s).unwrap()
    }

    #[test]
    fn versions_parse_strictly_and_order_numerically() {
        assert_eq!(v("1.67.0"), MastraVersion::new(1, 67, 0));
        assert!(v("1.9.0") < v("1.10.0"));
        for bad in [
            "1.67",
            "1.67.0-alpha.4",
            "v1.0.0",
            "01.2.3",
            "1.2.3.4",
            "",
            "latest",
        ] {
            assert_eq!(MastraVersion::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn specs_resolve_against_the_published_list() {
        let published = [
            v("0.24.9"),
            v("1.0.4"),
            v("1.60.0"),
            v("1.67.0"),
            v("1.70.0"),
            v("1.71.0"),
        ];
        let r = |s: &str| resolve(&VersionSpec::parse_list(s).unwrap(), &published).unwrap();
        assert_eq!(r("latest"), vec![v("1.71.0")]);
        assert_eq!(r(">=1.60.0 <1.70.0"), vec![v("1.60.0"), v("1.67.0")]);
        assert_eq!(
            r("all"),
            vec![
                v("1.0.4"),
                v("1.60.0"),
                v("1.67.0"),
                v("1.70.0"),
                v("1.71.0")
            ]
        );
        assert_eq!(
            r("pinned,latest"),
            vec![v("1.0.0"), v("1.0.4"), v("1.67.0"), v("1.71.0")]
        );
        assert_eq!(
            r("1.67.0,1.67.0"),
            vec![v("1.67.0")],
            "duplicates are dropped"
        );
        assert!(resolve(&VersionSpec::parse_list(">=2.0.0").unwrap(), &published).is_err());
        for bad in ["", "1.x", "~1.2.0", ">=1.0", "=>1.0.0"] {
            assert!(VersionSpec::parse_list(bad).is_err(), "{bad}");
        }
    }
}
