//! Rewrites the expected results of the conformance vectors and the generated corpus from the
//! Rust core. With `--check`, writes nothing and fails when any file would change.

use actionseal_conformance::decisions::{self, agrees};
use actionseal_conformance::delegation::delegation_result;
use actionseal_conformance::{batch, evidence, proof, quorum, redaction};
use actionseal_conformance::{canon_vectors, corpus, dir, expected, surfaces, to_pretty, vectors};
use actionseal_core::Profile;
use serde_json::{Map, Value as Json};
use std::fs;
use std::process::ExitCode;

fn main() -> ExitCode {
    let check = std::env::args().any(|a| a == "--check");
    let mut problems = Vec::new();
    let mut changed = Vec::new();

    for v in canon_vectors() {
        let input = v.input();
        let strict = expected(&input, Profile::Strict);
        let rfc = expected(&input, Profile::Rfc8785);
        if let Some(p) = naming_problem(&v.name, &strict) {
            problems.push(p);
        }
        let mut doc = Map::new();
        for key in ["description", "input", "input_hex", "input_repeat"] {
            if let Some(x) = v.doc.get(key) {
                doc.insert(key.into(), x.clone());
            }
        }
        if let Some(k) = v.doc.keys().find(|k| {
            !matches!(
                k.as_str(),
                "description" | "input" | "input_hex" | "input_repeat" | "strict" | "rfc8785"
            )
        }) {
            problems.push(format!("{}: unknown field {k:?}", v.name));
        }
        doc.insert("strict".into(), strict);
        doc.insert("rfc8785".into(), rfc);
        let text = to_pretty(&Json::Object(doc));
        if fs::read_to_string(&v.path).ok().as_deref() != Some(text.as_str()) {
            changed.push(v.path.display().to_string());
            if !check {
                fs::write(&v.path, text).expect("write vector");
            }
        }
    }

    type Compute = fn(&Map<String, Json>) -> Result<Json, String>;
    let kinds: [(&str, Compute); 10] = [
        ("contract", decisions::contract_result),
        ("action", decisions::action_result),
        ("approval", decisions::approval_result),
        ("amend", decisions::amend_result),
        ("notice", decisions::notice_result),
        ("gate", decisions::gate_result),
        ("budget", decisions::budget_result),
        ("signed", proof::proof_result),
        ("passkey", proof::proof_result),
        ("delegation", delegation_result),
    ];
    for (kind, compute) in kinds {
        for v in vectors(kind) {
            let actual = match compute(&v.doc) {
                Ok(a) => a,
                Err(e) => {
                    problems.push(format!("{kind}/{}: {e}", v.name));
                    continue;
                }
            };
            let authored = v.doc.get("expect").cloned().unwrap_or(Json::Null);
            if !agrees(&authored, &actual) {
                problems.push(format!(
                    "{kind}/{}: expected {authored}, the core says {actual}",
                    v.name
                ));
            }
            // Vectors that run a check are named by the permit rule (a gate's `record` names
            // a ledger outcome, not a check's).
            let naming = match actual.get("outcome") {
                Some(_) if kind != "gate" => permit_naming_problem(&v.name, &actual),
                _ => naming_problem(&v.name, &actual),
            };
            if let Some(p) = naming {
                problems.push(format!("{kind}/{p}"));
            }
            let mut doc = v.doc.clone();
            doc.insert("expect".into(), actual);
            write_if_changed(&v.path, &to_pretty(&Json::Object(doc)), check, &mut changed);
        }
    }

    // Vectors built from hand-written scenarios: a check of one approval, and of a set.
    type Build = fn(&Json) -> Result<Vec<(String, Json)>, Vec<String>>;
    let built: [(&str, Build); 2] = [
        ("permit", decisions::permit_vectors),
        ("quorum", quorum::quorum_vectors),
    ];
    for (kind, build) in built {
        let file = format!("scenarios/{kind}.json");
        let scenarios: Json = serde_json::from_str(
            &fs::read_to_string(dir().join(&file)).unwrap_or_else(|e| panic!("{file}: {e}")),
        )
        .unwrap_or_else(|e| panic!("{file} is not JSON: {e}"));
        match build(&scenarios) {
            Ok(built) => write_built(kind, built, check, &mut changed, &mut problems),
            Err(p) => problems.extend(p),
        }
    }

    // Batches: built, deselected, verified, checked and their breakers stepped; named by
    // their own rule (batch.rs).
    let scenarios: Json = serde_json::from_str(
        &fs::read_to_string(dir().join("scenarios/batch.json")).expect("scenarios/batch.json"),
    )
    .expect("scenarios/batch.json is not JSON");
    match batch::batch_vectors(&scenarios) {
        Ok(built) => write_dir("batch", built, check, &mut changed),
        Err(p) => problems.extend(p),
    }

    // Sensitive values committed, revealed and checked; named by their own rule
    // (redaction.rs).
    match redaction::redaction_vectors() {
        Ok(built) => write_dir("redaction", built, check, &mut changed),
        Err(p) => problems.extend(p),
    }

    // Bundles exported by a real ledger (see conformance/src/evidence.rs).
    match evidence::evidence_vectors(&mut evidence::Kept { check }) {
        Ok(built) => write_dir("evidence", built, check, &mut changed),
        Err(p) => problems.extend(p),
    }

    let corpus_path = dir().join("generated/corpus.jsonl");
    let lines: String = corpus::generate()
        .iter()
        .map(|c| serde_json::to_string(c).expect("serialize") + "\n")
        .collect();
    if fs::read_to_string(&corpus_path).ok().as_deref() != Some(lines.as_str()) {
        changed.push(corpus_path.display().to_string());
        if !check {
            fs::create_dir_all(corpus_path.parent().unwrap()).expect("mkdir");
            fs::write(&corpus_path, lines).expect("write corpus");
        }
    }

    // The surfaces generated from core: codes.json, the TypeScript declarations, the stub.
    problems.extend(surfaces::meaning_problems());
    match surfaces::surfaces() {
        Ok(files) => {
            for f in files {
                write_if_changed(&f.path, &f.text, check, &mut changed);
            }
        }
        Err(p) => problems.extend(p),
    }

    for p in &problems {
        eprintln!("error: {p}");
    }
    if check {
        for c in &changed {
            eprintln!("error: {c} is out of date");
        }
        if !changed.is_empty() {
            eprintln!(
                "\nThese files are generated from core. Run\n\n    \
                 cargo run -p actionseal-conformance --bin regen\n\nand commit:\n"
            );
            for c in &changed {
                eprintln!("    {c}");
            }
        }
    } else {
        for c in &changed {
            eprintln!("updated {c}");
        }
    }
    let stale = check && !changed.is_empty();
    if problems.is_empty() && !stale {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `y_` files must be accepted under strict, `n_<code>...` files rejected with that code.
fn naming_problem(name: &str, strict: &Json) -> Option<String> {
    let error = strict.get("error").and_then(Json::as_str);
    match (name.split_once('_'), error) {
        (Some(("y", _)), None) => None,
        (Some(("y", _)), Some(code)) => Some(format!("{name}: y_ vector rejected with {code}")),
        (Some(("n", rest)), Some(code)) if rest.starts_with(code) => None,
        (Some(("n", _)), Some(code)) => Some(format!(
            "{name}: n_ vector rejected with {code}, not the code its name starts with"
        )),
        (Some(("n", _)), None) => Some(format!("{name}: n_ vector accepted under strict")),
        _ => Some(format!("{name}: vector names start with y_ or n_")),
    }
}

/// Writes `vectors/<kind>/` from the vectors built from its scenarios (named for their
/// results), removing files no scenario makes.
fn write_built(
    kind: &str,
    built: Vec<(String, Json)>,
    check: bool,
    changed: &mut Vec<String>,
    problems: &mut Vec<String>,
) {
    for (name, vector) in &built {
        if let Some(p) = permit_naming_problem(name, &vector["expect"]) {
            problems.push(format!("{kind}: {p}"));
        }
    }
    write_dir(kind, built, check, changed);
}

/// Writes `vectors/<kind>/` from `built`, removing files it does not hold.
fn write_dir(kind: &str, built: Vec<(String, Json)>, check: bool, changed: &mut Vec<String>) {
    let out = dir().join("vectors").join(kind);
    let names: Vec<String> = built.iter().map(|(n, _)| format!("{n}.json")).collect();
    for entry in fs::read_dir(&out).into_iter().flatten().flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        if file.ends_with(".json") && !names.contains(&file) {
            changed.push(format!("{} (no such scenario)", entry.path().display()));
            if !check {
                fs::remove_file(entry.path()).expect("remove stale vector");
            }
        }
    }
    for (name, vector) in built {
        if !check {
            fs::create_dir_all(&out).expect("mkdir");
        }
        write_if_changed(
            &out.join(format!("{name}.json")),
            &to_pretty(&vector),
            check,
            changed,
        );
    }
}

fn write_if_changed(path: &std::path::Path, text: &str, check: bool, changed: &mut Vec<String>) {
    if fs::read_to_string(path).ok().as_deref() != Some(text) {
        changed.push(path.display().to_string());
        if !check {
            fs::write(path, text).expect("write vector");
        }
    }
}

/// `y_` scenarios permit; `n_reject...`/`n_reapprove...` give that outcome; other `n_<code>`
/// scenarios fail with that error code.
fn permit_naming_problem(name: &str, expect: &Json) -> Option<String> {
    let outcome = expect.get("outcome").and_then(Json::as_str);
    let ok = match (name.split_once('_'), outcome) {
        (Some(("y", _)), Some("permit")) => true,
        (Some(("n", rest)), Some(o)) => o != "permit" && rest.starts_with(o),
        (Some(("n", _)), None) => naming_problem(name, expect).is_none(),
        _ => false,
    };
    (!ok).then(|| format!("permit/{name}: name does not match the result {expect}"))
}
