//! The in-place applications — `$ref`, `allOf`, `anyOf`, `oneOf` — and `$defs`: resolving
//! references, refusing cycles that never descend into the value, and the facts derived
//! along these edges (declared members, open objects, fragments, shared nodes).

use super::{invalid, invalid_here, unsupported, Built, Compiler};
use crate::error::Result;
use crate::json::value::Value;
use crate::model::schema::node::{Additional, Items, Node, NodeId, EMPTY};

impl Compiler {
    pub(super) fn apply_keyword(
        &mut self,
        n: &mut Node,
        key: &str,
        v: &Value<'_>,
        path: &mut String,
        depth: usize,
    ) -> Built<()> {
        match key {
            "allOf" => n.all_of = self.schema_list(v, path, depth)?,
            "anyOf" => n.any_of = self.schema_list(v, path, depth)?,
            "oneOf" => n.one_of = self.schema_list(v, path, depth)?,
            "$ref" => {
                let r = v
                    .as_str()
                    .ok_or_else(|| invalid_here("must be a string", path))?;
                n.reference = Some((r.to_owned(), None));
            }
            "$defs" | "definitions" => {
                let o = v
                    .as_object()
                    .ok_or_else(|| invalid_here("must be an object of schemas", path))?;
                self.schema_map(o, path, depth)?;
            }
            _ => unreachable!("compile::keyword sends only applicators here"),
        }
        Ok(())
    }

    /// Resolves every `$ref` to a node: `#` or a JSON Pointer fragment (`#/$defs/Name`,
    /// `#/definitions/Name`, `#/properties/a`, ...) to a schema in this document.
    pub(super) fn resolve_refs(&mut self) -> Result<()> {
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
    pub(super) fn in_place_order(&self) -> Result<Vec<NodeId>> {
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

    /// Marks the nodes validation may reach along more than one edge (`$ref` targets used
    /// twice, the root when something refers to it, the empty schema): validation memoizes
    /// their results per value, so that no (node, value) pair is checked twice however
    /// often definitions are reused (`{"allOf": [{"$ref": "#/$defs/D"}, {"$ref":
    /// "#/$defs/D"}]}` nested 30 deep would otherwise take 2^30 checks). Every other node
    /// is reached along one edge, from a node checked at most once per value, so it is
    /// checked at most once per value too.
    pub(super) fn mark_shared(&mut self, root: NodeId) {
        let mut edges_in = vec![0usize; self.nodes.len()];
        edges_in[root] += 1;
        for n in &self.nodes {
            for c in applied(n) {
                edges_in[c] += 1;
            }
        }
        for (n, edges) in self.nodes.iter_mut().zip(edges_in) {
            n.shared = edges > 1;
        }
        self.nodes[EMPTY].shared = true;
    }

    pub(super) fn derive(&mut self, order: &[NodeId]) {
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

/// Every node `n` applies: to the same value (`$ref`, `allOf`, `anyOf`, `oneOf`) or to a
/// member or item (`properties`, `additionalProperties`, `prefixItems`, `items`).
fn applied(n: &Node) -> impl Iterator<Item = NodeId> + '_ {
    let additional = match n.additional {
        Additional::Schema(s) => Some(s),
        _ => None,
    };
    let items = match n.items {
        Items::Schema(s) => Some(s),
        _ => None,
    };
    n.reference
        .iter()
        .filter_map(|(_, t)| *t)
        .chain(n.all_of.iter().copied())
        .chain(n.any_of.iter().copied())
        .chain(n.one_of.iter().copied())
        .chain(n.properties.iter().map(|(_, s)| *s))
        .chain(additional)
        .chain(n.prefix_items.iter().copied())
        .chain(items)
}

/// The nodes whose object members merge with `n`'s: its `$ref` and `allOf` parts.
fn includes(n: &Node) -> impl Iterator<Item = NodeId> + '_ {
    n.reference
        .iter()
        .filter_map(|(_, t)| *t)
        .chain(n.all_of.iter().copied())
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
