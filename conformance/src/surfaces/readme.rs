//! Holding the READMEs' API tables (the tables whose first column is `function` or `API`) to
//! the function table: every call they list must be a row of that runtime, with the row's
//! parameter names in order (trailing optional ones may be left out), and the row of `check`
//! must say the first sentence of the table's doc of `check`.

use super::function_table::table;
use super::functions::{Function, Kind, Sig};

/// Which runtime a README documents.
#[derive(Clone, Copy)]
pub enum Runtime {
    Python,
    Node,
    Wasm,
}

fn sig(runtime: Runtime, f: &Function) -> Option<&Sig> {
    match runtime {
        Runtime::Python => f.py.as_ref(),
        Runtime::Node => f.node.as_ref(),
        Runtime::Wasm => f.wasm.as_ref(),
    }
}

/// The row a README's `name` (`check`, `new Contract`, `SigningKey.generate`) names.
fn row(runtime: Runtime, all: &[Function], name: &str) -> Option<Function> {
    let (class, name) = match name.strip_prefix("new ") {
        Some(c) => (Some(c), c),
        None => (None, name),
    };
    all.iter()
        .find(|f| {
            sig(runtime, f).is_some()
                && match (runtime, class) {
                    (_, Some(c)) => f.kind == Kind::Constructor && f.owner() == Some(c),
                    // Python makes an instance by calling its class.
                    (Runtime::Python, None) if f.kind == Kind::Constructor => {
                        f.owner() == Some(name)
                    }
                    (Runtime::Python, None) => f.name == name && f.kind != Kind::Class,
                    (_, None) => f.kind != Kind::Constructor && f.js_name() == name,
                }
        })
        .cloned()
}

/// The parameter names of a README's `(a, *, b[, c], d?, e="x")`.
fn readme_params(params: &str) -> Vec<String> {
    params
        .replace(['[', ']'], "")
        .split(',')
        .map(|p| {
            p.split(['=', '?', ':'])
                .next()
                .unwrap_or_default()
                .trim()
                .to_owned()
        })
        .filter(|p| !p.is_empty() && p != "*")
        .collect()
}

/// Where `text`, the README at `what`, and the function table disagree.
pub fn readme_problems(runtime: Runtime, what: &str, text: &str) -> Vec<String> {
    let all = table();
    let check_doc = all
        .iter()
        .find(|f| f.name == "check")
        .map(|f| f.doc)
        .unwrap_or_default();
    let first_sentence = check_doc.split_inclusive('?').next().unwrap_or(check_doc);
    let mut problems = Vec::new();
    let mut api = false;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if !line.starts_with('|') {
            api = false;
            continue;
        }
        if lines.peek().is_some_and(|l| l.starts_with("| ---")) {
            let head = line
                .trim_start_matches('|')
                .split('|')
                .next()
                .unwrap_or_default()
                .trim();
            api = matches!(head, "function" | "API");
            continue;
        }
        let Some(cell) = line
            .trim_start_matches('|')
            .split(" | ")
            .next()
            .filter(|_| api)
        else {
            continue;
        };
        for call in cell.split('`').skip(1).step_by(2) {
            let Some((name, rest)) = call.split_once('(') else {
                continue;
            };
            let params = rest.trim_end_matches(')');
            let Some(f) = row(runtime, &all, name) else {
                problems.push(format!("{what}: `{call}` is not in the function table"));
                continue;
            };
            let listed = readme_params(params);
            let wanted: Vec<_> = sig(runtime, &f)
                .map(Sig::params)
                .unwrap_or_default()
                .into_iter()
                .filter(|p| !p.ty.is_empty())
                .collect();
            let fits = listed.len() <= wanted.len()
                && listed.iter().zip(&wanted).all(|(l, w)| l == w.name)
                && wanted[listed.len()..].iter().all(|w| w.optional);
            if !fits {
                let names: Vec<_> = wanted.iter().map(|w| w.name).collect();
                problems.push(format!(
                    "{what}: `{call}` lists {listed:?}, the function table's {} takes {names:?}",
                    f.name
                ));
            }
            if f.name == "check" && !line.contains(first_sentence) {
                problems.push(format!(
                    "{what}: the row of `{call}` must say the function table's \"{first_sentence}\""
                ));
            }
        }
    }
    problems
}
