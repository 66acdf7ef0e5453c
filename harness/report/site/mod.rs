//! The grid as a small static site (`OUT/site/`), after wpt.fyi and
//! test262.fyi: an index with the headline and per-folder counts, and the
//! rest loaded only when a person asks for it.
//!
//! In: a `SiteSource` (a run's results, a case file at a time) and,
//! optionally, the previous night's. Out: a folder that works from
//! `file://` and from any static host:
//!
//! - `index.html`, `site.js`, `site.css`: the page, the same for every run;
//! - `data/index.js`: the headline (known issues by version as ranges of
//!   releases, divergences, versions that could not run, what changed) and
//!   each folder's verdict counts by route and version;
//! - `data/f/FOLDER-K.js`: a folder's grid rows, one verdict letter per
//!   version and route;
//! - `data/c/CASE.js`: one case's detail: its input, and on every route and
//!   version the prediction, the observation, the diff and the known issue,
//!   each distinct text written once;
//! - `data/changes-K.js`, `data/night-K.js`: where a case's verdict or
//!   observation changes between neighbouring releases, and since the
//!   previous night; `data/names-K.js`: every case, for the search.
//!
//! Every data file is a script calling `MC.got(KEY, DATA)` (JSONP), since a
//! page opened from `file://` may not fetch. Results stream through: counts
//! are aggregated as they come, and a case's files are written as soon as
//! its last result has arrived, so memory holds one case's results, the
//! counts, and one open chunk per folder; no data file grows past
//! `CHUNK_BYTES` plus one item. The folder is written beside its final place
//! and renamed into it, so a reader never sees half a site.

pub mod page;
pub mod source;

pub use source::{case_path, DocSource, SiteSource};

use crate::js::json::Json;
use crate::js::string::JsString;
use crate::judge::compare::Verdict;
use crate::report::doc::Row;
use crate::report::IsSecurity;
use crate::route::Route;
use crate::version::spec::MastraVersion;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The folder of data files inside the site.
pub const DATA: &str = "data";
/// A chunked data file is closed once it holds this much; one item more
/// can follow (a case's detail is one item and stays far below 2 MB).
const CHUNK_BYTES: usize = 512 * 1024;
/// The divergences the index lists by name; the rest are counted.
const LISTED_DIVERGENCES: usize = 200;

/// The short mark each verdict shows in its cell, and its colour.
pub fn style(v: Verdict) -> (&'static str, &'static str) {
    match v {
        Verdict::AsModelled => ("✓", "#2e7d32"),
        Verdict::Diverged => ("✗", "#c62828"),
        Verdict::KnownIssue => ("K", "#ef8f00"),
        Verdict::KnownIssueFixed => ("F!", "#6a1b9a"),
        Verdict::NotApplicable => ("n/a", "#9e9e9e"),
        Verdict::Unmodelled => ("?", "#78909c"),
        Verdict::Nondeterministic => ("~", "#5d4037"),
        Verdict::SnapshotChanged => ("S", "#d84315"),
        Verdict::ProviderRejects => ("P", "#ad1457"),
        Verdict::Timeout => ("T", "#37474f"),
        Verdict::Crash => ("C", "#37474f"),
        Verdict::ProbeFault => ("PF", "#37474f"),
        Verdict::VersionUnavailable => ("U", "#37474f"),
        Verdict::InstallFailed => ("I", "#37474f"),
        Verdict::Flaky => ("~?", "#00838f"),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    #[error("cannot write the site at {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Input(String),
}

fn write_err(path: &Path) -> impl FnOnce(std::io::Error) -> SiteError + '_ {
    move |source| SiteError::Write {
        path: path.to_path_buf(),
        source,
    }
}

/// What a rendered site holds, by the bytes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SiteSize {
    pub files: usize,
    pub bytes: u64,
    /// The largest file, relative to the site, and its size.
    pub largest: (String, u64),
    /// What the index page loads before anything is asked for.
    pub first_load: u64,
    pub results: usize,
    pub cases: usize,
}

/// The verdict letter of the grid data: `a` for the first of
/// `Verdict::ALL`, on in order; `.` where a case has no result.
fn letter(v: Verdict) -> char {
    let i = Verdict::ALL.iter().position(|x| *x == v).unwrap_or(0);
    (b'a' + i as u8) as char
}

/// A short name for a path, the same on every run: data files are named by
/// it, so a folder's or a case's address stays put from night to night.
fn file_id(path: &str) -> String {
    let d = Sha256::digest(path.as_bytes());
    d.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or(".", |(f, _)| f)
}

fn jstr(s: &str) -> String {
    Json::str(s).to_compact()
}

/// Data files of one kind, each a script `MC.got("KEY-N", [ITEMS])`, a new
/// one begun when the open one is full.
struct Chunks {
    data: PathBuf,
    key: String,
    count: usize,
    open: Option<(std::io::BufWriter<std::fs::File>, PathBuf, usize)>,
}

impl Chunks {
    fn new(data: &Path, key: String) -> Chunks {
        Chunks {
            data: data.to_path_buf(),
            key,
            count: 0,
            open: None,
        }
    }

    fn push(&mut self, item: &str) -> Result<(), SiteError> {
        if self
            .open
            .as_ref()
            .is_some_and(|(_, _, n)| *n >= CHUNK_BYTES)
        {
            self.close()?;
        }
        let first = self.open.is_none();
        if first {
            let name = format!("{}-{}", self.key, self.count);
            let path = self.data.join(format!("{name}.js"));
            let file = std::fs::File::create(&path).map_err(write_err(&path))?;
            let mut w = std::io::BufWriter::new(file);
            write!(w, "MC.got({},[", jstr(&name)).map_err(write_err(&path))?;
            self.open = Some((w, path, 0));
        }
        let (w, path, n) = self.open.as_mut().expect("opened above");
        if !first {
            w.write_all(b",\n").map_err(write_err(path))?;
        }
        w.write_all(item.as_bytes()).map_err(write_err(path))?;
        *n += item.len() + 2;
        Ok(())
    }

    fn close(&mut self) -> Result<(), SiteError> {
        if let Some((mut w, path, _)) = self.open.take() {
            w.write_all(b"]);\n").map_err(write_err(&path))?;
            w.flush().map_err(write_err(&path))?;
            self.count += 1;
        }
        Ok(())
    }

    /// Close the open file; the number of files written.
    fn finish(mut self) -> Result<usize, SiteError> {
        self.close()?;
        Ok(self.count)
    }
}

/// One folder: its grid rows' chunks and what its cases hold, by route and
/// version.
struct Folder {
    id: String,
    rows: Chunks,
    cases: usize,
    /// Per route, per version index, a count per verdict.
    counts: BTreeMap<Route, Vec<[u32; Verdict::ALL.len()]>>,
}

/// A known issue's title and link, and per state the versions showing it.
type IssueVersions = (
    Option<String>,
    Option<String>,
    BTreeMap<String, BTreeSet<usize>>,
);

/// Where a case ran on one route: the version, its column, the verdict
/// letter and the observation.
/// A result that ran: its version, column, verdict letter and observation's
/// place among the detail's texts (one text, one place).
type Ran = (MastraVersion, usize, char, usize);

/// Everything the index says, gathered as results stream past; its size is
/// bounded by folders, routes, versions and issues, not by results.
#[derive(Default)]
struct Tally {
    versions: Vec<String>,
    index_of: HashMap<String, usize>,
    ran: Vec<bool>,
    /// Per version that met an infrastructure outcome: the first, why, and
    /// how many results met one.
    infra: BTreeMap<usize, (Verdict, String, usize)>,
    /// Per known issue: its title and link, and per state the versions.
    issues: BTreeMap<String, IssueVersions>,
    divergences: usize,
    listed: Vec<Json>,
    /// Results whose re-checks disagree (`flaky`), apart from divergences.
    flaky: usize,
    flaky_listed: Vec<Json>,
    changes: usize,
    boundaries: BTreeMap<(usize, usize), usize>,
    night_changes: usize,
    night_new: usize,
    night_gone: usize,
    results: usize,
    cases: usize,
}

impl Tally {
    fn version(&mut self, v: &str) -> usize {
        if let Some(i) = self.index_of.get(v) {
            return *i;
        }
        self.versions.push(v.to_string());
        self.ran.push(false);
        self.index_of.insert(v.to_string(), self.versions.len() - 1);
        self.versions.len() - 1
    }
}

/// Render the site of `source` (and what changed since `previous`, the
/// previous night's results, when given) into `out`, replacing what was
/// there.
pub fn render(
    source: &mut dyn SiteSource,
    previous: Option<&mut dyn SiteSource>,
    out: &Path,
) -> Result<SiteSize, SiteError> {
    render_with(source, previous, &|_| false, out)
}

/// A case's nights of change, from a history file (`--history`):
/// `(version, night, at, verdict)` of one case name.
pub type CaseHistory<'a> = &'a dyn Fn(&str) -> Result<Vec<(String, i64, i64, String)>, String>;

/// `render`, with the known issues `security` names put first on the
/// index and marked as security issues.
pub fn render_with(
    source: &mut dyn SiteSource,
    previous: Option<&mut dyn SiteSource>,
    security: IsSecurity,
    out: &Path,
) -> Result<SiteSize, SiteError> {
    render_full(source, previous, security, None, out)
}

/// `render_with`, and on each case's detail its history across nights
/// (when its verdict changed, and on which night) from `history`.
pub fn render_full(
    source: &mut dyn SiteSource,
    previous: Option<&mut dyn SiteSource>,
    security: IsSecurity,
    history: Option<CaseHistory>,
    out: &Path,
) -> Result<SiteSize, SiteError> {
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(write_err(parent))?;
    let staging = tempfile::Builder::new()
        .prefix(".site-")
        .tempdir_in(parent)
        .map_err(write_err(parent))?;
    let root = staging.path();
    let data = root.join(DATA);
    for sub in ["f", "c"] {
        let dir = data.join(sub);
        std::fs::create_dir_all(&dir).map_err(write_err(&dir))?;
    }
    for (name, text) in page::FILES {
        let path = root.join(name);
        std::fs::write(&path, text).map_err(write_err(&path))?;
    }

    let mut t = Tally::default();
    for v in source
        .run()
        .get("versions")
        .and_then(Json::as_array)
        .unwrap_or_default()
    {
        if let Some(v) = v.as_str() {
            t.version(&v.to_lossy());
        }
    }
    let mut folders: BTreeMap<String, Folder> = BTreeMap::new();
    let mut changes = Chunks::new(&data, "changes".into());
    let mut night = Chunks::new(&data, "night".into());
    let mut names = Chunks::new(&data, "names".into());
    let has_previous = previous.is_some();
    let mut prev = PreviousNight {
        source: previous,
        next: None,
        gone: 0,
    };

    // One case file's results are folded in as they arrive, each row
    // dropped once its part is taken: a case's rows over every release and
    // route are too many to hold (the whole 1.x on every route held 190 MB
    // of them for one case).
    let mut case: Option<CaseSite> = None;
    let mut done_paths: Option<String> = None;
    loop {
        let row = source.next_row().map_err(SiteError::Input)?;
        let ends_case = match (&row, &case) {
            (Some(r), Some(c)) => case_path(&r.case).0 != c.path,
            (None, Some(_)) => true,
            (_, None) => false,
        };
        if ends_case {
            let site = case.take().expect("a case is open");
            let path = site.path.clone();
            if let Some(last) = &done_paths {
                if *last >= path {
                    return Err(SiteError::Input(format!(
                        "the results are not grouped by case file in path order: {path:?} \
                         comes after {last:?}"
                    )));
                }
            }
            let before = prev.take(&path).map_err(SiteError::Input)?;
            site.finish(
                &mut t,
                &data,
                &mut folders,
                &before,
                history,
                [&mut changes, &mut night, &mut names],
            )?;
            done_paths = Some(path);
        }
        let Some(r) = row else { break };
        let site =
            case.get_or_insert_with(|| CaseSite::new(case_path(&r.case).0, &mut folders, &data));
        site.add(&mut t, &r);
    }
    t.night_gone += prev.rest().map_err(SiteError::Input)? + prev.gone;
    let chunks = [changes.finish()?, night.finish()?, names.finish()?];
    let mut folder_list = Vec::new();
    for (path, f) in folders {
        let n = f.rows.finish()?;
        folder_list.push(folder_json(
            &path,
            &f.id,
            n,
            f.cases,
            &f.counts,
            t.versions.len(),
        ));
    }
    let index = index_json(&t, source, has_previous, security, folder_list, chunks);
    let path = data.join("index.js");
    std::fs::write(
        &path,
        format!("MC.got(\"index\",{});\n", index.to_compact()),
    )
    .map_err(write_err(&path))?;

    // Into place: the old site out of the way first, then the new one in.
    let staged = staging.keep();
    if out.exists() {
        let old = parent.join(format!(".site-old-{}", std::process::id()));
        std::fs::rename(out, &old).map_err(write_err(out))?;
        std::fs::remove_dir_all(&old).map_err(write_err(&old))?;
    }
    std::fs::rename(&staged, out).map_err(write_err(out))?;
    // A temporary folder is private; the site is for others to read.
    set_readable(out).map_err(write_err(out))?;
    let mut size = measure(out).map_err(write_err(out))?;
    size.results = t.results;
    size.cases = t.cases;
    Ok(size)
}

#[cfg(unix)]
fn set_readable(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    // The mode a new folder gets under the user's umask.
    let probe = tempfile::Builder::new().tempdir_in(dir)?;
    let wanted = {
        let p = probe.path().join("d");
        std::fs::create_dir(&p)?;
        std::fs::metadata(&p)?.permissions().mode()
    };
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(wanted))
}

#[cfg(not(unix))]
fn set_readable(_: &Path) -> std::io::Result<()> {
    Ok(())
}

/// The previous night's results, walked beside tonight's by case path.
struct PreviousNight<'a> {
    source: Option<&'a mut dyn SiteSource>,
    next: Option<Row>,
    /// Last night's results of case files tonight does not have.
    gone: usize,
}

impl PreviousNight<'_> {
    fn pull(&mut self) -> Result<Option<&Row>, String> {
        if self.next.is_none() {
            if let Some(s) = self.source.as_deref_mut() {
                self.next = s.next_row()?;
            }
        }
        Ok(self.next.as_ref())
    }

    /// Last night's results of case file `path`; those of case files
    /// before it, which tonight has not, are counted as gone.
    fn take(&mut self, path: &str) -> Result<Vec<Seen>, String> {
        let mut rows = Vec::new();
        while let Some(r) = self.pull()? {
            let p = case_path(&r.case).0;
            if p > path {
                break;
            }
            let r = self.next.take().expect("pulled");
            if case_path(&r.case).0 == path {
                rows.push(Seen::of(&r));
            } else {
                self.gone += 1;
            }
        }
        Ok(rows)
    }

    /// How many results last night had after tonight's last case file.
    fn rest(&mut self) -> Result<usize, String> {
        let mut n = 0;
        while self.pull()?.is_some() {
            self.next = None;
            n += 1;
        }
        Ok(n)
    }
}

/// One case file's results, to be written out.
struct CaseSite {
    path: String,
    id: String,
    folder: String,
    detail: Detail,
    codes: BTreeMap<Route, Vec<u8>>,
    by_route: BTreeMap<Route, Vec<Ran>>,
    /// The case's own count per verdict, by route and version index, added
    /// to its folder's once, at `finish`, rather than looked up per row.
    counts: BTreeMap<Route, Vec<[u32; Verdict::ALL.len()]>>,
    /// Each result as the night comparison needs it, in row order.
    seen: Vec<Seen>,
}

/// A result as one night is compared with the next: which case and
/// version, its verdict, and its observation's digest.
struct Seen {
    case: String,
    version: String,
    verdict: Verdict,
    observed: Option<[u8; 32]>,
}

impl Seen {
    fn of(r: &Row) -> Seen {
        Seen {
            case: r.case.clone(),
            version: r.version.clone(),
            verdict: r.verdict,
            observed: observed_text(r).map(|o| Sha256::digest(o.as_bytes()).into()),
        }
    }
}

/// A result's observation as the site compares and shows it.
fn observed_text(r: &Row) -> Option<String> {
    (!r.observed.is_null()).then(|| r.observed.to_pretty_sorted())
}

/// A case's detail file as it is gathered: each distinct text once, one
/// item per result, each known issue's title and link once.
#[derive(Default)]
struct Detail {
    blobs: Vec<String>,
    blob_at: HashMap<String, usize>,
    results: Vec<Json>,
    issues: BTreeMap<String, (Option<String>, Option<String>)>,
    /// Per route and version, the nights its verdict changed on.
    history: Vec<Json>,
}

impl Detail {
    fn blob(&mut self, text: String) -> Json {
        Json::int(self.place(text) as i64)
    }

    /// The place of `text` among the blobs: one text, one place.
    fn place(&mut self, text: String) -> usize {
        let blobs = &mut self.blobs;
        *self.blob_at.entry(text.clone()).or_insert_with(|| {
            blobs.push(text);
            blobs.len() - 1
        })
    }

    /// One result's item: its route, version and verdict letter, and its
    /// texts by their place in `blobs`.
    fn add(
        &mut self,
        r: &Row,
        route: Route,
        code: char,
        observed: Option<String>,
    ) -> Option<usize> {
        let mut m = vec![
            ("r", Json::str(route.name())),
            ("v", Json::str(&r.version)),
            ("k", Json::str(&code.to_string())),
        ];
        if !r.predicted.is_null() {
            m.push(("p", self.blob(r.predicted.to_pretty_sorted())));
        }
        let mut at = None;
        if let Some(o) = observed {
            let place = self.place(o);
            at = Some(place);
            m.push(("o", Json::int(place as i64)));
        }
        let texts = [("in", &r.input), ("d", &r.diff), ("x", &r.detail)];
        for (key, text) in texts {
            if let Some(t) = text {
                m.push((key, self.blob(t.clone())));
            }
        }
        if let Some((issue, state)) = &r.known_issue {
            m.push(("i", Json::Array(vec![Json::str(issue), Json::str(state)])));
            self.issues
                .entry(issue.clone())
                .or_insert_with(|| (r.issue_title.clone(), r.issue_link.clone()));
        }
        if !r.tries.is_empty() {
            m.push((
                "t",
                Json::Array(r.tries.iter().map(|t| Json::str(t)).collect()),
            ));
        }
        if !r.provider.is_empty() {
            m.push((
                "pr",
                Json::Array(r.provider.iter().map(|p| Json::str(p)).collect()),
            ));
        }
        self.results.push(Json::object(m));
        at
    }

    /// Write `data/c/ID.js`.
    fn write(self, path: &str, folder: &str, id: &str, data: &Path) -> Result<(), SiteError> {
        let opt = |s: &Option<String>| s.as_deref().map_or(Json::Null, Json::str);
        let issues = self
            .issues
            .iter()
            .map(|(id, (title, link))| {
                (
                    JsString::from(id.as_str()),
                    Json::Array(vec![opt(title), opt(link)]),
                )
            })
            .collect();
        let detail = Json::object([
            ("path", Json::str(path)),
            ("folder", Json::str(folder)),
            (
                "blobs",
                Json::Array(self.blobs.iter().map(|b| Json::str(b)).collect()),
            ),
            ("issues", Json::Object(issues)),
            ("results", Json::Array(self.results)),
            ("history", Json::Array(self.history)),
        ]);
        let file = data.join("c").join(format!("{id}.js"));
        std::fs::write(
            &file,
            format!(
                "MC.got({},{});\n",
                jstr(&format!("c/{id}")),
                detail.to_compact()
            ),
        )
        .map_err(write_err(&file))
    }
}

impl CaseSite {
    /// The case file `path`, counted in its folder.
    fn new(path: &str, folders: &mut BTreeMap<String, Folder>, data: &Path) -> CaseSite {
        let folder_path = folder_of(path).to_string();
        let folder = folders.entry(folder_path.clone()).or_insert_with(|| {
            let fid = file_id(&folder_path);
            Folder {
                rows: Chunks::new(data, format!("f/{fid}")),
                id: fid,
                cases: 0,
                counts: BTreeMap::new(),
            }
        });
        folder.cases += 1;
        CaseSite {
            path: path.to_string(),
            id: file_id(path),
            folder: folder_path,
            detail: Detail::default(),
            codes: BTreeMap::new(),
            by_route: BTreeMap::new(),
            counts: BTreeMap::new(),
            seen: Vec::new(),
        }
    }

    /// Fold in one of the case's results.
    fn add(&mut self, t: &mut Tally, r: &Row) {
        let route = case_path(&r.case).1;
        let vi = t.version(&r.version);
        let code = letter(r.verdict);
        let line = self.codes.entry(route).or_default();
        if line.len() <= vi {
            line.resize(vi + 1, b'.');
        }
        line[vi] = code as u8;
        let counts = self.counts.entry(route).or_default();
        if counts.len() <= vi {
            counts.resize(vi + 1, [0; Verdict::ALL.len()]);
        }
        counts[vi][code as usize - 'a' as usize] += 1;
        let observed = observed_text(r);
        self.tally(t, r, route, vi, observed.is_some());
        let at = self.detail.add(r, route, code, observed);
        if let (Some(v), Some(o)) = (MastraVersion::parse(&r.version), at) {
            if !r.verdict.is_infrastructure() {
                self.by_route
                    .entry(route)
                    .or_default()
                    .push((v, vi, code, o));
            }
        }
        self.seen.push(Seen::of(r));
    }

    /// Write the case's detail and its lines of the changes views, the
    /// folder's row and the names' row.
    fn finish(
        mut self,
        t: &mut Tally,
        data: &Path,
        folders: &mut BTreeMap<String, Folder>,
        before: &[Seen],
        history: Option<CaseHistory>,
        [changes, night, names]: [&mut Chunks; 3],
    ) -> Result<(), SiteError> {
        t.cases += 1;
        let by_route = std::mem::take(&mut self.by_route);
        self.release_changes(t, by_route, changes)?;
        self.night_changes(t, before, night)?;
        let mut detail = std::mem::take(&mut self.detail);
        detail.history = self.history_json(history)?;
        detail.write(&self.path, &self.folder, &self.id, data)?;
        let routes = Json::Object(
            std::mem::take(&mut self.codes)
                .into_iter()
                .map(|(r, c)| {
                    (
                        JsString::from(r.name()),
                        Json::str(&String::from_utf8_lossy(&c)),
                    )
                })
                .collect(),
        );
        let folder = folders.get_mut(&self.folder).expect("counted by new");
        for (route, counts) in std::mem::take(&mut self.counts) {
            let into = folder.counts.entry(route).or_default();
            if into.len() < counts.len() {
                into.resize(counts.len(), [0; Verdict::ALL.len()]);
            }
            for (total, case) in into.iter_mut().zip(counts) {
                for (a, b) in total.iter_mut().zip(case) {
                    *a += b;
                }
            }
        }
        folder.rows.push(&compact([
            jstr(&self.path),
            jstr(&self.id),
            routes.to_compact(),
        ]))?;
        names.push(&compact([
            jstr(&self.path),
            jstr(&self.id),
            jstr(&folder.id),
        ]))
    }

    /// What one result adds to the index: the versions that ran or could
    /// not, the divergences listed, the known issues' versions.
    fn tally(&self, t: &mut Tally, r: &Row, route: Route, vi: usize, ran: bool) {
        t.results += 1;
        if r.verdict.is_infrastructure() {
            let why = r
                .detail
                .as_deref()
                .and_then(|d| d.lines().next())
                .unwrap_or("")
                .to_string();
            t.infra.entry(vi).or_insert((r.verdict, why, 0)).2 += 1;
        } else if ran {
            t.ran[vi] = true;
        }
        let listed = || {
            Json::object([
                ("case", Json::str(&r.case)),
                ("path", Json::str(&self.path)),
                ("route", Json::str(route.name())),
                ("version", Json::str(&r.version)),
                ("verdict", Json::str(r.verdict.name())),
            ])
        };
        if r.verdict.is_divergence() {
            t.divergences += 1;
            if t.listed.len() < LISTED_DIVERGENCES {
                t.listed.push(listed());
            }
        } else if r.verdict == Verdict::Flaky {
            t.flaky += 1;
            if t.flaky_listed.len() < LISTED_DIVERGENCES {
                t.flaky_listed.push(listed());
            }
        }
        if let Some((issue, state)) = &r.known_issue {
            let e = t.issues.entry(issue.clone()).or_default();
            if e.0.is_none() {
                e.0 = r.issue_title.clone();
            }
            if e.1.is_none() {
                e.1 = r.issue_link.clone();
            }
            e.2.entry(state.clone()).or_default().insert(vi);
        }
    }

    /// Between neighbouring releases, on each route: the versions where
    /// this case ran, in release order.
    fn release_changes(
        &self,
        t: &mut Tally,
        by_route: BTreeMap<Route, Vec<Ran>>,
        changes: &mut Chunks,
    ) -> Result<(), SiteError> {
        for (route, mut seen) in by_route {
            seen.sort_by_key(|s| s.0);
            for pair in seen.windows(2) {
                let ((_, a, ka, oa), (_, b, kb, ob)) = (&pair[0], &pair[1]);
                if ka != kb || oa != ob {
                    t.changes += 1;
                    *t.boundaries.entry((*a, *b)).or_default() += 1;
                    changes.push(&compact([
                        jstr(&self.path),
                        jstr(&self.id),
                        jstr(route.name()),
                        jstr(&t.versions[*a]),
                        jstr(&t.versions[*b]),
                        jstr(&ka.to_string()),
                        jstr(&kb.to_string()),
                        u8::from(oa != ob).to_string(),
                    ]))?;
                }
            }
        }
        Ok(())
    }

    /// The case's nights of change on each route and version, from the
    /// history: `[route, version, night, at, verdict]`.
    fn history_json(&self, history: Option<CaseHistory>) -> Result<Vec<Json>, SiteError> {
        let Some(history) = history else {
            return Ok(Vec::new());
        };
        let mut names: Vec<&str> = self.seen.iter().map(|r| r.case.as_str()).collect();
        names.dedup();
        let mut out = Vec::new();
        for name in names {
            let route = case_path(name).1;
            for (version, night, at, verdict) in history(name).map_err(SiteError::Input)? {
                out.push(Json::Array(vec![
                    Json::str(route.name()),
                    Json::str(&version),
                    Json::int(night),
                    Json::int(at),
                    Json::str(&verdict),
                ]));
            }
        }
        Ok(out)
    }

    /// Since the previous night: each route and version both nights ran.
    fn night_changes(
        &self,
        t: &mut Tally,
        before: &[Seen],
        night: &mut Chunks,
    ) -> Result<(), SiteError> {
        let mut last: HashMap<(&str, &str), &Seen> = HashMap::new();
        for r in before {
            last.insert((&r.case, &r.version), r);
        }
        for r in &self.seen {
            let Some(b) = last.remove(&(r.case.as_str(), r.version.as_str())) else {
                t.night_new += 1;
                continue;
            };
            let observed_changed = b.observed != r.observed;
            if b.verdict != r.verdict || observed_changed {
                t.night_changes += 1;
                night.push(&compact([
                    jstr(&self.path),
                    jstr(&self.id),
                    jstr(case_path(&r.case).1.name()),
                    jstr(&r.version),
                    jstr(&letter(b.verdict).to_string()),
                    jstr(&letter(r.verdict).to_string()),
                    u8::from(observed_changed).to_string(),
                ]))?;
            }
        }
        t.night_gone += last.len();
        Ok(())
    }
}

fn compact<const N: usize>(items: [String; N]) -> String {
    format!("[{}]", items.join(","))
}

fn folder_json(
    path: &str,
    id: &str,
    chunks: usize,
    cases: usize,
    counts: &BTreeMap<Route, Vec<[u32; Verdict::ALL.len()]>>,
    versions: usize,
) -> Json {
    // Per route, per version: the verdict letters and their counts, as one
    // short string ("a12k3"), empty where the folder has no result.
    let routes = counts
        .iter()
        .map(|(route, per_version)| {
            let cells = (0..versions)
                .map(|vi| {
                    let c = per_version.get(vi).copied().unwrap_or_default();
                    let text: String = c
                        .iter()
                        .enumerate()
                        .filter(|(_, n)| **n > 0)
                        .map(|(i, n)| format!("{}{n}", (b'a' + i as u8) as char))
                        .collect();
                    Json::str(&text)
                })
                .collect();
            (route.name(), Json::Array(cells))
        })
        .collect::<Vec<_>>();
    Json::object([
        ("path", Json::str(path)),
        ("id", Json::str(id)),
        ("chunks", Json::int(chunks as i64)),
        ("cases", Json::int(cases as i64)),
        ("counts", Json::object(routes)),
    ])
}

/// Runs of consecutive columns: each `(first, last)` among `columns` (in
/// order) whose members all are in `present`, broken wherever a column is
/// not. The columns are the versions that ran, so a version that could not
/// run (the index's note names it) does not break a range.
pub fn ranges<T: PartialEq + Copy>(columns: &[T], present: &[T]) -> Vec<(T, T)> {
    let mut out: Vec<(T, T)> = Vec::new();
    let mut open = false;
    for c in columns {
        if present.contains(c) {
            match (open, out.last_mut()) {
                (true, Some(last)) => last.1 = *c,
                _ => out.push((*c, *c)),
            }
            open = true;
        } else {
            open = false;
        }
    }
    out
}

/// Each known issue shown: its id, title, link, and per state the
/// versions as ranges of columns; security issues first, marked.
fn issues_json(t: &Tally, columns: &[usize], security: IsSecurity) -> Vec<Json> {
    let mut ids: Vec<&String> = t.issues.keys().collect();
    ids.sort_by_key(|id| !security(id));
    ids.into_iter()
        .map(|id| {
            let (title, link, states) = &t.issues[id];
            let states = states
                .iter()
                .map(|(state, vs)| {
                    let present: Vec<usize> = vs.iter().copied().collect();
                    let runs = ranges(columns, &present)
                        .into_iter()
                        .map(|(a, b)| {
                            Json::Array(vec![Json::str(&t.versions[a]), Json::str(&t.versions[b])])
                        })
                        .collect();
                    (state.as_str(), Json::Array(runs))
                })
                .collect::<Vec<_>>();
            let opt = |s: &Option<String>| s.as_deref().map_or(Json::Null, Json::str);
            Json::object([
                ("id", Json::str(id)),
                ("title", opt(title)),
                ("link", opt(link)),
                ("security", Json::Bool(security(id))),
                ("states", Json::object(states)),
            ])
        })
        .collect()
}

/// The versions where no case ran, each with why.
fn not_run_json(t: &Tally) -> Vec<Json> {
    (0..t.versions.len())
        .filter(|i| !t.ran[*i])
        .map(|i| {
            let (verdict, why, n) = t.infra.get(&i).cloned().unwrap_or((
                Verdict::VersionUnavailable,
                "no result".into(),
                0,
            ));
            Json::object([
                ("version", Json::str(&t.versions[i])),
                ("verdict", Json::str(verdict.name())),
                ("results", Json::int(n as i64)),
                ("why", Json::str(&why)),
            ])
        })
        .collect()
}

/// Every verdict: its name, letter, mark and colour, and its kind.
fn verdicts_json() -> Vec<Json> {
    Verdict::ALL
        .into_iter()
        .map(|v| {
            let (mark, colour) = style(v);
            Json::object([
                ("name", Json::str(v.name())),
                ("letter", Json::str(&letter(v).to_string())),
                ("mark", Json::str(mark)),
                ("colour", Json::str(colour)),
                ("divergence", Json::Bool(v.is_divergence())),
                ("infrastructure", Json::Bool(v.is_infrastructure())),
            ])
        })
        .collect()
}

/// The run as one line, for the index's header.
fn run_line(run: &Json, incomplete: Option<String>, results: usize) -> String {
    let field = |k: &str| {
        run.get(k)
            .and_then(Json::as_str)
            .map_or_else(|| "?".to_string(), JsString::to_lossy)
    };
    let commit: String = field("commit").chars().take(12).collect();
    let mut line = format!(
        "{} · commit {commit} · Node {} · {results} results",
        field("harness"),
        field("node")
    );
    if let Some(why) = incomplete {
        line.push_str(&format!(" · {why}"));
    }
    line
}

fn index_json(
    t: &Tally,
    source: &dyn SiteSource,
    has_previous: bool,
    security: IsSecurity,
    folders: Vec<Json>,
    [changes, night, names]: [usize; 3],
) -> Json {
    // The columns: versions where some case ran, in release order; the
    // others are a note.
    let mut columns: Vec<usize> = (0..t.versions.len()).filter(|i| t.ran[*i]).collect();
    columns.sort_by_key(|i| MastraVersion::parse(&t.versions[*i]));
    let issues = issues_json(t, &columns, security);
    let not_run = not_run_json(t);
    let verdicts = verdicts_json();
    let boundaries = t
        .boundaries
        .iter()
        .map(|((a, b), n)| {
            Json::Array(vec![
                Json::str(&t.versions[*a]),
                Json::str(&t.versions[*b]),
                Json::int(*n as i64),
            ])
        })
        .collect();
    let count = |n: usize| Json::int(n as i64);
    Json::object([
        (
            "run",
            Json::str(&run_line(source.run(), source.incomplete(), t.results)),
        ),
        (
            "incomplete",
            source.incomplete().map_or(Json::Null, |s| Json::str(&s)),
        ),
        (
            "versions",
            Json::Array(t.versions.iter().map(|v| Json::str(v)).collect()),
        ),
        (
            "columns",
            Json::Array(columns.iter().map(|i| count(*i)).collect()),
        ),
        (
            "routes",
            Json::Array(Route::ALL.iter().map(|r| Json::str(r.name())).collect()),
        ),
        ("verdicts", Json::Array(verdicts)),
        ("folders", Json::Array(folders)),
        ("issues", Json::Array(issues)),
        (
            "divergences",
            Json::object([
                ("count", count(t.divergences)),
                ("listed", Json::Array(t.listed.clone())),
            ]),
        ),
        (
            "flaky",
            Json::object([
                ("count", count(t.flaky)),
                ("listed", Json::Array(t.flaky_listed.clone())),
            ]),
        ),
        ("notRun", Json::Array(not_run)),
        (
            "changes",
            Json::object([
                ("count", count(t.changes)),
                ("chunks", count(changes)),
                ("boundaries", Json::Array(boundaries)),
            ]),
        ),
        (
            "night",
            if has_previous {
                Json::object([
                    ("count", count(t.night_changes)),
                    ("chunks", count(night)),
                    ("new", count(t.night_new)),
                    ("gone", count(t.night_gone)),
                ])
            } else {
                Json::Null
            },
        ),
        ("names", count(names)),
        ("results", count(t.results)),
        ("cases", count(t.cases)),
    ])
}

/// The files of a rendered site and their sizes.
pub fn measure(site: &Path) -> std::io::Result<SiteSize> {
    let mut size = SiteSize::default();
    let mut stack = vec![site.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let meta = entry.metadata()?;
            if meta.is_dir() {
                stack.push(entry.path());
                continue;
            }
            size.files += 1;
            size.bytes += meta.len();
            if meta.len() > size.largest.1 {
                let rel = entry
                    .path()
                    .strip_prefix(site)
                    .unwrap_or(&entry.path())
                    .to_path_buf();
                size.largest = (rel.to_string_lossy().into_owned(), meta.len());
            }
        }
    }
    for first in page::FIRST_LOAD {
        size.first_load += std::fs::metadata(site.join(first))?.len();
    }
    Ok(size)
}

#[cfg(test)]
mod tests;
