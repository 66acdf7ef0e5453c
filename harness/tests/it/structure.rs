//! The tree draws the pipeline, and the rules here keep it honest. Every
//! module belongs to a layer (`LAYERS`, lowest first); no module imports
//! one on a higher layer, no two top-level parts import each other in a
//! cycle, no module imports another in a cycle, and the pure layers (up to
//! `results`) neither import a module that does I/O nor touch the file
//! system, processes, the environment or sockets themselves. Checked on the
//! source itself, so a change that breaks a rule fails with the import or
//! the path that broke it.
//!
//! Every file of the library is read whole, as Rust tokens (comments and
//! string literals are not code): the items under `#[cfg(test)]` are cut
//! out, each with exactly the item the attribute applies to (a `mod tests
//! { ... }` block, a `mod NAME;` whose file is then test code too, a single
//! `fn` or `use`), and every path that starts with `crate::`, `super::` or
//! `self::` in the rest is resolved to the module it names, use-tree groups
//! (`use crate::{a, b::c}`) included.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first: a module may import its own layer's modules
/// (without a cycle) and lower ones, never a higher one. Each entry is a
/// part of the tree (a module and everything under it); a module belongs to
/// the longest entry it is under.
const LAYERS: &[&[&str]] = &[
    // What every stage reads: exits and failures, JavaScript's values.
    &["js", "outcome"],
    // The contract's data and the facts about names and versions.
    &[
        "naming",
        "version",
        "route",
        "projection",
        "case",
        "observation",
    ],
    // The reference model.
    &["model"],
    // The judges: a prediction and an observation into a verdict.
    &["judge"],
    // What a run produced, as data. The pure layers end here.
    &["results"],
    // I/O: installs, probes and the listener, the observation store, the
    // results database.
    &["install", "observe", "recorded", "db"],
    // The session and the run loop.
    &["run"],
    // Loops around the run, lint, the reports.
    &["loops", "lint", "report"],
    // The command line.
    &["cli"],
];

/// The methods of `Path` that ask the file system.
const PATH_IO_METHODS: &[&str] = &[
    "canonicalize",
    "exists",
    "try_exists",
    "is_file",
    "is_dir",
    "is_symlink",
    "metadata",
    "symlink_metadata",
    "read_dir",
    "read_link",
];

/// Layers at or below this index are pure.
const LAST_PURE_LAYER: usize = 4;

/// What a pure module may not name: the paths that reach the file system,
/// processes, the environment or sockets, and the crates that do.
const IO_PATHS: &[&[&str]] = &[
    &["std", "fs"],
    &["std", "process"],
    &["std", "env"],
    &["std", "net", "TcpListener"],
    &["std", "net", "TcpStream"],
    &["std", "net", "UdpSocket"],
    &["std", "os", "unix", "net"],
    &["duct"],
    &["tempfile"],
    &["rusqlite"],
    &["os_pipe"],
];

/// The fuzzer's generator and shrinker: they may aim at JavaScript's and
/// the rewrite's facts (`naming`), never ask the model what it covers.
const GENERATORS: &[&str] = &["loops::fuzz::gen", "loops::fuzz::shrink"];

fn harness() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("harness")
}

// ---------------------------------------------------------------------------
// Reading Rust: tokens, without comments, with each literal as one token

#[derive(Debug, Clone, PartialEq)]
enum TokenKind {
    Ident,
    /// `::` or a single punctuation character.
    Punct,
    /// A string, character or number literal (its text is not kept).
    Literal,
    Lifetime,
}

#[derive(Debug, Clone)]
struct Token {
    kind: TokenKind,
    text: String,
    line: usize,
}

impl Token {
    fn is(&self, text: &str) -> bool {
        self.kind != TokenKind::Literal && self.text == text
    }
}

fn lex(src: &str) -> Vec<Token> {
    let chars: Vec<char> = src.chars().collect();
    let at = |j: usize| chars.get(j).copied().unwrap_or('\0');
    let ident_start = |c: char| c.is_alphabetic() || c == '_';
    let ident_char = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    // Skip from `j` to past the quote closing a literal opened before `j`,
    // counting lines; `escapes`: a backslash escapes the next character.
    let close = |mut j: usize, quote: char, escapes: bool, line: &mut usize| {
        while j < chars.len() {
            match chars[j] {
                '\\' if escapes => j += 1,
                '\n' => *line += 1,
                c if c == quote => return j + 1,
                _ => {}
            }
            j += 1;
        }
        j
    };
    while i < chars.len() {
        let c = chars[i];
        let first_line = line;
        let mut push = |kind: TokenKind, text: String| {
            out.push(Token {
                kind,
                text,
                line: first_line,
            })
        };
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if let Some(hashes_at) = match (c, at(i + 1), at(i + 2)) {
            ('r', '"' | '#', _) => Some(i + 1),
            ('b' | 'c', 'r', '"' | '#') => Some(i + 2),
            _ => None,
        }
        .filter(|&j| {
            let quote = (j..).find(|&k| at(k) != '#').unwrap_or(j);
            at(quote) == '"'
        }) {
            // A raw string: r"..", r#".."#, br"..", cr"..".
            let mut j = hashes_at;
            let mut hashes = 0;
            while at(j) == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            while j < chars.len() {
                if chars[j] == '"' && (1..=hashes).all(|k| at(j + k) == '#') {
                    j += 1 + hashes;
                    break;
                }
                if chars[j] == '\n' {
                    line += 1;
                }
                j += 1;
            }
            push(TokenKind::Literal, String::new());
            i = j;
        } else if matches!(c, 'b' | 'c') && at(i + 1) == '"' {
            i = close(i + 2, '"', true, &mut line);
            push(TokenKind::Literal, String::new());
        } else if c == '"' {
            i = close(i + 1, '"', true, &mut line);
            push(TokenKind::Literal, String::new());
        } else if c == 'b' && at(i + 1) == '\'' {
            i = close(i + 2, '\'', true, &mut line);
            push(TokenKind::Literal, String::new());
        } else if c == '\'' {
            if at(i + 1) == '\\' {
                i = close(i + 3, '\'', false, &mut line);
                push(TokenKind::Literal, String::new());
            } else if at(i + 2) == '\'' {
                i += 3;
                push(TokenKind::Literal, String::new());
            } else {
                let mut j = i + 1;
                while ident_char(at(j)) {
                    j += 1;
                }
                push(TokenKind::Lifetime, chars[i..j].iter().collect());
                i = j;
            }
        } else if c.is_ascii_digit() {
            let mut j = i;
            while ident_char(at(j)) || (at(j) == '.' && at(j + 1).is_ascii_digit()) {
                j += 1;
            }
            push(TokenKind::Literal, String::new());
            i = j;
        } else if ident_start(c) || (c == 'r' && at(i + 1) == '#' && ident_start(at(i + 2))) {
            let from = if c == 'r' && at(i + 1) == '#' {
                i + 2
            } else {
                i
            };
            let mut j = from;
            while ident_char(at(j)) {
                j += 1;
            }
            push(TokenKind::Ident, chars[from..j].iter().collect());
            i = j;
        } else if c == ':' && at(i + 1) == ':' {
            push(TokenKind::Punct, "::".into());
            i += 2;
        } else {
            push(TokenKind::Punct, c.to_string());
            i += 1;
        }
    }
    out
}

/// Whether `tokens[i..]` starts with the tokens of `text` (`#[cfg(test)]`).
fn starts_with(tokens: &[Token], i: usize, text: &[&str]) -> bool {
    text.iter()
        .enumerate()
        .all(|(k, t)| tokens.get(i + k).is_some_and(|tok| tok.is(t)))
}

const CFG_TEST: &[&str] = &["#", "[", "cfg", "(", "test", ")", "]"];
const CFG_TEST_INNER: &[&str] = &["#", "!", "[", "cfg", "(", "test", ")", "]"];

/// The index past the bracket group opening at `i`.
fn past_group(tokens: &[Token], i: usize) -> usize {
    let mut depth = 0;
    for (k, t) in tokens.iter().enumerate().skip(i) {
        match t.text.as_str() {
            _ if t.kind != TokenKind::Punct => {}
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// Past the visibility of an item starting at `i` (`pub`, `pub(crate)`).
fn past_visibility(tokens: &[Token], i: usize) -> usize {
    if !tokens.get(i).is_some_and(|t| t.is("pub")) {
        return i;
    }
    if tokens.get(i + 1).is_some_and(|t| t.is("(")) {
        past_group(tokens, i + 1)
    } else {
        i + 1
    }
}

/// The index past the item (or statement, or field) that starts at `i`:
/// a `;` or, for an item with a body, the `}` closing it; for anything that
/// is not an item (a field, an expression), also a `,`; and never past the
/// bracket that closes the block around it.
fn item_end(tokens: &[Token], i: usize) -> usize {
    let head = past_visibility(tokens, i);
    let words: Vec<&str> = tokens[head..]
        .iter()
        .take(3)
        .take_while(|t| t.kind == TokenKind::Ident)
        .map(|t| t.text.as_str())
        .collect();
    let with_body = ["fn", "mod", "impl", "trait", "struct", "enum", "union"];
    let (ends_at_semicolon_only, is_item) = if words.iter().any(|w| with_body.contains(w)) {
        (false, true)
    } else {
        match words.first() {
            Some(&"extern") => (tokens.get(head + 1).is_some_and(|t| t.is("crate")), true),
            Some(&("use" | "const" | "static" | "type" | "let")) => (true, true),
            Some(&"macro_rules") => (false, true),
            _ => (false, false),
        }
    };
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(i) {
        if t.kind != TokenKind::Punct {
            continue;
        }
        match t.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                if depth == 0 {
                    return k;
                }
                depth -= 1;
                if depth == 0 && t.text == "}" && !ends_at_semicolon_only {
                    return k + 1;
                }
            }
            ";" if depth == 0 => return k + 1,
            "," if depth == 0 && !is_item => return k + 1,
            _ => {}
        }
    }
    tokens.len()
}

/// `mod NAME;` (with any visibility): NAME.
fn declared_module(item: &[Token]) -> Option<String> {
    let head = past_visibility(item, 0);
    match &item[head..] {
        [m, name, semi] if m.is("mod") && name.kind == TokenKind::Ident && semi.is(";") => {
            Some(name.text.clone())
        }
        _ => None,
    }
}

/// The tokens of a file without its `#[cfg(test)]` items, and the names of
/// the modules it declares `#[cfg(test)] mod NAME;` (test code, file and
/// all). A file with `#![cfg(test)]` is test code as a whole.
fn without_test_items(tokens: &[Token]) -> (Vec<Token>, Vec<String>) {
    let mut code = Vec::new();
    let mut test_modules = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if starts_with(tokens, i, CFG_TEST_INNER) {
            return (Vec::new(), Vec::new());
        }
        if !starts_with(tokens, i, CFG_TEST) {
            code.push(tokens[i].clone());
            i += 1;
            continue;
        }
        let mut item = i + CFG_TEST.len();
        while starts_with(tokens, item, &["#", "["]) {
            item = past_group(tokens, item + 1);
        }
        let end = item_end(tokens, item);
        test_modules.extend(declared_module(&tokens[item..end]));
        i = end;
    }
    (code, test_modules)
}

// ---------------------------------------------------------------------------
// The modules and what each imports

/// One module's code with its test items cut out, and its file.
struct Module {
    file: String,
    code: Vec<Token>,
}

/// Every module of the library (`a::b`) as `(file, text)`, read from the tree.
fn sources() -> BTreeMap<String, (String, String)> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, (String, String)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.path());
        for e in entries {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap();
            if rel.starts_with("tests") {
                continue;
            }
            if p.is_dir() {
                walk(&p, root, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let mut parts: Vec<String> = rel
                    .with_extension("")
                    .iter()
                    .map(|c| c.to_string_lossy().into_owned())
                    .collect();
                if parts.last().is_some_and(|l| l == "mod") {
                    parts.pop();
                }
                if parts == ["lib"] || parts == ["main"] {
                    continue;
                }
                let text = std::fs::read_to_string(&p).unwrap();
                let file = Path::new("harness").join(rel).display().to_string();
                out.insert(parts.join("::"), (file, text));
            }
        }
    }
    let mut out = BTreeMap::new();
    let root = harness();
    walk(&root, &root, &mut out);
    out
}

fn under(module: &str, prefix: &str) -> bool {
    module == prefix || module.starts_with(&format!("{prefix}::"))
}

/// The modules' code, test items cut out; the modules a `#[cfg(test)] mod`
/// declares are left out whole.
fn modules(sources: &BTreeMap<String, (String, String)>) -> BTreeMap<String, Module> {
    let mut out = BTreeMap::new();
    let mut test_only = Vec::new();
    for (name, (file, text)) in sources {
        let (code, test_modules) = without_test_items(&lex(text));
        test_only.extend(test_modules.into_iter().map(|m| format!("{name}::{m}")));
        let file = file.clone();
        out.insert(name.clone(), Module { file, code });
    }
    out.retain(|name, _| !test_only.iter().any(|t| under(name, t)));
    out
}

/// One path in a module's code that names another module.
#[derive(Debug, Clone)]
struct Import {
    from: String,
    to: String,
    file: String,
    line: usize,
    /// The path as written (`crate::cli`, `super::{a, b}`).
    written: String,
}

impl std::fmt::Display for Import {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} imports {} ({}:{}: {})",
            self.from, self.to, self.file, self.line, self.written
        )
    }
}

/// Read the use tree at `j` below `prefix` (segments of the crate): each
/// path it names goes to `out`. Returns the index past it.
fn use_tree(
    code: &[Token],
    mut j: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<Vec<String>>,
) -> usize {
    loop {
        let Some(t) = code.get(j) else {
            out.push(prefix);
            return j;
        };
        if t.is("{") {
            j += 1;
            while j < code.len() && !code[j].is("}") {
                j = use_tree(code, j, prefix.clone(), out);
                if code.get(j).is_some_and(|t| t.is(",")) {
                    j += 1;
                } else {
                    break;
                }
            }
            return j + 1;
        }
        if t.kind != TokenKind::Ident {
            out.push(prefix);
            return j + usize::from(t.is("*"));
        }
        match t.text.as_str() {
            "self" => {}
            "super" => {
                prefix.pop();
            }
            segment => prefix.push(segment.to_string()),
        }
        j += 1;
        if !code.get(j).is_some_and(|t| t.is("::")) {
            out.push(prefix);
            return j;
        }
        j += 1;
    }
}

/// Every path in `module`'s code that names another module of `mods`
/// (the longest known prefix of the path it resolves to).
fn imports_of(name: &str, module: &Module, mods: &BTreeMap<String, Module>) -> Vec<Import> {
    let code = &module.code;
    let own: Vec<String> = name.split("::").map(str::to_string).collect();
    let mut found = Vec::new();
    for i in 0..code.len() {
        let head = &code[i];
        let starts_path = head.kind == TokenKind::Ident
            && code.get(i + 1).is_some_and(|t| t.is("::"))
            && !(i > 0 && code[i - 1].is("::"));
        if !starts_path {
            continue;
        }
        let base = match head.text.as_str() {
            "crate" => Vec::new(),
            "self" => own.clone(),
            "super" => own[..own.len().saturating_sub(1)].to_vec(),
            _ => continue,
        };
        let mut paths = Vec::new();
        let end = use_tree(code, i + 2, base, &mut paths);
        let written: String = code[i..end.min(code.len())]
            .iter()
            .map(|t| match t.text.as_str() {
                "," => ", ",
                text => text,
            })
            .collect();
        for path in paths {
            let target = (1..=path.len())
                .rev()
                .map(|k| path[..k].join("::"))
                .find(|c| mods.contains_key(c));
            if let Some(to) = target {
                if !under(&to, name) && !under(name, &to) {
                    found.push(Import {
                        from: name.to_string(),
                        to,
                        file: module.file.clone(),
                        line: head.line,
                        written: written.clone(),
                    });
                }
            }
        }
    }
    found
}

fn imports(mods: &BTreeMap<String, Module>) -> Vec<Import> {
    mods.iter()
        .flat_map(|(name, m)| imports_of(name, m, mods))
        .collect()
}

// ---------------------------------------------------------------------------
// The rules, each giving what breaks it

/// A chain of imports that comes back to where it started, if any.
fn a_cycle(imports: &[Import]) -> Option<Vec<Import>> {
    let mut edges: BTreeMap<&str, BTreeMap<&str, &Import>> = BTreeMap::new();
    for i in imports {
        edges
            .entry(i.from.as_str())
            .or_default()
            .entry(i.to.as_str())
            .or_insert(i);
    }
    // Depth-first search for a back edge; the cycle it closes.
    fn visit<'a>(
        m: &'a str,
        edges: &BTreeMap<&'a str, BTreeMap<&'a str, &'a Import>>,
        path: &mut Vec<&'a Import>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<Import>> {
        if let Some(i) = path.iter().position(|p| p.from == m) {
            return Some(path[i..].iter().map(|&p| p.clone()).collect());
        }
        if done.contains(m) {
            return None;
        }
        for (&next, &import) in edges.get(m).into_iter().flatten() {
            path.push(import);
            if let Some(c) = visit(next, edges, path, done) {
                return Some(c);
            }
            path.pop();
        }
        done.insert(m);
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|&m| visit(m, &edges, &mut Vec::new(), &mut done))
}

/// The layer of a module, and the part of `LAYERS` it belongs to: the
/// longest part it is under.
fn layer_of(module: &str) -> Option<(usize, &'static str)> {
    LAYERS
        .iter()
        .enumerate()
        .flat_map(|(layer, parts)| parts.iter().map(move |&part| (layer, part)))
        .filter(|&(_, part)| under(module, part))
        .max_by_key(|&(_, part)| part.len())
}

/// Modules that belong to no layer.
fn without_a_layer(mods: &BTreeMap<String, Module>) -> Vec<String> {
    mods.keys()
        .filter(|m| layer_of(m).is_none())
        .cloned()
        .collect()
}

/// Imports of a module on a higher layer.
fn upward_imports(imports: &[Import]) -> Vec<String> {
    imports
        .iter()
        .filter_map(|i| {
            let (from, _) = layer_of(&i.from)?;
            let (to, part) = layer_of(&i.to)?;
            (to > from).then(|| format!("{i}: layer {from} imports {part}, on layer {to}"))
        })
        .collect()
}

/// A cycle among the parts of `LAYERS` (`install -> observe -> install`),
/// which a cycle among files does not show: the imports, each between two
/// parts, that close it.
fn a_part_cycle(imports: &[Import]) -> Option<Vec<Import>> {
    let between_parts: Vec<Import> = imports
        .iter()
        .filter_map(|i| {
            let (_, from) = layer_of(&i.from)?;
            let (_, to) = layer_of(&i.to)?;
            (from != to).then(|| Import {
                from: from.to_string(),
                to: to.to_string(),
                ..i.clone()
            })
        })
        .collect();
    a_cycle(&between_parts)
}

/// Paths in the code of the pure layers that reach the file system,
/// processes, the environment or sockets (`IO_PATHS`), however written:
/// in full, through a `use`, or in a group (`use std::{fs, io}`); and calls
/// of the methods by which a `Path` asks the file system.
fn io_in_pure_code(mods: &BTreeMap<String, Module>) -> Vec<String> {
    let heads: BTreeSet<&str> = IO_PATHS.iter().map(|p| p[0]).collect();
    let mut found = Vec::new();
    for (name, m) in mods {
        if layer_of(name).is_none_or(|(layer, _)| layer > LAST_PURE_LAYER) {
            continue;
        }
        let code = &m.code;
        for (i, t) in code.iter().enumerate() {
            if t.kind == TokenKind::Ident
                && PATH_IO_METHODS.contains(&t.text.as_str())
                && i > 0
                && code[i - 1].is(".")
                && code.get(i + 1).is_some_and(|n| n.is("("))
            {
                found.push(format!(
                    "{name} ({}:{}: .{}()) reaches the file system",
                    m.file, t.line, t.text
                ));
                continue;
            }
            let after_use = i > 0 && code[i - 1].is("use");
            let is_path = code.get(i + 1).is_some_and(|n| n.is("::"));
            if t.kind != TokenKind::Ident
                || !heads.contains(t.text.as_str())
                || (i > 0 && code[i - 1].is("::"))
                || !(is_path || after_use)
            {
                continue;
            }
            let mut paths = Vec::new();
            let from = if is_path { i + 2 } else { i + 1 };
            let end = use_tree(code, from, vec![t.text.clone()], &mut paths);
            for path in paths {
                if IO_PATHS
                    .iter()
                    .any(|io| path.len() >= io.len() && path[..io.len()] == io[..])
                {
                    let written: String = code[i..end.min(code.len())]
                        .iter()
                        .map(|t| t.text.as_str())
                        .collect();
                    found.push(format!(
                        "{name} ({}:{}: {written}) reaches {}",
                        m.file,
                        t.line,
                        path.join("::")
                    ));
                }
            }
        }
    }
    found
}

/// Imports of the model by the generator and the shrinker: a generator
/// that asks the oracle what it covers can only confirm it.
fn model_in_generators(imports: &[Import]) -> Vec<String> {
    imports
        .iter()
        .filter(|i| GENERATORS.iter().any(|g| under(&i.from, g)))
        .filter(|i| under(&i.to, "model") || under(&i.to, "judge"))
        .map(Import::to_string)
        .collect()
}

/// Imports of the command layer from outside it.
fn command_layer_imports(imports: &[Import]) -> Vec<String> {
    imports
        .iter()
        .filter(|i| !under(&i.from, "cli") && under(&i.to, "cli"))
        .map(Import::to_string)
        .collect()
}

/// `println!` and `print!` outside the command layer.
fn printing_outside_cli(mods: &BTreeMap<String, Module>) -> Vec<String> {
    let mut found = Vec::new();
    for (name, m) in mods.iter().filter(|(name, _)| !under(name, "cli")) {
        for w in m.code.windows(2) {
            if (w[0].is("println") || w[0].is("print")) && w[1].is("!") {
                found.push(format!("{name} ({}:{}: {}!)", m.file, w[0].line, w[0].text));
            }
        }
    }
    found
}

#[test]
fn no_module_imports_another_in_a_cycle() {
    let mods = modules(&sources());
    let imports = imports(&mods);
    if let Some(cycle) = a_cycle(&imports) {
        let shown: Vec<String> = cycle.iter().map(Import::to_string).collect();
        panic!("an import cycle:\n{}", shown.join("\n"));
    }
    let importing: BTreeSet<&str> = imports.iter().map(|i| i.from.as_str()).collect();
    assert!(
        importing.len() > 20,
        "the check saw too few modules: {importing:?}"
    );
}

#[test]
fn every_module_has_a_layer() {
    let bad = without_a_layer(&modules(&sources()));
    assert!(
        bad.is_empty(),
        "modules on no layer (add their part to LAYERS):\n{}",
        bad.join("\n")
    );
}

#[test]
fn no_module_imports_one_on_a_higher_layer() {
    let bad = upward_imports(&imports(&modules(&sources())));
    assert!(bad.is_empty(), "imports upward:\n{}", bad.join("\n"));
}

#[test]
fn no_two_parts_import_each_other_in_a_cycle() {
    if let Some(cycle) = a_part_cycle(&imports(&modules(&sources()))) {
        let shown: Vec<String> = cycle.iter().map(Import::to_string).collect();
        panic!("a cycle among the parts of the tree:\n{}", shown.join("\n"));
    }
}

#[test]
fn the_pure_layers_touch_no_files_processes_environment_or_sockets() {
    let bad = io_in_pure_code(&modules(&sources()));
    assert!(
        bad.is_empty(),
        "I/O in the pure layers:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_generator_and_the_shrinker_ask_the_model_nothing() {
    let bad = model_in_generators(&imports(&modules(&sources())));
    assert!(
        bad.is_empty(),
        "the fuzzer's generator or shrinker imports the model or a judge:\n{}",
        bad.join("\n")
    );
}

#[test]
fn an_import_of_the_model_in_the_generator_is_found() {
    for plant in [
        "use crate::model::predict;",
        "fn f() { crate::model::call_target(); }",
        "use crate::{naming, model::Prediction};",
    ] {
        let sources = planted("loops::fuzz::gen", None, plant);
        let bad = model_in_generators(&imports(&modules(&sources)));
        assert_eq!(bad.len(), 1, "{plant}: {bad:?}");
        assert!(
            bad[0].starts_with("loops::fuzz::gen imports model"),
            "{}",
            bad[0]
        );
    }
}

#[test]
fn nothing_imports_the_command_layer() {
    let bad = command_layer_imports(&imports(&modules(&sources())));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn printing_happens_only_in_the_command_layer() {
    let bad = printing_outside_cli(&modules(&sources()));
    assert!(
        bad.is_empty(),
        "stdout is written outside cli/ (unsafe under `| head`):\n{}",
        bad.join("\n")
    );
}

// ---------------------------------------------------------------------------
// The check itself, on copies of the tree with something planted

/// The tree's sources with `planted` put after the first line of `module`
/// that is `after`, or at its end.
fn planted(module: &str, after: Option<&str>, planted: &str) -> BTreeMap<String, (String, String)> {
    let mut sources = sources();
    let (_, text) = sources.get_mut(module).expect("the module is in the tree");
    let mut lines: Vec<&str> = text.lines().collect();
    let at = match after {
        Some(after) => lines
            .iter()
            .position(|l| l.trim() == after)
            .unwrap_or_else(|| panic!("{module} has no line {after:?}")),
        None => lines.len() - 1,
    };
    lines.insert(at + 1, planted);
    *text = lines.join("\n");
    sources
}

#[test]
fn an_import_of_the_command_layer_after_a_test_module_is_found() {
    let sources = planted("loops::fuzz", Some("mod mutant;"), "use crate::cli;");
    let bad = command_layer_imports(&imports(&modules(&sources)));
    println!("{}", bad.join("\n"));
    assert_eq!(
        bad.len(),
        1,
        "the planted import, and only it, is reported: {bad:?}"
    );
    assert!(
        bad[0].starts_with("loops::fuzz imports cli (harness/loops/fuzz/mod.rs:")
            && bad[0].ends_with(": crate::cli)"),
        "{}",
        bad[0]
    );
}

#[test]
fn super_self_and_grouped_imports_are_resolved() {
    for (plant, written) in [
        ("use super::super::cli::Exit;", "super::super::cli::Exit"),
        ("use self::super::super::cli;", "self::super::super::cli"),
        ("use crate::{js, cli::Exit};", "crate::{js, cli::Exit}"),
        ("fn f() { crate::cli::run(); }", "crate::cli::run"),
    ] {
        let sources = planted("loops::fuzz", None, plant);
        let bad = command_layer_imports(&imports(&modules(&sources)));
        assert!(
            bad.len() == 1 && bad[0].ends_with(&format!(": {written})")),
            "{plant}: {bad:?}"
        );
    }
}

#[test]
fn only_the_test_items_are_cut() {
    for plant in [
        "#[cfg(test)]\nmod more_tests {\n    use crate::cli;\n}",
        "#[cfg(test)]\nuse crate::cli;",
        "#[cfg(test)]\n#[allow(dead_code)]\nfn helper() -> u8 {\n    crate::cli::answer()\n}",
        "// use crate::cli;\nconst NOTE: &str = \"crate::cli\";",
    ] {
        let sources = planted("loops::fuzz", None, plant);
        let bad = command_layer_imports(&imports(&modules(&sources)));
        assert!(bad.is_empty(), "{plant}: {bad:?}");
    }
    // The item after a test item is code again.
    let sources = planted(
        "loops::fuzz",
        None,
        "#[cfg(test)]\nfn helper() {}\nuse crate::cli;",
    );
    assert_eq!(command_layer_imports(&imports(&modules(&sources))).len(), 1);
}

#[test]
fn printing_is_found_past_the_first_test_item() {
    let sources = planted("loops::fuzz", None, "fn shout() { println!(\"x\"); }");
    let bad = printing_outside_cli(&modules(&sources));
    assert!(
        bad.len() == 1 && bad[0].starts_with("loops::fuzz (harness/loops/fuzz/mod.rs:"),
        "{bad:?}"
    );
}

#[test]
fn an_import_of_a_higher_layer_is_found() {
    for (module, plant, part) in [
        ("judge::compare", "use crate::report::doc;", "report"),
        (
            "model::rewrite",
            "use crate::{js, observe::proc::CommandSpec};",
            "observe",
        ),
        (
            "version::spec",
            "fn f() { crate::install::node::pinned(); }",
            "install",
        ),
        ("results", "use super::run::config::Config;", "run"),
    ] {
        let bad = upward_imports(&imports(&modules(&planted(module, None, plant))));
        assert!(
            bad.len() == 1
                && bad[0].ends_with(&format!(
                    "imports {part}, on layer {}",
                    layer_of(part).unwrap().0
                )),
            "{module} + {plant}: {bad:?}"
        );
    }
}

#[test]
fn a_cycle_between_parts_of_one_layer_is_found() {
    // `route` imports `projection`; the plant closes the loop between two
    // files that do not import each other.
    let sources = planted("projection", None, "use crate::route::body::Captured;");
    let cycle = a_part_cycle(&imports(&modules(&sources))).expect("the planted cycle");
    let parts: BTreeSet<&str> = cycle.iter().map(|i| i.from.as_str()).collect();
    assert_eq!(parts, BTreeSet::from(["projection", "route"]), "{cycle:?}");
}

/// What the I/O check finds in `model::rewrite` with `plant` added.
fn io_in_planted(plant: &str) -> Vec<String> {
    io_in_pure_code(&modules(&planted("model::rewrite", None, plant)))
        .into_iter()
        .filter(|f| f.starts_with("model::rewrite "))
        .collect()
}

#[test]
fn io_in_a_pure_layer_is_found_however_it_is_written() {
    for (plant, reaches) in [
        ("use std::fs;", "std::fs"),
        ("fn f() { let _ = std::fs::read(\"x\"); }", "std::fs::read"),
        ("use std::{fs, io};", "std::fs"),
        (
            "use std::{collections::BTreeMap, process::Command};",
            "std::process::Command",
        ),
        (
            "fn f() -> String { std::env::var(\"X\").unwrap() }",
            "std::env::var",
        ),
        ("use std::net::TcpStream;", "std::net::TcpStream"),
        (
            "use std::os::unix::net::UnixStream;",
            "std::os::unix::net::UnixStream",
        ),
        ("fn f() { duct::cmd!(\"ls\").run(); }", "duct::cmd"),
        ("use tempfile;", "tempfile"),
        (
            "fn f() { rusqlite::Connection::open_in_memory(); }",
            "rusqlite::Connection::open_in_memory",
        ),
    ] {
        let bad = io_in_planted(plant);
        assert!(
            bad.len() == 1 && bad[0].ends_with(&format!("reaches {reaches}")),
            "{plant}: {bad:?}"
        );
    }
    let bad = io_in_planted("fn f(p: &std::path::Path) -> bool { p.is_file() }");
    assert!(
        bad.len() == 1 && bad[0].ends_with(".is_file()) reaches the file system"),
        "{bad:?}"
    );
    // Addresses are values, not sockets; a string is not code.
    for plant in [
        "use std::net::Ipv4Addr;",
        "const S: &str = \"std::fs::read\";",
    ] {
        let bad = io_in_planted(plant);
        assert!(bad.is_empty(), "{plant}: {bad:?}");
    }
}

#[test]
fn a_module_on_no_layer_is_found() {
    let mut sources = sources();
    sources.insert(
        "scratch".into(),
        ("harness/scratch.rs".into(), "pub fn f() {}".into()),
    );
    assert_eq!(without_a_layer(&modules(&sources)), ["scratch"]);
}
