//! `actionseal.Contract`: a tool contract loaded once (its argument schema compiled) and
//! shared, read-only, by every call and thread that uses it.

use crate::convert::with_value;
use crate::error::to_py;
use crate::profile::refuse;
use crate::to_py;
use actionseal_core::{Contract, Effect, Options, Requirement};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use std::hash::{Hash, Hasher};

/// A validated tool contract, loaded once and shared; immutable, thread-safe, picklable.
///
/// A validated tool contract: the tool, its argument schema, when a call needs approval, and
/// what a call costs.
///
/// ``Contract(document)`` loads a contract document, such as
/// ``{"tool": "refund_create", "version": "3", "effect": "write", "args": <JSON Schema>,
/// "approval": "always" | "never" | {"when": [...]}, "cost_minor": 25}``, and raises
/// ActionsealError (``invalid_contract``, ``unsupported_schema``, ``invalid_schema``, ...
/// with the path inside the document) when it is not one. Load each contract once and pass
/// the object to ``action``, ``requires_approval`` and ``check``: the schema is compiled
/// here, not on every call. Immutable; safe to share between threads; picklable. Two
/// contracts are equal when their digests are.
#[pyclass(frozen, eq, hash, module = "actionseal", name = "Contract")]
pub(crate) struct PyContract(pub(crate) Contract);

impl PartialEq for PyContract {
    fn eq(&self, other: &Self) -> bool {
        self.0.digest() == other.0.digest()
    }
}

impl Hash for PyContract {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.digest().hash(state);
    }
}

#[pymethods]
impl PyContract {
    #[new]
    #[pyo3(signature = (document, *, profile = None), text_signature = "(document)")]
    fn new(document: &Bound<'_, PyAny>, profile: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        refuse(document.py(), profile)?;
        load(document).map(PyContract)
    }

    /// The contract's fingerprint, carried by every action made under it.
    ///
    /// The contract's fingerprint (``"sha256:<64 hex>"``), which every action made under it
    /// carries in its ``contract`` field.
    #[getter]
    fn digest(&self) -> String {
        self.0.digest().to_string()
    }

    /// The tool name.
    #[getter]
    fn tool(&self) -> &str {
        self.0.tool()
    }

    /// The contract version.
    #[getter]
    fn version(&self) -> &str {
        self.0.version()
    }

    /// Whether the tool only reads or also changes something.
    #[getter]
    fn effect(&self) -> &'static str {
        match self.0.effect() {
            Effect::Read => "read",
            Effect::Write => "write",
        }
    }

    /// The cost of one call, in minor units.
    ///
    /// The cost of one call, in minor units of the budget's currency.
    #[getter]
    fn cost_minor(&self) -> i64 {
        self.0.cost_minor()
    }

    /// The contract document as loaded (a new dict on each access).
    ///
    /// The contract document as loaded: a new dict on each access, so it cannot be changed
    /// in place.
    #[getter]
    fn document<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py::value(py, self.0.document())
    }

    /// Whether a call with these arguments needs an approval; validates them first.
    ///
    /// Whether a call with these arguments needs an approval: ``{"required": bool, "rule":
    /// str}``, ``rule`` being the JSON Pointer into the contract of the rule that decided.
    /// The arguments are validated first: invalid arguments raise ActionsealError, never
    /// "no approval".
    #[pyo3(signature = (args, *, profile = None), text_signature = "(self, args)")]
    fn requires_approval<'py>(
        &self,
        args: &Bound<'py, PyAny>,
        profile: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        refuse(args.py(), profile)?;
        requires_approval(&self.0, args)
    }

    /// Raises ActionsealError with the first way the arguments break the schema.
    ///
    /// Validates call arguments against the contract's schema; raises ActionsealError with
    /// the first error (``unknown_field``, ``type_mismatch``, ...), its path a JSON Pointer
    /// into the arguments.
    #[pyo3(signature = (args, *, profile = None), text_signature = "(self, args)")]
    fn validate_args(
        &self,
        args: &Bound<'_, PyAny>,
        profile: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        refuse(args.py(), profile)?;
        let py = args.py();
        with_value(args, &Options::default(), |a| self.0.validate_args(a))?
            .map_err(|e| to_py(py, &e))
    }

    /// Raises ActionsealError unless the action is an envelope for a call of this contract.
    ///
    /// Checks that ``action`` is an envelope for a call of this contract, as a confirmation
    /// page must before it offers an Approve button: well-formed (``invalid_action``), naming
    /// this tool and this contract's digest (``invalid_action`` at ``/tool`` or
    /// ``/contract``), with arguments this contract accepts (their own codes, under
    /// ``/args``). Raises ActionsealError; returns None when the action is valid.
    #[pyo3(signature = (action, *, profile = None), text_signature = "(self, action)")]
    fn validate_action(
        &self,
        action: &Bound<'_, PyAny>,
        profile: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        refuse(action.py(), profile)?;
        let py = action.py();
        with_value(action, &Options::default(), |a| self.0.validate_action(a))?
            .map_err(|e| to_py(py, &e))
    }

    /// Whether a frozen action fits this contract, its commitments held back, and needs a person.
    ///
    /// What a reviewer's page checks of an action the ledger froze: ``validate_action``,
    /// except that a sensitive place may hold its commitment (``{"_sd": "sha256:..."}``),
    /// which stands for a value the ledger validated in the clear when the call was proposed;
    /// then ``{"required": bool, "rule": str}`` as ``requires_approval`` gives it (a rule that
    /// tests a value still committed cannot tell, and asks for a person). Raises
    /// ActionsealError as ``validate_action`` does.
    #[pyo3(signature = (action, *, profile = None), text_signature = "(self, action)")]
    fn review_action<'py>(
        &self,
        action: &Bound<'py, PyAny>,
        profile: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        refuse(action.py(), profile)?;
        let judged = with_value(action, &Options::default(), |a| self.0.review_action(a))?;
        requirement(action.py(), judged)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let py = slf.py();
        let c = &slf.get().0;
        Ok(format!(
            "<actionseal.Contract tool={} version={} digest={}>",
            PyString::new(py, c.tool()).repr()?,
            PyString::new(py, c.version()).repr()?,
            PyString::new(py, &c.digest().to_string()).repr()?,
        ))
    }

    /// Pickles as the document, which is loaded again on unpickling.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let document = to_py::value(py, slf.get().0.document())?;
        Ok((slf.get_type().into_any(), PyTuple::new(py, [document])?))
    }
}

/// Loads a contract document given as a Python value.
fn load(document: &Bound<'_, PyAny>) -> PyResult<Contract> {
    let py = document.py();
    with_value(document, &Options::default(), Contract::from_value)?.map_err(|e| to_py(py, &e))
}

/// A `contract` argument: a `Contract`, or a document to load.
pub(crate) fn contract_arg(obj: &Bound<'_, PyAny>) -> PyResult<Contract> {
    match obj.cast::<PyContract>() {
        Ok(c) => Ok(c.get().0.clone()),
        Err(_) => load(obj),
    }
}

/// `{"required", "rule"}` for a call of `contract` with `args`.
pub(crate) fn requires_approval<'py>(
    contract: &Contract,
    args: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let judged = with_value(args, &Options::default(), |a| contract.requires_approval(a))?;
    requirement(args.py(), judged)
}

/// `{"required", "rule"}` of what a contract judged, or its error raised.
fn requirement(
    py: Python<'_>,
    judged: actionseal_core::Result<Requirement>,
) -> PyResult<Bound<'_, PyAny>> {
    to_py::requirement(py, &judged.map_err(|e| to_py(py, &e))?)
}
