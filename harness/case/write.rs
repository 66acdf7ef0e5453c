//! Writing a case file: `Case::to_json`, the one writer of the format.
//!
//! In: a `Case`. Out: its file as a `Json` value, the contract's fields in
//! one fixed order, every field left out that holds what a file without it
//! reads as (`tools` excepted: always written, so that every file says what
//! the agent is given). Reading what this writes gives the same `Case`, and
//! writing that again gives the same text (`read_after_write_*` below and
//! in the generator's tests). The probe is sent this value, so what the
//! model predicts from the typed case is what Node runs.

use super::{
    Approval, ApprovalPolicy, Call, Case, Method, Reply, StopWhen, Tool, ToolApproval, ToolChoice,
};
use crate::js::json::Json;

impl Case {
    /// The case file (`docs/case-format.md`); `path` is not part of it.
    pub fn to_json(&self) -> Json {
        // What each field reads as when the file leaves it out.
        let blank = Case::new("", "");
        let mut members = vec![("about", Json::str(&self.about))];
        if let Some(source) = &self.source {
            members.push(("source", Json::str(source)));
        }
        members.push(("tools", tools(&self.tools)));
        if let Some(sets) = &self.toolsets {
            let sets = sets
                .iter()
                .map(|(name, list)| (name.clone(), tools(list)))
                .collect();
            members.push(("toolsets", Json::Object(sets)));
        }
        if let Some(client) = &self.client_tools {
            members.push(("clientTools", tools(client)));
        }
        if let Some(search) = &self.tool_search {
            members.push((
                "toolSearch",
                Json::object([("tools", tools(&search.tools))]),
            ));
        }
        if let Some(exclude) = &self.tool_call_filter {
            members.push((
                "toolCallFilter",
                Json::object([("exclude", Json::from(exclude.clone()))]),
            ));
        }
        if let Some(workspace) = &self.workspace {
            let name = workspace
                .name
                .iter()
                .map(|n| ("name", Json::String(n.clone())));
            members.push(("workspace", Json::object(name)));
        }
        if self.code_mode.is_some() {
            members.push(("codeMode", Json::object::<&str>([])));
        }
        if self.network.is_some() {
            members.push(("network", Json::object::<&str>([])));
        }
        self.sources.write(&mut members);
        if let Some(turns) = &self.turns {
            members.push(("turns", Json::Array(turns.iter().map(call).collect())));
        } else if self.call != blank.call {
            members.push(("call", call(&self.call)));
        }
        if self.replies != blank.replies {
            members.push((
                "replies",
                Json::Array(self.replies.iter().map(reply).collect()),
            ));
        }
        if let Some(scripts) = &self.sub_agent_replies {
            let scripts = scripts
                .iter()
                .map(|(key, replies)| {
                    (
                        key.clone(),
                        Json::Array(replies.iter().map(reply).collect()),
                    )
                })
                .collect();
            members.push(("subAgentReplies", Json::Object(scripts)));
        }
        if let Some(approvals) = &self.approvals {
            let answers = approvals
                .iter()
                .map(|(id, answer)| {
                    let answer = match answer {
                        Approval::Approve => "approve",
                        Approval::Decline => "decline",
                    };
                    (id.clone(), Json::str(answer))
                })
                .collect();
            members.push(("approvals", Json::Object(answers)));
        }
        if self.tracing {
            members.push(("tracing", Json::Bool(true)));
        }
        if self.lookups {
            members.push(("lookups", Json::Bool(true)));
        }
        // A case on another route names it, however it got there.
        if self.route_named || self.route != blank.route {
            members.push(("route", Json::str(self.route.name())));
        }
        Json::object(members)
    }
}

fn tools(list: &[Tool]) -> Json {
    Json::Array(list.iter().map(tool).collect())
}

fn tool(t: &Tool) -> Json {
    match t {
        Tool::Standard(key) => Json::String(key.clone()),
        Tool::Custom {
            key,
            id,
            description,
            require_approval,
        } => {
            let mut members = vec![
                ("key", Json::String(key.clone())),
                ("id", Json::String(id.clone())),
            ];
            if let Some(description) = description {
                members.push(("description", Json::String(description.clone())));
            }
            if let Some(approval) = require_approval {
                members.push(("requireApproval", tool_approval(approval)));
            }
            Json::object(members)
        }
        Tool::Builtin { key, name } => Json::object([
            ("key", Json::String(key.clone())),
            ("builtin", Json::str(name)),
        ]),
    }
}

fn tool_approval(a: &ToolApproval) -> Json {
    match a {
        ToolApproval::Always => Json::Bool(true),
        ToolApproval::Returns(b) => Json::object([("returns", Json::Bool(*b))]),
        ToolApproval::Throws(message) => Json::object([("throws", Json::String(message.clone()))]),
    }
}

fn call(c: &Call) -> Json {
    let mut members = Vec::new();
    if c.method != Call::default().method {
        members.push((
            "method",
            Json::str(match c.method {
                Method::Generate => "generate",
                Method::Stream => "stream",
            }),
        ));
    }
    if let Some(choice) = &c.tool_choice {
        let v = match choice {
            ToolChoice::Auto => Json::str("auto"),
            ToolChoice::None => Json::str("none"),
            ToolChoice::Required => Json::str("required"),
            ToolChoice::Tool(name) => Json::object([
                ("type", Json::str("tool")),
                ("toolName", Json::String(name.clone())),
            ]),
        };
        members.push(("toolChoice", v));
    }
    if let Some(active) = &c.active_tools {
        members.push(("activeTools", Json::from(active.clone())));
    }
    if let Some(n) = c.max_steps {
        members.push(("maxSteps", Json::int(i64::from(n))));
    }
    if let Some(prompt) = &c.prompt {
        members.push(("prompt", Json::String(prompt.clone())));
    }
    if let Some(policy) = &c.require_tool_approval {
        members.push(("requireToolApproval", policy.to_json()));
    }
    if let Some(StopWhen::HasToolCall(name)) = &c.stop_when {
        let condition = Json::object([("hasToolCall", Json::String(name.clone()))]);
        members.push(("stopWhen", condition));
    }
    Json::object(members)
}

impl ApprovalPolicy {
    /// The policy as a case file writes it.
    pub fn to_json(&self) -> Json {
        match self {
            ApprovalPolicy::Flag(b) => Json::Bool(*b),
            ApprovalPolicy::Names(names) => Json::object([("names", Json::from(names.clone()))]),
        }
    }
}

fn reply(r: &Reply) -> Json {
    match r {
        Reply::Error { status, body } => {
            let mut members = vec![("status", Json::int(i64::from(*status)))];
            if let Some(b) = body {
                members.push(("body", b.clone()));
            }
            Json::object(members)
        }
        Reply::Text(text) => Json::object([("text", Json::String(text.clone()))]),
        Reply::ToolCalls(calls) => Json::object([(
            "toolCalls",
            Json::Array(
                calls
                    .iter()
                    .map(|c| {
                        Json::object([
                            ("id", Json::String(c.id.clone())),
                            ("name", Json::String(c.name.clone())),
                            ("arguments", c.arguments.clone()),
                        ])
                    })
                    .collect(),
            ),
        )]),
    }
}

#[cfg(test)]
mod tests {
    use super::super::read::tests::parse;
    use super::super::{
        Approval, ApprovalPolicy, Call, Case, McpServer, MemorySource, Method, Reply, Sources,
        StopWhen, Tool, ToolApproval, ToolCallReply, ToolChoice, BUILTINS,
    };
    use crate::js::json::Json;
    use crate::js::string::JsString;
    use crate::route::Route;
    use proptest::prelude::*;
    use std::path::Path;

    /// Read ∘ write is the identity on `case`: its file reads back as the
    /// same `Case`, and that writes the same text again.
    fn assert_round_trip(case: &Case) {
        let written = case.to_json().to_pretty();
        let again = Case::parse(&case.path, &written).unwrap_or_else(|e| panic!("{e}\n{written}"));
        assert_eq!(&again, case, "{written}");
        assert_eq!(again.to_json().to_pretty(), written);
    }

    /// Every case of the corpus, read, written and read again.
    #[test]
    fn read_after_write_is_the_identity_on_every_corpus_case() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases");
        let files = crate::run::corpus::discover(&root).unwrap();
        assert!(files.len() > 100, "{} case files", files.len());
        for file in files {
            assert_round_trip(&crate::run::corpus::read_case(&file).unwrap());
        }
    }

    #[test]
    fn what_a_file_leaves_out_the_writer_leaves_out() {
        let c = parse(
            r#"{"about":"a","call":{"method":"generate"},"replies":[{"status":400}],
                "dynamicTools":false}"#,
        )
        .unwrap();
        assert_eq!(
            c.to_json().to_compact(),
            r#"{"about":"a","tools":[]}"#,
            "defaults are not written"
        );
        let c = parse(r#"{"about":"a","replies":[],"route":"openai-compatible"}"#).unwrap();
        assert_eq!(
            c.to_json().to_compact(),
            r#"{"about":"a","tools":[],"replies":[],"route":"openai-compatible"}"#,
            "an empty script and a named default route are not defaults"
        );
    }

    #[test]
    fn a_case_put_on_a_route_writes_it() {
        let c = parse(r#"{"about":"a"}"#).unwrap();
        let on = c.on_route(Route::Google);
        assert_eq!(on.route, Route::Google);
        assert!(on.names_its_route() && !c.names_its_route());
        assert_eq!(
            on.to_json().get("route"),
            Some(&Json::str("google")),
            "the probe is told the route the listener speaks"
        );
        assert_round_trip(&on);
        assert_round_trip(&c.on_route(Route::default()));
    }

    #[test]
    fn lone_surrogates_and_key_order_are_written_exactly() {
        let text = r#"{"about":"a","tools":["\ud800x","b","\udc00"],"toolsets":{"z":["\udfff"],"a":[]},"mcp":{"s2":["t"],"s1":[]}}"#;
        let c = parse(text).unwrap();
        assert_eq!(c.to_json().to_compact(), text);
    }

    // Arbitrary cases: every field, every kind of value, strings of any
    // code units.

    fn js() -> impl Strategy<Value = JsString> {
        let unit = prop_oneof![
            0x61u16..0x7B,
            Just(0x2Eu16),
            Just(0x5F),
            0u16..0x20,
            0xD800u16..0xE000,
            any::<u16>(),
        ];
        prop::collection::vec(unit, 0..6).prop_map(JsString::from_units)
    }

    fn json() -> impl Strategy<Value = Json> {
        let leaf = prop_oneof![
            Just(Json::Null),
            any::<bool>().prop_map(Json::Bool),
            any::<i32>().prop_map(|n| Json::int(i64::from(n))),
            Just(Json::Number("1.5e3".into())),
            js().prop_map(Json::String),
        ];
        leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Json::Array),
                prop::collection::vec((js(), inner), 0..4).prop_map(Json::Object),
            ]
        })
    }

    fn object() -> impl Strategy<Value = Json> {
        prop::collection::vec((js(), json()), 0..3).prop_map(Json::Object)
    }

    fn tool() -> impl Strategy<Value = Tool> {
        prop_oneof![
            js().prop_map(Tool::Standard),
            (
                js(),
                js(),
                prop::option::of(js()),
                prop::option::of(tool_approval())
            )
                .prop_map(|(key, id, description, require_approval)| Tool::Custom {
                    key,
                    id,
                    description,
                    require_approval,
                }),
            (js(), prop::sample::select(BUILTINS)).prop_map(|(key, name)| Tool::Builtin {
                key,
                name: name.to_string()
            }),
        ]
    }

    fn tool_approval() -> impl Strategy<Value = ToolApproval> {
        prop_oneof![
            Just(ToolApproval::Always),
            any::<bool>().prop_map(ToolApproval::Returns),
            js().prop_map(ToolApproval::Throws),
        ]
    }

    fn tools() -> impl Strategy<Value = Vec<Tool>> {
        prop::collection::vec(tool(), 0..4)
    }

    /// Named lists, each name once (an object's keys).
    fn named<T: std::fmt::Debug>(
        value: impl Strategy<Value = T>,
    ) -> impl Strategy<Value = Vec<(JsString, T)>> {
        prop::collection::vec((js(), value), 0..3).prop_map(|mut items| {
            let mut seen = Vec::new();
            items.retain(|(name, _)| {
                let first = !seen.contains(name);
                seen.push(name.clone());
                first
            });
            items
        })
    }

    fn call() -> impl Strategy<Value = Call> {
        let choice = prop_oneof![
            Just(ToolChoice::Auto),
            Just(ToolChoice::None),
            Just(ToolChoice::Required),
            js().prop_map(ToolChoice::Tool),
        ];
        (
            prop_oneof![Just(Method::Generate), Just(Method::Stream)],
            prop::option::of(choice),
            prop::option::of(prop::collection::vec(js(), 0..3)),
            prop::option::of(1u32..=1000),
            prop::option::of(prop_oneof![
                any::<bool>().prop_map(ApprovalPolicy::Flag),
                prop::collection::vec(js(), 0..3).prop_map(ApprovalPolicy::Names),
            ]),
            prop::option::of(js().prop_map(StopWhen::HasToolCall)),
        )
            .prop_map(
                |(
                    method,
                    tool_choice,
                    active_tools,
                    max_steps,
                    require_tool_approval,
                    stop_when,
                )| {
                    Call {
                        prompt: None,
                        method,
                        tool_choice,
                        active_tools,
                        max_steps,
                        require_tool_approval,
                        stop_when,
                    }
                },
            )
    }

    fn reply() -> impl Strategy<Value = Reply> {
        let arguments = prop_oneof![object(), json()];
        let call = (js(), js(), arguments).prop_map(|(id, name, arguments)| ToolCallReply {
            id,
            name,
            arguments,
        });
        prop_oneof![
            (400u16..=599, prop::option::of(json()))
                .prop_map(|(status, body)| Reply::Error { status, body }),
            prop::collection::vec(call, 1..3).prop_map(Reply::ToolCalls),
            js().prop_map(Reply::Text),
        ]
    }

    fn sources() -> impl Strategy<Value = Sources> {
        let keys = || prop::option::of(prop::collection::vec(js(), 0..3));
        let servers = named(prop::collection::vec(js(), 0..3)).prop_map(|servers| {
            servers
                .into_iter()
                .map(|(name, tools)| McpServer { name, tools })
                .collect::<Vec<_>>()
        });
        (
            keys(),
            keys(),
            prop::option::of(servers),
            prop::option::of((any::<bool>(), any::<bool>())),
            any::<bool>(),
        )
            .prop_map(|(agents, workflows, mcp, memory, dynamic_tools)| Sources {
                agents,
                workflows,
                mcp,
                // `memory: true` where the flag is absent from the pair.
                memory: memory.map(|(working_memory, in_memory)| MemorySource {
                    working_memory: working_memory && !in_memory,
                    in_memory,
                }),
                dynamic_tools,
                ..Sources::default()
            })
    }

    prop_compose! {
        fn case()(
            about in any::<String>(),
            source in prop::option::of(any::<String>()),
            tools in tools(),
            toolsets in prop::option::of(named(tools())),
            client_tools in prop::option::of(tools()),
            tool_search in prop::option::of(tools()),
            call in call(),
            replies in prop::collection::vec(reply(), 0..4),
            route in prop::option::of(prop::sample::select(Route::ALL.to_vec())),
            sources in sources(),
            scripts in prop::option::of(prop::collection::vec(prop::collection::vec(reply(), 0..3), 0..3)),
            approvals in prop::option::of(named(prop_oneof![Just(Approval::Approve), Just(Approval::Decline)])),
            turns in prop::option::of(prop::collection::vec((call(), prop::option::of(js())), 1..3)),
            tracing in any::<bool>(),
            lookups in any::<bool>(),
        ) -> Case {
            // Scripts for some of the sub-agents, each key once.
            let mut keys: Vec<JsString> = Vec::new();
            for k in sources.agents.iter().flatten() {
                if !keys.contains(k) {
                    keys.push(k.clone());
                }
            }
            let sub_agent_replies = scripts.filter(|_| !keys.is_empty()).map(|scripts| {
                keys.into_iter().zip(scripts).collect::<Vec<_>>()
            });
            Case {
                sub_agent_replies,
                source,
                tools,
                toolsets,
                client_tools,
                tool_search: tool_search.map(|tools| crate::case::ToolSearch { tools }),
                replies,
                route: route.unwrap_or_default(),
                route_named: route.is_some(),
                sources,
                approvals,
                // A case with turns has the default call.
                call: if turns.is_some() { Call::default() } else { call },
                turns: turns.map(|t| {
                    t.into_iter()
                        .map(|(call, prompt)| Call { prompt, ..call })
                        .collect()
                }),
                tracing,
                lookups,
                ..Case::new("cases/arbitrary.json", about)
            }
        }
    }

    proptest! {
        #[test]
        fn read_after_write_is_the_identity_on_arbitrary_cases(c in case()) {
            let written = c.to_json().to_pretty();
            let again = Case::parse(&c.path, &written);
            prop_assert_eq!(again.as_ref(), Ok(&c), "{}", written);
            prop_assert_eq!(again.unwrap().to_json().to_pretty(), written);
        }
    }
}
