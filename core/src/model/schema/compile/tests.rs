//! Compile-time checks: keyword errors with their paths, and the facts derived for
//! validation.

use super::compile;
use crate::error::Code;
use crate::json::options::Options;
use crate::json::parse::parse;
use crate::model::schema::node::Node;

fn nodes(schema: &str) -> crate::error::Result<Vec<Node>> {
    let v = parse(schema.as_bytes(), &Options::default()).expect("test schema is JSON");
    compile(&v).map(|(nodes, _)| nodes)
}

fn schema_error(schema: &str, code: Code, path: &str) {
    let e = nodes(schema).expect_err(schema);
    assert_eq!((e.code(), e.path()), (code, path), "schema {schema}: {e}");
}

fn compile_ok(schema: &str) -> bool {
    nodes(schema).is_ok()
}

#[test]
fn compile_errors() {
    schema_error(r#"{"minimum":"3"}"#, Code::InvalidSchema, "/minimum");
    schema_error(r#"{"required":[1]}"#, Code::InvalidSchema, "/required/0");
    schema_error(r#"{"minLength":-1}"#, Code::InvalidSchema, "/minLength");
    schema_error(r#"{"if":{}}"#, Code::UnsupportedSchema, "/if");
    schema_error(
        r#"{"properties":{"a/b":{"nullable":true}}}"#,
        Code::UnsupportedSchema,
        "/properties/a~1b/nullable",
    );
    schema_error(r##"{"$ref":"#/$defs/X"}"##, Code::InvalidSchema, "/$ref");
    schema_error(
        r##"{"$defs":{"A":{"$ref":"#/$defs/A"}}}"##,
        Code::InvalidSchema,
        "/$defs/A/$ref",
    );
    schema_error(
        r##"{"anyOf":[{"$ref":"#"}]}"##,
        Code::InvalidSchema,
        "/anyOf/0/$ref",
    );
    schema_error(
        r#"{"$ref":"other.json#/x"}"#,
        Code::UnsupportedSchema,
        "/$ref",
    );
    schema_error(
        r#"{"type":"object","properties":{"a":{}},"required":["b"]}"#,
        Code::InvalidSchema,
        "/required/0",
    );
    schema_error(
        r#"{"type":["string","int"]}"#,
        Code::InvalidSchema,
        "/type/1",
    );
    schema_error(r#"{"format":"uuid4"}"#, Code::UnsupportedSchema, "/format");
    schema_error(
        r#"{"pattern":"(a)\\1"}"#,
        Code::UnsupportedSchema,
        "/pattern",
    );
    schema_error(r#"{"pattern":"[z-a]"}"#, Code::InvalidSchema, "/pattern");
    // Percent-encoded and escaped references resolve.
    assert!(compile_ok(
        r##"{"$defs":{"a b/c":{"type":"null"}},"$ref":"#/$defs/a%20b~1c"}"##
    ));
}

/// Paths of the nodes validation memoizes.
fn shared(schema: &str) -> Vec<String> {
    let mut out: Vec<String> = nodes(schema)
        .expect("schema compiles")
        .iter()
        .enumerate()
        .skip(1) // the empty schema, always shared
        .filter(|(_, n)| n.shared)
        .map(|(_, n)| n.path.clone())
        .collect();
    out.sort();
    out
}

#[test]
fn shared_nodes_are_those_reached_twice() {
    // A definition used once, and a tree of properties: nothing to memoize.
    assert!(shared(r##"{"$defs":{"A":{"type":"integer"}},"type":"object","properties":{"a":{"$ref":"#/$defs/A"},"b":{"items":{}}}}"##).is_empty());
    // Used twice; the root referred to from inside.
    assert_eq!(
        shared(
            r##"{"$defs":{"A":{"type":"integer"}},"allOf":[{"$ref":"#/$defs/A"},{"$ref":"#/$defs/A"}]}"##
        ),
        ["/$defs/A"]
    );
    assert_eq!(
        shared(r##"{"anyOf":[{"type":"null"},{"type":"array","items":{"$ref":"#"}}]}"##),
        [""]
    );
    // A property's schema that a $ref also names.
    assert_eq!(
        shared(
            r##"{"type":"object","properties":{"a":{"type":"integer"},"b":{"$ref":"#/properties/a"}}}"##
        ),
        ["/properties/a"]
    );
}
