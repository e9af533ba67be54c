//! Compiling a schema document into a node table: keyword checks, `$ref` resolution, cycle
//! detection and the derived facts validation relies on.

use super::decimal::Decimal;
use super::format::Format;
use super::node::{Additional, Items, Node, NodeId, Types};
use super::pattern::Pattern;
use super::MAX_SCHEMA_DEPTH;
use crate::error::{Code, Error, Result};
use crate::json::keyorder::cmp_utf16;
use crate::json::number::Number;
use crate::json::value::{Object, Value};
use std::collections::HashMap;

/// Keywords that are JSON Schema but outside the supported subset, with a hint.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("if", "conditionals are not supported"),
    ("then", "conditionals are not supported"),
    ("else", "conditionals are not supported"),
    ("not", "\"not\" is not supported"),
    (
        "patternProperties",
        "declare each property in \"properties\"",
    ),
    ("propertyNames", "declare each property in \"properties\""),
    (
        "dependentRequired",
        "dependencies between properties are not supported",
    ),
    (
        "dependentSchemas",
        "dependencies between properties are not supported",
    ),
    (
        "dependencies",
        "dependencies between properties are not supported",
    ),
    ("unevaluatedProperties", "objects are closed already"),
    ("unevaluatedItems", "use \"items\""),
    ("additionalItems", "use \"prefixItems\" and \"items\""),
    ("contains", "\"contains\" is not supported"),
    ("minContains", "\"contains\" is not supported"),
    ("maxContains", "\"contains\" is not supported"),
    ("minProperties", "\"minProperties\" is not supported"),
    ("maxProperties", "\"maxProperties\" is not supported"),
    ("$anchor", "refer to \"#/$defs/...\" instead"),
    ("$dynamicRef", "use \"$ref\""),
    ("$dynamicAnchor", "use \"$ref\""),
    ("$recursiveRef", "use \"$ref\""),
    ("$recursiveAnchor", "use \"$ref\""),
    ("$vocabulary", "vocabularies are not supported"),
    ("contentEncoding", "content keywords are not supported"),
    ("contentMediaType", "content keywords are not supported"),
    ("contentSchema", "content keywords are not supported"),
    (
        "nullable",
        "OpenAPI's \"nullable\" is not JSON Schema: use \"type\": [..., \"null\"]",
    ),
    ("example", "use \"examples\" (an array)"),
];

fn at(code: Code, msg: impl Into<String>, pointer: &str) -> Error {
    let tokens = crate::json::pointer::parse_pointer(pointer).unwrap_or_default();
    tokens
        .iter()
        .rev()
        .fold(Error::new(code, msg), |e, t| e.in_key(t))
}

fn invalid(msg: impl Into<String>, pointer: &str) -> Error {
    at(Code::InvalidSchema, msg, pointer)
}

fn unsupported(msg: impl Into<String>, pointer: &str) -> Error {
    at(Code::UnsupportedSchema, msg, pointer)
}

/// Appends one escaped reference token to a pointer.
fn push_token(path: &mut String, token: &str) {
    path.push('/');
    crate::json::pointer::push_escaped(path, token);
}

/// Compiles a schema document; returns the node table and the root's index.
pub(crate) fn compile(schema: &Value<'_>) -> Result<(Vec<Node>, NodeId)> {
    let mut c = Compiler {
        nodes: vec![Node::default()], // EMPTY
        by_path: HashMap::new(),
    };
    let root = c.node(schema, &mut String::new(), 0)?;
    c.resolve_refs()?;
    let order = c.in_place_order()?;
    c.derive(&order);
    c.check_required()?;
    Ok((c.nodes, root))
}

struct Compiler {
    nodes: Vec<Node>,
    by_path: HashMap<String, NodeId>,
}

impl Compiler {
    fn node(&mut self, v: &Value<'_>, path: &mut String, depth: usize) -> Result<NodeId> {
        if depth > MAX_SCHEMA_DEPTH {
            return Err(unsupported(
                format!("schemas nested more than {MAX_SCHEMA_DEPTH} deep"),
                path,
            ));
        }
        let obj =
            match v {
                Value::Object(o) => o,
                Value::Bool(_) => return Err(unsupported(
                    "boolean schemas are supported only as \"additionalProperties\" and \"items\"",
                    path,
                )),
                _ => return Err(invalid("a schema must be an object", path)),
            };
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.by_path.insert(path.clone(), id);
        let mut n = Node {
            path: path.clone(),
            ..Node::default()
        };
        for (key, val) in obj.iter() {
            let len = path.len();
            push_token(path, key);
            let r = self.keyword(&mut n, key, val, path, depth);
            path.truncate(len);
            r?;
        }
        check_bounds(&n)?;
        if obj.get("discriminator").is_some() && n.one_of.is_empty() && n.any_of.is_empty() {
            return Err(invalid(
                "\"discriminator\" needs \"oneOf\" or \"anyOf\" beside it",
                &format!("{path}/discriminator"),
            ));
        }
        self.nodes[id] = n;
        Ok(id)
    }

    fn child(
        &mut self,
        v: &Value<'_>,
        path: &mut String,
        token: &str,
        depth: usize,
    ) -> Result<NodeId> {
        let len = path.len();
        push_token(path, token);
        let r = self.node(v, path, depth + 1);
        path.truncate(len);
        r
    }

    fn schema_list(
        &mut self,
        v: &Value<'_>,
        path: &mut String,
        depth: usize,
    ) -> Result<Vec<NodeId>> {
        match v {
            Value::Array(a) if !a.is_empty() => a
                .iter()
                .enumerate()
                .map(|(i, s)| self.child(s, path, &i.to_string(), depth))
                .collect(),
            _ => Err(invalid("must be a non-empty array of schemas", path)),
        }
    }

    fn schema_map(
        &mut self,
        o: &Object<'_>,
        path: &mut String,
        depth: usize,
    ) -> Result<Vec<(String, NodeId)>> {
        o.iter()
            .map(|(k, s)| Ok((k.to_owned(), self.child(s, path, k, depth)?)))
            .collect()
    }

    fn keyword(
        &mut self,
        n: &mut Node,
        key: &str,
        v: &Value<'_>,
        path: &mut String,
        depth: usize,
    ) -> Result<()> {
        match key {
            "type" => n.types = Some(types(v, path)?),
            "properties" => {
                let o = v
                    .as_object()
                    .ok_or_else(|| invalid("must be an object of schemas", path))?;
                n.has_properties = true;
                n.properties = self.schema_map(o, path, depth)?;
                n.properties.sort_by(|a, b| a.0.cmp(&b.0));
            }
            "required" => n.required = required(v, path)?,
            "additionalProperties" => {
                n.additional = match v {
                    Value::Bool(true) => Additional::True,
                    Value::Bool(false) => Additional::False,
                    _ => Additional::Schema(self.node(v, path, depth + 1)?),
                }
            }
            "enum" => match v {
                Value::Array(a) if !a.is_empty() => {
                    n.enumeration = Some(a.iter().map(|x| x.clone().into_owned()).collect())
                }
                _ => return Err(invalid("must be a non-empty array", path)),
            },
            "const" => n.constant = Some(v.clone().into_owned()),
            "minimum" => n.minimum = Some(number(v, path)?),
            "maximum" => n.maximum = Some(number(v, path)?),
            "exclusiveMinimum" => n.exclusive_minimum = Some(exclusive(v, path)?),
            "exclusiveMaximum" => n.exclusive_maximum = Some(exclusive(v, path)?),
            "multipleOf" => match v {
                Value::Number(x) if x.as_f64() > 0.0 => {
                    n.multiple_of = Some((x.as_f64(), Decimal::of(*x)))
                }
                _ => return Err(invalid("must be a number greater than 0", path)),
            },
            "minLength" => n.min_length = Some(count(v, path)?),
            "maxLength" => n.max_length = Some(count(v, path)?),
            "minItems" => n.min_items = Some(count(v, path)?),
            "maxItems" => n.max_items = Some(count(v, path)?),
            "pattern" => {
                let src = v
                    .as_str()
                    .ok_or_else(|| invalid("must be a string", path))?;
                let p =
                    Pattern::new(src).map_err(|e| at(e.code(), e.message().to_owned(), path))?;
                n.pattern = Some((src.to_owned(), p));
            }
            "format" => {
                let name = v
                    .as_str()
                    .ok_or_else(|| invalid("must be a string", path))?;
                n.format = Some(Format::from_name(name).ok_or_else(|| {
                    unsupported(
                        format!("format {name:?} is not supported (supported: date-time, date, time, email, uuid, uri, ipv4, ipv6, hostname)"),
                        path,
                    )
                })?);
            }
            "items" => {
                n.items = match v {
                    Value::Bool(true) => Items::True,
                    Value::Bool(false) => Items::False,
                    Value::Array(_) => {
                        return Err(unsupported(
                            "the array form of \"items\" is not supported: use \"prefixItems\"",
                            path,
                        ))
                    }
                    _ => Items::Schema(self.node(v, path, depth + 1)?),
                }
            }
            "prefixItems" => n.prefix_items = self.schema_list(v, path, depth)?,
            "uniqueItems" => n.unique_items = boolean(v, path)?,
            "allOf" => n.all_of = self.schema_list(v, path, depth)?,
            "anyOf" => n.any_of = self.schema_list(v, path, depth)?,
            "oneOf" => n.one_of = self.schema_list(v, path, depth)?,
            "$ref" => {
                let r = v
                    .as_str()
                    .ok_or_else(|| invalid("must be a string", path))?;
                n.reference = Some((r.to_owned(), None));
            }
            "$defs" | "definitions" => {
                let o = v
                    .as_object()
                    .ok_or_else(|| invalid("must be an object of schemas", path))?;
                self.schema_map(o, path, depth)?;
            }
            "title" | "description" | "$comment" | "$schema" => {
                v.as_str()
                    .ok_or_else(|| invalid("must be a string", path))?;
            }
            "$id" => {
                v.as_str()
                    .ok_or_else(|| invalid("must be a string", path))?;
                if depth > 0 {
                    return Err(unsupported(
                        "\"$id\" is supported only at the root (it would change how $ref resolves)",
                        path,
                    ));
                }
            }
            "default" => {}
            "examples" => {
                if !matches!(v, Value::Array(_)) {
                    return Err(invalid("must be an array", path));
                }
            }
            "deprecated" | "readOnly" | "writeOnly" => {
                boolean(v, path)?;
            }
            "discriminator" => {
                // OpenAPI's annotation, which pydantic emits beside "oneOf": the alternatives
                // themselves decide, so it is checked for shape and otherwise ignored.
                let ok = v
                    .as_object()
                    .and_then(|o| o.get("propertyName"))
                    .is_some_and(|p| p.as_str().is_some());
                if !ok {
                    return Err(invalid(
                        "must be an object with a string \"propertyName\"",
                        path,
                    ));
                }
            }
            _ => {
                let hint = UNSUPPORTED
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map_or("it is not in the supported subset", |(_, h)| *h);
                return Err(unsupported(
                    format!("keyword {key:?} is not supported: {hint}"),
                    path,
                ));
            }
        }
        Ok(())
    }

    /// Resolves every `$ref` to a node: `#` or a JSON Pointer fragment (`#/$defs/Name`,
    /// `#/definitions/Name`, `#/properties/a`, ...) to a schema in this document.
    fn resolve_refs(&mut self) -> Result<()> {
        for id in 0..self.nodes.len() {
            let Some((r, _)) = &self.nodes[id].reference else {
                continue;
            };
            let here = format!("{}/$ref", self.nodes[id].path);
            let Some(fragment) = r.strip_prefix('#') else {
                return Err(unsupported(
                    format!("$ref {r:?} is not local: only references within the schema (\"#/...\") are supported"),
                    &here,
                ));
            };
            if !fragment.is_empty() && !fragment.starts_with('/') {
                return Err(unsupported(
                    format!(
                        "$ref {r:?} names an anchor: only JSON Pointer fragments are supported"
                    ),
                    &here,
                ));
            }
            let pointer = percent_decode(fragment).ok_or_else(|| {
                invalid(format!("$ref {r:?} has malformed percent-encoding"), &here)
            })?;
            let target = *self.by_path.get(&pointer).ok_or_else(|| {
                invalid(
                    format!("$ref {r:?} does not point to a schema in this document"),
                    &here,
                )
            })?;
            if let Some((_, t)) = &mut self.nodes[id].reference {
                *t = Some(target);
            }
        }
        Ok(())
    }

    /// Orders nodes so that every node comes after those it applies in place (`$ref`,
    /// `allOf`, `anyOf`, `oneOf`); a cycle of such applications never consumes any of the
    /// value and is refused.
    fn in_place_order(&self) -> Result<Vec<NodeId>> {
        let n = self.nodes.len();
        let children: Vec<Vec<(NodeId, String)>> = self.nodes.iter().map(in_place).collect();
        let mut color = vec![0u8; n]; // 0 unseen, 1 on the stack, 2 done
        let mut order = Vec::with_capacity(n);
        let mut stack: Vec<(NodeId, usize)> = Vec::new();
        for start in 0..n {
            if color[start] != 0 {
                continue;
            }
            color[start] = 1;
            stack.push((start, 0));
            while let Some((node, next)) = stack.last_mut() {
                let node = *node;
                if let Some((child, keyword)) = children[node].get(*next) {
                    *next += 1;
                    match color[*child] {
                        0 => {
                            color[*child] = 1;
                            stack.push((*child, 0));
                        }
                        1 => {
                            return Err(invalid(
                                "this schema applies itself again without descending into the value (a $ref/allOf/anyOf/oneOf cycle)",
                                &format!("{}{keyword}", self.nodes[node].path),
                            ))
                        }
                        _ => {}
                    }
                } else {
                    color[node] = 2;
                    order.push(node);
                    stack.pop();
                }
            }
        }
        Ok(order)
    }

    fn derive(&mut self, order: &[NodeId]) {
        for &id in order {
            let n = &self.nodes[id];
            let mut declared: Vec<String> = n.properties.iter().map(|(k, _)| k.clone()).collect();
            for lit in n.literals() {
                if let Value::Object(o) = lit {
                    declared.extend(o.iter().map(|(k, _)| k.to_owned()));
                }
            }
            let mut open = matches!(n.additional, Additional::True | Additional::Schema(_));
            let mut items_elsewhere = n.literals().next().is_some();
            let mut fragment = !n.is_structural();
            for (c, _) in in_place(n) {
                let child = &self.nodes[c];
                declared.extend(child.declared.iter().cloned());
                open |= child.open;
                items_elsewhere |= child.handles_items;
            }
            for c in includes(n) {
                fragment &= self.nodes[c].fragment;
            }
            declared.sort_unstable();
            declared.dedup();
            let handles_items =
                items_elsewhere || n.items != Items::Absent || !n.prefix_items.is_empty();
            let n = &mut self.nodes[id];
            n.declared = declared;
            n.open = open;
            n.items_elsewhere = items_elsewhere;
            n.handles_items = handles_items;
            n.fragment = fragment;
        }
    }

    /// A required name that the (closed) object cannot have is a mistake in the schema:
    /// checked for every schema that describes objects, except `allOf` parts, which may
    /// require what another part declares.
    fn check_required(&self) -> Result<()> {
        let mut all_of_part = vec![false; self.nodes.len()];
        for n in &self.nodes {
            for &m in &n.all_of {
                all_of_part[m] = true;
            }
        }
        for (id, n) in self.nodes.iter().enumerate() {
            if n.fragment || n.open || all_of_part[id] {
                continue;
            }
            let mut undeclared: Vec<&(String, usize)> =
                n.required.iter().filter(|(k, _)| !n.declares(k)).collect();
            undeclared.sort_by_key(|(_, i)| *i);
            if let Some((name, i)) = undeclared.first() {
                return Err(invalid(
                    format!("required property {name:?} is not declared in \"properties\", so no object could have it"),
                    &format!("{}/required/{i}", n.path),
                ));
            }
        }
        Ok(())
    }
}

/// The nodes `n` applies to the same value, with the keyword path of each edge.
fn in_place(n: &Node) -> Vec<(NodeId, String)> {
    let mut out = Vec::new();
    if let Some((_, Some(t))) = n.reference {
        out.push((t, "/$ref".to_owned()));
    }
    for (name, list) in [
        ("allOf", &n.all_of),
        ("anyOf", &n.any_of),
        ("oneOf", &n.one_of),
    ] {
        out.extend(
            list.iter()
                .enumerate()
                .map(|(i, &c)| (c, format!("/{name}/{i}"))),
        );
    }
    out
}

/// The nodes whose object members merge with `n`'s: its `$ref` and `allOf` parts.
fn includes(n: &Node) -> impl Iterator<Item = NodeId> + '_ {
    n.reference
        .iter()
        .filter_map(|(_, t)| *t)
        .chain(n.all_of.iter().copied())
}

fn check_bounds(n: &Node) -> Result<()> {
    let pairs = [
        ("minLength", n.min_length, n.max_length, "maxLength"),
        ("minItems", n.min_items, n.max_items, "maxItems"),
    ];
    for (lo_name, lo, hi, hi_name) in pairs {
        if let (Some(lo), Some(hi)) = (lo, hi) {
            if lo > hi {
                return Err(invalid(
                    format!("{lo_name} {lo} is greater than {hi_name} {hi}"),
                    &format!("{}/{lo_name}", n.path),
                ));
            }
        }
    }
    if let (Some(lo), Some(hi)) = (n.minimum, n.maximum) {
        if lo > hi {
            return Err(invalid(
                "minimum is greater than maximum",
                &format!("{}/minimum", n.path),
            ));
        }
    }
    if n.items == Items::False && n.min_items.is_some_and(|m| m > n.prefix_items.len() as u64) {
        return Err(invalid(
            "minItems asks for more items than \"prefixItems\" allows with \"items\": false",
            &format!("{}/minItems", n.path),
        ));
    }
    Ok(())
}

fn types(v: &Value<'_>, path: &str) -> Result<Types> {
    let one = |name: &Value<'_>, at: &str| {
        name.as_str().and_then(Types::from_name).ok_or_else(|| {
            invalid(
                "must be \"null\", \"boolean\", \"integer\", \"number\", \"string\", \"array\" or \"object\", or a non-empty array of them",
                at,
            )
        })
    };
    match v {
        Value::Array(a) if !a.is_empty() => {
            let mut t = Types::default();
            for (i, name) in a.iter().enumerate() {
                let x = one(name, &format!("{path}/{i}"))?;
                if t.contains(x) {
                    return Err(invalid("lists a type twice", &format!("{path}/{i}")));
                }
                t.insert(x);
            }
            Ok(t)
        }
        Value::Array(_) => Err(invalid("must not be empty", path)),
        _ => one(v, path),
    }
}

fn required(v: &Value<'_>, path: &str) -> Result<Vec<(String, usize)>> {
    let Value::Array(a) = v else {
        return Err(invalid("must be an array of strings", path));
    };
    let mut out: Vec<(String, usize)> = Vec::with_capacity(a.len());
    for (i, name) in a.iter().enumerate() {
        let name = name
            .as_str()
            .ok_or_else(|| invalid("must be a string", &format!("{path}/{i}")))?;
        if out.iter().any(|(k, _)| k == name) {
            return Err(invalid(
                format!("lists {name:?} twice"),
                &format!("{path}/{i}"),
            ));
        }
        out.push((name.to_owned(), i));
    }
    out.sort_by(|a, b| cmp_utf16(&a.0, &b.0));
    Ok(out)
}

fn number(v: &Value<'_>, path: &str) -> Result<f64> {
    match v {
        Value::Number(x) => Ok(x.as_f64()),
        _ => Err(invalid("must be a number", path)),
    }
}

fn exclusive(v: &Value<'_>, path: &str) -> Result<f64> {
    match v {
        Value::Bool(_) => Err(unsupported(
            "the boolean (draft 4) form is not supported: give the bound as a number",
            path,
        )),
        _ => number(v, path),
    }
}

fn count(v: &Value<'_>, path: &str) -> Result<u64> {
    match v {
        Value::Number(x) => match x.as_safe_integer() {
            Some(i) if i >= 0 => Ok(i as u64),
            _ => Err(invalid("must be a non-negative integer", path)),
        },
        _ => Err(invalid("must be a non-negative integer", path)),
    }
}

fn boolean(v: &Value<'_>, path: &str) -> Result<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        _ => Err(invalid("must be true or false", path)),
    }
}

/// Decodes `%HH` escapes (a URI fragment) into UTF-8 text.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b.get(i + 1..i + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Used in messages: a number as its canonical text.
pub(crate) fn show(f: f64) -> String {
    Number::from_f64(f).map_or_else(|_| f.to_string(), Number::to_canonical_string)
}
