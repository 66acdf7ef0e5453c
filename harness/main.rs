//! Parse, run, map the outcome to a documented exit status; nothing else.

use clap::Parser;
use mastra_conform::cli::Cli;
use mastra_conform::commands::{execute, exit};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            let code = if e.use_stderr() {
                exit::BAD_INPUT
            } else {
                exit::OK
            };
            return ExitCode::from(code);
        }
    };
    match execute(cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
