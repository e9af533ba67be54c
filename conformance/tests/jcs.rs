//! The public RFC 8785 test data (read from `$ACTIONSEAL_JCS_DIR`, never copied here): every
//! case passes under the `rfc8785` profile; under `strict`, the cases it rejects on purpose are
//! listed by name with the reason in `jcs-strict-exclusions.json`, and all others pass.
//!
//! In a bare clone without the data every test here returns early, saying so on stderr (the
//! test command prints one line about it); `ACTIONSEAL_REQUIRE_PUBLIC_DATA=1`, which CI sets,
//! makes absent data a failure.

use actionseal_conformance::{decode_hex, dir, jcs_dir_or_skip};
use actionseal_core::{canonicalize_json, Digest, Number, Options, Profile};
use serde_json::Value as Json;
use std::fs;

/// The data directory, or `None` to skip (see the module comment).
fn jcs() -> Option<std::path::PathBuf> {
    jcs_dir_or_skip()
}

/// The code the strict profile rejects a named public case with, if it is listed.
fn strict_exclusion(name: &str) -> Option<String> {
    let text = fs::read_to_string(dir().join("jcs-strict-exclusions.json")).unwrap();
    let doc: Json = serde_json::from_str(&text).unwrap();
    doc["excluded"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == name)
        .map(|x| x["code"].as_str().unwrap().to_owned())
}

/// The result under `p`, or the listed error for a strict exclusion.
fn expect_case(name: &str, input: &[u8], want: &str, profiles: &[Profile]) {
    for &p in profiles {
        let got = canon(input, p);
        match strict_exclusion(name).filter(|_| p == Profile::Strict) {
            Some(code) => assert_eq!(got, Err(code), "{name} (strict exclusion)"),
            None => assert_eq!(got.as_deref(), Ok(want), "{name} ({})", p.as_str()),
        }
    }
}

fn canon(input: &[u8], p: Profile) -> Result<String, String> {
    canonicalize_json(input, &Options::with_profile(p)).map_err(|e| e.code().as_str().to_owned())
}

/// Input/output file pairs under `dir`; outputs may end with an editor newline that is not
/// canonical.
fn check_pairs(jcs: &std::path::Path, dir: &str) -> usize {
    let mut n = 0;
    for entry in fs::read_dir(jcs.join(dir).join("input")).unwrap() {
        let input_path = entry.unwrap().path();
        let file = input_path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let input = fs::read(&input_path).unwrap();
        let want = fs::read_to_string(jcs.join(dir).join("output").join(&file)).unwrap();
        let name = format!("{dir}/input/{file}");
        expect_case(&name, &input, want.trim_end_matches('\n'), &Profile::ALL);
        n += 1;
    }
    n
}

#[test]
fn cyberphone_testdata() {
    let Some(jcs) = jcs() else { return };
    assert_eq!(check_pairs(&jcs, "cyberphone"), 6);
    let d = jcs.join("cyberphone");
    let mut n = 0;
    for entry in fs::read_dir(d.join("outhex")).unwrap() {
        n += 1;
        let path = entry.unwrap().path();
        let hex: String = fs::read_to_string(&path)
            .unwrap()
            .split_whitespace()
            .collect();
        let want = decode_hex(&hex).unwrap();
        let input = fs::read(
            d.join("input")
                .join(path.with_extension("json").file_name().unwrap()),
        )
        .unwrap();
        let want = String::from_utf8(want).unwrap();
        assert_eq!(
            canon(&input, Profile::Rfc8785).as_deref(),
            Ok(want.as_str()),
            "{}",
            path.display()
        );
    }
    assert!(n >= 6, "only {n} outhex files");
}

#[test]
fn erdtman_serde_jcs_and_rfc_examples() {
    let Some(jcs) = jcs() else { return };
    assert_eq!(check_pairs(&jcs, "erdtman_canonicalize"), 2);
    for (input, output) in [
        ("serde_jcs/ex.1.input.json", "serde_jcs/ex.1.output.json"),
        ("serde_jcs/ex.2.input.json", "serde_jcs/ex.2.output.json"),
        ("serde_jcs/ex.3.input.json", "serde_jcs/ex.3.output.json"),
        (
            "rfc8785/rfc_example.input.json",
            "rfc8785/rfc_example.expected.json",
        ),
        (
            "rfc8785/rfc_sorting.input.json",
            "rfc8785/rfc_sorting.expected.json",
        ),
    ] {
        let bytes = fs::read(jcs.join(input)).unwrap();
        let want = fs::read_to_string(jcs.join(output)).unwrap();
        expect_case(input, &bytes, want.trim_end_matches('\n'), &Profile::ALL);
    }
}

#[test]
fn appendix_b_numbers() {
    let Some(jcs) = jcs() else { return };
    let csv = fs::read_to_string(jcs.join("rfc8785/appendix_b_numbers.csv")).unwrap();
    let mut n = 0;
    for line in csv.lines().skip(1) {
        let mut cols = line.splitn(3, ',');
        let (hex, want) = (cols.next().unwrap(), cols.next().unwrap());
        let x = f64::from_bits(u64::from_str_radix(hex, 16).unwrap());
        match Number::from_f64(x) {
            Ok(num) => assert_eq!(num.to_canonical_string(), want, "{hex}"),
            Err(e) => {
                assert_eq!(want, "ERROR", "{hex}");
                assert_eq!(e.code().as_str(), "non_finite_number");
            }
        }
        n += 1;
    }
    assert_eq!(n, 26);
}

#[test]
fn es6_static_numbers_round_trip() {
    let Some(jcs) = jcs() else { return };
    let text = fs::read_to_string(jcs.join("es6numbers/es6_static_u64.txt")).unwrap();
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        n += 1;
        let bits = u64::from_str_radix(line.trim(), 16).unwrap();
        let x = f64::from_bits(bits);
        let s = Number::from_f64(x).unwrap().to_canonical_string();
        let back = Number::from_text(&s, Profile::Strict).unwrap().as_f64();
        assert!(back == x, "{line}: {s}");
    }
    assert!(n >= 100, "only {n} numbers in es6_static_u64.txt");
}

#[test]
fn public_vectors_jsonl() {
    let Some(jcs) = jcs() else { return };
    let exclusions: Json = serde_json::from_str(
        &fs::read_to_string(dir().join("jcs-strict-exclusions.json")).unwrap(),
    )
    .unwrap();
    let excluded = exclusions["excluded"].as_array().unwrap();
    let text = fs::read_to_string(jcs.join("public_vectors.jsonl")).unwrap();
    let mut used = 0;
    let mut cases = 0;
    for (i, line) in text.lines().enumerate() {
        cases += 1;
        let case: Json = serde_json::from_str(line).unwrap();
        let input = case["input"].as_str().unwrap().as_bytes();
        let label = format!("line {} ({})", i + 1, case["source"]);
        let want: Result<String, ()> = match case.get("canonical") {
            Some(c) => Ok(c.as_str().unwrap().to_owned()),
            None => Err(()),
        };
        for p in Profile::ALL {
            let got = canon(input, p);
            let name = format!("public_vectors.jsonl:{}", i + 1);
            let exclusion = excluded.iter().find(|x| x["name"] == name.as_str());
            match (p, exclusion) {
                (Profile::Strict, Some(x)) => {
                    assert_eq!(
                        x["input"], case["input"],
                        "{label}: exclusion names another input"
                    );
                    assert_eq!(got, Err(x["code"].as_str().unwrap().to_owned()), "{label}");
                    used += 1;
                }
                _ => match &want {
                    Ok(c) => {
                        assert_eq!(got.as_deref(), Ok(c.as_str()), "{label} ({})", p.as_str());
                        let digest = Digest::of(c.as_bytes()).to_string();
                        assert_eq!(
                            digest,
                            format!("sha256:{}", case["sha256"].as_str().unwrap())
                        );
                    }
                    Err(()) => assert!(
                        got.is_err(),
                        "{label} ({}): accepted a reject case",
                        p.as_str()
                    ),
                },
            }
        }
    }
    let lines = excluded.iter().filter(|x| {
        x["name"]
            .as_str()
            .unwrap()
            .starts_with("public_vectors.jsonl:")
    });
    assert_eq!(used, lines.count(), "an exclusion names no line");
    assert!(cases >= 100, "only {cases} public vectors");
}
