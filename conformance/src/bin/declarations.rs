//! Holds generated TypeScript declarations to the function table
//! (`conformance/src/surfaces/function_table.rs`):
//!
//!     cargo run -p actionseal-conformance --bin declarations -- wasm|node FILE.d.ts
//!
//! `bindings-wasm/test.sh` runs it on what wasm-bindgen generated; `regen --check` holds the
//! committed `bindings-node/index.d.ts` to the table itself.

use actionseal_conformance::surfaces::{declaration_problems, Flavor};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [flavor, path] = args.as_slice() else {
        eprintln!("usage: declarations wasm|node FILE.d.ts");
        return ExitCode::FAILURE;
    };
    let flavor = match flavor.as_str() {
        "wasm" => Flavor::Wasm,
        "node" => Flavor::Node,
        other => {
            eprintln!("declarations: unknown flavor {other}");
            return ExitCode::FAILURE;
        }
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("declarations: {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let problems = declaration_problems(flavor, path, &text);
    for p in &problems {
        eprintln!("error: {p}");
    }
    if problems.is_empty() {
        println!("{path}: every declaration is the function table's");
        ExitCode::SUCCESS
    } else {
        eprintln!("\nThe function table is conformance/src/surfaces/function_table.rs.");
        ExitCode::FAILURE
    }
}
