//! Shrinking: `shrink` (a pure, batched, greedy search over candidates) and
//! `candidates` (the simpler drafts one step away from a draft).
//!
//! `shrink` knows nothing of cases or probes: it takes the items being
//! shrunk, a function giving each one's candidates (simplest change first),
//! and a `judge` that answers a whole batch of candidates at once. The batch
//! is what makes it cheap on real probes: every round is one batch (one
//! `run_version`, one probe), holding the next few candidates of every item.
//! An item takes the first candidate, in its own order, that still shows
//! its signature (the same divergence, not merely any), and starts over from
//! it; it is done when no candidate does.

use super::gen::Draft;
use crate::case::{McpServer, MemorySource, Method, Reply, Tool, ToolCallReply, ToolChoice};
use crate::js::json::Json;
use crate::js::string::{is_surrogate, JsString};
use crate::model::rewrite::wire_name;
use std::collections::HashSet;

/// How much work shrinking may do.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Rounds (batches) in all.
    pub rounds: usize,
    /// Candidates of one item per round.
    pub chunk: usize,
    /// Candidates judged per item in all.
    pub per_item: usize,
}

impl Default for Budget {
    fn default() -> Self {
        // Around 60 rounds of one probe start each is a few minutes on a
        // busy machine, and more than any finding so far needed.
        Budget {
            rounds: 60,
            chunk: 48,
            per_item: 3000,
        }
    }
}

/// One item being shrunk.
#[derive(Debug, Clone)]
pub struct Shrinking<T, S, E> {
    pub current: T,
    pub signature: S,
    /// What the judge said of `current` (for the report).
    pub evidence: E,
    /// Candidates taken.
    pub steps: usize,
    /// Candidates judged.
    pub judged: usize,
    /// No candidate of `current` shows the signature: as small as it goes.
    pub minimal: bool,
    /// Its share of the budget is spent.
    pub spent: bool,
    queue: Vec<T>,
    next: usize,
    seen: HashSet<String>,
}

impl<T, S, E> Shrinking<T, S, E> {
    pub fn new(current: T, signature: S, evidence: E) -> Self {
        Shrinking {
            current,
            signature,
            evidence,
            steps: 0,
            judged: 0,
            minimal: false,
            spent: false,
            queue: Vec::new(),
            next: 0,
            seen: HashSet::new(),
        }
    }

    fn going(&self) -> bool {
        !self.minimal && !self.spent
    }
}

/// Why shrinking ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Every item is as small as its candidates go.
    Minimal,
    /// The budget ran out first.
    Budget,
    /// `stopped` said so.
    Stopped,
}

/// Shrink every item as far as `candidates` and `judge` allow.
///
/// `key` names a candidate (two candidates with the same key are judged
/// once per item). `judge` gets one batch and answers, for each candidate
/// in order, its signature and evidence, or `None` when it shows no
/// divergence (or could not be run).
pub fn shrink<T, S, E>(
    items: &mut [Shrinking<T, S, E>],
    candidates: impl Fn(&T) -> Vec<T>,
    key: impl Fn(&T) -> String,
    mut judge: impl FnMut(&[T]) -> Vec<Option<(S, E)>>,
    budget: Budget,
    stopped: impl Fn() -> bool,
) -> Ended
where
    T: Clone,
    S: PartialEq,
{
    for item in items.iter_mut() {
        item.seen.insert(key(&item.current));
        item.queue = candidates(&item.current);
        item.next = 0;
    }
    for _round in 0..budget.rounds {
        if stopped() {
            return Ended::Stopped;
        }
        // The next chunk of unseen candidates of every item still going.
        let mut batch: Vec<T> = Vec::new();
        let mut owners: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
        for (i, item) in items.iter_mut().enumerate() {
            if !item.going() {
                continue;
            }
            let room = budget
                .chunk
                .min(budget.per_item.saturating_sub(item.judged));
            let start = batch.len();
            while batch.len() - start < room && item.next < item.queue.len() {
                let c = &item.queue[item.next];
                item.next += 1;
                if item.seen.insert(key(c)) {
                    batch.push(c.clone());
                }
            }
            if batch.len() > start {
                owners.push((i, start..batch.len()));
            } else if room == 0 {
                item.spent = true;
            } else {
                item.minimal = true;
            }
        }
        if batch.is_empty() {
            return ended(items);
        }
        let mut answers = judge(&batch);
        if stopped() {
            // An interrupted batch answers only part of it: nothing in it
            // can be trusted to be the first success.
            return Ended::Stopped;
        }
        answers.resize_with(batch.len(), || None);
        for (i, range) in owners {
            let item = &mut items[i];
            item.judged += range.len();
            let hit = range.clone().find(|&j| {
                answers[j]
                    .as_ref()
                    .is_some_and(|(s, _)| *s == item.signature)
            });
            if let Some(j) = hit {
                // Candidates judged after the one taken are forgotten: one
                // that also succeeded may be the best step from the next
                // draft too.
                for later in j + 1..range.end {
                    if answers[later]
                        .as_ref()
                        .is_some_and(|(s, _)| *s == item.signature)
                    {
                        item.seen.remove(&key(&batch[later]));
                    }
                }
                let (_, evidence) = answers[j].take().expect("found above");
                item.current = batch[j].clone();
                item.evidence = evidence;
                item.steps += 1;
                item.queue = candidates(&item.current);
                item.next = 0;
            }
        }
    }
    for item in items.iter_mut().filter(|i| i.going()) {
        item.spent = true;
    }
    ended(items)
}

fn ended<T, S, E>(items: &[Shrinking<T, S, E>]) -> Ended {
    if items.iter().all(|i| i.minimal) {
        Ended::Minimal
    } else {
        Ended::Budget
    }
}

// ---------------------------------------------------------------------------
// Candidates of a draft

/// The drafts one simplification away from `d`, coarsest first: whole parts
/// dropped, then single tools, replies and names, then plainer forms, then
/// shorter strings, then plainer code units.
pub fn candidates(d: &Draft) -> Vec<Draft> {
    let mut out = Vec::new();
    drop_parts(d, &mut out);
    drop_items(d, &mut out);
    plainer_forms(d, &mut out);
    let strings = strings(d);
    for s in &strings {
        for shorter in shorter_strings(s) {
            out.push(rename(d, s, &shorter));
        }
    }
    // Edits to every string at once keep what ties strings together (a
    // shared prefix or suffix, one key's rewrite being another key): each
    // string's first half, last or first character dropped, then plainer
    // characters.
    let cut = |keep: fn(usize) -> std::ops::Range<usize>| {
        move |s: &JsString| {
            let a = atoms(s);
            if a.len() < 2 {
                return s.clone();
            }
            join(&a[keep(a.len())])
        }
    };
    out.push(map_strings(d, &cut(|n| 0..n.div_ceil(2))));
    out.push(map_strings(d, &cut(|n| 0..n - 1)));
    out.push(map_strings(d, &cut(|n| 1..n)));
    for (levels, plain) in BULK {
        out.push(map_strings(d, &|s: &JsString| {
            plainer_kind(s, levels, plain)
        }));
    }
    for s in &strings {
        for plainer in plainer_strings(s) {
            out.push(rename(d, s, &plainer));
        }
    }
    out.retain(|c| c != d);
    out
}

fn drop_parts(d: &Draft, out: &mut Vec<Draft>) {
    let mut push = |f: &dyn Fn(&mut Draft)| {
        let mut c = d.clone();
        f(&mut c);
        out.push(c);
    };
    if !d.replies.is_empty() {
        push(&|c| c.replies.clear());
    }
    if d.toolsets.is_some() {
        push(&|c| c.toolsets = None);
    }
    if d.client_tools.is_some() {
        push(&|c| c.client_tools = None);
    }
    if d.call.active_tools.is_some() {
        push(&|c| c.call.active_tools = None);
    }
    if d.call.tool_choice.is_some() {
        push(&|c| c.call.tool_choice = None);
    }
    if d.call.max_steps.is_some() {
        push(&|c| c.call.max_steps = None);
    }
    if d.call.method != Method::Generate {
        push(&|c| c.call.method = Method::Generate);
    }
    let src = &d.sources;
    if src.agents.is_some() {
        push(&|c| c.sources.agents = None);
    }
    if src.workflows.is_some() {
        push(&|c| c.sources.workflows = None);
    }
    if src.mcp.is_some() {
        push(&|c| c.sources.mcp = None);
    }
    if src.memory.is_some() {
        push(&|c| c.sources.memory = None);
    }
    if src.dynamic_tools {
        push(&|c| c.sources.dynamic_tools = false);
    }
}

/// Each candidate drops one element of one list.
fn drop_items(d: &Draft, out: &mut Vec<Draft>) {
    for i in 0..d.tools.len() {
        let mut c = d.clone();
        c.tools.remove(i);
        out.push(c);
    }
    if let Some(sets) = &d.toolsets {
        for (s, (_, tools)) in sets.iter().enumerate() {
            let mut c = d.clone();
            c.toolsets.as_mut().expect("has toolsets").remove(s);
            out.push(c);
            for i in 0..tools.len() {
                let mut c = d.clone();
                c.toolsets.as_mut().expect("has toolsets")[s].1.remove(i);
                out.push(c);
            }
        }
    }
    if let Some(client) = &d.client_tools {
        for i in 0..client.len() {
            let mut c = d.clone();
            c.client_tools.as_mut().expect("has clientTools").remove(i);
            out.push(c);
        }
    }
    // Later replies first: the end of a script is the part least likely to
    // matter.
    for i in (0..d.replies.len()).rev() {
        let mut c = d.clone();
        c.replies.truncate(i);
        out.push(c);
        let mut c = d.clone();
        c.replies.remove(i);
        out.push(c);
        if let Reply::ToolCalls(calls) = &d.replies[i] {
            for j in 0..calls.len() {
                if calls.len() > 1 {
                    let mut c = d.clone();
                    if let Reply::ToolCalls(cs) = &mut c.replies[i] {
                        cs.remove(j);
                    }
                    out.push(c);
                }
            }
        }
    }
    drop_source_items(d, out);
    if let Some(active) = &d.call.active_tools {
        for i in 0..active.len() {
            let mut c = d.clone();
            c.call
                .active_tools
                .as_mut()
                .expect("has activeTools")
                .remove(i);
            out.push(c);
        }
    }
}

/// Each candidate drops one sub-agent, workflow, MCP server or MCP tool.
fn drop_source_items(d: &Draft, out: &mut Vec<Draft>) {
    let src = &d.sources;
    for i in 0..src.agents.as_ref().map_or(0, Vec::len) {
        let mut c = d.clone();
        c.sources.agents.as_mut().expect("has agents").remove(i);
        out.push(c);
    }
    for i in 0..src.workflows.as_ref().map_or(0, Vec::len) {
        let mut c = d.clone();
        c.sources
            .workflows
            .as_mut()
            .expect("has workflows")
            .remove(i);
        out.push(c);
    }
    for (s, server) in src.mcp.iter().flatten().enumerate() {
        let mut c = d.clone();
        c.sources.mcp.as_mut().expect("has mcp").remove(s);
        out.push(c);
        for i in 0..server.tools.len() {
            let mut c = d.clone();
            c.sources.mcp.as_mut().expect("has mcp")[s].tools.remove(i);
            out.push(c);
        }
    }
}

fn plainer_forms(d: &Draft, out: &mut Vec<Draft>) {
    let plain = |t: &Tool| Tool::Standard(t.key().clone());
    let lists = tool_lists(d);
    for (l, len) in lists.into_iter().enumerate() {
        for i in 0..len {
            let mut c = d.clone();
            let t = &mut tool_lists_mut(&mut c)[l][i];
            if !matches!(t, Tool::Standard(_)) {
                *t = plain(t);
                out.push(c);
            }
        }
    }
    if matches!(d.call.tool_choice, Some(ToolChoice::Tool(_))) {
        let mut c = d.clone();
        c.call.tool_choice = Some(ToolChoice::Auto);
        out.push(c);
    }
    if d.sources.memory.is_some_and(|m| m.working_memory) {
        let mut c = d.clone();
        c.sources.memory = Some(MemorySource {
            working_memory: false,
        });
        out.push(c);
    }
    if let Some(n) = d.call.max_steps {
        for smaller in [1, n / 2, n.saturating_sub(1)] {
            if smaller >= 1 && smaller < n {
                let mut c = d.clone();
                c.call.max_steps = Some(smaller);
                out.push(c);
            }
        }
    }
    // Call ids numbered across the whole case, never per reply: an id used
    // twice in one run is one Mastra's message list merges, which the model
    // leaves unmodelled, so a shrink must not make one.
    let numbered = numbered_calls(&d.replies);
    if numbered != d.replies {
        let mut c = d.clone();
        c.replies = numbered;
        out.push(c);
    }
    let paris = Json::object([("city", Json::str("Paris"))]);
    for (i, r) in d.replies.iter().enumerate() {
        let plainer = match r {
            Reply::Error { status, body } if *status != 400 || body.is_some() => Reply::Error {
                status: 400,
                body: None,
            },
            Reply::Text(t) if *t != JsString::from("done") => Reply::Text(JsString::from("done")),
            Reply::ToolCalls(calls) => Reply::ToolCalls(
                calls
                    .iter()
                    .map(|c| ToolCallReply {
                        id: c.id.clone(),
                        name: c.name.clone(),
                        arguments: paris.clone(),
                    })
                    .collect(),
            ),
            _ => continue,
        };
        if plainer != *r {
            let mut c = d.clone();
            c.replies[i] = plainer;
            out.push(c);
        }
    }
}

/// `replies` with their calls' ids `call_1`, `call_2`, ... in order across
/// every reply, as the generator writes them.
fn numbered_calls(replies: &[Reply]) -> Vec<Reply> {
    let mut n = 0;
    replies
        .iter()
        .map(|r| match r {
            Reply::ToolCalls(calls) => Reply::ToolCalls(
                calls
                    .iter()
                    .map(|c| {
                        n += 1;
                        ToolCallReply {
                            id: JsString::from(format!("call_{n}")),
                            ..c.clone()
                        }
                    })
                    .collect(),
            ),
            other => other.clone(),
        })
        .collect()
}

/// The lengths of the draft's tool lists, in a fixed order.
fn tool_lists(d: &Draft) -> Vec<usize> {
    let mut out = vec![d.tools.len()];
    out.extend(d.toolsets.iter().flatten().map(|(_, t)| t.len()));
    out.extend(d.client_tools.iter().map(Vec::len));
    out
}

fn tool_lists_mut(d: &mut Draft) -> Vec<&mut Vec<Tool>> {
    let mut out = vec![&mut d.tools];
    out.extend(d.toolsets.iter_mut().flatten().map(|(_, t)| t));
    out.extend(d.client_tools.iter_mut());
    out
}

/// Every distinct string that names something: keys, toolset names, ids,
/// and the names options and calls use; longest first.
fn strings(d: &Draft) -> Vec<JsString> {
    let mut out: Vec<JsString> = Vec::new();
    let mut add = |s: &JsString| {
        if !out.contains(s) {
            out.push(s.clone());
        }
    };
    for t in d.all_tools() {
        add(t.key());
        if let Tool::Custom { id, .. } = t {
            add(id);
        }
    }
    for (name, _) in d.toolsets.iter().flatten() {
        add(name);
    }
    if let Some(ToolChoice::Tool(n)) = &d.call.tool_choice {
        add(n);
    }
    for n in d.call.active_tools.iter().flatten() {
        add(n);
    }
    for r in &d.replies {
        if let Reply::ToolCalls(calls) = r {
            for c in calls {
                add(&c.name);
            }
        }
    }
    let src = &d.sources;
    for k in src.agents.iter().chain(src.workflows.iter()).flatten() {
        add(k);
    }
    for server in src.mcp.iter().flatten() {
        add(&server.name);
        for t in &server.tools {
            add(t);
        }
    }
    out.sort_by_key(|s| std::cmp::Reverse(s.len()));
    out
}

/// `d` with every `from` written `to`, and every rewritten name of `from`
/// written as the rewritten name of `to`, so that a call or an option that
/// named the tool by its rewritten name still does.
pub fn rename(d: &Draft, from: &JsString, to: &JsString) -> Draft {
    let wire_from = wire_name(from).filter(|w| w != from);
    let wire_to = wire_name(to);
    map_strings(d, &|s: &JsString| {
        if s == from {
            to.clone()
        } else if wire_from.as_ref() == Some(s) {
            wire_to.clone().unwrap_or_else(|| to.clone())
        } else {
            s.clone()
        }
    })
}

/// `d` with `map` applied to every string that names something (those of
/// `strings`).
fn map_strings(d: &Draft, map: &dyn Fn(&JsString) -> JsString) -> Draft {
    let tool = |t: &Tool| match t {
        Tool::Standard(k) => Tool::Standard(map(k)),
        Tool::Custom {
            key,
            id,
            description,
        } => Tool::Custom {
            key: map(key),
            id: map(id),
            description: description.clone(),
        },
        Tool::Builtin { key, name } => Tool::Builtin {
            key: map(key),
            name: name.clone(),
        },
    };
    let mut c = d.clone();
    c.tools = d.tools.iter().map(tool).collect();
    c.toolsets = d.toolsets.as_ref().map(|sets| {
        sets.iter()
            .map(|(n, ts)| (map(n), ts.iter().map(tool).collect()))
            .collect()
    });
    c.client_tools = d
        .client_tools
        .as_ref()
        .map(|ts| ts.iter().map(tool).collect());
    if let Some(ToolChoice::Tool(n)) = &d.call.tool_choice {
        c.call.tool_choice = Some(ToolChoice::Tool(map(n)));
    }
    c.call.active_tools = d
        .call
        .active_tools
        .as_ref()
        .map(|a| a.iter().map(map).collect());
    for r in &mut c.replies {
        if let Reply::ToolCalls(calls) = r {
            for call in calls {
                call.name = map(&call.name);
            }
        }
    }
    let keys = |ks: &Option<Vec<JsString>>| ks.as_ref().map(|ks| ks.iter().map(map).collect());
    c.sources.agents = keys(&d.sources.agents);
    c.sources.workflows = keys(&d.sources.workflows);
    c.sources.mcp = d.sources.mcp.as_ref().map(|servers| {
        servers
            .iter()
            .map(|s| McpServer {
                name: map(&s.name),
                tools: s.tools.iter().map(map).collect(),
            })
            .collect()
    });
    c
}

/// A string split into characters: a surrogate pair is one, so that no
/// edit makes a lone surrogate the original did not have.
fn atoms(s: &JsString) -> Vec<Vec<u16>> {
    let units = s.units();
    let mut out = Vec::new();
    let mut i = 0;
    while i < units.len() {
        let pair = (0xD800..0xDC00).contains(&units[i])
            && units
                .get(i + 1)
                .is_some_and(|u| (0xDC00..=0xDFFF).contains(u));
        let n = if pair { 2 } else { 1 };
        out.push(units[i..i + n].to_vec());
        i += n;
    }
    out
}

fn join(atoms: &[Vec<u16>]) -> JsString {
    JsString::from_units(atoms.concat())
}

/// How plain one character is, from `a` up to a lone surrogate; the order
/// in which the shrinker prefers them.
pub fn plainness(atom: &[u16]) -> u8 {
    match atom {
        [0x61] => 0,
        [u] if u8::try_from(*u).is_ok_and(|b| b.is_ascii_alphabetic()) => 1,
        [u] if u8::try_from(*u).is_ok_and(|b| b.is_ascii_digit()) => 2,
        [0x5F] | [0x2D] => 3,
        [0x2E] => 4,
        [u] if (0x20..0x7F).contains(u) => 5,
        [u] if *u < 0x80 => 6,
        [u] if !is_surrogate(*u) => 7,
        [_, _] => 8,
        _ => 9,
    }
}

/// Characters of some levels, all made one plain character at once.
const BULK: [(&[u8], &[u16]); 7] = [
    (&[1, 2], &[0x61]),        // letters and digits: a
    (&[1], &[0x61]),           // letters: a
    (&[2], &[0x30]),           // digits: 0
    (&[5, 6], &[0x2E]),        // other ASCII: .
    (&[7], &[0xE9]),           // other BMP: é
    (&[8], &[0xD83D, 0xDE00]), // astral: 😀
    (&[9], &[0xD800]),         // lone surrogates: one of them
];

/// `s` with every character of `levels` written `plain`.
fn plainer_kind(s: &JsString, levels: &[u8], plain: &[u16]) -> JsString {
    let b: Vec<Vec<u16>> = atoms(s)
        .into_iter()
        .map(|c| {
            if levels.contains(&plainness(&c)) {
                plain.to_vec()
            } else {
                c
            }
        })
        .collect();
    join(&b)
}

/// One plain character of each level that has one.
const PLAIN: &[(u8, &str)] = &[(0, "a"), (2, "0"), (3, "_"), (4, "."), (7, "é"), (8, "😀")];

/// Shorter or plainer versions of `s`, the biggest change first.
pub fn smaller_strings(s: &JsString) -> Vec<JsString> {
    let mut out = shorter_strings(s);
    for p in plainer_strings(s) {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// Shorter versions of `s`: prefixes at the lengths where the rewrite's
/// rules change and halves, then chunks removed, largest first.
pub fn shorter_strings(s: &JsString) -> Vec<JsString> {
    let a = atoms(s);
    let n = a.len();
    let mut out: Vec<JsString> = Vec::new();
    let mut push = |c: JsString| {
        if c != *s && !out.contains(&c) {
            out.push(c);
        }
    };
    for keep in [1, 62, 63, 64, 65, n / 2] {
        if keep >= 1 && keep < n {
            push(join(&a[..keep]));
        }
    }
    let mut size = n / 2;
    while size >= 1 {
        let mut start = 0;
        while start + size <= n {
            let mut rest = a[..start].to_vec();
            rest.extend_from_slice(&a[start + size..]);
            if !rest.is_empty() {
                push(join(&rest));
            }
            start += size;
        }
        size /= 2;
    }
    out
}

/// Plainer versions of `s`: all characters of a kind at once, then one
/// character at a time (the first 64).
pub fn plainer_strings(s: &JsString) -> Vec<JsString> {
    let a = atoms(s);
    let mut out: Vec<JsString> = Vec::new();
    let mut push = |c: JsString| {
        if c != *s && !out.contains(&c) {
            out.push(c);
        }
    };
    for (levels, plain) in BULK {
        push(plainer_kind(s, levels, plain));
    }
    for i in 0..a.len().min(64) {
        let level = plainness(&a[i]);
        for (l, plain) in PLAIN {
            if *l < level {
                let mut b = a.clone();
                b[i] = plain.encode_utf16().collect();
                push(join(&b));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Call;

    fn js(s: &str) -> JsString {
        JsString::from(s)
    }

    /// A table test of the search alone: strings shrink to the smallest
    /// that keeps a property, whatever order the judge answers in.
    #[test]
    fn shrinks_strings_to_a_minimal_witness() {
        type Keeps = fn(&JsString) -> bool;
        let table: [(&str, Keeps, &str); 4] = [
            ("xx.yy.zz", |s| s.units().contains(&0x2E), "."),
            ("hello😀world", |s| s.to_lossy().contains('😀'), "😀"),
            ("abcdefgh", |s| s.len() >= 3, "aaa"),
            ("zzq", |s| s.units().contains(&u16::from(b'q')), "q"),
        ];
        for (start, keeps, want) in table {
            let mut items = vec![Shrinking::new(js(start), (), ())];
            let ended = shrink(
                &mut items,
                smaller_strings,
                |s| format!("{s:?}"),
                |batch| batch.iter().map(|s| keeps(s).then_some(((), ()))).collect(),
                Budget::default(),
                || false,
            );
            assert_eq!(ended, Ended::Minimal, "{start}");
            assert_eq!(items[0].current, js(want), "{start}");
        }
    }

    /// Signatures are kept: a candidate showing another divergence is not
    /// taken, even when it is smaller.
    #[test]
    fn another_signature_is_not_taken() {
        let mut items = vec![Shrinking::new(js("ab"), 'x', ())];
        shrink(
            &mut items,
            smaller_strings,
            |s| format!("{s:?}"),
            |batch| {
                batch
                    .iter()
                    .map(|s| Some((if s.len() == 1 { 'y' } else { 'x' }, ())))
                    .collect()
            },
            Budget::default(),
            || false,
        );
        assert_eq!(items[0].current.len(), 2);
    }

    #[test]
    fn several_items_share_each_batch() {
        let mut items = vec![
            Shrinking::new(js("aaaa.aaaa"), (), ()),
            Shrinking::new(js("bbbb😀bbbb"), (), ()),
        ];
        let mut batches = 0;
        shrink(
            &mut items,
            smaller_strings,
            |s| format!("{s:?}"),
            |batch| {
                batches += 1;
                batch
                    .iter()
                    .map(|s| {
                        let t = s.to_lossy();
                        let odd = t.contains('.') || t.chars().any(|c| c as u32 > 0xFFFF);
                        (s.len() < 9 && odd).then_some(((), ()))
                    })
                    .collect()
            },
            Budget::default(),
            || false,
        );
        assert_eq!(items[0].current, js("."));
        // The emoji itself gives way to a plainer character that still
        // keeps the property.
        assert_eq!(items[1].current, js("."));
        assert!(batches < 30, "{batches} batches");
    }

    #[test]
    fn the_budget_and_the_stop_are_kept() {
        let mut items = vec![Shrinking::new(js(&"x".repeat(200)), (), ())];
        let ended = shrink(
            &mut items,
            smaller_strings,
            |s| format!("{s:?}"),
            |batch| batch.iter().map(|_| Some(((), ()))).collect(),
            Budget {
                rounds: 2,
                chunk: 4,
                per_item: 100,
            },
            || false,
        );
        assert_eq!(ended, Ended::Budget);
        assert_eq!(items[0].steps, 2);
        let ended = shrink(
            &mut items,
            smaller_strings,
            |s| format!("{s:?}"),
            |_| unreachable!("stopped before any batch"),
            Budget::default(),
            || true,
        );
        assert_eq!(ended, Ended::Stopped);
    }

    #[test]
    fn plainness_orders_characters() {
        let order = ["a", "Q", "7", "_", ".", " ", "\0", "é", "😀"];
        for w in order.windows(2) {
            let (a, b): (Vec<u16>, Vec<u16>) =
                (w[0].encode_utf16().collect(), w[1].encode_utf16().collect());
            assert!(plainness(&a) < plainness(&b), "{w:?}");
        }
        assert_eq!(
            plainness(&[0xD800]),
            9,
            "a lone surrogate is the least plain"
        );
    }

    #[test]
    fn chunks_never_split_a_surrogate_pair() {
        for s in smaller_strings(&js("😀a😀")) {
            assert!(s.to_rust().is_some(), "{s:?}");
        }
    }

    #[test]
    fn call_ids_stay_distinct_across_replies() {
        let call = |id: &str| ToolCallReply {
            id: js(id),
            name: js("t"),
            arguments: Json::Object(Vec::new()),
        };
        let d = Draft {
            tools: vec![Tool::Standard(js("t"))],
            replies: vec![
                Reply::ToolCalls(vec![call("a"), call("call_9")]),
                Reply::Text(js("x")),
                Reply::ToolCalls(vec![call("b")]),
            ],
            ..Draft::default()
        };
        let ids = |c: &Draft| -> Vec<String> {
            c.replies
                .iter()
                .filter_map(|r| match r {
                    Reply::ToolCalls(calls) => Some(calls.iter().map(|c| c.id.to_lossy())),
                    _ => None,
                })
                .flatten()
                .collect()
        };
        let all = candidates(&d);
        assert!(all.iter().any(|c| ids(c) == ["call_1", "call_2", "call_3"]));
        for c in &all {
            let ids = ids(c);
            let distinct: std::collections::BTreeSet<_> = ids.iter().collect();
            assert_eq!(distinct.len(), ids.len(), "{ids:?}");
        }
    }

    #[test]
    fn renaming_follows_the_rewritten_name() {
        let d = Draft {
            tools: vec![Tool::Standard(js("a.b")), Tool::Standard(js("c"))],
            call: Call {
                method: Method::Generate,
                tool_choice: Some(ToolChoice::Tool(js("a.b"))),
                active_tools: Some(vec![js("a_b")]),
                max_steps: None,
            },
            replies: vec![Reply::ToolCalls(vec![ToolCallReply {
                id: js("call_1"),
                name: js("a_b"),
                arguments: Json::Object(Vec::new()),
            }])],
            ..Draft::default()
        };
        let r = rename(&d, &js("a.b"), &js("."));
        assert_eq!(r.tools[0], Tool::Standard(js(".")));
        assert_eq!(r.call.tool_choice, Some(ToolChoice::Tool(js("."))));
        assert_eq!(r.call.active_tools, Some(vec![js("_")]));
        let Reply::ToolCalls(calls) = &r.replies[0] else {
            panic!()
        };
        assert_eq!(calls[0].name, js("_"));
    }

    #[test]
    fn the_sources_shrink_too() {
        use crate::case::Sources;
        let d = Draft {
            tools: vec![Tool::Standard(js("t"))],
            sources: Sources {
                agents: Some(vec![js("a.b"), js("c")]),
                workflows: Some(vec![js("w")]),
                mcp: Some(vec![McpServer {
                    name: js("srv"),
                    tools: vec![js("x.y"), js("z")],
                }]),
                memory: Some(MemorySource {
                    working_memory: true,
                }),
                dynamic_tools: true,
            },
            ..Draft::default()
        };
        let cs = candidates(&d);
        let has = |f: &dyn Fn(&Sources) -> bool| cs.iter().any(|c| f(&c.sources));
        assert!(has(&|s| s.agents.is_none()), "sub-agents dropped");
        assert!(has(&|s| s.workflows.is_none()), "workflows dropped");
        assert!(has(&|s| s.mcp.is_none()), "MCP servers dropped");
        assert!(has(&|s| s.memory.is_none()), "memory dropped");
        assert!(has(&|s| !s.dynamic_tools), "plain tools object");
        assert!(
            has(&|s| s.agents.as_deref() == Some(&[js("c")][..])),
            "one sub-agent dropped"
        );
        assert!(
            has(&|s| s
                .mcp
                .as_ref()
                .and_then(|m| m.first())
                .is_some_and(|m| m.tools == [js("z")])),
            "one MCP tool dropped"
        );
        assert!(
            has(&|s| s.memory.is_some_and(|m| !m.working_memory)),
            "working memory off"
        );
        assert!(
            has(&|s| s
                .mcp
                .iter()
                .flatten()
                .flat_map(|m| m.tools.first())
                .any(|t| *t == js("x"))),
            "an MCP tool's name shortened"
        );
        assert!(
            has(&|s| s.agents.iter().flatten().any(|a| *a == js("a"))),
            "a sub-agent's key shortened"
        );
    }

    #[test]
    fn candidates_start_with_the_coarsest() {
        let d = super::super::gen::generate(1, 7);
        let cs = candidates(&d);
        assert!(!cs.is_empty());
        assert!(cs.iter().all(|c| c != &d));
    }
}
