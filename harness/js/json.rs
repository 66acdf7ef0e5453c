//! `Json`: JSON whose strings are JavaScript strings.
//!
//! Case files, the probe protocol, captured request bodies and projections all
//! carry keys that may hold lone surrogates (`"\ud800x"`). `serde_json` rejects
//! those escapes, and a `String` cannot hold them, so everything that carries
//! a JS string goes through this small, strict parser and writer instead.
//! The writer matches `JSON.stringify`: lone surrogates as lowercase `\udXXX`
//! escapes, `\b \f \n \r \t`, other control characters as `\u00XX`.
//!
//! Equality (`PartialEq`) is what the harness means by "the same value":
//! strings compare as UTF-16 code units, numbers by value, arrays in order
//! (tool order is behaviour), objects as sets of keys (JSON text order does
//! not matter, but a repeated key does: the last one wins, as in `JSON.parse`).

use crate::js::string::{write_string, JsString};
use std::fmt;

#[derive(Clone)]
pub enum Json {
    Null,
    Bool(bool),
    /// The number's JSON text, validated; compared by value.
    Number(String),
    String(JsString),
    Array(Vec<Json>),
    /// Members in text order. Lookups take the last of repeated keys.
    Object(Vec<(JsString, Json)>),
}

/// Where and why JSON text failed to parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl Json {
    pub fn str(s: &str) -> Json {
        Json::String(JsString::from(s))
    }

    pub fn int(n: i64) -> Json {
        Json::Number(n.to_string())
    }

    pub fn object<K: Into<JsString>>(members: impl IntoIterator<Item = (K, Json)>) -> Json {
        Json::Object(members.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// The member `key` of an object (the last one if repeated).
    pub fn get(&self, key: &str) -> Option<&Json> {
        let key = JsString::from(key);
        match self {
            Json::Object(members) => members
                .iter()
                .rev()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&JsString> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Number(text) => text.parse().ok(),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    /// The JSON type's name, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }

    /// Object members with repeated keys folded the way `JSON.parse` folds
    /// them: first position, last value.
    pub fn members(&self) -> Option<Vec<(&JsString, &Json)>> {
        let Json::Object(members) = self else {
            return None;
        };
        let mut out: Vec<(&JsString, &Json)> = Vec::with_capacity(members.len());
        for (k, v) in members {
            match out.iter_mut().find(|(seen, _)| *seen == k) {
                Some(slot) => slot.1 = v,
                None => out.push((k, v)),
            }
        }
        Some(out)
    }

    /// Compact text, as `JSON.stringify(value)` writes it.
    pub fn to_compact(&self) -> String {
        let mut out = String::new();
        write_value(&mut out, self, None, 0, false);
        out
    }

    /// Indented text, as `JSON.stringify(value, null, 2)` writes it.
    pub fn to_pretty(&self) -> String {
        let mut out = String::new();
        write_value(&mut out, self, Some(2), 0, false);
        out
    }

    /// Indented text with object keys sorted by code unit: the normal form
    /// used for snapshots and diffs (arrays keep their order).
    pub fn to_pretty_sorted(&self) -> String {
        let mut out = String::new();
        write_value(&mut out, self, Some(2), 0, true);
        out
    }

    pub fn parse(text: &str) -> Result<Json, ParseError> {
        Self::parse_bytes(text.as_bytes())
    }

    /// Parse JSON that the harness itself wrote and reads back (reports,
    /// results, ledgers): a repeated key is an error naming where it is, as
    /// `run.versions`, since two readers (this one takes the last, a person
    /// reading the file the first) would see two different documents.
    pub fn parse_unique(text: &str) -> Result<Json, String> {
        let v = Self::parse(text).map_err(|e| e.to_string())?;
        match v.repeated_key() {
            Some(at) => Err(format!("{at}: a repeated key")),
            None => Ok(v),
        }
    }

    /// The path of the first key repeated within one object, if any.
    pub fn repeated_key(&self) -> Option<String> {
        fn walk(v: &Json, at: &str) -> Option<String> {
            let join = |k: &str| {
                if at.is_empty() {
                    k.to_string()
                } else {
                    format!("{at}.{k}")
                }
            };
            match v {
                Json::Object(members) => {
                    let mut seen = std::collections::HashSet::new();
                    for (k, child) in members {
                        let name = k.to_rust().unwrap_or_else(|| k.to_string());
                        if !seen.insert(k) {
                            return Some(join(&name));
                        }
                        if let Some(found) = walk(child, &join(&name)) {
                            return Some(found);
                        }
                    }
                    None
                }
                Json::Array(items) => items
                    .iter()
                    .enumerate()
                    .find_map(|(i, item)| walk(item, &format!("{at}[{i}]"))),
                _ => None,
            }
        }
        walk(self, "")
    }

    /// Parse JSON from bytes that should be UTF-8; invalid UTF-8 inside a
    /// string is an error, reported with its position.
    pub fn parse_bytes(bytes: &[u8]) -> Result<Json, ParseError> {
        let mut p = Parser {
            bytes,
            pos: 0,
            depth: 0,
        };
        p.skip_ws();
        let value = p.value()?;
        p.skip_ws();
        if p.pos != bytes.len() {
            return Err(p.error("unexpected text after the JSON value"));
        }
        Ok(value)
    }
}

impl PartialEq for Json {
    fn eq(&self, other: &Json) -> bool {
        match (self, other) {
            (Json::Null, Json::Null) => true,
            (Json::Bool(a), Json::Bool(b)) => a == b,
            (Json::Number(a), Json::Number(b)) => {
                a == b || matches!((a.parse::<f64>(), b.parse::<f64>()), (Ok(x), Ok(y)) if x == y)
            }
            (Json::String(a), Json::String(b)) => a == b,
            (Json::Array(a), Json::Array(b)) => a == b,
            (a @ Json::Object(_), b @ Json::Object(_)) => {
                let (ma, mb) = (
                    a.members().unwrap_or_default(),
                    b.members().unwrap_or_default(),
                );
                ma.len() == mb.len()
                    && ma
                        .iter()
                        .all(|(k, v)| mb.iter().any(|(k2, v2)| k == k2 && v == v2))
            }
            _ => false,
        }
    }
}

impl fmt::Debug for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_compact())
    }
}

impl From<JsString> for Json {
    fn from(s: JsString) -> Json {
        Json::String(s)
    }
}

impl From<&str> for Json {
    fn from(s: &str) -> Json {
        Json::str(s)
    }
}

impl From<bool> for Json {
    fn from(b: bool) -> Json {
        Json::Bool(b)
    }
}

impl<T: Into<Json>> From<Option<T>> for Json {
    fn from(o: Option<T>) -> Json {
        o.map_or(Json::Null, Into::into)
    }
}

impl<T: Into<Json>> From<Vec<T>> for Json {
    fn from(items: Vec<T>) -> Json {
        Json::Array(items.into_iter().map(Into::into).collect())
    }
}

fn write_value(out: &mut String, v: &Json, indent: Option<usize>, depth: usize, sorted: bool) {
    let newline = |out: &mut String, depth: usize| {
        if let Some(n) = indent {
            out.push('\n');
            out.push_str(&" ".repeat(n * depth));
        }
    };
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(n),
        Json::String(s) => write_string(out, s),
        Json::Array(items) if items.is_empty() => out.push_str("[]"),
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, depth + 1);
                write_value(out, item, indent, depth + 1, sorted);
            }
            newline(out, depth);
            out.push(']');
        }
        Json::Object(_) => {
            let mut members = v.members().unwrap_or_default();
            if members.is_empty() {
                out.push_str("{}");
                return;
            }
            if sorted {
                members.sort_by(|a, b| a.0.cmp(b.0));
            }
            out.push('{');
            for (i, (k, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, depth + 1);
                write_string(out, k);
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write_value(out, item, indent, depth + 1, sorted);
            }
            newline(out, depth);
            out.push('}');
        }
    }
}

/// Deep enough for any real body; shallow enough that hostile input cannot
/// overflow the stack.
const MAX_DEPTH: usize = 256;

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> ParseError {
        let before = &self.bytes[..self.pos.min(self.bytes.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        ParseError {
            line,
            column: self.pos - line_start + 1,
            message: message.to_string(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn expect_word(&mut self, word: &str, value: Json) -> Result<Json, ParseError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.error("expected a JSON value"))
        }
    }

    fn value(&mut self) -> Result<Json, ParseError> {
        match self.peek() {
            None => Err(self.error("unexpected end of input")),
            Some(b'n') => self.expect_word("null", Json::Null),
            Some(b't') => self.expect_word("true", Json::Bool(true)),
            Some(b'f') => self.expect_word("false", Json::Bool(false)),
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(b'[') => self.nested(Self::array),
            Some(b'{') => self.nested(Self::object),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("expected a JSON value")),
        }
    }

    fn nested(&mut self, f: fn(&mut Self) -> Result<Json, ParseError>) -> Result<Json, ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        let v = f(self);
        self.depth -= 1;
        v
    }

    fn array(&mut self) -> Result<Json, ParseError> {
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value()?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.error("expected ',' or ']'")),
            }
        }
    }

    fn object(&mut self) -> Result<Json, ParseError> {
        self.pos += 1;
        let mut members = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Json::Object(members));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a string key"));
            }
            let key = self.string()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.error("expected ':'"));
            }
            self.pos += 1;
            self.skip_ws();
            members.push((key, self.value()?));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Json::Object(members));
                }
                _ => return Err(self.error("expected ',' or '}'")),
            }
        }
    }

    fn number(&mut self) -> Result<Json, ParseError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                while matches!(self.peek(), Some(b'0'..=b'9')) {
                    self.pos += 1;
                }
            }
            _ => return Err(self.error("malformed number")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            self.digits()?;
        }
        let text = std::str::from_utf8(&self.bytes[start..self.pos]).unwrap_or("0");
        Ok(Json::Number(text.to_string()))
    }

    fn digits(&mut self) -> Result<(), ParseError> {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.error("malformed number"));
        }
        Ok(())
    }

    fn hex4(&mut self) -> Result<u16, ParseError> {
        let digits = self
            .bytes
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.error("short \\u escape"))?;
        let text = std::str::from_utf8(digits).map_err(|_| self.error("bad \\u escape"))?;
        let unit = u16::from_str_radix(text, 16).map_err(|_| self.error("bad \\u escape"))?;
        if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(self.error("bad \\u escape"));
        }
        self.pos += 4;
        Ok(unit)
    }

    /// A string literal, decoded to code units. `\uXXXX` escapes are taken as
    /// code units as they stand, so lone surrogates survive.
    fn string(&mut self) -> Result<JsString, ParseError> {
        self.pos += 1;
        let mut out = JsString::new();
        loop {
            let run_start = self.pos;
            while matches!(self.peek(), Some(b) if b != b'"' && b != b'\\' && b >= 0x20) {
                self.pos += 1;
            }
            let run = &self.bytes[run_start..self.pos];
            match std::str::from_utf8(run) {
                Ok(s) => out.push_str(s),
                Err(e) => {
                    self.pos = run_start + e.valid_up_to();
                    return Err(self.error("invalid UTF-8 in a string"));
                }
            }
            match self.peek() {
                None => return Err(self.error("unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let esc = self
                        .peek()
                        .ok_or_else(|| self.error("unterminated string"))?;
                    self.pos += 1;
                    let unit = match esc {
                        b'"' => 0x22,
                        b'\\' => 0x5C,
                        b'/' => 0x2F,
                        b'b' => 0x08,
                        b'f' => 0x0C,
                        b'n' => 0x0A,
                        b'r' => 0x0D,
                        b't' => 0x09,
                        b'u' => self.hex4()?,
                        _ => {
                            self.pos -= 1;
                            return Err(self.error("bad escape"));
                        }
                    };
                    out.push_unit(unit);
                }
                Some(_) => return Err(self.error("control character in a string")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_round_trip_exactly() {
        let text = r#"["\ud800x","\udfff","a\ud83d\ude00b","\ud83d"]"#;
        let v = Json::parse(text).unwrap();
        let Json::Array(items) = &v else { panic!() };
        assert_eq!(
            items[0].as_str().unwrap().units(),
            &[0xD800, u16::from(b'x')]
        );
        // A well-formed pair is written as the character, like JSON.stringify.
        assert_eq!(
            v.to_compact(),
            "[\"\\ud800x\",\"\\udfff\",\"a😀b\",\"\\ud83d\"]"
        );
    }

    #[test]
    fn writer_matches_json_stringify_escapes() {
        let s = JsString::from("\u{0}\u{1f}\"\\\n\t\u{8}\u{c}\r/é");
        let mut out = String::new();
        write_string(&mut out, &s);
        assert_eq!(out, r#""\u0000\u001f\"\\\n\t\b\f\r/é""#);
    }

    #[test]
    fn numbers_compare_by_value_and_keep_their_text() {
        let a = Json::parse("1.0").unwrap();
        let b = Json::parse("1").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_compact(), "1.0");
    }

    #[test]
    fn parse_unique_names_the_repeated_key() {
        assert_eq!(
            Json::parse_unique(r#"{"run":{"versions":[1],"versions":[2]}}"#).unwrap_err(),
            "run.versions: a repeated key"
        );
        assert_eq!(
            Json::parse_unique(r#"{"results":[{"a":1},{"a":1,"a":2}]}"#).unwrap_err(),
            "results[1].a: a repeated key"
        );
        assert!(Json::parse_unique(r#"{"a":{"b":1},"b":{"b":2}}"#).is_ok());
    }

    #[test]
    fn repeated_keys_fold_like_json_parse() {
        let v = Json::parse(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(v.get("a"), Some(&Json::int(3)));
        assert_eq!(v.to_compact(), r#"{"a":3,"b":2}"#);
    }

    #[test]
    fn objects_compare_without_order_arrays_with_order() {
        let a = Json::parse(r#"{"a":[1,2],"b":null}"#).unwrap();
        let b = Json::parse(r#"{"b":null,"a":[1,2]}"#).unwrap();
        let c = Json::parse(r#"{"b":null,"a":[2,1]}"#).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = Json::parse("{\n  \"a\": tru\n}").unwrap_err();
        assert_eq!((e.line, e.column), (2, 8));
        assert!(Json::parse_bytes(b"\"\xff\"")
            .unwrap_err()
            .message
            .contains("UTF-8"));
        assert!(Json::parse("[1,]").is_err());
        assert!(Json::parse("01").is_err());
        assert!(
            Json::parse(&"[".repeat(10_000)).is_err(),
            "depth is bounded"
        );
    }

    #[test]
    fn sorted_form_sorts_keys_by_code_unit() {
        let v = Json::parse(r#"{"b":1,"a":{"d":1,"c":2}}"#).unwrap();
        assert_eq!(
            v.to_pretty_sorted(),
            "{\n  \"a\": {\n    \"c\": 2,\n    \"d\": 1\n  },\n  \"b\": 1\n}"
        );
    }
}
