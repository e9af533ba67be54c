//! Tests: the conformance vectors, unit tests, and property tests (no input panics; the
//! pattern engine agrees with the `regex` crate on the syntax both share).

use super::{Schema, MAX_VALIDATION_DEPTH};
use crate::error::{Code, Error};
use crate::json::options::Options;
use crate::json::value::{Object, OwnedValue, Value};
use crate::{parse, Number};
use proptest::prelude::*;
use std::borrow::Cow;
use std::path::Path;

fn value(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap_or_else(|e| panic!("bad JSON in test {text:?}: {e}"))
        .into_owned()
}

fn compile(schema: &str) -> Result<Schema, Error> {
    Schema::compile(&value(schema))
}

/// `Ok(())` or `(code, path)` of validating `v` against `schema`.
fn check(schema: &str, v: &str) -> Result<(), (String, String)> {
    let s = compile(schema).unwrap_or_else(|e| panic!("schema {schema} failed: {e}"));
    s.validate(&value(v))
        .map_err(|e| (e.code().as_str().to_owned(), e.path().to_owned()))
}

fn fails(schema: &str, v: &str, code: Code, path: &str) {
    assert_eq!(
        check(schema, v),
        Err((code.as_str().to_owned(), path.to_owned())),
        "schema {schema} value {v}"
    );
}

fn passes(schema: &str, v: &str) {
    assert_eq!(check(schema, v), Ok(()), "schema {schema} value {v}");
}

fn schema_error(schema: &str, code: Code, path: &str) {
    let e = compile(schema).expect_err(schema);
    assert_eq!((e.code(), e.path()), (code, path), "schema {schema}: {e}");
}

// ---------------------------------------------------------------- vectors

fn field<'v>(o: &'v Object<'_>, name: &str, file: &str) -> &'v str {
    o.get(name)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{file}: \"{name}\" must be a string"))
}

/// Runs one vector file; returns a description of the failure, if any.
fn run_vector(file: &str, text: &[u8]) -> Result<(), String> {
    let doc = parse(text, &Options::default()).map_err(|e| format!("not JSON: {e}"))?;
    let o = doc.as_object().ok_or("not an object")?;
    field(o, "description", file);
    let schema_text = field(o, "schema", file);
    let expect = o
        .get("expect")
        .and_then(Value::as_object)
        .ok_or("\"expect\" must be an object")?;
    let schema_doc = parse(schema_text.as_bytes(), &Options::default())
        .map_err(|e| format!("schema is not JSON: {e}"))?;
    let compiled = Schema::compile(&schema_doc);
    let name_code = file.strip_prefix("n_").map(|rest| {
        Code::ALL
            .iter()
            .find(|c| rest.starts_with(&format!("{}_", c.as_str())))
    });
    if let Some(code) = expect.get("schema_error").and_then(Value::as_str) {
        if o.get("value").is_some() {
            return Err("a schema_error vector has no value".into());
        }
        if name_code.flatten().map(|c| c.as_str()) != Some(code) {
            return Err(format!("name must start with n_{code}_"));
        }
        let want_path = field(expect, "path", file);
        return match compiled {
            Ok(_) => Err(format!("schema compiled, expected {code}")),
            Err(e) if e.code().as_str() == code && e.path() == want_path => Ok(()),
            Err(e) => Err(format!(
                "expected {code} at {want_path:?}, got {e} at {:?}",
                e.path()
            )),
        };
    }
    let schema =
        compiled.map_err(|e| format!("schema failed to compile: {e} at {:?}", e.path()))?;
    let value_text = field(o, "value", file);
    let v = parse(value_text.as_bytes(), &Options::default())
        .map_err(|e| format!("value is not JSON: {e}"))?;
    let got = schema.validate(&v);
    match (
        expect.get("ok"),
        expect.get("error").and_then(Value::as_str),
    ) {
        (Some(Value::Bool(true)), None) => {
            if !file.starts_with("y_") {
                return Err("an ok vector's name must start with y_".into());
            }
            got.map_err(|e| format!("expected ok, got {e} at {:?}", e.path()))
        }
        (None, Some(code)) => {
            if name_code.flatten().map(|c| c.as_str()) != Some(code) {
                return Err(format!("name must start with n_{code}_"));
            }
            let want_path = field(expect, "path", file);
            match got {
                Ok(()) => Err(format!("expected {code} at {want_path:?}, got ok")),
                Err(e) if e.code().as_str() == code && e.path() == want_path => Ok(()),
                Err(e) => Err(format!(
                    "expected {code} at {want_path:?}, got {e} at {:?}",
                    e.path()
                )),
            }
        }
        _ => Err(
            "expect must be {\"ok\": true}, {\"error\", \"path\"} or {\"schema_error\", \"path\"}"
                .into(),
        ),
    }
}

#[test]
fn conformance_vectors() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/vectors/schema");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for path in &files {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let text = std::fs::read(path).expect("readable vector");
        if let Err(why) = run_vector(name, &text) {
            failures.push(format!("{name}: {why}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} vectors failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    assert!(
        files.len() >= 150,
        "only {} schema vectors found in {}",
        files.len(),
        dir.display()
    );
}

// ---------------------------------------------------------------- unit tests

#[test]
fn schema_is_shareable() {
    fn assert_traits<T: Clone + std::fmt::Debug + Send + Sync + 'static>() {}
    assert_traits::<Schema>();
}

#[test]
fn strict_types() {
    let int = r#"{"type":"integer"}"#;
    passes(int, "25.00");
    passes(int, "-9007199254740991");
    fails(int, "9007199254740992", Code::UnsafeInteger, "");
    fails(int, "1e300", Code::UnsafeInteger, "");
    fails(int, "2.5", Code::TypeMismatch, "");
    fails(int, "\"300\"", Code::TypeMismatch, "");
    fails(int, "true", Code::TypeMismatch, "");
    fails(r#"{"type":"number"}"#, "false", Code::TypeMismatch, "");
    passes(r#"{"type":"number"}"#, "1e300");
    passes(r#"{"type":["integer","null"]}"#, "null");
    fails(
        r#"{"type":["integer","string"]}"#,
        "9007199254740992",
        Code::UnsafeInteger,
        "",
    );
}

#[test]
fn closed_objects() {
    fails(
        r#"{"type":"object"}"#,
        r#"{"a":1}"#,
        Code::UnknownField,
        "/a",
    );
    passes(r#"{"type":"object"}"#, "{}");
    fails("{}", r#"{"a":1}"#, Code::UnknownField, "/a");
    passes("{}", "[1,\"x\",null]");
    fails("{}", r#"[{"a":1}]"#, Code::UnknownField, "/0/a");
    passes(
        r#"{"additionalProperties":true}"#,
        r#"{"a":{"b":[{"c":1}]}}"#,
    );
    fails(
        r#"{"additionalProperties":{"type":"object","properties":{"x":{}}}}"#,
        r#"{"k":{"x":1,"y":2}}"#,
        Code::UnknownField,
        "/k/y",
    );
    // $ref siblings and allOf parts merge their declarations.
    let merged = r##"{"$defs":{"A":{"type":"object","properties":{"a":{}}}},
        "allOf":[{"$ref":"#/$defs/A"},{"properties":{"b":{}}}],"description":"x"}"##;
    passes(merged, r#"{"a":1,"b":2}"#);
    fails(merged, r#"{"a":1,"c":2}"#, Code::UnknownField, "/c");
    // Fragments leave closing to the schema around them.
    let either = r#"{"type":"object","properties":{"email":{"type":"string"},"phone":{"type":"string"}},
        "anyOf":[{"required":["email"]},{"required":["phone"]}]}"#;
    passes(either, r#"{"phone":"1"}"#);
    fails(either, r#"{}"#, Code::NoMatchingAlternative, "");
    fails(either, r#"{"phone":"1","x":1}"#, Code::UnknownField, "/x");
    // Alternatives that describe objects are closed each.
    let pets = r##"{"$defs":{
        "Cat":{"type":"object","properties":{"name":{"type":"string"},"meow":{"type":"integer"}}},
        "Dog":{"type":"object","properties":{"name":{"type":"string"},"bark":{"type":"integer"}}}},
        "anyOf":[{"$ref":"#/$defs/Cat"},{"$ref":"#/$defs/Dog"}]}"##;
    passes(pets, r#"{"name":"x","bark":1}"#);
    fails(
        pets,
        r#"{"name":"x","bark":1,"meow":2}"#,
        Code::NoMatchingAlternative,
        "",
    );
    // Literal objects declare their members.
    passes(
        r#"{"anyOf":[{"const":{"a":1}},{"type":"null"}]}"#,
        r#"{"a":1}"#,
    );
    passes(r#"{"enum":[[{"a":1}], 2]}"#, r#"[{"a":1}]"#);
}

#[test]
fn alternative_errors() {
    let opt = r#"{"anyOf":[{"type":"integer","minimum":1},{"type":"null"}]}"#;
    fails(opt, "\"300\"", Code::TypeMismatch, "");
    fails(opt, "0", Code::OutOfRange, "");
    fails(opt, "9007199254740992", Code::UnsafeInteger, "");
    let two = r#"{"oneOf":[{"type":"integer"},{"type":"number"}]}"#;
    fails(two, "1", Code::NoMatchingAlternative, "");
    passes(two, "1.5");
}

#[test]
fn error_order() {
    let s = r#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},
        "required":["b","a"]}"#;
    fails(s, r#"{"z":1,"a":"x"}"#, Code::UnknownField, "/z");
    fails(s, r#"{"a":"x"}"#, Code::MissingField, "/b");
    fails(s, r#"{}"#, Code::MissingField, "/a");
    fails(s, r#"{"b":"y","a":"x"}"#, Code::TypeMismatch, "/a");
    let arr = r#"{"type":"array","items":{"type":"integer"},"maxItems":3,"uniqueItems":true}"#;
    fails(arr, r#"[1,1,"x"]"#, Code::TypeMismatch, "/2");
    fails(arr, r#"[1,"x",1,2]"#, Code::LengthOutOfRange, "");
    fails(arr, r#"[1,2,1.0]"#, Code::DuplicateItems, "/2");
}

#[test]
fn recursion_is_bounded() {
    let tree = r##"{"$defs":{"N":{"type":"object","properties":{"c":{"anyOf":[{"$ref":"#/$defs/N"},{"type":"null"}]}}}},
        "$ref":"#/$defs/N"}"##;
    let nest = |n: usize| format!("{}null{}", r#"{"c":"#.repeat(n), "}".repeat(n));
    passes(tree, &nest(100));
    let s = compile(tree).unwrap();
    let text = nest(250);
    let deep = parse(
        text.as_bytes(),
        &Options {
            max_depth: crate::MAX_DEPTH_LIMIT,
            ..Options::default()
        },
    )
    .unwrap();
    let e = s.validate(&deep).unwrap_err();
    assert_eq!(e.code(), Code::DepthLimitExceeded, "{e}");
    // A value built in memory, deeper than any parser would allow.
    let mut v = Value::Null;
    for _ in 0..MAX_VALIDATION_DEPTH * 10 {
        v = Value::Array(vec![v]);
    }
    let arrays =
        compile(r##"{"anyOf":[{"type":"array","items":{"$ref":"#"}},{"type":"null"}]}"##).unwrap();
    assert_eq!(
        arrays.validate(&v).unwrap_err().code(),
        Code::DepthLimitExceeded
    );
    // Drop iteratively: the derived Drop would recurse as deep as the value.
    while let Value::Array(mut a) = v {
        v = a.pop().unwrap_or(Value::Null);
    }
}

/// `D_i = {KW: [wrap(D_{i+1}), wrap(D_{i+1})]}` for `levels` levels, then `leaf` (issue 7,
/// item 4: each level doubles the ways to reach the next).
fn doubling(keyword: &str, levels: usize, wrap: &str, leaf: &str) -> String {
    let mut defs = Vec::new();
    for i in 0..levels {
        let r = wrap.replace("REF", &format!("{{\"$ref\":\"#/$defs/D{}\"}}", i + 1));
        defs.push(format!("\"D{i}\":{{\"{keyword}\":[{r},{r}]}}"));
    }
    defs.push(format!("\"D{levels}\":{leaf}"));
    format!(
        "{{\"$defs\":{{{}}},\"$ref\":\"#/$defs/D0\"}}",
        defs.join(",")
    )
}

fn value_count(v: &Value<'_>) -> u64 {
    1 + match v {
        Value::Array(a) => a.iter().map(value_count).sum(),
        Value::Object(o) => o.iter().map(|(_, c)| value_count(c)).sum(),
        _ => 0,
    }
}

/// Validates, and checks that no (node, value, closing) was applied twice: the work is
/// bounded by 2 × nodes × values however the schema reuses its definitions.
fn check_polynomial(schema: &str, v: &str) -> Result<(), (String, String)> {
    let s = compile(schema).unwrap_or_else(|e| panic!("schema {schema} failed: {e}"));
    let v = value(v);
    let (r, applied) = super::validate::validate(&s.nodes, s.root, &v, &Default::default());
    let bound = 2 * s.nodes.len() as u64 * value_count(&v);
    assert!(
        applied <= bound,
        "{applied} applications, more than {bound}, for {schema}"
    );
    r.map_err(|e| (e.code().as_str().to_owned(), e.path().to_owned()))
}

#[test]
fn reused_definitions_validate_in_polynomial_time() {
    let int = r#"{"type":"integer"}"#;
    let string = r#"{"type":"string"}"#;
    let err = |c: &str, p: &str| Err((c.to_owned(), p.to_owned()));
    for levels in [1, 12, 60, 120] {
        // The issue's construction, and its failing form.
        let all = doubling("allOf", levels, "REF", int);
        assert_eq!(check_polynomial(&all, "1"), Ok(()));
        assert_eq!(check_polynomial(&all, "\"1\""), err("type_mismatch", ""));
        // anyOf tries both alternatives at every level when the leaf refuses.
        let any = doubling("anyOf", levels, "REF", string);
        assert_eq!(check_polynomial(&any, "\"x\""), Ok(()));
        assert_eq!(check_polynomial(&any, "1"), err("type_mismatch", ""));
        // oneOf must try every alternative even when the first matches.
        let one = doubling("oneOf", levels, "REF", int);
        assert_eq!(
            check_polynomial(&one, "1"),
            err("no_matching_alternative", "")
        );
        // Through items, properties, prefixItems and additionalProperties: the doubling
        // follows the value down.
        let nested =
            |open: &str, close: &str| format!("{}1{}", open.repeat(levels), close.repeat(levels));
        let items = doubling("allOf", levels, r#"{"type":"array","items":REF}"#, int);
        assert_eq!(check_polynomial(&items, &nested("[", "]")), Ok(()));
        let props = doubling(
            "anyOf",
            levels,
            r#"{"type":"object","properties":{"k":REF},"required":["k"]}"#,
            string,
        );
        let deep = nested(r#"{"k":"#, "}");
        let path = "/k".repeat(levels);
        // Both alternatives fit an object at every level, so no single error is chosen.
        assert!(check_polynomial(&props, &deep).is_err(), "{path}");
        let prefix = doubling(
            "allOf",
            levels,
            r#"{"prefixItems":[REF],"items":false}"#,
            int,
        );
        assert_eq!(check_polynomial(&prefix, &nested("[", "]")), Ok(()));
        let additional = doubling(
            "oneOf",
            levels,
            r#"{"type":"object","additionalProperties":REF}"#,
            int,
        );
        assert_eq!(
            check_polynomial(&additional, &deep),
            err("no_matching_alternative", "")
        );
        // Mixed: each level combines every applicator.
        let mut defs = Vec::new();
        for i in 0..levels {
            let r = format!("{{\"$ref\":\"#/$defs/D{}\"}}", i + 1);
            defs.push(format!(
                "\"D{i}\":{{\"allOf\":[{r}],\"anyOf\":[{r},{{\"type\":\"null\"}}],\"oneOf\":[{r},{{\"type\":\"boolean\"}}],\"$ref\":\"#/$defs/D{}\"}}",
                i + 1
            ));
        }
        defs.push(format!("\"D{levels}\":{int}"));
        let mixed = format!(
            "{{\"$defs\":{{{}}},\"$ref\":\"#/$defs/D0\"}}",
            defs.join(",")
        );
        assert_eq!(check_polynomial(&mixed, "7"), Ok(()));
    }
    // "not" is outside the subset, so it cannot combine with the others.
    schema_error(
        &doubling("allOf", 3, r#"{"not":REF}"#, int),
        Code::UnsupportedSchema,
        "/$defs/D0/allOf/0/not",
    );
}

#[test]
fn memoized_checks_keep_the_depth_limit() {
    // A definition checked first near the root, then again deep down, where the same
    // check would go past the limit: refused, as without memoizing.
    let deep = MAX_VALIDATION_DEPTH - 3;
    let mut defs = vec![r##""A":{"$ref":"#/$defs/B0"}"##.to_owned()];
    for i in 0..deep {
        defs.push(format!("\"B{i}\":{{\"$ref\":\"#/$defs/B{}\"}}", i + 1));
    }
    defs.push(format!("\"B{deep}\":{{\"type\":\"integer\"}}"));
    let schema = format!(
        "{{\"$defs\":{{{}}},\"allOf\":[{{\"$ref\":\"#/$defs/A\"}},{{\"allOf\":[{{\"allOf\":[{{\"allOf\":[{{\"allOf\":[{{\"$ref\":\"#/$defs/A\"}}]}}]}}]}}]}}]}}",
        defs.join(",")
    );
    let s = compile(&schema).unwrap();
    assert_eq!(
        s.validate(&value("1")).unwrap_err().code(),
        Code::DepthLimitExceeded
    );
    // Reached only along the short path, it passes.
    let short = schema.replace(
        r##"{"allOf":[{"allOf":[{"allOf":[{"allOf":[{"$ref":"#/$defs/A"}]}]}]}]}"##,
        r##"{"$ref":"#/$defs/A"}"##,
    );
    assert_eq!(check(&short, "1"), Ok(()));
}

#[test]
fn alternatives_are_not_exponential() {
    // Both alternatives descend into the same child: without memoizing, 2^60 visits.
    let s = r##"{"$defs":{"T":{"anyOf":[
        {"type":"object","properties":{"k":{"$ref":"#/$defs/T"},"x":{"const":1}}},
        {"type":"object","properties":{"k":{"$ref":"#/$defs/T"},"x":{"const":2}}}]}},
        "$ref":"#/$defs/T"}"##;
    let v = format!("{}{{\"x\":3}}{}", r#"{"k":"#.repeat(60), "}".repeat(60));
    let e = check(s, &v).unwrap_err();
    assert_eq!(e.0, "no_matching_alternative");
}

// ---------------------------------------------------------------- properties

/// A random JSON value built from schema-like pieces.
fn arb_value() -> impl Strategy<Value = OwnedValue> {
    const KEYS: &[&str] = &[
        "type",
        "properties",
        "required",
        "additionalProperties",
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "$defs",
        "definitions",
        "title",
        "a",
        "b",
        "",
    ];
    const STRINGS: &[&str] = &[
        "object",
        "array",
        "string",
        "integer",
        "number",
        "null",
        "boolean",
        "#",
        "#/$defs/a",
        "#/properties/a",
        "#/$defs/b",
        "a",
        "b",
        "date-time",
        "email",
        "uri",
        "ipv6",
        "^a+$",
        "(?=x)",
        "[",
        "\\d{2,}",
        "2024-01-01T00:00:00Z",
        "::1",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|i| Value::Number(Number::from_f64(f64::from(i)).unwrap())),
        (-1e20f64..1e20).prop_map(|f| Value::Number(Number::from_f64(f).unwrap())),
        Just(Value::Number(Number::from_f64(9007199254740992.0).unwrap())),
        prop::sample::select(STRINGS).prop_map(|s| Value::String(Cow::Borrowed(s))),
        "\\PC{0,6}".prop_map(|s| Value::String(Cow::Owned(s))),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..6).prop_map(obj),
        ]
    })
}

fn obj(members: Vec<(&'static str, OwnedValue)>) -> OwnedValue {
    let mut entries: Vec<(Cow<'static, str>, OwnedValue)> = Vec::new();
    for (k, v) in members {
        if !entries.iter().any(|(e, _)| e == k) {
            entries.push((Cow::Borrowed(k), v));
        }
    }
    Value::Object(Object::from_entries(entries).expect("unique keys"))
}

fn string(s: &'static str) -> OwnedValue {
    Value::String(Cow::Borrowed(s))
}

fn num(f: f64) -> OwnedValue {
    Value::Number(Number::from_f64(f).expect("finite"))
}

/// A random schema made mostly of well-formed keywords, so that most compile and the
/// validator gets exercised; `$ref`s point at the root, at `$defs` that may or may not exist
/// and at properties, so some cycles and dangling references occur too.
fn arb_schema() -> impl Strategy<Value = OwnedValue> {
    const TYPES: &[&str] = &[
        "object", "array", "string", "integer", "number", "null", "boolean",
    ];
    const REFS: &[&str] = &["#", "#/$defs/a", "#/$defs/b", "#/properties/a", "#/items"];
    const FORMATS: &[&str] = &[
        "date-time",
        "date",
        "time",
        "email",
        "uuid",
        "uri",
        "ipv4",
        "ipv6",
        "hostname",
    ];
    const PATTERNS: &[&str] = &["^a", "b$", "^(?=.*1)[a-z1]{2,}$", "\\s", "^[^x]*$", "."];
    const NAMES: &[&str] = &["a", "b", "c"];
    let keyword = prop_oneof![
        prop::sample::select(TYPES).prop_map(|t| ("type", string(t))),
        prop::sample::subsequence(TYPES, 1..3)
            .prop_map(|t| ("type", Value::Array(t.into_iter().map(string).collect()))),
        (-3i32..4).prop_map(|i| ("minimum", num(f64::from(i)))),
        (-3i32..4).prop_map(|i| ("exclusiveMaximum", num(f64::from(i)))),
        prop::sample::select(&[0.5, 2.0, 0.01][..]).prop_map(|m| ("multipleOf", num(m))),
        (0u8..3).prop_map(|i| ("minLength", num(f64::from(i)))),
        (0u8..3).prop_map(|i| ("maxItems", num(f64::from(i)))),
        any::<bool>().prop_map(|b| ("uniqueItems", Value::Bool(b))),
        prop::sample::select(PATTERNS).prop_map(|p| ("pattern", string(p))),
        prop::sample::select(FORMATS).prop_map(|f| ("format", string(f))),
        prop::sample::subsequence(NAMES, 0..3).prop_map(|r| (
            "required",
            Value::Array(r.into_iter().map(string).collect())
        )),
        prop::sample::select(REFS).prop_map(|r| ("$ref", string(r))),
        arb_value().prop_map(|v| ("const", v)),
        prop::collection::vec(arb_value(), 1..3).prop_map(|v| ("enum", Value::Array(v))),
        any::<bool>().prop_map(|b| ("additionalProperties", Value::Bool(b))),
        any::<bool>().prop_map(|b| ("items", Value::Bool(b))),
    ];
    let leaf = prop::collection::vec(keyword, 0..4).prop_map(obj);
    leaf.prop_recursive(4, 48, 4, |inner| {
        let named = prop::collection::vec((prop::sample::select(NAMES), inner.clone()), 0..3)
            .prop_map(|v| obj(v.into_iter().collect()));
        let list = prop::collection::vec(inner.clone(), 1..3).prop_map(Value::Array);
        let applicator = prop_oneof![
            named.clone().prop_map(|p| ("properties", p)),
            named.prop_map(|d| ("$defs", d)),
            inner.clone().prop_map(|s| ("additionalProperties", s)),
            inner.clone().prop_map(|s| ("items", s)),
            list.clone().prop_map(|l| ("prefixItems", l)),
            list.clone().prop_map(|l| ("anyOf", l)),
            list.clone().prop_map(|l| ("oneOf", l)),
            list.prop_map(|l| ("allOf", l)),
        ];
        (prop::collection::vec(applicator, 1..4), inner).prop_map(|(mut members, base)| {
            if let Value::Object(o) = base {
                for (k, v) in o.into_entries() {
                    if let Cow::Borrowed(k) = k {
                        members.push((k, v));
                    }
                }
            }
            obj(members)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn random_documents_never_panic(schema in arb_value(), values in prop::collection::vec(arb_value(), 1..4)) {
        if let Ok(s) = Schema::compile(&schema) {
            for v in &values {
                let _ = s.validate(v);
            }
            let _ = s.validate(&schema);
        }
    }

    #[test]
    fn random_schemas_and_values_never_panic(schema in arb_schema(), values in prop::collection::vec(arb_value(), 1..6)) {
        if let Ok(s) = Schema::compile(&schema) {
            for v in &values {
                let _ = s.validate(v);
            }
            let _ = s.validate(&schema);
        }
    }
}
