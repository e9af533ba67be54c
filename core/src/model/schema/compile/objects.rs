//! Object keywords: `properties`, `required`, `additionalProperties`, and the check that a
//! closed object can have every member it requires.

use super::{invalid, invalid_here, leaf, Built, Compiler};
use crate::error::Result;
use crate::json::keyorder::cmp_utf16;
use crate::json::value::Value;
use crate::model::schema::node::{Additional, Node};

impl Compiler {
    pub(super) fn object_keyword(
        &mut self,
        n: &mut Node,
        key: &str,
        v: &Value<'_>,
        path: &mut String,
        depth: usize,
    ) -> Built<()> {
        match key {
            "properties" => {
                let o = v
                    .as_object()
                    .ok_or_else(|| invalid_here("must be an object of schemas", path))?;
                n.has_properties = true;
                n.properties = self.schema_map(o, path, depth)?;
                n.properties.sort_by(|a, b| a.0.cmp(&b.0));
            }
            "required" => n.required = leaf(|| required(v, path))?,
            "additionalProperties" => {
                n.additional = match v {
                    Value::Bool(true) => Additional::True,
                    Value::Bool(false) => Additional::False,
                    _ => Additional::Schema(self.node(v, path, depth + 1)?),
                }
            }
            _ => unreachable!("compile::keyword sends only object keywords here"),
        }
        Ok(())
    }

    /// A required name that the (closed) object cannot have is a mistake in the schema:
    /// checked for every schema that describes objects, except `allOf` parts, which may
    /// require what another part declares.
    pub(super) fn check_required(&self) -> Result<()> {
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

#[inline(never)]
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
