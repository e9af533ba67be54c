use super::*;
use actionseal_core::Code;
use std::path::PathBuf;

fn example(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/refund")
        .join(file)
}

#[test]
fn another_profile_is_refused_even_past_the_command_line() {
    let options = Options::with_profile(Profile::Rfc8785);
    let out = run(
        &example("action.json"),
        &example("context.json"),
        Approvals::One(&example("approval.json")),
        &options,
    );
    assert!(matches!(out, Err(Failure::Usage(m)) if m.contains("strict profile only")));
}

#[test]
fn a_number_that_would_round_is_bad_input_not_a_permit() {
    // The approved action with 2500 spelled as 2500.0000000000000001: under rfc8785 it would
    // read as 2500 and permit; under strict it is refused before any check.
    let text = std::fs::read_to_string(example("action.json"))
        .unwrap()
        .replace("2500", "2500.0000000000000001");
    assert!(text.contains("2500.0000000000000001"));
    let path = std::env::temp_dir().join(format!("actionseal-check-{}.json", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let out = run(
        &path,
        &example("context.json"),
        Approvals::One(&example("approval.json")),
        &Options::default(),
    );
    let _ = std::fs::remove_file(&path);
    match out {
        Err(Failure::InputIn(_, e)) => assert_eq!(e.code(), Code::InexactNumber),
        _ => panic!("expected inexact_number"),
    }
}
