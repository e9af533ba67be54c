//! Python bindings for actionseal, built as `actionseal._actionseal` and re-exported by the
//! `actionseal` package.
//!
//! Two layers: canonical JSON and fingerprints of Python values and text, and the approval
//! model over them (contracts, actions, approvals, the permit check, budgets).
//!
//! Every rule, default and error text is core's: this crate converts Python values and text
//! to core's input, calls core, and maps the result or error back.

mod approval;
mod batch;
mod context;
mod contract;
mod convert;
mod delegation;
mod error;
mod evidence;
mod ledger;
mod ledger_evidence;
mod profile;
mod proof;
mod salts;
mod schema;
mod sensitive;
mod set;
mod text;
mod to_py;
mod webhook;

use pyo3::prelude::*;

/// RFC 8785 canonical JSON and SHA-256 fingerprints that bind approvals to exact actions.
#[pymodule]
mod _actionseal {
    use crate::contract::contract_arg;
    use crate::convert::{is_same, with_value, with_value_at, with_values};
    use crate::profile::{refuse, ProfileArg, DEFAULT};
    use crate::text::{JsonText, Utf8Error};
    use crate::{context, contract, convert, error::to_py, to_py};
    use actionseal_core::{Action, ActionIds, Approval, DecisionInput, Options, OwnedValue};
    use pyo3::prelude::*;
    use pyo3::types::{PyDict, PyString};

    #[pymodule_export]
    use crate::approval::PyApproval;
    #[pymodule_export]
    use crate::batch::{
        batch_build, batch_decide, batch_deselect, batch_verify_decision, batch_verify_item,
        breaker_step, check_batch, check_item,
    };
    #[pymodule_export]
    use crate::contract::PyContract;
    #[pymodule_export]
    use crate::delegation::{delegation_digest, sign_delegation, verify_delegation};
    #[pymodule_export]
    use crate::error::ActionsealError;
    #[pymodule_export]
    use crate::evidence::verify_evidence;
    #[pymodule_export]
    use crate::ledger::{PyLedger, PyManualClock};
    #[pymodule_export]
    use crate::proof::PySigningKey;
    #[pymodule_export]
    use crate::proof::{
        ed25519_verify, pae, passkey_challenge, public_key, verify_envelope, verify_passkey,
        verify_proof, verify_registration,
    };
    #[pymodule_export]
    use crate::schema::PySchema;
    #[pymodule_export]
    use crate::sensitive::{commit_action, reveal_action};
    #[pymodule_export]
    use crate::set::check_set;
    #[pymodule_export]
    use crate::webhook::{sign_webhook, verify_webhook};

    /// The package version.
    #[allow(non_upper_case_globals)] // a Python dunder name
    #[pymodule_export]
    const __version__: &str = env!("CARGO_PKG_VERSION");

    /// JSON text at least this long is canonicalized with the GIL released, so that other
    /// threads run meanwhile. Shorter calls keep it, because winning the GIL back beside a busy
    /// thread costs more than they last.
    const DETACH_MIN_BYTES: usize = 4096;

    /// Runs `run` on `len` bytes of JSON text, with the GIL released when that pays.
    fn on_text<T, F>(py: Python<'_>, len: usize, run: F) -> T
    where
        F: pyo3::marker::Ungil + FnOnce() -> T,
        T: pyo3::marker::Ungil,
    {
        if len >= DETACH_MIN_BYTES {
            py.detach(run)
        } else {
            run()
        }
    }

    /// The RFC 8785 canonical JSON text of a value.
    ///
    /// The RFC 8785 canonical JSON text of a Python value.
    ///
    /// ``value`` is built from dict (str keys), list, tuple, str, int, float, bool and None.
    /// Raises ActionsealError (with ``code``, ``path`` and ``offset``) for anything JSON
    /// cannot hold exactly: an unsupported type, a non-str key, a lone surrogate, NaN or
    /// infinity, an int the profile cannot keep exact, a cycle, or nesting deeper than 128.
    #[pyfunction]
    #[pyo3(signature = (value, *, profile = DEFAULT), text_signature = "(value, *, profile='strict')")]
    fn canonicalize(value: &Bound<'_, PyAny>, profile: ProfileArg) -> PyResult<String> {
        convert::canonicalize(value, &profile.options())
    }

    /// ``"sha256:<64 hex>"`` of the canonical text of a value.
    ///
    /// The fingerprint of a Python value: ``"sha256:"`` and the 64 lowercase hex digits of the
    /// SHA-256 of its canonical text. Accepts and rejects what ``canonicalize`` does.
    #[pyfunction]
    #[pyo3(signature = (value, *, profile = DEFAULT), text_signature = "(value, *, profile='strict')")]
    fn fingerprint(value: &Bound<'_, PyAny>, profile: ProfileArg) -> PyResult<String> {
        convert::fingerprint(value, &profile.options())
    }

    /// The RFC 8785 canonical form of JSON text given as str or UTF-8 bytes.
    ///
    /// The text is parsed strictly: duplicate keys, lone surrogates, a byte-order mark,
    /// non-finite numbers and (under the strict profile) numbers that would change value
    /// raise ActionsealError, whose ``offset`` is a byte offset into the UTF-8 text.
    #[pyfunction]
    #[pyo3(signature = (text, *, profile = DEFAULT), text_signature = "(text, *, profile='strict')")]
    fn canonicalize_json(
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        profile: ProfileArg,
    ) -> PyResult<String> {
        let text = JsonText::new(text)?;
        let (bytes, options) = (text.as_bytes(), profile.options());
        on_text(py, bytes.len(), || {
            actionseal_core::canonicalize_json(bytes, &options)
        })
        .map_err(|e| to_py(py, &e))
    }

    /// ``"sha256:<64 hex>"`` of the canonical form of JSON text.
    ///
    /// The fingerprint (``"sha256:<hex>"``) of the canonical form of JSON text given as str
    /// or UTF-8 bytes. Accepts and rejects what ``canonicalize_json`` does.
    #[pyfunction]
    #[pyo3(signature = (text, *, profile = DEFAULT), text_signature = "(text, *, profile='strict')")]
    fn fingerprint_json(
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        profile: ProfileArg,
    ) -> PyResult<String> {
        let text = JsonText::new(text)?;
        let (bytes, options) = (text.as_bytes(), profile.options());
        on_text(py, bytes.len(), || {
            actionseal_core::fingerprint_json(bytes, &options).map(|d| d.to_string())
        })
        .map_err(|e| to_py(py, &e))
    }

    /// Whether two fingerprints name the same digest, compared in constant time; anything that is
    /// not a well-formed fingerprint str is equal to nothing. Never raises.
    ///
    /// Each must be ``"sha256:"`` followed by 64 lowercase hex digits; a malformed one, or a
    /// value that is not a str, is never equal to anything, itself included. Never raises.
    #[pyfunction]
    fn digest_equal(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<bool> {
        match (digest_text(a)?, digest_text(b)?) {
            (Some(a), Some(b)) => Ok(actionseal_core::digest_equal(a, b)),
            _ => Ok(false),
        }
    }

    /// The text of a would-be digest; `None` for anything no digest can be (not a str, or a
    /// str with a lone surrogate).
    fn digest_text<'a>(s: &'a Bound<'_, PyAny>) -> PyResult<Option<&'a str>> {
        if !s.is_instance_of::<PyString>() {
            return Ok(None);
        }
        // SAFETY: `s` is a str that outlives the returned slice.
        match unsafe { crate::text::utf8(s.py(), s.as_ptr()) } {
            Ok(t) => Ok(Some(t)),
            Err(Utf8Error::LoneSurrogate) => Ok(None),
            Err(Utf8Error::Python(e)) => Err(e),
        }
    }

    /// Whether a call of the contract's tool with these arguments needs an approval.
    ///
    /// Whether a call of ``contract``'s tool with ``args`` needs an approval:
    /// ``{"required": bool, "rule": str}``, ``rule`` the JSON Pointer into the contract of the
    /// rule that decided (``"/approval"``, ``"/approval/when/0"``, ...).
    ///
    /// ``contract`` is a ``Contract`` or a contract document. The arguments are validated
    /// first: invalid ones raise ActionsealError, never "no approval".
    #[pyfunction]
    #[pyo3(signature = (contract, args, *, profile = None), text_signature = "(contract, args)")]
    fn requires_approval<'py>(
        contract: &Bound<'py, PyAny>,
        args: &Bound<'py, PyAny>,
        profile: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        refuse(args.py(), profile)?;
        contract::requires_approval(&contract_arg(contract)?, args)
    }

    /// The action envelope a reviewer approves, with ``tool`` and ``contract`` filled in.
    ///
    /// The action envelope for a call of ``contract``'s tool with ``args``: the dict a
    /// reviewer approves, ``{"tenant", "subject", "tool", "contract", "args", "job_id",
    /// "request_id", "policy_version"}``, with ``tool`` and ``contract`` (the contract's
    /// digest) filled in.
    ///
    /// ``contract`` is a ``Contract`` or a contract document. The five identities, all
    /// required, come from the server, never from the model. Raises ActionsealError when the
    /// arguments break the contract (their own code, the path under ``/args``) or an identity
    /// is missing, unknown, not a str, blank, padded or holds a control character
    /// (``invalid_action`` at its name).
    #[pyfunction]
    #[pyo3(
        signature = (contract, args, **ids),
        text_signature = "(contract, args, *, tenant, subject, job_id, request_id, policy_version)"
    )]
    fn action<'py>(
        contract: &Bound<'py, PyAny>,
        args: &Bound<'py, PyAny>,
        ids: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = args.py();
        refuse(py, profile_in(ids)?.as_ref())?;
        let contract = contract_arg(contract)?;
        // Core reads the keywords as data, so that it decides what an identity may be.
        let ids = keywords(py, ids)?;
        let ids = ActionIds::from_value(&ids).map_err(|e| to_py(py, &e))?;
        // Conversion errors, like core's, have paths in the envelope: under `/args`.
        let built = with_value_at(args, "args", &Options::default(), |a| {
            Action::build(&contract, a, &ids)
        })?
        .map_err(|e| to_py(py, &e))?;
        to_py::value(py, built.value())
    }

    /// The approval record of a decision about exactly this action (times in ms);
    /// ``proposed_digest``: the model's proposal, when a reviewer amended it first.
    ///
    /// The approval record of a reviewer's decision about ``action`` (an envelope from
    /// ``action``): ``{"approval_id", "decision_id", "decision", "action", "action_digest",
    /// "approver", "decided_at", "expires_at"}``. It carries the frozen action and its
    /// fingerprint, so a task resumes with exactly what was approved.
    ///
    /// Every keyword but the last four is required: ``decision`` is ``"approved"`` or
    /// ``"rejected"`` (no default: a decision is explicit), times are integer milliseconds
    /// since the epoch (``True`` is not one), ``expires_at`` after ``decided_at``.
    /// ``proposed_digest`` is the fingerprint of the action the model proposed when a
    /// reviewer amended it before deciding (``amend``'s ``proposed_digest``): the record then
    /// carries it beside ``action_digest``, from which it must differ. Under a quorum, ``role``
    /// is the role the approver decides in, and ``on_behalf_of`` with ``delegation`` (the
    /// chain's links, root first) the delegator a delegate decides for. Raises ActionsealError
    /// for a malformed action (``invalid_action``, path inside it) or decision
    /// (``invalid_approval`` at the keyword's name).
    #[pyfunction]
    #[pyo3(
        signature = (action, **decision),
        text_signature = "(action, *, approval_id, decision_id, decision, approver, decided_at, expires_at, proposed_digest=..., role=..., on_behalf_of=..., delegation=...)"
    )]
    fn approve<'py>(
        action: &Bound<'py, PyAny>,
        decision: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = action.py();
        refuse(py, profile_in(decision)?.as_ref())?;
        let decision = keywords(py, decision)?;
        let action = with_value(action, &Options::default(), Action::from_value)?
            .map_err(|e| to_py(py, &e))?;
        let approval = DecisionInput::from_value(&decision)
            .and_then(|d| Approval::decide(&action, &d))
            .map_err(|e| to_py(py, &e))?;
        to_py::value(py, approval.value())
    }

    /// A reviewer's edit of ``current`` checked as ``Ledger.amend`` checks it: the amended action,
    /// both fingerprints and the pointers that changed; raises the amend_* codes or the schema's,
    /// the path inside ``replacement``.
    ///
    /// A reviewer's edit of an action, checked as ``Ledger.amend`` will check it, without a
    /// ledger: ``current`` is the action envelope the reviewer edited (the task's action),
    /// ``replacement`` the whole envelope with new arguments, ``contract`` the task's
    /// ``Contract`` or contract document. Returns ``{"action", "action_digest",
    /// "proposed_digest", "amended_pointers"}``: the amended action and its fingerprint, the
    /// fingerprint of ``current``, and the JSON Pointers that changed (``["/args/amount_minor"]``;
    /// empty when nothing did).
    ///
    /// Only the arguments may change, within the contract. Raises ActionsealError, the path
    /// inside ``replacement``: ``amend_identity_changed`` (tenant, subject, job_id,
    /// request_id), ``amend_tool_changed``, ``amend_contract_changed`` (the action names
    /// another contract, or ``contract`` is not the one ``current`` names),
    /// ``amend_policy_changed``, the schema's own code under ``/args`` (``type_mismatch`` for
    /// ``"300"`` where an integer is expected), or ``invalid_action``; a malformed ``current``
    /// raises its own error, the path inside it. Approve the result with
    /// ``approve(result["action"], ..., proposed_digest=result["proposed_digest"])`` when the
    /// two fingerprints differ.
    #[pyfunction]
    #[pyo3(
        signature = (current, replacement, contract, *, profile = None),
        text_signature = "(current, replacement, contract)"
    )]
    fn amend<'py>(
        current: &Bound<'py, PyAny>,
        replacement: &Bound<'py, PyAny>,
        contract: &Bound<'py, PyAny>,
        profile: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = current.py();
        refuse(py, profile)?;
        let contract = contract_arg(contract)?;
        let amended = with_values(current, replacement, &Options::default(), |c, r| {
            actionseal_core::ledger::amend(c, r, &contract)
        })?
        .map_err(|e| to_py(py, &e))?;
        to_py::value(py, &amended.to_value())
    }

    /// A `profile` keyword among keyword arguments that are otherwise data.
    pub(crate) fn profile_in<'py>(
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        match kwargs {
            Some(k) => k.get_item(pyo3::intern!(k.py(), "profile")),
            None => Ok(None),
        }
    }

    /// Keyword arguments as the JSON object core reads them from (none given: `{}`, so that
    /// core names the first missing one). Owned: core borrows from it while other arguments
    /// are converted.
    pub(crate) fn keywords(
        py: Python<'_>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<OwnedValue> {
        let empty;
        let kwargs = match kwargs {
            Some(k) => k,
            None => {
                empty = PyDict::new(py);
                &empty
            }
        };
        with_value(kwargs, &Options::default(), |v| v.clone().into_owned())
    }

    /// The permit check before dispatch: is ``action`` the approved action, does the approval still
    /// hold, do the people and rules behind it stand? ``approval`` is an ``Approval`` (loaded once:
    /// fastest), an approval record, a signed envelope or a passkey-approved record (whose proof
    /// the context's ``proof`` key set must verify), or none (``None``, ``null`` or ``undefined``).
    /// Only a malformed context is an error (``invalid_context``, or the contract's own error under
    /// ``/contract``); everything wrong with the approval or the action is a reason in the verdict.
    /// The context's ``contract`` may be a ``Contract``, which is then not compiled again.
    ///
    /// ``context`` is ``{"now", "tenant", "policy_version", "contract",
    /// "approver_authorized", "subject_authorized", "revoked"}``; its ``contract`` is the
    /// tool's current ``Contract`` (loaded once: fastest), its document, or None when the
    /// server has none. Returns the verdict ``{"outcome": "permit" | "reapprove" | "reject",
    /// "reasons", "drift", "action_digest", "approved_digest", "action_error"}``: dispatch
    /// only on ``"permit"``. Everything wrong with the approval or the action is a reason;
    /// only a malformed context raises ActionsealError (``invalid_context``, or a contract
    /// document's own error under ``/contract``), as does a value that is not JSON at all
    /// (``unsupported_type``, ``non_finite_number``, ..., the path inside its argument).
    #[pyfunction]
    #[pyo3(
        signature = (approval, action, context, *, profile = None),
        text_signature = "(approval, action, context)"
    )]
    fn check<'py>(
        approval: &Bound<'py, PyAny>,
        action: &Bound<'py, PyAny>,
        context: &Bound<'py, PyAny>,
        profile: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = action.py();
        refuse(py, profile)?;
        let context = context::read(context)?;
        let options = Options::default();
        match approval.cast::<PyApproval>() {
            Ok(loaded) => {
                let PyApproval { approval, digest } = loaded.get();
                // The action an approval froze is usually the one presented: then the held
                // value is checked, and the presented one is not converted.
                let frozen = approval.action().value();
                let verdict = if is_same(action, frozen, &options) {
                    actionseal_core::check_approval(Some(approval), frozen, &context)
                } else {
                    with_value(action, &options, |ac| {
                        actionseal_core::check_approval(Some(approval), ac, &context)
                    })?
                };
                let known = (approval.action_digest(), digest.bind(py));
                to_py::verdict(py, &verdict, Some(known))
            }
            Err(_) => {
                let verdict = with_values(approval, action, &options, |ap, ac| {
                    actionseal_core::check_with(Some(ap), ac, &context)
                })?;
                to_py::verdict(py, &verdict, None)
            }
        }
    }

    /// The budget with ``cost_minor`` more spent; raises ``budget_exceeded`` past the limit.
    ///
    /// Charges ``cost_minor`` to ``budget`` (``{"limit_minor", "spent_minor"}``, integers in
    /// minor units) and returns the budget with the new spending; ``budget`` itself is not
    /// changed. Raises ActionsealError ``budget_exceeded`` when spending would pass the limit
    /// (reaching it exactly is allowed), ``invalid_budget`` for a malformed budget or a cost
    /// that is not a non-negative integer (``True``, ``"300"`` and ``2.5`` are not costs).
    #[pyfunction]
    #[pyo3(signature = (budget, cost_minor, *, profile = None), text_signature = "(budget, cost_minor)")]
    fn charge<'py>(
        budget: &Bound<'py, PyAny>,
        cost_minor: &Bound<'py, PyAny>,
        profile: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = budget.py();
        refuse(py, profile)?;
        let charged = with_values(budget, cost_minor, &Options::default(), |b, c| {
            actionseal_core::charge(b, c)
        })?
        .map_err(|e| to_py(py, &e))?;
        to_py::value(py, &charged)
    }

    /// Strictly parsed JSON text as Python values; integral numbers within ±(2^53 − 1) are int, all
    /// others float. Duplicate keys, lone surrogates and (strict) inexact numbers raise.
    ///
    /// Parses JSON text (str or UTF-8 bytes) strictly into Python values: dict, list, str,
    /// int, float, bool and None. Integral numbers within ±(2^53 − 1) become int, all others
    /// float; dict keys come in canonical order.
    ///
    /// Use it instead of ``json.loads`` for anything you will check or approve:
    /// ``json.loads`` keeps the last of duplicate keys and silently rounds, so two readers
    /// can see different actions. Raises ActionsealError, as ``canonicalize_json`` does
    /// (``duplicate_key``, ``lone_surrogate``, ``inexact_number`` under the strict profile,
    /// ...), with a byte offset into the UTF-8 text.
    #[pyfunction]
    #[pyo3(signature = (text, *, profile = DEFAULT), text_signature = "(text, *, profile='strict')")]
    fn loads<'py>(text: &Bound<'py, PyAny>, profile: ProfileArg) -> PyResult<Bound<'py, PyAny>> {
        let py = text.py();
        let text = JsonText::new(text)?;
        let (bytes, options) = (text.as_bytes(), profile.options());
        let parsed = on_text(py, bytes.len(), || actionseal_core::parse(bytes, &options));
        // The value borrows from `text`'s bytes, which `text` keeps alive and unchanged.
        to_py::value(py, &parsed.map_err(|e| to_py(py, &e))?)
    }

    /// Verifies an exported audit (JSON Lines) in any runtime, replaying every task's events;
    /// ``heads`` are the chain ends the ledger recorded (a report's ``heads``), to find events cut
    /// from the end too; ``exported`` (``Ledger.audit_heads()``, kept outside the database) finds a
    /// chain truncated or sealed again since.
    ///
    /// Verifies an audit exported by ``Ledger.audit_export`` (JSON Lines, as str or UTF-8
    /// bytes), in any runtime: ``{"valid", "events", "heads", "broken"}``, ``broken`` naming
    /// the first line, chain and seq where an event was edited, removed, reordered or is
    /// malformed, or a task's events that its history cannot have. ``heads`` (a report's
    /// ``heads``: ``[{"chain", "seq", "digest"}]``) are the chain ends the ledger recorded;
    /// with them, events cut from the end are found too. ``exported`` (a heads file from
    /// ``Ledger.audit_heads``) finds a chain truncated or sealed again since.
    #[pyfunction]
    #[pyo3(signature = (jsonl, heads = None, exported = None))]
    fn verify_audit<'py>(
        jsonl: &Bound<'py, PyAny>,
        heads: Option<&Bound<'py, PyAny>>,
        exported: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = jsonl.py();
        let text = JsonText::new(jsonl)?;
        let heads = match heads {
            Some(h) => with_value_at(h, "heads", &Options::default(), |v| {
                actionseal_core::ledger::request::heads(v)
            })?
            .map_err(|e| to_py(py, &e.in_key("heads")))?,
            None => Vec::new(),
        };
        let exported = match exported.filter(|e| !e.is_none()) {
            Some(e) => {
                with_value_at(e, "exported", &Options::default(), |v| {
                    actionseal_core::ledger::ExportedHeads::from_value(v)
                })?
                .map_err(|e| to_py(py, &e.in_key("exported")))?
                .heads
            }
            None => Vec::new(),
        };
        let bytes = text.as_bytes();
        let expected = actionseal_core::ledger::Expected {
            recorded: &heads,
            exported: &exported,
            rows: None,
            decisions: None,
            policy: None,
        };
        let report = on_text(py, bytes.len(), || {
            actionseal_core::ledger::verify_audit_with(bytes, &expected).to_value()
        });
        to_py::value(py, &report)
    }

    /// The strings and keys of the value with characters a reader could miss or misread (invisible,
    /// non-ASCII, leading or trailing spaces): one notice per string, with its pointer, how many,
    /// and the first 64 with their positions.
    ///
    /// The strings and keys of ``value`` with characters a reader could miss or misread, as
    /// core decides: a list of ``{"pointer", "within", "count", "marks"}``, one per string
    /// (``within`` is ``"key"`` for the key of the member at ``pointer``), ``count`` how many
    /// of its characters are noticed and ``marks`` the first 64 as ``{"at", "code_point",
    /// "kind"}`` (``at`` in code points, ``code_point`` such as ``"U+200B"``, ``kind`` one of
    /// ``"invisible"``: controls, zero-width and other format characters, spaces other than
    /// U+0020, ...; ``"non_ascii"``: visible, but it may look like an ASCII character, such as
    /// a Cyrillic ``о``; ``"leading_space"``, ``"trailing_space"``). What a confirmation page
    /// marks, and what a reviewer must acknowledge before an approval server signs.
    #[pyfunction]
    #[pyo3(signature = (value, *, profile = None), text_signature = "(value)")]
    fn notices<'py>(
        value: &Bound<'py, PyAny>,
        profile: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = value.py();
        refuse(py, profile)?;
        let found = with_value(value, &Options::default(), actionseal_core::notices_value)?;
        to_py::value(py, &found)
    }

    /// What a framework adapter does after one ledger step of a governed tool call, as core decides
    /// it for every runtime. The step is ``{step: "propose", task, presented}``, ``{step:
    /// "propose", tool, error}``, ``{step: "claim", outcome}``, ``{step: "claim", task, error}``,
    /// ``{step: "complete", error}``, ``{step: "invoke", tool}``, ``{step: "invoke", tool, task}``
    /// (a tool without a contract called for another tool's task), ``{step: "resume", task}``,
    /// ``{step: "route", tool, unknown: "tool" | "task" | "job"}``, ``{step: "route", tool,
    /// error}`` (an upstream schema outside core's subset), ``{step: "elicit", task, url}`` (an MCP
    /// gateway's approval request), ``{step: "ran", body: "returned" | "reported_error" |
    /// "raised"}``, ``{step: "turn", calls: [{action, contract}]}`` (a model turn's governed
    /// calls, frozen, with their contracts' documents) or ``{step: "turn", error}``
    /// (``propose_batch`` failed); a ``propose`` or ``claim`` step with a task may carry the
    /// ledger's ``batch`` of an item (``error``: the code, path and message of the error caught).
    /// It returns ``{decision: "claim" | "run" | "pause" | "refuse" | "raise" | "keep" | "approve"
    /// | "wait" | "elicit" | "record" | "turn" | "alone", ...}``; a refusal's ``message`` is the
    /// exact text the model reads. A malformed step raises ``invalid_request``.
    ///
    /// Each decision's members: ``"claim"`` (``action``, ``unit``: ``"task"`` or ``"item"``, an
    /// item of a decided batch, claimed with ``claim_item``), ``"run"`` (``claim``, ``args``,
    /// ``unit``: complete an item with ``complete_item``), ``"turn"`` (``batches``: ``[{calls,
    /// batch_id, batch_digest, semantics}]``, each to propose with ``propose_batch``), ``"alone"``
    /// (propose the batch's calls one by one), ``"pause"`` (``task_id``, ``request``, ``refusal``, ``message``), ``"refuse"`` (``code``,
    /// ``refusal``, ``message``, ``bad_args``, and ``replay``: the recorded answer to return for a
    /// finished call sent again), ``"raise"`` (raise the error caught), ``"keep"``
    /// (a late completion: keep the answer), ``"approve"`` (``args``: the amended ones or None),
    /// ``"wait"``, ``"elicit"`` (``task_id``, ``url``, ``message``: what the person reads) or
    /// ``"record"`` (``outcome``).
    #[pyfunction]
    #[pyo3(signature = (step, *, profile = None), text_signature = "(step)")]
    fn gate_step<'py>(
        step: &Bound<'py, PyAny>,
        profile: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = step.py();
        refuse(py, profile)?;
        let gate = with_value(
            step,
            &Options::default(),
            actionseal_core::ledger::gate_step,
        )?
        .map_err(|e| to_py(py, &e))?;
        to_py::value(py, &gate.to_value())
    }

    /// A framework adapter's defaults when the application names none, the same in every runtime:
    /// ``{lease_ms, executor, proposer}`` (a claim's lease in ms, who claims and completes, who
    /// proposes).
    ///
    /// ``{"lease_ms", "executor", "proposer"}``: what a framework adapter uses when the
    /// application names none (a claim's lease in ms, who claims and completes, who proposes),
    /// the same in every runtime.
    #[pyfunction]
    fn gate_defaults(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
        to_py::value(py, &actionseal_core::ledger::gate_defaults())
    }

    /// The first 64 bits of a fingerprint as four groups of four hex digits.
    ///
    /// The first 64 bits of a fingerprint as four groups of four hex digits, such as
    /// ``"f31c 54dd 3e07 a4eb"``: what a reviewer reads aloud or compares by eye with the
    /// executor's log. Machines compare the full digest (``digest_equal``). A malformed
    /// digest, or a value that is not a str, raises ActionsealError ``invalid_digest``.
    #[pyfunction]
    fn short_fingerprint(digest: &Bound<'_, PyAny>) -> PyResult<String> {
        let py = digest.py();
        let Ok(text) = digest.cast::<PyString>() else {
            let name = digest.get_type().name()?.to_string();
            let t = actionseal_core::host::HostType::Object(Some(&name));
            return Err(to_py(py, &actionseal_core::host::digest_argument(t)));
        };
        // No digest has a surrogate: core words the error either way.
        actionseal_core::short_fingerprint(&text.to_string_lossy()).map_err(|e| to_py(py, &e))
    }
}
