//! `ObservationStore`: the observations earlier runs made, kept in the
//! cache so that a run observes only what changed (`CACHE/observations/`).
//!
//! In: whole observations (`format::Record`) with their keys (`key`), and
//! the shelf an install's observations go on. Out: the observations stored
//! under a key, for the run to judge again with today's model; the store's
//! size and shelves for `cache status`, and `prune`.
//!
//! ```text
//! CACHE/observations/VERSION-DIGEST/shelf.json        the shelf's key and what the probe loaded
//! CACHE/observations/VERSION-DIGEST/NANOS-PID.seg     one segment per run that observed something
//! CACHE/locks/observations-VERSION-DIGEST.lock        taken to write or compact the shelf
//! ```
//!
//! A segment is written whole to a temporary file and renamed into place,
//! so a reader sees all of it or nothing, and readers take no lock. Where
//! segments hold the same case, the newest wins (a `--fresh` run's).
//! Once a shelf has `COMPACT_AT` segments, the writer folds them into one.
//! A segment that cannot be read is left out (its cases are observed
//! again) and counted, never read in part.

pub mod format;
pub mod key;

use crate::install::lock::{self, Hold, Waited};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::results::Hello;
use crate::version::spec::MastraVersion;
use format::{read_segment, read_segment_each, segment_count, write_segment, Record};
use key::{code_digest, install_identity, local_imports, CaseKey, ShelfKey, PROBE_ROOTS};
use std::collections::HashMap;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The store's folder in the cache.
pub const OBSERVATIONS: &str = "observations";

/// A shelf's description, beside its segments.
const SHELF_META: &str = "shelf.json";

/// Segments a shelf may gather before a writer folds them into one.
const COMPACT_AT: usize = 8;

/// The store of one cache.
#[derive(Debug, Clone)]
pub struct ObservationStore {
    pub dir: PathBuf,
    locks: PathBuf,
}

/// What a shelf says of itself: its key, and what the probe loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct ShelfMeta {
    pub key: ShelfKey,
    pub hello: Option<Hello>,
}

/// What a fold made of each case's newest record on a shelf.
#[derive(Debug)]
pub struct FoldedShelf<T> {
    pub each: HashMap<CaseKey, T>,
    pub meta: Option<ShelfMeta>,
    /// Segments left out because they could not be read.
    pub unreadable: usize,
}

/// The observations of one shelf, read from its segments.
#[derive(Debug, Default)]
pub struct Shelf {
    records: HashMap<CaseKey, Record>,
    pub meta: Option<ShelfMeta>,
    /// Segments left out because they could not be read.
    pub unreadable: usize,
}

impl Shelf {
    /// The observation stored for `case`, if any.
    pub fn get(&self, case: &CaseKey) -> Option<&Record> {
        self.records.get(case)
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

impl ObservationStore {
    /// The store at `dir`, locking under `locks`.
    pub fn new(dir: &Path, locks: &Path) -> ObservationStore {
        ObservationStore {
            dir: dir.to_path_buf(),
            locks: locks.to_path_buf(),
        }
    }

    /// The store of the cache at `cache`.
    pub fn in_cache(cache: &Path) -> ObservationStore {
        ObservationStore::new(&cache.join(OBSERVATIONS), &cache.join("locks"))
    }

    fn shelf_dir(&self, key: &ShelfKey) -> PathBuf {
        self.dir.join(key.folder())
    }

    fn lock_of(&self, folder: &str) -> PathBuf {
        self.locks.join(format!("observations-{folder}.lock"))
    }

    /// Read the shelf of `key` (empty when there is none).
    pub fn shelf(&self, key: &ShelfKey) -> Shelf {
        let folded = self.fold_shelf(key, |_| true, |r| r);
        Shelf {
            records: folded.each,
            meta: folded.meta,
            unreadable: folded.unreadable,
        }
    }

    /// What `each` makes of the newest record of every case of `key`'s
    /// shelf that `wanted` keeps. Each record is made into its `T` as it is
    /// decoded, so the shelf's records are never held together: only what
    /// `each` keeps of them. A damaged segment gives nothing (its `T`s are
    /// dropped) and is counted as unreadable.
    pub fn fold_shelf<T>(
        &self,
        key: &ShelfKey,
        wanted: impl Fn(&CaseKey) -> bool,
        mut each: impl FnMut(Record) -> T,
    ) -> FoldedShelf<T> {
        let dir = self.shelf_dir(key);
        let mut folded = FoldedShelf {
            each: HashMap::new(),
            meta: read_meta(&dir).filter(|m| m.key == *key),
            unreadable: 0,
        };
        // Newest first: a case a newer segment holds is not made again
        // from an older one.
        for path in segments(&dir).into_iter().rev() {
            let mut made: Vec<(CaseKey, T)> = Vec::new();
            let read = std::fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|b| {
                    let fresh = |k: &CaseKey| wanted(k) && !folded.each.contains_key(k);
                    read_segment_each(&b, fresh, |r| made.push((r.case, each(r))))
                        .map_err(|e| e.to_string())
                });
            match read {
                // Within a segment the later record of a case is the newer.
                Ok(()) => folded.each.extend(made),
                // Gone since it was listed (a compaction): its records are
                // in the newer segment listed after it, or observed again.
                Err(_) if !path.exists() => {}
                Err(_) => folded.unreadable += 1,
            }
        }
        folded
    }

    /// Add `records` to the shelf of `key` as one new segment (and the
    /// shelf's description, with `hello`, when it has none); fold the
    /// shelf's segments into one once there are `COMPACT_AT`.
    pub fn append(
        &self,
        key: &ShelfKey,
        hello: Option<&Hello>,
        records: &[Record],
    ) -> std::io::Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        let dir = self.shelf_dir(key);
        std::fs::create_dir_all(&dir)?;
        let _held = self.hold(&key.folder())?;
        let known = read_meta(&dir);
        if known
            .as_ref()
            .is_none_or(|m| m.hello.is_none() && hello.is_some())
        {
            let meta = ShelfMeta {
                key: key.clone(),
                hello: hello.cloned(),
            };
            write_whole(
                &dir.join(SHELF_META),
                meta_json(&meta).to_pretty().as_bytes(),
            )?;
        }
        write_whole(&dir.join(segment_name()), &write_segment(records))?;
        if segments(&dir).len() >= COMPACT_AT {
            compact(&dir)?;
        }
        Ok(())
    }

    /// The shelf's lock, held while it is written or compacted.
    fn hold(&self, folder: &str) -> std::io::Result<std::fs::File> {
        match lock::take(
            &self.lock_of(folder),
            Hold::Exclusive,
            Duration::from_secs(120),
            Duration::from_millis(20),
            None,
        )
        .map_err(std::io::Error::other)?
        {
            Waited::Held(f) => Ok(f),
            Waited::TimedOut | Waited::Interrupted => Err(std::io::Error::other(format!(
                "another run held {} for two minutes",
                self.lock_of(folder).display()
            ))),
        }
    }

    /// Every shelf, with its size.
    pub fn status(&self) -> StoreStatus {
        let mut shelves = Vec::new();
        for entry in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            let dir = entry.path();
            if !dir.is_dir() {
                continue;
            }
            let mut bytes = 0;
            let mut records = 0;
            let mut segs = 0;
            for f in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                if let Ok(meta) = f.metadata() {
                    bytes += meta.blocks() * 512;
                }
            }
            for s in segments(&dir) {
                segs += 1;
                records += std::fs::read(&s)
                    .ok()
                    .and_then(|b| segment_count(&b).ok())
                    .unwrap_or(0) as usize;
            }
            shelves.push(ShelfEntry {
                folder: entry.file_name().to_string_lossy().into_owned(),
                path: dir.clone(),
                meta: read_meta(&dir),
                bytes,
                records,
                segments: segs,
            });
        }
        shelves.sort_by(|a, b| a.folder.cmp(&b.folder));
        StoreStatus {
            bytes: shelves.iter().map(|s| s.bytes).sum(),
            shelves,
        }
    }

    /// Remove every shelf `keep` refuses (with its lock taken, so no run
    /// is writing it), and fold the segments of each one kept.
    pub fn prune(&self, keep: impl Fn(&ShelfEntry) -> bool) -> std::io::Result<StorePruned> {
        let before = self.status();
        let mut pruned = StorePruned::default();
        for shelf in &before.shelves {
            let _held = self.hold(&shelf.folder)?;
            if keep(shelf) {
                if segments(&shelf.path).len() > 1 {
                    compact(&shelf.path)?;
                }
            } else {
                std::fs::remove_dir_all(&shelf.path)?;
                pruned.removed.push(shelf.folder.clone());
            }
        }
        pruned.freed_bytes = before.bytes.saturating_sub(self.status().bytes);
        Ok(pruned)
    }
}

/// What the store holds.
#[derive(Debug, Clone, Default)]
pub struct StoreStatus {
    /// On disk, all shelves.
    pub bytes: u64,
    pub shelves: Vec<ShelfEntry>,
}

#[derive(Debug, Clone)]
pub struct ShelfEntry {
    pub folder: String,
    pub path: PathBuf,
    /// `None`: no readable description (a shelf no run finished writing).
    pub meta: Option<ShelfMeta>,
    pub bytes: u64,
    pub records: usize,
    pub segments: usize,
}

/// What `prune` removed from the store.
#[derive(Debug, Clone, Default)]
pub struct StorePruned {
    pub removed: Vec<String>,
    pub freed_bytes: u64,
}

/// Why `cache prune` removes a shelf, or `None` to keep it: a shelf no
/// run can hit again. `installs` are the identities of the installs the
/// cache holds; `code` is this harness's code digest (`None` when it could
/// not be read, so no shelf is judged by it). Pure.
pub fn stale(
    entry: &ShelfEntry,
    installs: &std::collections::HashSet<String>,
    code: Option<&str>,
) -> Option<&'static str> {
    let Some(meta) = &entry.meta else {
        return Some("no readable shelf.json");
    };
    if meta.key.format != key::FORMAT {
        return Some("another observation format");
    }
    if !installs.contains(&meta.key.install) {
        return Some("its install is gone or changed");
    }
    if code.is_some_and(|c| c != meta.key.code) {
        return Some("another probe or listener");
    }
    None
}

/// The identities of the installs at `installs` (version and folder), the
/// ones with a lockfile.
pub fn identities(installs: &[(MastraVersion, PathBuf)]) -> std::collections::HashSet<String> {
    installs
        .iter()
        .filter_map(|(v, dir)| install_identity_of(*v, dir))
        .collect()
}

/// The segments of a shelf folder, oldest first (their names start with
/// the time they were written, zero-padded).
fn segments(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "seg"))
        .collect();
    out.sort();
    out
}

/// A new segment's name: the time, then this process and a counter, so two
/// writers never pick the same one.
fn segment_name() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{nanos:020}-{}-{}.seg",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Fold a shelf's segments into one (newest record of each case kept),
/// then remove the old ones. The caller holds the shelf's lock.
fn compact(dir: &Path) -> std::io::Result<()> {
    let old = segments(dir);
    let mut records: HashMap<CaseKey, Record> = HashMap::new();
    for path in &old {
        // An unreadable segment is dropped with the rest: its cases are
        // observed again.
        if let Ok(rs) = read_segment(&std::fs::read(path)?) {
            for r in rs {
                records.insert(r.case, r);
            }
        }
    }
    let mut all: Vec<Record> = records.into_values().collect();
    all.sort_by_key(|r| r.case);
    write_whole(&dir.join(segment_name()), &write_segment(&all))?;
    for path in old {
        std::fs::remove_file(path)?;
    }
    Ok(())
}

/// Write `bytes` to `path` whole: a temporary file beside it, renamed.
fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.flush()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

fn read_meta(dir: &Path) -> Option<ShelfMeta> {
    let text = std::fs::read_to_string(dir.join(SHELF_META)).ok()?;
    meta_from_json(&Json::parse(&text).ok()?)
}

fn meta_json(m: &ShelfMeta) -> Json {
    let k = &m.key;
    let hello = m.hello.as_ref().map_or(Json::Null, |h| {
        Json::object([
            ("node", Json::str(&h.node)),
            ("mastra", Json::str(&h.mastra)),
            ("zod", Json::str(&h.zod)),
            (
                "packages",
                Json::Object(
                    h.packages
                        .iter()
                        .map(|(n, v)| (JsString::from(n.as_str()), Json::str(v)))
                        .collect(),
                ),
            ),
            (
                "builtins",
                Json::Array(h.builtins.iter().map(|b| Json::str(b)).collect()),
            ),
        ])
    });
    Json::object([
        ("format", Json::int(i64::from(k.format))),
        ("version", Json::str(&k.version.to_string())),
        ("install", Json::str(&k.install)),
        ("node", Json::str(&k.node)),
        ("code", Json::str(&k.code)),
        ("hello", hello),
    ])
}

fn meta_from_json(j: &Json) -> Option<ShelfMeta> {
    let text = |v: &Json, k: &str| v.get(k).and_then(Json::as_str).map(JsString::to_lossy);
    let key = ShelfKey {
        format: j.get("format")?.as_f64()? as u32,
        version: MastraVersion::parse(&text(j, "version")?)?,
        install: text(j, "install")?,
        node: text(j, "node")?,
        code: text(j, "code")?,
    };
    let hello = match j.get("hello") {
        Some(h) if !h.is_null() => Some(Hello {
            node: text(h, "node")?,
            mastra: text(h, "mastra")?,
            zod: text(h, "zod")?,
            packages: h
                .get("packages")?
                .members()?
                .into_iter()
                .map(|(n, v)| Some((n.to_lossy(), v.as_str()?.to_lossy())))
                .collect::<Option<Vec<_>>>()?,
            builtins: h
                .get("builtins")?
                .as_array()?
                .iter()
                .map(|b| b.as_str().map(JsString::to_lossy))
                .collect::<Option<Vec<_>>>()?,
            startup: Duration::ZERO,
        }),
        _ => None,
    };
    Some(ShelfMeta { key, hello })
}

/// The files that say what an install holds, in the order they are
/// digested: its manifest, its lockfile (pnpm's, or npm's for an install
/// made by `npm ci`) and the entry module the probe imports.
const INSTALL_FILES: &[&str] = &[
    "package.json",
    "pnpm-lock.yaml",
    "package-lock.json",
    "probe-entry.mjs",
];

/// The identity of the install of `version` at `dir`; `None` when it has
/// no lockfile, so nothing says which packages it holds (never stored).
pub fn install_identity_of(version: MastraVersion, dir: &Path) -> Option<String> {
    let files: Vec<(&str, Option<Vec<u8>>)> = INSTALL_FILES
        .iter()
        .map(|f| (*f, std::fs::read(dir.join(f)).ok()))
        .collect();
    let locked = files
        .iter()
        .any(|(f, b)| f.contains("-lock.") && b.is_some());
    locked.then(|| install_identity(version, &files))
}

/// The code digest of the probe in `probe_dir`: the wire digest this binary
/// was built with, and every module the probe loads from that folder,
/// found by following the local imports from `PROBE_ROOTS`. A module that
/// cannot be read is an error (the probe could not load it either).
pub fn probe_code_digest(probe_dir: &Path) -> std::io::Result<String> {
    let mut modules: Vec<(String, Vec<u8>)> = Vec::new();
    let mut todo: Vec<String> = PROBE_ROOTS.iter().map(|s| s.to_string()).collect();
    while let Some(name) = todo.pop() {
        if modules.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let path = probe_dir.join(&name);
        let bytes = std::fs::read(&path).map_err(|e| {
            std::io::Error::new(e.kind(), format!("cannot read {}: {e}", path.display()))
        })?;
        todo.extend(local_imports(&String::from_utf8_lossy(&bytes)));
        modules.push((name, bytes));
    }
    Ok(code_digest(key::WIRE_DIGEST, &modules))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observation::Observation;

    fn key(install: &str) -> ShelfKey {
        ShelfKey {
            version: MastraVersion::new(1, 67, 0),
            install: install.into(),
            node: "v24.22.3".into(),
            code: "code".into(),
            format: key::FORMAT,
        }
    }

    fn record(n: u8, body: &str) -> Record {
        Record {
            case: CaseKey([n; 32]),
            result: Json::parse(r#"{"applicable":true,"error":null,"executed":[]}"#).unwrap(),
            bodies: vec![body.as_bytes().to_vec()],
        }
    }

    fn hello() -> Hello {
        Hello {
            node: "v24.22.3".into(),
            mastra: "1.67.0".into(),
            zod: "3.25.76".into(),
            packages: vec![("@mastra/mcp".into(), "1.18.0".into())],
            builtins: vec!["askUserTool".into()],
            startup: Duration::ZERO,
        }
    }

    #[test]
    fn what_is_appended_is_found_under_its_key_and_only_there() {
        let tmp = tempfile::tempdir().unwrap();
        let store = ObservationStore::in_cache(tmp.path());
        assert!(store.shelf(&key("a")).is_empty(), "nothing stored yet");
        store
            .append(
                &key("a"),
                Some(&hello()),
                &[record(1, "one"), record(2, "two")],
            )
            .unwrap();
        let shelf = store.shelf(&key("a"));
        assert_eq!(shelf.len(), 2);
        assert_eq!(
            shelf.get(&CaseKey([1; 32])).unwrap().bodies,
            [b"one".to_vec()]
        );
        assert!(
            shelf.get(&CaseKey([3; 32])).is_none(),
            "another case misses"
        );
        assert_eq!(shelf.meta.as_ref().unwrap().hello, Some(hello()));
        assert!(matches!(
            shelf
                .get(&CaseKey([2; 32]))
                .unwrap()
                .clone()
                .into_observation(),
            Observation::Done { .. }
        ));
        let other = store.shelf(&key("b"));
        assert!(
            other.is_empty() && other.meta.is_none(),
            "another install misses"
        );
    }

    #[test]
    fn the_newest_record_of_a_case_wins_and_many_segments_fold_into_one() {
        let tmp = tempfile::tempdir().unwrap();
        let store = ObservationStore::in_cache(tmp.path());
        let k = key("a");
        for round in 0..COMPACT_AT {
            store
                .append(
                    &k,
                    None,
                    &[
                        record(1, &format!("round {round}")),
                        record(round as u8 + 10, "x"),
                    ],
                )
                .unwrap();
        }
        let dir = store.dir.join(k.folder());
        assert_eq!(segments(&dir).len(), 1, "folded at {COMPACT_AT}");
        let shelf = store.shelf(&k);
        assert_eq!(shelf.len(), 1 + COMPACT_AT);
        assert_eq!(
            shelf.get(&CaseKey([1; 32])).unwrap().bodies,
            [format!("round {}", COMPACT_AT - 1).into_bytes()]
        );
        let status = store.status();
        assert_eq!(status.shelves.len(), 1);
        assert_eq!(status.shelves[0].records, 1 + COMPACT_AT);
        assert!(status.bytes > 0);
    }

    #[test]
    fn an_unreadable_segment_is_left_out_and_counted() {
        let tmp = tempfile::tempdir().unwrap();
        let store = ObservationStore::in_cache(tmp.path());
        let k = key("a");
        store.append(&k, None, &[record(1, "one")]).unwrap();
        let dir = store.dir.join(k.folder());
        std::fs::write(
            dir.join("99999999999999999999-1-0.seg"),
            b"MCOBS\x00\x01\nbroken",
        )
        .unwrap();
        let shelf = store.shelf(&k);
        assert_eq!((shelf.len(), shelf.unreadable), (1, 1));
    }

    #[test]
    fn a_fold_makes_each_wanted_case_once_from_its_newest_whole_segment() {
        let tmp = tempfile::tempdir().unwrap();
        let store = ObservationStore::in_cache(tmp.path());
        let k = key("a");
        store
            .append(&k, None, &[record(1, "old"), record(2, "two")])
            .unwrap();
        store
            .append(&k, None, &[record(1, "new"), record(3, "three")])
            .unwrap();
        // Newest of all, and damaged only at its end: what it gave before
        // the damage showed must not be used.
        let mut damaged = format::write_segment(&[record(1, "damaged"), record(4, "four")]);
        damaged[format::MAGIC.len()] = 3;
        let dir = store.dir.join(k.folder());
        std::fs::write(dir.join("99999999999999999999-1-0.seg"), damaged).unwrap();
        let mut made = 0;
        let folded = store.fold_shelf(
            &k,
            |c| c.0[0] != 3,
            |r| {
                made += 1;
                String::from_utf8(r.bodies[0].clone()).unwrap()
            },
        );
        let mut got: Vec<(u8, String)> =
            folded.each.into_iter().map(|(c, b)| (c.0[0], b)).collect();
        got.sort();
        assert_eq!(got, [(1, "new".to_string()), (2, "two".to_string())]);
        assert_eq!(folded.unreadable, 1);
        assert_eq!(made, 4, "the damaged segment's two, then 1 once, then 2");
    }

    #[test]
    fn prune_removes_what_it_is_told_and_folds_the_rest() {
        let tmp = tempfile::tempdir().unwrap();
        let store = ObservationStore::in_cache(tmp.path());
        store.append(&key("a"), None, &[record(1, "one")]).unwrap();
        store.append(&key("a"), None, &[record(2, "two")]).unwrap();
        store.append(&key("b"), None, &[record(1, "one")]).unwrap();
        let pruned = store
            .prune(|s| s.meta.as_ref().is_some_and(|m| m.key.install == "a"))
            .unwrap();
        assert_eq!(pruned.removed, [key("b").folder()]);
        let status = store.status();
        assert_eq!(status.shelves.len(), 1);
        assert_eq!(
            (status.shelves[0].segments, status.shelves[0].records),
            (1, 2)
        );
        assert_eq!(store.shelf(&key("a")).len(), 2);
    }

    #[test]
    fn a_shelf_is_stale_when_its_install_format_or_code_is_not_todays() {
        let entry = |meta: Option<ShelfMeta>| ShelfEntry {
            folder: "f".into(),
            path: PathBuf::from("f"),
            meta,
            bytes: 1,
            records: 1,
            segments: 1,
        };
        let live: std::collections::HashSet<String> = ["a".to_string()].into();
        let meta = |k: ShelfKey| {
            Some(ShelfMeta {
                key: k,
                hello: None,
            })
        };
        assert_eq!(stale(&entry(meta(key("a"))), &live, Some("code")), None);
        assert_eq!(stale(&entry(meta(key("a"))), &live, None), None);
        assert_eq!(
            stale(&entry(meta(key("b"))), &live, Some("code")),
            Some("its install is gone or changed")
        );
        assert_eq!(
            stale(&entry(meta(key("a"))), &live, Some("other")),
            Some("another probe or listener")
        );
        let old = ShelfKey {
            format: key::FORMAT + 1,
            ..key("a")
        };
        assert_eq!(
            stale(&entry(meta(old)), &live, Some("code")),
            Some("another observation format")
        );
        assert_eq!(
            stale(&entry(None), &live, Some("code")),
            Some("no readable shelf.json")
        );
    }

    #[test]
    fn an_install_without_a_lockfile_has_no_identity() {
        let tmp = tempfile::tempdir().unwrap();
        let v = MastraVersion::new(1, 67, 0);
        std::fs::write(tmp.path().join("package.json"), "{}").unwrap();
        assert_eq!(install_identity_of(v, tmp.path()), None);
        std::fs::write(tmp.path().join("pnpm-lock.yaml"), "lockfileVersion: '9.0'").unwrap();
        let first = install_identity_of(v, tmp.path()).unwrap();
        std::fs::write(tmp.path().join("pnpm-lock.yaml"), "lockfileVersion: '9.1'").unwrap();
        assert_ne!(install_identity_of(v, tmp.path()).unwrap(), first);
    }

    #[test]
    fn the_probe_digest_follows_the_probes_imports() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::write(dir.join("probe.mjs"), "import { a } from './cases.mjs';").unwrap();
        std::fs::write(dir.join("mcp-server.mjs"), "import './guard.mjs';").unwrap();
        std::fs::write(dir.join("cases.mjs"), "export const a = 1;").unwrap();
        std::fs::write(dir.join("guard.mjs"), "export {};").unwrap();
        std::fs::write(dir.join("selftest.mjs"), "a test").unwrap();
        let base = probe_code_digest(dir).unwrap();
        std::fs::write(dir.join("selftest.mjs"), "another test").unwrap();
        assert_eq!(
            probe_code_digest(dir).unwrap(),
            base,
            "not loaded by a probe"
        );
        std::fs::write(dir.join("guard.mjs"), "export const g = 1;").unwrap();
        assert_ne!(
            probe_code_digest(dir).unwrap(),
            base,
            "loaded by the MCP server"
        );
        std::fs::remove_file(dir.join("cases.mjs")).unwrap();
        let err = probe_code_digest(dir).unwrap_err().to_string();
        assert!(err.contains("cases.mjs"), "{err}");
    }
}
