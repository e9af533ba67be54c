//! Annotations (checked for shape, otherwise ignored) and the refusal, with a hint, of every
//! keyword outside the supported subset.

use super::{boolean, invalid, unsupported};
use crate::error::Result;
use crate::json::value::{Object, Value};
use crate::model::schema::node::Node;

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

/// An annotation keyword, checked for shape; any other keyword is refused.
#[inline(never)]
pub(super) fn keyword(key: &str, v: &Value<'_>, path: &str, depth: usize) -> Result<()> {
    match key {
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

/// `discriminator` only makes sense beside the alternatives it annotates.
#[inline(never)]
pub(super) fn check_discriminator(obj: &Object<'_>, n: &Node, path: &str) -> Result<()> {
    if obj.get("discriminator").is_some() && n.one_of.is_empty() && n.any_of.is_empty() {
        return Err(invalid(
            "\"discriminator\" needs \"oneOf\" or \"anyOf\" beside it",
            &format!("{path}/discriminator"),
        ));
    }
    Ok(())
}
