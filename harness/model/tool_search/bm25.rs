//! `search_tools`' ranking: the processor's `BM25Index` over `"${id}
//! ${description}"` of each tool behind it, with its name-match boost
//! (`searchTools`, 1.2.0 `dist/chunk-5HDIPOLV.js`, 1.71.0
//! `dist/agent-BOxKOk3n.js:17085`; `BM25Index` in
//! `dist/workspace-skills-DTDLWMv4.js:538`). The same on every release
//! with the processor (read in 1.2.0, 1.30.0, 1.34.0, 1.38.0, 1.67.0 and
//! 1.71.0: the later ones only add a `filter` hook, unset here).
//!
//! Scores are computed with the same `f64` operations in the same order
//! as the JavaScript, then rounded to hundredths as it rounds them.

use crate::js::json::Json;
use crate::js::string::JsString;

/// `BM25Index`'s defaults.
const K1: f64 = 1.5;
const B: f64 = 0.75;
/// `searchConfig`'s defaults: `topK` results, scored above `minScore`.
const TOP_K: usize = 5;
/// A description is cut to 147 code units and `...` past 150.
const DESCRIPTION_MAX: usize = 150;

/// One result of `search_tools`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Found {
    pub(super) name: JsString,
    pub(super) description: JsString,
    /// `Math.round(score * 100) / 100`, as JSON writes the number.
    pub(super) score: Json,
}

/// `TOOL_SEARCH_TOKENIZE_OPTIONS`: lowercased, split on
/// `/[\s\-_.,;:!?()[\]{}'"]+/`, tokens of two UTF-16 code units or more,
/// no stopwords. Text with a lone surrogate is not modelled.
fn tokens(text: &JsString) -> Result<Vec<String>, String> {
    let lower = lowercase(text)?;
    let split = |c: char| {
        u16::try_from(u32::from(c)).is_ok_and(crate::model::validate::is_js_whitespace)
            || "-_.,;:!?()[]{}'\"".contains(c)
    };
    Ok(lower
        .split(split)
        .filter(|t| t.encode_utf16().count() >= 2)
        .map(str::to_string)
        .collect())
}

/// `toLowerCase`: Unicode's default lowercasing, as Rust's.
pub(super) fn lowercase(text: &JsString) -> Result<String, String> {
    match text.to_rust() {
        Some(t) => Ok(t.to_lowercase()),
        None => Err("toolSearch over text with a lone surrogate".into()),
    }
}

/// A document of the index: its id, each term's count, its length.
struct Doc {
    id: JsString,
    counts: Vec<(String, usize)>,
    length: usize,
}

/// `BM25Index`: documents in the order a `Map` keeps them (one added again
/// under its id is removed and goes last), and for each term the ids
/// holding it in the order a `Set` keeps them.
#[derive(Default)]
struct Index {
    docs: Vec<Doc>,
    postings: Vec<(String, Vec<JsString>)>,
}

impl Index {
    fn add(&mut self, id: JsString, content: &JsString) -> Result<(), String> {
        self.docs.retain(|d| d.id != id);
        for (_, ids) in &mut self.postings {
            ids.retain(|i| *i != id);
        }
        self.postings.retain(|(_, ids)| !ids.is_empty());
        let tokens = tokens(content)?;
        let mut counts: Vec<(String, usize)> = Vec::new();
        for t in &tokens {
            match counts.iter_mut().find(|(c, _)| c == t) {
                Some((_, n)) => *n += 1,
                None => counts.push((t.clone(), 1)),
            }
        }
        for (term, _) in &counts {
            match self.postings.iter_mut().find(|(t, _)| t == term) {
                Some((_, ids)) => ids.push(id.clone()),
                None => self.postings.push((term.clone(), vec![id.clone()])),
            }
        }
        self.docs.push(Doc {
            id,
            counts,
            length: tokens.len(),
        });
        Ok(())
    }

    /// `search(query, topK * 2, 0)`: each query term's score added to each
    /// document holding it, in the order first scored, then sorted (a
    /// stable sort) by score.
    fn search(&self, query: &JsString, limit: usize) -> Result<Vec<(JsString, f64)>, String> {
        let terms = tokens(query)?;
        if terms.is_empty() || self.docs.is_empty() {
            return Ok(Vec::new());
        }
        let n = self.docs.len() as f64;
        let total: f64 = self.docs.iter().map(|d| d.length as f64).sum();
        let average = total / n;
        let mut scores: Vec<(JsString, f64)> = Vec::new();
        for term in &terms {
            let Some((_, ids)) = self.postings.iter().find(|(t, _)| t == term) else {
                continue;
            };
            let df = ids.len() as f64;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for id in ids {
                let doc = self
                    .docs
                    .iter()
                    .find(|d| d.id == *id)
                    .ok_or("a posting of no document")?;
                let tf = doc
                    .counts
                    .iter()
                    .find(|(t, _)| t == term)
                    .map_or(0, |c| c.1) as f64;
                let length = doc.length as f64;
                let score =
                    idf * (tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * (length / average))));
                match scores.iter_mut().find(|(i, _)| i == id) {
                    Some((_, s)) => *s += score,
                    None => scores.push((id.clone(), score)),
                }
            }
        }
        sort_by_score(&mut scores);
        scores.truncate(limit);
        Ok(scores)
    }
}

/// `(a, b) => b.score - a.score` in a stable sort.
fn sort_by_score(scores: &mut [(JsString, f64)]) {
    scores.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
}

/// What `search_tools` answers for `query` over `docs` (each tool's id and
/// description, in the catalog's order).
pub(super) fn search(
    docs: &[(JsString, JsString)],
    query: &JsString,
) -> Result<Vec<Found>, String> {
    let mut index = Index::default();
    let mut descriptions: Vec<(JsString, JsString)> = Vec::new();
    for (id, description) in docs {
        if id.is_empty() {
            return Err("search_tools over a tool whose id is empty".into());
        }
        let content = id.concat(&JsString::from(" ")).concat(description);
        index.add(id.clone(), &content)?;
        descriptions.retain(|(i, _)| i != id);
        descriptions.push((id.clone(), description.clone()));
    }
    let ranked = index.search(query, TOP_K * 2)?;
    let terms: Vec<String> = tokens(query)?;
    let mut boosted: Vec<(JsString, f64)> = Vec::new();
    for (id, mut score) in ranked {
        let name = lowercase(&id)?;
        for term in &terms {
            if name == *term {
                score += 5.0;
            } else if name.contains(term.as_str()) {
                score += 2.0;
            }
        }
        boosted.push((id, score));
    }
    sort_by_score(&mut boosted);
    let mut out = Vec::new();
    for (id, score) in boosted.into_iter().filter(|(_, s)| *s > 0.0).take(TOP_K) {
        let description = descriptions
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, d)| d.clone())
            .unwrap_or_default();
        let description = if description.len() > DESCRIPTION_MAX {
            let mut cut = description.slice(0, DESCRIPTION_MAX - 3);
            cut.push_str("...");
            cut
        } else {
            description
        };
        out.push(Found {
            name: id,
            description,
            score: number((score * 100.0).round() / 100.0),
        });
    }
    Ok(out)
}

/// A finite number as `JSON.stringify` writes it (the shortest text that
/// reads back as it, as Rust's `Display` writes an `f64` in this range).
fn number(x: f64) -> Json {
    Json::Number(format!("{x}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> JsString {
        JsString::from(t)
    }

    /// Worked by hand from `BM25Index`: three documents of five, three
    /// and five tokens, "weather" twice in each of the first two.
    #[test]
    fn scores_as_the_index_and_the_boost_give_them() {
        let docs = [
            (s("get-weather"), s("Get the weather")),
            (s("weather"), s("Weather forecast")),
            (s("search.web"), s("Search the web")),
        ];
        let found = search(&docs, &s("weather")).unwrap();
        let names: Vec<String> = found.iter().map(|f| f.name.to_lossy()).collect();
        // `weather` is boosted by 5 (its name is the term), `get-weather` by 2.
        assert_eq!(names, ["weather", "get-weather"]);
        let idf = ((3.0f64 - 2.0 + 0.5) / (2.0 + 0.5) + 1.0).ln();
        let average = (5.0 + 3.0 + 5.0) / 3.0;
        let tf2 = idf * (2.0 * 2.5 / (2.0 + 1.5 * (1.0 - 0.75 + 0.75 * (5.0 / average))));
        let want = ((tf2 + 2.0) * 100.0).round() / 100.0;
        assert_eq!(found[1].score, number(want));
        assert!(search(&docs, &s("zzz")).unwrap().is_empty());
        assert!(search(&docs, &s("a")).unwrap().is_empty());
    }
}
