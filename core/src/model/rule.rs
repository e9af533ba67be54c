//! Approval rules: when a tool call needs a person.
//!
//! A contract's `approval` field is one of
//!
//! - `"always"`: every call needs an approval;
//! - `"never"`: no call needs one (read-only lookups);
//! - `{"when": [condition, ...]}`: a call needs an approval when **any** condition matches.
//!
//! A condition is `{"pointer": "/amount_minor", "op": "gt", "value": 10000}`: `pointer` is a
//! JSON Pointer into the call's `args`, `op` one of `gt`, `gte`, `lt`, `lte` (numbers), `eq`,
//! `ne` (any JSON value), `in`, `not_in` (a non-empty array of values), `exists`, `absent`
//! (no `value`).
//!
//! Rules fail closed: when the pointer does not resolve, every op but `exists` and `absent`
//! matches, and so do `gt`/`gte`/`lt`/`lte` when the argument is not a number. A typo in a
//! pointer therefore asks for approval rather than skipping it.

use crate::error::{Code, Error, Result};
use crate::json::pointer::parse_pointer;
use crate::json::value::{OwnedValue, Value};
use crate::model::fields::Fields;

/// When calls of a tool need an approval.
#[derive(Clone, Debug, PartialEq)]
pub enum ApprovalRule {
    /// Every call.
    Always,
    /// No call.
    Never,
    /// Calls for which any of these conditions matches.
    When(Vec<Condition>),
}

/// One condition of an [`ApprovalRule::When`].
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    /// The pointer's reference tokens, unescaped once when the contract is loaded.
    tokens: Vec<String>,
    op: Op,
    value: Option<OwnedValue>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Gt,
    Gte,
    Lt,
    Lte,
    Eq,
    Ne,
    In,
    NotIn,
    Exists,
    Absent,
}

const OPS: [(&str, Op); 10] = [
    ("gt", Op::Gt),
    ("gte", Op::Gte),
    ("lt", Op::Lt),
    ("lte", Op::Lte),
    ("eq", Op::Eq),
    ("ne", Op::Ne),
    ("in", Op::In),
    ("not_in", Op::NotIn),
    ("exists", Op::Exists),
    ("absent", Op::Absent),
];

/// The names of the operators a condition may use (`"gt"`, `"in"`, ...), for generated
/// documentation and types.
pub fn operators() -> impl Iterator<Item = &'static str> {
    OPS.iter().map(|(name, _)| *name)
}

/// Whether a call needs an approval, and which part of the contract decided it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// Whether an approval is needed.
    pub required: bool,
    /// JSON Pointer into the contract of the deciding rule: `/approval` for `always`/`never`,
    /// `/approval/when/<i>` for the first matching condition, `/approval/when` when none did.
    pub rule: String,
}

impl ApprovalRule {
    /// Reads a rule; problems are [`Code::InvalidContract`] with a path relative to the rule.
    pub fn from_value(v: &Value<'_>) -> Result<ApprovalRule> {
        match v {
            Value::String(s) if s == "always" => return Ok(ApprovalRule::Always),
            Value::String(s) if s == "never" => return Ok(ApprovalRule::Never),
            Value::Object(_) => {}
            _ => {
                return Err(invalid(
                    "approval must be \"always\", \"never\" or {\"when\": [...]}",
                ))
            }
        }
        let f = Fields::new(v, Code::InvalidContract, "approval", &["when"])?;
        let Value::Array(items) = f.required("when")? else {
            return Err(invalid("when must be an array of conditions").in_key("when"));
        };
        if items.is_empty() {
            return Err(invalid("when must list at least one condition").in_key("when"));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, c)| Condition::from_value(c).map_err(|e| e.in_index(i).in_key("when")))
            .collect::<Result<_>>()
            .map(ApprovalRule::When)
    }

    /// Decides whether a call with these (already validated) arguments needs an approval.
    pub fn evaluate(&self, args: &Value<'_>) -> Requirement {
        let (required, rule) = match self {
            ApprovalRule::Always => (true, "/approval".to_owned()),
            ApprovalRule::Never => (false, "/approval".to_owned()),
            ApprovalRule::When(conds) => match conds.iter().position(|c| c.matches(args)) {
                Some(i) => (true, format!("/approval/when/{i}")),
                None => (false, "/approval/when".to_owned()),
            },
        };
        Requirement { required, rule }
    }
}

impl Condition {
    fn from_value(v: &Value<'_>) -> Result<Condition> {
        let f = Fields::new(
            v,
            Code::InvalidContract,
            "condition",
            &["pointer", "op", "value"],
        )?;
        let pointer = f.string("pointer")?;
        let tokens = parse_pointer(pointer)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                invalid("pointer must be a JSON Pointer into args, such as \"/amount_minor\"")
                    .in_key("pointer")
            })?;
        let name = f.string("op")?;
        let Some(&(_, op)) = OPS.iter().find(|(n, _)| *n == name) else {
            let names: Vec<_> = OPS.iter().map(|(n, _)| *n).collect();
            return Err(invalid(format!("op must be one of {names:?}, not {name:?}")).in_key("op"));
        };
        let value = match op {
            Op::Exists | Op::Absent => {
                if f.required("value").is_ok() {
                    return Err(invalid(format!("{name} takes no value")).in_key("value"));
                }
                None
            }
            _ => Some(f.required("value")?.clone().into_owned()),
        };
        match (op, &value) {
            (Op::Gt | Op::Gte | Op::Lt | Op::Lte, Some(Value::Number(_))) => {}
            (Op::Gt | Op::Gte | Op::Lt | Op::Lte, _) => {
                return Err(
                    invalid(format!("{name} compares numbers: value must be a number"))
                        .in_key("value"),
                )
            }
            (Op::In | Op::NotIn, Some(Value::Array(a))) if !a.is_empty() => {}
            (Op::In | Op::NotIn, _) => {
                return Err(
                    invalid(format!("{name} needs a non-empty array of values")).in_key("value")
                )
            }
            _ => {}
        }
        Ok(Condition { tokens, op, value })
    }

    fn matches(&self, args: &Value<'_>) -> bool {
        let Some(arg) = args.pointer_tokens(&self.tokens) else {
            // Fail closed: an argument that is not there cannot show the call is harmless.
            return self.op != Op::Exists;
        };
        let number = |v: &Value<'_>| match v {
            Value::Number(n) => Some(n.as_f64()),
            _ => None,
        };
        let given = self.value.as_ref();
        match self.op {
            Op::Exists => true,
            Op::Absent => false,
            Op::Eq => given.is_some_and(|g| g == arg),
            Op::Ne => given.is_some_and(|g| g != arg),
            Op::In | Op::NotIn => {
                let listed = match given {
                    Some(Value::Array(a)) => a.iter().any(|x| x == arg),
                    _ => false,
                };
                listed == (self.op == Op::In)
            }
            Op::Gt | Op::Gte | Op::Lt | Op::Lte => {
                match (number(arg), given.and_then(number)) {
                    (Some(a), Some(b)) => match self.op {
                        Op::Gt => a > b,
                        Op::Gte => a >= b,
                        Op::Lt => a < b,
                        _ => a <= b,
                    },
                    // Fail closed on a value that cannot be compared.
                    _ => true,
                }
            }
        }
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(Code::InvalidContract, message)
}
