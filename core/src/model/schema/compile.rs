//! Compiling a schema document into a node table: keyword checks, `$ref` resolution, cycle
//! detection and the derived facts validation relies on.
//!
//! Keywords are compiled by family: value keywords (types, literals, numbers, strings) in
//! [`values`], objects in [`objects`], arrays in [`arrays`], the in-place applications
//! (`$ref`, `allOf`, `anyOf`, `oneOf`, `$defs`) and the facts derived from them in [`apply`],
//! annotations and the refusal of everything else in [`annotations`].

mod annotations;
mod apply;
mod arrays;
mod objects;
#[cfg(test)]
mod tests;
mod values;

use super::node::{Items, Node, NodeId};
use super::MAX_SCHEMA_DEPTH;
use crate::error::{Code, Error, Result};
use crate::json::number::Number;
use crate::json::value::{Object, Value};
use std::collections::HashMap;

/// Compiles a schema document; returns the node table and the root's index.
pub(crate) fn compile(schema: &Value<'_>) -> Result<(Vec<Node>, NodeId)> {
    let mut c = Compiler {
        nodes: vec![Node::default()], // EMPTY
        by_path: HashMap::new(),
    };
    let root = c.node(schema, &mut String::new(), 0).map_err(|e| *e)?;
    c.resolve_refs()?;
    let order = c.in_place_order()?;
    c.derive(&order);
    c.mark_shared(root);
    c.check_required()?;
    Ok((c.nodes, root))
}

/// The result of the recursive part of compilation: the error boxed, so that each level of
/// the recursion carries a pointer rather than a whole [`Error`].
type Built<T> = std::result::Result<T, Box<Error>>;

struct Compiler {
    nodes: Vec<Node>,
    by_path: HashMap<String, NodeId>,
}

impl Compiler {
    /// Compiles one schema object and, through its keywords, the schemas inside it. This
    /// recurses once per nested schema, at most [`MAX_SCHEMA_DEPTH`] deep, so the node being
    /// built lives on the heap and everything that does not recurse (value keywords,
    /// annotations, the final checks, the building of errors) is in functions that are never
    /// inlined here: a level costs a few hundred bytes of stack (`core/tests/stack.rs`).
    fn node(&mut self, v: &Value<'_>, path: &mut String, depth: usize) -> Built<NodeId> {
        if depth > MAX_SCHEMA_DEPTH {
            return Err(too_deep(path));
        }
        let Value::Object(obj) = v else {
            return Err(not_an_object(v, path));
        };
        let (id, mut n) = self.start(path);
        for (key, val) in obj.iter() {
            let len = path.len();
            push_token(path, key);
            let r = self.keyword(&mut n, key, val, path, depth);
            path.truncate(len);
            r?;
        }
        self.finish(id, n, obj, path)?;
        Ok(id)
    }

    /// Reserves the node for the schema at `path`, and starts building it on the heap.
    #[inline(never)]
    fn start(&mut self, path: &str) -> (NodeId, Box<Node>) {
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.by_path.insert(path.to_owned(), id);
        let n = Box::new(Node {
            path: path.to_owned(),
            ..Node::default()
        });
        (id, n)
    }

    /// The checks of a node as a whole, then the node into its place.
    #[inline(never)]
    fn finish(&mut self, id: NodeId, n: Box<Node>, obj: &Object<'_>, path: &str) -> Built<()> {
        check_bounds(&n)?;
        annotations::check_discriminator(obj, &n, path)?;
        self.nodes[id] = *n;
        Ok(())
    }

    /// Compiles one keyword of `n` by its family.
    fn keyword(
        &mut self,
        n: &mut Node,
        key: &str,
        v: &Value<'_>,
        path: &mut String,
        depth: usize,
    ) -> Built<()> {
        match key {
            "type" | "enum" | "const" | "minimum" | "maximum" | "exclusiveMinimum"
            | "exclusiveMaximum" | "multipleOf" | "minLength" | "maxLength" | "pattern"
            | "format" => leaf(|| values::keyword(n, key, v, path)),
            "properties" | "required" | "additionalProperties" => {
                self.object_keyword(n, key, v, path, depth)
            }
            "items" | "prefixItems" | "minItems" | "maxItems" | "uniqueItems" => {
                self.array_keyword(n, key, v, path, depth)
            }
            "allOf" | "anyOf" | "oneOf" | "$ref" | "$defs" | "definitions" => {
                self.apply_keyword(n, key, v, path, depth)
            }
            _ => leaf(|| annotations::keyword(key, v, path, depth)),
        }
    }

    fn child(
        &mut self,
        v: &Value<'_>,
        path: &mut String,
        token: &str,
        depth: usize,
    ) -> Built<NodeId> {
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
    ) -> Built<Vec<NodeId>> {
        let a = match v {
            Value::Array(a) if !a.is_empty() => a,
            _ => return Err(invalid_here("must be a non-empty array of schemas", path)),
        };
        let mut ids = Vec::with_capacity(a.len());
        for (i, s) in a.iter().enumerate() {
            let len = path.len();
            push_index(path, i);
            let r = self.node(s, path, depth + 1);
            path.truncate(len);
            ids.push(r?);
        }
        Ok(ids)
    }

    fn schema_map(
        &mut self,
        o: &Object<'_>,
        path: &mut String,
        depth: usize,
    ) -> Built<Vec<(String, NodeId)>> {
        let mut ids = Vec::with_capacity(o.len());
        for (k, s) in o.iter() {
            let id = self.child(s, path, k, depth)?;
            ids.push((k.to_owned(), id));
        }
        Ok(ids)
    }
}

/// Runs a step that does not recurse (a keyword's value, an annotation), out of line so
/// that its locals and its unboxed error stay out of the recursion's frames.
#[inline(never)]
fn leaf<T>(step: impl FnOnce() -> Result<T>) -> Built<T> {
    step().map_err(Box::new)
}

#[cold]
#[inline(never)]
fn too_deep(path: &str) -> Box<Error> {
    Box::new(unsupported(
        format!("schemas nested more than {MAX_SCHEMA_DEPTH} deep"),
        path,
    ))
}

#[cold]
#[inline(never)]
fn not_an_object(v: &Value<'_>, path: &str) -> Box<Error> {
    Box::new(match v {
        Value::Bool(_) => unsupported(
            "boolean schemas are supported only as \"additionalProperties\" and \"items\"",
            path,
        ),
        _ => invalid("a schema must be an object", path),
    })
}

/// [`invalid`], boxed, for the recursive part of compilation.
#[cold]
#[inline(never)]
fn invalid_here(msg: &'static str, pointer: &str) -> Box<Error> {
    Box::new(invalid(msg, pointer))
}

/// Appends an array index as a reference token.
fn push_index(path: &mut String, i: usize) {
    use std::fmt::Write;
    let _ = write!(path, "/{i}");
}

fn at(code: Code, msg: impl Into<String>, pointer: &str) -> Error {
    let tokens = crate::json::pointer::parse_pointer(pointer).unwrap_or_default();
    tokens
        .iter()
        .rev()
        .fold(Error::new(code, msg), |e, t| e.in_key(t))
}

#[cold]
#[inline(never)]
fn invalid(msg: impl Into<String>, pointer: &str) -> Error {
    at(Code::InvalidSchema, msg, pointer)
}

#[cold]
#[inline(never)]
fn unsupported(msg: impl Into<String>, pointer: &str) -> Error {
    at(Code::UnsupportedSchema, msg, pointer)
}

/// Appends one escaped reference token to a pointer.
fn push_token(path: &mut String, token: &str) {
    path.push('/');
    crate::json::pointer::push_escaped(path, token);
}

#[inline(never)]
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

fn boolean(v: &Value<'_>, path: &str) -> Result<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        _ => Err(invalid("must be true or false", path)),
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

/// Used in messages: a number as its canonical text.
pub(crate) fn show(f: f64) -> String {
    Number::from_f64(f).map_or_else(|_| f.to_string(), Number::to_canonical_string)
}
