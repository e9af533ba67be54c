//! Tool argument schemas: a strict, deterministic subset of JSON Schema (2020-12).
//!
//! A tool contract's `args` is the JSON Schema agent frameworks already give the model
//! (OpenAI function `parameters`, MCP `inputSchema`, pydantic's `model_json_schema()`).
//! [`Schema::compile`] accepts such a schema or refuses it with a reason; [`Schema::validate`]
//! decides whether arguments fit it, with the first error in a fixed order. The same code runs
//! in every runtime, so every runtime decides alike.
//!
//! The rule of thumb: **every value this accepts is also valid under the JSON Schema 2020-12
//! specification; some values JSON Schema accepts are refused here** (closed objects, safe
//! integers, stricter formats). Nothing in a schema is silently ignored. (Implementations
//! that decide `multipleOf` by dividing binary doubles refuse some decimal multiples the
//! specification and this validator accept, such as `19.99` of `0.01`.)
//!
//! # Keywords
//!
//! | keyword | meaning |
//! | --- | --- |
//! | `type` | a name or a non-empty array of `null`, `boolean`, `integer`, `number`, `string`, `array`, `object` |
//! | `properties`, `required`, `additionalProperties` | see *Objects are closed* |
//! | `enum`, `const` | equality as JSON values: numbers by value (`25.0` = `25`), objects regardless of member order, arrays in order |
//! | `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` | numeric bounds (the draft 6+ numeric form) |
//! | `multipleOf` | decided on decimal values: `19.99` is a multiple of `0.01` |
//! | `minLength`, `maxLength` | counted in Unicode code points |
//! | `pattern` | an ECMA-262 (`u` flag) regular expression, searched for anywhere in the string: see below |
//! | `format` | `date-time`, `date`, `time`, `email`, `uuid`, `uri`, `ipv4`, `ipv6`, `hostname`: see below |
//! | `items`, `prefixItems` | `items` is a schema, `true` or `false`; `prefixItems` a non-empty array of schemas |
//! | `minItems`, `maxItems`, `uniqueItems` | array length; `uniqueItems` uses the equality of `enum` |
//! | `allOf`, `anyOf`, `oneOf` | non-empty arrays of schemas |
//! | `$ref`, `$defs`, `definitions` | `$ref` is `#` or a JSON Pointer fragment to a schema in the same document (`#/$defs/Name`, `#/definitions/Name`, `#/properties/a`, percent-encoding decoded); recursive schemas work |
//! | `title`, `description`, `default`, `examples`, `$schema`, `$id` (root only), `$comment`, `deprecated`, `readOnly`, `writeOnly`, `discriminator` | annotations: shape-checked, otherwise ignored (`discriminator` is OpenAPI's, which pydantic emits beside `oneOf`; the alternatives decide) |
//!
//! Every other keyword is [`Code::UnsupportedSchema`] (`if`, `not`, `patternProperties`,
//! `dependentRequired`, `nullable`, the array form of `items`, a `$ref` to another document or
//! an anchor, boolean schemas other than `additionalProperties` and `items`, draft 4's boolean
//! `exclusiveMinimum`, an unknown `format`, a pattern feature the engine lacks, and misspelt
//! keywords). A keyword with a malformed value is [`Code::InvalidSchema`] (`"minimum": "3"`,
//! `"required": [1]`, a negative `minLength`, `minLength` above `maxLength`, `minimum` above
//! `maximum`, an empty `enum`/`anyOf`, an unresolvable `$ref`, a `$ref`/`allOf`/`anyOf`/`oneOf`
//! cycle that never descends into the value, an invalid regular expression, and a `required`
//! name that the (closed) object could never have). Compile errors carry a JSON Pointer into
//! the schema; keywords are examined in canonical key order and the first error is reported.
//!
//! # Types are strict
//!
//! `"300"` is not a number and `true` is not `1`. `integer` is a number with no fractional
//! part (`25.0`, read from `25.00`, is the integer 25, as JSON Schema says) within
//! ±(2^53 − 1); a larger integral number is [`Code::UnsafeInteger`], a fractional one
//! [`Code::TypeMismatch`]. `number` is any finite number.
//!
//! # Objects are closed
//!
//! A member that no schema declares is [`Code::UnknownField`], whether or not the schema says
//! `additionalProperties: false`: an object schema with neither `properties` nor
//! `additionalProperties` admits only `{}`, and so does the empty schema `{}`. Only
//! `additionalProperties: true` (any further members, with any values, unchecked) or
//! `additionalProperties: <schema>` (further members checked against it) admit undeclared
//! members. Likewise an array whose schema gives no `items` has its items (after any
//! `prefixItems`) checked against `{}`, so objects inside it are closed too.
//!
//! The check is made once per object, by the schema where the value is entered: the root,
//! a property's schema, an item's schema, or an `anyOf`/`oneOf` alternative. A member is
//! declared there when that schema, or any schema it applies in place (through `$ref`,
//! `allOf`, `anyOf`, `oneOf`, transitively), lists it in `properties` or has an object
//! literal with it in `const`/`enum`; the object is open when any of them has
//! `additionalProperties` `true` or a schema. So `{"$ref": "#/$defs/Address", "description":
//! ".."}` is as closed as `Address`, `allOf` parts declare members for each other, and each
//! `anyOf`/`oneOf` alternative is closed by itself (`Cat | Dog` admits a cat or a dog, not a
//! mixture), except an alternative that is a *fragment*: one that, with its `$ref`/`allOf`
//! parts, has none of `type`, `properties`, `additionalProperties`, `items`, `prefixItems`,
//! `const`, `enum`, such as `{"required": ["email"]}` in `anyOf: [{"required": ["email"]},
//! {"required": ["phone"]}]`; it leaves the check to the schema around it. An explicit
//! `additionalProperties: false` keeps its standard meaning for the schema that has it (only
//! that schema's own `properties`).
//!
//! `properties` declared only inside an alternative that is not a fragment do not count for
//! that alternative's siblings: with `{"properties": {"kind": ..}, "anyOf": [{"properties":
//! {"meow": ..}}]}` the alternative refuses `kind`. Declare whole objects in each alternative
//! (as pydantic does) or combine with `allOf`.
//!
//! # Error order
//!
//! Validation reports the first error, in this order, for each schema: `type`; `const`;
//! `enum`; then for a number `minimum`, `exclusiveMinimum`, `maximum`, `exclusiveMaximum`,
//! `multipleOf`; for a string `minLength`, `maxLength`, `pattern`, `format`; for an array
//! `minItems`, `maxItems`, `items: false`, then each item in order, then `uniqueItems` (at the
//! later of the first equal pair); for an object, unknown members (in canonical key order),
//! then missing required members (in canonical key order, the path naming the missing
//! member), then each member's value (in canonical key order); then `$ref`, then `allOf` parts
//! in order, then `anyOf`, then `oneOf`. When no `anyOf`/`oneOf` alternative matches, the
//! error is [`Code::TypeMismatch`] if the value's type fits none of them, that alternative's
//! own error if its type fits exactly one (so an optional integer given `"300"` or `-1`
//! reports why), and [`Code::NoMatchingAlternative`] otherwise, also when a value matches
//! more than one `oneOf` alternative. Paths are JSON Pointers into the value.
//!
//! # Formats
//!
//! Each accepts ASCII only. `date-time`: RFC 3339 `date-time` with a required offset, `T`/`Z`
//! in either case, fractional seconds of any length, a leap second (`:60`) only at 23:59 UTC.
//! `date`: `YYYY-MM-DD`, a real calendar day. `time`: RFC 3339 `full-time`, offset required.
//! `email`: a dot-atom local part of at most 64 characters, `@`, a `hostname`, at most 254
//! characters in all (no quoted local parts, comments or address literals). `uuid`:
//! 8-4-4-4-12 hex digits, either case, any version. `uri`: RFC 3986 `URI` (absolute, with a
//! scheme) checked against the RFC grammar, including IPv6 and IPvFuture hosts; non-ASCII
//! must be percent-encoded. `ipv4`: dotted quad, no leading zeros. `ipv6`: RFC 4291 text,
//! one `::`, optional trailing dotted quad, no zone index. `hostname`: RFC 1123 labels of
//! letters, digits and inner hyphens, 1–63 characters each, at most 253 in all, no trailing
//! dot (punycode labels are not decoded).
//!
//! # Patterns
//!
//! Patterns are ECMA-262 regular expressions in Unicode (`u` flag) mode, the dialect JSON
//! Schema names, run by this crate's own engine: a lazy DFA over an NFA, falling back to the
//! NFA simulation, linear in the length of the string, so no pattern can backtrack
//! exponentially. A counted repetition of one character or class (`[a-z0-9]{1,255}`,
//! `\d{4}`, `.{8,}`) costs the same whatever its bounds. The syntax and meaning are ECMA's,
//! with these limits: `.` excludes only the line terminators `\n`, `\r`, U+2028, U+2029; `\s`
//! is ECMA's white space and line terminators (including U+00A0, U+FEFF and the Zs spaces);
//! `\d`, `\w`, `\b` are ASCII; `^`/`$` match only at the ends of the string; there are no
//! flags. Backreferences, lookbehind, `\p{..}`, modifiers like `(?i:..)` are unsupported;
//! lookaheads are supported only directly after a leading `^` (`^(?=.*\d)(?!.*\s).{8,}$`,
//! pydantic's decimal pattern), where they mean what ECMA says. Text that is not a valid
//! `u`-mode pattern (`\-` outside a class, a lone `{`, `[z-a]`) is invalid. Groups may nest
//! 32 deep (deeper is unsupported). Repetitions of longer groups are expanded: a pattern may
//! expand to at most 20,000 instructions (`(?:ab){5000}` is about 10,000), and may use at
//! most a few thousand distinct characters and classes outside one class (their table of
//! classes by sets is limited to 2^24 bits).
//!
//! A pattern is matched against at most [`MAX_PATTERN_INPUT`] code points (10,000) unless the
//! schema that has it sets `maxLength` (then the string is within `maxLength`, checked
//! first); a longer string is [`Code::PatternInputTooLong`]. This bounds the worst case of a
//! match; give `maxLength` where arguments may be longer.
//!
//! # Bounds
//!
//! Schemas may nest at most [`MAX_SCHEMA_DEPTH`] (128) schemas deep, beyond which the schema
//! is [`Code::UnsupportedSchema`]; validation follows at most [`MAX_VALIDATION_DEPTH`] (384)
//! nested schema applications (each property, item, `$ref`, part or alternative is one),
//! beyond which it is [`Code::DepthLimitExceeded`]. A recursive schema therefore validates
//! any value its depth allows (127 levels of a recursive model that takes a property, an
//! `anyOf` alternative and a `$ref` a level), and nothing recurses without a bound: both
//! limits, with the costliest checks at the bottom, run in half of a 192 KiB stack
//! (`core/tests/stack.rs`, docs/RELIABILITY.md).
//!
//! Validation takes time polynomial in the schema's size times the value's: a schema reached
//! along more than one path (a definition used twice, a recursive root) is checked at most
//! once per value and remembered, so reusing definitions through `allOf`, `anyOf`, `oneOf`
//! and `$ref`, however deeply, never multiplies the work. A remembered result reached again
//! deeper down is still held to [`MAX_VALIDATION_DEPTH`]; the error's path is then where it
//! was reached again.

mod compile;
mod decimal;
mod format;
mod node;
mod pattern;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub use pattern::{probe as probe_pattern, Probe as PatternProbe};
#[cfg(test)]
mod tests;
mod validate;

#[cfg(doc)]
use crate::error::Code;
use crate::error::Result;
use crate::json::held::Held;
use crate::json::value::Value;
use node::{Node, NodeId};
use std::sync::Arc;

/// Deepest nesting of schemas in a schema document: 128, each level a few hundred bytes of
/// stack when compiling.
pub const MAX_SCHEMA_DEPTH: usize = 128;

/// Most nested schema applications one validation follows: 384, three a level (a property,
/// an `anyOf` alternative, a `$ref`) for a recursive model 127 levels deep; each takes at
/// most about 170 bytes of stack.
pub const MAX_VALIDATION_DEPTH: usize = 384;

/// Longest string, in code points, that a `pattern` is matched against when the schema
/// that has the pattern sets no `maxLength`; a longer one is [`Code::PatternInputTooLong`].
pub const MAX_PATTERN_INPUT: usize = 10_000;

/// A compiled argument schema. Cheap to clone; shareable across threads.
#[derive(Clone, Debug)]
pub struct Schema {
    nodes: Arc<[Node]>,
    root: NodeId,
}

impl Schema {
    /// Compiles a schema. A keyword, `format` or pattern feature outside the supported subset
    /// is [`Code::UnsupportedSchema`]; a malformed keyword value is [`Code::InvalidSchema`].
    /// The error's path is a JSON Pointer into the schema document.
    pub fn compile(schema: &Value<'_>) -> Result<Schema> {
        let (nodes, root) = compile::compile(schema)?;
        Ok(Schema {
            nodes: nodes.into(),
            root,
        })
    }

    /// Validates a value, returning the first error in the order the module documents, its
    /// path a JSON Pointer into the value (such as `/items/2/amount_minor`).
    pub fn validate(&self, value: &Value<'_>) -> Result<()> {
        validate::validate(&self.nodes, self.root, value, &Held::default()).0
    }

    /// [`Schema::validate`] with the members and items in `held` (values inside `value`, such
    /// as sensitive values' commitments) held back: present, but not validated.
    pub(crate) fn validate_holding(&self, value: &Value<'_>, held: &Held) -> Result<()> {
        validate::validate(&self.nodes, self.root, value, held).0
    }

    /// [`Schema::validate`], and how many times it applied a schema node to a value: at most
    /// twice the number of nodes times the number of values in `value` (fuzzing checks the
    /// bound; not a public API).
    #[cfg(feature = "fuzzing")]
    #[doc(hidden)]
    pub fn validate_counting(&self, value: &Value<'_>) -> (Result<()>, u64) {
        validate::validate(&self.nodes, self.root, value, &Held::default())
    }

    /// The number of compiled schema nodes (fuzzing bounds validation work with it; not a
    /// public API).
    #[cfg(feature = "fuzzing")]
    #[doc(hidden)]
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
}
