//! Whether an install of `@mastra/core` is whole: every file pnpm linked
//! from the store still holds what the store recorded, and the probe's
//! entry module loads. Checked before an install's marker is written, and
//! again when a probe of a marked install fails to start.
//!
//! In: an install folder, the store, the Node the probes run. Out: the
//! first damaged file found (`Damage`), and the store files that must go
//! before the install is made again.
//!
//! The store is content-addressed: a file's name under `v*/files/` is the
//! hex SHA-512 of its bytes, and an install's files are hard links to
//! those (`packageImportMethod: hardlink`). So a file is whole when the
//! hash of its bytes names the store file it is linked to; a file cut
//! short no longer does, wherever it is read from. pnpm's own
//! `verifyStoreIntegrity` rehashes a store file only when its mtime moved
//! (measured on pnpm 12.4.2: a file cut short with its mtime kept is
//! linked into the next install as it is), so the harness removes a
//! damaged store file itself, and pnpm fetches it again.

use crate::observe::proc::CommandSpec;
use crate::observe::sandbox::{self, Policy};
use sha2::{Digest, Sha512};
use std::collections::HashSet;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A file of an install that is not what was installed, and how that
/// showed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {what}", file.display())]
pub struct Damage {
    pub file: PathBuf,
    pub what: String,
}

/// What Node says when a module it loads is cut short or malformed: with
/// `MISSING_WORDS`, the words that make a load failure the install's damage
/// rather than the code's fault, once they come with a path inside it.
const BROKEN_WORDS: &[&str] = &[
    "SyntaxError",
    "Unexpected end of input",
    "ERR_INVALID_PACKAGE_CONFIG",
];

/// The words of a module that is not there. Such a module is damage only
/// inside pnpm's virtual store, where every file is a link of a file the
/// package shipped: elsewhere in an install (a package written by hand, or
/// an entry a release does not export) a missing module is what the
/// install is, and the probe reports it.
const MISSING_WORDS: &[&str] = &[
    "ERR_MODULE_NOT_FOUND",
    "Cannot find module",
    "Cannot find package",
];

/// Where pnpm links the packages' own files, below an install's root.
const VIRTUAL_STORE: &str = "/node_modules/.pnpm/";

/// The damage a load failure's text names, if it names some: one of
/// `BROKEN_WORDS` or `MISSING_WORDS` and a path inside `install` (as a path or a `file:` URL,
/// a `:line:column` after it dropped). Pure.
pub fn named_damage(text: &str, install: &Path) -> Option<Damage> {
    let word = BROKEN_WORDS
        .iter()
        .chain(MISSING_WORDS)
        .find(|w| text.contains(*w))?;
    let mut roots = vec![install.display().to_string()];
    if let Ok(real) = install.canonicalize() {
        roots.push(real.display().to_string());
    }
    for root in roots.iter().filter(|r| r.len() > 1) {
        let root = format!("{}/", root.trim_end_matches('/'));
        let Some(at) = text.find(&root) else {
            continue;
        };
        let rest = &text[at..];
        let end = rest
            .find(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | ')' | ','))
            .unwrap_or(rest.len());
        let mut path = rest[..end].trim_end_matches('.');
        // `file.js:19752` or `file.js:3:7`: the position is no part of it.
        while let Some((head, tail)) = path.rsplit_once(':') {
            if tail.is_empty() || !tail.bytes().all(|b| b.is_ascii_digit()) {
                break;
            }
            path = head;
        }
        if MISSING_WORDS.contains(word) && !path[root.len() - 1..].contains(VIRTUAL_STORE) {
            return None;
        }
        let line = text
            .lines()
            .find(|l| l.contains(word))
            .map_or(*word, str::trim);
        return Some(Damage {
            file: PathBuf::from(path),
            what: line.to_string(),
        });
    }
    None
}

/// The hex SHA-512 of a file's bytes.
fn sha512_hex(path: &Path) -> std::io::Result<String> {
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha512::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// The content folders of a store (`v11/files`, for pnpm 12).
fn content_dirs(store: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(store)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("files"))
        .filter(|p| p.is_dir())
        .collect()
}

/// What a whole-file check of an install read: how many store links, and
/// their bytes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Checked {
    pub files: u64,
    pub bytes: u64,
}

/// Every file of `install` linked from `store` whose bytes no longer hash
/// to the store file it is linked to, and what was read. Files with one
/// link are pnpm's own (its `.bin` shims, `lock.yaml`) or an `npm ci`
/// install's, which no store records, and are not checked.
pub fn damaged_links(install: &Path, store: &Path) -> (Vec<PathBuf>, Checked) {
    let dirs = content_dirs(store);
    let mut damaged = Vec::new();
    let mut checked = Checked::default();
    let mut store_files: Option<HashSet<(u64, u64)>> = None;
    if dirs.is_empty() {
        return (damaged, checked);
    }
    let mut stack = vec![install.join("node_modules")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let Ok(meta) = path.symlink_metadata() else {
                continue;
            };
            if meta.is_dir() {
                stack.push(path);
                continue;
            }
            if !meta.is_file() || meta.nlink() < 2 {
                continue;
            }
            checked.files += 1;
            checked.bytes += meta.len();
            let Ok(hex) = sha512_hex(&path) else {
                damaged.push(path);
                continue;
            };
            let same = |p: PathBuf| {
                p.symlink_metadata()
                    .is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
            };
            let whole = dirs.iter().any(|d| {
                let at = d.join(&hex[..2]);
                same(at.join(&hex[2..])) || same(at.join(format!("{}-exec", &hex[2..])))
            });
            if whole {
                continue;
            }
            // A second link that is no store file at all is not the
            // store's to judge: pnpm links a `file:` folder's own files.
            let stored = store_files.get_or_insert_with(|| store_inodes(&dirs));
            if stored.contains(&(meta.dev(), meta.ino())) {
                damaged.push(path);
            } else {
                checked.files -= 1;
                checked.bytes -= meta.len();
            }
        }
    }
    damaged.sort();
    (damaged, checked)
}

/// The (device, inode) of every file in the store's content folders, read
/// from the folders alone (no file is opened or stat'ed), for the rare
/// link whose bytes name no store file.
fn store_inodes(dirs: &[PathBuf]) -> HashSet<(u64, u64)> {
    use std::os::unix::fs::DirEntryExt;
    let mut found = HashSet::new();
    for dir in dirs {
        let Ok(dev) = dir.metadata().map(|m| m.dev()) else {
            continue;
        };
        for shard in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            for file in std::fs::read_dir(shard.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                found.insert((dev, file.ino()));
            }
        }
    }
    found
}

/// Remove the store files that `files` (of an install) are hard links to,
/// so that pnpm fetches them again instead of linking them into the next
/// install. Returns the store paths removed.
pub fn remove_store_copies(store: &Path, files: &[PathBuf]) -> Vec<PathBuf> {
    let inodes: HashSet<(u64, u64)> = files
        .iter()
        .filter_map(|f| f.symlink_metadata().ok())
        .filter(|m| m.is_file() && m.nlink() >= 2)
        .map(|m| (m.dev(), m.ino()))
        .collect();
    let mut removed = Vec::new();
    if inodes.is_empty() {
        return removed;
    }
    let mut stack = content_dirs(store);
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let Ok(meta) = path.symlink_metadata() else {
                continue;
            };
            if meta.is_dir() {
                stack.push(path);
            } else if inodes.contains(&(meta.dev(), meta.ino()))
                && std::fs::remove_file(&path).is_ok()
            {
                removed.push(path);
            }
        }
    }
    removed
}

/// Import the install's entry module once with `node`, in the sandbox
/// where the machine has one (it runs `@mastra/core`'s import-time code,
/// as a probe does), and return the damage its failure names. The import
/// is left uncaught, so that Node names the file a syntax error is in.
/// A failure that names no damage is not the install's: the probe
/// reports it.
pub fn import_damage(node: &Path, install: &Path) -> Option<Damage> {
    let entry = install.join("probe-entry.mjs");
    // A folder without the entry was not made by an install (a stand-in a
    // test writes by hand): there is nothing of Mastra's to load.
    if !entry.is_file() {
        return None;
    }
    let url = format!("file://{}", entry.display());
    let script = format!("await import({});", serde_json::json!(url));
    let spec = CommandSpec::new(node)
        .args(["--input-type=module", "-e", &script])
        .scrubbed()
        .timeout(Duration::from_secs(120));
    let spec = sandbox::confine(spec, &Policy::new().read_only(install));
    match spec.run_capture() {
        Ok(_) => None,
        Err(e) => named_damage(&crate::outcome::error_chain(&e), install),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_failure_names_damage_only_with_a_path_inside_the_install() {
        let install = Path::new("/c/installs/1.67.0");
        let syntax = "file:///c/installs/1.67.0/node_modules/.pnpm/x/dist/agent-D.js:19752\n/**\n\nSyntaxError: Invalid or unexpected token\n    at compileSourceTextModule";
        assert_eq!(
            named_damage(syntax, install),
            Some(Damage {
                file: PathBuf::from("/c/installs/1.67.0/node_modules/.pnpm/x/dist/agent-D.js"),
                what: "SyntaxError: Invalid or unexpected token".into(),
            })
        );
        let missing = "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/c/installs/1.67.0/node_modules/.pnpm/z@1/node_modules/z/a.js' imported from /c/installs/1.67.0/probe-entry.mjs";
        assert_eq!(
            named_damage(missing, install).map(|d| d.file),
            Some(PathBuf::from(
                "/c/installs/1.67.0/node_modules/.pnpm/z@1/node_modules/z/a.js"
            ))
        );
        // A module missing outside the virtual store is what the install
        // is (here a package written by hand without the entry asked for).
        let unshipped = "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/c/installs/1.67.0/node_modules/@mastra/core/agent' imported from /c/installs/1.67.0/probe-entry.mjs";
        assert_eq!(named_damage(unshipped, install), None);
        let config =
            "Error [ERR_INVALID_PACKAGE_CONFIG]: Invalid package config /c/installs/1.67.0/node_modules/z/package.json.";
        assert_eq!(
            named_damage(config, install).map(|d| d.file),
            Some(PathBuf::from(
                "/c/installs/1.67.0/node_modules/z/package.json"
            ))
        );
        // The probe's own code, or an error that is no damage, is not.
        let outside = "SyntaxError: Unexpected token\n at /work/node-probe/cases.mjs:3:7";
        assert_eq!(named_damage(outside, install), None);
        let thrown = "Error: DAYTONA_API_KEY is required\n at /c/installs/1.67.0/node_modules/x/index.js:1:1";
        assert_eq!(named_damage(thrown, install), None);
        // Another install whose name starts the same is not inside it.
        let sibling = "SyntaxError: x\n at /c/installs/1.67.0-lock-abc/node_modules/a.js:1";
        assert_eq!(named_damage(sibling, install), None);
    }

    #[test]
    fn a_link_whose_bytes_no_longer_name_its_store_file_is_damaged() {
        let tmp = tempfile::tempdir().unwrap();
        let store = tmp.path().join("store");
        let files = store.join("v11/files");
        let put = |bytes: &[u8], exec: bool| {
            let hex: String = Sha512::digest(bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            let dir = files.join(&hex[..2]);
            std::fs::create_dir_all(&dir).unwrap();
            let name = if exec {
                format!("{}-exec", &hex[2..])
            } else {
                hex[2..].to_string()
            };
            std::fs::write(dir.join(&name), bytes).unwrap();
            dir.join(name)
        };
        let a = put(b"export const a = 1;\n", false);
        let b = put(b"#!/usr/bin/env node\n", true);
        let c = put(b"export const c = 'a longer file';\n", false);
        let pkg = tmp
            .path()
            .join("install/node_modules/.pnpm/p@1/node_modules/p");
        std::fs::create_dir_all(&pkg).unwrap();
        for (from, name) in [(&a, "a.js"), (&b, "cli.js"), (&c, "c.js")] {
            std::fs::hard_link(from, pkg.join(name)).unwrap();
        }
        std::fs::write(pkg.join("own.js"), "pnpm's own, one link").unwrap();
        // A `file:` folder's own file, linked into the install but never
        // into the store.
        let local = tmp.path().join("local-package.json");
        std::fs::write(&local, "{\"name\":\"local\"}").unwrap();
        std::fs::hard_link(&local, pkg.join("package.json")).unwrap();
        let install = tmp.path().join("install");
        let (damaged, checked) = damaged_links(&install, &store);
        assert_eq!(damaged, Vec::<PathBuf>::new());
        assert_eq!(checked.files, 3, "only the store's links are read");
        // Cut short through the install: the store's copy is cut too.
        std::fs::OpenOptions::new()
            .write(true)
            .open(pkg.join("c.js"))
            .unwrap()
            .set_len(5)
            .unwrap();
        let (damaged, _) = damaged_links(&install, &store);
        assert_eq!(damaged, vec![pkg.join("c.js")]);
        assert_eq!(remove_store_copies(&store, &damaged), vec![c.clone()]);
        assert!(!c.exists() && a.exists() && b.exists());
    }
}
