//! `JsString`: a JavaScript string, held as what JavaScript holds, UTF-16 code
//! units.
//!
//! Tool keys go from a case file to the model, to Node and back. A Rust
//! `String` cannot hold a lone surrogate (`"\ud800"`), and counting `char`s
//! instead of code units gets every length and slice in Mastra's rewrite wrong
//! for astral characters, so every key in the harness is a `JsString`.
//! Equality and ordering are those of JavaScript: code unit by code unit.

use std::fmt;

/// A JavaScript string: a sequence of UTF-16 code units, not necessarily
/// well formed.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct JsString(Vec<u16>);

impl JsString {
    pub fn new() -> Self {
        JsString(Vec::new())
    }

    pub fn from_units(units: Vec<u16>) -> Self {
        JsString(units)
    }

    pub fn units(&self) -> &[u16] {
        &self.0
    }

    /// `s.length`: the number of UTF-16 code units.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `s[i]` as a code unit.
    pub fn unit(&self, i: usize) -> Option<u16> {
        self.0.get(i).copied()
    }

    /// `s.slice(start, end)` for in-range, non-negative bounds.
    pub fn slice(&self, start: usize, end: usize) -> JsString {
        let end = end.min(self.0.len());
        let start = start.min(end);
        JsString(self.0[start..end].to_vec())
    }

    pub fn push_unit(&mut self, unit: u16) {
        self.0.push(unit);
    }

    pub fn push_str(&mut self, s: &str) {
        self.0.extend(s.encode_utf16());
    }

    pub fn concat(&self, other: &JsString) -> JsString {
        let mut units = self.0.clone();
        units.extend_from_slice(&other.0);
        JsString(units)
    }

    /// Whether the string is well formed (no lone surrogate), so that it has
    /// an exact Rust `String`.
    pub fn to_rust(&self) -> Option<String> {
        String::from_utf16(&self.0).ok()
    }

    /// A `String` for messages: lone surrogates become U+FFFD. Never used
    /// where the value is carried on; only where a person reads it.
    pub fn to_lossy(&self) -> String {
        String::from_utf16_lossy(&self.0)
    }

    /// The array index this string names, if it is one: the canonical
    /// decimal form of an integer in `0..=2^32 - 2` (ECMA-262 "array index").
    /// Such keys are listed first, in numeric order, by `Object.keys`.
    pub fn array_index(&self) -> Option<u32> {
        let units = &self.0;
        if units.is_empty() || units.len() > 10 {
            return None;
        }
        if units.len() > 1 && units[0] == u16::from(b'0') {
            return None;
        }
        let mut value: u64 = 0;
        for &u in units {
            if !(u16::from(b'0')..=u16::from(b'9')).contains(&u) {
                return None;
            }
            value = value * 10 + u64::from(u - u16::from(b'0'));
        }
        // 2^32 - 1 is not an array index: it is the one integer key that
        // stays in insertion order.
        (value < u64::from(u32::MAX)).then_some(value as u32)
    }

    /// Whether every code unit is an ASCII character in `set`.
    pub fn all_units(&self, pred: impl Fn(u16) -> bool) -> bool {
        self.0.iter().all(|&u| pred(u))
    }
}

impl From<&str> for JsString {
    fn from(s: &str) -> Self {
        JsString(s.encode_utf16().collect())
    }
}

impl From<String> for JsString {
    fn from(s: String) -> Self {
        JsString::from(s.as_str())
    }
}

/// `Debug` and `Display` write the string as a JSON string literal, so a lone
/// surrogate is visible as `\ud800` rather than silently replaced.
impl fmt::Debug for JsString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        write_string(&mut out, self);
        f.write_str(&out)
    }
}

impl fmt::Display for JsString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Whether a code unit is a surrogate (high or low).
pub fn is_surrogate(unit: u16) -> bool {
    (0xD800..=0xDFFF).contains(&unit)
}

/// Write `s` as a JSON string literal, exactly as `JSON.stringify` does.
pub fn write_string(out: &mut String, s: &JsString) {
    out.push('"');
    let units = s.units();
    let mut i = 0;
    while i < units.len() {
        let u = units[i];
        let pair = is_surrogate(u)
            && u < 0xDC00
            && units
                .get(i + 1)
                .is_some_and(|&lo| (0xDC00..=0xDFFF).contains(&lo));
        if pair {
            let c = char::decode_utf16([u, units[i + 1]]).next();
            if let Some(Ok(c)) = c {
                out.push(c);
            }
            i += 2;
            continue;
        }
        match u {
            0x22 => out.push_str("\\\""),
            0x5C => out.push_str("\\\\"),
            0x08 => out.push_str("\\b"),
            0x0C => out.push_str("\\f"),
            0x0A => out.push_str("\\n"),
            0x0D => out.push_str("\\r"),
            0x09 => out.push_str("\\t"),
            u if u < 0x20 || is_surrogate(u) => out.push_str(&format!("\\u{u:04x}")),
            u => out.push(char::from_u32(u32::from(u)).unwrap_or('\u{FFFD}')),
        }
        i += 1;
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_counts_code_units_not_characters() {
        assert_eq!(JsString::from("a").len(), 1);
        assert_eq!(JsString::from("é").len(), 1);
        assert_eq!(
            JsString::from("😀").len(),
            2,
            "an emoji is a surrogate pair"
        );
        assert_eq!(JsString::from_units(vec![0xD800]).len(), 1);
    }

    #[test]
    fn slicing_can_split_a_surrogate_pair() {
        let s = JsString::from("a😀");
        let cut = s.slice(0, 2);
        assert_eq!(cut.units(), &[u16::from(b'a'), 0xD83D]);
        assert_eq!(cut.to_rust(), None, "the cut leaves a lone high surrogate");
    }

    #[test]
    fn array_indices_follow_ecma262() {
        let idx = |s: &str| JsString::from(s).array_index();
        assert_eq!(idx("0"), Some(0));
        assert_eq!(idx("9"), Some(9));
        assert_eq!(idx("10"), Some(10));
        assert_eq!(idx("4294967294"), Some(4_294_967_294));
        assert_eq!(idx("4294967295"), None, "2^32-1 is not an array index");
        assert_eq!(idx("01"), None, "not canonical");
        assert_eq!(idx("-1"), None);
        assert_eq!(idx(""), None);
        assert_eq!(idx("1e3"), None);
        assert_eq!(idx("99999999999"), None);
    }

    #[test]
    fn ordering_is_by_code_unit_like_js_sort() {
        // U+FF61 sorts after U+1F600 by code point but before it by code
        // unit (0xFF61 > 0xD83D): JS compares code units.
        let astral = JsString::from("😀");
        let bmp = JsString::from("\u{FF61}");
        assert!(astral < bmp);
    }
}
