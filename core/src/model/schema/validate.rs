//! Validating a value against a compiled schema, reporting the first error in the documented
//! order.
//!
//! The check recurses once per schema application, at most [`MAX_VALIDATION_DEPTH`] deep, so
//! its frames are kept small: errors travel boxed (one pointer per level instead of a whole
//! [`Error`]), and the keyword checks, the memo's hashing and the building of errors live in
//! functions of their own that are never inlined into the recursion. `core/tests/stack.rs`
//! measures what a level costs and runs the limit on a small stack.

use super::compile::show;
use super::decimal::Decimal;
use super::node::{Additional, Items, Node, NodeId, Types, EMPTY};
use super::{MAX_PATTERN_INPUT, MAX_VALIDATION_DEPTH};
use crate::error::{Code, Error, Result};
use crate::json::canon::canonicalize;
use crate::json::held::Held;
use crate::json::number::MAX_SAFE_INTEGER;
use crate::json::value::{Object, Value};
use std::collections::HashMap;

/// The validator's own result: the error boxed, so that every frame of the recursion
/// carries a pointer rather than a whole [`Error`].
type Checked = std::result::Result<(), Box<Error>>;

/// Validates `value` against the schema rooted at `root`; also returns how many times a
/// node was applied to a value (the measure of work that tests and fuzzing bound). A member
/// or item in `held` (a sensitive value's commitment) is not entered: no schema is applied
/// to it.
pub(crate) fn validate(
    nodes: &[Node],
    root: NodeId,
    value: &Value<'_>,
    held: &Held,
) -> (Result<()>, u64) {
    let mut v = Validator {
        nodes,
        held,
        memo: HashMap::new(),
        reached: 0,
        applied: 0,
    };
    let r = v.check(root, value, true, 0).map_err(|e| *e);
    (r, v.applied)
}

/// A memoized check: its result, and how many applications deeper than where it started
/// it went.
type Memo = (Checked, usize);

/// A memo key: the node, the address of the value, and whether the check was closing.
type Key = (NodeId, usize, bool);

struct Validator<'s> {
    nodes: &'s [Node],
    /// The values held back.
    held: &'s Held,
    /// Results of shared nodes by (node, address of the value, closing): see
    /// `compile::apply::mark_shared`. With it, each (node, value) pair is checked at most
    /// twice (closing or not), so validation is polynomial in schema size times value size.
    memo: HashMap<Key, Memo>,
    /// The deepest application depth the check in progress has reached.
    reached: usize,
    /// Node applications so far (memo hits not counted).
    applied: u64,
}

fn err(code: Code, msg: impl Into<String>) -> Box<Error> {
    Box::new(Error::new(code, msg))
}

/// Prefixes an error's path with a member's key, unwinding out of that member. (Takes the
/// box so that the caller, in the recursion, never holds an unboxed `Error`.)
#[cold]
#[inline(never)]
#[allow(clippy::boxed_local)]
fn in_key(e: Box<Error>, key: &str) -> Box<Error> {
    Box::new(e.in_key(key))
}

/// Prefixes an error's path with an item's index, unwinding out of that item.
#[cold]
#[inline(never)]
#[allow(clippy::boxed_local)]
fn in_index(e: Box<Error>, i: usize) -> Box<Error> {
    Box::new(e.in_index(i))
}

impl<'s> Validator<'s> {
    /// Checks `v` against node `id`. `closing` says whether this node is where `v`'s
    /// undeclared object members and unschematized array items are refused: true where a
    /// value is entered (the root, a property, an item, an alternative that is not a
    /// fragment), false for `$ref` and `allOf` parts, whose declarations merge with the
    /// node that applies them.
    fn check(&mut self, id: NodeId, v: &Value<'_>, closing: bool, depth: usize) -> Checked {
        if depth > MAX_VALIDATION_DEPTH {
            return Err(too_deep());
        }
        self.reached = self.reached.max(depth);
        if !self.nodes[id].shared {
            return self.apply(id, v, closing, depth);
        }
        let key = (id, v as *const Value<'_> as usize, closing);
        if let Some(r) = self.recall(key, depth) {
            return r;
        }
        let outer = std::mem::replace(&mut self.reached, depth);
        let r = self.apply(id, v, closing, depth);
        self.remember(key, &r, depth, outer);
        r
    }

    /// The remembered result of a shared node's check, held to the depth limit from here.
    #[inline(never)]
    fn recall(&mut self, key: Key, depth: usize) -> Option<Checked> {
        let (r, below) = self.memo.get(&key)?;
        // The same check from here would go `below` levels deeper: past the limit it is
        // refused, as the check itself would be (at its first level past it).
        if depth + below > MAX_VALIDATION_DEPTH {
            return Some(Err(too_deep()));
        }
        self.reached = self.reached.max(depth + below);
        Some(r.clone())
    }

    /// Remembers a shared node's result, with how deep below `depth` it went, and restores
    /// the depth reached by the check around it (`outer`).
    #[inline(never)]
    fn remember(&mut self, key: Key, r: &Checked, depth: usize, outer: usize) {
        let below = self.reached - depth;
        self.reached = self.reached.max(outer);
        // A depth error ends the whole validation, so it is never looked up again.
        if !matches!(r, Err(e) if e.code() == Code::DepthLimitExceeded) {
            self.memo.insert(key, (r.clone(), below));
        }
    }

    fn apply(&mut self, id: NodeId, v: &Value<'_>, closing: bool, depth: usize) -> Checked {
        self.applied += 1;
        let nodes = self.nodes;
        let n = &nodes[id];
        check_scalar(n, v)?;
        match v {
            Value::Array(a) => self.check_array(n, a, closing, depth)?,
            Value::Object(o) => self.check_object(n, o, closing, depth)?,
            _ => {}
        }
        self.in_place(n, v, depth)
    }

    /// `$ref`, `allOf`, `anyOf`, `oneOf`.
    fn in_place(&mut self, n: &Node, v: &Value<'_>, depth: usize) -> Checked {
        if let Some((_, Some(target))) = n.reference {
            self.check(target, v, false, depth + 1)?;
        }
        for &part in &n.all_of {
            self.check(part, v, false, depth + 1)?;
        }
        if !n.any_of.is_empty() {
            self.alternatives(&n.any_of, v, depth, false)?;
        }
        if !n.one_of.is_empty() {
            self.alternatives(&n.one_of, v, depth, true)?;
        }
        Ok(())
    }

    fn check_array(&mut self, n: &Node, a: &[Value<'_>], closing: bool, depth: usize) -> Checked {
        check_length(n, a.len())?;
        for (i, item) in a.iter().enumerate() {
            let schema = match n.prefix_items.get(i) {
                Some(&s) => Some(s),
                None => match n.items {
                    Items::Schema(s) => Some(s),
                    Items::True | Items::False => None,
                    Items::Absent => (closing && !n.items_elsewhere).then_some(EMPTY),
                },
            };
            if let Some(s) = schema.filter(|_| !self.held.contains(item)) {
                self.check(s, item, true, depth + 1)
                    .map_err(|e| in_index(e, i))?;
            }
        }
        if n.unique_items {
            check_unique(a)?;
        }
        Ok(())
    }

    fn check_object(&mut self, n: &Node, o: &Object<'_>, closing: bool, depth: usize) -> Checked {
        check_members(n, o, closing)?;
        for (k, child) in o.iter() {
            let schema = match (n.property(k), n.additional) {
                (Some(s), _) | (None, Additional::Schema(s)) => s,
                _ => continue,
            };
            // Held back where a member is entered, not per node: each alternative of a
            // `oneOf` would otherwise accept it.
            if self.held.contains(child) {
                continue;
            }
            self.check(schema, child, true, depth + 1)
                .map_err(|e| in_key(e, k))?;
        }
        Ok(())
    }

    fn alternatives(
        &mut self,
        branches: &[NodeId],
        v: &Value<'_>,
        depth: usize,
        exactly_one: bool,
    ) -> Checked {
        let mut errors = Vec::new();
        let mut matched: Option<usize> = None;
        for (i, &b) in branches.iter().enumerate() {
            let closing = !self.nodes[b].fragment;
            match self.check(b, v, closing, depth + 1) {
                Ok(()) if !exactly_one => return Ok(()),
                Ok(()) => {
                    if let Some(first) = matched {
                        return Err(several_match(first, i));
                    }
                    matched = Some(i);
                }
                Err(e) if e.code() == Code::DepthLimitExceeded => return Err(e),
                Err(e) => errors.push(e),
            }
        }
        match matched {
            Some(_) => Ok(()),
            None => Err(no_match(v, errors)),
        }
    }
}

#[inline(never)]
fn check_type(t: Types, v: &Value<'_>) -> Checked {
    let (ok, got) = match v {
        Value::Null => (t.contains(Types::NULL), "null"),
        Value::Bool(_) => (t.contains(Types::BOOLEAN), "boolean"),
        Value::String(_) => (t.contains(Types::STRING), "string"),
        Value::Array(_) => (t.contains(Types::ARRAY), "array"),
        Value::Object(_) => (t.contains(Types::OBJECT), "object"),
        Value::Number(x) => {
            let f = x.as_f64();
            if t.contains(Types::NUMBER) {
                (true, "number")
            } else if t.contains(Types::INTEGER) && f.fract() == 0.0 {
                if f.abs() > MAX_SAFE_INTEGER as f64 {
                    return Err(err(
                        Code::UnsafeInteger,
                        format!(
                            "{} is outside ±(2^53−1), where integers are exact in every runtime",
                            x.to_canonical_string()
                        ),
                    ));
                }
                (true, "integer")
            } else if f.fract() != 0.0 {
                (false, "a number with a fractional part")
            } else {
                (false, "number")
            }
        }
    };
    if ok {
        Ok(())
    } else {
        Err(err(
            Code::TypeMismatch,
            format!("expected {}, got {got}", t.describe()),
        ))
    }
}

#[inline(never)]
fn check_number(n: &Node, x: crate::json::number::Number) -> Checked {
    let f = x.as_f64();
    let out = |what: &str, bound: f64| {
        Err(err(
            Code::OutOfRange,
            format!("{} is {what} {}", x.to_canonical_string(), show(bound)),
        ))
    };
    if let Some(m) = n.minimum {
        if f < m {
            return out("less than the minimum", m);
        }
    }
    if let Some(m) = n.exclusive_minimum {
        if f <= m {
            return out("not greater than the exclusive minimum", m);
        }
    }
    if let Some(m) = n.maximum {
        if f > m {
            return out("greater than the maximum", m);
        }
    }
    if let Some(m) = n.exclusive_maximum {
        if f >= m {
            return out("not less than the exclusive maximum", m);
        }
    }
    if let Some((m, d)) = n.multiple_of {
        if !Decimal::of(x).is_multiple_of(d) {
            return out("not a multiple of", m);
        }
    }
    Ok(())
}

#[inline(never)]
fn check_string(n: &Node, s: &str) -> Checked {
    // A string has at most as many code points as bytes, and at least a quarter as many:
    // count them only when the bounds need it.
    let bytes = s.len() as u64;
    let undecided = n.min_length.is_some_and(|min| bytes / 4 < min)
        || n.max_length.is_some_and(|max| bytes > max);
    if undecided {
        let len = s.chars().count() as u64;
        if let Some(min) = n.min_length {
            if len < min {
                return Err(err(
                    Code::LengthOutOfRange,
                    format!("string has {len} characters, fewer than minLength {min}"),
                ));
            }
        }
        if let Some(max) = n.max_length {
            if len > max {
                return Err(err(
                    Code::LengthOutOfRange,
                    format!("string has {len} characters, more than maxLength {max}"),
                ));
            }
        }
    }
    if let Some((src, p)) = &n.pattern {
        // Without a maxLength of the schema's own, a pattern is matched against at most
        // MAX_PATTERN_INPUT code points: the bound on a match's worst-case time.
        if n.max_length.is_none()
            && s.len() > MAX_PATTERN_INPUT
            && s.chars().count() > MAX_PATTERN_INPUT
        {
            return Err(err(
                Code::PatternInputTooLong,
                format!("string has more than {MAX_PATTERN_INPUT} characters, the most a pattern is matched against when the schema sets no maxLength"),
            ));
        }
        if !p.is_match(s) {
            return Err(err(
                Code::PatternMismatch,
                format!("string does not match the pattern {src:?}"),
            ));
        }
    }
    if let Some(f) = n.format {
        if !f.matches(s) {
            return Err(err(
                Code::FormatMismatch,
                format!("string is not a valid {}", f.name()),
            ));
        }
    }
    Ok(())
}

#[inline(never)]
fn check_length(n: &Node, len: usize) -> Checked {
    let len = len as u64;
    if let Some(min) = n.min_items {
        if len < min {
            return Err(err(
                Code::LengthOutOfRange,
                format!("array has {len} items, fewer than minItems {min}"),
            ));
        }
    }
    if let Some(max) = n.max_items {
        if len > max {
            return Err(err(
                Code::LengthOutOfRange,
                format!("array has {len} items, more than maxItems {max}"),
            ));
        }
    }
    let prefix = n.prefix_items.len() as u64;
    if n.items == Items::False && len > prefix {
        return Err(err(
            Code::LengthOutOfRange,
            format!("array has {len} items, more than the {prefix} the schema allows"),
        ));
    }
    Ok(())
}

#[inline(never)]
fn check_unique(a: &[Value<'_>]) -> Checked {
    let mut seen: HashMap<String, usize> = HashMap::with_capacity(a.len());
    for (i, item) in a.iter().enumerate() {
        // Canonical forms are equal exactly when values are equal as JSON (numbers by
        // value, objects regardless of member order).
        if let Some(first) = seen.insert(canonicalize(item), i) {
            return Err(Box::new(
                Error::new(
                    Code::DuplicateItems,
                    format!("item {i} equals item {first}"),
                )
                .in_index(i),
            ));
        }
    }
    Ok(())
}

/// Unknown members, then missing required members.
#[inline(never)]
fn check_members(n: &Node, o: &Object<'_>, closing: bool) -> Checked {
    let implicit = closing && !n.open;
    for (k, _) in o.iter() {
        let own = n.property(k).is_some();
        if (n.additional == Additional::False && !own) || (implicit && !n.declares(k)) {
            return Err(Box::new(
                Error::new(
                    Code::UnknownField,
                    format!("unknown field {k:?}: the schema does not declare it"),
                )
                .in_key(k),
            ));
        }
    }
    for (name, _) in &n.required {
        if o.get(name).is_none() {
            return Err(Box::new(
                Error::new(
                    Code::MissingField,
                    format!("required field {name:?} is missing"),
                )
                .in_key(name),
            ));
        }
    }
    Ok(())
}

#[cold]
#[inline(never)]
fn several_match(first: usize, second: usize) -> Box<Error> {
    err(
        Code::NoMatchingAlternative,
        format!("value matches oneOf alternatives {first} and {second}; it must match exactly one"),
    )
}

/// The error when no alternative matches: the one alternative the value's type fits, when
/// there is exactly one (`"300"` for an optional integer is a type mismatch, `-1` for an
/// optional positive integer is out of range).
#[cold]
#[inline(never)]
#[allow(clippy::vec_box)] // the errors as the recursion returned them, one of which is kept
fn no_match(v: &Value<'_>, mut errors: Vec<Box<Error>>) -> Box<Error> {
    let type_rejected = |e: &Error| e.code() == Code::TypeMismatch && e.path().is_empty();
    let fits = errors.iter().filter(|e| !type_rejected(e)).count();
    // Messages name each alternative's code and path, not its message: nested
    // alternatives would otherwise grow messages exponentially.
    match fits {
        0 => err(
            Code::TypeMismatch,
            format!(
                "{} matches the type of none of the {} alternatives",
                v.type_name(),
                errors.len()
            ),
        ),
        1 => {
            let i = errors.iter().position(|e| !type_rejected(e)).unwrap_or(0);
            errors.swap_remove(i)
        }
        _ => err(
            Code::NoMatchingAlternative,
            format!(
                "value matches none of the {} alternatives ({})",
                errors.len(),
                errors
                    .iter()
                    .enumerate()
                    .map(|(i, e)| match e.path() {
                        "" => format!("{i}: {}", e.code()),
                        p => format!("{i}: {} at {p}", e.code()),
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        ),
    }
}

#[inline(never)]
fn check_literals(n: &Node, v: &Value<'_>) -> Checked {
    if let Some(c) = &n.constant {
        if v != c {
            return Err(err(
                Code::EnumMismatch,
                "value is not the schema's const value",
            ));
        }
    }
    if let Some(options) = &n.enumeration {
        if !options.iter().any(|o| v == o) {
            return Err(err(
                Code::EnumMismatch,
                "value is not one of the schema's enum values",
            ));
        }
    }
    Ok(())
}

#[cold]
#[inline(never)]
fn too_deep() -> Box<Error> {
    err(
        Code::DepthLimitExceeded,
        format!("validation nested deeper than {MAX_VALIDATION_DEPTH} schema applications"),
    )
}

/// `type`, `const`, `enum`, and the keywords of numbers and strings.
#[inline(never)]
fn check_scalar(n: &Node, v: &Value<'_>) -> Checked {
    if let Some(t) = n.types {
        check_type(t, v)?;
    }
    check_literals(n, v)?;
    match v {
        Value::Number(x) => check_number(n, *x),
        Value::String(s) => check_string(n, s),
        _ => Ok(()),
    }
}
