//! The TypeScript declarations: `bindings-node/dts-header.d.ts` (napi-rs puts it at the top
//! of `index.d.ts`) and `bindings-wasm/src/types.rs` (wasm-bindgen's custom section).

use super::ledger::all_shapes;
use super::shape_types::Ty;
use super::shapes::{outcomes, shapes};
use super::{ledger, GENERATED};
use actionseal_core::{Code, Reason};

fn ts_type(ty: &Ty) -> String {
    match ty {
        Ty::Str | Ty::Identity | Ty::Digest | Ty::Disclosure => "string".into(),
        Ty::Millis | Ty::Int => "number".into(),
        Ty::Bool => "boolean".into(),
        Ty::OneOf(v) => v
            .iter()
            .map(|s| format!("'{s}'"))
            .collect::<Vec<_>>()
            .join(" | "),
        Ty::Shape(s) => (*s).into(),
        Ty::List(t) => match **t {
            Ty::Shape(_) | Ty::Str => format!("{}[]", ts_type(t)),
            _ => format!("Array<{}>", ts_type(t)),
        },
        Ty::Object => "object".into(),
        Ty::Unknown => "unknown".into(),
        Ty::ContractOrDocument => "Contract | ContractDocument | null".into(),
        Ty::Contract => "Contract | ContractDocument".into(),
        Ty::ApprovalRule => "'always' | 'never' | { when: 'always' | ApprovalCondition[], quorum?: QuorumRule, separation?: Array<'subject' | 'proposer' | 'amender'> }".into(),
        Ty::Nullable(t) => format!("{} | null", ts_type(t)),
        Ty::Map(t) => format!("{{ [key: string]: {} }}", ts_type(t)),
        Ty::Either(tys) => tys.iter().map(ts_type).collect::<Vec<_>>().join(" | "),
    }
}

/// `/** ... */` wrapped at 96 columns, indented by `indent`.
fn ts_doc(out: &mut String, doc: &str, indent: &str) {
    if doc.is_empty() {
        return;
    }
    let one = format!("{indent}/** {doc} */");
    if one.len() <= 100 && !doc.contains("\n\n") {
        out.push_str(&one);
        out.push('\n');
        return;
    }
    out.push_str(&format!("{indent}/**\n"));
    for (i, paragraph) in doc.split("\n\n").enumerate() {
        if i > 0 {
            out.push_str(&format!("{indent} *\n"));
        }
        for line in wrap(paragraph, 96 - indent.len() - 3) {
            out.push_str(&format!("{indent} * {line}\n"));
        }
    }
    out.push_str(&format!("{indent} */\n"));
}

pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// A union type of string literals, one per line, each with its meaning.
fn ts_union(out: &mut String, name: &str, doc: &str, members: &[(&str, &str)]) {
    ts_doc(out, doc, "");
    out.push_str(&format!("export type {name} =\n"));
    for (m, meaning) in members {
        ts_doc(out, meaning, "  ");
        out.push_str(&format!("  | '{m}'\n"));
    }
    out.push('\n');
}

/// The declarations of the JavaScript packages: unions and data shapes, the ledger's too for
/// the Node package.
fn ts_declarations(with_ledger: bool) -> String {
    let mut out = String::new();
    let codes: Vec<(&str, &str)> = Code::ALL
        .iter()
        .map(|c| (c.as_str(), c.meaning()))
        .collect();
    ts_union(
        &mut out,
        "ErrorCode",
        "The stable codes every function throws, with their meaning (conformance/codes.json). A code is never renamed or reused.",
        &codes,
    );
    let reasons: Vec<(&str, &str)> = Reason::ALL
        .iter()
        .map(|r| (r.as_str(), r.meaning()))
        .collect();
    ts_union(
        &mut out,
        "Reason",
        "Why a check did not permit, in the order checks report them (conformance/codes.json gives each one's outcome).",
        &reasons,
    );
    let outcomes: Vec<(&str, &str)> = outcomes().iter().map(|o| (*o, "")).collect();
    ts_union(
        &mut out,
        "Outcome",
        "What the executor does with a checked call.",
        &outcomes,
    );
    let all = if with_ledger { all_shapes() } else { shapes() };
    if with_ledger {
        for u in ledger::unions() {
            let members: Vec<(&str, &str)> = u.members.iter().map(|m| (*m, "")).collect();
            ts_union(&mut out, u.name, u.doc, &members);
        }
    }
    for s in &all {
        ts_doc(&mut out, s.doc, "");
        let extends = s.extends.map_or(String::new(), |b| format!(" extends {b}"));
        out.push_str(&format!("export interface {}{extends} {{\n", s.name));
        for f in &s.fields {
            ts_doc(&mut out, f.doc, "  ");
            let ty = match (s.name, f.name) {
                ("ActionEnvelope", "args") => "{ [key: string]: unknown }".to_owned(),
                _ => ts_type(&f.ty),
            };
            let q = if f.optional { "?" } else { "" };
            out.push_str(&format!("  {}{q}: {ty}\n", f.name));
        }
        out.push_str("}\n\n");
    }
    out
}

const ERROR_DOC: &str = "What every function throws for input it refuses. `message` is `\"<code>: <explanation>\"` followed by the location, if any; only `code`, `path` and `offset` are stable. An exception thrown by a getter or a Proxy trap of a value is passed on unchanged instead.";

/// The members of `ActionsealError`, the same in both packages and in the Python stub.
fn ts_error_members() -> String {
    [
        "  /** Stable snake_case code. */\n  code: ErrorCode\n",
        "  /** JSON Pointer (RFC 6901) to the offending value; `''` for the root. */\n  path: string\n",
        "  /** Byte offset in the UTF-8 JSON text, for errors found in JSON text; else `null`. */\n  offset: number | null\n",
    ]
    .concat()
}

/// `bindings-node/dts-header.d.ts`: napi-rs puts it at the top of `index.d.ts`.
pub(super) fn node_header() -> String {
    let mut out = format!(
        "/* auto-generated by NAPI-RS from src/ and dts-header.d.ts; do not edit */\n/* eslint-disable */\n// {GENERATED}\n\n"
    );
    out.push_str(&ts_declarations(true));
    ts_doc(&mut out, ERROR_DOC, "");
    out.push_str("export interface ActionsealError extends Error {\n");
    out.push_str(&ts_error_members());
    out.push_str("}\n");
    out
}

/// `bindings-wasm/src/types.rs`: the declarations wasm-bindgen adds to the package's
/// `.d.ts`.
pub(super) fn wasm_types() -> String {
    let mut ts = ts_declarations(false);
    // The class's first paragraph is the function table's, as for every declared class.
    let table_doc = super::function_table::table()
        .into_iter()
        .find(|f| f.name == "ActionsealError")
        .map(|f| f.doc)
        .unwrap_or_default();
    ts_doc(&mut ts, &format!("{table_doc}\n\n{ERROR_DOC}"), "");
    ts.push_str("export declare class ActionsealError extends Error {\n");
    ts.push_str(&ts_error_members());
    ts.push_str("  constructor(code: ErrorCode, message: string, path?: string, offset?: number | null)\n}\n\n");
    ts.push_str("/** Options of the JSON functions. */\nexport interface Options {\n");
    ts.push_str("  /**\n   * Number profile: `'strict'` (the default) refuses numbers whose value canonicalization\n   * would change; `'rfc8785'` rounds them as plain RFC 8785 does.\n   */\n");
    ts.push_str("  profile?: 'strict' | 'rfc8785'\n}\n\n/** A JSON text: a string, or its UTF-8 bytes. */\nexport type JsonText = string | Uint8Array\n\n");
    ts.push_str("/** What a call needs: whether an approval, and the JSON Pointer of the contract rule that decided. */\nexport interface Requirement {\n  required: boolean\n  /** `'/approval'`, `'/approval/when/<i>'` (the first matching condition) or `'/approval/when'`. */\n  rule: string\n}\n");
    format!(
        "//! The TypeScript declarations of the data this package takes and returns.\n//!\n//! {GENERATED}\n\nuse wasm_bindgen::prelude::*;\n\n#[wasm_bindgen(typescript_custom_section)]\nconst TYPES: &'static str = r#\"\n{ts}\"#;\n"
    )
}
