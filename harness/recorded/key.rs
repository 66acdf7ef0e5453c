//! `ShelfKey` and `CaseKey`: everything a stored observation depends on,
//! written down as digests. Pure.
//!
//! In: a case, an install's files, Node's version, the probe's JavaScript
//! and the wire digest fixed at build time. Out: two keys. An observation
//! is stored on a shelf, under a case key:
//!
//! - the shelf is what every case observed on one install by one harness
//!   shares: the install's identity (its version's name, which carries a
//!   build's content hash, and its manifest, lockfile and entry module: the
//!   lockfile holds the integrity of every package the probe can load),
//!   Node's version, the code digest (the probe's JavaScript and the
//!   listener's reply and wire code) and the observation format's version;
//! - the case key is the case's normalised content (`Case::to_json`, what
//!   the probe is sent, less `about` and `source`, prose the probe never
//!   reads, and less `route`, which is the key's own second part) and its
//!   route: a case on its default route is one key whether its file names
//!   that route or `--route all` put it there.
//!
//! Changing any of these inputs changes a key, so the store misses and the
//! case is observed again: the unit tests below change each in turn.

use crate::case::Case;
use crate::js::json::Json;
use crate::version::digest::digest_hex;
use crate::version::spec::MastraVersion;
use sha2::{Digest, Sha256};

/// The version of the stored format: a change to what a record holds, or
/// to what an observation means, bumps it, and every older shelf misses.
pub const FORMAT: u32 = 1;

/// The digest of the Rust code that shapes an observation (the listener,
/// its reply formats, what the probe is sent), fixed by `build.rs`.
pub const WIRE_DIGEST: &str = env!("MASTRA_CONFORM_WIRE_DIGEST");

/// The probe's modules the code digest starts from: the probe and the MCP
/// server it starts as a child (named by path, not imported).
pub const PROBE_ROOTS: &[&str] = &["probe.mjs", "mcp-server.mjs"];

/// Everything the observations of one install by one harness share.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ShelfKey {
    pub version: MastraVersion,
    /// `install_identity` of the install folder.
    pub install: String,
    /// Node's version, as `node --version` prints it.
    pub node: String,
    /// `code_digest` of the probe's modules and the wire code.
    pub code: String,
    pub format: u32,
}

impl ShelfKey {
    /// 16 hex digits of SHA-256 over every input.
    pub fn digest(&self) -> String {
        let mut h = Sha256::new();
        for part in [
            "mastra-conform shelf",
            &self.format.to_string(),
            &self.version.to_string(),
            &self.install,
            &self.node,
            &self.code,
        ] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        digest_hex(h, 16)
    }

    /// The shelf's folder in the store: the version, for people, then the
    /// digest, for the key.
    pub fn folder(&self) -> String {
        format!("{}-{}", self.version, self.digest())
    }
}

/// One case on its route: 32 bytes of SHA-256.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CaseKey(pub [u8; 32]);

impl CaseKey {
    pub fn of(case: &Case) -> CaseKey {
        let content = match case.to_json() {
            Json::Object(members) => Json::Object(
                members
                    .into_iter()
                    .filter(|(k, _)| !matches!(k.to_lossy().as_str(), "about" | "source" | "route"))
                    .collect(),
            ),
            other => other,
        };
        let mut h = Sha256::new();
        h.update(b"mastra-conform case\0");
        h.update(content.to_compact().as_bytes());
        h.update([0]);
        h.update(case.route.name().as_bytes());
        CaseKey(h.finalize().into())
    }
}

/// An install's identity: 16 hex digits over its version's name and the
/// files that say what it holds, each named (`package.json`, the lockfile,
/// `probe-entry.mjs`); a file it lacks counts as absent, not as empty.
pub fn install_identity(version: MastraVersion, files: &[(&str, Option<Vec<u8>>)]) -> String {
    let mut h = Sha256::new();
    h.update(version.to_string().as_bytes());
    h.update([0]);
    for (name, bytes) in files {
        h.update(name.as_bytes());
        match bytes {
            Some(b) => {
                h.update([1]);
                h.update((b.len() as u64).to_le_bytes());
                h.update(b);
            }
            None => h.update([0]),
        }
    }
    digest_hex(h, 16)
}

/// The code digest: the wire digest and each of the probe's modules (name
/// and bytes, in name order).
pub fn code_digest(wire: &str, modules: &[(String, Vec<u8>)]) -> String {
    let mut sorted: Vec<&(String, Vec<u8>)> = modules.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut h = Sha256::new();
    h.update(wire.as_bytes());
    h.update([0]);
    for (name, bytes) in sorted {
        h.update(name.as_bytes());
        h.update([0]);
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    }
    digest_hex(h, 16)
}

/// The local modules a probe module imports (`from './x.mjs'`, `import
/// './x.mjs'`, `import('./x.mjs')`), by file name, in the order written.
/// The probe's modules import only siblings, so the digest follows these
/// to every file a probe loads from `node-probe/`.
pub fn local_imports(source: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for quote in ['\'', '"'] {
        let opener = format!("{quote}./");
        let mut rest = source;
        while let Some(at) = rest.find(&opener) {
            let after = &rest[at + opener.len()..];
            let Some(end) = after.find(quote) else { break };
            let name = &after[..end];
            let before = rest[..at].trim_end();
            let imported = before.ends_with("from")
                || before.ends_with("import")
                || before.ends_with("import(");
            if imported
                && name.ends_with(".mjs")
                && !name.contains('/')
                && !out.iter().any(|n| n == name)
            {
                out.push(name.to_string());
            }
            rest = &after[end..];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn case(text: &str) -> Case {
        Case::parse(Path::new("cases/x.json"), text).unwrap()
    }

    fn shelf() -> ShelfKey {
        ShelfKey {
            version: MastraVersion::new(1, 67, 0),
            install: "install".into(),
            node: "v24.22.3".into(),
            code: "code".into(),
            format: FORMAT,
        }
    }

    #[test]
    fn changing_any_input_of_the_shelf_changes_its_key() {
        let base = shelf();
        let changed = [
            ShelfKey {
                version: MastraVersion::new(1, 66, 0),
                ..shelf()
            },
            ShelfKey {
                install: "another lockfile".into(),
                ..shelf()
            },
            ShelfKey {
                node: "v24.22.4".into(),
                ..shelf()
            },
            ShelfKey {
                code: "another probe".into(),
                ..shelf()
            },
            ShelfKey {
                format: FORMAT + 1,
                ..shelf()
            },
        ];
        let mut digests = vec![base.digest()];
        for c in &changed {
            assert_ne!(c.digest(), base.digest(), "{c:?}");
            digests.push(c.digest());
        }
        digests.sort();
        digests.dedup();
        assert_eq!(digests.len(), changed.len() + 1);
        assert_eq!(
            base.digest(),
            shelf().digest(),
            "the same inputs, the same key"
        );
        assert!(base.folder().starts_with("1.67.0-"), "{}", base.folder());
    }

    #[test]
    fn the_case_key_follows_content_and_route_but_not_prose() {
        let base = case(r#"{"about":"a","tools":["search.web"]}"#);
        let key = CaseKey::of(&base);
        assert_eq!(
            CaseKey::of(&case(
                r#"{"about":"other words","source":"somewhere","tools":["search.web"]}"#
            )),
            key,
            "about and source are prose the probe never reads"
        );
        for other in [
            r#"{"about":"a","tools":["search_web"]}"#,
            r#"{"about":"a","tools":["search.web"],"call":{"method":"stream"}}"#,
            r#"{"about":"a","tools":["search.web"],"replies":[{"text":"done"}]}"#,
            r#"{"about":"a","tools":["search.web"],"mcp":{"s":["t"]}}"#,
        ] {
            assert_ne!(CaseKey::of(&case(other)), key, "{other}");
        }
        assert_ne!(
            CaseKey::of(&base.on_route(crate::route::Route::Anthropic)),
            key,
            "the route"
        );
        assert_eq!(
            CaseKey::of(&base.on_route(base.route)),
            key,
            "a case put on its own route by --route, which then names it"
        );
        assert_eq!(
            CaseKey::of(&case(&format!(
                r#"{{"about":"a","tools":["search.web"],"route":"{}"}}"#,
                base.route.name()
            ))),
            key,
            "a file naming the default route"
        );
    }

    #[test]
    fn an_install_is_named_by_its_version_and_every_file() {
        let v = MastraVersion::new(1, 67, 0);
        let files = |lock: &[u8]| {
            vec![
                ("package.json", Some(b"{}".to_vec())),
                ("pnpm-lock.yaml", Some(lock.to_vec())),
                ("probe-entry.mjs", None),
            ]
        };
        let base = install_identity(v, &files(b"integrity: sha512-a"));
        assert_eq!(base, install_identity(v, &files(b"integrity: sha512-a")));
        assert_ne!(base, install_identity(v, &files(b"integrity: sha512-b")));
        assert_ne!(
            base,
            install_identity(MastraVersion::new(1, 66, 0), &files(b"integrity: sha512-a"))
        );
        let mut empty = files(b"integrity: sha512-a");
        empty[2].1 = Some(Vec::new());
        assert_ne!(base, install_identity(v, &empty), "absent is not empty");
    }

    #[test]
    fn the_code_digest_covers_the_wire_and_each_module_in_any_order() {
        let modules = vec![
            ("probe.mjs".to_string(), b"a".to_vec()),
            ("cases.mjs".to_string(), b"b".to_vec()),
        ];
        let base = code_digest("wire", &modules);
        let mut reversed = modules.clone();
        reversed.reverse();
        assert_eq!(code_digest("wire", &reversed), base);
        assert_ne!(code_digest("other wire", &modules), base);
        let mut edited = modules.clone();
        edited[1].1 = b"b2".to_vec();
        assert_ne!(code_digest("wire", &edited), base);
        let mut renamed = modules;
        renamed[1].0 = "agent.mjs".into();
        assert_ne!(code_digest("wire", &renamed), base);
    }

    #[test]
    fn local_imports_are_the_sibling_modules_a_module_loads() {
        let src = "import { a } from './agent.mjs';\n\
                   import './stdio.mjs';\n\
                   const m = await import(\"./lazy.mjs\");\n\
                   import { x } from 'node:fs';\n\
                   const MCP = path.join(dir, 'mcp-server.mjs');\n\
                   const s = './not-an-import.mjs';\n\
                   import { b } from './agent.mjs';\n";
        assert_eq!(local_imports(src), ["agent.mjs", "stdio.mjs", "lazy.mjs"]);
    }
}
