//! Generation: `generate(seed, index) -> Case`, one case drawn from a seeded
//! byte stream with `arbitrary`, biased towards the places where JavaScript
//! and Mastra's rewrite are fragile.
//!
//! Case `index` of seed `S` reads its own ChaCha8 stream (key from `S`,
//! stream number `index`), so it is the same case on every machine, whatever
//! `--count` was, and it can be regenerated alone from the pair printed with
//! a found divergence. The case is built as a `Case`; `Case::to_json` is its
//! file.
//!
//! The generator asks the model nothing (no prediction, no lookup of what a
//! call reaches): its validity comes from construction, and the model's
//! coverage is what the run then measures. It may aim at JavaScript's facts
//! and at the rewrite (`crate::naming`), as a user who knows the rule
//! would. The replies are drawn in `calls`.

mod calls;
mod modes;
pub use calls::kinds;

use crate::case::{
    Approval, ApprovalPolicy, Call, Case, McpListing, McpServer, MemorySource, Method, Reply,
    Sources, StopWhen, Tool, ToolApproval, ToolChoice, ToolSearch, Workspace, BUILTINS,
};
use crate::js::string::JsString;
use crate::naming::{mcp_tool_key, wire_name, OBJECT_PROTOTYPE};
use crate::route::Route;
use arbitrary::{Result, Unstructured};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;

/// The name reports give a generated case (no such file exists).
fn case_path(seed: u64, index: u64) -> PathBuf {
    PathBuf::from(format!("fuzz/seed-{seed}/case-{index}.json"))
}

fn about(seed: u64, index: u64) -> String {
    format!("case {index} of fuzz seed {seed}")
}

fn source(seed: u64, index: u64) -> String {
    format!("fuzz seed {seed}, case {index}")
}

/// Bytes one case may draw: more than the largest case uses. (`arbitrary`
/// answers the smallest value once they run out, which would only make a
/// case plainer, never fail it.)
const BYTES_PER_CASE: usize = 4096;

/// The byte stream of case `index` of `seed`.
pub fn stream(seed: u64, index: u64) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(index);
    let mut bytes = vec![0u8; BYTES_PER_CASE];
    rng.fill_bytes(&mut bytes);
    bytes
}

/// The route case `index` of `seed` runs on, drawn from `routes`: from a
/// stream of its own (seed, index, "route"), so that a case's content is
/// the same whether routes are drawn or not.
pub fn route_for(seed: u64, index: u64, routes: &[Route]) -> Route {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x726f_7574_6500_0000);
    rng.set_stream(index);
    match routes.len() {
        0 => Route::default(),
        n => routes[(rng.next_u64() % n as u64) as usize],
    }
}

/// Case `index` of `seed`, on the default route.
pub fn generate(seed: u64, index: u64) -> Case {
    let bytes = stream(seed, index);
    let mut u = Unstructured::new(&bytes);
    let mut blank = Case::new(case_path(seed, index), about(seed, index));
    blank.source = Some(source(seed, index));
    // `arbitrary`'s primitives do not fail on short input, so this cannot
    // fail in practice; the blank case stands in if it ever does.
    CaseGenerator {
        search_bytes: search_stream(seed, index),
        stop_bytes: stop_stream(seed, index),
        workspace_bytes: workspace_stream(seed, index),
        modes_bytes: modes_stream(seed, index),
        ..CaseGenerator::default()
    }
    .case(&mut u, blank.clone())
    .unwrap_or(blank)
}

/// An id of 70 characters, past what providers allow (64).
const SEARCH_LONG_ID: &str =
    "search_the_web_for_the_latest_weather_forecast_of_any_city_in_a_region";

/// The bytes of a stream of its own for case `index` of `seed`, named by
/// `tag`, as routes are: what is drawn from it leaves the case's other
/// draws as they were before it was drawn.
fn side_stream(seed: u64, index: u64, tag: u64) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ tag);
    rng.set_stream(index);
    let mut bytes = vec![0u8; 256];
    rng.fill_bytes(&mut bytes);
    bytes
}

/// The bytes `toolSearch` is drawn from: (seed, index, "search").
fn search_stream(seed: u64, index: u64) -> Vec<u8> {
    side_stream(seed, index, 0x7365_6172_6368_0000)
}

/// The bytes `workspace` is drawn from: (seed, index, "wkspace").
fn workspace_stream(seed: u64, index: u64) -> Vec<u8> {
    side_stream(seed, index, 0x776b_7370_6163_6500)
}

/// The bytes `network` and `codeMode` are drawn from: (seed, index,
/// "modes").
fn modes_stream(seed: u64, index: u64) -> Vec<u8> {
    side_stream(seed, index, 0x6d6f_6465_7300_0000)
}

/// The bytes `call.stopWhen` and `toolCallFilter` are drawn from: (seed,
/// index, "stop").
fn stop_stream(seed: u64, index: u64) -> Vec<u8> {
    side_stream(seed, index, 0x7374_6f70_0000_0000)
}

/// Case `index` of `seed` on a route drawn from `routes` (`route_for`); a
/// case on another route than the default names it, as its file does.
pub fn generate_on(seed: u64, index: u64, routes: &[Route]) -> Case {
    let case = generate(seed, index);
    match route_for(seed, index, routes) {
        route if route == Route::default() => case,
        route => case.on_route(route),
    }
}

/// A weighted choice: `table` holds (weight, value).
fn pick<T: Copy>(u: &mut Unstructured, table: &[(u32, T)]) -> Result<T> {
    let total: u32 = table.iter().map(|(w, _)| *w).sum();
    let mut x = u.int_in_range(0..=total.saturating_sub(1))?;
    for &(w, value) in table {
        if x < w {
            return Ok(value);
        }
        x -= w;
    }
    Ok(table[table.len() - 1].1)
}

fn units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ALLOWED: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";

/// ASCII outside the allowed set, space included.
const PUNCT: &[u8] = b". /:@$#!~+=?*()[]{}\"\\',;<>|^&%`";
const CONTROLS: &[u16] = &[0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F, 0x7F];
/// Letters and marks a Unicode-aware rule would keep and Mastra's does not,
/// and invisible characters.
const NON_ASCII: &[&str] = &[
    "é", "ü", "ß", "ñ", "Ω", "ж", "中", "ｱ", "İ", "ſ", "\u{212A}", "\u{00A0}", "\u{200B}",
    "\u{FEFF}", "\u{FF61}", "\u{0301}",
];
/// Characters outside the BMP: two code units each.
const ASTRAL: &[&str] = &["😀", "🙂", "𝒳", "𐐀", "\u{10FFFF}", "\u{1F1EB}\u{1F1F7}"];
const LONE_SURROGATES: &[u16] = &[0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xD83D, 0xDE00];
/// Array-index keys and their near misses.
const INDEX_KEYS: &[&str] = &[
    "0",
    "1",
    "2",
    "7",
    "9",
    "10",
    "42",
    "123",
    "4294967294",
    "4294967295",
    "4294967296",
    "01",
    "00",
    "-0",
    "-1",
    "1.5",
    "1e3",
    " 1",
    "+1",
    "0x1",
];
/// Names with a meaning in this harness or in Mastra.
const MEANINGFUL: &[&str] = &[
    "get-weather",
    "get_weather",
    "search.web",
    "search_web",
    "search web",
    "unknown_tool",
    "ask_user",
    "askUserTool",
    "web_search",
    "city",
];
/// MCP server names as users type them (`MCPClient({ servers })` keys),
/// some index-like, some that meet the `_` of the MCP key.
const MCP_SERVER_NAMES: &[&str] = &[
    "github",
    "github.com",
    "my server",
    "twilio",
    "fs",
    "notionApi",
    "brave-search",
    "1",
    "0",
    "_",
    "a.b",
    "",
];
/// Tool names of real MCP servers (cases/real/) and their awkward cousins:
/// dots, slashes, colons, spaces, index-like and inherited names, one that
/// passes 63 with any prefix.
const MCP_TOOL_NAMES: &[&str] = &[
    "get_issue",
    "list.repos",
    "TwilioApiV2010--CreateAccount",
    "TwilioApiV2010--FetchIncomingPhoneNumberAssignedAddOnExtension",
    "API-post-search",
    "browser_navigate",
    "files/read",
    "db:query",
    "search web",
    "query",
    "resolve-library-id",
    "1",
    "0",
    "",
    "__proto__",
    "proto__",
    "toString",
];
const TOOLSET_NAMES: &[&str] = &["set", "a", "0", "1", "10", "__proto__", "x.y", "toString"];
const LONG_LENGTHS: &[(u32, usize)] = &[
    (3, 61),
    (6, 62),
    (8, 63),
    (8, 64),
    (6, 65),
    (2, 66),
    (2, 100),
    (2, 128),
    (1, 200),
];

#[derive(Clone, Copy)]
enum KeyKind {
    Valid,
    Fragile,
    Inherited,
    OntoInherited,
    Index,
    Long,
    Empty,
    RandomUnits,
    Meaningful,
}

#[derive(Clone, Copy)]
enum Atom {
    Punct,
    Control,
    NonAscii,
    Astral,
    Lone,
    Digit,
    Dash,
}

#[derive(Clone, Copy)]
enum Derived {
    Fresh,
    WireName,
    SameWire,
    SamePrefix,
    Duplicate,
}

#[derive(Clone, Copy)]
enum Form {
    Shorthand,
    Custom,
    Builtin,
}

#[derive(Clone, Copy)]
enum Target {
    Key,
    Wire,
    StandardId,
    Inherited,
    Other,
    Unknown,
    CustomId,
}

/// The generator's state for one case: the keys it has drawn, so that
/// options and replies can name them, their rewritten names, or neither.
#[derive(Default)]
struct CaseGenerator {
    keys: Vec<JsString>,
    custom_ids: Vec<JsString>,
    /// The keys the other sources add (`agent-K`, `workflow-K`,
    /// `SERVER_TOOL`, `updateWorkingMemory`), for options and calls.
    source_names: Vec<JsString>,
    /// The stream `toolSearch` is drawn from (`search_stream`).
    search_bytes: Vec<u8>,
    /// The stream `stopWhen` and `toolCallFilter` are drawn from
    /// (`stop_stream`).
    stop_bytes: Vec<u8>,
    /// The stream `workspace` is drawn from (`workspace_stream`).
    workspace_bytes: Vec<u8>,
    /// The stream `network` and `codeMode` are drawn from (`modes_stream`).
    modes_bytes: Vec<u8>,
}

impl CaseGenerator {
    /// `blank` with every part drawn: its tools, tools objects, sources,
    /// call and replies.
    fn case(&mut self, u: &mut Unstructured, blank: Case) -> Result<Case> {
        let palette = pick(u, &[(22, 1usize), (30, 2), (24, 3), (14, 4), (10, 5)])?;
        for _ in 0..palette {
            let key = self.key_for_palette(u)?;
            self.keys.push(key);
        }
        let mut c = Case {
            tools: self.tool_list(u, &[(5, 0), (30, 1), (28, 2), (18, 3), (11, 4), (8, 5)])?,
            ..blank
        };
        if u.ratio(1u8, 5)? {
            let n = pick(u, &[(3, 1usize), (1, 2)])?;
            let mut sets: Vec<(JsString, Vec<Tool>)> = Vec::new();
            for _ in 0..n {
                let name = JsString::from(*u.choose(TOOLSET_NAMES)?);
                if sets.iter().any(|(s, _)| *s == name) {
                    continue;
                }
                let tools = self.tool_list(u, &[(1, 0), (4, 1), (3, 2), (1, 3)])?;
                sets.push((name, tools));
            }
            c.toolsets = Some(sets);
        }
        if u.ratio(9u8, 50)? {
            c.client_tools = Some(self.tool_list(u, &[(1, 0), (4, 1), (2, 2)])?);
        }
        c.sources = self.sources(u, &mut c.tools)?;
        c.tool_search = self.tool_search()?;
        c.call.method = if u.ratio(1u8, 2)? {
            Method::Stream
        } else {
            Method::Generate
        };
        if u.ratio(11u8, 20)? {
            c.call.tool_choice = Some(match pick(u, &[(10, 0u8), (10, 1), (15, 2), (65, 3)])? {
                0 => ToolChoice::Auto,
                1 => ToolChoice::None,
                2 => ToolChoice::Required,
                _ => ToolChoice::Tool(self.name(
                    u,
                    &[
                        (35, Target::Key),
                        (30, Target::Wire),
                        (8, Target::StandardId),
                        (7, Target::Inherited),
                        (5, Target::CustomId),
                        (15, Target::Other),
                    ],
                )?),
            });
        }
        if u.ratio(11u8, 50)? {
            let n = pick(u, &[(2, 0usize), (5, 1), (3, 2), (2, 3)])?;
            let mut active = Vec::new();
            for _ in 0..n {
                active.push(self.name(
                    u,
                    &[
                        (35, Target::Key),
                        (45, Target::Wire),
                        (10, Target::Unknown),
                        (10, Target::Inherited),
                    ],
                )?);
            }
            c.call.active_tools = Some(active);
        }
        if u.ratio(1u8, 10)? {
            c.call.max_steps = Some(u.int_in_range(1..=6)?);
        }
        if u.ratio(1u8, 4)? {
            c.call.require_tool_approval = Some(self.policy(u)?);
        }
        let mut calls = calls::Calls::new(&c);
        if u.ratio(3u8, 5)? {
            let n = pick(u, &[(40, 1usize), (30, 2), (18, 3), (12, 4)])?;
            let mut replies = Vec::with_capacity(n);
            for _ in 0..n {
                replies.push(calls.reply(u)?);
            }
            c.replies = replies;
        }
        // Most sub-agents get a script of their own; the rest take from
        // `replies` with the parent, in arrival order.
        let mut scripts: Vec<(JsString, Vec<Reply>)> = Vec::new();
        for key in c.sources.agents.iter().flatten() {
            if scripts.iter().any(|(k, _)| k == key) || u.ratio(1u8, 7)? {
                continue;
            }
            scripts.push((key.clone(), calls.sub_agent_script(u)?));
        }
        if !scripts.is_empty() {
            c.sub_agent_replies = Some(scripts);
        }
        self.resumption(u, &mut c)?;
        self.stop_and_filter(&mut c)?;
        self.workspace(&mut c, &mut calls)?;
        modes::draw(&std::mem::take(&mut self.modes_bytes), &mut c)?;
        Ok(c)
    }

    /// A `workspace` (`{}`, or renamed by a name drawn as keys are) in one
    /// case of eight where it applies: beside what a workspace was measured
    /// with (the agent's tools, toolsets, client tools, sub-agents,
    /// workflows and the call's options), not beside approval, turns,
    /// memory, tracing, MCP servers, dynamic tools, `toolSearch` or
    /// `toolCallFilter` (docs/modelled.md). Its read tool is called in half
    /// the steps of calls, at any place among them, or, where none is, in a
    /// first step of its own (two cases of three).
    fn workspace(&mut self, c: &mut Case, calls: &mut calls::Calls) -> Result<()> {
        let bytes = std::mem::take(&mut self.workspace_bytes);
        let s = &c.sources;
        let applies = !c.drives_approval()
            && c.turns.is_none()
            && !c.tracing
            && s.memory.is_none()
            && s.mcp.is_none()
            && !s.dynamic_tools
            && c.tool_search.is_none()
            && c.tool_call_filter.is_none();
        let mut u = Unstructured::new(&bytes);
        if bytes.is_empty() || !applies || !u.ratio(1u8, 8)? {
            return Ok(());
        }
        let name = if u.ratio(1u8, 2)? {
            Some(self.key_for_palette(&mut u)?)
        } else {
            None
        };
        let workspace = Workspace { name };
        let mut called = false;
        for reply in &mut c.replies {
            if let Reply::ToolCalls(list) = reply {
                if u.ratio(1u8, 2)? {
                    let at = u.int_in_range(0..=list.len())?;
                    list.insert(at, calls.workspace_call(&mut u, &workspace)?);
                    called = true;
                }
            }
        }
        if !called && u.ratio(2u8, 3)? {
            let call = calls.workspace_call(&mut u, &workspace)?;
            c.replies.insert(0, Reply::ToolCalls(vec![call]));
        }
        c.workspace = Some(workspace);
        Ok(())
    }

    /// A `stopWhen: { hasToolCall }` on a tenth of the calls, and a
    /// `toolCallFilter` on a third of the cases with `memory: true` (what
    /// it filters is a recalled history). Each names what a user may write
    /// for a tool: mostly the name it is sent under, which both compare,
    /// else its key or an id, which match no call by the sent name.
    fn stop_and_filter(&mut self, c: &mut Case) -> Result<()> {
        let bytes = std::mem::take(&mut self.stop_bytes);
        if bytes.is_empty() || self.keys.is_empty() {
            return Ok(());
        }
        let mut u = Unstructured::new(&bytes);
        let table = [
            (50, Target::Wire),
            (20, Target::Key),
            (10, Target::CustomId),
            (5, Target::StandardId),
            (5, Target::Inherited),
            (5, Target::Unknown),
            (5, Target::Other),
        ];
        let calls = match &mut c.turns {
            Some(turns) => turns.iter_mut().collect::<Vec<_>>(),
            None => vec![&mut c.call],
        };
        for call in calls {
            if u.ratio(1u8, 10)? {
                call.stop_when = Some(StopWhen::HasToolCall(self.name(&mut u, &table)?));
            }
        }
        if c.sources.memory.is_some_and(|m| m.in_memory) && u.ratio(1u8, 3)? {
            let n = pick(&mut u, &[(3, 1usize), (1, 2)])?;
            let mut exclude = Vec::with_capacity(n);
            for _ in 0..n {
                exclude.push(self.name(&mut u, &table)?);
            }
            c.tool_call_filter = Some(exclude);
        }
        Ok(())
    }

    /// `call.requireToolApproval`: a flag, or the names a user's policy
    /// function approves, each a tool's key, its sent name or an id (the
    /// three a user may mistake for one another).
    fn policy(&mut self, u: &mut Unstructured) -> Result<ApprovalPolicy> {
        Ok(match pick(u, &[(15, 0u8), (10, 1), (75, 2)])? {
            0 => ApprovalPolicy::Flag(true),
            1 => ApprovalPolicy::Flag(false),
            _ => {
                let n = pick(u, &[(5, 1usize), (3, 2), (2, 3)])?;
                let mut names = Vec::with_capacity(n);
                for _ in 0..n {
                    names.push(match pick(u, &[(30, 0u8), (30, 1), (40, 2)])? {
                        0 => self.keys[u.choose_index(self.keys.len())?].clone(),
                        // A sent name that differs from its key, when one does.
                        1 => {
                            let rewritten: Vec<JsString> = self
                                .keys
                                .iter()
                                .filter_map(|k| wire_name(k).filter(|w| w != k))
                                .collect();
                            match rewritten.len() {
                                0 => self.name(u, &[(1, Target::Wire)])?,
                                n => rewritten[u.choose_index(n)?].clone(),
                            }
                        }
                        _ => self.name(u, &[(1, Target::CustomId), (1, Target::StandardId)])?,
                    });
                }
                ApprovalPolicy::Names(names)
            }
        })
    }

    /// Answers to pending approvals (by the ids the replies' calls carry),
    /// later turns on the same agent, and tracing: the paths a name takes
    /// after the first request (a resumed run, a recalled history, a span).
    fn resumption(&mut self, u: &mut Unstructured, c: &mut Case) -> Result<()> {
        let ids: Vec<JsString> = c
            .replies
            .iter()
            .filter_map(|r| match r {
                Reply::ToolCalls(calls) => Some(calls.iter().map(|t| t.id.clone())),
                _ => None,
            })
            .flatten()
            .collect();
        if !ids.is_empty() && u.ratio(1u8, 3)? {
            let n = pick(u, &[(3, 1usize), (1, 2)])?;
            let mut answers: Vec<(JsString, Approval)> = Vec::new();
            for _ in 0..n {
                let id = ids[u.choose_index(ids.len())?].clone();
                if answers.iter().any(|(a, _)| *a == id) {
                    continue;
                }
                let answer = if u.ratio(2u8, 3)? {
                    Approval::Approve
                } else {
                    Approval::Decline
                };
                answers.push((id, answer));
            }
            c.approvals = Some(answers);
        }
        if u.ratio(1u8, 10)? {
            let mut turns = vec![std::mem::take(&mut c.call)];
            for _ in 0..pick(u, &[(3, 1usize), (1, 2)])? {
                let mut call = Call {
                    method: if u.ratio(1u8, 2)? {
                        Method::Stream
                    } else {
                        Method::Generate
                    },
                    ..Call::default()
                };
                if u.ratio(1u8, 4)? {
                    call.require_tool_approval = Some(self.policy(u)?);
                }
                if u.ratio(1u8, 3)? {
                    call.prompt = Some(JsString::from("and now?"));
                }
                turns.push(call);
            }
            c.turns = Some(turns);
        }
        c.tracing = u.ratio(1u8, 10)?;
        Ok(())
    }

    /// Sub-agents, workflows, MCP servers, memory and dynamic tools. Now and
    /// then a tool of the case takes a key another source adds (or one
    /// that rewrites onto it), for silent replacement and collisions across
    /// sources.
    fn sources(&mut self, u: &mut Unstructured, tools: &mut Vec<Tool>) -> Result<Sources> {
        let mut s = Sources::default();
        let keyed = |gen: &mut CaseGenerator,
                     u: &mut Unstructured,
                     prefix: &str|
         -> Result<Vec<JsString>> {
            let n = pick(u, &[(6, 1usize), (3, 2), (1, 3)])?;
            let mut keys = Vec::with_capacity(n);
            for _ in 0..n {
                let k = if u.ratio(1u8, 3)? {
                    JsString::from(*u.choose(&["weatherAgent", "my agent", "a.b", "0", "x"])?)
                } else {
                    gen.keys[u.choose_index(gen.keys.len())?].clone()
                };
                gen.source_names.push(JsString::from(prefix).concat(&k));
                keys.push(k);
            }
            Ok(keys)
        };
        if u.ratio(1u8, 8)? {
            s.agents = Some(keyed(self, u, "agent-")?);
        }
        if u.ratio(1u8, 8)? {
            s.workflows = Some(keyed(self, u, "workflow-")?);
        }
        if u.ratio(3u8, 20)? {
            let n = pick(u, &[(4, 1usize), (1, 2)])?;
            let mut servers: Vec<McpServer> = Vec::new();
            for _ in 0..n {
                let name = if u.ratio(4u8, 5)? {
                    JsString::from(*u.choose(MCP_SERVER_NAMES)?)
                } else {
                    self.keys[u.choose_index(self.keys.len())?].clone()
                };
                if servers.iter().any(|m| m.name == name) {
                    continue;
                }
                let count = pick(u, &[(3, 1usize), (4, 2), (2, 3), (1, 5)])?;
                let mut names = Vec::with_capacity(count);
                for _ in 0..count {
                    let t = if u.ratio(3u8, 4)? {
                        JsString::from(*u.choose(MCP_TOOL_NAMES)?)
                    } else {
                        self.keys[u.choose_index(self.keys.len())?].clone()
                    };
                    self.source_names.push(mcp_tool_key(&name, &t));
                    names.push(t);
                }
                servers.push(McpServer { name, tools: names });
            }
            self.mcp_options(u, &mut s, &servers)?;
            s.mcp = Some(servers);
        }
        if u.ratio(1u8, 12)? {
            let working_memory = u.ratio(4u8, 5)?;
            if working_memory {
                self.source_names
                    .push(JsString::from("updateWorkingMemory"));
            }
            s.memory = Some(MemorySource {
                working_memory,
                in_memory: false,
            });
        } else if u.ratio(1u8, 11)? {
            // `memory: true`: a recalled history on `thread-1` (with `turns`,
            // across the turns).
            s.memory = Some(MemorySource::IN_MEMORY);
        }
        s.dynamic_tools = u.ratio(1u8, 10)?;
        if !self.source_names.is_empty() && u.ratio(1u8, 4)? {
            let other = self.source_names[u.choose_index(self.source_names.len())?].clone();
            let key = match u.int_in_range(0..=2u8)? {
                0 => other,
                1 => wire_name(&other).unwrap_or(other),
                _ => {
                    // A key that rewrites onto the other source's sent name:
                    // its first underscore made a dot.
                    let wire = wire_name(&other).unwrap_or(other);
                    let mut units = wire.units().to_vec();
                    if let Some(i) = units.iter().position(|&c| c == u16::from(b'_')) {
                        units[i] = u16::from(b'.');
                    }
                    JsString::from_units(units)
                }
            };
            self.keys.push(key.clone());
            tools.push(Tool::Standard(key));
        }
        Ok(s)
    }

    /// How the servers' tools reach the agent (`mcpListing`), and a
    /// server's own `requireToolApproval` (`mcpApproval`): a flag, or the
    /// names a user's function approves, each the tool's MCP name, its key
    /// `SERVER_TOOL` or its sent name (the three a user may mistake for
    /// one another).
    fn mcp_options(
        &mut self,
        u: &mut Unstructured,
        s: &mut Sources,
        servers: &[McpServer],
    ) -> Result<()> {
        if u.ratio(1u8, 4)? {
            s.mcp_listing = Some(if u.ratio(4u8, 5)? {
                McpListing::ListToolsets
            } else {
                McpListing::ListTools
            });
        }
        if servers.is_empty() || !u.ratio(1u8, 4)? {
            return Ok(());
        }
        let server = &servers[u.choose_index(servers.len())?];
        let policy = match pick(u, &[(2, 0u8), (1, 1), (7, 2)])? {
            0 => ApprovalPolicy::Flag(true),
            1 => ApprovalPolicy::Flag(false),
            _ => {
                let mut names = Vec::new();
                for t in &server.tools {
                    let key = mcp_tool_key(&server.name, t);
                    names.push(match pick(u, &[(4, 0u8), (2, 1), (4, 2), (2, 3)])? {
                        0 => t.clone(),
                        1 => key,
                        2 => wire_name(&key).unwrap_or(key),
                        _ => continue,
                    });
                }
                ApprovalPolicy::Names(names)
            }
        };
        s.mcp_approval = Some(vec![(server.name.clone(), policy)]);
        Ok(())
    }

    /// A `ToolSearchProcessor` over tools of its own, from the case's
    /// palette, in one case of twelve (8 %).
    fn tool_search(&mut self) -> Result<Option<ToolSearch>> {
        let bytes = std::mem::take(&mut self.search_bytes);
        let mut u = Unstructured::new(&bytes);
        // (Without bytes `ratio` answers yes.)
        if bytes.is_empty() || !u.ratio(1u8, 12)? {
            return Ok(None);
        }
        let mut tools = self.tool_list(&mut u, &[(1, 1usize), (2, 2), (1, 3)])?;
        // Half the shorthand tools take an id the rewrite changes, as the
        // ids measured behind the processor (`search.web`, `files/delete`,
        // one past 64 characters): `load_tool` loads by them as given.
        for t in &mut tools {
            if let Tool::Standard(key) = t {
                if u.ratio(1u8, 2)? {
                    let id = *u.choose(&["search.web", "files/delete", SEARCH_LONG_ID])?;
                    *t = Tool::Custom {
                        key: key.clone(),
                        id: JsString::from(id),
                        description: Some(JsString::from("A custom tool")),
                        require_approval: None,
                    };
                }
            }
        }
        Ok(Some(ToolSearch { tools }))
    }

    fn tool_list(&mut self, u: &mut Unstructured, counts: &[(u32, usize)]) -> Result<Vec<Tool>> {
        let n = pick(u, counts)?;
        let mut tools = Vec::with_capacity(n);
        for _ in 0..n {
            // Mostly a key this list does not have yet: a repeated key is
            // its own (rarer) case.
            let unused: Vec<&JsString> = self
                .keys
                .iter()
                .filter(|k| !tools.iter().any(|t: &Tool| t.key() == *k))
                .collect();
            let key = if !unused.is_empty() && u.ratio(5u8, 6)? {
                unused[u.choose_index(unused.len())?].clone()
            } else {
                self.keys[u.choose_index(self.keys.len())?].clone()
            };
            let tool = match pick(
                u,
                &[
                    (80, Form::Shorthand),
                    (16, Form::Custom),
                    (4, Form::Builtin),
                ],
            )? {
                Form::Shorthand => Tool::Standard(key),
                // Never webSearchTool: Mastra swaps it for the provider's own
                // web search, which the model does not cover.
                Form::Builtin => {
                    let builtins: Vec<&str> = BUILTINS
                        .iter()
                        .copied()
                        .filter(|b| *b != "webSearchTool")
                        .collect();
                    Tool::Builtin {
                        key,
                        name: u.choose(&builtins)?.to_string(),
                    }
                }
                Form::Custom => {
                    let id = match u.int_in_range(0..=5u8)? {
                        0 => key.clone(),
                        1 => wire_name(&key).unwrap_or_else(|| key.clone()),
                        2 => JsString::from("get-weather"),
                        3 => self.keys[u.choose_index(self.keys.len())?].clone(),
                        4 => JsString::from(format!("tool-{}", u.int_in_range(1..=3u8)?)),
                        _ => self.fragile(u)?,
                    };
                    self.custom_ids.push(id.clone());
                    Tool::Custom {
                        key,
                        id,
                        description: Some(JsString::from("A custom tool")),
                        require_approval: if u.ratio(1u8, 4)? {
                            Some(match pick(u, &[(50, 0u8), (20, 1), (15, 2), (15, 3)])? {
                                0 => ToolApproval::Always,
                                1 => ToolApproval::Returns(false),
                                2 => ToolApproval::Returns(true),
                                _ => ToolApproval::Throws(JsString::from("no answer")),
                            })
                        } else {
                            None
                        },
                    }
                }
            };
            tools.push(tool);
        }
        Ok(tools)
    }

    /// A key for the case's palette: fresh, or made to meet one drawn
    /// before (its rewritten name, another key with the same rewritten
    /// name, the same first 63 units, or the very same key).
    fn key_for_palette(&mut self, u: &mut Unstructured) -> Result<JsString> {
        if self.keys.is_empty() {
            return self.key(u);
        }
        let base = self.keys[u.choose_index(self.keys.len())?].clone();
        let how = pick(
            u,
            &[
                (70, Derived::Fresh),
                (10, Derived::WireName),
                (8, Derived::SameWire),
                (6, Derived::SamePrefix),
                (6, Derived::Duplicate),
            ],
        )?;
        Ok(match how {
            Derived::Fresh => self.key(u)?,
            Derived::WireName => wire_name(&base).unwrap_or(base),
            Derived::SameWire => {
                // Swap one unit outside the allowed set for another, or
                // add one: a different key with the same rewritten name
                // (or one that rewrites onto a valid key).
                let mut units = base.units().to_vec();
                let bad: Vec<usize> = (0..units.len())
                    .filter(|&i| !is_allowed(units[i]))
                    .collect();
                if bad.is_empty() {
                    let at = u.int_in_range(0..=units.len())?;
                    units.insert(at, u16::from(*u.choose(PUNCT)?));
                } else {
                    let at = bad[u.choose_index(bad.len())?];
                    units[at] = u16::from(*u.choose(PUNCT)?);
                }
                JsString::from_units(units)
            }
            Derived::SamePrefix => {
                let mut units = base.units().to_vec();
                units.resize(units.len().max(63), u16::from(b'k'));
                units.truncate(63);
                units.push(u16::from(*u.choose(ALLOWED)?));
                JsString::from_units(units)
            }
            Derived::Duplicate => base,
        })
    }

    fn key(&mut self, u: &mut Unstructured) -> Result<JsString> {
        let kind = pick(
            u,
            &[
                (18, KeyKind::Valid),
                (26, KeyKind::Fragile),
                (8, KeyKind::Inherited),
                (7, KeyKind::OntoInherited),
                (11, KeyKind::Index),
                (14, KeyKind::Long),
                (2, KeyKind::Empty),
                (6, KeyKind::RandomUnits),
                (8, KeyKind::Meaningful),
            ],
        )?;
        Ok(match kind {
            KeyKind::Valid => {
                let len = pick(u, &[(3, 1usize), (6, 3), (6, 6), (3, 10), (1, 20)])?;
                JsString::from_units(self.ident(u, len)?)
            }
            KeyKind::Fragile => self.fragile(u)?,
            KeyKind::Inherited => JsString::from(*u.choose(OBJECT_PROTOTYPE)?),
            KeyKind::OntoInherited => {
                // A key whose rewrite lands on a name of Object.prototype:
                // some of its underscores written as other characters.
                let names: Vec<&str> = OBJECT_PROTOTYPE
                    .iter()
                    .copied()
                    .filter(|n| n.contains('_'))
                    .collect();
                let mut units = units(u.choose(&names)?);
                let underscores: Vec<usize> = (0..units.len())
                    .filter(|&i| units[i] == u16::from(b'_'))
                    .collect();
                let n = u.int_in_range(1..=2usize)?;
                for _ in 0..n {
                    let at = underscores[u.choose_index(underscores.len())?];
                    units[at] = self.atom(u)?.first().copied().unwrap_or(0x2E);
                }
                JsString::from_units(units)
            }
            KeyKind::Index => {
                if u.ratio(1u8, 5)? {
                    JsString::from(u.arbitrary::<u32>()?.to_string())
                } else {
                    JsString::from(*u.choose(INDEX_KEYS)?)
                }
            }
            KeyKind::Long => self.long(u)?,
            KeyKind::Empty => JsString::new(),
            KeyKind::RandomUnits => {
                let n = u.int_in_range(1..=6usize)?;
                let mut units = Vec::with_capacity(n);
                for _ in 0..n {
                    units.push(if u.ratio(1u8, 2)? {
                        u.int_in_range(0..=0x7Fu16)?
                    } else {
                        u.arbitrary::<u16>()?
                    });
                }
                JsString::from_units(units)
            }
            KeyKind::Meaningful => JsString::from(*u.choose(MEANINGFUL)?),
        })
    }

    /// `len` units of a valid name: a letter or `_` first.
    fn ident(&mut self, u: &mut Unstructured, len: usize) -> Result<Vec<u16>> {
        let mut units = Vec::with_capacity(len);
        for i in 0..len {
            let c = if i == 0 {
                if u.ratio(1u8, 8)? {
                    b'_'
                } else {
                    *u.choose(LETTERS)?
                }
            } else if u.ratio(3u8, 4)? {
                *u.choose(LETTERS)?
            } else {
                *u.choose(ALLOWED)?
            };
            units.push(u16::from(c));
        }
        Ok(units)
    }

    /// One character Mastra's rewrite treats specially, as its code units.
    fn atom(&mut self, u: &mut Unstructured) -> Result<Vec<u16>> {
        Ok(
            match pick(
                u,
                &[
                    (34, Atom::Punct),
                    (6, Atom::Control),
                    (16, Atom::NonAscii),
                    (14, Atom::Astral),
                    (10, Atom::Lone),
                    (10, Atom::Digit),
                    (10, Atom::Dash),
                ],
            )? {
                Atom::Punct => vec![u16::from(*u.choose(PUNCT)?)],
                Atom::Control => vec![*u.choose(CONTROLS)?],
                Atom::NonAscii => units(u.choose(NON_ASCII)?),
                Atom::Astral => units(u.choose(ASTRAL)?),
                Atom::Lone => vec![*u.choose(LONE_SURROGATES)?],
                Atom::Digit => vec![u16::from(u.int_in_range(b'0'..=b'9')?)],
                Atom::Dash => vec![u16::from(*u.choose(b"-_")?)],
            },
        )
    }

    /// A short name with one to three fragile characters put in, the first
    /// position favoured (a digit or hyphen first is its own rule).
    fn fragile(&mut self, u: &mut Unstructured) -> Result<JsString> {
        let len = u.int_in_range(0..=8usize)?;
        let mut units = self.ident(u, len)?;
        let n = pick(u, &[(6, 1usize), (3, 2), (1, 3)])?;
        for _ in 0..n {
            let atom = self.atom(u)?;
            let at = if u.ratio(1u8, 3)? {
                0
            } else {
                u.int_in_range(0..=units.len())?
            };
            units.splice(at..at, atom);
        }
        Ok(JsString::from_units(units))
    }

    /// A key around the 63-unit cut, or far past it: a digit first shifts
    /// the cut by the `_` prefix; an astral character may straddle it.
    fn long(&mut self, u: &mut Unstructured) -> Result<JsString> {
        let len = pick(u, LONG_LENGTHS)?;
        let mut units = if u.ratio(1u8, 2)? {
            vec![u16::from(*u.choose(LETTERS)?); len]
        } else {
            self.ident(u, len)?
        };
        if u.ratio(1u8, 4)? {
            units[0] = u16::from(u.int_in_range(b'0'..=b'9')?);
        }
        if u.ratio(1u8, 4)? {
            let at = u.int_in_range(len.saturating_sub(4)..=len.saturating_sub(1))?;
            let atom = self.atom(u)?;
            units.splice(at..(at + atom.len()).min(len), atom);
        }
        Ok(JsString::from_units(units))
    }

    /// A name for `toolChoice`, `activeTools` or a scripted call.
    fn name(&mut self, u: &mut Unstructured, table: &[(u32, Target)]) -> Result<JsString> {
        // A third of the names come from the other sources, when there are any.
        let key = if !self.source_names.is_empty() && u.ratio(1u8, 3)? {
            self.source_names[u.choose_index(self.source_names.len())?].clone()
        } else {
            self.keys[u.choose_index(self.keys.len())?].clone()
        };
        Ok(match pick(u, table)? {
            Target::Key => key,
            Target::Wire => wire_name(&key).unwrap_or(key),
            Target::StandardId => JsString::from("get-weather"),
            Target::Inherited => JsString::from(*u.choose(&[
                "toString",
                "constructor",
                "__proto__",
                "hasOwnProperty",
                "valueOf",
            ])?),
            Target::Unknown => JsString::from("nope"),
            Target::CustomId if !self.custom_ids.is_empty() => {
                self.custom_ids[u.choose_index(self.custom_ids.len())?].clone()
            }
            Target::CustomId | Target::Other => self.key(u)?,
        })
    }
}

fn is_allowed(unit: u16) -> bool {
    u8::try_from(unit).is_ok_and(|b| ALLOWED.contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The case file as the seed digest reads it: the prose fixed, so that
    /// the digest pins what a seed generates, not how it is named.
    fn text(c: &Case) -> String {
        Case {
            about: "a".into(),
            source: Some("s".into()),
            ..c.clone()
        }
        .to_json()
        .to_compact()
    }

    #[test]
    fn the_same_seed_and_index_give_the_same_case() {
        for i in 0..50 {
            assert_eq!(generate(1, i), generate(1, i));
        }
        let differ = (0..50).filter(|&i| text(&generate(1, i)) != text(&generate(2, i)));
        assert!(differ.count() > 40, "another seed gives other cases");
    }

    /// Case N of a seed does not depend on how many were asked for: the
    /// pair printed with a divergence regenerates it alone.
    #[test]
    fn a_case_depends_on_its_seed_and_index_only() {
        let alone = generate(9, 1234);
        let _others: Vec<Case> = (0..20).map(|i| generate(9, i)).collect();
        assert_eq!(generate(9, 1234), alone);
    }

    /// Pins what seed 1 means. If generation changes on purpose, old seeds
    /// name other cases: update the digest, and say so in the commit.
    #[test]
    fn seed_1_is_pinned() {
        let mut digest: u64 = 0xcbf2_9ce4_8422_2325;
        for i in 0..200 {
            for b in text(&generate(1, i)).bytes() {
                digest = (digest ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
        assert_eq!(
            digest, 4_783_972_950_675_375_849,
            "digest of seed 1, cases 0..200"
        );
    }

    /// Read ∘ write is the identity on generated cases: each one's file
    /// reads back as the same case (so it is also a valid case file), and
    /// writes the same text again. Routes drawn, so that cases naming a
    /// route are among them.
    #[test]
    fn read_after_write_is_the_identity_on_10000_generated_cases() {
        for i in 0..10_000 {
            let case = generate_on(3, i, &Route::ALL);
            let written = case.to_json().to_compact();
            let again = Case::parse(&case.path, &written)
                .unwrap_or_else(|e| panic!("case {i}: {e}\n{written}"));
            assert_eq!(again, case, "case {i}");
            assert_eq!(again.to_json().to_compact(), written, "case {i}");
        }
    }

    /// The generator reaches every fragile place of the rewrite and of JavaScript.
    #[test]
    fn generation_reaches_the_fragile_places() {
        let mut seen = std::collections::BTreeMap::<&str, usize>::new();
        let mut hit = |name: &'static str, yes: bool| {
            if yes {
                *seen.entry(name).or_default() += 1;
            }
        };
        for i in 0..3000 {
            let c = generate(5, i);
            for t in c.all_tools() {
                let k = t.key();
                let us = k.units();
                hit(
                    "punctuation",
                    us.iter().any(|&c| PUNCT.iter().any(|&p| u16::from(p) == c)),
                );
                hit("space", us.contains(&0x20));
                hit("nul", us.contains(&0));
                hit(
                    "non-ascii bmp",
                    us.iter()
                        .any(|&c| c > 0x7F && !crate::js::string::is_surrogate(c)),
                );
                hit(
                    "astral",
                    k.to_rust()
                        .is_some_and(|s| s.chars().any(|c| c as u32 > 0xFFFF)),
                );
                hit("lone surrogate", k.to_rust().is_none());
                hit(
                    "digit first",
                    us.first().is_some_and(|c| (0x30..=0x39).contains(c)),
                );
                hit("hyphen first", us.first() == Some(&0x2D));
                hit(
                    "inherited",
                    OBJECT_PROTOTYPE.iter().any(|n| JsString::from(*n) == *k),
                );
                hit(
                    "onto inherited",
                    !OBJECT_PROTOTYPE.iter().any(|n| JsString::from(*n) == *k)
                        && wire_name(k).is_some_and(|w| {
                            OBJECT_PROTOTYPE.iter().any(|n| JsString::from(*n) == w)
                        }),
                );
                hit("index 0", *k == JsString::from("0"));
                hit("index 4294967294", *k == JsString::from("4294967294"));
                hit("not index 4294967295", *k == JsString::from("4294967295"));
                hit("not index 01", *k == JsString::from("01"));
                hit("length 0", k.is_empty());
                hit("length 1", k.len() == 1);
                for n in 62..=65 {
                    hit(
                        ["length 62", "length 63", "length 64", "length 65"][n - 62],
                        k.len() == n,
                    );
                }
                hit("long", k.len() > 100);
            }
            hit("toolsets", c.toolsets.is_some());
            hit("clientTools", c.client_tools.is_some());
            hit("stream", c.call.method == Method::Stream);
            hit("generate", c.call.method == Method::Generate);
            let keys: Vec<&JsString> = c.all_tools().map(Tool::key).collect();
            if let Some(ToolChoice::Tool(n)) = &c.call.tool_choice {
                hit("toolChoice by key", keys.contains(&n));
                hit(
                    "toolChoice by rewritten name",
                    !keys.contains(&n) && keys.iter().any(|k| wire_name(k).as_ref() == Some(n)),
                );
            }
            hit("activeTools", c.call.active_tools.is_some());
            for r in &c.replies {
                if let Reply::ToolCalls(calls) = r {
                    for c in calls {
                        hit("call by key", keys.contains(&&c.name));
                        hit("call by id", c.name == JsString::from("get-weather"));
                        hit(
                            "call by inherited name",
                            c.name == JsString::from("toString"),
                        );
                        hit("call by unknown name", c.name == JsString::from("nope"));
                    }
                }
            }
            hit("several keys", keys.len() >= 3);
            let wires: Vec<_> = keys.iter().filter_map(|k| wire_name(k)).collect();
            hit(
                "two keys, one name",
                (0..wires.len())
                    .any(|i| (0..i).any(|j| wires[i] == wires[j] && keys[i] != keys[j])),
            );
        }
        let missing: Vec<&str> = [
            "punctuation",
            "space",
            "nul",
            "non-ascii bmp",
            "astral",
            "lone surrogate",
            "digit first",
            "hyphen first",
            "inherited",
            "onto inherited",
            "index 0",
            "index 4294967294",
            "not index 4294967295",
            "not index 01",
            "length 0",
            "length 1",
            "length 62",
            "length 63",
            "length 64",
            "length 65",
            "long",
            "toolsets",
            "clientTools",
            "stream",
            "generate",
            "toolChoice by key",
            "toolChoice by rewritten name",
            "activeTools",
            "call by key",
            "call by id",
            "call by inherited name",
            "call by unknown name",
            "several keys",
            "two keys, one name",
        ]
        .into_iter()
        .filter(|n| seen.get(n).copied().unwrap_or(0) < 3)
        .collect();
        assert!(
            missing.is_empty(),
            "rarely or never generated: {missing:?}\n{seen:?}"
        );
    }

    /// Each option of approval, memory, turns, tracing and `stopWhen` is
    /// drawn in at least 5 % of the cases (3000 of seed 1), and
    /// `toolCallFilter` in at least 5 % of those with `memory: true`, where
    /// it has a recalled history to filter: the model's coverage of them is
    /// then measured, not assumed.
    /// `workspace` is drawn in at least 5 % of the cases it applies to (no
    /// approval, turns, memory, tracing, MCP, dynamic tools, `toolSearch`
    /// or `toolCallFilter`) and in none of the others; renamed in some,
    /// with names the rewrite changes among them; its read tool called by
    /// each kind of name, with fitting arguments and others.
    #[test]
    fn workspace_is_drawn_in_5_percent_of_the_cases_it_applies_to() {
        const N: u64 = 3000;
        let (mut applies, mut drawn, mut renamed, mut rewritten) = (0u64, 0u64, 0u64, 0u64);
        let (mut called, mut fitting, mut other_args) = (0u64, 0u64, 0u64);
        for i in 0..N {
            let c = generate(1, i);
            let s = &c.sources;
            let beside_unmeasured = c.drives_approval()
                || c.turns.is_some()
                || c.tracing
                || s.memory.is_some()
                || s.mcp.is_some()
                || s.dynamic_tools
                || c.tool_search.is_some()
                || c.tool_call_filter.is_some();
            let Some(w) = &c.workspace else {
                applies += u64::from(!beside_unmeasured);
                continue;
            };
            assert!(!beside_unmeasured, "case {i}: {c:?}");
            applies += 1;
            drawn += 1;
            if let Some(name) = &w.name {
                renamed += 1;
                rewritten += u64::from(wire_name(name).is_some());
            }
            let path =
                crate::js::json::Json::object([("path", crate::js::json::Json::str("a.txt"))]);
            for r in &c.replies {
                if let Reply::ToolCalls(list) = r {
                    for call in list {
                        let own = call.name == JsString::from("mastra_workspace_read_file");
                        let given = w.name.as_ref().is_some_and(|n| {
                            call.name == *n || wire_name(n).as_ref() == Some(&call.name)
                        });
                        if own || given {
                            called += 1;
                            if call.arguments == path {
                                fitting += 1;
                            } else {
                                other_args += 1;
                            }
                        }
                    }
                }
            }
        }
        eprintln!(
            "workspace in {drawn} of {applies} cases it applies to; renamed {renamed} ({rewritten} rewritten); {called} calls, {fitting} fitting, {other_args} not"
        );
        assert!(drawn * 20 >= applies, "{drawn} of {applies}");
        assert!(
            renamed > 0 && rewritten > 0 && renamed < drawn,
            "{renamed} {rewritten} {drawn}"
        );
        assert!(fitting > 0 && other_args > 0, "{fitting} {other_args}");
    }

    /// `network` is drawn in at least 5 % of the cases (every case can
    /// become one), with picks of each kind by the key, by another name
    /// and of no member, and one in ten without memory; `codeMode` in at
    /// least 5 % of the other cases where it applies, with a program
    /// calling the function an id makes and others. Neither beside what
    /// the model was not measured with.
    #[test]
    fn network_and_code_mode_are_each_drawn_in_5_percent_of_the_cases_they_apply_to() {
        const N: u64 = 3000;
        let (mut networks, mut forgetful, mut by_key) = (0u64, 0u64, 0u64);
        let (mut code_applies, mut code_drawn) = (0u64, 0u64);
        let mut kinds = std::collections::BTreeSet::new();
        for i in 0..N {
            let c = generate(1, i);
            assert!(c.network.is_none() || c.code_mode.is_none(), "case {i}");
            if c.network.is_some() {
                networks += 1;
                forgetful += u64::from(c.sources.memory.is_none());
                assert!(!c.drives_approval() && c.toolsets.is_none() && c.turns.is_none());
                assert_eq!(c.call.tool_choice, None, "case {i}");
                let Some(Reply::Text(text)) = c.replies.first() else {
                    panic!("case {i}: {:?}", c.replies);
                };
                let pick = crate::js::json::Json::parse(&text.to_lossy()).unwrap();
                let kind = pick
                    .get("primitiveType")
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_lossy();
                let id = pick.get("primitiveId").unwrap().as_str().unwrap().clone();
                let keys: Vec<JsString> = match kind.as_str() {
                    "tool" => c.tools.iter().map(|t| t.key().clone()).collect(),
                    "agent" => c.sources.agents.clone().unwrap_or_default(),
                    _ => c.sources.workflows.clone().unwrap_or_default(),
                };
                by_key += u64::from(keys.contains(&id));
                kinds.insert(kind);
                continue;
            }
            if c.code_mode.is_some() {
                code_drawn += 1;
                code_applies += 1;
                let Some(Reply::ToolCalls(first)) = c.replies.first() else {
                    panic!("case {i}: {:?}", c.replies);
                };
                assert_eq!(first[0].name.to_lossy(), "execute_typescript");
                continue;
            }
            code_applies += u64::from(c.workspace.is_none() && modes::code_mode_applies(&c));
        }
        eprintln!(
            "network in {networks} of {N} ({forgetful} without memory, {by_key} picks by the key); codeMode in {code_drawn} of {code_applies} it applies to"
        );
        assert!(networks * 20 >= N, "{networks}");
        assert!(
            forgetful > 0 && by_key > 0 && by_key < networks,
            "{forgetful} {by_key}"
        );
        assert_eq!(kinds.len(), 3, "{kinds:?}");
        assert!(
            code_drawn * 20 >= code_applies && code_drawn > 0,
            "{code_drawn} of {code_applies}"
        );
    }

    #[test]
    fn approval_memory_turns_and_tracing_are_each_drawn_in_5_percent() {
        const N: u64 = 3000;
        let mut seen = std::collections::BTreeMap::<&str, u64>::new();
        let (mut in_memory, mut filtered) = (0u64, 0u64);
        for i in 0..N {
            let c = generate(1, i);
            if c.sources.memory.is_some_and(|m| m.in_memory) {
                in_memory += 1;
                filtered += u64::from(c.tool_call_filter.is_some());
            }
            let keys: Vec<&JsString> = c.all_tools().map(Tool::key).collect();
            let ids: Vec<JsString> = c
                .all_tools()
                .filter_map(|t| match t {
                    Tool::Custom { id, .. } => Some(id.clone()),
                    Tool::Standard(_) => Some(JsString::from(crate::case::STANDARD_ID)),
                    Tool::Builtin { .. } => None,
                })
                .collect();
            let calls: Vec<&Call> = c
                .turns
                .as_ref()
                .map_or(vec![&c.call], |t| t.iter().collect());
            let names: Vec<&JsString> = calls
                .iter()
                .filter_map(|k| match &k.require_tool_approval {
                    Some(ApprovalPolicy::Names(n)) => Some(n.iter()),
                    _ => None,
                })
                .flatten()
                .collect();
            let options = [
                ("policy by key", names.iter().any(|n| keys.contains(n))),
                (
                    "policy by id",
                    names.iter().any(|n| !keys.contains(n) && ids.contains(n)),
                ),
                (
                    "policy by wire name",
                    names.iter().any(|n| {
                        !keys.contains(n) && keys.iter().any(|k| wire_name(k).as_ref() == Some(n))
                    }),
                ),
                (
                    "tool requireApproval",
                    c.all_tools().any(|t| {
                        matches!(
                            t,
                            Tool::Custom {
                                require_approval: Some(_),
                                ..
                            }
                        )
                    }),
                ),
                ("approvals", c.approvals.is_some()),
                ("turns", c.turns.is_some()),
                (
                    "memory: true",
                    c.sources.memory.is_some_and(|m| m.in_memory),
                ),
                ("tracing", c.tracing),
                ("stopWhen", calls.iter().any(|k| k.stop_when.is_some())),
            ];
            for (name, yes) in options {
                *seen.entry(name).or_default() += u64::from(yes);
            }
        }
        // The shares, for docs/figures.md (`-- --nocapture`).
        eprintln!(
            "of {N}: {seen:?}; toolCallFilter in {filtered} of {in_memory} with memory: true"
        );
        let rare: Vec<_> = seen.iter().filter(|(_, &n)| n * 20 < N).collect();
        assert!(rare.is_empty(), "under 5 % of {N}: {rare:?}\nall: {seen:?}");
        assert_eq!(seen.len(), 9);
        assert!(
            in_memory > 0 && filtered * 20 >= in_memory,
            "toolCallFilter on {filtered} of {in_memory} cases with memory: true"
        );
    }

    #[test]
    fn routes_are_drawn_apart_from_the_case() {
        let all = Route::ALL.to_vec();
        let drawn: std::collections::BTreeSet<Route> =
            (0..200).map(|i| route_for(7, i, &all)).collect();
        assert_eq!(drawn.len(), 6, "every route is drawn");
        assert_eq!(route_for(7, 3, &all), route_for(7, 3, &all), "reproducible");
        assert_eq!(route_for(7, 3, &[Route::Groq]), Route::Groq);
        // The case itself does not depend on the route drawn.
        for i in 0..20 {
            let on = generate_on(7, i, &[Route::Google]);
            assert_eq!(on.route, Route::Google, "case {i}");
            assert_eq!(
                Case {
                    route: Route::default(),
                    route_named: false,
                    ..on
                },
                generate(7, i)
            );
        }
    }
}
