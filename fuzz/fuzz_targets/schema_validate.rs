//! Contract and schema load and validate: no panic, and work bounded by the schema's size
//! times the value's (each schema node is applied at most twice per value, however the
//! schema reuses its definitions).
//!
//! Input: JSON text, read as a schema, a contract, and a value (and, for vector files, the
//! texts in their `schema`, `value` and `args` members); or, after a leading 0xFE byte, the
//! choices of a generator that writes schemas reusing `$defs` through `$ref`, `allOf`,
//! `anyOf`, `oneOf`, `items`, `prefixItems`, `properties` and `additionalProperties`, and a
//! value for them.
#![no_main]

use actionseal_core::{parse, Contract, Options, OwnedValue, Schema, Value};
use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use std::fmt::Write;

fuzz_target!(|data: &[u8]| {
    let (schemas, values) = match data.split_first() {
        Some((0xFE, rest)) => match generated(&mut Unstructured::new(rest)) {
            Ok((s, v)) => (vec![s], vec![v]),
            Err(_) => return,
        },
        _ => match from_json(data) {
            Some(found) => found,
            None => return,
        },
    };
    for schema in &schemas {
        if let Ok(contract) = Contract::from_value(schema) {
            for v in &values {
                let _ = contract.validate_args(v);
                let _ = contract.requires_approval(v);
            }
        }
        let Ok(compiled) = Schema::compile(schema) else {
            continue;
        };
        for v in &values {
            let (r, applied) = compiled.validate_counting(v);
            let bound = 2 * compiled.node_count() as u64 * count(v);
            assert!(applied <= bound, "{applied} applications > {bound}");
            assert_eq!(r, compiled.validate(v), "validation is deterministic");
        }
    }
});

fn count(v: &Value<'_>) -> u64 {
    1 + match v {
        Value::Array(a) => a.iter().map(count).sum(),
        Value::Object(o) => o.iter().map(|(_, c)| count(c)).sum(),
        _ => 0,
    }
}

/// The document itself, and the JSON texts a vector file holds, as schemas and values.
fn from_json(data: &[u8]) -> Option<(Vec<OwnedValue>, Vec<OwnedValue>)> {
    let opts = Options::default();
    let doc = parse(data, &opts).ok()?.into_owned();
    let mut schemas = vec![doc.clone()];
    let mut values = vec![doc.clone()];
    if let Value::Object(o) = &doc {
        let text = |k: &str| {
            o.get(k)
                .and_then(Value::as_str)
                .and_then(|t| parse(t.as_bytes(), &opts).ok())
                .map(Value::into_owned)
        };
        schemas.extend(text("schema"));
        values.extend(text("value"));
        values.extend(text("args"));
        if let Some(args) = o.get("args") {
            schemas.push(args.clone().into_owned());
            values.push(args.clone().into_owned());
        }
    }
    Some((schemas, values))
}

const PATTERNS: &[&str] = &[
    "^a+$",
    "[a-z0-9]{1,255}@",
    "\\d{2,}",
    "^(?=.*\\d).{3,}$",
    "x|y",
];

/// A schema of up to 8 definitions referring to one another, and a value.
fn generated(u: &mut Unstructured<'_>) -> arbitrary::Result<(OwnedValue, OwnedValue)> {
    let defs = u.int_in_range(1..=8)?;
    let mut s = String::from("{\"$defs\":{");
    for i in 0..defs {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "\"D{i}\":");
        schema(u, defs, 3, &mut s)?;
    }
    s.push_str("},\"$ref\":\"#/$defs/D0\"}");
    let mut v = String::new();
    value(u, 5, &mut v)?;
    let opts = Options::default();
    let s = parse(s.as_bytes(), &opts).map_err(|_| arbitrary::Error::IncorrectFormat)?;
    let v = parse(v.as_bytes(), &opts).map_err(|_| arbitrary::Error::IncorrectFormat)?;
    Ok((s.into_owned(), v.into_owned()))
}

fn schema(
    u: &mut Unstructured<'_>,
    defs: usize,
    depth: u32,
    out: &mut String,
) -> arbitrary::Result<()> {
    let most = if depth == 0 { 6 } else { 14 };
    let list = |u: &mut Unstructured<'_>, out: &mut String, kw: &str| -> arbitrary::Result<()> {
        let _ = write!(out, "\"{kw}\":[");
        for i in 0..u.int_in_range(1..=3)? {
            if i > 0 {
                out.push(',');
            }
            schema(u, defs, depth - 1, out)?;
        }
        out.push(']');
        Ok(())
    };
    match u.int_in_range(0..=most)? {
        0 => out.push_str("{\"type\":\"integer\"}"),
        1 => out.push_str("{\"type\":[\"string\",\"null\"]}"),
        2 | 3 => {
            let _ = write!(
                out,
                "{{\"$ref\":\"#/$defs/D{}\"}}",
                u.int_in_range(0..=defs - 1)?
            );
        }
        4 => {
            let _ = write!(
                out,
                "{{\"type\":\"string\",\"pattern\":{:?}}}",
                u.choose(PATTERNS)?
            );
        }
        5 => out.push_str("{\"enum\":[1,\"a\",null,[1],{\"a\":1}]}"),
        6 => out.push_str("{}"),
        7..=9 => {
            out.push('{');
            let kw = ["allOf", "anyOf", "oneOf"][u.int_in_range(0..=2)?];
            list(u, out, kw)?;
            out.push('}');
        }
        10 => {
            out.push_str("{\"type\":\"array\",\"items\":");
            schema(u, defs, depth - 1, out)?;
            out.push('}');
        }
        11 => {
            out.push_str("{\"type\":\"object\",\"properties\":{\"a\":");
            schema(u, defs, depth - 1, out)?;
            out.push_str(",\"b\":");
            schema(u, defs, depth - 1, out)?;
            out.push_str("}}");
        }
        12 => {
            out.push_str("{\"type\":\"object\",\"additionalProperties\":");
            schema(u, defs, depth - 1, out)?;
            out.push('}');
        }
        13 => {
            out.push('{');
            list(u, out, "prefixItems")?;
            out.push('}');
        }
        _ => {
            let _ = write!(
                out,
                "{{\"$ref\":\"#/$defs/D{}\",",
                u.int_in_range(0..=defs - 1)?
            );
            list(u, out, "anyOf")?;
            out.push('}');
        }
    }
    Ok(())
}

fn value(u: &mut Unstructured<'_>, depth: u32, out: &mut String) -> arbitrary::Result<()> {
    let most = if depth == 0 { 3 } else { 5 };
    match u.int_in_range(0..=most)? {
        0 => out.push_str(["1", "-2", "2.5", "null", "true"][u.int_in_range(0..=4)?]),
        1 => out.push_str(["\"a\"", "\"x@\"", "\"12\"", "\"\""][u.int_in_range(0..=3)?]),
        2 => out.push_str("\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1\""),
        3 => out.push_str("{}"),
        4 => {
            out.push('[');
            for i in 0..u.int_in_range(0..=4)? {
                if i > 0 {
                    out.push(',');
                }
                value(u, depth - 1, out)?;
            }
            out.push(']');
        }
        _ => {
            out.push('{');
            let keys = ["a", "b", "c"];
            let n = u.int_in_range(0..=3)?;
            for (i, k) in keys.iter().take(n).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "\"{k}\":");
                value(u, depth - 1, out)?;
            }
            out.push('}');
        }
    }
    Ok(())
}
