//! `CacheStatus` and `prune`: what the version cache holds, and making it
//! smaller (`mastra-conform cache status|prune`).
//!
//! In: the cache root. Out: one `Entry` per install (kind, version, when
//! last used, bytes it alone holds), the shared store's and the tools'
//! sizes; for `prune`, what was removed and the bytes freed.
//!
//! Sizes count each file once however many hard links it has (as `du`
//! does): installs share the store's files, so an install's own size is
//! the bytes that removing it would free, and the total is the disk the
//! cache really takes. Which installs go is decided by `choose` (pure,
//! unit-tested); removal takes each install's lock, so a run using an
//! install never sees it vanish half way.

use crate::install::layout::{Installs, COMPLETE, LEGACY_INSTALLS};
use crate::version::spec::MastraVersion;
use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What kind of install a folder under `installs/` is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstallKind {
    /// A published version from the registry.
    Registry,
    /// A pinned version, installed from its committed lockfile.
    Pinned,
    /// Anything else: a build from a tarball or a folder.
    Build,
}

#[derive(Debug, Clone)]
pub struct Entry {
    pub name: String,
    pub path: PathBuf,
    pub kind: InstallKind,
    pub version: Option<MastraVersion>,
    pub last_used: SystemTime,
    /// Bytes of files no other install and no store entry links.
    pub own_bytes: u64,
    pub complete: bool,
}

/// What `prune` keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keep {
    /// The `n` most recently used registry installs (pinned ones are
    /// always kept: `make run` needs them).
    pub recent: Option<usize>,
    /// Whether builds stay.
    pub builds: bool,
}

/// The installs to remove: incomplete leftovers always; builds unless
/// kept; registry installs past the `recent` most recently used.
pub fn choose(entries: &[Entry], keep: Keep) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    let mut registry: Vec<usize> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if !e.complete {
            out.push(i);
            continue;
        }
        match e.kind {
            InstallKind::Pinned => {}
            InstallKind::Build if !keep.builds => out.push(i),
            InstallKind::Build => {}
            InstallKind::Registry => registry.push(i),
        }
    }
    if let Some(n) = keep.recent {
        // Most recently used first; ties (same second) by version, newest first.
        registry.sort_by(|a, b| {
            let (a, b) = (&entries[*a], &entries[*b]);
            b.last_used
                .cmp(&a.last_used)
                .then_with(|| b.version.cmp(&a.version))
        });
        // Past the N most recent: what the prune removes.
        out.extend_from_slice(registry.get(n..).unwrap_or(&[]));
    }
    out.sort_unstable();
    out
}

/// Bytes on disk of every file under `root`, each inode counted once
/// across calls that share `seen` (as `du` counts hard links).
pub fn disk_bytes(root: &Path, seen: &mut HashSet<(u64, u64)>) -> u64 {
    let mut total = 0;
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in read.flatten() {
            // symlink_metadata: the isolated layout's links into .pnpm are
            // followed only through the real folders they point at.
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            if meta.is_dir() {
                stack.push(entry.path());
            }
            if seen.insert((meta.dev(), meta.ino())) {
                total += meta.blocks() * 512;
            }
        }
    }
    total
}

/// What the cache holds.
#[derive(Debug, Clone)]
pub struct CacheStatus {
    pub root: PathBuf,
    /// Every byte the cache takes, each file once however many links.
    pub total_bytes: u64,
    /// The package store (after the installs' own bytes are counted).
    pub store_bytes: u64,
    /// The pinned Node and pnpm.
    pub tools_bytes: u64,
    pub installs: Vec<Entry>,
    /// npm installs from before the store (`mastra/`), and their bytes.
    pub legacy: Vec<PathBuf>,
    pub legacy_bytes: u64,
}

/// Read the cache under `installs.cache`.
pub fn status(installs: &Installs) -> CacheStatus {
    let root = installs.cache.clone();
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(installs.installs_dir())
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if !path.is_dir() {
            continue;
        }
        let marker = path.join(COMPLETE);
        let complete = marker.is_file() && !name.starts_with('.');
        let (version, kind) = kind_of(&name);
        entries.push(Entry {
            last_used: marker
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or(SystemTime::UNIX_EPOCH),
            own_bytes: own_bytes(&path),
            name,
            path,
            kind,
            version,
            complete,
        });
    }
    entries.sort_by(|a, b| a.version.cmp(&b.version).then_with(|| a.name.cmp(&b.name)));
    let legacy: Vec<PathBuf> = std::fs::read_dir(root.join(LEGACY_INSTALLS))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    let mut seen = HashSet::new();
    let mut legacy_bytes = 0;
    for l in &legacy {
        legacy_bytes += disk_bytes(l, &mut seen);
    }
    // The installs' files first, so the store counts only what no install
    // links.
    let mut seen = HashSet::new();
    for e in &entries {
        disk_bytes(&e.path, &mut seen);
    }
    let store_bytes = disk_bytes(&installs.store().dir, &mut seen);
    let tools_bytes =
        disk_bytes(&root.join("node"), &mut seen) + disk_bytes(&root.join("tools"), &mut seen);
    let mut all = HashSet::new();
    let total_bytes = disk_bytes(&root, &mut all);
    CacheStatus {
        root,
        total_bytes,
        store_bytes,
        tools_bytes,
        installs: entries,
        legacy,
        legacy_bytes,
    }
}

/// A version, and its kind, from an install folder's name.
fn kind_of(name: &str) -> (Option<MastraVersion>, InstallKind) {
    // First: `1.67.0-lock-b173c6546b01` also parses as a version (a
    // prerelease tagged `lock-…`), which would file a pin as a registry
    // install that `prune --keep` may remove.
    if let Some((v, _)) = name.split_once("-lock-") {
        if let Some(v) = MastraVersion::parse(v) {
            return (Some(v), InstallKind::Pinned);
        }
    }
    if let Some(v) = MastraVersion::parse(name) {
        let kind = if v.is_build() {
            InstallKind::Build
        } else {
            InstallKind::Registry
        };
        return (Some(v), kind);
    }
    (None, InstallKind::Build)
}

/// Bytes removing the install at `path` would free: files no other install
/// links (a link count of at most 2: here and the store).
fn own_bytes(path: &Path) -> u64 {
    let mut seen = HashSet::new();
    let mut total = 0;
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            if meta.is_dir() {
                stack.push(entry.path());
            } else if meta.is_file() && meta.nlink() <= 2 && seen.insert(meta.ino()) {
                total += meta.blocks() * 512;
            }
        }
    }
    total
}

/// What `prune` did.
#[derive(Debug, Clone, Default)]
pub struct Pruned {
    pub removed: Vec<String>,
    /// Installs a running harness holds, left in place.
    pub in_use: Vec<String>,
    pub freed_bytes: u64,
}

/// Remove the installs `keep` does not keep, every npm install from before
/// the store, and then the store files nothing links any more. Each install
/// goes under its own lock; one a running harness holds is left in place
/// and named in `in_use`.
pub fn prune(installs: &Installs, keep: Keep) -> std::io::Result<Pruned> {
    let before = status(installs);
    let mut pruned = Pruned::default();
    let chosen = choose(&before.installs, keep);
    let mut doomed: Vec<PathBuf> = chosen
        .iter()
        .map(|&i| before.installs[i].path.clone())
        .collect();
    doomed.extend(before.legacy.iter().cloned());
    for dir in doomed {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if installs.remove_install_unless_used(&dir)? {
            pruned.removed.push(name);
        } else {
            pruned.in_use.push(name);
        }
    }
    if before.legacy.iter().all(|l| !l.exists()) {
        let _ = std::fs::remove_dir(before.root.join(LEGACY_INSTALLS));
    }
    installs.store().sweep(std::time::Duration::from_secs(60))?;
    let after = status(installs);
    pruned.freed_bytes = before.total_bytes.saturating_sub(after.total_bytes);
    Ok(pruned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn entry(name: &str, kind: InstallKind, age_secs: u64, complete: bool) -> Entry {
        Entry {
            name: name.into(),
            path: PathBuf::from(name),
            version: MastraVersion::parse(name.split('-').next().unwrap_or("")),
            kind,
            last_used: SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000 - age_secs),
            own_bytes: 1,
            complete,
        }
    }

    #[test]
    fn install_folders_are_told_apart_by_name() {
        let v = |s: &str| MastraVersion::parse(s);
        assert_eq!(
            kind_of("1.67.0-lock-b173c6546b01"),
            (v("1.67.0"), InstallKind::Pinned)
        );
        assert_eq!(kind_of("1.67.0"), (v("1.67.0"), InstallKind::Registry));
        assert_eq!(
            kind_of("1.67.0-alpha.4"),
            (v("1.67.0-alpha.4"), InstallKind::Registry)
        );
        assert_eq!(
            kind_of("1.67.0+8a28e80ae2e3747e"),
            (v("1.67.0+8a28e80ae2e3747e"), InstallKind::Build)
        );
    }

    #[test]
    fn prune_keeps_the_most_recently_used_and_every_pin() {
        let entries = vec![
            entry("1.60.0", InstallKind::Registry, 50, true),
            entry("1.61.0", InstallKind::Registry, 10, true),
            entry("1.67.0-lock-abc", InstallKind::Pinned, 999, true),
            entry("1.62.0", InstallKind::Registry, 20, true),
            entry("build-x", InstallKind::Build, 1, true),
            entry("1.63.0", InstallKind::Registry, 5, false),
        ];
        let keep = |recent, builds| choose(&entries, Keep { recent, builds });
        assert_eq!(
            keep(Some(2), true),
            vec![0, 5],
            "1.61 and 1.62 stay; the leftover goes"
        );
        assert_eq!(keep(Some(0), true), vec![0, 1, 3, 5]);
        assert_eq!(
            keep(None, false),
            vec![4, 5],
            "builds dropped, registry untouched"
        );
        assert_eq!(keep(Some(9), true), vec![5]);
    }

    #[test]
    fn hard_links_are_counted_once() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::fs::create_dir(&a).unwrap();
        std::fs::write(a.join("f"), vec![7u8; 64 << 10]).unwrap();
        let b = dir.path().join("b");
        std::fs::create_dir(&b).unwrap();
        std::fs::hard_link(a.join("f"), b.join("f")).unwrap();
        let mut seen = HashSet::new();
        let first = disk_bytes(&a, &mut seen);
        assert!(first >= 64 << 10, "{first}");
        let second = disk_bytes(&b, &mut seen);
        assert!(second < 16 << 10, "the linked file counted again: {second}");
        let mut fresh = HashSet::new();
        assert!(disk_bytes(dir.path(), &mut fresh) < 2 * first);
    }
}
