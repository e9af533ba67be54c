//! Shared conformance data for every actionseal runtime: locating the files, reading vectors,
//! and computing the expected result of a case with the Rust core (the regenerator's oracle).

use actionseal_core::{canonicalize_json, Digest, Options, Profile};
use serde_json::{json, Map, Value as Json};
use std::fs;
use std::path::{Path, PathBuf};

pub mod batch;
pub mod checkpoint;
pub mod corpus;
pub mod decisions;
pub mod delegation;
pub mod evidence;
pub mod proof;
pub mod quorum;
pub mod redaction;
pub mod surfaces;

/// The `conformance/` directory.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The public RFC 8785 test data: `$ACTIONSEAL_JCS_DIR`, else `../shared/vectors/jcs` beside
/// the repository; an error saying where it was looked for if it is not there.
pub fn jcs_dir() -> Result<PathBuf, String> {
    let candidate = match std::env::var_os("ACTIONSEAL_JCS_DIR") {
        Some(d) => PathBuf::from(d),
        None => dir().join("../../shared/vectors/jcs"),
    };
    if candidate.join("public_vectors.jsonl").is_file() {
        Ok(candidate)
    } else {
        Err(format!(
            "public RFC 8785 data not found at {} (set ACTIONSEAL_JCS_DIR)",
            candidate.display()
        ))
    }
}

/// The public RFC 8785 test data for a test that reads it, or `None` (with a line on stderr)
/// when it is absent, as in a bare clone. With `ACTIONSEAL_REQUIRE_PUBLIC_DATA=1`, as CI sets
/// it, absent data fails the test instead.
pub fn jcs_dir_or_skip() -> Option<PathBuf> {
    match jcs_dir() {
        Ok(d) => Some(d),
        Err(e) if std::env::var_os("ACTIONSEAL_REQUIRE_PUBLIC_DATA").is_some_and(|v| v == "1") => {
            panic!("{e}; ACTIONSEAL_REQUIRE_PUBLIC_DATA=1 requires it")
        }
        Err(e) => {
            eprintln!("skipped: {e}");
            None
        }
    }
}

/// One vector file.
pub struct Vector {
    /// File name without `.json`.
    pub name: String,
    /// The file's path.
    pub path: PathBuf,
    /// The whole file.
    pub doc: Map<String, Json>,
}

impl Vector {
    /// The raw input bytes: `input` as UTF-8, `input_hex` decoded, or `input_repeat`
    /// expanded.
    pub fn input(&self) -> Vec<u8> {
        let forms = INPUT_FORMS.map(|k| self.doc.get(k));
        match forms {
            [Some(Json::String(s)), None, None] => s.as_bytes().to_vec(),
            [None, Some(Json::String(h)), None] => decode_hex(h).unwrap_or_else(|| {
                panic!("{}: input_hex is not hex", self.name);
            }),
            [None, None, Some(parts)] => expand_repeat(parts).unwrap_or_else(|| {
                panic!("{}: input_repeat is not a list of [text, count]", self.name);
            }),
            _ => panic!("{}: needs exactly one of {INPUT_FORMS:?}", self.name),
        }
    }
}

/// The fields a canonicalization vector can give its input in.
pub const INPUT_FORMS: [&str; 3] = ["input", "input_hex", "input_repeat"];

/// `input_repeat`, a list of `[text, count]` pairs, as the bytes of each text repeated
/// `count` times, in order: inputs too large to keep in a vector file as they are.
pub fn expand_repeat(parts: &Json) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for part in parts.as_array()? {
        match part.as_array()?.as_slice() {
            [Json::String(text), count] => {
                let count = usize::try_from(count.as_u64()?).ok()?;
                out.extend(text.as_bytes().repeat(count));
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Reads every `vectors/canon/*.json`, sorted by name.
pub fn canon_vectors() -> Vec<Vector> {
    vectors("canon")
}

/// Reads every `vectors/<kind>/*.json`, sorted by name.
pub fn vectors(kind: &str) -> Vec<Vector> {
    let mut out: Vec<_> = fs::read_dir(dir().join("vectors").join(kind))
        .unwrap_or_else(|e| panic!("vectors/{kind}: {e}"))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|path| {
            let text = fs::read_to_string(&path).expect("read vector");
            let Json::Object(doc) = serde_json::from_str(&text).expect("vector is JSON") else {
                panic!("{}: not an object", path.display());
            };
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            Vector { name, path, doc }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The expected-result object for `input` under `profile`: `{canonical, fingerprint}` or
/// `{error, path, offset?}`.
pub fn expected(input: &[u8], profile: Profile) -> Json {
    match canonicalize_json(input, &Options::with_profile(profile)) {
        Ok(c) => json!({
            "canonical": c,
            "fingerprint": Digest::of(c.as_bytes()).to_string(),
        }),
        Err(e) => error_with_offset(&e),
    }
}

/// `{error, path, offset?}` of an error.
pub fn error_with_offset(e: &actionseal_core::Error) -> Json {
    let mut m = Map::new();
    m.insert("error".into(), e.code().as_str().into());
    m.insert("path".into(), e.path().into());
    if let Some(o) = e.offset() {
        m.insert("offset".into(), o.into());
    }
    Json::Object(m)
}

/// Decodes lowercase or uppercase hex.
pub fn decode_hex(h: &str) -> Option<Vec<u8>> {
    if !h.len().is_multiple_of(2) {
        return None;
    }
    (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(h.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Pretty JSON with a trailing newline, as the vector files are written.
pub fn to_pretty(v: &Json) -> String {
    let mut s = serde_json::to_string_pretty(v).expect("serialize");
    s.push('\n');
    s
}
