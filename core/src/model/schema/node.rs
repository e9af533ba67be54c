//! The compiled form of one schema object.

use super::decimal::Decimal;
use super::format::Format;
use super::pattern::Pattern;
use crate::json::value::{OwnedValue, Value};

/// Index of a node in [`super::Schema`]'s node table.
pub(crate) type NodeId = usize;

/// The node every compiled schema has at index 0: the empty schema `{}`, which array items
/// are checked against when a schema has no `items`.
pub(crate) const EMPTY: NodeId = 0;

/// A set of JSON types, as bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Types(u8);

impl Types {
    pub(crate) const NULL: Types = Types(1);
    pub(crate) const BOOLEAN: Types = Types(2);
    pub(crate) const INTEGER: Types = Types(4);
    pub(crate) const NUMBER: Types = Types(8);
    pub(crate) const STRING: Types = Types(16);
    pub(crate) const ARRAY: Types = Types(32);
    pub(crate) const OBJECT: Types = Types(64);

    const NAMES: [(Types, &'static str); 7] = [
        (Types::NULL, "null"),
        (Types::BOOLEAN, "boolean"),
        (Types::INTEGER, "integer"),
        (Types::NUMBER, "number"),
        (Types::STRING, "string"),
        (Types::ARRAY, "array"),
        (Types::OBJECT, "object"),
    ];

    /// The type with this JSON Schema name.
    pub(crate) fn from_name(name: &str) -> Option<Types> {
        Types::NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(t, _)| *t)
    }

    pub(crate) fn contains(self, t: Types) -> bool {
        self.0 & t.0 != 0
    }

    pub(crate) fn insert(&mut self, t: Types) {
        self.0 |= t.0;
    }

    /// The names in this set, joined for a message: `integer or null`.
    pub(crate) fn describe(self) -> String {
        let names: Vec<&str> = Types::NAMES
            .iter()
            .filter(|(t, _)| self.contains(*t))
            .map(|(_, n)| *n)
            .collect();
        names.join(" or ")
    }
}

/// `additionalProperties`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Additional {
    /// Not given: the object is closed (members must be declared).
    #[default]
    Absent,
    /// `false`: closed, as JSON Schema says.
    False,
    /// `true`: undeclared members are allowed with any value, unchecked.
    True,
    /// Undeclared members are allowed and checked against this schema.
    Schema(NodeId),
}

/// `items`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Items {
    /// Not given: items (after `prefixItems`) are checked against the empty schema.
    #[default]
    Absent,
    /// `false`: no items after `prefixItems`.
    False,
    /// `true`: items are allowed with any value, unchecked.
    True,
    /// Items (after `prefixItems`) are checked against this schema.
    Schema(NodeId),
}

/// One compiled schema object.
#[derive(Clone, Debug, Default)]
pub(crate) struct Node {
    /// JSON Pointer of this schema in the schema document.
    pub path: String,
    pub types: Option<Types>,
    pub constant: Option<OwnedValue>,
    pub enumeration: Option<Vec<OwnedValue>>,
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub exclusive_minimum: Option<f64>,
    pub exclusive_maximum: Option<f64>,
    pub multiple_of: Option<(f64, Decimal)>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<(String, Pattern)>,
    pub format: Option<Format>,
    pub prefix_items: Vec<NodeId>,
    pub items: Items,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub unique_items: bool,
    /// Whether `properties` was given (even as `{}`).
    pub has_properties: bool,
    /// Declared properties, sorted by key bytes for lookup.
    pub properties: Vec<(String, NodeId)>,
    /// Required names in canonical (UTF-16) order, the order missing ones are reported in,
    /// each with its index in the schema's `required` array.
    pub required: Vec<(String, usize)>,
    pub additional: Additional,
    /// The `$ref` as written, then its target once resolved.
    pub reference: Option<(String, Option<NodeId>)>,
    pub all_of: Vec<NodeId>,
    pub any_of: Vec<NodeId>,
    pub one_of: Vec<NodeId>,
    /// Derived: every member name declared by this node or the schemas it applies in place
    /// (`$ref`, `allOf`, `anyOf`, `oneOf`, transitively), from `properties` and from the
    /// object literals of `const`/`enum`; sorted by bytes.
    pub declared: Vec<String>,
    /// Derived: this node or one it applies in place opens objects (`additionalProperties`
    /// `true` or a schema).
    pub open: bool,
    /// Derived: this node or one it applies in place says something about array items
    /// (`items`, `prefixItems`, `const`, `enum`).
    pub handles_items: bool,
    /// Derived: this node's `const`/`enum` or a node it applies in place says something
    /// about array items, so items past `prefixItems` are not checked against the empty
    /// schema here even without `items`.
    pub items_elsewhere: bool,
    /// Derived: neither this node nor one it includes (`$ref`, `allOf`) has `type`,
    /// `properties`, `additionalProperties`, `items`, `prefixItems`, `const` or `enum`. An
    /// `anyOf`/`oneOf` alternative that is a fragment (such as `{"required": ["email"]}`)
    /// leaves closing objects to the schema around it.
    pub fragment: bool,
    /// Derived: validation can reach this node along more than one edge, so its results
    /// are memoized per value (see `compile::apply`).
    pub shared: bool,
}

impl Node {
    /// The schema of a declared property.
    pub(crate) fn property(&self, key: &str) -> Option<NodeId> {
        self.properties
            .binary_search_by(|(k, _)| k.as_str().cmp(key))
            .ok()
            .map(|i| self.properties[i].1)
    }

    /// Whether `key` is declared here or by a schema this node applies in place.
    pub(crate) fn declares(&self, key: &str) -> bool {
        self.declared
            .binary_search_by(|k| k.as_str().cmp(key))
            .is_ok()
    }

    /// Whether any keyword of this node itself is about objects, arrays or exact values.
    pub(crate) fn is_structural(&self) -> bool {
        self.types.is_some()
            || self.has_properties
            || self.additional != Additional::Absent
            || self.items != Items::Absent
            || !self.prefix_items.is_empty()
            || self.constant.is_some()
            || self.enumeration.is_some()
    }

    /// The exact values this node allows, if it has `const` or `enum`.
    pub(crate) fn literals(&self) -> impl Iterator<Item = &Value<'static>> {
        self.constant
            .iter()
            .chain(self.enumeration.iter().flatten())
    }
}
