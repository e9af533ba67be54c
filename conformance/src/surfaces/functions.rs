//! The function table: every public function, method, property and class of the library's
//! surface, with its parameters and return type in each runtime and its one-paragraph doc
//! (`function_table.rs` holds the rows). The Python stub's functions and classes are generated
//! from it (`python.rs`); the TypeScript declarations that napi-rs and wasm-bindgen generate
//! from the bindings' attributes are checked against it (`declarations.rs`).

/// What a row describes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// A module-level function.
    Function,
    /// A class (or the exception class).
    Class,
    /// How a class is made: Python's `__new__`, JavaScript's `constructor`.
    Constructor,
    /// A method of an instance.
    Method,
    /// A method of the class (`Ledger.task_id`, `SigningKey.generate`).
    Static,
    /// A read-only property.
    Getter,
    /// A data attribute (the module's version, the error's fields): Python only.
    Attribute,
}

/// Parameters and return type in one language, as that language writes them.
#[derive(Clone, Debug)]
pub struct Sig {
    /// The parameter list without `self`/`cls`: `"value: _Value, *, profile: _Profile = \"strict\""`.
    pub params: &'static str,
    /// The return type (`""` for a constructor).
    pub ret: &'static str,
}

/// One parameter of a [`Sig`], split at its top-level separators.
#[derive(Debug, PartialEq, Eq)]
pub struct Param<'a> {
    pub name: &'a str,
    /// `""` for Python's `*` and `/` markers.
    pub ty: &'a str,
    /// Whether it may be left out (`x?: T` in TypeScript, `x: T = d` in Python).
    pub optional: bool,
    /// Python's default value, as written.
    pub default: Option<&'a str>,
}

impl Sig {
    /// The parameters, split at commas outside brackets.
    pub fn params(&self) -> Vec<Param<'static>> {
        split_top(self.params)
            .into_iter()
            .map(|p| {
                let (head, default) = match p.split_once(" = ") {
                    Some((h, d)) => (h, Some(d)),
                    None => (p, None),
                };
                let (name, ty) = head.split_once(": ").unwrap_or((head, ""));
                let optional = default.is_some() || name.ends_with('?');
                Param {
                    name: name.trim_end_matches('?'),
                    ty,
                    optional,
                    default,
                }
            })
            .collect()
    }
}

fn split_top(s: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '[' | '(' | '{' | '<' => depth += 1,
            ']' | ')' | '}' => depth -= 1,
            '>' if !s[..i].ends_with('=') => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(s[start..].trim());
    }
    out
}

/// One row of the table.
#[derive(Clone, Debug)]
pub struct Function {
    /// The Python name, `Class.member` for a member (`Ledger.claim`, `Contract.__init__`).
    pub name: &'static str,
    pub kind: Kind,
    /// One paragraph: the Python docstring, and for `check` the doc of every runtime.
    pub doc: &'static str,
    /// The Python signature; `None` where Python has no such function.
    pub py: Option<Sig>,
    /// A Python class's base (the exception's `ValueError`); PyO3 classes have none and are
    /// final.
    pub py_base: Option<&'static str>,
    /// The Node signature (napi-rs's `index.d.ts`); `None` where Node has none.
    pub node: Option<Sig>,
    /// The wasm signature (wasm-bindgen's `.d.ts`); `None` where the wasm build has none.
    pub wasm: Option<Sig>,
}

impl Function {
    /// The class a member belongs to.
    pub fn owner(&self) -> Option<&'static str> {
        self.name.split_once('.').map(|(c, _)| c)
    }

    /// The name without its class.
    pub fn member(&self) -> &'static str {
        self.name.split_once('.').map_or(self.name, |(_, m)| m)
    }

    /// The JavaScript name: camelCase, `constructor` for Python's `__init__`.
    pub fn js_member(&self) -> String {
        match self.kind {
            Kind::Constructor => "constructor".into(),
            Kind::Class => self.name.into(),
            _ => camel(self.member()),
        }
    }

    /// The JavaScript `Class.member` or function name.
    pub fn js_name(&self) -> String {
        match (self.owner(), self.kind) {
            (Some(c), _) => format!("{c}.{}", self.js_member()),
            _ => self.js_member(),
        }
    }

    fn new(name: &'static str, kind: Kind, doc: &'static str) -> Self {
        Function {
            name,
            kind,
            doc,
            py: None,
            py_base: None,
            node: None,
            wasm: None,
        }
    }

    /// Its Python signature.
    pub fn py(mut self, params: &'static str, ret: &'static str) -> Self {
        self.py = Some(Sig { params, ret });
        self
    }

    /// Its Python base class.
    pub fn py_base(mut self, base: &'static str) -> Self {
        self.py_base = Some(base);
        self
    }

    /// Its TypeScript signature, the same in Node and wasm unless [`Function::wasm`] or
    /// [`Function::node_only`] follows.
    pub fn ts(mut self, params: &'static str, ret: &'static str) -> Self {
        self.node = Some(Sig { params, ret });
        self.wasm = self.node.clone();
        self
    }

    /// A class both JavaScript packages have.
    pub fn ts_class(self) -> Self {
        self.ts("", "")
    }

    /// Its signature in the wasm build, where it differs from Node's.
    pub fn wasm(mut self, params: &'static str, ret: &'static str) -> Self {
        self.wasm = Some(Sig { params, ret });
        self
    }

    /// Not in the wasm build (the ledger).
    pub fn node_only(mut self) -> Self {
        self.wasm = None;
        self
    }
}

/// `snake_case` as `camelCase`.
pub fn camel(s: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in s.chars() {
        match c {
            '_' if !out.is_empty() => up = true,
            c if up => {
                out.extend(c.to_uppercase());
                up = false;
            }
            c => out.push(c),
        }
    }
    out
}

pub(super) fn function(name: &'static str, doc: &'static str) -> Function {
    Function::new(name, Kind::Function, doc)
}
/// A class; every class is in Python.
pub(super) fn class(name: &'static str, doc: &'static str) -> Function {
    Function::new(name, Kind::Class, doc).py("", "")
}
pub(super) fn constructor(name: &'static str, doc: &'static str) -> Function {
    Function::new(name, Kind::Constructor, doc)
}
pub(super) fn method(name: &'static str, doc: &'static str) -> Function {
    Function::new(name, Kind::Method, doc)
}
pub(super) fn static_method(name: &'static str, doc: &'static str) -> Function {
    Function::new(name, Kind::Static, doc)
}
pub(super) fn getter(name: &'static str, doc: &'static str) -> Function {
    Function::new(name, Kind::Getter, doc)
}
pub(super) fn attribute(name: &'static str, ty: &'static str, doc: &'static str) -> Function {
    Function::new(name, Kind::Attribute, doc).py("", ty)
}

/// Rows the table must not have: a member before its class, a name twice, a row in no
/// runtime, a function or class without a doc.
pub fn table_problems(table: &[Function]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for f in table {
        if seen.contains(&f.name) {
            problems.push(format!("function table: {} twice", f.name));
        }
        if let Some(c) = f.owner() {
            if !seen.contains(&c) {
                problems.push(format!("function table: {} before its class", f.name));
            }
        }
        seen.push(f.name);
        if f.py.is_none() && f.node.is_none() && f.wasm.is_none() {
            problems.push(format!("function table: {} is in no runtime", f.name));
        }
        let dunder = f.member().starts_with("__") && f.kind != Kind::Constructor;
        if f.doc.is_empty() && !dunder && f.kind != Kind::Attribute {
            problems.push(format!("function table: {} has no doc", f.name));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_split_at_top_level_commas() {
        let s = Sig {
            params: "a: Dict[str, Any], *, b: Optional[int] = None, c?: { x: 1, y: 2 }",
            ret: "",
        };
        let p = s.params();
        assert_eq!(p.len(), 4);
        assert_eq!(
            (p[0].name, p[0].ty, p[0].optional),
            ("a", "Dict[str, Any]", false)
        );
        assert_eq!((p[1].name, p[1].ty), ("*", ""));
        assert_eq!((p[2].name, p[2].default), ("b", Some("None")));
        assert_eq!(
            (p[3].name, p[3].ty, p[3].optional),
            ("c", "{ x: 1, y: 2 }", true)
        );
    }

    #[test]
    fn names_are_camel_cased_for_javascript() {
        assert_eq!(camel("verify_envelope"), "verifyEnvelope");
        assert_eq!(camel("ed25519_verify"), "ed25519Verify");
    }
}
