//! A contract's `sensitive` member: which places of an action hold sensitive values, each with
//! its class.

use crate::error::{Code, Error, Result};
use crate::json::pointer::{parse_pointer, push_escaped};
use crate::json::value::{OwnedValue, Value};

/// Room for every sensitive field a tool could reasonably take; a longer list is more likely a
/// mistake than a schema.
const MAX_POINTERS: usize = 64;
/// A class is a short name a retention policy refers to.
const MAX_CLASS_LEN: usize = 64;

/// One token of a sensitive pointer.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    /// An object member, or an array element by its index.
    Key(String),
    /// `*`: every element of an array.
    Each,
}

/// One sensitive pointer and its class.
#[derive(Clone, Debug)]
struct Entry {
    pointer: String,
    tokens: Vec<Token>,
    class: String,
}

/// A contract's sensitive pointers, read.
#[derive(Clone, Debug)]
pub struct Sensitive {
    entries: Vec<Entry>,
}

/// A place a sensitive pointer matched in an action: its own pointer (indices in place of
/// `*`), the value there, and the pointer's class.
pub(crate) struct Place<'v, 'a> {
    pub(crate) pointer: String,
    pub(crate) value: &'v Value<'a>,
    pub(crate) class: &'v str,
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(Code::InvalidContract, message)
}

impl Sensitive {
    /// Reads `{"<pointer>": "<class>", ...}`: one to 64 pointers into the action's arguments
    /// (RFC 6901, starting `/args/`, `*` for every element of an array), none inside another,
    /// each with a class (lowercase ASCII letters, digits and `_`, starting with a letter).
    /// Problems are [`Code::InvalidContract`] at the pointer.
    pub fn from_value(v: &Value<'_>) -> Result<Sensitive> {
        let Value::Object(o) = v else {
            return Err(invalid(
                "sensitive must be an object of pointers and their classes",
            ));
        };
        if o.is_empty() || o.len() > MAX_POINTERS {
            return Err(invalid(format!(
                "sensitive lists 1 to {MAX_POINTERS} pointers (leave it out when none is)"
            )));
        }
        let mut entries: Vec<Entry> = Vec::with_capacity(o.len());
        for (pointer, class) in o.iter() {
            let at = |e: Error| e.in_key(pointer);
            let tokens = tokens(pointer).map_err(at)?;
            let class = match class.as_str() {
                Some(c) if is_class(c) => c.to_owned(),
                _ => {
                    return Err(at(invalid(format!(
                        "a class is 1 to {MAX_CLASS_LEN} lowercase letters, digits or _, \
                         starting with a letter"
                    ))))
                }
            };
            if let Some(other) = entries.iter().find(|e| overlaps(&e.tokens, &tokens)) {
                return Err(at(invalid(format!(
                    "{pointer} and {} reach the same place: one would commit inside the other",
                    other.pointer
                ))));
            }
            entries.push(Entry {
                pointer: pointer.to_owned(),
                tokens,
                class,
            });
        }
        Ok(Sensitive { entries })
    }

    /// How many pointers there are: the least number of places an action has when each
    /// member is present and no pointer has `*`.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The pointers as written, each with its class, in the contract's (canonical) order.
    pub fn pointers(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries
            .iter()
            .map(|e| (e.pointer.as_str(), e.class.as_str()))
    }

    /// Every place in `action` a pointer matches, in the pointers' order and then the
    /// elements' order. A pointer whose member is absent (an optional argument left out)
    /// matches nothing.
    pub(crate) fn places<'v, 'a>(&'v self, action: &'v Value<'a>) -> Vec<Place<'v, 'a>> {
        let mut out = Vec::new();
        for e in &self.entries {
            walk(action, &e.tokens, &mut String::new(), &e.class, &mut out);
        }
        out
    }

    /// Calls `f` with each place [`Sensitive::places`] finds, in its order: the place's own
    /// pointer and the value there, to replace. One walk that builds no list, since a commit
    /// replaces every place of every action proposed under the contract.
    pub(crate) fn each_place_mut(
        &self,
        action: &mut OwnedValue,
        f: &mut dyn FnMut(&str, &mut OwnedValue),
    ) {
        let mut at = String::new();
        for e in &self.entries {
            if e.tokens.contains(&Token::Each) {
                walk_mut(action, &e.tokens, &mut at, f);
            } else if let Some(v) = place_mut(action, &e.tokens) {
                // A pointer without `*` names its one place as written: RFC 6901 has one
                // spelling of each token.
                f(&e.pointer, v);
            }
        }
    }

    /// The class of the sensitive pointer that matches `pointer` (a place's own pointer).
    pub fn class_of(&self, pointer: &str) -> Option<&str> {
        let tokens = parse_pointer(pointer)?;
        self.entries
            .iter()
            .find(|e| {
                e.tokens.len() == tokens.len()
                    && e.tokens.iter().zip(&tokens).all(|(t, k)| match t {
                        Token::Key(key) => key == k,
                        Token::Each => is_index(k),
                    })
            })
            .map(|e| e.class.as_str())
    }
}

fn tokens(pointer: &str) -> Result<Vec<Token>> {
    let raw = parse_pointer(pointer)
        .filter(|t| t.len() >= 2 && t[0] == "args")
        .ok_or_else(|| {
            invalid("a sensitive pointer is a JSON Pointer (RFC 6901) into /args/, below it")
        })?;
    // A token written `*` is every element: RFC 6901 has no escape for `*`, so a member
    // literally named "*" cannot be marked.
    Ok(raw
        .into_iter()
        .zip(pointer.split('/').skip(1))
        .map(|(token, written)| match written {
            "*" => Token::Each,
            _ => Token::Key(token),
        })
        .collect())
}

fn is_class(c: &str) -> bool {
    let mut chars = c.chars();
    c.len() <= MAX_CLASS_LEN
        && chars.next().is_some_and(|f| f.is_ascii_lowercase())
        && chars.all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')
}

/// An array index as RFC 6901 spells one: `0`, or digits without a leading zero.
fn is_index(token: &str) -> bool {
    !token.is_empty()
        && token.bytes().all(|b| b.is_ascii_digit())
        && (token == "0" || !token.starts_with('0'))
}

/// Whether one pointer's places can be inside (or be) the other's.
fn overlaps(a: &[Token], b: &[Token]) -> bool {
    a.iter().zip(b).all(|pair| match pair {
        (Token::Key(x), Token::Key(y)) => x == y,
        (Token::Each, Token::Key(k)) | (Token::Key(k), Token::Each) => is_index(k),
        (Token::Each, Token::Each) => true,
    })
}

fn walk<'v, 'a>(
    v: &'v Value<'a>,
    tokens: &[Token],
    at: &mut String,
    class: &'v str,
    out: &mut Vec<Place<'v, 'a>>,
) {
    let Some((first, rest)) = tokens.split_first() else {
        out.push(Place {
            pointer: at.clone(),
            value: v,
            class,
        });
        return;
    };
    let len = at.len();
    match (first, v) {
        (Token::Key(k), v) => {
            if let Some(child) = member(v, k) {
                // An index has no `~` or `/`: escaped, it is as written.
                at.push('/');
                push_escaped(at, k);
                walk(child, rest, at, class, out);
            }
        }
        (Token::Each, Value::Array(items)) => {
            for (i, child) in items.iter().enumerate() {
                at.push('/');
                at.push_str(&i.to_string());
                walk(child, rest, at, class, out);
                at.truncate(len);
            }
        }
        (Token::Each, _) => {}
    }
    at.truncate(len);
}

/// The member `k` of an object, or the element at index `k` of an array.
fn member<'v, 'a>(v: &'v Value<'a>, k: &str) -> Option<&'v Value<'a>> {
    match v {
        Value::Object(o) => o.get(k),
        Value::Array(items) if is_index(k) => k.parse::<usize>().ok().and_then(|i| items.get(i)),
        // The schema says what type a place has; a pointer that does not fit this value
        // matches nothing here.
        _ => None,
    }
}

/// The one place of a pointer without `*`, if `v` has it: [`walk_mut`]'s match without the
/// place's pointer to build.
fn place_mut<'v>(v: &'v mut OwnedValue, tokens: &[Token]) -> Option<&'v mut OwnedValue> {
    tokens.iter().try_fold(v, |v, token| match token {
        Token::Key(k) => member_mut(v, k),
        Token::Each => None,
    })
}

/// [`member`], to replace.
fn member_mut<'v>(v: &'v mut OwnedValue, k: &str) -> Option<&'v mut OwnedValue> {
    match v {
        Value::Object(o) => o.get_mut(k),
        Value::Array(items) if is_index(k) => {
            k.parse::<usize>().ok().and_then(|i| items.get_mut(i))
        }
        _ => None,
    }
}

/// [`walk`] with the values to replace: the same matches, in the same order.
fn walk_mut(
    v: &mut OwnedValue,
    tokens: &[Token],
    at: &mut String,
    f: &mut dyn FnMut(&str, &mut OwnedValue),
) {
    let Some((first, rest)) = tokens.split_first() else {
        f(at, v);
        return;
    };
    let len = at.len();
    match (first, v) {
        (Token::Key(k), v) => {
            if let Some(child) = member_mut(v, k) {
                // An index has no `~` or `/`: escaped, it is as written.
                at.push('/');
                push_escaped(at, k);
                walk_mut(child, rest, at, f);
            }
        }
        (Token::Each, Value::Array(items)) => {
            for (i, child) in items.iter_mut().enumerate() {
                at.push('/');
                at.push_str(&i.to_string());
                walk_mut(child, rest, at, f);
                at.truncate(len);
            }
        }
        (Token::Each, _) => {}
    }
    at.truncate(len);
}
