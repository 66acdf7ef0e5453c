//! Fuzzing power, tested without Node: a copy of the model's naming layer
//! with one planted defect predicts, the model itself is the observed side,
//! and the fuzzer must find each defect and shrink it to the case that
//! shows it, within a small budget.
//!
//! The copy is of the part of the model the defects live in: building the
//! three tools objects, Mastra's merge, and `formatTools` (ECMA-262 key
//! order, the `__proto__` setter, lookups through `Object.prototype`, the
//! rewrite and its cut). Where the defect makes no difference, the copy
//! without it and the copy with it name the same tools, and the mutant
//! predicts exactly what the model does. Where it does, the copy's naming is
//! grafted onto the model's prediction. `the_copy_agrees_with_the_model`
//! checks the copy against the model itself.

use super::{fuzz_version, FoundDivergence, FuzzSettings, GeneratedCase, Oracle};
use crate::case::{Case, Method, Reply, Tool};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::judge::case_result::CaseResult;
use crate::judge::compare::{compare, Verdict};
use crate::model::record::is_inherited_name;
use crate::model::rewrite::wire_name;
use crate::model::{predict, Prediction};
use crate::observation::Observed;
use crate::projection::{ErrorView, HistoryItem, Projection, RequestView, Seen};
use crate::results::VersionStats;
use crate::version::spec::MastraVersion;
use std::sync::OnceLock;

/// What is planted in the copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Defect {
    None,
    /// Lengths, replacements and the cut count code points, not UTF-16
    /// code units (as if the regexes had the `u` flag).
    CodePoints,
    /// Forgets that `tools[name]` sees `Object.prototype`: no false
    /// collisions.
    ForgetsInherited,
    /// Keeps keys in insertion order: array-index keys are not listed
    /// first.
    NoIndexOrder,
    /// Cuts at 64, where providers allow 64, instead of 63.
    CutAt64,
    /// Writes the results of a step with several calls back in reverse
    /// order (as if concurrent runs were written as they finished).
    ResultsReversed,
    /// Names the tool in a validation report by the name it is sent under
    /// (the rewritten key), not by its key before `formatTools`.
    ReportNamesSentName,
    /// Names a stream chunk's tool by its key, where Mastra hands the user's
    /// code the name the tool is sent under.
    ChunkNamedByKey,
    /// Asks an approval policy with the tool's key, where Mastra asks it
    /// with the name the tool is sent under.
    PolicyAskedWithKey,
    /// Asks an approval policy with the tool's sent name when the model
    /// called it by its id, where Mastra (from 1.38.0) asks with the id.
    PolicyAskedWithSentNameForId,
    /// Names a tool's span by the name it is sent under, where tracing
    /// names it by its key.
    SpanNamedBySentName,
    /// Sends a call of no tool back in the history under the name it was
    /// called by, where the sanitiser (from 1.9.0) writes `unknown_tool`.
    HistoryNameUnsanitised,
    /// Sends the tools `toolSearch` loaded through the rewrite
    /// (`search_web`), as if the processor's tools were formatted with the
    /// agent's, where Mastra sends them by the name they were loaded by.
    LoadedToolsRewritten,
}

/// A plain object's own keys (values do not decide names).
struct Obj {
    keys: Vec<JsString>,
    defect: Defect,
}

impl Obj {
    fn new(defect: Defect) -> Obj {
        Obj {
            keys: Vec::new(),
            defect,
        }
    }

    /// `Object.fromEntries`: CreateDataProperty for each key.
    fn from_keys<'a>(keys: impl IntoIterator<Item = &'a JsString>, defect: Defect) -> Obj {
        let mut o = Obj::new(defect);
        for k in keys {
            o.define(k.clone());
        }
        o
    }

    fn define(&mut self, key: JsString) {
        if !self.keys.contains(&key) {
            self.keys.push(key);
        }
    }

    /// `obj[key] = v`: `__proto__` runs the inherited setter.
    fn assign(&mut self, key: JsString) {
        if key == JsString::from("__proto__") && !self.keys.contains(&key) {
            return;
        }
        self.define(key);
    }

    /// `Object.keys`.
    fn ordered(&self) -> Vec<JsString> {
        if self.defect == Defect::NoIndexOrder {
            return self.keys.clone();
        }
        let mut indices: Vec<&JsString> = self
            .keys
            .iter()
            .filter(|k| k.array_index().is_some())
            .collect();
        indices.sort_by_key(|k| k.array_index());
        let rest = self.keys.iter().filter(|k| k.array_index().is_none());
        indices.into_iter().chain(rest).cloned().collect()
    }

    /// Whether `obj[key]` is truthy.
    fn truthy(&self, key: &JsString) -> bool {
        self.keys.contains(key)
            || (self.defect != Defect::ForgetsInherited && is_inherited_name(key))
    }
}

fn allowed(u: u16) -> bool {
    matches!(u, 0x30..=0x39 | 0x41..=0x5A | 0x61..=0x7A | 0x5F | 0x2D)
}

fn starting(u: u16) -> bool {
    matches!(u, 0x41..=0x5A | 0x61..=0x7A | 0x5F)
}

/// `formatTools`' rewrite of one key: `Ok(None)` kept, `Err(())` the empty
/// key's TypeError.
fn rewrite(key: &JsString, defect: Defect) -> Result<Option<JsString>, ()> {
    // The characters as the regexes see them.
    let chars: Vec<Vec<u16>> = if defect == Defect::CodePoints {
        char::decode_utf16(key.units().iter().copied())
            .map(|c| match c {
                Ok(c) => c.encode_utf16(&mut [0; 2]).to_vec(),
                Err(e) => vec![e.unpaired_surrogate()],
            })
            .collect()
    } else {
        key.units().iter().map(|&u| vec![u]).collect()
    };
    let max = if defect == Defect::CutAt64 { 64 } else { 63 };
    let ok = |c: &Vec<u16>| c.len() == 1 && allowed(c[0]);
    let needs = chars.len() > max || !chars.iter().all(ok) || {
        let first = chars.first().ok_or(())?;
        !(first.len() == 1 && starting(first[0]))
    };
    if !needs {
        return Ok(None);
    }
    let mut name: Vec<Vec<u16>> = chars
        .iter()
        .map(|c| if ok(c) { c.clone() } else { vec![0x5F] })
        .collect();
    if !starting(name[0][0]) {
        name.insert(0, vec![0x5F]);
    }
    name.truncate(max);
    Ok(Some(JsString::from_units(name.concat())))
}

/// Why the copy's `formatTools` threw.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Thrown {
    Collision(JsString),
    EmptyKey,
}

/// The names the copy sends, in order, or what it throws.
fn naming(case: &Case, defect: Defect) -> Result<Vec<JsString>, Thrown> {
    let keys = |tools: &[Tool]| Obj::from_keys(tools.iter().map(Tool::key), defect).ordered();
    let mut agent = Obj::new(defect);
    for k in keys(&case.tools) {
        agent.assign(k);
    }
    let mut toolset_tools = Obj::new(defect);
    if let Some(sets) = &case.toolsets {
        let names = Obj::from_keys(sets.iter().map(|(n, _)| n), defect).ordered();
        for name in names {
            // The last toolset of a repeated name is the one JSON.parse kept.
            let (_, list) = sets
                .iter()
                .rev()
                .find(|(n, _)| *n == name)
                .expect("named above");
            for k in keys(list) {
                toolset_tools.assign(k);
            }
        }
    }
    let mut client = Obj::new(defect);
    for k in keys(case.client_tools.as_deref().unwrap_or_default()) {
        client.assign(k);
    }
    // A workspace's read tool, under the name given, after the others (as
    // from 1.9.0).
    let mut workspace = Obj::new(defect);
    if let Some(w) = &case.workspace {
        let own = || JsString::from("mastra_workspace_read_file");
        workspace.assign(w.name.clone().unwrap_or_else(own));
    }
    let mut all = Obj::new(defect);
    for part in [&agent, &toolset_tools, &client, &workspace] {
        for k in part.ordered() {
            all.define(k);
        }
    }
    for key in all.ordered() {
        if !all.keys.contains(&key) {
            continue;
        }
        let Some(name) = rewrite(&key, defect).map_err(|()| Thrown::EmptyKey)? else {
            continue;
        };
        if all.truthy(&name) {
            return Err(Thrown::Collision(name));
        }
        all.assign(name);
        all.keys.retain(|k| *k != key);
    }
    Ok(all.ordered())
}

/// PREDICTION with PLANT applied to each projection it holds.
fn in_each(prediction: Prediction, plant: impl Fn(&mut Projection)) -> Prediction {
    match prediction {
        Prediction::Projection(mut p) => {
            plant(&mut p);
            Prediction::Projection(p)
        }
        Prediction::Races(mut ps) => {
            ps.iter_mut().for_each(plant);
            Prediction::Races(ps)
        }
        Prediction::Dropping(mut p) => {
            plant(&mut p);
            Prediction::Dropping(p)
        }
        other => other,
    }
}

/// The mutant's prediction: the model's, unless the planted defect changes
/// the naming; then the copy's naming in its place.
fn mutant_predict(case: &Case, real: Prediction, defect: Defect) -> Prediction {
    if matches!(
        defect,
        Defect::ChunkNamedByKey
            | Defect::PolicyAskedWithKey
            | Defect::PolicyAskedWithSentNameForId
            | Defect::SpanNamedBySentName
            | Defect::HistoryNameUnsanitised
    ) {
        return in_each(real, |p| plant_in_seen(p, case, defect));
    }
    if matches!(
        defect,
        Defect::ResultsReversed | Defect::ReportNamesSentName | Defect::LoadedToolsRewritten
    ) {
        return in_each(real, |p| plant_in_history(p, defect));
    }
    let planted = naming(case, defect);
    if planted == naming(case, Defect::None) {
        return real;
    }
    let Prediction::Projection(mut p) = real else {
        return real;
    };
    match planted {
        Err(thrown) => {
            let message = match &thrown {
                Thrown::Collision(name) => {
                    let mut m = JsString::from("Two or more tools resolve to the same name \"");
                    m = m.concat(name);
                    m.push_str("\". Please rename one of the tools to avoid this collision.");
                    m
                }
                Thrown::EmptyKey => {
                    JsString::from("Cannot read properties of undefined (reading 'match')")
                }
            };
            let id = match case.call.method {
                Method::Generate => "AGENT_GENERATE_FAILED",
                Method::Stream => "AGENT_STREAM_FAILED",
            };
            p.error = Some(ErrorView {
                id: Some(JsString::from(id)),
                message,
                cause_code: matches!(thrown, Thrown::Collision(_))
                    .then(|| JsString::from("AGENT_TOOL_NAME_COLLISION")),
            });
            p.requests.clear();
            p.executed.clear();
        }
        Ok(names) => {
            let tools = (!names.is_empty()).then_some(names);
            if p.requests.is_empty() {
                p.error = None;
                p.requests.push(RequestView {
                    tools: tools.clone(),
                    tool_choice: Some(Json::str("auto")),
                    history: Vec::new(),
                });
            }
            for r in &mut p.requests {
                r.tools = tools.clone();
            }
        }
    }
    Prediction::Projection(p)
}

/// The defects of the loop, planted in the history the model predicts:
/// each request's results reversed where several follow each other, or
/// each validation report naming the tool by its sent name.
fn plant_in_history(p: &mut Projection, defect: Defect) {
    for r in &mut p.requests {
        match defect {
            Defect::ResultsReversed => {
                let mut i = 0;
                while i < r.history.len() {
                    let start = i;
                    while r
                        .history
                        .get(i)
                        .is_some_and(|h| matches!(h, HistoryItem::Result { .. }))
                    {
                        i += 1;
                    }
                    r.history[start..i].reverse();
                    i = i.max(start + 1);
                }
            }
            Defect::ReportNamesSentName => {
                for h in &mut r.history {
                    if let HistoryItem::Result { content, .. } = h {
                        name_report_by_sent_name(content);
                    }
                }
            }
            // Every other name of `tools` is the rewrite's already.
            Defect::LoadedToolsRewritten => {
                for name in r.tools.iter_mut().flatten() {
                    if let Some(wire) = wire_name(name) {
                        *name = wire;
                    }
                }
            }
            _ => {}
        }
    }
}

/// The defects of what the user's code is handed, planted in the `seen`
/// the model predicts (each turn's too): every name that is the sent name
/// of a key Mastra rewrites becomes that key, in the stream's chunks or in
/// what the approval policy was asked.
fn plant_in_seen(p: &mut Projection, case: &Case, defect: Defect) {
    let renamed: Vec<(Json, Json)> = case
        .all_tools()
        .filter_map(|t| {
            let sent = wire_name(t.key())?;
            (sent != *t.key()).then(|| (Json::String(sent), Json::String(t.key().clone())))
        })
        .collect();
    let rename = |name: &mut Json| {
        if let Some((_, key)) = renamed.iter().find(|(sent, _)| sent == name) {
            *name = key.clone();
        }
    };
    let by_id: Vec<(Json, Json)> = case
        .all_tools()
        .filter_map(|t| {
            let sent = wire_name(t.key())?;
            let id = t.id();
            (id != sent).then_some((Json::String(id), Json::String(sent)))
        })
        .collect();
    let id_to_sent = |name: &mut Json| {
        if let Some((_, sent)) = by_id.iter().find(|(id, _)| id == name) {
            *name = sent.clone();
        }
    };
    let to_sent = |name: &mut Json| {
        if let Some((sent, _)) = renamed.iter().find(|(_, key)| key == name) {
            *name = sent.clone();
        }
    };
    let in_seen = |seen: &mut Seen| match defect {
        Defect::ChunkNamedByKey => seen.stream.iter_mut().for_each(|(_, n)| rename(n)),
        Defect::PolicyAskedWithKey => seen.asked.iter_mut().for_each(rename),
        Defect::PolicyAskedWithSentNameForId => seen.asked.iter_mut().for_each(id_to_sent),
        Defect::SpanNamedBySentName => {
            for span in seen.spans.iter_mut().flatten() {
                to_sent(&mut span.entity_name);
                to_sent(&mut span.entity_id);
            }
        }
        _ => {}
    };
    if defect == Defect::HistoryNameUnsanitised {
        unsanitise(p, case);
    }
    if let Some(seen) = p.seen.as_deref_mut() {
        in_seen(seen);
    }
    for turn in p.turns.iter_mut().flatten() {
        if let Some(seen) = turn.seen.as_deref_mut() {
            in_seen(seen);
        }
    }
}

/// Each `unknown_tool` in a history back to the name the reply called: the
/// history's calls are the replies' calls in order, the turns' included.
fn unsanitise(p: &mut Projection, case: &Case) {
    let called: Vec<JsString> = case
        .replies
        .iter()
        .filter_map(|r| match r {
            Reply::ToolCalls(calls) => Some(calls.iter().map(|c| c.name.clone())),
            _ => None,
        })
        .flatten()
        .collect();
    let unknown = JsString::from("unknown_tool");
    let mut requests: Vec<&mut RequestView> = p.requests.iter_mut().collect();
    for turn in p.turns.iter_mut().flatten() {
        requests.extend(turn.requests.iter_mut());
    }
    for r in requests {
        let calls = r.history.iter_mut().filter_map(|h| match h {
            HistoryItem::Call(name) => Some(name),
            _ => None,
        });
        for (name, was) in calls.zip(&called) {
            if *name == unknown && *was != unknown {
                *name = was.clone();
            }
        }
    }
}

const REPORT_HEAD: &str = "Tool input validation failed for ";
const REPORT_AFTER_NAME: &str = ". Please fix the following errors";

/// A validation report (its JSON text, or the object on Gemini's route)
/// with the key it names replaced by the name the key is sent under.
fn name_report_by_sent_name(content: &mut Json) {
    let renamed = |message: &JsString| -> Option<JsString> {
        let text = message.to_rust()?;
        let rest = text.strip_prefix(REPORT_HEAD)?;
        let end = rest.find(REPORT_AFTER_NAME)?;
        let sent = wire_name(&JsString::from(&rest[..end]))?;
        let mut m = JsString::from(REPORT_HEAD);
        m = m.concat(&sent);
        m.push_str(&rest[end..]);
        Some(m)
    };
    let in_report = |report: &mut Json| -> bool {
        let Json::Object(members) = report else {
            return false;
        };
        for (k, v) in members.iter_mut() {
            if *k == JsString::from("message") {
                if let Json::String(m) = v {
                    if let Some(n) = renamed(m) {
                        *m = n;
                        return true;
                    }
                }
            }
        }
        false
    };
    crate::projection::edit_result_content(content, in_report);
}

/// The model observes; the mutant predicts.
struct MutantOracle {
    defect: Defect,
}

impl Oracle for MutantOracle {
    fn run(
        &mut self,
        version: MastraVersion,
        cases: &[Case],
        on_result: &mut dyn FnMut(CaseResult),
    ) -> VersionStats {
        for (index, case) in cases.iter().enumerate() {
            // The model's prediction is both the truth and what the mutant
            // plants its defect in: made once, it is half the oracle's work.
            let real = predict(case, version);
            let predicted = mutant_predict(case, real.clone(), self.defect);
            let truth = match real {
                // The mutant observes the first order the model follows.
                Prediction::Races(mut ps) => Prediction::Projection(ps.remove(0)),
                // The mutant's stream is whole.
                Prediction::Dropping(p) => Prediction::Projection(p),
                other => other,
            };
            let (verdict, observed) = match truth {
                Prediction::Races(_) | Prediction::Dropping(_) => {
                    unreachable!("made one projection above")
                }
                Prediction::Projection(projection) => {
                    let observed = Observed::Ran {
                        projection,
                        bodies: Vec::new(),
                    };
                    (compare(&predicted, &observed), observed)
                }
                Prediction::Unmodelled(why) => (Verdict::Unmodelled, Observed::ProbeFault(why)),
            };
            on_result(CaseResult {
                index,
                case: case.name(),
                route: case.route,
                version,
                verdict,
                predicted,
                observed,
                findings: Default::default(),
            });
        }
        VersionStats {
            cases: cases.len(),
            ..VersionStats::default()
        }
    }
}

const V1_67: MastraVersion = MastraVersion::new(1, 67, 0);

/// The budget the power tests allow: a few hundred generated cases, and
/// the ordinary shrink budget.
const CASES: u64 = 400;

/// Cases `0..count` of `seed` without their other tool sources: the copy
/// covers the three tools objects, where the planted defects live.
fn generate(seed: u64, count: u64) -> Vec<GeneratedCase> {
    super::generate(seed, count)
        .into_iter()
        .map(|mut g| {
            g.case.sources = Default::default();
            g
        })
        .collect()
}

/// Cases `0..count` (at most `LOOP_CASES`) of seed 1 or 2, the seeds the
/// power tests fuzz, generated once for all of them: each case reads its
/// own stream, so a shorter budget is a prefix of the longer one.
fn shared(seed: u64, count: u64) -> &'static [GeneratedCase] {
    static SEEDS: [OnceLock<Vec<GeneratedCase>>; 2] = [OnceLock::new(), OnceLock::new()];
    assert!(matches!(seed, 1 | 2) && count <= LOOP_CASES);
    let cell = &SEEDS[usize::from(seed == 2)];
    &cell.get_or_init(|| generate(seed, LOOP_CASES))[..count as usize]
}

fn fuzz(defect: Defect, seed: u64) -> Vec<FoundDivergence> {
    let run = fuzz_version(
        &mut MutantOracle { defect },
        V1_67,
        &FuzzSettings::new(seed),
        &[],
        shared(seed, CASES),
        false,
        &(),
    );
    run.found
}

/// Every key, toolset name included.
fn keys(c: &Case) -> Vec<JsString> {
    let mut out: Vec<JsString> = c.all_tools().map(|t| t.key().clone()).collect();
    out.extend(c.toolsets.iter().flatten().map(|(n, _)| n.clone()));
    out
}

/// Found, fully shrunk, and small: at most `tools` tools, no scripted
/// replies, no call options; and `shows` holds of the shrunk case.
fn assert_found_and_shrunk(defect: Defect, tools: usize, shows: impl Fn(&Case) -> bool) {
    for seed in [1, 2] {
        let found = fuzz(defect, seed);
        assert!(
            !found.is_empty(),
            "{defect:?}: nothing found in {CASES} cases of seed {seed}"
        );
        for f in &found {
            let c = &f.shrunk;
            let shown = c.to_json().to_pretty();
            assert_eq!(
                f.how,
                super::shrink::Ended::Minimal,
                "{defect:?}: not fully shrunk:\n{shown}"
            );
            assert_eq!(f.result.verdict, Verdict::Diverged, "{defect:?}");
            assert!(
                c.all_tools().count() <= tools,
                "{defect:?}: too many tools left:\n{shown}"
            );
            assert_eq!(
                c.replies,
                [Reply::default_reply()],
                "{defect:?}: replies left:\n{shown}"
            );
            assert!(
                c.call.tool_choice.is_none()
                    && c.call.active_tools.is_none()
                    && c.call.max_steps.is_none(),
                "{defect:?}: options left:\n{shown}"
            );
            assert!(
                shows(c),
                "{defect:?}: the shrunk case does not show the defect:\n{shown}"
            );
        }
    }
}

#[test]
fn finds_and_shrinks_counting_code_points() {
    // One astral character: two code units, two underscores; one code
    // point would be one.
    assert_found_and_shrunk(Defect::CodePoints, 2, |c| {
        keys(c)
            .iter()
            .any(|k| k.len() == 2 && k.to_rust().is_some_and(|s| s.chars().count() == 1))
    });
}

#[test]
fn finds_and_shrinks_forgetting_inherited_names() {
    // A key that rewrites onto a name of Object.prototype (`__proto_.`).
    assert_found_and_shrunk(Defect::ForgetsInherited, 2, |c| {
        keys(c)
            .iter()
            .any(|k| !is_inherited_name(k) && wire_name(k).is_some_and(|w| is_inherited_name(&w)))
    });
}

#[test]
fn finds_and_shrinks_forgetting_array_index_order() {
    // The order shows only where two keys are renamed: each rename appends
    // its name, so `Object.keys`' order of the renamed keys is the order
    // sent. Beside the index (renamed for its digit), the other is any
    // renamed key: a short one with a character to rewrite, or, since the
    // shrinker makes characters plainer toward `a` rather than toward `.`,
    // a run of 64 `a`s that the cut renames.
    assert_found_and_shrunk(Defect::NoIndexOrder, 3, |c| {
        let ks = keys(c);
        let renamed = |k: &JsString| wire_name(k).is_some_and(|w| w != *k);
        ks.iter().any(|k| k.array_index().is_some())
            && ks.iter().filter(|k| renamed(k)).count() >= 2
            && ks.iter().all(|k| k.len() <= 2 || k.len() == 64)
    });
}

#[test]
fn finds_and_shrinks_cutting_at_64() {
    // 64 units, or 63 with the `_` prefix a digit first adds.
    // Alone, or with the 63-unit key its cut collides with.
    assert_found_and_shrunk(Defect::CutAt64, 2, |c| {
        keys(c).iter().any(|k| k.len() == 63 || k.len() == 64)
    });
}

/// The budget of the defects of the loop: they need a step with several
/// calls, or rejected arguments of a key that is rewritten.
const LOOP_CASES: u64 = 2000;

/// Found within `LOOP_CASES`, fully shrunk, diverged, with at most `tools`
/// tools and `replies` replies left; and `shows` holds of the shrunk case.
fn assert_loop_defect_found_and_shrunk(
    defect: Defect,
    tools: usize,
    replies: usize,
    shows: impl Fn(&Case) -> bool,
) {
    for seed in [1, 2] {
        let run = fuzz_version(
            &mut MutantOracle { defect },
            V1_67,
            &FuzzSettings::new(seed),
            &[],
            shared(seed, LOOP_CASES),
            false,
            &(),
        );
        assert!(
            !run.found.is_empty(),
            "{defect:?}: nothing found in {LOOP_CASES} cases of seed {seed}"
        );
        for f in &run.found {
            let c = &f.shrunk;
            let shown = c.to_json().to_pretty();
            assert_eq!(
                f.how,
                super::shrink::Ended::Minimal,
                "{defect:?}: not fully shrunk:\n{shown}"
            );
            assert_eq!(f.result.verdict, Verdict::Diverged, "{defect:?}");
            assert!(
                c.all_tools().count() <= tools && c.replies.len() <= replies,
                "{defect:?}: too much left:\n{shown}"
            );
            assert!(
                shows(c),
                "{defect:?}: the shrunk case does not show the defect:\n{shown}"
            );
        }
    }
}

fn calls(c: &Case) -> impl Iterator<Item = &[crate::case::ToolCallReply]> {
    c.replies.iter().filter_map(|r| match r {
        Reply::ToolCalls(calls) => Some(calls.as_slice()),
        _ => None,
    })
}

#[test]
fn finds_and_shrinks_results_written_in_reverse() {
    // One step with two calls whose results differ, and the request after
    // it that carries them back.
    assert_loop_defect_found_and_shrunk(Defect::ResultsReversed, 2, 2, |c| {
        calls(c).any(|step| step.len() == 2)
    });
}

#[test]
fn finds_and_shrinks_a_report_naming_the_sent_name() {
    // A call the validator rejects, of a tool whose key is rewritten.
    assert_loop_defect_found_and_shrunk(Defect::ReportNamesSentName, 2, 2, |c| {
        keys(c)
            .iter()
            .any(|k| wire_name(k).is_some_and(|w| w != *k))
            && calls(c).any(|step| !step.is_empty())
    });
}

#[test]
fn finds_and_shrinks_loaded_tools_sent_through_the_rewrite() {
    // A processor over a tool whose key or id is rewritten, a load_tool
    // call that loads it, and the request after it that offers it.
    assert_loop_defect_found_and_shrunk(Defect::LoadedToolsRewritten, 1, 2, |c| {
        let behind = c.tool_search.iter().flat_map(|s| s.tools.iter());
        behind
            .flat_map(|t| [t.key().clone(), t.id()])
            .any(|n| wire_name(&n).is_some_and(|w| w != n))
            && calls(c).any(|step| {
                step.iter()
                    .any(|call| call.name == JsString::from("load_tool"))
            })
    });
}

/// Whether the case streams, in its call or in any of its turns.
fn streams(c: &Case) -> bool {
    c.call.method == Method::Stream || c.turns.iter().flatten().any(|t| t.method == Method::Stream)
}

fn has_rewritten_key(c: &Case) -> bool {
    keys(c)
        .iter()
        .any(|k| wire_name(k).is_some_and(|w| w != *k))
}

#[test]
fn finds_and_shrinks_a_stream_chunk_named_by_the_key() {
    // A streamed call of a tool whose key is rewritten. Seed 2 shrinks to
    // a streamed third turn, whose reply is the third: the shrinker keeps
    // a case's turns, and the replies the turns before it take.
    assert_loop_defect_found_and_shrunk(Defect::ChunkNamedByKey, 2, 3, |c| {
        has_rewritten_key(c) && streams(c) && calls(c).any(|step| !step.is_empty())
    });
}

#[test]
fn finds_and_shrinks_a_policy_asked_with_the_key() {
    // A policy function asked for a call of a tool whose key is rewritten.
    assert_loop_defect_found_and_shrunk(Defect::PolicyAskedWithKey, 2, 2, |c| {
        has_rewritten_key(c) && calls(c).any(|step| !step.is_empty())
    });
}

#[test]
fn finds_and_shrinks_a_policy_asked_with_the_sent_name_for_a_call_by_id() {
    // A call by a tool's id, under a policy function.
    assert_loop_defect_found_and_shrunk(Defect::PolicyAskedWithSentNameForId, 2, 3, |c| {
        c.all_tools()
            .map(Tool::id)
            .any(|id| calls(c).flatten().any(|call| call.name == id))
    });
}

#[test]
fn finds_and_shrinks_a_span_named_by_the_sent_name() {
    // A traced call of a tool whose key is rewritten.
    assert_loop_defect_found_and_shrunk(Defect::SpanNamedBySentName, 2, 3, |c| {
        has_rewritten_key(c) && c.tracing && calls(c).any(|step| !step.is_empty())
    });
}

#[test]
fn finds_and_shrinks_a_history_name_left_unsanitised() {
    // A call of a name no tool has, sent back in a later request.
    assert_loop_defect_found_and_shrunk(Defect::HistoryNameUnsanitised, 2, 3, |c| {
        calls(c).flatten().any(|call| {
            c.all_tools()
                .all(|t| wire_name(t.key()).is_none_or(|w| w != call.name))
        })
    });
}

#[test]
fn without_a_defect_nothing_is_found() {
    assert!(fuzz(Defect::None, 1).is_empty());
    // Nor in the budget the defects of the loop are given.
    let run = fuzz_version(
        &mut MutantOracle {
            defect: Defect::None,
        },
        V1_67,
        &FuzzSettings::new(1),
        &[],
        shared(1, LOOP_CASES),
        false,
        &(),
    );
    assert!(run.found.is_empty());
}

/// The copy is faithful: its names are the model's, and it throws where the
/// model predicts a throw.
#[test]
fn the_copy_agrees_with_the_model() {
    let mut compared = 0;
    for g in generate(11, 3000) {
        // The copy is of `formatTools`: a `toolSearch` processor's record
        // (its own two tools first, what it loaded unrewritten) is not.
        if g.case.tool_search.is_some() {
            continue;
        }
        // Nor a network's requests (no tools) or Code Mode's record (its
        // one tool in place of the case's).
        if g.case.network.is_some() || g.case.code_mode.is_some() {
            continue;
        }
        // Nor the workspace's own refusal of a name every object inherits
        // ("Duplicate workspace tool name"), thrown before `formatTools`.
        let workspace_name = g.case.workspace.as_ref().and_then(|w| w.name.as_ref());
        if workspace_name.is_some_and(crate::naming::is_inherited_name) {
            continue;
        }
        let Prediction::Projection(p) = predict(&g.case, V1_67) else {
            continue;
        };
        // With `turns`, the first turn is the call the copy names.
        let first = p.turns.as_ref().and_then(|t| t.first());
        let (error, requests) = match first {
            Some(t) => (&t.error, &t.requests),
            None => (&p.error, &p.requests),
        };
        let call = &g.case.calls()[0];
        match naming(&g.case, Defect::None) {
            Err(thrown) => {
                let e = error.as_ref().expect("the model throws too");
                let collision = e.cause_code == Some(JsString::from("AGENT_TOOL_NAME_COLLISION"));
                assert_eq!(
                    collision,
                    matches!(thrown, Thrown::Collision(_)),
                    "case {}",
                    g.index
                );
                assert!(requests.is_empty());
            }
            Ok(names) => {
                let plain = call.active_tools.is_none()
                    && call.tool_choice != Some(crate::case::ToolChoice::None);
                if let (true, Some(r)) = (plain, requests.first()) {
                    assert_eq!(
                        r.tools,
                        (!names.is_empty()).then_some(names),
                        "case {}",
                        g.index
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 1000, "{compared} cases compared");
}
