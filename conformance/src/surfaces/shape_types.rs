//! The vocabulary of the data shapes: the types of their fields, the fields, the shapes, and
//! the lookups the emitters and probes walk them with. The shapes themselves are in
//! `shapes.rs` (the model's), `proof_shapes.rs` and `ledger.rs`.

/// The type of a field.
#[derive(Clone, PartialEq)]
pub enum Ty {
    /// A string.
    Str,
    /// An identity string (non-blank, no surrounding whitespace or control characters).
    Identity,
    /// A fingerprint `sha256:<64 hex>`.
    Digest,
    /// A disclosure of a sensitive value as it travels: base64url of `[salt, pointer, value]`.
    Disclosure,
    /// An integer number of milliseconds since the epoch.
    Millis,
    /// An integer.
    Int,
    /// A boolean.
    Bool,
    /// One of these strings.
    OneOf(Vec<&'static str>),
    /// Another shape.
    Shape(&'static str),
    /// A list of these.
    List(Box<Ty>),
    /// A JSON object (a schema, arguments), unchecked here.
    Object,
    /// Any JSON value.
    Unknown,
    /// A loaded `Contract` object or a contract document, or null.
    ContractOrDocument,
    /// A loaded `Contract` object or a contract document.
    Contract,
    /// A contract's approval rule: `"always"`, `"never"` or `{"when": [conditions]}`, the
    /// object form with an optional `quorum` and `separation` (`when` may then be `"always"`).
    ApprovalRule,
    /// `T | null`.
    Nullable(Box<Ty>),
    /// An object whose members, under keys of the caller's choosing, are all `T`.
    Map(Box<Ty>),
    /// One of these types.
    Either(Vec<Ty>),
}

/// A field of a shape.
pub struct Field {
    pub name: &'static str,
    pub ty: Ty,
    pub doc: &'static str,
    /// May be left out (in some cases: a condition's `value`, for some operators).
    pub optional: bool,
}

/// A JSON object shape.
pub struct Shape {
    /// The TypeScript interface name (the Python TypedDict is `_` + this).
    pub name: &'static str,
    pub doc: &'static str,
    /// A shape whose fields this one has too.
    pub extends: Option<&'static str>,
    pub fields: Vec<Field>,
    /// Whether core only writes it (a verdict): not probed with a reader.
    pub output: bool,
}

pub(super) fn field(name: &'static str, ty: Ty, doc: &'static str) -> Field {
    Field {
        name,
        ty,
        doc,
        optional: false,
    }
}

/// An optional field.
pub(super) fn optional(name: &'static str, ty: Ty, doc: &'static str) -> Field {
    Field {
        optional: true,
        ..field(name, ty, doc)
    }
}

/// The shape called `name` in `all`.
pub(super) fn shape<'s>(all: &'s [Shape], name: &str) -> &'s Shape {
    all.iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no shape {name}"))
}

/// Every field of a shape, its base's first.
pub(super) fn all_fields<'s>(all: &'s [Shape], s: &'s Shape) -> Vec<&'s Field> {
    let mut out = s
        .extends
        .map_or_else(Vec::new, |b| all_fields(all, shape(all, b)));
    out.extend(s.fields.iter());
    out
}
