//! `Case::walk`: every part of a case, met in one fixed order (the order
//! of the case file), for code that treats parts alike without naming the
//! fields. The fuzzer's shrinker leaves parts out, drops list elements,
//! makes values plainer and edits names through it, so a field added to
//! `Case` and to this walk is shrunk with no change to the shrinker.
//!
//! In: a `Case` and a `Visitor`. Out: the visitor's edits, made in place.

use super::{ApprovalPolicy, Case, MemorySource, Reply, StopWhen, Tool, ToolChoice};
use crate::js::json::Json;
use crate::js::string::JsString;

/// How the elements of a list may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum List {
    /// Elements that each stand alone (tools, keys, servers, the calls of
    /// one reply): any one may go while more than `min` are left.
    Set { min: usize },
    /// Steps in time (the replies): the later ones matter least. One step
    /// is always left; leaving the field out is the plainest script.
    Script,
}

/// What a walk meets. Each method does nothing unless a visitor says
/// otherwise; the walk goes on into the part after the method returns, so
/// it sees what the method made of it.
pub trait Visitor {
    /// A field a case file may leave out; `absent` is what it reads as
    /// then.
    fn field<T: PartialEq>(&mut self, _value: &mut T, _absent: T) {}

    /// A list whose elements may go, as `kind` says.
    fn list<T>(&mut self, _list: &mut Vec<T>, _kind: List) {}

    /// A string that names something: a tool's key or id, the name of a
    /// toolset, sub-agent, workflow, MCP server or MCP tool, and the names
    /// `toolChoice`, `activeTools` and scripted calls use. Descriptions,
    /// builtin export names, call ids and texts are not names.
    fn name(&mut self, _name: &mut JsString) {}

    /// One tool of a tools object.
    fn tool(&mut self, _tool: &mut Tool) {}

    /// `call.toolChoice`, when given.
    fn tool_choice(&mut self, _choice: &mut ToolChoice) {}

    /// `call.maxSteps`, when given.
    fn max_steps(&mut self, _steps: &mut u32) {}

    /// The whole script of replies.
    fn replies(&mut self, _replies: &mut Vec<Reply>) {}

    /// One reply of the script.
    fn reply(&mut self, _reply: &mut Reply) {}

    /// The arguments of one scripted tool call.
    fn arguments(&mut self, _arguments: &mut Json) {}

    /// `memory`, when given.
    fn memory(&mut self, _memory: &mut MemorySource) {}
}

impl Case {
    /// Show `visitor` every part of the case, in the order of the file.
    /// The prose, the path and the route are not parts: they say where a
    /// case comes from and where it runs, not what it does.
    pub fn walk(&mut self, v: &mut impl Visitor) {
        // What each field reads as when the file leaves it out.
        let blank = Case::new("", "");
        let (sources, call) = (blank.sources, blank.call);
        tools(&mut self.tools, v);
        v.field(&mut self.toolsets, blank.toolsets);
        if let Some(sets) = &mut self.toolsets {
            v.list(sets, List::Set { min: 0 });
            for (name, list) in sets {
                v.name(name);
                tools(list, v);
            }
        }
        v.field(&mut self.client_tools, blank.client_tools);
        if let Some(list) = &mut self.client_tools {
            tools(list, v);
        }
        v.field(&mut self.tool_search, blank.tool_search);
        if let Some(search) = &mut self.tool_search {
            tools(&mut search.tools, v);
        }
        names(&mut self.tool_call_filter, blank.tool_call_filter, v);
        v.field(&mut self.workspace, blank.workspace);
        if let Some(name) = self.workspace.as_mut().and_then(|w| w.name.as_mut()) {
            v.name(name);
        }
        v.field(&mut self.code_mode, blank.code_mode);
        v.field(&mut self.network, blank.network);
        let s = &mut self.sources;
        names(&mut s.agents, sources.agents, v);
        names(&mut s.workflows, sources.workflows, v);
        v.field(&mut s.mcp, sources.mcp);
        if let Some(servers) = &mut s.mcp {
            v.list(servers, List::Set { min: 0 });
            for server in servers {
                v.name(&mut server.name);
                v.list(&mut server.tools, List::Set { min: 0 });
                server.tools.iter_mut().for_each(|t| v.name(t));
            }
        }
        v.field(&mut s.mcp_listing, sources.mcp_listing);
        v.field(&mut s.mcp_approval, sources.mcp_approval);
        if let Some(servers) = &mut s.mcp_approval {
            v.list(servers, List::Set { min: 0 });
            for (_, policy) in servers {
                if let ApprovalPolicy::Names(list) = policy {
                    v.list(list, List::Set { min: 0 });
                    list.iter_mut().for_each(|n| v.name(n));
                }
            }
        }
        v.field(&mut s.memory, sources.memory);
        if let Some(memory) = &mut s.memory {
            v.memory(memory);
        }
        v.field(&mut s.dynamic_tools, sources.dynamic_tools);
        let c = &mut self.call;
        v.field(&mut c.method, call.method);
        v.field(&mut c.tool_choice, call.tool_choice);
        if let Some(choice) = &mut c.tool_choice {
            v.tool_choice(choice);
            if let ToolChoice::Tool(name) = choice {
                v.name(name);
            }
        }
        names(&mut c.active_tools, call.active_tools, v);
        v.field(&mut c.max_steps, call.max_steps);
        if let Some(steps) = &mut c.max_steps {
            v.max_steps(steps);
        }
        v.field(&mut c.require_tool_approval, call.require_tool_approval);
        if let Some(ApprovalPolicy::Names(list)) = &mut c.require_tool_approval {
            v.list(list, List::Set { min: 0 });
            list.iter_mut().for_each(|n| v.name(n));
        }
        v.field(&mut c.stop_when, call.stop_when);
        if let Some(StopWhen::HasToolCall(name)) = &mut c.stop_when {
            v.name(name);
        }
        v.field(&mut self.replies, blank.replies);
        script(&mut self.replies, v);
        v.field(&mut self.sub_agent_replies, blank.sub_agent_replies);
        if let Some(scripts) = &mut self.sub_agent_replies {
            v.list(scripts, List::Set { min: 0 });
            for (key, replies) in scripts {
                v.name(key);
                script(replies, v);
            }
        }
        v.field(&mut self.approvals, blank.approvals);
        if let Some(answers) = &mut self.approvals {
            v.list(answers, List::Set { min: 0 });
        }
    }
}

/// A script of replies: the whole, the steps, then each step and its calls.
fn script(replies: &mut Vec<Reply>, v: &mut impl Visitor) {
    v.replies(replies);
    v.list(replies, List::Script);
    for reply in replies {
        v.reply(reply);
        if let Reply::ToolCalls(calls) = reply {
            v.list(calls, List::Set { min: 1 });
            for c in calls {
                v.name(&mut c.name);
                v.arguments(&mut c.arguments);
            }
        }
    }
}

/// A tools object's list: the list, then each tool and its names.
fn tools(list: &mut Vec<Tool>, v: &mut impl Visitor) {
    v.list(list, List::Set { min: 0 });
    for tool in list {
        v.tool(tool);
        match tool {
            Tool::Standard(key) | Tool::Builtin { key, .. } => v.name(key),
            Tool::Custom { key, id, .. } => {
                v.name(key);
                v.name(id);
            }
        }
    }
}

/// A field that is a list of names (`activeTools`, `agents`, `workflows`).
fn names(field: &mut Option<Vec<JsString>>, absent: Option<Vec<JsString>>, v: &mut impl Visitor) {
    v.field(field, absent);
    if let Some(list) = field {
        v.list(list, List::Set { min: 0 });
        list.iter_mut().for_each(|n| v.name(n));
    }
}

#[cfg(test)]
mod tests {
    use super::super::read::tests::parse;
    use super::*;

    /// Records what the walk meets, by kind.
    #[derive(Default)]
    struct Seen {
        fields: usize,
        lists: Vec<(usize, List)>,
        names: Vec<String>,
        tools: usize,
        replies: usize,
        others: usize,
    }

    impl Visitor for Seen {
        fn arguments(&mut self, _: &mut Json) {
            self.others += 1;
        }
        fn field<T: PartialEq>(&mut self, value: &mut T, absent: T) {
            self.fields += usize::from(*value != absent);
        }
        fn list<T>(&mut self, list: &mut Vec<T>, kind: List) {
            self.lists.push((list.len(), kind));
        }
        fn name(&mut self, name: &mut JsString) {
            self.names.push(name.to_lossy());
        }
        fn tool(&mut self, _: &mut Tool) {
            self.tools += 1;
        }
        fn reply(&mut self, _: &mut Reply) {
            self.replies += 1;
        }
        fn tool_choice(&mut self, _: &mut ToolChoice) {
            self.others += 1;
        }
        fn max_steps(&mut self, _: &mut u32) {
            self.others += 1;
        }
        fn memory(&mut self, _: &mut MemorySource) {
            self.others += 1;
        }
    }

    #[test]
    fn the_walk_meets_every_part_in_file_order() {
        let mut c = parse(
            r#"{"about":"a","tools":["k",{"key":"c","id":"i","description":"d"}],
                "toolsets":{"s":[{"key":"b","builtin":"askUserTool"}]},"clientTools":["cl"],
                "agents":["ag"],"workflows":["wf"],"mcp":{"srv":["t"]},
                "memory":{"workingMemory":true},"dynamicTools":true,
                "call":{"method":"stream","toolChoice":{"type":"tool","toolName":"k"},
                        "activeTools":["at"],"maxSteps":3},
                "replies":[{"toolCalls":[{"id":"call_1","name":"n","arguments":{}}]},{"text":"x"}],
                "subAgentReplies":{"ag":[{"toolCalls":[{"id":"s","name":"m","arguments":1}]}]}}"#,
        )
        .unwrap();
        let mut seen = Seen::default();
        c.walk(&mut seen);
        assert_eq!(
            seen.names,
            ["k", "c", "i", "s", "b", "cl", "ag", "wf", "srv", "t", "k", "at", "n", "ag", "m"]
        );
        assert_eq!(seen.fields, 13, "every field a file may leave out is given");
        assert_eq!(seen.tools, 4);
        assert_eq!(seen.replies, 3);
        assert_eq!(
            seen.others, 5,
            "toolChoice, maxSteps, memory, two calls' arguments"
        );
        assert!(seen.lists.contains(&(2, List::Script)));
        assert!(seen.lists.contains(&(1, List::Set { min: 1 })), "one call");
        assert_eq!(seen.lists.len(), 14);
    }

    #[test]
    fn a_blank_case_has_no_field_to_leave_out() {
        let mut seen = Seen::default();
        parse(r#"{"about":"a"}"#).unwrap().walk(&mut seen);
        assert_eq!(seen.fields, 0);
        assert!(seen.names.is_empty());
    }
}
