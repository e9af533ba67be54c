//! Why a walk stopped, and how that becomes the error the caller sees.
//!
//! Cycles are found lazily: the walk keeps no set of visited containers (that would cost
//! calls into JavaScript for every container of every valid value). A cyclic value nests
//! without end, so it always reaches the depth limit; only then are the containers on the
//! way down compared, and the first one that repeats an ancestor is reported as
//! `cyclic_value` at its path, the same error and path an eager check would have given.

use actionseal_core::Error;
use wasm_bindgen::JsValue;

/// A failed walk.
pub(crate) enum Fail {
    /// An error from core; its path grows while the walk unwinds.
    Core(Error),
    /// An exception from a getter or Proxy trap, rethrown unchanged.
    Thrown(JsValue),
    /// Nesting beyond the depth limit: a cycle or merely deep.
    Deep(Box<Trail>),
}

/// One step of a JSON Pointer.
enum Step {
    Key(String),
    Index(u32),
}

/// The containers from the one beyond the limit up to the root, innermost first, with the
/// step that leads into each but the root.
pub(crate) struct Trail {
    containers: Vec<JsValue>,
    steps: Vec<Step>,
}

impl Trail {
    /// A trail that starts at the container beyond the limit.
    pub(crate) fn new(container: JsValue) -> Trail {
        Trail {
            containers: vec![container],
            steps: Vec::new(),
        }
    }

    /// The core error: `cyclic_value` at the first container that repeats an ancestor,
    /// else `depth_limit_exceeded` at the container beyond the limit.
    fn resolve(mut self, max_depth: usize) -> Error {
        self.containers.reverse();
        self.steps.reverse();
        let c = &self.containers;
        // containers[j] is reached by steps[..j].
        let repeat = (1..c.len()).find(|&j| c.iter().take(j).any(|a| Some(a) == c.get(j)));
        let (error, depth) = match repeat {
            Some(j) => (Error::cyclic_value(), j),
            None => (Error::depth_limit(max_depth), self.steps.len()),
        };
        self.steps
            .get(..depth)
            .unwrap_or_default()
            .iter()
            .rev()
            .fold(error, |e, step| match step {
                Step::Key(k) => e.in_key(k),
                Step::Index(i) => e.in_index(*i as usize),
            })
    }
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        Fail::Core(e)
    }
}

impl Fail {
    /// The failure seen from the object `parent`, whose member `key` failed.
    pub(crate) fn in_key(self, key: String, parent: &JsValue) -> Fail {
        match self {
            Fail::Core(e) => Fail::Core(e.in_key(&key)),
            Fail::Deep(t) => Fail::Deep(t.through(Step::Key(key), parent)),
            thrown => thrown,
        }
    }

    /// The failure seen from the array `parent`, whose element `index` failed.
    pub(crate) fn in_index(self, index: u32, parent: &JsValue) -> Fail {
        match self {
            Fail::Core(e) => Fail::Core(e.in_index(index as usize)),
            Fail::Deep(t) => Fail::Deep(t.through(Step::Index(index), parent)),
            thrown => thrown,
        }
    }

    /// The value to throw to JavaScript; a core error's path is placed under member `key`
    /// when the caller's other errors for this value are.
    pub(crate) fn into_js(self, max_depth: usize, key: Option<&str>) -> JsValue {
        let e = match self {
            Fail::Core(e) => e,
            Fail::Deep(t) => t.resolve(max_depth),
            Fail::Thrown(v) => return v,
        };
        crate::error::to_js(&match key {
            Some(k) => e.in_key(k),
            None => e,
        })
    }
}

impl Trail {
    fn through(mut self: Box<Self>, step: Step, parent: &JsValue) -> Box<Self> {
        self.steps.push(step);
        self.containers.push(parent.clone());
        self
    }
}
