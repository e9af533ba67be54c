//! Array keywords: `items`, `prefixItems`, `minItems`, `maxItems`, `uniqueItems`.

use super::{boolean, count, leaf, unsupported, Built, Compiler};
use crate::json::value::Value;
use crate::model::schema::node::{Items, Node};

impl Compiler {
    pub(super) fn array_keyword(
        &mut self,
        n: &mut Node,
        key: &str,
        v: &Value<'_>,
        path: &mut String,
        depth: usize,
    ) -> Built<()> {
        match key {
            "items" => {
                n.items = match v {
                    Value::Bool(true) => Items::True,
                    Value::Bool(false) => Items::False,
                    Value::Array(_) => {
                        return leaf(|| {
                            Err(unsupported(
                                "the array form of \"items\" is not supported: use \"prefixItems\"",
                                path,
                            ))
                        })
                    }
                    _ => Items::Schema(self.node(v, path, depth + 1)?),
                }
            }
            "prefixItems" => n.prefix_items = self.schema_list(v, path, depth)?,
            "minItems" => n.min_items = Some(leaf(|| count(v, path))?),
            "maxItems" => n.max_items = Some(leaf(|| count(v, path))?),
            "uniqueItems" => n.unique_items = leaf(|| boolean(v, path))?,
            _ => unreachable!("compile::keyword sends only array keywords here"),
        }
        Ok(())
    }
}
