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
//! `ne` (any JSON value), `in`, `not_in` (a non-empty array of values), `contains` (any JSON
//! value), `exists`, `absent` (no `value`).
//!
//! - `eq`, `ne`, `in`, `not_in` compare exact JSON values: `"USD"` is not `"usd"` nor `" USD"`,
//!   `"300"` is not `300`, `true` is not `1`; numbers compare by value (`1000`, `1000.0` and
//!   `1e3` are one number). No case folding, trimming or Unicode normalization happens, so the
//!   argument schema must pin the spellings a rule relies on (an `enum` or `const`).
//! - `contains`, on a string argument, matches when `value` is a string that occurs in it
//!   (code point for code point, case-sensitive; the empty string occurs in every string); on
//!   an array argument, when some element equals `value` as `eq` does.
//!
//! A condition may instead apply to every element of an array:
//! `{"pointer": "/payments", "any": {"pointer": "/amount_minor", "op": "gt", "value": 1000}}`
//! matches when at least one element matches the inner condition, `"all"` when every element
//! does. The inner condition's pointer is relative to the element (`""` is the element itself),
//! and it may itself be an `any`/`all`. Over an empty array `any` does not match and `all`
//! does; to ask for a person when an array is empty, add
//! `{"pointer": "/payments/0", "op": "absent"}`.
//!
//! Rules fail closed: when the pointer does not resolve, every condition but `exists` matches
//! (`absent` by definition); `gt`/`gte`/`lt`/`lte` match when the argument is not a number;
//! `contains` matches when the argument is neither a string nor an array, or is a string and
//! `value` is not; `any`/`all` match when the argument is not an array. A typo in a pointer or
//! a type the rule did not expect therefore asks for approval rather than skipping it.
//!
//! A delegation's scope (`model/delegation.rs`) is written in the same conditions, with
//! pointers into the whole action envelope, and fails closed the other way: there a condition
//! holds only when its pointer resolves and its test is true ([`Condition::holds`]).

use crate::error::{Code, Error, Result};
use crate::json::held::Held;
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
    test: Test,
}

/// What a condition asks of the value its pointer finds.
#[derive(Clone, Debug, PartialEq)]
enum Test {
    /// An operator, with its value (none for `exists` and `absent`).
    Compare(Op, Option<OwnedValue>),
    /// Some element of the array matches the inner condition.
    Any(Box<Condition>),
    /// Every element of the array matches the inner condition.
    All(Box<Condition>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Gt,
    Gte,
    Lt,
    Lte,
    Eq,
    Ne,
    In,
    NotIn,
    Contains,
    Exists,
    Absent,
}

const OPS: [(&str, Op); 11] = [
    ("gt", Op::Gt),
    ("gte", Op::Gte),
    ("lt", Op::Lt),
    ("lte", Op::Lte),
    ("eq", Op::Eq),
    ("ne", Op::Ne),
    ("in", Op::In),
    ("not_in", Op::NotIn),
    ("contains", Op::Contains),
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
        ApprovalRule::conditions(f.required("when")?).map_err(|e| e.in_key("when"))
    }

    /// Reads the `when` array of conditions; problems have a path relative to it.
    pub(crate) fn conditions(v: &Value<'_>) -> Result<ApprovalRule> {
        let Value::Array(items) = v else {
            return Err(invalid("when must be an array of conditions"));
        };
        if items.is_empty() {
            return Err(invalid("when must list at least one condition"));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, c)| Condition::from_value(c, Scope::Args).map_err(|e| e.in_index(i)))
            .collect::<Result<_>>()
            .map(ApprovalRule::When)
    }

    /// Decides whether a call with these (already validated) arguments needs an approval.
    pub fn evaluate(&self, args: &Value<'_>) -> Requirement {
        self.evaluate_holding(args, &Held::default())
    }

    /// [`ApprovalRule::evaluate`] of arguments some of whose values are held back (`held`: a
    /// frozen action's commitments). A test of a held value's presence answers as written;
    /// any other test of it cannot tell, and asks for a person.
    pub(crate) fn evaluate_holding(&self, args: &Value<'_>, held: &Held) -> Requirement {
        let (required, rule) = match self {
            ApprovalRule::Always => (true, "/approval".to_owned()),
            ApprovalRule::Never => (false, "/approval".to_owned()),
            ApprovalRule::When(conds) => match conds
                .iter()
                .position(|c| c.evaluate(args, Unknown::Matches, held))
            {
                Some(i) => (true, format!("/approval/when/{i}")),
                None => (false, "/approval/when".to_owned()),
            },
        };
        Requirement { required, rule }
    }
}

/// What a condition gives when it cannot tell: its pointer does not resolve (except for
/// `exists`/`absent`, which answer that question as written), or the value is of a type the
/// test does not apply to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unknown {
    /// An approval rule: asking for a person is the safe side.
    Matches,
    /// A delegation's scope: granting authority is the unsafe side.
    Fails,
}

/// What a condition's pointer points into.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// The call's arguments: the pointer names a member, never the whole object.
    Args,
    /// One element of an array: `""` is the element itself.
    Element,
}

impl Condition {
    /// Reads a condition of a delegation's scope: the rule language, with the pointer into the
    /// whole action envelope (`/args/amount_minor`, `/subject`). Problems are
    /// [`Code::InvalidContract`] with a path relative to the condition (the caller re-codes).
    pub(crate) fn scope_condition(v: &Value<'_>) -> Result<Condition> {
        Condition::from_value(v, Scope::Args)
    }

    /// Whether a scope condition holds for `envelope`: only when its pointer resolves and the
    /// test is true (`exists` and `absent` as written); what cannot be told does not hold.
    pub(crate) fn holds(&self, envelope: &Value<'_>) -> bool {
        self.evaluate(envelope, Unknown::Fails, &Held::default())
    }

    /// The pointer's reference tokens.
    pub(crate) fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// The operator and its value, for a comparison (`None` for `any`/`all`).
    pub(crate) fn operator(&self) -> Option<(Op, Option<&OwnedValue>)> {
        match &self.test {
            Test::Compare(op, value) => Some((*op, value.as_ref())),
            Test::Any(_) | Test::All(_) => None,
        }
    }

    /// Whether `value` itself passes this comparison's test, as [`Condition::holds`] judges it
    /// (`false` for `any`/`all`).
    pub(crate) fn accepts(&self, value: &Value<'_>) -> bool {
        match &self.test {
            Test::Compare(op, given) => compare(*op, given.as_ref(), value, Unknown::Fails),
            Test::Any(_) | Test::All(_) => false,
        }
    }

    fn from_value(v: &Value<'_>, scope: Scope) -> Result<Condition> {
        let f = Fields::new(
            v,
            Code::InvalidContract,
            "condition",
            &["pointer", "op", "value", "any", "all"],
        )?;
        let pointer = f.string("pointer")?;
        let tokens = parse_pointer(pointer)
            .filter(|t| scope == Scope::Element || !t.is_empty())
            .ok_or_else(|| {
                invalid(match scope {
                    Scope::Args => {
                        "pointer must be a JSON Pointer into args, such as \"/amount_minor\""
                    }
                    Scope::Element => {
                        "pointer must be a JSON Pointer into the element, such as \"/amount_minor\" or \"\""
                    }
                })
                .in_key("pointer")
            })?;
        let present = |k: &str| f.get(k).is_some();
        let test = match (present("any"), present("all")) {
            (true, true) => {
                return Err(invalid("a condition has either any or all, not both").in_key("all"))
            }
            (false, false) => Condition::comparison(&f)?,
            (any, _) => {
                let key = if any { "any" } else { "all" };
                if let Some(k) = ["op", "value"].into_iter().find(|k| present(k)) {
                    return Err(invalid(format!(
                        "a condition with {key} applies its inner condition to each element: \
                         it has no {k} of its own"
                    ))
                    .in_key(k));
                }
                let inner = Condition::from_value(f.required(key)?, Scope::Element)
                    .map_err(|e| e.in_key(key))?;
                if any {
                    Test::Any(Box::new(inner))
                } else {
                    Test::All(Box::new(inner))
                }
            }
        };
        Ok(Condition { tokens, test })
    }

    /// `{"op", "value"?}`.
    fn comparison(f: &Fields<'_, '_>) -> Result<Test> {
        let name = f.string("op")?;
        let Some(&(_, op)) = OPS.iter().find(|(n, _)| *n == name) else {
            let names: Vec<_> = OPS.iter().map(|(n, _)| *n).collect();
            return Err(invalid(format!("op must be one of {names:?}, not {name:?}")).in_key("op"));
        };
        let value = match op {
            Op::Exists | Op::Absent => {
                if f.get("value").is_some() {
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
        Ok(Test::Compare(op, value))
    }

    fn evaluate(&self, root: &Value<'_>, unknown: Unknown, held: &Held) -> bool {
        let Some(arg) = root.pointer_tokens(&self.tokens) else {
            // Fail closed: an argument that is not there cannot show the call is harmless (a
            // rule), nor that it is within what was delegated (a scope).
            return match self.test {
                Test::Compare(Op::Exists, _) => false,
                Test::Compare(Op::Absent, _) => true,
                _ => unknown == Unknown::Matches,
            };
        };
        let inner = |inner: &Condition, e: &Value<'_>| inner.evaluate(e, unknown, held);
        let presence = matches!(self.test, Test::Compare(Op::Exists | Op::Absent, _));
        if !presence && held.contains(arg) {
            return unknown == Unknown::Matches;
        }
        match &self.test {
            Test::Compare(op, given) => compare(*op, given.as_ref(), arg, unknown),
            // Fail closed on anything but an array.
            Test::Any(c) => match arg {
                Value::Array(a) => a.iter().any(|e| inner(c, e)),
                _ => unknown == Unknown::Matches,
            },
            Test::All(c) => match arg {
                Value::Array(a) => a.iter().all(|e| inner(c, e)),
                _ => unknown == Unknown::Matches,
            },
        }
    }
}

/// Whether `arg` (which the pointer found) passes `op` with `given`.
fn compare(op: Op, given: Option<&OwnedValue>, arg: &Value<'_>, unknown: Unknown) -> bool {
    let number = |v: &Value<'_>| match v {
        Value::Number(n) => Some(n.as_f64()),
        _ => None,
    };
    let cannot_tell = unknown == Unknown::Matches;
    match op {
        Op::Exists => true,
        Op::Absent => false,
        Op::Eq => given.is_some_and(|g| g == arg),
        Op::Ne => given.is_some_and(|g| g != arg),
        Op::In | Op::NotIn => {
            let listed = match given {
                Some(Value::Array(a)) => a.iter().any(|x| x == arg),
                _ => false,
            };
            listed == (op == Op::In)
        }
        Op::Contains => match (arg, given) {
            (Value::String(s), Some(Value::String(t))) => s.contains(&**t),
            (Value::Array(a), Some(g)) => a.iter().any(|x| x == g),
            // Fail closed on a string compared with a non-string, or on a value that is
            // neither a string nor an array.
            _ => cannot_tell,
        },
        Op::Gt | Op::Gte | Op::Lt | Op::Lte => match (number(arg), given.and_then(number)) {
            (Some(a), Some(b)) => match op {
                Op::Gt => a > b,
                Op::Gte => a >= b,
                Op::Lt => a < b,
                _ => a <= b,
            },
            // Fail closed on a value that cannot be compared.
            _ => cannot_tell,
        },
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(Code::InvalidContract, message)
}

#[cfg(test)]
mod tests;
