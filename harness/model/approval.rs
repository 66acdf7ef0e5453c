//! Tool approval and the projection's `seen` for the cases that drive it
//! (`Case::drives_approval`): which calls a `requireToolApproval` policy or
//! a tool's own `requireApproval` holds, what the policy is asked, what the
//! user's code is handed, and how the case's `approvals` resume the run.
//!
//! The loop itself is `steps`' (the requests and executions of the same
//! case with every call let through); this replays its steps and ends,
//! resumes or declines them where approval decides. It covers a script of
//! one call per step, each to a tool of the case's `tools` by the name it
//! was sent under, then text; anything else is unmodelled rather than
//! guessed.

use super::record::Lookup;
use super::releases::{Release, APPROVAL_DECLINED_MESSAGE};
use super::route::{result_on, ResultContent};
use super::{ToolOrigin, ToolValue};
use crate::case::{Approval, ApprovalPolicy, Case, Method, Reply, Tool};
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::model::record::Record;
use crate::projection::{Projection, Seen};

/// The chunks a call's streamed input gives before the call itself, on
/// every route measured.
const CALL_CHUNKS: [&str; 3] = [
    "tool-call-input-streaming-start",
    "tool-call-delta",
    "tool-call",
];

/// Why the case is outside what this module covers, if it is.
fn outside(case: &Case) -> Option<&'static str> {
    let s = &case.sources;
    if case.toolsets.is_some()
        || case.client_tools.is_some()
        || s.agents.is_some()
        || s.workflows.is_some()
        || s.mcp.is_some()
        || s.memory.is_some_and(|m| !m.in_memory)
        || s.dynamic_tools
        || case.sub_agent_replies.is_some()
    {
        return Some("approval beside toolsets, client tools or other sources");
    }
    if case.call.max_steps.is_some() || case.call.active_tools.is_some() {
        return Some("approval with maxSteps or activeTools");
    }
    if case.tools.iter().any(|t| matches!(t, Tool::Builtin { .. })) {
        return Some("approval of a builtin tool");
    }
    None
}

/// Whether the call of `tool` under the wire name `name` waits for
/// approval, recording what the policy was asked.
fn waits(rel: &Release, case: &Case, tool: &Tool, name: &JsString, asked: &mut Vec<Json>) -> bool {
    let policy = match &case.call.require_tool_approval {
        None => false,
        Some(ApprovalPolicy::Flag(b)) => *b,
        // A function: asked from APPROVAL_POLICY_ASKED, only truthy before.
        Some(ApprovalPolicy::Names(names)) => {
            if rel.approval_policy_asked_on_1x {
                asked.push(Json::String(name.clone()));
                names.contains(name)
            } else {
                true
            }
        }
    };
    let flag = matches!(
        tool,
        Tool::Custom {
            require_approval: true,
            ..
        }
    );
    policy || flag
}

/// The case's tool a call by `name` reaches in the formatted record, by
/// the name it was sent under.
fn tool_called<'c>(case: &'c Case, tools: &Record<ToolValue>, name: &JsString) -> Option<&'c Tool> {
    let Lookup::Own(value) = tools.get(name) else {
        return None;
    };
    if value.origin != ToolOrigin::Ours {
        return None;
    }
    // The last tool registered under the key is the one the record holds.
    case.tools.iter().rev().find(|t| *t.key() == value.key)
}

/// The projection of an approval case on a 1.x release, from `base`: what
/// `steps` predicts for the same case with every call let through.
pub(super) fn project(
    case: &Case,
    rel: &Release,
    tools: &Record<ToolValue>,
    base: Projection,
) -> Result<Projection, String> {
    if let Some(why) = outside(case) {
        return Err(why.into());
    }
    let stream = case.call.method == Method::Stream;
    let mut seen = Seen::default();
    let mut calls: Vec<Json> = Vec::new();
    let mut results: Vec<Json> = Vec::new();
    let mut executed = base.executed.iter();
    let mut kept_executed = Vec::new();
    let mut requests = base.requests.clone();
    // Request i is answered by reply i; the script is replayed until a reply
    // ends the run.
    for (step, reply) in case.replies.iter().enumerate() {
        if step >= base.requests.len() {
            return Err("an approval case whose script outlasts its requests".into());
        }
        let call = match reply {
            Reply::Text(_) => {
                if base.error.is_some() {
                    return Err("an approval case that ends in an error".into());
                }
                seen.tool_calls = Some(calls);
                seen.tool_results = Some(results);
                return Ok(Projection {
                    executed: kept_executed,
                    requests,
                    seen: Some(Box::new(seen)),
                    ..base
                });
            }
            Reply::Error { .. } => return Err("an approval case with an error reply".into()),
            Reply::ToolCalls(list) if list.len() == 1 => &list[0],
            Reply::ToolCalls(_) => return Err("approval with several calls in one step".into()),
        };
        let tool = tool_called(case, tools, &call.name)
            .ok_or("an approval case calling a name that reaches none of its tools")?;
        let valid = call
            .arguments
            .get("city")
            .is_some_and(|c| matches!(c, Json::String(_)))
            && call.arguments.members().is_some_and(|m| m.len() == 1);
        if !valid {
            return Err("an approval case whose call's arguments do not fit the tool".into());
        }
        let name = Json::String(call.name.clone());
        if stream {
            for kind in CALL_CHUNKS {
                seen.stream.push((JsString::from(kind), name.clone()));
            }
        }
        calls.push(name.clone());
        let ran = executed.next().cloned();
        if !waits(rel, case, tool, &call.name, &mut seen.asked) {
            kept_executed.extend(ran);
            results.push(name.clone());
            if stream {
                seen.stream
                    .push((JsString::from("tool-result"), name.clone()));
            }
            continue;
        }
        if stream {
            seen.stream
                .push((JsString::from("tool-call-approval"), name.clone()));
        }
        // Without scripted ids (Gemini) no answer can name the call.
        let scripted = case.route.call_ids_scripted();
        let id = if scripted {
            Json::String(call.id.clone())
        } else {
            Json::Null
        };
        seen.pending.push((id, name.clone()));
        let answer = case
            .approvals
            .iter()
            .flatten()
            .find(|(id, _)| scripted && *id == call.id)
            .map(|(_, a)| *a);
        match answer {
            // Suspended: the run ends with this step's request.
            None => {
                requests.truncate(step + 1);
                seen.tool_calls = Some(calls);
                seen.tool_results = Some(results);
                return Ok(Projection {
                    error: None,
                    executed: kept_executed,
                    requests,
                    seen: Some(Box::new(seen)),
                    ..base
                });
            }
            Some(Approval::Approve) => {
                kept_executed.extend(ran);
                results.push(name.clone());
                if stream {
                    seen.stream.push((JsString::from("tool-result"), name));
                }
            }
            Some(Approval::Decline) => {
                if !rel.approval_decline_unlisted_on_1x {
                    results.push(name.clone());
                    if stream {
                        seen.stream.push((JsString::from("tool-result"), name));
                    }
                } else if stream && rel.approval_denied_chunk_on_1x {
                    seen.stream
                        .push((JsString::from("tool-output-denied"), name));
                }
                // Every later request carries the refusal in place of the
                // output.
                let ran_as = result_on(
                    case.route,
                    &call.id,
                    &call.name,
                    ResultContent::Output(super::steps::TOOL_RESULT),
                );
                let refused = result_on(
                    case.route,
                    &call.id,
                    &call.name,
                    ResultContent::Message(JsString::from(APPROVAL_DECLINED_MESSAGE)),
                );
                for request in requests.iter_mut().skip(step + 1) {
                    for item in &mut request.history {
                        if *item == ran_as {
                            *item = refused.clone();
                        }
                    }
                }
            }
        }
    }
    Err("an approval case whose script ends in a call".into())
}

/// The reason an approval case does not apply to a release before 1.x.
pub(super) fn not_applicable(version: impl std::fmt::Display) -> String {
    format!("@mastra/core {version}: approval cases are driven on 1.x only")
}

#[cfg(test)]
mod tests {
    use crate::case::Case;
    use crate::model::{predict, Prediction};
    use crate::projection::Projection;
    use crate::version::spec::MastraVersion;
    use std::path::Path;

    fn projected(text: &str, version: MastraVersion) -> Projection {
        let case = Case::parse(Path::new("cases/x.json"), text).unwrap();
        match predict(&case, version) {
            Prediction::Projection(p) => p,
            other => panic!("{other:?}"),
        }
    }

    const BY_KEY: &str = r#"{"about":"a","tools":[{"key":"files.delete","id":"delete-file","description":"d"}],
        "call":{"method":"stream","requireToolApproval":{"names":["files.delete"]}},
        "replies":[{"toolCalls":[{"id":"call_1","name":"files_delete","arguments":{"city":"Paris"}}]},{"text":"done"}]}"#;

    #[test]
    fn a_policy_by_key_is_asked_with_the_wire_name_and_lets_the_call_run() {
        let p = projected(BY_KEY, MastraVersion::new(1, 67, 0));
        let seen = p.seen.unwrap();
        assert_eq!(seen.asked, [crate::js::json::Json::str("files_delete")]);
        assert!(seen.pending.is_empty());
        assert_eq!(p.executed.len(), 1);
        assert_eq!(p.requests.len(), 2);
    }

    #[test]
    fn before_the_policy_is_asked_any_function_holds_every_call() {
        let p = projected(BY_KEY, MastraVersion::new(1, 37, 1));
        let seen = p.seen.unwrap();
        assert!(seen.asked.is_empty());
        assert_eq!(seen.pending.len(), 1);
        assert!(p.executed.is_empty());
        assert_eq!(p.requests.len(), 1, "the run stays suspended");
        let last = seen.stream.last().unwrap();
        assert_eq!(last.0.to_lossy(), "tool-call-approval");
    }

    #[test]
    fn a_declined_call_sends_the_refusal_and_runs_nothing() {
        let text = BY_KEY
            .replace("files.delete\"]", "files_delete\"]")
            .replace(
                "\"replies\"",
                "\"approvals\":{\"call_1\":\"decline\"},\"replies\"",
            );
        let p = projected(&text, MastraVersion::new(1, 71, 0));
        assert!(p.executed.is_empty());
        let history = p.requests[1].to_json().get("history").unwrap().to_compact();
        assert!(history.contains("not approved"), "{history}");
        let seen = p.seen.unwrap();
        assert_eq!(seen.tool_results, Some(Vec::new()));
        assert_eq!(
            seen.stream.last().unwrap().0.to_lossy(),
            "tool-output-denied"
        );
    }
}
