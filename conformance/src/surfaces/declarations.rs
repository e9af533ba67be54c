//! Holding the TypeScript declarations that napi-rs (`bindings-node/index.d.ts`) and
//! wasm-bindgen (`bindings-wasm/pkg/*/actionseal_wasm.d.ts`) generate from the bindings'
//! attributes to the function table: every function, constructor, method and getter they
//! declare must be a row with exactly that signature, and every row of the runtime must be
//! declared. The first paragraph of each declaration's JSDoc must be its row's doc.

use super::function_table::table;
use super::functions::{Function, Kind, Sig};
use std::collections::BTreeMap;

/// Which generated declarations.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flavor {
    /// napi-rs's `index.d.ts`.
    Node,
    /// wasm-bindgen's `.d.ts`.
    Wasm,
}

/// What a declaration file declares: `Class.member` or a function's name, its kind, its
/// parameters, its return type and the first paragraph of its JSDoc.
type Declared = BTreeMap<String, (Kind, String, String, String)>;

/// Members wasm-bindgen gives every class and module, not part of the library's surface.
const WASM_GLUE: [&str; 3] = ["free", "[Symbol.dispose]", "initSync"];

fn parse(flavor: Flavor, text: &str) -> Declared {
    let mut out = Declared::new();
    let mut class: Option<String> = None;
    let (mut doc, mut in_doc) = (Vec::<&str>::new(), false);
    for line in text.lines() {
        let trimmed = line.trim();
        if in_doc || trimmed.starts_with("/**") {
            if !in_doc {
                doc.clear();
            }
            in_doc = !trimmed.ends_with("*/");
            doc.push(trimmed);
            continue;
        }
        let first = first_paragraph(&doc);
        doc.clear();
        let line = match flavor {
            Flavor::Wasm => line.strip_suffix(';').unwrap_or(line),
            Flavor::Node => line,
        };
        let function = ["export declare function ", "export function "]
            .iter()
            .find_map(|p| line.strip_prefix(p));
        if let Some(rest) = function {
            if let Some((name, params, ret)) = split_call(rest) {
                out.insert(
                    name.into(),
                    (Kind::Function, params.into(), ret.into(), first),
                );
            }
            continue;
        }
        let opened = ["export declare class ", "export class "]
            .iter()
            .find_map(|p| line.strip_prefix(p));
        if let Some(rest) = opened {
            let name = rest.split([' ', '{']).next().unwrap_or_default();
            out.insert(
                name.into(),
                (Kind::Class, String::new(), String::new(), first),
            );
            // The error class's members are described with the shapes, not the table.
            class = match rest {
                r if r.ends_with('}') => None,
                r if r.contains("extends Error") => Some(String::new()),
                _ => Some(name.into()),
            };
            continue;
        }
        if line == "}" {
            class = None;
            continue;
        }
        let Some(owner) = class.as_deref().filter(|c| !c.is_empty()) else {
            continue;
        };
        let member = line.trim_start();
        if member.starts_with("/*") || member.starts_with('*') {
            continue;
        }
        if line.len() - member.len() != if flavor == Flavor::Node { 2 } else { 4 } {
            continue;
        }
        let (kind, rest) = if let Some(r) = member.strip_prefix("static ") {
            (Kind::Static, r)
        } else if let Some(r) = member.strip_prefix("get ") {
            (Kind::Getter, r)
        } else if let Some(r) = member.strip_prefix("readonly ") {
            let (name, ty) = r.split_once(": ").unwrap_or((r, ""));
            out.insert(
                format!("{owner}.{name}"),
                (Kind::Getter, String::new(), ty.into(), first),
            );
            continue;
        } else {
            (Kind::Method, member)
        };
        if let Some((name, params, ret)) = split_call(rest) {
            if flavor == Flavor::Wasm && WASM_GLUE.contains(&name) {
                continue;
            }
            let kind = if name == "constructor" {
                Kind::Constructor
            } else {
                kind
            };
            out.insert(
                format!("{owner}.{name}"),
                (kind, params.into(), ret.into(), first),
            );
        }
    }
    if flavor == Flavor::Wasm {
        out.remove("initSync");
    }
    out
}

/// `name(params): ret` as its three parts (`ret` empty for a constructor).
fn split_call(s: &str) -> Option<(&str, &str, &str)> {
    let open = s.find('(')?;
    let mut depth = 0;
    for (i, c) in s.char_indices().skip(open) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    let ret = s[i + 1..].strip_prefix(": ").unwrap_or("");
                    return Some((&s[..open], &s[open + 1..i], ret));
                }
            }
            _ => {}
        }
    }
    None
}

fn sig_of(flavor: Flavor, f: &Function) -> Option<&Sig> {
    match flavor {
        Flavor::Node => f.node.as_ref(),
        Flavor::Wasm => f.wasm.as_ref(),
    }
}

/// Where the declarations `text` and the function table disagree; `what` names the file.
pub fn declaration_problems(flavor: Flavor, what: &str, text: &str) -> Vec<String> {
    let mut declared = parse(flavor, text);
    let mut problems = Vec::new();
    for f in table() {
        let Some(sig) = sig_of(flavor, &f) else {
            continue;
        };
        let name = f.js_name();
        let Some((kind, params, ret, doc)) = declared.remove(&name) else {
            problems.push(format!(
                "{what}: {name} is in the function table ({}) but not declared",
                f.name
            ));
            continue;
        };
        if kind != f.kind {
            problems.push(format!(
                "{what}: {name} is declared as a {kind:?}, the table says {:?}",
                f.kind
            ));
        }
        if f.kind != Kind::Class && (params.as_str(), ret.as_str()) != (sig.params, sig.ret) {
            problems.push(format!(
                "{what}: {name}({params}): {ret} differs from the function table's ({}): {} ({})",
                sig.params, sig.ret, f.name
            ));
        }
        let want = normalise(f.doc);
        if doc != want {
            problems.push(format!(
                "{what}: the doc of {name} is\n  {doc}\nnot the function table's ({})\n  {want}",
                f.name
            ));
        }
    }
    for name in declared.keys() {
        problems.push(format!(
            "{what}: {name} is declared but not in the function table"
        ));
    }
    problems
}

/// Whitespace runs as one space.
fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first paragraph of a JSDoc comment's lines, as one line.
fn first_paragraph(lines: &[&str]) -> String {
    let doc: String = lines
        .iter()
        .map(|l| {
            l.trim_end_matches("*/")
                .trim_start_matches("/**")
                .trim_start_matches('*')
                .trim()
        })
        .map(|l| if l.is_empty() { "\n" } else { l })
        .collect::<Vec<_>>()
        .join(" ");
    doc.split('\n')
        .map(normalise)
        .find(|p| !p.is_empty())
        .unwrap_or_default()
}
