//! Parse, run, map the outcome to a documented exit status; nothing else.

use mastra_conform::outcome::error_chain;
use std::process::ExitCode;

fn main() -> ExitCode {
    mastra_conform::run::session::fix_mmap_threshold();
    // Before any child starts: none may read this process's environment.
    mastra_conform::observe::sandbox::harden_harness();
    match mastra_conform::cli::run() {
        Ok(exit) => ExitCode::from(exit.code()),
        Err(e) => {
            eprintln!("error: {}", error_chain(&e));
            ExitCode::from(e.exit().code())
        }
    }
}
