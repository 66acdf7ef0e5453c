//! `mcp-server`: the stdio MCP server a probe starts for a case's `mcp`
//! servers (`observe::mcp_server`). Hidden from help: only the probe runs it.

use crate::observe::mcp_server::{self, McpServerError};
use crate::outcome::{Exit, Failure};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args, Clone, PartialEq, Eq)]
pub struct McpServerArgs {
    /// A JSON array of the tool names to list, in order.
    pub names_file: PathBuf,
}

pub fn mcp_server(args: McpServerArgs) -> Result<Exit, Failure> {
    match mcp_server::serve(&args.names_file) {
        Ok(()) => Ok(Exit::Ok),
        Err(e @ (McpServerError::Read { .. } | McpServerError::Names { .. })) => Err(
            Failure::bad_because("the MCP server cannot list its names", e),
        ),
        Err(e) => Err(Failure::infra_because("the MCP server failed", e)),
    }
}
