//! Versions as data: `MastraVersion` (a release, a prerelease, a snapshot
//! build Mastra publishes from a pull request, or a build named by its
//! content hash), the `--versions` grammar (`VersionSpec`) and its
//! resolution against what the registry serves (`Registry`), and the release
//! a snapshot is predicted as (`PredictedAs`, by `predict_snapshot`'s
//! rules). Pure: the registry's lists, its publish times, a snapshot's
//! CHANGELOG and the builds' names come in as values; getting them lives in
//! `install::registry` (`npm view`, `npm pack`) and `install::build`
//! (hashing and packing a build).

use crate::js::json::Json;
use std::cmp::Ordering;
use std::fmt;
use std::path::PathBuf;

/// The longest prerelease or build label carried (`alpha.4`, a 16-digit
/// content hash, a snapshot's `openai-schema-compat-issue-20260810211758`,
/// 41 characters, the longest the registry serves). A longer label does not
/// parse (and a build saying one is refused, naming the limit). Kept small:
/// `MastraVersion` is copied everywhere, and an error carrying one stays
/// small enough to return by value.
pub const LABEL_MAX: usize = 44;

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
/// (`1.67.0-alpha.4`), a snapshot build (`0.0.0-TAG-TIMESTAMP`, published
/// from a pull request), or a build that is no published version, named by
/// its `package.json` version plus its content hash (`1.67.0+3fa2…`, in
/// semver's build-metadata place).
///
/// The model predicts every version as its `release()`: a build says which
/// release it is, and is predicted as that release; a snapshot says none
/// (`0.0.0`), and carries the release it was cut from once
/// `predict_snapshot` has found it (`cut_from`).
#[derive(Clone, Copy)]
pub struct MastraVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
    pub pre: Option<Label>,
    pub build: Option<Label>,
    /// For a snapshot: the release it was cut from, which the model
    /// predicts it as. Not part of its name: equality, order and hashing
    /// leave it out, so a snapshot read back from a report or the registry's
    /// list is the same version.
    pub cut_from: Option<[u32; 3]>,
}

impl PartialEq for MastraVersion {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for MastraVersion {}

impl std::hash::Hash for MastraVersion {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.major, self.minor, self.patch, self.pre, self.build).hash(h);
    }
}

impl MastraVersion {
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        MastraVersion {
            major,
            minor,
            patch,
            pre: None,
            build: None,
            cut_from: None,
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
    /// build whose package.json says 1.67.0, is 1.67.0 to the model; a
    /// snapshot is the release it was cut from, once that is known.
    pub fn release(self) -> MastraVersion {
        match self.cut_from {
            Some([major, minor, patch]) => MastraVersion::new(major, minor, patch),
            None => MastraVersion::new(self.major, self.minor, self.patch),
        }
    }

    /// A snapshot build: `0.0.0-TAG-TIMESTAMP`, what Mastra publishes from a
    /// pull request to test a change before it ships (a build of one, given
    /// as a path, is one too).
    pub fn is_snapshot(self) -> bool {
        (self.major, self.minor, self.patch) == (0, 0, 0) && self.pre.is_some()
    }

    /// This snapshot, predicted as `release`.
    pub fn cut_from(self, release: MastraVersion) -> MastraVersion {
        MastraVersion {
            cut_from: Some([release.major, release.minor, release.patch]),
            ..self
        }
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
    #[error("bad version {0:?}: expected an exact version like 1.67.0 or 1.67.0-alpha.4, a snapshot build like 0.0.0-TAG-20260810211758, a dist-tag, `pinned`, `latest`, `next`, `all` (every 1.x), `0.x` (every 0.x), `every` (both lines), `snapshots`, a range like `>=1.60.0 <1.70.0`, or a build: a packed tarball (./mastra-core-1.72.0.tgz) or a folder (./path/to/core)")]
    BadSpec(String),
    #[error("version set {0:?} selects no published version")]
    Empty(String),
    #[error("`snapshots`: the registry serves no snapshot build (0.0.0-*) of @mastra/core")]
    NoSnapshots,
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
            VersionSpec::AllZero => f.write_str("0.x"),
            VersionSpec::Every => f.write_str("every"),
            VersionSpec::Range(bounds) => {
                let words: Vec<String> = bounds.iter().map(ToString::to_string).collect();
                f.write_str(&words.join(" "))
            }
            VersionSpec::Tag(t) => f.write_str(t),
            VersionSpec::Build(p) => write!(f, "{}", p.display()),
            VersionSpec::Snapshots => f.write_str("snapshots"),
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
    /// Every served stable 1.x.
    All,
    /// Every served stable 0.x (`0.x` or `all-0.x`).
    AllZero,
    /// Both lines: every served stable 0.x and 1.x.
    Every,
    /// Comparators over both lines (`>=0.20.0 <1.2.0` spans them).
    Range(Vec<Bound>),
    /// A dist-tag the registry serves (`latest`, `beta`, ...).
    Tag(String),
    /// A packed tarball or a folder holding a built `@mastra/core`.
    Build(PathBuf),
    /// Every snapshot build the registry serves (`0.0.0-*`).
    Snapshots,
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
    /// and what it holds, is for `install::build` to find out.
    pub fn parse(text: &str) -> Result<VersionSpec, SpecError> {
        let bad = || SpecError::BadSpec(text.to_string());
        let word = text.trim();
        match word {
            "pinned" => return Ok(VersionSpec::Pinned),
            "latest" => return Ok(VersionSpec::Latest),
            "next" => return Ok(VersionSpec::Next),
            "all" => return Ok(VersionSpec::All),
            "snapshots" => return Ok(VersionSpec::Snapshots),
            "0.x" | "all-0.x" => return Ok(VersionSpec::AllZero),
            "every" => return Ok(VersionSpec::Every),
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
/// and snapshots included), ascending, its dist-tags, and when each version
/// was published (the registry's `time`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Registry {
    pub versions: Vec<MastraVersion>,
    pub tags: Vec<(String, MastraVersion)>,
    pub published: Vec<(MastraVersion, Published)>,
}

impl Registry {
    /// Every snapshot build it serves, ascending.
    pub fn snapshots(&self) -> Vec<MastraVersion> {
        self.versions
            .iter()
            .copied()
            .filter(|v| v.is_snapshot())
            .collect()
    }

    /// When `v` was published, if the registry says.
    pub fn published(&self, v: MastraVersion) -> Option<Published> {
        self.published
            .iter()
            .find(|(p, _)| *p == v)
            .map(|(_, t)| t.clone())
    }

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

/// A build found at a path, as `install::build` named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Build {
    /// As given on the command line.
    pub path: PathBuf,
    /// Its package.json version plus its content hash.
    pub version: MastraVersion,
    /// `tarball` or `folder`.
    pub kind: &'static str,
    /// For a build of a snapshot (its package.json says `0.0.0-*`): the
    /// first release heading of its CHANGELOG.md, if it has one.
    pub changelog: Option<MastraVersion>,
}

/// How a version set is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Selection {
    /// Ranges and `all` take prereleases too (`--include-prereleases`).
    pub prereleases: bool,
}

/// The lines of `@mastra/core` the harness drives: 0.x and 1.x.
pub const LINES: [u32; 2] = [0, 1];

/// Resolve specs against the registry and the prepared builds. Exact and
/// pinned versions are kept even when unpublished: that the registry lacks
/// them is a result the run reports. `all` selects stable 1.x releases,
/// `0.x` stable 0.x ones, `every` and ranges both lines; prereleases too
/// only with `Selection::prereleases`.
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
        .filter(|v| LINES.contains(&v.major) && v.build.is_none())
        .filter(|v| selection.prereleases || v.is_release());
    let line = |major: u32| selectable.clone().filter(move |v| v.major == major);
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
            VersionSpec::All => line(1).collect(),
            VersionSpec::AllZero => line(0).collect(),
            VersionSpec::Every => selectable.clone().collect(),
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
            VersionSpec::Snapshots => {
                let all = registry.snapshots();
                if all.is_empty() {
                    return Err(SpecError::NoSnapshots);
                }
                all
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

/// When the registry says a version was published: its `time` entry, as
/// written (`2026-08-23T23:30:02.121000+00:00`, or npm's own
/// `2025-07-18T02:10:26.123Z`), and that instant in milliseconds since the
/// Unix epoch, which is what is compared: the two spellings do not sort as
/// text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Published {
    pub text: String,
    pub millis: i64,
}

impl Published {
    /// An RFC 3339 time as the registry writes it: a date, `T`, a time with
    /// optional fraction, and `Z` or an offset. Anything else is `None`.
    pub fn parse(text: &str) -> Option<Published> {
        let b = text.as_bytes();
        let num = |from: usize, len: usize| -> Option<i64> {
            let part = text.get(from..from + len)?;
            part.bytes()
                .all(|c| c.is_ascii_digit())
                .then(|| part.parse().ok())
                .flatten()
        };
        let sep = |at: usize, c: u8| b.get(at) == Some(&c);
        if !(sep(4, b'-') && sep(7, b'-') && sep(10, b'T') && sep(13, b':') && sep(16, b':')) {
            return None;
        }
        let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
        let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
            return None;
        }
        let mut at = 19;
        let mut millis = 0;
        if sep(at, b'.') {
            let digits = b[at + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if digits == 0 {
                return None;
            }
            // The first three digits are milliseconds; finer ones are dropped.
            let frac = &text[at + 1..at + 1 + digits.min(3)];
            millis = frac.parse::<i64>().ok()? * 10_i64.pow(3 - frac.len() as u32);
            at += 1 + digits;
        }
        let offset_minutes = match text.get(at..)? {
            "Z" | "z" => 0,
            zone if zone.len() == 6 && sep(at + 3, b':') => {
                let sign = match b[at] {
                    b'+' => 1,
                    b'-' => -1,
                    _ => return None,
                };
                sign * (num(at + 1, 2)? * 60 + num(at + 4, 2)?)
            }
            _ => return None,
        };
        // Days since the epoch of a proleptic Gregorian date (Howard
        // Hinnant's days_from_civil).
        let y = if month <= 2 { year - 1 } else { year };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (month + 9) % 12;
        let doy = (153 * mp + 2) / 5 + day - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        let days = era * 146_097 + doe - 719_468;
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
        Some(Published {
            text: text.to_string(),
            millis: seconds * 1000 + millis,
        })
    }
}

/// The first release heading of a `@mastra/core` CHANGELOG.md: the first
/// `## VERSION` line naming a version that is no snapshot, taken as its
/// release (a prerelease, `1.58.0-alpha.12`, maps to `1.58.0`, the release
/// its changes lead to). A snapshot's CHANGELOG opens with its own
/// `## 0.0.0-TAG` heading, then the one it was cut after.
pub fn first_release_heading(changelog: &str) -> Option<MastraVersion> {
    changelog
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .filter_map(|h| MastraVersion::parse(h.split_whitespace().next()?))
        .find(|v| !v.is_snapshot())
}

/// Which rule gave the release a version is predicted as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Basis {
    /// A release, a prerelease or a build that says its release.
    Itself,
    /// A snapshot: the first release heading of its CHANGELOG.md.
    Changelog { heading: MastraVersion },
    /// A snapshot without one: the newest stable release the registry had
    /// published before it.
    PublishedBefore {
        snapshot: Published,
        release: Published,
    },
    /// A snapshot neither rule answers for: `--predict-as`.
    Given,
}

/// The release the model predicts a version as, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PredictedAs {
    pub release: MastraVersion,
    pub basis: Basis,
}

impl PredictedAs {
    /// Why, in a few words: `its CHANGELOG.md's first release heading is
    /// 1.58.0-alpha.12`.
    pub fn because(&self) -> String {
        match &self.basis {
            Basis::Itself => "the release it says it is".into(),
            Basis::Changelog { heading } => {
                format!("its CHANGELOG.md's first release heading is {heading}")
            }
            Basis::PublishedBefore { snapshot, release } => format!(
                "no release heading in a CHANGELOG.md; the newest stable release the registry \
                 published before it ({}) is {} ({})",
                snapshot.text, self.release, release.text
            ),
            Basis::Given => {
                "--predict-as (no CHANGELOG.md release heading, no registry time)".into()
            }
        }
    }

    /// The rule's name, as reports record it.
    pub fn rule(&self) -> &'static str {
        match self.basis {
            Basis::Itself => "itself",
            Basis::Changelog { .. } => "changelog",
            Basis::PublishedBefore { .. } => "published-before",
            Basis::Given => "predict-as",
        }
    }
}

/// A snapshot that no rule can place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("snapshot {0}: no release heading in a CHANGELOG.md and no publish time in the registry to predict it by; give --predict-as VERSION (the release it was cut from)")]
pub struct Unplaced(pub MastraVersion);

/// The release `v` is predicted as, by the first rule that applies: a
/// version that is no snapshot is its own release; a snapshot is the first
/// release heading of its CHANGELOG.md (`heading`), else the newest stable
/// release published before it (`registry`'s times), else `given`
/// (`--predict-as`). "Newest" is by version, not by publish time: a
/// snapshot is cut from a branch that carries the highest release so far,
/// and a registry mirror's times need not follow the releases' order.
pub fn predict_snapshot(
    v: MastraVersion,
    heading: Option<MastraVersion>,
    registry: &Registry,
    given: Option<MastraVersion>,
) -> Result<PredictedAs, Unplaced> {
    if !v.is_snapshot() {
        return Ok(PredictedAs {
            release: v.release(),
            basis: Basis::Itself,
        });
    }
    if let Some(heading) = heading {
        return Ok(PredictedAs {
            release: heading.release(),
            basis: Basis::Changelog { heading },
        });
    }
    let before = registry.published(v).and_then(|snapshot| {
        registry
            .published
            .iter()
            .filter(|(r, t)| r.is_release() && t.millis < snapshot.millis)
            .max_by_key(|(r, _)| *r)
            .map(|(r, t)| (*r, snapshot.clone(), t.clone()))
    });
    if let Some((release, snapshot, at)) = before {
        return Ok(PredictedAs {
            release,
            basis: Basis::PublishedBefore {
                snapshot,
                release: at,
            },
        });
    }
    given
        .map(|release| PredictedAs {
            release,
            basis: Basis::Given,
        })
        .ok_or(Unplaced(v))
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
            "0.13.2",
            "0.24.0-alpha.1",
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
            published: Vec::new(),
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
        assert_eq!(r("0.x"), vec![v("0.13.2"), v("0.24.9")], "the 0.x line");
        assert_eq!(r("all-0.x"), r("0.x"));
        assert_eq!(r("every"), [r("0.x"), r("all")].concat(), "both lines");
        assert_eq!(pre("0.x").len(), 3);
        assert_eq!(
            r(">=0.20.0 <1.60.0"),
            vec![v("0.24.9"), v("1.0.4")],
            "a range spans the lines"
        );
        assert_eq!(VersionSpec::parse("0.x").unwrap().to_string(), "0.x");
        assert_eq!(VersionSpec::parse("every").unwrap().to_string(), "every");
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
            "version set \">=2.0.0\" selects no published version",
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
            changelog: None,
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

    const SCHEMA_COMPAT: &str = "0.0.0-openai-schema-compat-issue-20260810211758";
    const CLIENT_TOOLS: &str = "0.0.0-client-tool-results-20260912062135";

    fn at(text: &str) -> Published {
        Published::parse(text).unwrap()
    }

    /// The registry reachable here, in part: its six snapshots among the
    /// releases, with the publish times it gives.
    fn with_snapshots() -> Registry {
        let times = [
            ("1.57.0", "2026-08-07T09:06:13.400000+00:00"),
            ("1.58.0", "2026-08-12T06:43:10.873000+00:00"),
            ("1.61.0", "2026-08-21T01:31:59.458000+00:00"),
            (SCHEMA_COMPAT, "2026-08-23T23:30:02.121000+00:00"),
            ("1.18.0", "2026-08-24T06:22:54.776000+00:00"),
            ("1.66.0", "2026-09-10T23:24:04.551000+00:00"),
            ("1.67.0-alpha.4", "2026-09-15T05:27:50.863000+00:00"),
            (CLIENT_TOOLS, "2026-09-15T06:33:03.064000+00:00"),
            ("1.67.0", "2026-09-16T01:03:22.736000+00:00"),
        ];
        let mut versions: Vec<MastraVersion> = times.iter().map(|(n, _)| v(n)).collect();
        versions.sort();
        Registry {
            versions,
            tags: vec![("latest".into(), v("1.67.0"))],
            published: times.iter().map(|(n, t)| (v(n), at(t))).collect(),
        }
    }

    #[test]
    fn snapshots_parse_and_are_named_as_the_registry_names_them() {
        let s = v(SCHEMA_COMPAT);
        assert!(s.is_snapshot() && s.is_prerelease() && !s.is_release());
        assert_eq!(s.to_string(), SCHEMA_COMPAT);
        assert!(!v("1.67.0-alpha.4").is_snapshot() && !v("0.24.9").is_snapshot());
        assert_eq!(s.release(), v("0.0.0"), "a snapshot says no release");
        let placed = s.cut_from(v("1.58.0"));
        assert_eq!(placed.release(), v("1.58.0"));
        assert_eq!(placed, s, "the release it was cut from is not its name");
        assert_eq!(placed.to_string(), SCHEMA_COMPAT);
        let hash = |x: MastraVersion| {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            x.hash(&mut h);
            h.finish()
        };
        assert_eq!(hash(placed), hash(s));
        let long = format!("0.0.0-{}", "t".repeat(LABEL_MAX + 1));
        assert_eq!(MastraVersion::parse(&long), None, "past the label limit");
        assert!(MastraVersion::parse(&format!("0.0.0-{}", "t".repeat(LABEL_MAX))).is_some());
    }

    #[test]
    fn snapshots_is_every_snapshot_the_registry_serves_and_no_range_takes_one() {
        let reg = with_snapshots();
        let r = |s: &str, prereleases: bool| {
            resolve(
                &VersionSpec::parse_list(s).unwrap(),
                &reg,
                &[],
                Selection { prereleases },
            )
        };
        assert_eq!(
            r("snapshots", false).unwrap(),
            vec![v(CLIENT_TOOLS), v(SCHEMA_COMPAT)]
        );
        assert_eq!(r(SCHEMA_COMPAT, false).unwrap(), vec![v(SCHEMA_COMPAT)]);
        for spec in ["all", ">=0.0.0", "latest,next"] {
            for pre in [false, true] {
                let got = r(spec, pre).unwrap();
                assert!(got.iter().all(|x| !x.is_snapshot()), "{spec}: {got:?}");
            }
        }
        assert_eq!(
            resolve(
                &[VersionSpec::Snapshots],
                &registry(),
                &[],
                Selection::default()
            ),
            Err(SpecError::NoSnapshots)
        );
        assert_eq!(VersionSpec::Snapshots.to_string(), "snapshots");
        assert!(VersionSpec::Snapshots.needs_registry());
    }

    #[test]
    fn registry_times_are_instants_in_either_spelling() {
        let mirror = at("2026-08-23T23:30:02.121000+00:00");
        let npm = at("2026-08-23T23:30:02.121Z");
        assert_eq!(mirror.millis, npm.millis);
        assert_eq!(at("1970-01-01T00:00:00Z").millis, 0);
        assert_eq!(at("2000-03-01T00:00:00Z").millis, 951_868_800_000);
        assert_eq!(
            at("2026-08-24T01:30:02+02:00").millis,
            at("2026-08-23T23:30:02Z").millis
        );
        for bad in [
            "",
            "2026-08-23",
            "2026-13-01T00:00:00Z",
            "2026-08-23T23:30:02",
            "x",
        ] {
            assert_eq!(Published::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_changelog_names_the_release_a_snapshot_was_cut_after() {
        let text = "# @mastra/core\n\n## 0.0.0-openai-schema-compat-issue-20260810211758\n\n\
                    ### Minor Changes\n\n- x\n\n## 1.58.0-alpha.12\n\n### Patch Changes\n\n## 1.57.0\n";
        assert_eq!(first_release_heading(text), Some(v("1.58.0-alpha.12")));
        assert_eq!(
            first_release_heading("# @mastra/core\n\n## Unreleased\n"),
            None
        );
        assert_eq!(first_release_heading(""), None);
    }

    #[test]
    fn a_snapshot_is_predicted_by_the_first_rule_that_applies() {
        let reg = with_snapshots();
        let by = |name: &str, heading: Option<&str>, given: Option<&str>| {
            predict_snapshot(v(name), heading.map(v), &reg, given.map(v))
        };
        let changelog = by(SCHEMA_COMPAT, Some("1.58.0-alpha.12"), Some("1.0.4")).unwrap();
        assert_eq!(
            changelog.release,
            v("1.58.0"),
            "a prerelease maps to its release"
        );
        assert_eq!(changelog.rule(), "changelog");
        assert_eq!(
            changelog.because(),
            "its CHANGELOG.md's first release heading is 1.58.0-alpha.12"
        );
        // No CHANGELOG: the newest stable release published before it,
        // by version (1.18.0 was published later, 1.67.0-alpha.4 is no
        // release).
        let published = by(CLIENT_TOOLS, None, Some("1.0.4")).unwrap();
        assert_eq!(published.release, v("1.66.0"));
        assert_eq!(published.rule(), "published-before");
        assert!(
            published
                .because()
                .contains("2026-09-15T06:33:03.064000+00:00")
                && published
                    .because()
                    .contains("is 1.66.0 (2026-09-10T23:24:04.551000+00:00)"),
            "{}",
            published.because()
        );
        let unknown = "0.0.0-elsewhere-20260101000000";
        let given = by(unknown, None, Some("1.61.0")).unwrap();
        assert_eq!((given.release, given.rule()), (v("1.61.0"), "predict-as"));
        let e = by(unknown, None, None).unwrap_err();
        assert!(e.to_string().contains("give --predict-as VERSION"), "{e}");
        let release = by("1.67.0-alpha.4", None, None).unwrap();
        assert_eq!((release.release, release.rule()), (v("1.67.0"), "itself"));
        // Before every release: no release to name.
        let mut early = reg.clone();
        early.published.retain(|(x, _)| x.is_snapshot());
        assert!(predict_snapshot(v(SCHEMA_COMPAT), None, &early, None).is_err());
    }
}
