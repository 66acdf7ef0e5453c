//! What Mastra does with a call's arguments before a tool runs:
//! `validate(release, input schema, arguments)`, either the input the tool
//! is run with, or the report the model gets back instead
//! (`validateToolInput`, 1.67.0 `dist/tool-D0LLiaqQ.js:294`).
//!
//! In: the release, the schema of the tool called (`Schema`: each of the
//! probe's tools, a workflow, a sub-agent, working memory),
//! the name the report gives the tool (its key in Mastra's record before
//! `formatTools`), and the arguments as the model sent them. Out: `Ok` with
//! `Ok(Ok(input))` with what `execute` receives (a zod object drops keys it
//! does not know), `Ok(Err(report))` with the report, in the normalised form
//! projections compare
//! (`projection::normalise_validation`: the validator's issue lines and
//! `validationErrors` are `<issues>`, the rest exact), or `Err` with why the
//! model does not say: a workflow's `inputData` sent as JSON text
//! (coerced from 1.3.0 for zod schemas only, `coerceStringifiedJsonValues`).
//!
//! Whether arguments pass is the validator's, and every validator that
//! runs here agrees on the shapes this covers: an object whose required
//! string fields are strings (zod 3 for the probe's tools on every release;
//! a JSON Schema validator for workflows, working memory and MCP tools from
//! the release that converts them). What Mastra
//! adds in front of the validator differs by release (`releases`): a
//! sub-agent's `prompt` taken from `query`, `message` or `input`
//! (`PROMPT_ALIASES`).

use super::releases::Release;
use crate::js::json::Json;
use crate::js::string::JsString;
use crate::projection::ISSUES;

/// The input schema of a tool, as far as validation tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    /// `z.object({ city: z.string() })`: the probe's tools, its MCP tools.
    City,
    /// A workflow's `{ inputData: { city: string } }`.
    Workflow,
    /// A sub-agent's `{ prompt: string, threadId?, resourceId?,
    /// instructions?, maxSteps? }`.
    SubAgent,
    /// `updateWorkingMemory`'s `{ memory: string }`.
    WorkingMemory,
    /// A workspace's read tool: `{ path: string }` beside optional fields
    /// (`offset`, `limit`, `showLineNumbers`, `encoding`) no call here
    /// gives.
    Path,
}

/// The longest "Provided arguments" text before it is cut
/// (`truncateForLogging(data, maxLength = 200)`), in UTF-16 code units as
/// `slice` counts them.
const PROVIDED_MAX: usize = 200;

/// `truncateForLogging(input)`: `JSON.stringify(input, null, 2)`, cut at
/// 200 code units with "... (truncated)".
pub fn provided(input: &Json) -> JsString {
    let mut text = JsString::from(input.to_pretty().as_str());
    if text.len() > PROVIDED_MAX {
        text = text.slice(0, PROVIDED_MAX);
        text.push_str("... (truncated)");
    }
    text
}

/// The report for arguments `input` that the tool `name` rejected, in its
/// normalised form.
pub fn report(name: &JsString, input: &Json) -> Json {
    let mut message = JsString::from("Tool input validation failed for ");
    message = message.concat(name);
    message.push_str(". Please fix the following errors and try again:\n");
    message.push_str(ISSUES);
    message.push_str("\n\nProvided arguments: ");
    message = message.concat(&provided(input));
    Json::object([
        ("error", Json::Bool(true)),
        ("message", Json::String(message)),
        ("validationErrors", Json::str(ISSUES)),
    ])
}

impl Schema {
    /// The one required string field of a schema that is
    /// `z.object({ FIELD: z.string() })`; `None` for the nested and the
    /// optional ones.
    pub fn string_field(self) -> Option<&'static str> {
        match self {
            Schema::City => Some("city"),
            Schema::WorkingMemory => Some("memory"),
            Schema::Path => Some("path"),
            Schema::Workflow | Schema::SubAgent => None,
        }
    }
}

/// zod 3's `getParsedType` for a JSON value, as an issue's `received`
/// names it.
fn parsed_type(v: Option<&Json>) -> &'static str {
    match v {
        None => "undefined",
        Some(Json::Null) => "null",
        Some(Json::Bool(_)) => "boolean",
        Some(Json::Number(_)) => "number",
        Some(Json::String(_)) => "string",
        Some(Json::Array(_)) => "array",
        Some(Json::Object(_)) => "object",
    }
}

/// The issues zod 3 finds in `input` for `z.object({ FIELD: z.string() })`,
/// as its error lists them (`code`, `expected`, `received`, `path`,
/// `message`): none, or the one of the object itself or of its field. A
/// missing field is "Required"; a wrong type "Expected T, received U".
pub fn zod_issues(field: &str, input: &Json) -> Vec<Json> {
    let issue = |expected: &str, received: Option<&Json>, path: Vec<Json>| {
        let got = parsed_type(received);
        let message = match received {
            None => "Required".to_string(),
            Some(_) => format!("Expected {expected}, received {got}"),
        };
        Json::object([
            ("code", Json::str("invalid_type")),
            ("expected", Json::str(expected)),
            ("received", Json::str(got)),
            ("path", Json::Array(path)),
            ("message", Json::str(&message)),
        ])
    };
    if !matches!(input, Json::Object(_)) {
        return vec![issue("object", Some(input), Vec::new())];
    }
    let value = member(input, field);
    if is_string(value) {
        return Vec::new();
    }
    vec![issue("string", value, vec![Json::str(field)])]
}

fn member<'a>(v: &'a Json, name: &str) -> Option<&'a Json> {
    match v {
        Json::Object(_) => v.get(name),
        _ => None,
    }
}

fn is_string(v: Option<&Json>) -> bool {
    matches!(v, Some(Json::String(_)))
}

/// `{ field: value }` of `input`'s own `fields`, in the schema's order:
/// what a zod object passes on (unknown keys dropped, absent optional
/// ones left out).
fn picked(input: &Json, fields: &[&str]) -> Json {
    Json::object(
        fields
            .iter()
            .filter_map(|f| member(input, f).map(|v| (*f, v.clone()))),
    )
}

/// `coerceStringifiedJsonValues` on a field whose zod schema is an object
/// (`WORKFLOW_TEXT_COERCED`): text that starts with `{` once trimmed and
/// parses to a plain object is validated again as that object; the report
/// of a failure still quotes the arguments as sent.
fn coerced_object(rel: &Release, text: &JsString) -> Option<Json> {
    if !rel.workflow_text_coerced {
        return None;
    }
    let start = text.units().iter().position(|&u| !is_js_whitespace(u))?;
    if text.unit(start) != Some(u16::from(b'{')) {
        return None;
    }
    match Json::parse(&text.to_rust()?) {
        Ok(parsed @ Json::Object(_)) => Some(parsed),
        _ => None,
    }
}

/// `String.prototype.trim`'s whitespace and line terminators (a regex's
/// `\s`).
pub(super) fn is_js_whitespace(u: u16) -> bool {
    matches!(
        u,
        0x09..=0x0d | 0x20 | 0xa0 | 0x1680 | 0x2000..=0x200a | 0x2028 | 0x2029 | 0x202f | 0x205f | 0x3000 | 0xfeff
    )
}

/// What validation gives: the input `execute` runs with, or the report.
pub type Checked = Result<Json, Json>;

/// Validate `input` for a tool of `schema` named `name` in its report.
pub fn validate(
    rel: &Release,
    schema: Schema,
    name: &JsString,
    input: &Json,
) -> Result<Checked, String> {
    // A `null` member is judged as the schema judges it, with nothing
    // stripped first: a `null` where a string is required is rejected, and
    // the report quotes the arguments as sent; elsewhere it passes (observed
    // for sub-agents and workflows on every route of 1.0.4 to 1.71.0,
    // `cases/calls/null-inside-arguments.json`).
    // An array arrives as an object with its indices as keys (observed on
    // 1.0.4, 1.67.0 and 1.71.0 on every route: `["Paris"]` is quoted as
    // `{ "0": "Paris" }`, `[]` as `{}`).
    let spread;
    let input = match input {
        // 0.x validates the array itself (`legacy::spreads_arrays`).
        Json::Array(items) if super::releases::legacy::spreads_arrays(rel) => {
            spread = Json::Object(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (JsString::from(i.to_string().as_str()), v.clone()))
                    .collect(),
            );
            &spread
        }
        other => other,
    };
    let rejected = || super::releases::legacy::worded(rel, report(name, input), name, input);
    Ok(match schema {
        Schema::City => {
            if is_string(member(input, "city")) {
                Ok(picked(input, &["city"]))
            } else {
                Err(rejected())
            }
        }
        Schema::WorkingMemory => {
            if is_string(member(input, "memory")) {
                Ok(picked(input, &["memory"]))
            } else {
                Err(rejected())
            }
        }
        Schema::Path => {
            if is_string(member(input, "path")) {
                Ok(picked(input, &["path"]))
            } else {
                Err(rejected())
            }
        }
        Schema::Workflow => match member(input, "inputData") {
            Some(Json::String(_)) if rel.on_0x() => {
                return Err("a workflow's inputData sent as text on 0.x".into())
            }
            Some(Json::String(text)) => match coerced_object(rel, text) {
                Some(d) if is_string(member(&d, "city")) => {
                    Ok(Json::object([("inputData", picked(&d, &["city"]))]))
                }
                _ => Err(rejected()),
            },
            Some(d) if is_string(member(d, "city")) => {
                Ok(Json::object([("inputData", picked(d, &["city"]))]))
            }
            _ => Err(rejected()),
        },
        Schema::SubAgent => {
            let mut prompt = member(input, "prompt").cloned();
            if rel.prompt_aliases && matches!(prompt, None | Some(Json::Null)) {
                // `obj.query ?? obj.message ?? obj.input`, the first string.
                prompt = ["query", "message", "input"]
                    .iter()
                    .filter_map(|a| member(input, a))
                    .find(|v| matches!(v, Json::String(_)))
                    .cloned();
            }
            match prompt {
                Some(p @ Json::String(_)) => {
                    let mut data = picked(input, &["prompt", "threadId", "resourceId"]);
                    if let Json::Object(members) = &mut data {
                        match members
                            .iter_mut()
                            .find(|(k, _)| *k == JsString::from("prompt"))
                        {
                            Some(slot) => slot.1 = p,
                            None => members.insert(0, (JsString::from("prompt"), p)),
                        }
                    }
                    Ok(data)
                }
                _ => Err(rejected()),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::spec::MastraVersion;

    fn j(s: &str) -> Json {
        Json::parse(s).unwrap()
    }

    #[test]
    fn zod_issues_are_written_as_zod_3_writes_its_error() {
        // The text after "Error message: " in what 0.13.2 sent for
        // `cases/replies/bad-arguments.json`.
        let missing = Json::Array(zod_issues("city", &j(r#"{"town":1}"#))).to_pretty();
        assert_eq!(
            missing,
            "[\n  {\n    \"code\": \"invalid_type\",\n    \"expected\": \"string\",\n    \"received\": \"undefined\",\n    \"path\": [\n      \"city\"\n    ],\n    \"message\": \"Required\"\n  }\n]"
        );
        // (field, arguments, the one issue's `received`, `message`, `path`)
        let table: [(&str, &str, Option<[&str; 3]>); 5] = [
            ("city", r#"{"city":"Paris","x":1}"#, None),
            (
                "city",
                r#"{"city":4}"#,
                Some(["number", "Expected string, received number", r#"["city"]"#]),
            ),
            (
                "city",
                r#"{"city":null}"#,
                Some(["null", "Expected string, received null", r#"["city"]"#]),
            ),
            // `cases/calls/null-arguments.json`: an array is not spread here.
            (
                "city",
                r#"["Paris"]"#,
                Some(["array", "Expected object, received array", "[]"]),
            ),
            (
                "memory",
                r#"{"city":"Paris"}"#,
                Some(["undefined", "Required", r#"["memory"]"#]),
            ),
        ];
        for (field, input, want) in table {
            let issues = zod_issues(field, &j(input));
            assert!(issues.len() <= 1, "{issues:?}");
            let got = issues.first().map(|i| {
                let text = |k| i.get(k).and_then(Json::as_str).unwrap().to_lossy();
                [
                    text("received"),
                    text("message"),
                    i.get("path").unwrap().to_compact(),
                ]
            });
            assert_eq!(got, want.map(|w| w.map(String::from)), "{field} {input}");
        }
    }

    #[test]
    fn workflow_input_text_is_parsed_from_1_3_0_through_1_10_0() {
        let name = JsString::from("workflow-w");
        let call = |text: &str| Json::object([("inputData", Json::str(text))]);
        let ran = j(r#"{"inputData":{"city":"Paris"}}"#);
        for (version, runs) in [
            ((1, 2, 0), false),
            ((1, 3, 0), true),
            ((1, 10, 0), true),
            ((1, 11, 0), false),
        ] {
            let rel = Release::of(MastraVersion::new(version.0, version.1, version.2));
            let got = validate(
                &rel,
                Schema::Workflow,
                &name,
                &call("\n {\"city\":\"Paris\"}"),
            )
            .unwrap();
            assert_eq!(got.as_ref().ok(), runs.then_some(&ran), "{version:?}");
            for failing in [
                "{\"city\":5}",
                "[1]",
                "Paris",
                "{",
                "\u{feff}{\"city\":\"Paris\"}",
            ] {
                assert!(validate(&rel, Schema::Workflow, &name, &call(failing))
                    .unwrap()
                    .is_err());
            }
        }
    }

    #[test]
    fn provided_arguments_are_pretty_json_cut_at_200_units() {
        assert_eq!(provided(&j("{}")).to_lossy(), "{}");
        assert_eq!(provided(&j("null")).to_lossy(), "null");
        assert_eq!(provided(&j(r#""Paris""#)).to_lossy(), "\"Paris\"");
        assert_eq!(
            provided(&j(r#"{"town":1}"#)).to_lossy(),
            "{\n  \"town\": 1\n}"
        );
        let long = provided(&j(&format!(r#"{{"city":1,"note":"{}"}}"#, "x".repeat(300))));
        assert!(long.to_lossy().ends_with("xxx... (truncated)"));
        assert_eq!(long.len(), 200 + "... (truncated)".len());
    }

    #[test]
    fn the_probe_tools_pass_a_string_city_and_drop_the_rest() {
        let rel = Release::of(MastraVersion::new(1, 67, 0));
        let name = JsString::from("search.web");
        let v = |s: &str| validate(&rel, Schema::City, &name, &j(s)).unwrap();
        assert_eq!(v(r#"{"city":"Paris","x":1}"#), Ok(j(r#"{"city":"Paris"}"#)));
        assert_eq!(
            v(r#"{"city":"Paris","x":null}"#),
            Ok(j(r#"{"city":"Paris"}"#))
        );
        for bad in [
            "{}",
            r#"{"city":1}"#,
            r#"{"city":null}"#,
            r#""Paris""#,
            "[1]",
            "null",
        ] {
            let report = v(bad).unwrap_err();
            let message = report.get("message").unwrap().as_str().unwrap().to_lossy();
            assert!(
                message.starts_with("Tool input validation failed for search.web. "),
                "{message}"
            );
        }
    }

    #[test]
    fn a_sub_agent_prompt_is_found_under_its_aliases_where_mastra_looks() {
        let name = JsString::from("agent-a");
        let aliased = j(r#"{"query":"Paris","x":1}"#);
        let new = Release::of(MastraVersion::new(1, 67, 0));
        let old = Release::of(MastraVersion::new(1, 0, 4));
        if new.prompt_aliases {
            assert_eq!(
                validate(&new, Schema::SubAgent, &name, &aliased),
                Ok(Ok(j(r#"{"prompt":"Paris"}"#)))
            );
        }
        assert!(validate(&old, Schema::SubAgent, &name, &aliased)
            .unwrap()
            .is_err());
    }
}
