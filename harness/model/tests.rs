//! The model as a whole: every claim of the report (named by its section),
//! each release's switches, and properties over generated keys.

use super::*;
use crate::case::Case;
use crate::projection::{Executed, HistoryItem};
use proptest::prelude::*;
use std::path::Path;

fn case(json: &str) -> Case {
    Case::parse(Path::new("test.json"), json).unwrap()
}

fn v(s: &str) -> MastraVersion {
    MastraVersion::parse(s).unwrap()
}

fn projection(c: &Case, version: &str) -> Projection {
    match predict(c, v(version)) {
        Prediction::Projection(p) => p,
        Prediction::Races(ps) => panic!("{} projections: {ps:?}", ps.len()),
        Prediction::Dropping(p) => panic!("may drop stream chunks: {p:?}"),
        Prediction::Unmodelled(r) => panic!("unmodelled: {r}"),
    }
}

fn names(p: &Projection, request: usize) -> Vec<String> {
    p.requests[request]
        .tools
        .as_ref()
        .map(|t| t.iter().map(JsString::to_lossy).collect())
        .unwrap_or_default()
}

const REPORT_VERSIONS: [&str; 2] = ["1.0.0", "1.67.0"];

/// "Measuring what actually goes on the wire": search.web is offered as
/// search_web, with tool_choice "auto".
#[test]
fn report_measuring_what_goes_on_the_wire() {
    for ver in REPORT_VERSIONS {
        let p = projection(&case(r#"{"about":"a","tools":["search.web"]}"#), ver);
        assert_eq!(names(&p, 0), ["search_web"]);
        assert_eq!(p.requests[0].tool_choice, Some(Json::str("auto")));
        assert_eq!(p.error, None, "the scripted 400 is not a finding");
    }
}

/// "The rewrite rules, measured": weather-EU, registered third, comes back
/// first.
#[test]
fn report_rewritten_keys_move_to_the_end() {
    let p = projection(
        &case(r#"{"about":"a","tools":["search.web","a b","weather-EU"]}"#),
        "1.67.0",
    );
    assert_eq!(names(&p, 0), ["weather-EU", "search_web", "a_b"]);
}

/// "Two things that are not broken": execution routes by the rewritten
/// name, the result returns with its tool_call_id, and no tools object is
/// changed.
#[test]
fn report_execution_still_routes_correctly() {
    let c = case(
        r#"{"about":"a","tools":["search.web"],"replies":[
            {"toolCalls":[{"id":"call_1","name":"search_web","arguments":{"city":"Paris"}}]},{"text":"done"}]}"#,
    );
    for ver in REPORT_VERSIONS {
        let p = projection(&c, ver);
        assert_eq!(
            p.executed,
            vec![Executed {
                id: "get-weather".into(),
                input: Json::parse(r#"{"city":"Paris"}"#).unwrap()
            }]
        );
        assert_eq!(p.requests.len(), 2);
        assert_eq!(
            p.requests[1].history,
            vec![
                HistoryItem::Call("search_web".into()),
                HistoryItem::Result {
                    id: "call_1".into(),
                    content: Json::str("{\"tempC\":20}")
                }
            ]
        );
        assert!(p.mutated.is_empty());
    }
}

/// "The truncation is 63, and the providers allow 64."
#[test]
fn report_truncation_is_63() {
    let key = "k".repeat(64);
    let p = projection(
        &case(&format!(r#"{{"about":"a","tools":["{key}"]}}"#)),
        "1.67.0",
    );
    assert_eq!(names(&p, 0), [&key[..63]]);
}

/// "The collision error is the good news": search.web plus search web, and
/// two long keys sharing their first 63 characters.
#[test]
fn report_collision_error() {
    let long = "k".repeat(63);
    for tools in [
        r#"["search.web","search web"]"#.to_string(),
        format!(r#"["{long}a","{long}b"]"#),
    ] {
        for (method, id) in [
            ("generate", "AGENT_GENERATE_FAILED"),
            ("stream", "AGENT_STREAM_FAILED"),
        ] {
            let c = case(&format!(
                r#"{{"about":"a","tools":{tools},"call":{{"method":"{method}"}}}}"#
            ));
            let p = projection(&c, "1.67.0");
            let e = p.error.expect("it throws");
            assert_eq!(e.id, Some(id.into()));
            assert_eq!(e.cause_code, Some("AGENT_TOOL_NAME_COLLISION".into()));
            assert!(e
                .message
                .to_lossy()
                .starts_with("Two or more tools resolve to the same name"));
            assert!(p.requests.is_empty(), "no request is sent");
        }
    }
}

/// "The break: toolChoice does not follow", by the key and by the tool id.
#[test]
fn report_tool_choice_does_not_follow() {
    for name in ["search.web", "get-weather"] {
        let c = case(&format!(
            r#"{{"about":"a","tools":["search.web"],"call":{{"toolChoice":{{"type":"tool","toolName":"{name}"}}}}}}"#
        ));
        for ver in REPORT_VERSIONS {
            let p = projection(&c, ver);
            assert_eq!(names(&p, 0), ["search_web"]);
            let choice = Json::parse(&format!(
                r#"{{"type":"function","function":{{"name":"{name}"}}}}"#
            ))
            .unwrap();
            assert_eq!(p.requests[0].tool_choice, Some(choice));
        }
    }
}

/// "Why the built-in tools table is worth checking": the key wins.
#[test]
fn report_builtins_are_offered_under_their_keys() {
    let by_export = case(
        r#"{"about":"a","tools":[{"key":"askUserTool","builtin":"askUserTool"},{"key":"webFetchTool","builtin":"webFetchTool"}]}"#,
    );
    assert_eq!(
        names(&projection(&by_export, "1.67.0"), 0),
        ["askUserTool", "webFetchTool"]
    );
    let by_id = case(r#"{"about":"a","tools":[{"key":"ask_user","builtin":"askUserTool"}]}"#);
    assert_eq!(names(&projection(&by_id, "1.67.0"), 0), ["ask_user"]);
    let old = projection(&by_id, "1.41.0");
    assert!(!old.applicable, "1.41.0 does not export askUserTool");
}

/// JavaScript underneath: a table of keys and what the model sends.
#[test]
fn javascript_semantics_table() {
    let table: &[(&str, &[&str])] = &[
        (
            r#"["b","c.d","10","9","a","4294967295","4294967294"]"#,
            &["b", "a", "_9", "_10", "_4294967294", "c_d", "_4294967295"],
        ),
        (r#"["a","__proto__","b"]"#, &["a", "b"]),
        (
            r#"["constructor","toString"]"#,
            &["constructor", "toString"],
        ),
        (r#"["😀","\ud800x","ünï"]"#, &["__", "_x", "_n_"]),
    ];
    for (tools, want) in table {
        let p = projection(
            &case(&format!(r#"{{"about":"a","tools":{tools}}}"#)),
            "1.67.0",
        );
        assert_eq!(names(&p, 0), *want, "{tools}");
    }
    let proto_only = projection(&case(r#"{"about":"a","tools":["__proto__"]}"#), "1.67.0");
    assert_eq!(proto_only.requests[0].tools, None);
    assert_eq!(proto_only.requests[0].tool_choice, None);
    let false_collision = projection(&case(r#"{"about":"a","tools":["__proto_."]}"#), "1.67.0");
    assert!(false_collision
        .error
        .unwrap()
        .message
        .to_lossy()
        .contains("\"__proto__\""));
    let empty = projection(&case(r#"{"about":"a","tools":["a",""]}"#), "1.67.0")
        .error
        .unwrap();
    assert_eq!(
        empty.message.to_lossy(),
        "Cannot read properties of undefined (reading 'match')"
    );
    assert_eq!(empty.cause_code, None);
}

#[test]
fn merge_order_keeps_first_position_and_last_tool() {
    let c = case(
        r#"{"about":"a","tools":["t1",{"key":"shared","id":"agent","description":"d"}],
            "toolsets":{"s1":["s1a",{"key":"shared","id":"ts1","description":"d"}],"s2":[{"key":"shared","id":"ts2","description":"d"}]},
            "replies":[{"toolCalls":[{"id":"c","name":"shared","arguments":{"city":"x"}}]},{"text":"ok"}]}"#,
    );
    let p = projection(&c, "1.67.0");
    assert_eq!(names(&p, 0), ["t1", "shared", "s1a"]);
    assert_eq!(p.executed[0].id, JsString::from("ts2"));
}

/// Each release switch, on both sides of its boundary.
#[test]
fn release_switches() {
    let none = case(r#"{"about":"a","tools":["ok"],"call":{"toolChoice":"none"}}"#);
    assert_eq!(
        projection(&none, "1.18.0").requests[0].tool_choice,
        Some(Json::str("none"))
    );
    assert_eq!(projection(&none, "1.19.0").requests[0].tools, None);

    let active =
        case(r#"{"about":"a","tools":["search.web","ok"],"call":{"activeTools":["search.web"]}}"#);
    assert_eq!(
        names(&projection(&active, "1.0.4"), 0),
        ["ok", "search_web"]
    );
    assert_eq!(projection(&active, "1.1.0").requests[0].tools, None);

    let unknown = case(
        r#"{"about":"a","tools":["search.web"],"replies":[{"toolCalls":[{"id":"c","name":"search.web","arguments":{"city":"x"}}]},{"text":"ok"}]}"#,
    );
    assert_eq!(
        projection(&unknown, "1.3.0")
            .error
            .unwrap()
            .message
            .to_lossy(),
        "Tool search.web not found"
    );
    let p = projection(&unknown, "1.4.0");
    assert_eq!(
        p.requests[1].history[0],
        HistoryItem::Call("search.web".into())
    );
    assert_eq!(
        projection(&unknown, "1.9.0").requests[1].history[0],
        HistoryItem::Call("unknown_tool".into())
    );

    let retry = case(
        r#"{"about":"a","tools":["ok"],"replies":[{"status":500},{"status":500},{"text":"x"}]}"#,
    );
    assert_eq!(projection(&retry, "1.10.0").requests.len(), 3);
    assert_eq!(projection(&retry, "1.11.0").requests.len(), 1);

    let hidden = case(
        r#"{"about":"a","tools":["a","b"],"call":{"activeTools":["a"]},"replies":[{"toolCalls":[{"id":"c","name":"b","arguments":{"city":"x"}}]},{"text":"ok"}]}"#,
    );
    assert_eq!(projection(&hidden, "1.10.0").executed.len(), 1);
    assert!(projection(&hidden, "1.11.0").executed.is_empty());

    let steps = case(
        r#"{"about":"a","tools":["ok"],"replies":[{"toolCalls":[{"id":"1","name":"ok","arguments":{"city":"x"}}]},{"toolCalls":[{"id":"2","name":"ok","arguments":{"city":"x"}}]},{"text":"ok"}]}"#,
    );
    let merged = &projection(&steps, "1.15.0").requests[2].history;
    assert!(matches!(
        (&merged[0], &merged[1]),
        (HistoryItem::Call(_), HistoryItem::Call(_))
    ));
    let interleaved = &projection(&steps, "1.16.0").requests[2].history;
    assert!(matches!(
        (&interleaved[0], &interleaved[1]),
        (HistoryItem::Call(_), HistoryItem::Result { .. })
    ));
}

fn key_strategy() -> impl Strategy<Value = Vec<u16>> {
    let unit = prop_oneof![
        4 => prop::sample::select(b"abzAZ09_-.: /".iter().map(|&b| u16::from(b)).collect::<Vec<_>>()),
        1 => Just(0xD800u16),
        1 => Just(0xDE00u16),
        1 => 0x80u16..0xD7FF,
    ];
    prop::collection::vec(unit, 0..70)
}

proptest! {
    /// Every name sent matches ^[A-Za-z_][A-Za-z0-9_-]{0,62}$.
    #[test]
    fn every_name_sent_is_a_legal_name(keys in prop::collection::vec(key_strategy(), 1..6)) {
        let tools: Vec<Json> = keys.iter().map(|k| Json::String(JsString::from_units(k.clone()))).collect();
        let raw = Json::object([("about", Json::str("p")), ("tools", Json::Array(tools))]);
        let c = Case::from_json(Path::new("p.json"), raw).unwrap();
        if let Prediction::Projection(p) = predict(&c, v("1.67.0")) {
            for r in &p.requests {
                for name in r.tools.iter().flatten() {
                    let u = name.units();
                    prop_assert!(!u.is_empty() && u.len() <= 63);
                    prop_assert!(matches!(u[0], 0x41..=0x5A | 0x61..=0x7A | 0x5F));
                    prop_assert!(u.iter().all(|&c| matches!(c, 0x30..=0x39 | 0x41..=0x5A | 0x61..=0x7A | 0x5F | 0x2D)));
                }
            }
        }
    }

    /// A key that is already valid is never rewritten.
    #[test]
    fn valid_keys_are_never_rewritten(key in "[A-Za-z_][A-Za-z0-9_-]{0,62}") {
        let k = JsString::from(key.as_str());
        prop_assert_eq!(rewrite::rewrite(&k), rewrite::Rewrite::Kept);
        prop_assert_eq!(rewrite::wire_name(&k), Some(k));
    }

    /// A prediction depends on nothing but the case and the version.
    #[test]
    fn predictions_are_pure(keys in prop::collection::vec(key_strategy(), 0..5), minor in 0u32..72) {
        let tools: Vec<Json> = keys.iter().map(|k| Json::String(JsString::from_units(k.clone()))).collect();
        let raw = Json::object([("about", Json::str("p")), ("tools", Json::Array(tools))]);
        let c = Case::from_json(Path::new("p.json"), raw).unwrap();
        let version = MastraVersion::new(1, minor, 0);
        prop_assert_eq!(predict(&c, version), predict(&c.clone(), version));
    }
}

/// From 1.71.0 a stream starts calls found under their own name while it
/// is still arriving; a call found by id runs after them.
#[test]
fn eager_stream_execution_from_1_71_0() {
    let c = |method: &str| {
        case(&format!(
            r#"{{"about":"a","tools":["a",{{"key":"0","id":"0","description":"d"}}],"call":{{"method":"{method}"}},
               "replies":[{{"toolCalls":[{{"id":"1","name":"get-weather","arguments":{{"city":"x"}}}},
                                        {{"id":"2","name":"_0","arguments":{{"city":"x"}}}}]}},{{"text":"ok"}}]}}"#
        ))
    };
    let ids = |p: Projection| {
        p.executed
            .iter()
            .map(|e| e.id.to_lossy())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ids(projection(&c("stream"), "1.70.0")),
        ["get-weather", "0"]
    );
    assert_eq!(
        ids(projection(&c("stream"), "1.71.0")),
        ["0", "get-weather"]
    );
    assert_eq!(
        ids(projection(&c("generate"), "1.71.0")),
        ["get-weather", "0"]
    );
    let history = &projection(&c("stream"), "1.71.0").requests[1].history;
    assert_eq!(
        history[0],
        HistoryItem::Call("get-weather".into()),
        "history keeps the calls' order"
    );
}

/// From 1.69.0 a later call of an id used before in the step starts after
/// the step's other calls, where the step runs its calls concurrently.
#[test]
fn reused_id_runs_last_in_a_concurrent_step_from_1_69_0() {
    let c = |third: &str| {
        case(&format!(
            r#"{{"about":"a","tools":["a","b"],
               "replies":[{{"toolCalls":[{{"id":"1","name":"a","arguments":{{"city":"x"}}}},
                                        {{"id":"1","name":"b","arguments":{{"city":"y"}}}},
                                        {{"id":"2","name":"{third}","arguments":{{"city":"z"}}}}]}},{{"text":"ok"}}]}}"#
        ))
    };
    let cities = |p: Projection| {
        p.executed
            .iter()
            .map(|e| {
                e.input
                    .get("city")
                    .and_then(Json::as_str)
                    .unwrap()
                    .to_lossy()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(cities(projection(&c("a"), "1.68.0")), ["x", "y", "z"]);
    assert_eq!(cities(projection(&c("a"), "1.69.0")), ["x", "z", "y"]);
    // A call naming no tool makes the step run one call at a time.
    assert_eq!(cities(projection(&c("nope"), "1.69.0")), ["x", "y"]);
}

/// From 1.71.0 on stream() the eager run of an id answers the id's first
/// call whatever it names, and the id's later call runs again.
#[test]
fn eager_run_answers_the_first_call_of_its_id() {
    let c = case(
        r#"{"about":"a","tools":["a"],"call":{"method":"stream"},"route":"anthropic",
           "replies":[{"toolCalls":[{"id":"1","name":"constructor","arguments":{"city":"x"}},
                                    {"id":"1","name":"a","arguments":{"city":"y"}}]},{"text":"ok"}]}"#,
    );
    let before = projection(&c, "1.70.0");
    assert_eq!(before.requests.len(), 1, "an inherited name stops the loop");
    assert_eq!(before.executed.len(), 1);
    let eager = projection(&c, "1.71.0");
    assert_eq!(eager.requests.len(), 2, "the loop goes on");
    assert_eq!(eager.executed.len(), 2, "the later call runs again");
}

/// The routes: a named choice for a rewritten key keeps every
/// tool on every route but mistral, where the provider filters them by the
/// key and keeps none.
#[test]
fn routes_mistral_drops_every_tool_for_a_rewritten_named_choice() {
    let c = case(
        r#"{"about":"a","tools":["search.web","other"],"route":"mistral",
            "call":{"toolChoice":{"type":"tool","toolName":"search.web"}}}"#,
    );
    for ver in ["1.0.4", "1.67.0", "1.71.0"] {
        let p = projection(&c, ver);
        assert_eq!(p.requests[0].tools, Some(vec![]), "{ver}");
        assert_eq!(p.requests[0].tool_choice, Some(Json::str("any")), "{ver}");
    }
    let valid = case(
        r#"{"about":"a","tools":["search.web","other"],"route":"mistral",
            "call":{"toolChoice":{"type":"tool","toolName":"other"}}}"#,
    );
    assert_eq!(names(&projection(&valid, "1.67.0"), 0), ["other"]);
}

/// History per route: google results go back by the call's name with the
/// output as an object; openai before 1.51.0 refers to the stored call.
#[test]
fn routes_history_is_written_in_each_providers_terms() {
    let with = |route: &str| {
        case(&format!(
            r#"{{"about":"a","tools":["search.web"],"route":"{route}","replies":[
                {{"toolCalls":[{{"id":"call_1","name":"search_web","arguments":{{"city":"Paris"}}}}]}},
                {{"text":"done"}}]}}"#
        ))
    };
    let history = |c: &Case, ver: &str| {
        let p = projection(c, ver);
        assert_eq!(p.executed.len(), 1, "{ver}");
        p.requests[1].to_json().get("history").unwrap().to_compact()
    };
    assert_eq!(
        history(&with("google"), "1.67.0"),
        r#"[{"call":"search_web"},{"result":{"id":"search_web","content":{"tempC":20}}}]"#
    );
    assert_eq!(
        history(&with("openai"), "1.50.1"),
        r#"[{"ref":"fc_0"},{"result":{"id":"call_1","content":"{\"tempC\":20}"}}]"#
    );
    assert_eq!(
        history(&with("openai"), "1.51.0"),
        r#"[{"call":"search_web"},{"result":{"id":"call_1","content":"{\"tempC\":20}"}}]"#
    );
    assert_eq!(
        history(&with("anthropic"), "1.0.4"),
        history(&with("groq"), "1.0.4")
    );
}

/// The content of the result a request carries for `call_id`, as text.
fn result_text(p: &Projection, request: usize, call_id: &str) -> String {
    p.requests[request]
        .history
        .iter()
        .find_map(|h| match h {
            HistoryItem::Result { id, content } if id.to_lossy() == call_id => {
                content.as_str().map(JsString::to_lossy)
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no result for {call_id} in request {request}"))
}

/// Found by the full matrix: from 1.8.0 to 1.10.0 a sub-agent's own request
/// carries the parent's history of the steps before the current one,
/// exactly as the parent's request for this step carried it; not the calls
/// of its own step. Before (1.7.0) and after (1.13.2, tool parts stripped)
/// it carries none.
#[test]
fn sub_agent_request_carries_parent_history_on_1_8_0_to_1_10_0() {
    // Step 1 calls a name nothing has (a result, sanitised in history from
    // 1.9.0), step 2 a case tool beside the sub-agent; request 2 is the
    // sub-agent's.
    let c = case(
        r#"{"about":"a","tools":["search.web","ok"],"agents":["s"],"replies":[
            {"toolCalls":[{"id":"call_1","name":"search.web","arguments":{"city":"Paris"}}]},
            {"toolCalls":[{"id":"call_2","name":"ok","arguments":{"city":"Paris"}},
                          {"id":"call_3","name":"agent-s","arguments":{"prompt":"Paris"}}]},
            {"text":"sub done"},{"text":"done"}]}"#,
    );
    for ver in ["1.8.0", "1.9.0", "1.10.0"] {
        let p = projection(&c, ver);
        assert_eq!(p.requests.len(), 4, "{ver}");
        assert_eq!(
            p.requests[2].tools, None,
            "{ver}: the sub-agent has no tools"
        );
        assert_eq!(p.requests[2].history.len(), 2, "{ver}");
        assert_eq!(p.requests[2].history, p.requests[1].history, "{ver}");
        assert!(
            !p.requests[2]
                .history
                .contains(&HistoryItem::Call("ok".into())),
            "{ver}: the call beside the sub-agent's is not in its history"
        );
    }
    // The parent's names as this release writes them.
    assert_eq!(
        projection(&c, "1.8.0").requests[2].history[0],
        HistoryItem::Call("search.web".into())
    );
    assert_eq!(
        projection(&c, "1.9.0").requests[2].history[0],
        HistoryItem::Call("unknown_tool".into())
    );
    for ver in ["1.7.0", "1.13.2", "1.16.0", "1.67.0"] {
        let p = projection(&c, ver);
        assert!(!p.requests[1].history.is_empty(), "{ver}");
        assert!(p.requests[2].history.is_empty(), "{ver}");
    }
    // 1.11.0 rejects the sub-agent call and 1.12.0 throws: no sub-agent
    // request to carry anything.
    assert_eq!(projection(&c, "1.11.0").requests.len(), 3);
    assert_eq!(projection(&c, "1.12.0").requests.len(), 0);
}

/// Found by the full matrix: from 1.8.0, with memory options on the call,
/// a sub-agent is given the parent's thread and resource, and its ids
/// derive from them; without, they are a fresh UUID and `probe-KEY`.
#[test]
fn sub_agent_ids_derive_from_the_parents_memory_from_1_8_0() {
    let c = |memory: &str, name: &str| {
        case(&format!(
            r#"{{"about":"a","agents":["a.b"]{memory},"replies":[
                {{"toolCalls":[{{"id":"call_1","name":"{name}","arguments":{{"prompt":"Paris"}}}}]}},
                {{"text":"sub done"}},{{"text":"done"}}]}}"#
        ))
    };
    let memory = r#","memory":{"workingMemory":false}"#;
    let ids = |p: &Projection| {
        let output = Json::parse(&result_text(p, 2, "call_1")).unwrap();
        let field = |k: &str| output.get(k).and_then(Json::as_str).unwrap().to_lossy();
        (field("subAgentThreadId"), field("subAgentResourceId"))
    };
    let fresh = ("<uuid>".to_string(), "probe-a.b".to_string());
    let parents = (
        "mastra-conform-thread-<uuid>".to_string(),
        "mastra-conform-a.b".to_string(),
    );
    assert_eq!(ids(&projection(&c(memory, "agent-a_b"), "1.7.0")), fresh);
    assert_eq!(ids(&projection(&c("", "agent-a_b"), "1.8.0")), fresh);
    for ver in ["1.8.0", "1.10.0", "1.13.2", "1.30.0"] {
        assert_eq!(
            ids(&projection(&c(memory, "agent-a_b"), ver)),
            parents,
            "{ver}"
        );
    }
    // From 1.31.0 a call by name gets the text alone; a call by the tool's
    // id still gets the whole output, with the same ids.
    assert_eq!(
        result_text(&projection(&c(memory, "agent-a_b"), "1.31.0"), 2, "call_1"),
        "sub done"
    );
    assert_eq!(ids(&projection(&c(memory, "agent-a.b"), "1.67.0")), parents);
    assert_eq!(ids(&projection(&c("", "agent-a.b"), "1.67.0")), fresh);
}

/// Found by the nightly on 1.11.0: a thread and resource the call sends
/// itself are the sub-agent's as sent before 1.8.0, its ids derive from
/// them from 1.8.0 to 1.10.0 (`args.threadId || ...`), and from 1.11.0 the
/// loop sets the call's own (none without memory options): 1.11.0 quotes
/// the prompt alone, later releases give fresh ids. A `null` one is gone
/// from 1.8.0 (`null || undefined`).
#[test]
fn sub_agent_ids_the_call_sends_are_kept_until_1_11_0() {
    let c = |args: &str| {
        case(&format!(
            r#"{{"about":"a","agents":["s"],"replies":[
                {{"toolCalls":[{{"id":"call_1","name":"agent-s","arguments":{args}}}]}},
                {{"text":"done"}}],"subAgentReplies":{{"s":[{{"text":"one"}}]}}}}"#
        ))
    };
    let sent = c(r#"{"prompt":"Paris","threadId":"t1","resourceId":"r1"}"#);
    let ids = |ver: &str| {
        let output = Json::parse(&result_text(&projection(&sent, ver), 2, "call_1")).unwrap();
        let field = |k: &str| output.get(k).and_then(Json::as_str).unwrap().to_lossy();
        (field("subAgentThreadId"), field("subAgentResourceId"))
    };
    let pair = |t: &str, r: &str| (t.to_string(), r.to_string());
    for ver in ["1.0.4", "1.7.0"] {
        assert_eq!(ids(ver), pair("t1", "r1"), "{ver}");
    }
    for ver in ["1.8.0", "1.10.0"] {
        assert_eq!(ids(ver), pair("t1-<uuid>", "r1-s"), "{ver}");
    }
    for ver in ["1.13.2", "1.30.0"] {
        assert_eq!(ids(ver), pair("<uuid>", "probe-s"), "{ver}");
    }
    let quoted = |case: &Case| {
        let result = Json::parse(&result_text(&projection(case, "1.11.0"), 1, "call_1")).unwrap();
        let message = result.get("message").and_then(Json::as_str).unwrap();
        let message = message.to_lossy();
        Json::parse(message.split_once("Provided arguments: ").unwrap().1).unwrap()
    };
    let prompt_alone = Json::object([("prompt", Json::str("Paris"))]);
    assert_eq!(quoted(&sent), prompt_alone);
    assert_eq!(
        quoted(&c(r#"{"prompt":"Paris","threadId":null}"#)),
        prompt_alone
    );
}

/// On 1.11.0 the sub-agent call fails validation, and the arguments it
/// quotes are those the agent loop set: with memory options, the parent's
/// thread and resource after the prompt.
#[test]
fn sub_agent_validation_error_quotes_the_parents_memory_on_1_11_0() {
    let c = |memory: &str| {
        case(&format!(
            r#"{{"about":"a","agents":["s"]{memory},"replies":[
                {{"toolCalls":[{{"id":"call_1","name":"agent-s","arguments":{{"prompt":"Paris"}}}}]}},
                {{"text":"done"}}]}}"#
        ))
    };
    let provided = |p: &Projection| {
        let result = Json::parse(&result_text(p, 1, "call_1")).unwrap();
        let message = result.get("message").and_then(Json::as_str).unwrap();
        let message = message.to_lossy();
        let (_, quoted) = message.split_once("Provided arguments: ").unwrap();
        Json::parse(quoted).unwrap()
    };
    let with = provided(&projection(
        &c(r#","memory":{"workingMemory":true}"#),
        "1.11.0",
    ));
    assert_eq!(
        with.members()
            .unwrap()
            .iter()
            .map(|(k, _)| k.to_lossy())
            .collect::<Vec<_>>(),
        ["prompt", "threadId", "resourceId"]
    );
    assert_eq!(
        with.get("threadId"),
        Some(&Json::str("mastra-conform-thread"))
    );
    assert_eq!(with.get("resourceId"), Some(&Json::str("mastra-conform")));
    let without = provided(&projection(&c(""), "1.11.0"));
    assert_eq!(without, Json::object([("prompt", Json::str("Paris"))]));
}

/// Found by the full matrix: on 1.57.0 a call with memory options whose loop
/// had a failed tool call (a name nothing has) ends in the AI SDK's
/// "ToolInvocation must have a result" error, naming the first failed
/// invocation; the requests are sent as on other releases. Not without
/// memory, not on 1.55.0 or 1.58.0.
#[test]
fn failed_call_ends_a_memory_call_on_1_57_0() {
    let c = |memory: &str, route: &str| {
        case(&format!(
            r#"{{"about":"a","tools":["ok"]{memory},"route":"{route}","replies":[
                {{"toolCalls":[{{"id":"call_1","name":"ok","arguments":{{"city":"Paris"}}}}]}},
                {{"toolCalls":[{{"id":"call_2","name":"ok","arguments":{{"city":"Paris"}}}},
                              {{"id":"call_3","name":"search.web","arguments":{{"city":"Paris"}}}},
                              {{"id":"call_4","name":"nope","arguments":{{"city":"Paris"}}}}]}},
                {{"toolCalls":[{{"id":"call_5","name":"nope","arguments":{{"city":"Paris"}}}}]}},
                {{"text":"done"}}]}}"#
        ))
    };
    let memory = r#","memory":{"workingMemory":false}"#;
    let with = projection(&c(memory, "openai-compatible"), "1.57.0");
    let error = with.error.as_ref().expect("the call ends in an error");
    assert_eq!(error.id, None);
    assert_eq!(error.cause_code, None);
    let message = error.message.to_lossy();
    let invocation = message
        .strip_prefix("ToolInvocation must have a result: ")
        .unwrap();
    let invocation = Json::parse(invocation).unwrap();
    // The first failed call, in the second step (`step` 0), its name as
    // history writes it, its error text as its result carries it.
    assert_eq!(
        invocation
            .members()
            .unwrap()
            .iter()
            .map(|(k, _)| k.to_lossy())
            .collect::<Vec<_>>(),
        [
            "step",
            "state",
            "toolCallId",
            "toolName",
            "args",
            "errorText"
        ]
    );
    assert_eq!(invocation.get("step"), Some(&Json::int(0)));
    assert_eq!(invocation.get("toolCallId"), Some(&Json::str("call_3")));
    assert_eq!(invocation.get("toolName"), Some(&Json::str("unknown_tool")));
    assert_eq!(
        invocation
            .get("errorText")
            .and_then(Json::as_str)
            .map(JsString::to_lossy),
        Some(result_text(&with, 2, "call_3"))
    );
    // Everything else as on the releases around it.
    let before = projection(&c(memory, "openai-compatible"), "1.55.0");
    let after = projection(&c(memory, "openai-compatible"), "1.58.0");
    assert_eq!(before.error, None);
    assert_eq!(after.error, None);
    assert_eq!(with.requests, after.requests);
    assert_eq!(with.executed, after.executed);
    assert_eq!(
        projection(&c("", "openai-compatible"), "1.57.0").error,
        None
    );
    // A failure in the first step has no `step`.
    let first = case(&format!(
        r#"{{"about":"a","tools":["ok"]{memory},"replies":[
            {{"toolCalls":[{{"id":"c","name":"nope","arguments":{{"city":"Paris"}}}}]}}]}}"#
    ));
    let message = projection(&first, "1.57.0")
        .error
        .unwrap()
        .message
        .to_lossy();
    assert!(
        message.starts_with(
            r#"ToolInvocation must have a result: {"state":"output-error","toolCallId":"c","#
        ),
        "{message}"
    );
    // On google the invocation names the AI SDK's random call id.
    assert!(matches!(
        predict(&c(memory, "google"), v("1.57.0")),
        Prediction::Unmodelled(_)
    ));
    assert!(matches!(
        predict(&c(memory, "google"), v("1.58.0")),
        Prediction::Projection(_)
    ));
}

/// On google a tool's output goes back as the object itself: a sub-agent's
/// whole output and 1.11.0's validation report too; the text alone (a call
/// by name from 1.31.0) and the not-found message stay strings.
#[test]
fn routes_google_sends_sub_agent_outputs_as_objects() {
    let c = |name: &str| {
        case(&format!(
            r#"{{"about":"a","agents":["a.b"],"route":"google","replies":[
                {{"toolCalls":[{{"id":"call_1","name":"{name}","arguments":{{"prompt":"Paris"}}}}]}},
                {{"text":"sub done"}},{{"text":"done"}}]}}"#
        ))
    };
    let content = |c: &Case, ver: &str, request: usize| match &projection(c, ver).requests[request]
        .history[1]
    {
        HistoryItem::Result { content, .. } => content.clone(),
        other => panic!("{ver}: not a result: {other:?}"),
    };
    let whole = content(&c("agent-a_b"), "1.30.0", 2);
    assert_eq!(whole.get("text"), Some(&Json::str("sub done")));
    assert_eq!(
        whole.get("subAgentResourceId"),
        Some(&Json::str("probe-a.b"))
    );
    assert_eq!(content(&c("agent-a_b"), "1.31.0", 2), Json::str("sub done"));
    assert_eq!(
        content(&c("agent-a.b"), "1.67.0", 2).get("text"),
        Some(&Json::str("sub done"))
    );
    let report = content(&c("agent-a_b"), "1.11.0", 1);
    assert_eq!(report.get("error"), Some(&Json::Bool(true)));
    // The same outputs on a Chat Completions route are their JSON text.
    let text = case(
        r#"{"about":"a","agents":["a.b"],"replies":[
            {"toolCalls":[{"id":"call_1","name":"agent-a_b","arguments":{"prompt":"Paris"}}]},
            {"text":"sub done"},{"text":"done"}]}"#,
    );
    assert_eq!(
        projection(&text, "1.30.0").requests[2].history[1],
        HistoryItem::Result {
            id: "call_1".into(),
            content: Json::String(JsString::from(whole.to_compact().as_str())),
        }
    );
}

/// A call id used twice in one run is merged by Mastra's message list: the
/// later call replaces the earlier where it stood, keeping the earlier
/// call's name before 1.14.0 and taking the later one's from it (observed on
/// 1.0.4, 1.67.0 and 1.71.0 on every route, `cases/calls/reused-call-id.json`);
/// not on google, whose calls carry the AI SDK's own ids.
#[test]
fn a_repeated_call_id_is_one_invocation_except_on_google() {
    let c = |route: &str, second: &str| {
        case(&format!(
            r#"{{"about":"a","tools":["ok","b"],"route":"{route}","replies":[
                {{"toolCalls":[{{"id":"call_1","name":"ok","arguments":{{"city":"Paris"}}}}]}},
                {{"toolCalls":[{{"id":"{second}","name":"b","arguments":{{"city":"Lyon"}}}}]}},
                {{"text":"done"}}]}}"#
        ))
    };
    let calls = |p: &Projection| -> Vec<String> {
        p.requests[2]
            .history
            .iter()
            .filter_map(|h| match h {
                HistoryItem::Call(name) => Some(name.to_lossy()),
                _ => None,
            })
            .collect()
    };
    for (ver, kept) in [
        ("1.0.4", "ok"),
        ("1.13.2", "ok"),
        ("1.14.0", "b"),
        ("1.71.0", "b"),
    ] {
        let merged = projection(&c("openai-compatible", "call_1"), ver);
        assert_eq!(calls(&merged), [kept], "{ver}");
        let apart = projection(&c("openai-compatible", "call_2"), ver);
        assert_eq!(calls(&apart), ["ok", "b"], "{ver}");
        assert_eq!(
            calls(&projection(&c("google", "call_1"), ver)),
            ["ok", "b"],
            "{ver}"
        );
    }
}

/// The calls and results of a request's history, written `C:name` and
/// `R:id`.
fn history_outline(p: &Projection, request: usize) -> Vec<String> {
    p.requests[request]
        .history
        .iter()
        .map(|h| match h {
            HistoryItem::Call(n) => format!("C:{}", n.to_lossy()),
            HistoryItem::Ref(r) => format!("F:{}", r.to_lossy()),
            HistoryItem::Result { id, .. } => format!("R:{}", id.to_lossy()),
        })
        .collect()
}

/// A later step reusing an id joins the earlier step, its other calls put
/// before the reused one when they come first (`REUSED_ID_MERGES_STEPS`),
/// except from 1.14.0 through 1.25.0, where it stays a step of its own.
#[test]
fn a_step_reusing_an_id_joins_the_earlier_step_outside_1_14_0_to_1_25_0() {
    let c = case(
        r#"{"about":"a","tools":[],"replies":[
            {"toolCalls":[{"id":"call_3","name":"x","arguments":{}},{"id":"call_5","name":"c","arguments":{}}]},
            {"toolCalls":[{"id":"call_4","name":"y","arguments":{}},{"id":"call_3","name":"z","arguments":{}}]},
            {"text":"done"}]}"#,
    );
    let outline = |ver: &str| history_outline(&projection(&c, ver), 2).join(" ");
    assert_eq!(outline("1.25.0"), "C:z C:c R:call_3 R:call_5 C:y R:call_4");
    assert_eq!(outline("1.26.0"), "C:y C:z C:c R:call_4 R:call_3 R:call_5");
    assert_eq!(outline("1.67.0"), outline("1.26.0"));
    // Before 1.14.0 the earlier name stays, and every call precedes every
    // result there (no history per step before 1.16.0).
    assert_eq!(outline("1.13.2"), "C:y C:x C:c R:call_4 R:call_3 R:call_5");
    // Two ids reused out of order: the call between them would go past the
    // next anchor, and is dropped.
    let dropped = case(
        r#"{"about":"a","tools":[],"replies":[
            {"toolCalls":[{"id":"c1","name":"p","arguments":{}},{"id":"c3","name":"q","arguments":{}}]},
            {"toolCalls":[{"id":"c3","name":"r","arguments":{}},{"id":"c5","name":"s","arguments":{}},{"id":"c1","name":"t","arguments":{}}]},
            {"text":"done"}]}"#,
    );
    assert_eq!(
        history_outline(&projection(&dropped, "1.67.0"), 2).join(" "),
        "C:t C:r R:c1 R:c3"
    );
    // google's calls carry the AI SDK's own ids: every call and result
    // is kept.
    let mut google = c.clone();
    google.route = crate::route::Route::Google;
    assert_eq!(projection(&google, "1.67.0").requests[2].history.len(), 8);
}

/// In one step, a call whose arguments have no keys runs with a later call's
/// of its id from 1.29.0 (`EMPTY_ARGUMENTS_TAKE_LATER`); the later call runs
/// with its own, and a call with keys keeps them.
#[test]
fn empty_arguments_take_a_later_calls_of_the_id_from_1_29_0() {
    let c = |first: &str| {
        case(&format!(
            r#"{{"about":"a","tools":["a"],"replies":[
                {{"toolCalls":[{{"id":"call_2","name":"a","arguments":{first}}},
                              {{"id":"call_2","name":"a","arguments":{{"city":"Paris"}}}}]}},
                {{"text":"done"}}]}}"#
        ))
    };
    let inputs = |c: &Case, ver: &str| {
        projection(c, ver)
            .executed
            .iter()
            .map(|e| e.input.to_compact())
            .collect::<Vec<_>>()
    };
    let paris = || r#"{"city":"Paris"}"#.to_string();
    assert_eq!(inputs(&c("{}"), "1.28.0"), [paris()]);
    for ver in ["1.29.0", "1.29.1"] {
        assert_eq!(inputs(&c("{}"), ver), [paris(), paris()], "{ver}");
    }
    assert_eq!(inputs(&c("null"), "1.67.0"), [paris(), paris()]);
    assert_eq!(inputs(&c(r#"{"x":1}"#), "1.67.0"), [paris()]);
    assert_eq!(inputs(&c(r#"{"city":4}"#), "1.67.0"), [paris()]);
}

/// A call with memory that an HTTP 400 ends, after a step that ran a tool:
/// on 1.57.0 and 1.58.0 the thread keeps none of it, so the next turn
/// recalls nothing (`FAILED_CALL_NOT_STORED`); on 1.55.0 and 1.59.0 the
/// call and its result are recalled.
#[test]
fn a_call_an_api_error_ends_is_not_stored_on_1_57_0_and_1_58_0() {
    let c = case(
        r#"{"about":"a","tools":["search.web"],"memory":true,"turns":[{},{}],"replies":[
            {"toolCalls":[{"id":"call_1","name":"search_web","arguments":{"city":"Paris"}}]},
            {"status":400},{"text":"ok"}]}"#,
    );
    let recalled = |version: &str| {
        let p = projection(&c, version);
        let turns = p.turns.expect("turns");
        turns[1].requests[0].history.len()
    };
    assert_eq!(recalled("1.55.0"), 2);
    assert_eq!(recalled("1.57.0"), 0);
    assert_eq!(recalled("1.58.0"), 0);
    assert_eq!(recalled("1.59.0"), 2);
}

/// A call with memory whose tool call failed (a name no tool has) ends in
/// "ToolInvocation must have a result" on 1.57.0
/// (`TOOL_ERROR_ENDS_MEMORY_CALLS`), but only once the thread is written:
/// the next turn recalls the failed call and its result, as on 1.55.0 and
/// 1.58.0, where the call ends normally.
#[test]
fn a_call_a_failed_tool_call_ends_is_stored_on_1_57_0() {
    let c = case(
        r#"{"about":"a","tools":["search.web"],"memory":true,"turns":[{},{}],"replies":[
            {"toolCalls":[{"id":"call_1","name":"search.web","arguments":{"city":"Paris"}}]},
            {"text":"done"},{"text":"ok"}]}"#,
    );
    let turns = |version: &str| projection(&c, version).turns.expect("turns");
    let first = turns("1.57.0")[0]
        .error
        .clone()
        .expect("an error on 1.57.0");
    let message = first.to_json().to_compact();
    assert!(
        message.contains("ToolInvocation must have a result"),
        "{message}"
    );
    for version in ["1.55.0", "1.57.0", "1.58.0"] {
        let recalled = &turns(version)[1].requests[0].history;
        assert_eq!(recalled.len(), 2, "{version}: {recalled:?}");
    }
    assert!(turns("1.58.0")[0].error.is_none());
}

/// On 1.12.0 a call that must wait for approval fails as a tool error
/// (`APPROVAL_SUSPEND_THROWS`): nothing waits or runs, the next request
/// carries the error as the call's result, and the run goes on.
#[test]
fn a_call_that_must_wait_fails_on_1_12_0() {
    let c = case(
        r#"{"about":"a","tools":[{"key":"files.delete","id":"delete-file","description":"d"}],
            "call":{"method":"stream","requireToolApproval":true},
            "replies":[{"toolCalls":[{"id":"call_1","name":"files_delete","arguments":{"city":"Paris"}}]},{"text":"done"}],
            "approvals":{"call_1":"approve"}}"#,
    );
    let p = projection(&c, "1.12.0");
    assert!(p.executed.is_empty(), "{:?}", p.executed);
    assert_eq!(p.requests.len(), 2);
    let last = p.requests[1].to_json().to_compact();
    assert!(last.contains("z.toJSONSchema is not available"), "{last}");
    let seen = p.seen.expect("seen");
    assert!(seen.pending.is_empty(), "{:?}", seen.pending);
    assert_eq!(seen.stream.last().unwrap().0, JsString::from("tool-error"));
    let held = projection(&c, "1.13.2").seen.expect("seen");
    assert_eq!(held.pending.len(), 1);
}

/// Found by the nightly (fuzz seed 20261207 case 75, shrunk): on a stream,
/// a step that a client tool's call stops still streams the `tool-error` of
/// each call that failed at once (a name no tool has; `null` arguments,
/// refused from 1.6.0), from 1.4.0, where such a call stopped ending the
/// run; before STOP_STEP_LISTS_RESULTS no run's result follows, and from it
/// the results follow them.
#[test]
fn a_stopped_stream_step_streams_the_calls_that_failed_at_once() {
    let c = case(
        r#"{"about":"a","tools":["t"],"clientTools":["a"],"call":{"method":"stream"},"replies":[
            {"toolCalls":[
                {"id":"call_1","name":"a","arguments":{"city":"Paris"}},
                {"id":"call_2","name":"f","arguments":{"city":"Paris"}},
                {"id":"call_3","name":"t","arguments":null}]}]}"#,
    );
    let after_calls = |ver: &str| {
        let seen = projection(&c, ver).seen.expect("seen");
        let last_call = seen
            .stream
            .iter()
            .rposition(|(t, _)| t.to_lossy() == "tool-call")
            .unwrap();
        seen.stream[last_call + 1..]
            .iter()
            .map(|(t, n)| format!("{} {}", t.to_lossy(), n.as_str().unwrap().to_lossy()))
            .collect::<Vec<_>>()
    };
    assert_eq!(after_calls("1.4.0"), ["tool-error f"]);
    for ver in ["1.6.0", "1.30.0", "1.59.0"] {
        assert_eq!(after_calls(ver), ["tool-error f", "tool-error t"], "{ver}");
    }
    assert!(
        after_calls("1.3.0").is_empty(),
        "before 1.4.0 the name no tool has ends the run"
    );
}

/// Found by the nightly (fuzz seed 20261206 case 25 on 1.57.0): with
/// memory, a stream whose call named no tool ends in the "ToolInvocation
/// must have a result" error after a text answer, with its `toolCalls` and
/// `toolResults` resolved; one that an API error ends (no reply left) ends
/// without it; `generate()` ends in it either way and hands over nothing.
#[test]
fn on_1_57_0_a_memory_stream_with_a_failed_call_keeps_its_lists() {
    let c = |method: &str, last: &str| {
        case(&format!(
            r#"{{"about":"a","tools":["a"],"memory":true,"call":{{"method":"{method}"}},"replies":[
                {{"toolCalls":[{{"id":"call_1","name":"f","arguments":{{"city":"Paris"}}}}]}}{last}]}}"#
        ))
    };
    let text = r#",{"text":"done"}"#;
    let invocation = |p: &Projection| {
        p.error.as_ref().is_some_and(|e| {
            e.message
                .to_lossy()
                .starts_with("ToolInvocation must have a result")
        })
    };
    let streamed = projection(&c("stream", text), "1.57.0");
    assert!(invocation(&streamed));
    let seen = streamed.seen.expect("seen");
    assert_eq!(seen.tool_calls, Some(vec![Json::str("f")]));
    assert_eq!(seen.tool_results, Some(vec![]));
    let generated = projection(&c("generate", text), "1.57.0");
    assert!(invocation(&generated));
    assert_eq!(generated.seen.expect("seen").tool_calls, None);
    // No reply left: an API error ends the call.
    assert!(!invocation(&projection(&c("stream", ""), "1.57.0")));
    assert!(invocation(&projection(&c("generate", ""), "1.57.0")));
    // Not on 1.58.0.
    assert!(!invocation(&projection(&c("stream", text), "1.58.0")));
}

/// `listToolsets()` is driven on 1.x only: on 0.x the case is not
/// applicable, with the reason, as the probe says; `listTools()` still runs.
#[test]
fn list_toolsets_is_not_applicable_on_0_x() {
    let c = |listing: &str| {
        case(&format!(
            r#"{{"about":"a","mcp":{{"fs":["delete.file"]}},"mcpListing":"{listing}",
                "replies":[{{"text":"done"}}]}}"#
        ))
    };
    let toolsets = projection(&c("listToolsets"), "0.24.9");
    assert!(!toolsets.applicable);
    assert!(toolsets
        .reason
        .as_deref()
        .unwrap()
        .contains("mcpListing: listToolsets"));
    assert!(projection(&c("listToolsets"), "1.67.0").applicable);
    assert!(projection(&c("listTools"), "0.24.9").applicable);
}

/// `stopWhen: { hasToolCall }` compares the name the model called: the wire
/// name stops the loop after its step, the key does not and the loop has
/// no step limit of its own; beside `maxSteps` it counts from 1.50.1
/// (`STOP_WHEN_BESIDE_MAX_STEPS`); on 0.x the case is not applicable.
#[test]
fn has_tool_call_compares_the_called_name() {
    let c = |name: &str, max: &str| {
        let call = r#"{"toolCalls":[{"id":"c","name":"search_web","arguments":{"city":"P"}}]}"#;
        let calls = [call; 7].join(",");
        case(&format!(
            r#"{{"about":"a","tools":["search.web"],
                "call":{{"stopWhen":{{"hasToolCall":"{name}"}}{max}}},
                "replies":[{calls},{{"text":"done"}}]}}"#
        ))
    };
    let requests = |c: &Case, v: &str| projection(c, v).requests.len();
    assert_eq!(requests(&c("search_web", ""), "1.71.0"), 1);
    assert_eq!(requests(&c("search_web", ""), "1.0.4"), 1);
    // Past the default limit of 5 to the text reply.
    assert_eq!(requests(&c("search.web", ""), "1.71.0"), 8);
    let beside = c("search_web", r#","maxSteps":3"#);
    assert_eq!(requests(&beside, "1.50.0"), 3);
    assert_eq!(requests(&beside, "1.50.1"), 1);
    let legacy = projection(&c("search_web", ""), "0.24.9");
    assert!(!legacy.applicable);
    assert!(legacy.reason.as_deref().unwrap().contains("stopWhen"));
}

/// `toolCallFilter` takes a recalled call out of the next turn's request by
/// the name it was called under (the wire name), with its result; the key
/// and the id take out nothing, and the memory keeps the call either way.
#[test]
fn tool_call_filter_compares_the_called_name() {
    let c = |exclude: &str| {
        let call = r#"{"toolCalls":[{"id":"c1","name":"search_web","arguments":{"city":"P"}}]}"#;
        case(&format!(
            r#"{{"about":"a","tools":["search.web"],"memory":true,
                "toolCallFilter":{{"exclude":["{exclude}"]}},
                "turns":[{{}},{{"prompt":"again"}},{{"prompt":"more"}}],
                "replies":[{call},{{"text":"a"}},{{"text":"b"}},{{"text":"c"}}]}}"#
        ))
    };
    let later = |c: &Case, turn: usize| {
        let p = projection(c, "1.71.0");
        p.turns.expect("turns")[turn].requests[0].history.len()
    };
    assert_eq!(later(&c("search_web"), 1), 0);
    assert_eq!(later(&c("search_web"), 2), 0);
    assert_eq!(later(&c("search.web"), 1), 2);
    assert_eq!(later(&c("get-weather"), 1), 2);
    assert!(!projection(&c("search_web"), "0.24.9").applicable);
}

/// On the Responses API before it sends calls by name (1.0.4), a recalled
/// call goes back by reference, with no name: the filter still takes it
/// out by the name the model called, its result with it, and leaves the
/// recalled answer's reference.
#[test]
fn tool_call_filter_takes_out_a_call_sent_back_by_reference() {
    let c = |exclude: &str| {
        let call = r#"{"toolCalls":[{"id":"c1","name":"search_web","arguments":{"city":"P"}}]}"#;
        case(&format!(
            r#"{{"about":"a","tools":["search.web"],"memory":true,"route":"openai",
                "toolCallFilter":{{"exclude":["{exclude}"]}},
                "turns":[{{}},{{"prompt":"again"}}],
                "replies":[{call},{{"text":"a"}},{{"text":"b"}}]}}"#
        ))
    };
    let later = |c: &Case| {
        let p = projection(c, "1.0.4");
        p.turns.expect("turns")[1].requests[0].history.clone()
    };
    let kept = later(&c("search.web"));
    assert!(kept
        .iter()
        .any(|h| matches!(h, HistoryItem::Ref(id) if id.to_lossy() == "fc_0")));
    assert_eq!(kept.len(), 3, "{kept:?}");
    let dropped = later(&c("search_web"));
    assert_eq!(dropped.len(), 1, "{dropped:?}");
    assert!(matches!(&dropped[0], HistoryItem::Ref(id) if id.to_lossy() != "fc_0"));
}

/// A workspace's read tool renamed `files.read`: from 1.9.0 sent as
/// `files_read` after the agent's tools and run by the name given; before,
/// the name ignored, and first only as the rewrite moves `search_web`
/// after it; before 1.1.0 there is no `Workspace`.
#[test]
fn a_renamed_workspace_tool_is_sent_after_the_agents_tools_from_1_9() {
    let c = |extra: &str| {
        let call =
            r#"{"toolCalls":[{"id":"c1","name":"files.read","arguments":{"path":"a.txt"}}]}"#;
        case(&format!(
            r#"{{"about":"a","tools":["search.web"],"workspace":{{"name":"files.read"}}{extra},
                "replies":[{call},{{"text":"done"}}]}}"#
        ))
    };
    let p = projection(&c(""), "1.9.0");
    assert_eq!(names(&p, 0), ["search_web", "files_read"]);
    let read = &p.requests[1].history[1];
    assert!(
        matches!(read, HistoryItem::Result { content, .. } if content.to_compact().contains("/a.txt (5 bytes)")),
        "{read:?}"
    );
    let before = projection(&c(""), "1.8.0");
    assert_eq!(
        names(&before, 0),
        ["mastra_workspace_read_file", "search_web"]
    );
    assert!(!projection(&c(""), "1.0.4").applicable);
    let helper = c(r#","agents":["helper"]"#);
    assert_eq!(names(&projection(&helper, "1.71.0"), 0)[2], "files_read");
    // Spread last on 1.8.0 too: formatTools moves the rewritten key after
    // the two names it keeps.
    assert_eq!(
        names(&projection(&helper, "1.8.0"), 0),
        ["agent-helper", "mastra_workspace_read_file", "search_web"]
    );
    let kept =
        case(r#"{"about":"a","tools":["zeta","a"],"workspace":{},"replies":[{"text":"done"}]}"#);
    assert_eq!(
        names(&projection(&kept, "1.8.0"), 0),
        ["zeta", "a", "mastra_workspace_read_file"]
    );
}

/// On 1.12.0 a workspace throws before the call's first request, by
/// `generate` and `stream` alike, beside a sub-agent or not; 1.11.0 and
/// 1.13.2 send.
#[test]
fn a_workspace_on_1_12_throws_before_any_request() {
    for (method, id) in [
        ("generate", "AGENT_GENERATE_FAILED"),
        ("stream", "AGENT_STREAM_FAILED"),
    ] {
        for extra in ["", r#","agents":["helper"]"#] {
            let c = case(&format!(
                r#"{{"about":"a","tools":["search.web"],"workspace":{{}}{extra},
                    "call":{{"method":"{method}"}},"replies":[{{"text":"done"}}]}}"#
            ));
            let p = projection(&c, "1.12.0");
            let e = p.error.as_ref().expect("it throws");
            assert_eq!(e.id.as_ref().map(JsString::to_lossy).as_deref(), Some(id));
            assert_eq!(e.message.to_lossy(), releases::SUB_AGENTS_THROW_MESSAGE);
            assert_eq!(e.cause_code, None);
            assert!(p.requests.is_empty(), "{p:?}");
            for near in ["1.11.0", "1.13.2"] {
                assert!(!projection(&c, near).requests.is_empty(), "{near}");
            }
        }
    }
}

/// A read of the workspace's tool without a string `path` gets its
/// validation report under the name given (from 1.9.0); a field it does
/// not have is dropped; a missing file is, from 1.5.0, a tool error
/// `File not found: NAME`, and before, unmodelled; a path outside the
/// folder, unmodelled.
#[test]
fn the_workspace_read_tool_checks_its_arguments() {
    let c = |args: &str| {
        case(&format!(
            r#"{{"about":"a","tools":["search.web"],"workspace":{{"name":"files.read"}},
                "replies":[{{"toolCalls":[{{"id":"c1","name":"files_read","arguments":{args}}}]}},{{"text":"done"}}]}}"#
        ))
    };
    let result = |p: &Projection| match &p.requests[1].history[1] {
        HistoryItem::Result { content, .. } => content.to_compact(),
        other => panic!("{other:?}"),
    };
    let refused = projection(&c(r#"{"path":1}"#), "1.71.0");
    let text = result(&refused);
    assert!(
        text.contains("Tool input validation failed for files.read"),
        "{text}"
    );
    let extra = projection(&c(r#"{"path":"a.txt","x":1}"#), "1.71.0");
    assert!(result(&extra).contains("a.txt (5 bytes)"), "{extra:?}");
    let missing = projection(&c(r#"{"path":"b.txt"}"#), "1.67.0");
    assert!(
        result(&missing).contains("File not found: b.txt"),
        "{missing:?}"
    );
    let seen = missing.seen.as_ref().expect("seen");
    assert_eq!(
        seen.tool_results.as_deref().map(<[_]>::len),
        Some(0),
        "a tool error"
    );
    let own = case(
        r#"{"about":"a","tools":["search.web"],"workspace":{},
            "replies":[{"toolCalls":[{"id":"c1","name":"mastra_workspace_read_file","arguments":{"path":"b.txt"}}]},{"text":"done"}]}"#,
    );
    // Before 1.5.0 the error object is the result
    // (`a_missing_workspace_file_is_a_result_before_1_5_0`).
    let before = projection(&own, "1.4.0");
    assert!(
        result(&before).contains("TOOL_EXECUTION_FAILED"),
        "{before:?}"
    );
    for (args, version) in [
        (r#"{"path":"../b.txt"}"#, "1.71.0"),
        (r#"{"path":"a.txt","limit":1}"#, "1.71.0"),
    ] {
        let p = predict(&c(args), v(version));
        assert!(
            matches!(p, Prediction::Unmodelled(_)),
            "{args} on {version}: {p:?}"
        );
    }
}

/// From 1.9.0 a workspace tool renamed to a name every object inherits
/// throws before any request ("Duplicate workspace tool name"); before,
/// the name is ignored.
#[test]
fn a_workspace_tool_renamed_to_an_inherited_name_throws_from_1_9() {
    for name in ["__defineGetter__", "toString", "__proto__"] {
        let c = case(&format!(
            r#"{{"about":"a","tools":["a"],"workspace":{{"name":"{name}"}},"replies":[{{"text":"done"}}]}}"#
        ));
        let p = projection(&c, "1.9.0");
        let e = p.error.as_ref().expect("it throws");
        assert!(
            e.message
                .to_lossy()
                .starts_with(&format!("Duplicate workspace tool name \"{name}\"")),
            "{e:?}"
        );
        assert!(p.requests.is_empty());
        assert!(projection(&c, "1.8.0").error.is_none(), "{name}");
    }
    let plain = case(
        r#"{"about":"a","tools":["a"],"workspace":{"name":"files.read"},"replies":[{"text":"done"}]}"#,
    );
    assert!(projection(&plain, "1.9.0").error.is_none());
}

/// From 1.19.0 through 1.55.0 a sub-agent's call without a string
/// `prompt` is answered with the error, before validation, and makes no
/// request, while a call of the same step with a prompt runs; on 1.18.0
/// and 1.57.0 the promptless call gets its validation report.
#[test]
fn a_promptless_sub_agent_call_fails_alone_from_1_19_to_1_55() {
    let c = case(
        r#"{"about":"a","agents":["a"],
            "replies":[{"toolCalls":[
              {"id":"call_1","name":"agent-a","arguments":{"prompt":"Paris"}},
              {"id":"call_2","name":"agent-a","arguments":{"task":"Lyon"}}]},
              {"text":"done"}],
            "subAgentReplies":{"a":[{"text":"from a"},{"text":"again"}]}}"#,
    );
    let second_result = |version: &str| {
        let p = projection(&c, version);
        let last = p.requests.last().expect("a last request");
        let content = last.history.iter().find_map(|item| match item {
            HistoryItem::Result { id, content } if id.to_lossy() == "call_2" => {
                Some(content.clone())
            }
            _ => None,
        });
        (p.requests.len(), content.expect("call_2's result"))
    };
    for version in ["1.19.0", "1.30.0", "1.55.0"] {
        let (requests, content) = second_result(version);
        // The parent's two requests and the one call that runs.
        assert_eq!(requests, 3, "{version}");
        assert_eq!(
            content,
            Json::str(releases::SUB_AGENT_PROMPTLESS_MESSAGE),
            "{version}"
        );
    }
    for version in ["1.18.0", "1.57.0"] {
        let (_, content) = second_result(version);
        assert_ne!(
            content,
            Json::str(releases::SUB_AGENT_PROMPTLESS_MESSAGE),
            "{version}"
        );
    }
}

/// Code Mode's functions: a tool keyed `search.web` with the id
/// `get-weather` runs by `external_get_weather` alone, from 1.38.0; two ids
/// meeting in one name throw before any request.
#[test]
fn code_mode_runs_a_tool_by_its_id_made_an_identifier_from_1_38() {
    let c = |tools: &str, name: &str| {
        let code = format!(r#"return await globalThis[\"{name}\"]({{\"city\":\"Paris\"}});"#);
        case(&format!(
            r#"{{"about":"a","tools":{tools},"codeMode":{{}},
                "replies":[{{"toolCalls":[{{"id":"c1","name":"execute_typescript","arguments":{{"code":"{code}"}}}}]}},{{"text":"done"}}]}}"#
        ))
    };
    let tool = r#"[{"key":"search.web","id":"get-weather"}]"#;
    let runs = projection(&c(tool, "external_get_weather"), "1.38.0");
    assert_eq!(names(&runs, 0), ["execute_typescript"]);
    assert_eq!(runs.executed.len(), 1);
    assert_eq!(runs.executed[0].id.to_lossy(), "get-weather");
    let missing = projection(&c(tool, "external_search_web"), "1.71.0");
    assert!(missing.executed.is_empty());
    let result = &missing.requests[1].history[1];
    assert!(
        matches!(result, HistoryItem::Result { content, .. }
            if content.to_compact().contains("globalThis.external_search_web is not a function")),
        "{result:?}"
    );
    assert!(!projection(&c(tool, "external_get_weather"), "1.37.1").applicable);
    let two = r#"[{"key":"a","id":"a.b"},{"key":"b","id":"a-b"}]"#;
    let thrown = projection(&c(two, "external_a_b"), "1.71.0");
    assert!(thrown.requests.is_empty());
    let message = thrown.error.expect("an error").message.to_lossy();
    assert!(
        message.starts_with("Code Mode tool id collision"),
        "{message}"
    );
}

/// From 1.13.2 a sub-agent's output lists its own calls that ran: with
/// working memory, that tool's call, its result and its arguments; before
/// 1.31.0 the parent is sent that object, from it the text alone.
#[test]
fn a_sub_agent_output_lists_its_working_memory_call_from_1_13_2() {
    let c = case(
        r##"{"about":"a","agents":["s"],"memory":{"workingMemory":true},
            "replies":[{"toolCalls":[
              {"id":"call_1","name":"agent-s","arguments":{"prompt":"Paris"}}]},
              {"text":"done"}],
            "subAgentReplies":{"s":[{"toolCalls":[
              {"id":"call_2","name":"updateWorkingMemory","arguments":{"memory":"# User"}}]},
              {"text":"sub done"}]}}"##,
    );
    let sent = |version: &str| {
        let p = projection(&c, version);
        let last = p.requests.last().expect("a last request").clone();
        last.history.into_iter().find_map(|item| match item {
            HistoryItem::Result { id, content } if id.to_lossy() == "call_1" => Some(content),
            _ => None,
        })
    };
    for version in ["1.13.2", "1.30.0"] {
        let Some(Json::String(text)) = sent(version) else {
            panic!("{version}: the sub-agent's output as text");
        };
        let output = Json::parse(&text.to_lossy()).expect("JSON text");
        let listed = output.get("subAgentToolResults").expect("the list");
        let expected = Json::parse(
            r##"[{"toolName":"updateWorkingMemory","toolCallId":"call_2",
                  "result":{"success":true},"args":{"memory":"# User"}}]"##,
        )
        .expect("JSON");
        assert_eq!(*listed, expected, "{version}");
    }
    assert_eq!(sent("1.31.0"), Some(Json::str("sub done")));
}

/// 1.12.0's ToolSearchProcessor throws in the model call, before any
/// request, with no id; a sub-agent's listing throws before it, with the
/// call's id (`TOOL_SEARCH_SCHEMA_THROWS`, `SUB_AGENTS_THROW`).
#[test]
fn tool_search_throws_before_any_request_on_1_12_0_only() {
    let alone = r#"{"about":"a","tools":["weather"],
        "toolSearch":{"tools":[{"key":"web","id":"search.web","description":"Search the web"}]},
        "replies":[{"toolCalls":[{"id":"call_1","name":"load_tool","arguments":{"toolName":"search.web"}}]},
          {"text":"done"}]}"#;
    let p = projection(&case(alone), "1.12.0");
    let error = p.error.expect("the call throws");
    assert_eq!(error.id, None);
    assert_eq!(
        error.message.to_lossy(),
        format!(
            "Exhausted all fallback models. Last error: {}",
            releases::SUB_AGENTS_THROW_MESSAGE
        )
    );
    assert!(p.requests.is_empty() && p.executed.is_empty());
    for version in ["1.11.0", "1.13.2"] {
        let p = projection(&case(alone), version);
        assert!(p.error.is_none(), "{version}: {:?}", p.error);
        assert!(!p.requests.is_empty(), "{version}");
    }
    let beside = alone.replace(
        r#""tools":["weather"],"#,
        r#""tools":["weather"],"agents":["a"],"#,
    );
    let p = projection(&case(&beside), "1.12.0");
    let error = p.error.expect("the call throws");
    assert_eq!(
        error.id.map(|id| id.to_lossy()).as_deref(),
        Some("AGENT_GENERATE_FAILED")
    );
    assert_eq!(error.message.to_lossy(), releases::SUB_AGENTS_THROW_MESSAGE);
}

/// A workspace read of a missing file: from 1.5.0 a tool error; before, the
/// error object is the result, quoting the cause from 1.2.0
/// (`WORKSPACE_READ_TEXT`, `SUB_AGENT_ERROR_QUOTES_CAUSE`).
#[test]
fn a_missing_workspace_file_is_a_result_before_1_5_0() {
    let c = case(
        r#"{"about":"a","tools":["weather"],"workspace":{},
            "replies":[{"toolCalls":[{"id":"call_0","name":"mastra_workspace_read_file","arguments":{"path":"b.txt"}}]},
              {"text":"done"}]}"#,
    );
    let result = |version: &str| {
        let p = projection(&c, version);
        p.requests
            .last()
            .unwrap()
            .history
            .iter()
            .find_map(|item| match item {
                HistoryItem::Result { content, .. } => Some(content.clone()),
                _ => None,
            })
    };
    let error_message = |version: &str| {
        let text = result(version).expect("a result");
        let object = Json::parse(&text.as_str().unwrap().to_lossy()).unwrap();
        let details = object.get("details").unwrap().clone();
        assert_eq!(
            object.get("code"),
            Some(&Json::str("TOOL_EXECUTION_FAILED"))
        );
        assert_eq!(
            details.get("argsJson"),
            Some(&Json::str(r#"{"path":"b.txt","showLineNumbers":true}"#))
        );
        details
            .get("errorMessage")
            .unwrap()
            .as_str()
            .unwrap()
            .to_lossy()
    };
    assert_eq!(
        error_message("1.1.0"),
        "[Agent:probe] - Failed tool execution"
    );
    assert_eq!(
        error_message("1.4.0"),
        "FileNotFoundError: File not found: b.txt"
    );
    assert_eq!(result("1.5.0"), Some(Json::str("File not found: b.txt")));
}

/// On 1.4.0 an answer to a held call after a call of its step that named
/// no tool ends the resumed run at once: the approved call runs, no request
/// follows, nothing throws, and a stream hands over the not-found call's
/// tool error (`RESUME_AFTER_NOT_FOUND_ENDS`); 1.5.0 goes on.
#[test]
fn an_answer_after_a_not_found_call_ends_the_resumed_run_on_1_4_0() {
    let json = |method: &str| {
        format!(
            r#"{{"about":"a","tools":["search.web"],
            "call":{{"method":"{method}","requireToolApproval":true}},
            "replies":[{{"toolCalls":[
              {{"id":"call_1","name":"nope","arguments":{{"city":"Paris"}}}},
              {{"id":"call_2","name":"search_web","arguments":{{"city":"Paris"}}}}]}},
              {{"text":"done"}}],
            "approvals":{{"call_2":"approve"}}}}"#
        )
    };
    let generate = case(&json("generate"));
    let p = projection(&generate, "1.4.0");
    assert!(p.error.is_none());
    assert_eq!(p.requests.len(), 1);
    assert_eq!(p.executed.len(), 1, "the approved call runs");
    let seen = p.seen.unwrap();
    assert_eq!(
        seen.tool_results,
        Some(vec![]),
        "the suspended result's lists"
    );
    assert_eq!(projection(&generate, "1.5.0").requests.len(), 2);
    let p = projection(&case(&json("stream")), "1.4.0");
    let last = p.seen.unwrap().stream.last().cloned().unwrap();
    assert_eq!(
        (last.0.to_lossy(), last.1),
        ("tool-error".to_string(), Json::str("nope"))
    );
}

/// An agent network's pick runs its member only by the record key as
/// written and its own kind; the failing routing request after the
/// completion check is sent twice to 1.50.1; on `anthropic` before 1.25.0
/// the routing request is the forced `json` tool's.
#[test]
fn a_network_runs_a_pick_by_its_key_alone() {
    let c = |id: &str, kind: &str, extra: &str| {
        let pick = format!(
            r#"{{\"primitiveId\":\"{id}\",\"primitiveType\":\"{kind}\",\"prompt\":\"{{\\\"city\\\":\\\"Paris\\\"}}\",\"selectionReason\":\"r\"}}"#
        );
        case(&format!(
            r#"{{"about":"a","tools":[{{"key":"search.web","id":"get-weather"}}],"memory":true,"network":{{}},
                "replies":[{{"text":"{pick}"}},{{"text":"done"}}]{extra}}}"#
        ))
    };
    let runs = projection(&c("search.web", "tool", ""), "1.71.0");
    assert_eq!(runs.requests.len(), 3);
    assert!(runs.requests.iter().all(|r| r.tools.is_none()));
    assert_eq!(runs.executed.len(), 1);
    assert_eq!(runs.executed[0].id.to_lossy(), "get-weather");
    assert_eq!(
        projection(&c("search.web", "tool", ""), "1.50.1")
            .requests
            .len(),
        4
    );
    for (id, kind) in [
        ("search_web", "tool"),
        ("get-weather", "tool"),
        ("search.web", "agent"),
    ] {
        let nothing = projection(&c(id, kind, r#","agents":["research.agent"]"#), "1.71.0");
        assert_eq!(nothing.requests.len(), 1, "{id} {kind}");
        assert!(nothing.executed.is_empty(), "{id} {kind}");
    }
    let agent = projection(
        &c("research.agent", "agent", r#","agents":["research.agent"]"#),
        "1.71.0",
    );
    assert_eq!(agent.requests.len(), 4);
    let old_anthropic = projection(
        &c("search.web", "tool", r#","route":"anthropic""#),
        "1.24.1",
    );
    assert_eq!(old_anthropic.requests.len(), 1);
    assert_eq!(names(&old_anthropic, 0), ["json"]);
    assert_eq!(
        projection(
            &c("search.web", "tool", r#","route":"anthropic""#),
            "1.25.0"
        )
        .requests
        .len(),
        4
    );
    assert!(!projection(&c("search.web", "tool", ""), "0.24.9").applicable);
    let mut forgetful = c("search.web", "tool", "");
    forgetful.sources.memory = None;
    let thrown = projection(&forgetful, "1.71.0");
    assert!(thrown.requests.is_empty());
    assert_eq!(
        thrown
            .error
            .expect("an error")
            .id
            .map(|i| i.to_lossy())
            .as_deref(),
        Some("AGENT_NETWORK_MEMORY_REQUIRED")
    );
}
