//! Keywords about one value: `type`, `enum`, `const`, the numeric bounds and `multipleOf`,
//! the string lengths, `pattern` and `format`.

use super::{at, count, invalid, unsupported};
use crate::error::Result;
use crate::json::value::Value;
use crate::model::schema::decimal::Decimal;
use crate::model::schema::format::Format;
use crate::model::schema::node::{Node, Types};
use crate::model::schema::pattern::Pattern;

/// Not inlined into the recursion of `Compiler::node`: it holds large locals (patterns).
#[inline(never)]
pub(super) fn keyword(n: &mut Node, key: &str, v: &Value<'_>, path: &str) -> Result<()> {
    match key {
        "type" => n.types = Some(types(v, path)?),
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
        "pattern" => {
            let src = v
                .as_str()
                .ok_or_else(|| invalid("must be a string", path))?;
            let p = Pattern::new(src).map_err(|e| at(e.code(), e.message().to_owned(), path))?;
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
        _ => unreachable!("compile::keyword sends only value keywords here"),
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
