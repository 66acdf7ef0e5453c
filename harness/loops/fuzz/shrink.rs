//! Shrinking: `shrink` (a pure, batched, greedy search over candidates) and
//! `candidates` (the simpler cases one step away from a case).
//!
//! `shrink` knows nothing of cases or probes: it takes the items being
//! shrunk, a function giving each one's candidates (simplest change first),
//! and a `judge` that answers a whole batch of candidates at once. The batch
//! is what makes it cheap on real probes: every round is one batch (one
//! `run_version`, one probe), holding the next few candidates of every item.
//! An item takes the first candidate, in its own order, that still shows
//! its signature (the same divergence, not merely any), and starts over from
//! it; it is done when no candidate does.

use crate::case::parts::{List, Visitor};
use crate::case::{Case, MemorySource, Reply, Tool, ToolCallReply, ToolChoice};
use crate::js::json::Json;
use crate::js::string::{is_surrogate, JsString};
use crate::naming::wire_name;
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
                // that also succeeded may be the best step from the one
                // taken too.
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
// Candidates of a case

/// The cases one simplification away from `c`, coarsest first: fields left
/// out, then single list elements dropped, then plainer values (each of
/// the three made on every part the case has, `Case::walk`), then shorter
/// names, then plainer code units.
pub fn candidates(c: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    for step in [Step::LeaveOut, Step::Remove, Step::Plainer] {
        out.extend(edits(c, step));
    }
    let names = names(c);
    for s in &names {
        for shorter in shorter_strings(s) {
            out.push(rename(c, s, &shorter));
        }
    }
    // Edits to every name at once keep what ties names together (a shared
    // prefix or suffix, one key's rewrite being another key): each name's
    // first half, last or first character dropped, then plainer
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
    out.push(map_names(c, cut(|n| 0..n.div_ceil(2))));
    out.push(map_names(c, cut(|n| 0..n - 1)));
    out.push(map_names(c, cut(|n| 1..n)));
    for (levels, plain) in BULK {
        out.push(map_names(c, |s: &JsString| plainer_kind(s, levels, plain)));
    }
    for s in &names {
        for plainer in plainer_strings(s) {
            out.push(rename(c, s, &plainer));
        }
    }
    out.retain(|x| x != c);
    out
}

/// The kinds of edit `Edits` makes, coarsest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// A field a file may leave out, left out.
    LeaveOut,
    /// One element of a list dropped (or, in a script, its tail cut).
    Remove,
    /// One value in a plainer form.
    Plainer,
}

/// Every edit of `step` that `c` allows, each made on its own copy, in
/// walk order.
fn edits(c: &Case, step: Step) -> Vec<Case> {
    let mut count = Edits {
        step,
        target: None,
        seen: 0,
    };
    c.clone().walk(&mut count);
    (0..count.seen)
        .map(|k| {
            let mut edited = c.clone();
            edited.walk(&mut Edits {
                step,
                target: Some(k),
                seen: 0,
            });
            edited
        })
        .collect()
}

/// A visitor that numbers the edits of one step, part by part, and makes
/// the one numbered `target` (none: it only counts them, in `seen`).
struct Edits {
    step: Step,
    target: Option<usize>,
    seen: usize,
}

impl Edits {
    /// The `n` edits of `step` one part offers; `make(i)` makes its i-th.
    fn offer(&mut self, step: Step, n: usize, make: impl FnOnce(usize)) {
        if step != self.step {
            return;
        }
        if let Some(i) = self.target.and_then(|t| t.checked_sub(self.seen)) {
            if i < n {
                make(i);
            }
        }
        self.seen += n;
    }

    /// Offer each of `plainer` in place of `value`.
    fn plainer<T: PartialEq>(&mut self, value: &mut T, mut plainer: Vec<T>) {
        plainer.retain(|p| p != value);
        self.offer(Step::Plainer, plainer.len(), |i| {
            *value = plainer.swap_remove(i)
        });
    }
}

impl Visitor for Edits {
    fn field<T: PartialEq>(&mut self, value: &mut T, absent: T) {
        if *value != absent {
            self.offer(Step::LeaveOut, 1, |_| *value = absent);
        }
    }

    fn list<T>(&mut self, list: &mut Vec<T>, kind: List) {
        let removals = removals(list.len(), kind);
        self.offer(Step::Remove, removals.len(), |i| match removals[i] {
            Removal::One(at) => {
                list.remove(at);
            }
            Removal::From(at) => list.truncate(at),
        });
    }

    fn tool(&mut self, tool: &mut Tool) {
        let plain = Tool::Standard(tool.key().clone());
        self.plainer(tool, vec![plain]);
    }

    fn tool_choice(&mut self, choice: &mut ToolChoice) {
        if matches!(choice, ToolChoice::Tool(_)) {
            self.plainer(choice, vec![ToolChoice::Auto]);
        }
    }

    fn max_steps(&mut self, steps: &mut u32) {
        let n = *steps;
        let mut smaller: Vec<u32> = Vec::new();
        for s in [1, n / 2, n.saturating_sub(1)] {
            if s >= 1 && s < n && !smaller.contains(&s) {
                smaller.push(s);
            }
        }
        self.plainer(steps, smaller);
    }

    fn memory(&mut self, memory: &mut MemorySource) {
        self.plainer(
            memory,
            vec![MemorySource {
                working_memory: false,
                in_memory: memory.in_memory,
            }],
        );
    }

    fn replies(&mut self, replies: &mut Vec<Reply>) {
        // Call ids numbered across the whole case, never per reply: an id
        // used twice in one run is one Mastra's message list merges, which
        // the model leaves unmodelled, so a shrink must not make one.
        let numbered = numbered_calls(replies);
        self.plainer(replies, vec![numbered]);
    }

    fn reply(&mut self, reply: &mut Reply) {
        let plainer = match reply {
            Reply::Error { .. } => Reply::default_reply(),
            Reply::Text(_) => Reply::Text(JsString::from("done")),
            Reply::ToolCalls(calls) => {
                let paris = Json::object([("city", Json::str("Paris"))]);
                Reply::ToolCalls(
                    calls
                        .iter()
                        .map(|c| ToolCallReply {
                            arguments: paris.clone(),
                            ..c.clone()
                        })
                        .collect(),
                )
            }
        };
        self.plainer(reply, vec![plainer]);
    }
}

/// One way a list may lose elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Removal {
    /// The element at this position.
    One(usize),
    /// Every element from this position on.
    From(usize),
}

/// The removals a list of `len` elements allows, in the order tried.
fn removals(len: usize, kind: List) -> Vec<Removal> {
    match kind {
        List::Set { min } if len > min => (0..len).map(Removal::One).collect(),
        List::Set { .. } => Vec::new(),
        // The end of a script is the part least likely to matter: later
        // steps first, the tail from each one cut, then the step alone.
        List::Script => (0..len)
            .rev()
            .flat_map(|i| {
                let tail = (i >= 1 && i + 1 < len).then_some(Removal::From(i));
                let one = (len > 1).then_some(Removal::One(i));
                tail.into_iter().chain(one)
            })
            .collect(),
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

/// Every distinct name of the case (`Visitor::name`), longest first.
fn names(c: &Case) -> Vec<JsString> {
    let mut out: Vec<JsString> = Vec::new();
    let mut collect = |s: &JsString| {
        if !out.contains(s) {
            out.push(s.clone());
        }
        s.clone()
    };
    map_names(c, &mut collect);
    out.sort_by_key(|s| std::cmp::Reverse(s.len()));
    out
}

/// `c` with every `from` written `to`, and every rewritten name of `from`
/// written as the rewritten name of `to`, so that a call or an option that
/// named the tool by its rewritten name still does.
pub fn rename(c: &Case, from: &JsString, to: &JsString) -> Case {
    let wire_from = wire_name(from).filter(|w| w != from);
    let wire_to = wire_name(to);
    map_names(c, |s: &JsString| {
        if s == from {
            to.clone()
        } else if wire_from.as_ref() == Some(s) {
            wire_to.clone().unwrap_or_else(|| to.clone())
        } else {
            s.clone()
        }
    })
}

/// `c` with `map` applied to every name.
fn map_names(c: &Case, map: impl FnMut(&JsString) -> JsString) -> Case {
    struct Names<F>(F);
    impl<F: FnMut(&JsString) -> JsString> Visitor for Names<F> {
        fn name(&mut self, name: &mut JsString) {
            *name = (self.0)(name);
        }
    }
    let mut mapped = c.clone();
    mapped.walk(&mut Names(map));
    mapped
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
    use crate::case::{Call, McpServer, Method};

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
        let case = Case {
            tools: vec![Tool::Standard(js("t"))],
            replies: vec![
                Reply::ToolCalls(vec![call("a"), call("call_9")]),
                Reply::Text(js("x")),
                Reply::ToolCalls(vec![call("b")]),
            ],
            ..Case::new("x.json", "x")
        };
        let ids = |c: &Case| -> Vec<String> {
            c.replies
                .iter()
                .filter_map(|r| match r {
                    Reply::ToolCalls(calls) => Some(calls.iter().map(|c| c.id.to_lossy())),
                    _ => None,
                })
                .flatten()
                .collect()
        };
        let all = candidates(&case);
        assert!(all.iter().any(|c| ids(c) == ["call_1", "call_2", "call_3"]));
        for c in &all {
            let ids = ids(c);
            let distinct: std::collections::BTreeSet<_> = ids.iter().collect();
            assert_eq!(distinct.len(), ids.len(), "{ids:?}");
        }
    }

    #[test]
    fn renaming_follows_the_rewritten_name() {
        let case = Case {
            tools: vec![Tool::Standard(js("a.b")), Tool::Standard(js("c"))],
            call: Call {
                method: Method::Generate,
                tool_choice: Some(ToolChoice::Tool(js("a.b"))),
                active_tools: Some(vec![js("a_b")]),
                max_steps: None,
                require_tool_approval: None,
                stop_when: None,
                prompt: None,
            },
            replies: vec![Reply::ToolCalls(vec![ToolCallReply {
                id: js("call_1"),
                name: js("a_b"),
                arguments: Json::Object(Vec::new()),
            }])],
            ..Case::new("x.json", "x")
        };
        let r = rename(&case, &js("a.b"), &js("."));
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
        let case = Case {
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
                    in_memory: false,
                }),
                dynamic_tools: true,
                ..Sources::default()
            },
            ..Case::new("x.json", "x")
        };
        let cs = candidates(&case);
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

    /// A script loses its later replies first, and never becomes empty:
    /// leaving `replies` out is its plainest form.
    #[test]
    fn replies_shrink_from_the_end_and_never_to_an_empty_script() {
        let text = |s: &str| Reply::Text(js(s));
        let case = Case {
            replies: vec![text("a"), text("b"), text("c")],
            ..Case::new("x.json", "x")
        };
        let scripts: Vec<Vec<Reply>> = candidates(&case).into_iter().map(|c| c.replies).collect();
        assert_eq!(
            scripts[0],
            [Reply::default_reply()],
            "the field left out first"
        );
        assert_eq!(
            scripts[1..5],
            [
                vec![text("a"), text("b")],
                vec![text("a")],
                vec![text("a"), text("c")],
                vec![text("b"), text("c")],
            ],
            "then the tail, later replies first"
        );
        assert!(scripts.iter().all(|s| !s.is_empty()));
        assert_eq!(removals(1, List::Script), [], "one reply stays");
        assert_eq!(removals(1, List::Set { min: 1 }), [], "one call stays");
    }

    #[test]
    fn candidates_start_with_the_coarsest() {
        let case = super::super::gen::generate(1, 7);
        let cs = candidates(&case);
        assert!(!cs.is_empty());
        assert!(cs.iter().all(|c| c != &case));
        let given = |c: &Case| c.to_json().members().map_or(0, |m| m.len());
        assert!(given(&cs[0]) < given(&case), "a field left out first");
    }
}
