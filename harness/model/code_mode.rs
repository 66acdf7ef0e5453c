//! `codeMode`: the case's tools handed to Code Mode (`createCodeMode` of
//! `@mastra/core/tools`, from 1.38.0: `CODE_MODE_EXTERNAL_NAMES`), the agent
//! given its one tool, `execute_typescript`, whose program calls each tool
//! as a function `external_<name>` on the host (`LocalSandbox`).
//!
//! In: a case and a release. Out: where the case is not applicable or not
//! modelled, the agent's record, the error `createCodeMode` throws, and
//! what a call of `execute_typescript` runs. The names are Code Mode's own
//! (`sanitizeToolId`, 1.71.0 `dist/tools-DDs4518b.js:96`); the programs
//! modelled are the one form a scripted reply gives,
//! `return await globalThis[NAME](ARGUMENTS);`, measured on 1.38.0 to
//! 1.71.0 (`cases/code-mode/`).

use super::record::Record;
use super::releases::Release;
use super::{Prediction, ToolOrigin, ToolValue};
use crate::case::{Case, MemorySource, Sources, Tool};
use crate::js::json::Json;
use crate::js::string::{is_surrogate, JsString};
use crate::projection::Executed;

/// The one tool Code Mode gives the agent, by its default id.
pub const TOOL: &str = "execute_typescript";

/// What a case tool's `execute` returns (the probe's, `{ tempC: 20 }`).
const TOOL_OUTPUT: &str = r#"{"tempC":20}"#;

/// The form of program the model follows: `PREFIX` NAME `](` ARGUMENTS `SUFFIX`.
const PREFIX: &str = "return await globalThis[";
const SUFFIX: &str = ");";

/// A `codeMode` case on a release without Code Mode (not applicable), or
/// beside what was not measured with it: anything but the agent's own
/// tools (not builtins) and the call's options.
pub(super) fn outside(case: &Case, rel: &Release) -> Option<Prediction> {
    case.code_mode.as_ref()?;
    let exported = rel.code_mode_external_names;
    if let Some(not_served) = super::not_served(rel, "codeMode", "createCodeMode", exported) {
        return Some(not_served);
    }
    let builtin = case.tools.iter().any(|t| matches!(t, Tool::Builtin { .. }));
    // Memory (`memory: true`) holds Code Mode's one tool's calls as any
    // other's (`cases/code-mode/*-with-memory-*`).
    let memory = Sources {
        memory: Some(MemorySource::IN_MEMORY),
        ..Sources::default()
    };
    let beside = builtin
        || case.toolsets.is_some()
        || case.client_tools.is_some()
        || case.tool_search.is_some()
        || case.tool_call_filter.is_some()
        || case.workspace.is_some()
        || (case.sources != Sources::default() && case.sources != memory)
        || case.turns.is_some()
        || case.tracing
        || case.lookups
        || case.drives_approval();
    beside.then(|| {
        Prediction::Unmodelled(
            "codeMode beside builtins, toolsets, client tools, sources other than memory: true, processors, a workspace, turns, tracing, lookups or approval: not measured".into(),
        )
    })
}

/// The agent's record: Code Mode's tool alone, under its id.
pub(super) fn tools() -> Record<ToolValue> {
    let mut out = Record::new();
    let name = JsString::from(TOOL);
    out.assign(
        name.clone(),
        ToolValue {
            id: name.clone(),
            key: name,
            origin: ToolOrigin::CodeMode,
        },
    );
    out
}

/// Code Mode's name for a tool id (`sanitizeToolId`): every UTF-16 unit
/// outside `A-Za-z0-9_$` made `_`, and `_` in front where the result is
/// no identifier (empty, or a digit first).
pub fn external_name(id: &JsString) -> JsString {
    let ident = |u: u16| {
        u < 0x80 && {
            let c = u as u8;
            c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
        }
    };
    let cleaned = JsString::from_units(
        id.units()
            .iter()
            .map(|&u| if ident(u) { u } else { u16::from(b'_') })
            .collect(),
    );
    let starts_ident = cleaned
        .unit(0)
        .is_some_and(|u| ident(u) && !(u as u8).is_ascii_digit());
    if starts_ident {
        cleaned
    } else {
        JsString::from("_").concat(&cleaned)
    }
}

/// The function a tool's id is called by in a program: `external_` and
/// its name.
pub fn function_name(id: &JsString) -> JsString {
    JsString::from("external_").concat(&external_name(id))
}

/// The case tools' ids, in the order of their record (`Object.entries`).
fn ids(case: &Case) -> Vec<JsString> {
    super::entries(&case.tools, false)
        .values()
        .into_iter()
        .map(|v| v.id.clone())
        .collect()
}

/// What `createCodeMode` throws, where two ids meet in one name
/// (`generateStubs`: "Code Mode tool id collision"); the same id twice is
/// one tool.
pub(super) fn collision(case: &Case) -> Option<JsString> {
    case.code_mode.as_ref()?;
    let mut seen: Vec<(JsString, JsString)> = Vec::new();
    for id in ids(case) {
        let name = external_name(&id);
        match seen.iter().find(|(n, _)| *n == name) {
            Some((_, prior)) if *prior != id => {
                let mut message = JsString::from("Code Mode tool id collision: \"");
                message = message.concat(prior);
                message.push_str("\" and \"");
                message = message.concat(&id);
                message.push_str("\" both map to external_");
                return Some(message.concat(&name));
            }
            Some(_) => {}
            None => seen.push((name, id)),
        }
    }
    None
}

/// A call of `execute_typescript`: the case tool's run, if its program
/// reached one, and the object Code Mode answers with.
#[derive(Debug, Clone)]
pub(super) struct Ran {
    pub(super) ran: Option<Executed>,
    pub(super) output: Json,
}

/// What a call of `execute_typescript` with `arguments` runs: the program
/// of the one form modelled, its function found among the case tools' or
/// not a function. Anything else is not modelled.
pub(super) fn run(case: &Case, arguments: &Json) -> Result<Ran, String> {
    let code = match arguments.members() {
        Some(members) if members.len() == 1 && members[0].0.to_lossy() == "code" => {
            members[0].1.as_str().cloned()
        }
        _ => None,
    }
    .ok_or("a call of execute_typescript with arguments other than { code: string }")?;
    let (name, input) = program(&code)?;
    if crate::naming::is_inherited_name(&name) {
        // globalThis has it: `__defineGetter__` rejects its argument with
        // a message of its own (fuzz seed 1, case 1853), `constructor`
        // answers an object.
        return Err("a Code Mode program calling a function every object inherits".into());
    }
    let found = ids(case).into_iter().find(|id| function_name(id) == name);
    let Some(id) = found else {
        if name.units().iter().copied().any(is_surrogate) {
            return Err("a Code Mode program naming a function with a lone surrogate".into());
        }
        let mut message = JsString::from("globalThis.");
        message = message.concat(&name);
        message.push_str(" is not a function");
        return Ok(Ran {
            ran: None,
            output: failed(message, "TypeError"),
        });
    };
    if !matches!(input, Json::Object(_)) {
        return Err("a Code Mode call of a tool with arguments other than an object".into());
    }
    // The tool's own `execute` validates (`createTool`), and its report's
    // message is what the program's call rejects with.
    let Some(city) = input.get("city").filter(|c| c.as_str().is_some()) else {
        let issues = super::validate::zod_issues("city", &input);
        let issue = issues
            .first()
            .and_then(|i| i.get("message"))
            .and_then(Json::as_str);
        let issue = issue.ok_or("a Code Mode call whose arguments zod would pass")?;
        let mut message = JsString::from("Tool input validation failed for ");
        message = message.concat(&id);
        message.push_str(". Please fix the following errors and try again:\n- city: ");
        message = message.concat(issue);
        message.push_str("\n\nProvided arguments: ");
        message = message.concat(&super::validate::provided(&input));
        return Ok(Ran {
            ran: None,
            output: failed(message, "Error"),
        });
    };
    let input = Json::object([("city", city.clone())]);
    let result = Json::parse(TOOL_OUTPUT).map_err(|e| e.to_string())?;
    Ok(Ran {
        ran: Some(Executed { id, input }),
        output: Json::object([
            ("success", Json::Bool(true)),
            ("result", result),
            ("logs", Json::Array(Vec::new())),
        ]),
    })
}

/// Code Mode's answer for a program that threw.
fn failed(message: JsString, name: &str) -> Json {
    Json::object([
        ("success", Json::Bool(false)),
        ("logs", Json::Array(Vec::new())),
        (
            "error",
            Json::object([
                ("message", Json::String(message)),
                ("name", Json::str(name)),
            ]),
        ),
    ])
}

/// The function name and the arguments of a program of the one form
/// modelled, `return await globalThis[NAME](ARGUMENTS);`, NAME a JSON
/// string and ARGUMENTS a JSON value.
fn program(code: &JsString) -> Result<(JsString, Json), String> {
    let other = || "a Code Mode program of another form".to_string();
    let text = code.to_rust().ok_or_else(other)?;
    let rest = text.strip_prefix(PREFIX).ok_or_else(other)?;
    let rest = rest.strip_suffix(SUFFIX).ok_or_else(other)?;
    let (name, input) = rest.split_once("](").ok_or_else(other)?;
    let name = match Json::parse(name) {
        Ok(Json::String(name)) => name,
        _ => return Err(other()),
    };
    let input = Json::parse(input).map_err(|_| other())?;
    Ok((name, input))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn external_names_are_identifiers() {
        let n = |s: &str| external_name(&JsString::from(s)).to_lossy();
        assert_eq!(n("get-weather"), "get_weather");
        assert_eq!(n("search.web"), "search_web");
        assert_eq!(n("$a_1"), "$a_1");
        assert_eq!(n("9lives"), "_9lives");
        assert_eq!(n(""), "_");
        assert_eq!(n("é"), "_");
        assert_eq!(n("😀"), "__");
    }

    #[test]
    fn programs_of_the_one_form_are_read_and_others_refused() {
        let p = |s: &str| program(&JsString::from(s));
        let (name, input) =
            p(r#"return await globalThis["external_a"]({"city":"Paris"});"#).unwrap();
        assert_eq!(name.to_lossy(), "external_a");
        assert_eq!(input.to_compact(), r#"{"city":"Paris"}"#);
        assert!(p(r#"return globalThis["external_a"]({});"#).is_err());
        assert!(p(r#"return await globalThis[external_a]({});"#).is_err());
    }
}
