//! Versions as data: `MastraVersion` (a release, a prerelease, or a build
//! named by its content hash), the `--versions` grammar (`VersionSpec`) and
//! its resolution against what the registry serves (`Registry`). Pure: the
//! registry's lists and the builds' names come in as values; getting them
//! lives in `versions::registry` (`npm view`) and `versions::build`
//! (hashing and packing a build).

use crate::js::json::Json;
use std::cmp::Ordering;
use std::fmt;
use std::path::PathBuf;

/// The longest prerelease or build label carried (`alpha.4`, a 16-digit
/// content hash). Every 1.x prerelease the registry serves is far shorter;
/// a longer label does not parse (and a build saying one is refused, naming
/// the limit). Kept small: `MastraVersion` is copied everywhere.
pub const LABEL_MAX: usize = 24;

/// A short ASCII label carried by value, so that `MastraVersion` stays
/// `Copy` (it is a key everywhere: installs, results, reports).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Label {
    len: u8,
    bytes: [u8; LABEL_MAX],
}

impl Label {
    /// A label of dot-separated identifiers of `[0-9A-Za-z-]`, as semver
    /// allows after `-` and `+`.
    pub fn new(text: &str) -> Option<Label> {
        let ok = !text.is_empty()
            && text.len() <= LABEL_MAX
            && text.split('.').all(|id| {
                !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            });
        if !ok {
            return None;
        }
        let mut bytes = [0u8; LABEL_MAX];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        Some(Label {
            len: text.len() as u8,
            bytes,
        })
    }

    pub fn as_str(&self) -> &str {
        // Only ASCII goes in (`new`).
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }

    /// Semver precedence of prerelease labels: identifier by identifier,
    /// numeric ones numerically and below alphanumeric ones, and a label
    /// that is a prefix of another below it (`alpha` < `alpha.1`).
    fn cmp_prerelease(&self, other: &Label) -> Ordering {
        let (mut a, mut b) = (self.as_str().split('.'), other.as_str().split('.'));
        loop {
            match (a.next(), b.next()) {
                (None, None) => return Ordering::Equal,
                (None, Some(_)) => return Ordering::Less,
                (Some(_), None) => return Ordering::Greater,
                (Some(x), Some(y)) => {
                    let num = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
                    let o = match (num(x), num(y)) {
                        (true, true) => (x.len(), x).cmp(&(y.len(), y)),
                        (true, false) => Ordering::Less,
                        (false, true) => Ordering::Greater,
                        (false, false) => x.cmp(y),
                    };
                    if o != Ordering::Equal {
                        return o;
                    }
                }
            }
        }
    }
}

impl fmt::Debug for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `@mastra/core` version: `MAJOR.MINOR.PATCH`, a prerelease
/// (`1.67.0-alpha.4`), or a build that is no published version, named by
/// its `package.json` version plus its content hash (`1.67.0+3fa2…`, in
/// semver's build-metadata place).
///
/// The model predicts every version as its `release()`: a build says which
/// release it is, and is predicted as that release.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct MastraVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
    pub pre: Option<Label>,
    pub build: Option<Label>,
}

impl MastraVersion {
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        MastraVersion {
            major,
            minor,
            patch,
            pre: None,
            build: None,
        }
    }

    /// Parse `MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]`, strictly (no `v`,
    /// no leading zeros, numeric prerelease identifiers without them).
    pub fn parse(text: &str) -> Option<MastraVersion> {
        let text = text.trim();
        let (rest, build) = match text.split_once('+') {
            Some((r, b)) => (r, Some(Label::new(b)?)),
            None => (text, None),
        };
        let (core, pre) = match rest.split_once('-') {
            Some((c, p)) => {
                let label = Label::new(p)?;
                let leading_zero = p.split('.').any(|id| {
                    id.len() > 1 && id.starts_with('0') && id.bytes().all(|b| b.is_ascii_digit())
                });
                if leading_zero {
                    return None;
                }
                (c, Some(label))
            }
            None => (rest, None),
        };
        let mut parts = core.split('.');
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
        let v = MastraVersion {
            pre,
            build,
            ..MastraVersion::new(next()?, next()?, next()?)
        };
        parts.next().is_none().then_some(v)
    }

    /// The release this version says it is: a prerelease of 1.67.0, or a
    /// build whose package.json says 1.67.0, is 1.67.0 to the model.
    pub fn release(self) -> MastraVersion {
        MastraVersion::new(self.major, self.minor, self.patch)
    }

    pub fn is_prerelease(self) -> bool {
        self.pre.is_some()
    }

    /// A build that is no published version (a tarball or a folder).
    pub fn is_build(self) -> bool {
        self.build.is_some()
    }

    /// A stable published release: no prerelease, no build.
    pub fn is_release(self) -> bool {
        self.pre.is_none() && self.build.is_none()
    }

    /// The version as npm names it in the registry (without a build label).
    pub fn registry_name(self) -> String {
        let mut s = format!("{}.{}.{}", self.major, self.minor, self.patch);
        if let Some(p) = self.pre {
            s.push('-');
            s.push_str(p.as_str());
        }
        s
    }
}

impl Ord for MastraVersion {
    /// Semver precedence (a prerelease below its release), then, to stay
    /// consistent with equality, a build after the version it says it is.
    fn cmp(&self, other: &Self) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(other.major, other.minor, other.patch))
            .then_with(|| match (&self.pre, &other.pre) {
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Greater,
                (Some(_), None) => Ordering::Less,
                (Some(a), Some(b)) => a.cmp_prerelease(b),
            })
            .then_with(|| {
                let label = |l: &Option<Label>| l.map(|l| l.as_str().to_owned());
                label(&self.build).cmp(&label(&other.build))
            })
    }
}

impl PartialOrd for MastraVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for MastraVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.registry_name())?;
        if let Some(b) = self.build {
            write!(f, "+{}", b.as_str())?;
        }
        Ok(())
    }
}

impl fmt::Debug for MastraVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl MastraVersion {
    /// Its name, as a JSON string (how every report writes a version).
    pub fn to_json(self) -> Json {
        Json::str(&self.to_string())
    }
}

/// Versions as a JSON array of their names, in the order given.
pub fn versions_json(versions: &[MastraVersion]) -> Json {
    Json::Array(versions.iter().map(|v| v.to_json()).collect())
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
    #[error("bad version {0:?}: expected an exact version like 1.67.0 or 1.67.0-alpha.4, a dist-tag, `pinned`, `latest`, `next`, `all`, a range like `>=1.60.0 <1.70.0`, or a build: a packed tarball (./mastra-core-1.72.0.tgz) or a folder (./path/to/core)")]
    BadSpec(String),
    #[error("version set {0:?} selects no published 1.x version")]
    Empty(String),
    #[error("the registry serves no dist-tag {tag:?} for @mastra/core (it serves: {served})")]
    UnknownTag { tag: String, served: String },
    #[error("build {0} was not prepared before resolving")]
    Unprepared(String),
}

impl std::str::FromStr for MastraVersion {
    type Err = String;
    fn from_str(text: &str) -> Result<MastraVersion, String> {
        MastraVersion::parse(text).ok_or_else(|| {
            format!("bad version {text:?}: expected an exact version like 1.67.0 or 1.67.0-alpha.4")
        })
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

impl std::str::FromStr for VersionSpec {
    type Err = SpecError;
    fn from_str(text: &str) -> Result<VersionSpec, SpecError> {
        VersionSpec::parse(text)
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
            VersionSpec::Next => f.write_str("next"),
            VersionSpec::All => f.write_str("all"),
            VersionSpec::Range(bounds) => {
                let words: Vec<String> = bounds.iter().map(ToString::to_string).collect();
                f.write_str(&words.join(" "))
            }
            VersionSpec::Tag(t) => f.write_str(t),
            VersionSpec::Build(p) => write!(f, "{}", p.display()),
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

/// One element of a `--versions` list (or a `--mastra-version`), before it
/// meets the registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionSpec {
    /// A release or prerelease (or a build already in the cache, by name).
    Exact(MastraVersion),
    Pinned,
    /// The newest stable 1.x.
    Latest,
    /// The newest 1.x prerelease, when it is newer than `latest`; nothing
    /// otherwise (the nightly adds it to see a regression before it ships).
    Next,
    All,
    Range(Vec<Bound>),
    /// A dist-tag the registry serves (`latest`, `beta`, ...).
    Tag(String),
    /// A packed tarball or a folder holding a built `@mastra/core`.
    Build(PathBuf),
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

    /// Parse one spec. A build is told by its path: it starts with `./`,
    /// `../` or `/`, or ends in `.tgz`; whether it is a tarball or a folder,
    /// and what it holds, is for `versions::build` to find out.
    pub fn parse(text: &str) -> Result<VersionSpec, SpecError> {
        let bad = || SpecError::BadSpec(text.to_string());
        let word = text.trim();
        match word {
            "pinned" => return Ok(VersionSpec::Pinned),
            "latest" => return Ok(VersionSpec::Latest),
            "next" => return Ok(VersionSpec::Next),
            "all" => return Ok(VersionSpec::All),
            _ => {}
        }
        let path_like = ["./", "../", "/"].iter().any(|p| word.starts_with(p))
            || word.ends_with(".tgz")
            || word == ".";
        if path_like {
            return Ok(VersionSpec::Build(PathBuf::from(word)));
        }
        if let Some(v) = MastraVersion::parse(word) {
            return Ok(VersionSpec::Exact(v));
        }
        // A dist-tag is a name npm would not read as a version or range
        // (npm refuses such tags, so `v1.67.0` is a mistyped version).
        let versionish = MastraVersion::parse(word.trim_start_matches(['v', 'V'])).is_some();
        let tag_like = word.starts_with(|c: char| c.is_ascii_alphabetic())
            && !versionish
            && word
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        if tag_like {
            return Ok(VersionSpec::Tag(word.to_string()));
        }
        let mut bounds = Vec::new();
        for w in word.split_whitespace() {
            let (op, rest) = w.split_at(w.find(|c: char| c.is_ascii_digit()).ok_or_else(bad)?);
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

    /// Whether resolving this spec needs the registry's lists.
    pub fn needs_registry(&self) -> bool {
        !matches!(
            self,
            VersionSpec::Exact(_) | VersionSpec::Pinned | VersionSpec::Build(_)
        )
    }
}

/// What the registry serves of `@mastra/core`: every version (prereleases
/// included), ascending, and its dist-tags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Registry {
    pub versions: Vec<MastraVersion>,
    pub tags: Vec<(String, MastraVersion)>,
}

impl Registry {
    /// The newest stable 1.x.
    pub fn latest(&self) -> Option<MastraVersion> {
        self.versions
            .iter()
            .copied()
            .filter(|v| v.major == 1 && v.is_release())
            .max()
    }

    /// The newest 1.x prerelease, when it is newer than `latest`.
    pub fn next(&self) -> Option<MastraVersion> {
        let pre = self
            .versions
            .iter()
            .copied()
            .filter(|v| v.major == 1 && v.is_prerelease())
            .max()?;
        (self.latest().is_none_or(|l| pre > l)).then_some(pre)
    }
}

/// A build found at a path, as `versions::build` named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Build {
    /// As given on the command line.
    pub path: PathBuf,
    /// Its package.json version plus its content hash.
    pub version: MastraVersion,
    /// `tarball` or `folder`.
    pub kind: &'static str,
}

/// How a version set is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Selection {
    /// Ranges and `all` take prereleases too (`--include-prereleases`).
    pub prereleases: bool,
}

/// Resolve specs against the registry and the prepared builds. Exact and
/// pinned versions are kept even when unpublished: that the registry lacks
/// them is a result the run reports. Ranges and `all` select stable 1.x
/// releases, and prereleases too only with `Selection::prereleases`.
pub fn resolve(
    specs: &[VersionSpec],
    registry: &Registry,
    builds: &[Build],
    selection: Selection,
) -> Result<Vec<MastraVersion>, SpecError> {
    let mut out: Vec<MastraVersion> = Vec::new();
    let selectable = registry
        .versions
        .iter()
        .copied()
        .filter(|v| v.major == 1 && v.build.is_none())
        .filter(|v| selection.prereleases || v.is_release());
    for spec in specs {
        let chosen: Vec<MastraVersion> = match spec {
            VersionSpec::Exact(v) => vec![*v],
            VersionSpec::Pinned => PINNED.to_vec(),
            VersionSpec::Latest => registry.latest().into_iter().collect(),
            // Nothing newer than latest is an answer, not an empty set.
            VersionSpec::Next => {
                out.extend(registry.next().filter(|v| !out.contains(v)));
                continue;
            }
            VersionSpec::All => selectable.clone().collect(),
            VersionSpec::Range(bounds) => selectable
                .clone()
                .filter(|v| bounds.iter().all(|b| b.admits(*v)))
                .collect(),
            VersionSpec::Tag(tag) => {
                let found = registry.tags.iter().find(|(t, _)| t == tag);
                let Some((_, v)) = found else {
                    let served: Vec<&str> = registry.tags.iter().map(|(t, _)| t.as_str()).collect();
                    return Err(SpecError::UnknownTag {
                        tag: tag.clone(),
                        served: served.join(", "),
                    });
                };
                vec![*v]
            }
            VersionSpec::Build(path) => {
                let b = builds
                    .iter()
                    .find(|b| &b.path == path)
                    .ok_or_else(|| SpecError::Unprepared(path.display().to_string()))?;
                vec![b.version]
            }
        };
        if chosen.is_empty() {
            return Err(SpecError::Empty(spec.to_string()));
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
    fn versions_parse_strictly_and_order_by_semver() {
        assert_eq!(v("1.67.0"), MastraVersion::new(1, 67, 0));
        assert!(v("1.9.0") < v("1.10.0"));
        assert_eq!(v("1.67.0-alpha.4").to_string(), "1.67.0-alpha.4");
        assert_eq!(v("1.67.0+3fa2b1c0").to_string(), "1.67.0+3fa2b1c0");
        assert_eq!(v("1.67.0-alpha.4").release(), v("1.67.0"));
        assert_eq!(v("1.67.0+3fa2b1c0").release(), v("1.67.0"));
        // semver precedence, from the semver spec's own example
        let order = [
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
            "1.0.0+abc",
            "1.0.1-alpha.1",
            "1.66.9",
            "1.67.0-alpha.4",
            "1.67.0",
        ];
        for w in order.windows(2) {
            assert!(v(w[0]) < v(w[1]), "{} < {}", w[0], w[1]);
        }
        for bad in [
            "1.67",
            "v1.0.0",
            "01.2.3",
            "1.2.3.4",
            "",
            "latest",
            "1.0.0-",
            "1.0.0-alpha..1",
            "1.0.0-alpha.01",
            "1.0.0+",
            "1.0.0-al pha",
        ] {
            assert_eq!(MastraVersion::parse(bad), None, "{bad}");
        }
    }

    fn registry() -> Registry {
        let versions = [
            "0.24.9",
            "1.0.0-beta.25",
            "1.0.4",
            "1.1.0-alpha.2",
            "1.60.0",
            "1.67.0-alpha.4",
            "1.67.0",
            "1.70.0",
            "1.71.0",
        ];
        Registry {
            versions: versions.iter().map(|s| v(s)).collect(),
            tags: vec![
                ("latest".into(), v("1.71.0")),
                ("beta".into(), v("1.67.0-alpha.4")),
            ],
        }
    }

    #[test]
    fn specs_resolve_against_the_registry() {
        let reg = registry();
        let r = |s: &str| {
            resolve(
                &VersionSpec::parse_list(s).unwrap(),
                &reg,
                &[],
                Selection::default(),
            )
            .unwrap()
        };
        let pre = |s: &str| {
            let sel = Selection { prereleases: true };
            resolve(&VersionSpec::parse_list(s).unwrap(), &reg, &[], sel).unwrap()
        };
        assert_eq!(r("latest"), vec![v("1.71.0")]);
        assert_eq!(r(">=1.60.0 <1.70.0"), vec![v("1.60.0"), v("1.67.0")]);
        assert_eq!(
            pre(">=1.60.0 <1.70.0"),
            vec![v("1.60.0"), v("1.67.0-alpha.4"), v("1.67.0")],
            "--include-prereleases takes them into ranges"
        );
        assert_eq!(
            r("all"),
            vec![
                v("1.0.4"),
                v("1.60.0"),
                v("1.67.0"),
                v("1.70.0"),
                v("1.71.0")
            ],
            "ranges and all stay stable"
        );
        assert_eq!(pre("all").len(), 8);
        assert_eq!(r("1.67.0-alpha.4"), vec![v("1.67.0-alpha.4")]);
        assert_eq!(r("beta"), vec![v("1.67.0-alpha.4")], "a dist-tag");
        assert_eq!(
            r("pinned,latest"),
            vec![v("1.0.0"), v("1.0.4"), v("1.67.0"), v("1.71.0")]
        );
        assert_eq!(
            r("1.67.0,1.67.0"),
            vec![v("1.67.0")],
            "duplicates are dropped"
        );
        assert_eq!(
            r("latest,next"),
            vec![v("1.71.0")],
            "no prerelease newer than latest"
        );
        let mut ahead = registry();
        ahead.versions.push(v("1.72.0-alpha.1"));
        let next = resolve(&[VersionSpec::Next], &ahead, &[], Selection::default()).unwrap();
        assert_eq!(next, vec![v("1.72.0-alpha.1")]);
        let e = resolve(
            &[VersionSpec::Tag("nightly".into())],
            &reg,
            &[],
            Selection::default(),
        );
        assert_eq!(
            e.unwrap_err().to_string(),
            "the registry serves no dist-tag \"nightly\" for @mastra/core (it serves: latest, beta)"
        );
        let none = resolve(
            &VersionSpec::parse_list(">=2.0.0").unwrap(),
            &reg,
            &[],
            Selection::default(),
        );
        assert_eq!(
            none.unwrap_err().to_string(),
            "version set \">=2.0.0\" selects no published 1.x version",
            "the set as the user wrote it, not its Rust form"
        );
        for bad in [
            "", "1.x", "~1.2.0", ">=1.0", "=>1.0.0", "1.67", "beta!", "v1.67.0",
        ] {
            assert!(VersionSpec::parse_list(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn builds_are_told_by_their_path_and_resolve_to_their_names() {
        for (text, want) in [
            ("./mastra-core-1.72.0.tgz", "./mastra-core-1.72.0.tgz"),
            ("mastra-core-1.72.0.tgz", "mastra-core-1.72.0.tgz"),
            ("/tmp/core", "/tmp/core"),
            ("../mastra/packages/core", "../mastra/packages/core"),
        ] {
            assert_eq!(
                VersionSpec::parse(text).unwrap(),
                VersionSpec::Build(want.into())
            );
        }
        let build = Build {
            path: "./x.tgz".into(),
            version: v("1.67.0+3fa2b1c0"),
            kind: "tarball",
        };
        let got = resolve(
            &VersionSpec::parse_list("1.67.0,./x.tgz").unwrap(),
            &Registry::default(),
            std::slice::from_ref(&build),
            Selection::default(),
        )
        .unwrap();
        assert_eq!(got, vec![v("1.67.0"), v("1.67.0+3fa2b1c0")]);
        assert!(!VersionSpec::parse("./x.tgz").unwrap().needs_registry());
    }
}
