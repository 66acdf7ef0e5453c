//! `serve`: the stdio MCP server a probe starts for a case's `mcp` servers
//! (`mastra-conform mcp-server NAMES_FILE`), on the official Rust SDK
//! (`rmcp`).
//!
//! In: NAMES_FILE, a JSON array of tool names (`node-probe/sources.mjs`
//! writes it). Out: on stdout, the MCP stdio transport, answering what
//! `node-probe/mcp-tools.mjs` answers and what the official TypeScript SDK's
//! `Server` answers with the same listing (`node-probe/testing/mcp-compare.mjs`
//! compares the three through the client each install's `@mastra/mcp` uses):
//!
//! - `initialize`: the protocol version the client asked for, `{ tools: {} }`,
//!   and `mastra-conform-mcp` 1.0.0;
//! - `ping`: `{}`;
//! - `tools/list`: each name in the given order, described "Get the weather",
//!   with the standard tool's input schema (`{ city: string }`, required);
//! - `tools/call`: `{ content: [{ type: "text", text: '{"tempC":20}' }] }`,
//!   the standard tool's result, whatever tool is called;
//! - any other request: JSON-RPC's "Method not found"; notifications: nothing.
//!
//! Why a subcommand of the harness and not a Node script: a case's servers
//! are processes, and a Node start is about 50 ms of CPU before the client's
//! handshake; this binary starts in about a millisecond.
//!
//! A tool name is a JavaScript string, which may hold a lone surrogate (the
//! fuzzer's keys do); a Rust `String`, and so `rmcp`'s `Tool`, cannot. Such a
//! unit goes through `rmcp` as a private-use stand-in (`encode_name`), and
//! the writer under the transport puts back the `\uXXXX` escape
//! `JSON.stringify` writes for it (`decode_line`).

use crate::js::json::Json;
use crate::js::string::{is_surrogate, JsString};
use rmcp::model::{
    CallToolResult, ClientRequest, ContentBlock, ErrorCode, Implementation, InitializeResult,
    JsonObject, ListToolsResult, ServerCapabilities, ServerResult, Tool,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, Service, ServiceExt};
use rmcp::ErrorData;
use std::io::Write;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// The server's name and version in its `initialize` answer.
pub const SERVER_NAME: &str = "mastra-conform-mcp";
pub const SERVER_VERSION: &str = "1.0.0";

/// The description of every listed tool: the standard tool's.
const DESCRIPTION: &str = "Get the weather";

/// The text of every call's one content part: the standard tool's result.
const CALL_RESULT: &str = r#"{"tempC":20}"#;

/// Marks a stand-in in an encoded name: a noncharacter, which no listing
/// means as text. The character after it says what it stands for.
const ESCAPE: char = '\u{FDD0}';
/// After `ESCAPE`: a lone surrogate `0xD800 + (c - SURROGATE_BASE)`.
const SURROGATE_BASE: u32 = 0xE000;

#[derive(Debug, thiserror::Error)]
pub enum McpServerError {
    #[error("cannot read {file}")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: {message}")]
    Names { file: String, message: String },
    #[error("the MCP server's runtime could not start")]
    Runtime(#[source] std::io::Error),
    #[error("the MCP session ended in an error: {0}")]
    Session(String),
}

/// The tool names in `file`, a JSON array of strings, exact to the UTF-16
/// code unit (a lone surrogate included).
pub fn read_names(file: &Path) -> Result<Vec<JsString>, McpServerError> {
    let shown = file.display().to_string();
    let text = std::fs::read(file).map_err(|source| McpServerError::Read {
        file: shown.clone(),
        source,
    })?;
    let bad = |message: String| McpServerError::Names {
        file: shown.clone(),
        message,
    };
    let json = Json::parse_bytes(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let Json::Array(items) = json else {
        return Err(bad(format!(
            "must be a JSON array of strings, not {}",
            json.kind()
        )));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| match item {
            Json::String(s) => Ok(s),
            other => Err(bad(format!(
                "item {i} must be a string, not {}",
                other.kind()
            ))),
        })
        .collect()
}

/// `name` as a Rust string: a lone surrogate becomes `ESCAPE` and its
/// stand-in, and `ESCAPE` itself `ESCAPE` twice, so `decode_line` can tell
/// them apart from any other text.
pub fn encode_name(name: &JsString) -> String {
    let mut out = String::with_capacity(name.len());
    for unit in char::decode_utf16(name.units().iter().copied()) {
        match unit {
            Ok(ESCAPE) => {
                out.push(ESCAPE);
                out.push(ESCAPE);
            }
            Ok(c) => out.push(c),
            Err(e) => {
                let lone = e.unpaired_surrogate();
                debug_assert!(is_surrogate(lone));
                out.push(ESCAPE);
                out.push(
                    char::from_u32(SURROGATE_BASE + u32::from(lone - 0xD800))
                        .expect("0xE000..0xE800 are characters"),
                );
            }
        }
    }
    out
}

/// One line of JSON the client wrote, with every string (a tool name in a
/// call, above all) as `encode_name` gives it, so that `rmcp`, which reads
/// Rust strings, can read a name with a lone surrogate and does not drop
/// the request unanswered. A line that is not JSON goes on as it came, for
/// `rmcp` to answer as it answers any.
pub fn encode_line(line: &str) -> String {
    fn encoded(v: &Json) -> Json {
        match v {
            Json::String(s) => Json::String(encode_name(s).into()),
            Json::Array(items) => Json::Array(items.iter().map(encoded).collect()),
            Json::Object(members) => Json::Object(
                members
                    .iter()
                    .map(|(k, v)| (encode_name(k).into(), encoded(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    let body = line.trim_end_matches(['\n', '\r']);
    match Json::parse(body) {
        Ok(v) => format!("{}\n", encoded(&v).to_compact()),
        Err(_) => line.to_string(),
    }
}

/// One line of JSON `rmcp` wrote, with each stand-in written back as what
/// it stands for: `ESCAPE ESCAPE` as `ESCAPE`, a surrogate's stand-in as
/// the lowercase `\uXXXX` escape `JSON.stringify` writes. Stand-ins only
/// ever sit inside a JSON string (a tool name), where an escape is valid.
pub fn decode_line(line: &str) -> String {
    if !line.contains(ESCAPE) {
        return line.to_string();
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != ESCAPE {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(ESCAPE) => out.push(ESCAPE),
            Some(s) if (SURROGATE_BASE..SURROGATE_BASE + 0x800).contains(&u32::from(s)) => {
                let unit = 0xD800 + (u32::from(s) - SURROGATE_BASE);
                out.push_str(&format!("\\u{unit:04x}"));
            }
            // Not written by `encode_name`: kept as it came.
            Some(other) => {
                out.push(ESCAPE);
                out.push(other);
            }
            None => out.push(ESCAPE),
        }
    }
    out
}

/// The standard tool's input schema, keys in the order the Node server
/// writes them.
fn input_schema() -> JsonObject {
    let schema = serde_json::json!({
        "type": "object",
        "properties": { "city": { "type": "string" } },
        "required": ["city"],
    });
    match schema {
        serde_json::Value::Object(map) => map,
        _ => unreachable!("a JSON object literal"),
    }
}

/// The listing server: `rmcp`'s `Service` for the server role, answering
/// each request in one `match`, as `answerMessage` in mcp-tools.mjs does.
pub struct Listing {
    tools: Vec<Tool>,
}

impl Listing {
    pub fn new(names: &[JsString]) -> Listing {
        let schema = Arc::new(input_schema());
        Listing {
            tools: names
                .iter()
                .map(|n| Tool::new(encode_name(n), DESCRIPTION, schema.clone()))
                .collect(),
        }
    }

    fn info() -> InitializeResult {
        let mut info = InitializeResult::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new(SERVER_NAME, SERVER_VERSION);
        info
    }

    /// The answer to one request: `rmcp`'s result, with the fields the
    /// protocol versions these clients speak do not have left out
    /// (`resultType`; a call's `isError`, which the Node server leaves out).
    fn answer(&self, request: ClientRequest) -> Result<ServerResult, ErrorData> {
        match request {
            ClientRequest::InitializeRequest(request) => {
                let mut info = Listing::info();
                info.protocol_version = request.params.protocol_version;
                Ok(ServerResult::InitializeResult(info))
            }
            ClientRequest::PingRequest(_) => Ok(ServerResult::empty(())),
            ClientRequest::ListToolsRequest(_) => {
                let mut listing = ListToolsResult::with_all_items(self.tools.clone());
                listing.result_type = None;
                Ok(ServerResult::ListToolsResult(listing))
            }
            ClientRequest::CallToolRequest(_) => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(CALL_RESULT)]);
                result.result_type = None;
                result.is_error = None;
                Ok(ServerResult::CallToolResult(result))
            }
            _ => Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "Method not found",
                None,
            )),
        }
    }
}

impl Service<RoleServer> for Listing {
    async fn handle_request(
        &self,
        request: ClientRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        self.answer(request)
    }

    async fn handle_notification(
        &self,
        _notification: rmcp::model::ClientNotification,
        _context: NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Ok(())
    }

    fn get_info(&self) -> InitializeResult {
        Listing::info()
    }
}

/// stdout under the transport: each complete line `rmcp` writes goes out
/// through `decode_line`, at once (a client waits for each answer).
struct Stdout {
    pending: Vec<u8>,
}

impl tokio::io::AsyncWrite for Stdout {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.pending.extend_from_slice(buf);
        let Some(end) = self.pending.iter().rposition(|&b| b == b'\n') else {
            return Poll::Ready(Ok(buf.len()));
        };
        let lines: Vec<u8> = self.pending.drain(..=end).collect();
        // rmcp writes serde_json's output: UTF-8, split here only at a newline.
        let text = String::from_utf8_lossy(&lines);
        let mut out = std::io::stdout().lock();
        out.write_all(decode_line(&text).as_bytes())?;
        out.flush()?;
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(std::io::stdout().lock().flush())
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.poll_flush(cx)
    }
}

/// Serve the names in `names_file` on stdin and stdout until the client
/// closes stdin. Nothing else is written to stdout: it is the transport.
pub fn serve(names_file: &Path) -> Result<(), McpServerError> {
    let listing = Listing::new(&read_names(names_file)?);
    // One thread: a session is one client's requests, one at a time.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(McpServerError::Runtime)?;
    runtime.block_on(async {
        // The client's lines reach the transport through `encode_line`.
        let (mut feed, input) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
            let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
            let mut line = Vec::new();
            loop {
                line.clear();
                match stdin.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let encoded = encode_line(&String::from_utf8_lossy(&line));
                        if feed.write_all(encoded.as_bytes()).await.is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let transport = (
            input,
            Stdout {
                pending: Vec::new(),
            },
        );
        let running = listing
            .serve(transport)
            .await
            .map_err(|e| McpServerError::Session(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| McpServerError::Session(e.to_string()))?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_naming_a_lone_surrogate_reaches_rmcp_as_a_rust_string() {
        let line = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"\\udbff-x\",\"arguments\":{\"city\":\"P\"}}}\n";
        let encoded = encode_line(line);
        let read: serde_json::Value = serde_json::from_str(&encoded).expect("serde reads it");
        let name = read["params"]["name"].as_str().unwrap();
        assert_ne!(name, "\u{fffd}-x", "the surrogate is not replaced");
        assert_eq!(decode_line(name), "\\udbff-x");
        assert!(encoded.ends_with('\n'));
        assert_eq!(encode_line("not json\n"), "not json\n");
    }

    #[test]
    fn names_round_trip_to_the_escapes_json_stringify_writes() {
        let table: &[(&[u16], &str)] = &[
            (&[0x61, 0x2E, 0x62], "a.b"),
            (&[0xD800], "\\ud800"),
            (&[0xD83D, 0xDE00], "😀"),
            (&[0xDFFF, 0x78], "\\udfffx"),
            (&[0xDE00, 0xD83D], "\\ude00\\ud83d"),
            (&[0xFDD0], "\u{FDD0}"),
            (&[0xFDD0, 0xE000], "\u{FDD0}\u{E000}"),
            (&[0xDBFF, 0xDBFF, 0xDC00], "\\udbff\u{10FC00}"),
        ];
        for (units, want) in table {
            let name = JsString::from_units(units.to_vec());
            let line = serde_json::to_string(&encode_name(&name)).unwrap();
            let mut expected = String::new();
            crate::js::string::write_string(&mut expected, &name);
            assert_eq!(decode_line(&line), expected, "{units:x?}");
            assert_eq!(expected, format!("\"{want}\""), "{units:x?}");
        }
    }

    #[test]
    fn a_names_file_that_is_not_an_array_of_strings_is_named_with_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        for (text, wrong) in [
            ("{}", "must be a JSON array of strings, not an object"),
            (r#"["a", 1]"#, "item 1 must be a string, not a number"),
            ("[", "not JSON"),
        ] {
            let file = dir.path().join("names.json");
            std::fs::write(&file, text).unwrap();
            let e = read_names(&file).unwrap_err().to_string();
            assert!(e.contains("names.json") && e.contains(wrong), "{e}");
        }
        let e = read_names(&dir.path().join("absent.json")).unwrap_err();
        assert!(e.to_string().contains("absent.json"), "{e}");
    }

    #[test]
    fn each_request_gets_the_node_servers_answer() {
        let listing = Listing::new(&[JsString::from("a.b"), JsString::from_units(vec![0xD800])]);
        let json = |r: Result<ServerResult, ErrorData>| serde_json::to_value(r.unwrap()).unwrap();
        let call: ClientRequest = serde_json::from_value(serde_json::json!({
            "method": "tools/call", "params": { "name": "a.b", "arguments": { "city": "Paris" } }
        }))
        .unwrap();
        assert_eq!(
            json(listing.answer(call)),
            serde_json::json!({ "content": [{ "type": "text", "text": "{\"tempC\":20}" }] })
        );
        let list: ClientRequest =
            serde_json::from_value(serde_json::json!({ "method": "tools/list" })).unwrap();
        let listed = json(listing.answer(list));
        let schema = serde_json::json!({
            "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"]
        });
        assert_eq!(
            listed,
            serde_json::json!({ "tools": [
                { "name": "a.b", "description": "Get the weather", "inputSchema": schema },
                { "name": "\u{FDD0}\u{E000}", "description": "Get the weather", "inputSchema": schema },
            ] })
        );
        let init: ClientRequest = serde_json::from_value(serde_json::json!({
            "method": "initialize",
            "params": { "protocolVersion": "2024-11-05", "capabilities": {},
                        "clientInfo": { "name": "c", "version": "1" } }
        }))
        .unwrap();
        assert_eq!(
            json(listing.answer(init)),
            serde_json::json!({
                "protocolVersion": "2024-11-05",
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "mastra-conform-mcp", "version": "1.0.0" }
            })
        );
        let other: ClientRequest =
            serde_json::from_value(serde_json::json!({ "method": "resources/list" })).unwrap();
        let refused = listing.answer(other).unwrap_err();
        assert_eq!(
            (refused.code, refused.message.as_ref()),
            (ErrorCode::METHOD_NOT_FOUND, "Method not found")
        );
    }
}
