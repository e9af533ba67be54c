//! `Contract`: a tool contract loaded once, its argument schema compiled, for every call that
//! uses it; and how a function that takes "a `Contract` or a contract document" reads one.

use crate::host;
use crate::js::{Handle, Js, JsResult};
use crate::options;
use crate::run;
use crate::to_js;
use actionseal_core::{Contract as CoreContract, Effect, Options};
use napi::bindgen_prelude::{Env, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;

/// Whether a call needs an approval, and the JSON Pointer of the contract rule that decided.
#[napi(object)]
pub struct Requirement {
    /// Whether an approval is needed.
    pub required: bool,
    /// `'/approval'` for `"always"`/`"never"`, `'/approval/when/<i>'` for the first matching
    /// condition, `'/approval/when'` when none matched.
    pub rule: String,
}

impl From<actionseal_core::Requirement> for Requirement {
    fn from(r: actionseal_core::Requirement) -> Requirement {
        Requirement {
            required: r.required,
            rule: r.rule,
        }
    }
}

/// A validated tool contract, loaded once and shared; immutable, thread-safe, picklable.
///
/// A validated tool contract: the tool, its argument schema (compiled once, here), when a
/// call needs approval, and what a call costs.
///
/// `new Contract(document)` loads a contract document such as `{ tool: 'refund_create',
/// version: '3', effect: 'write', args: <JSON Schema>, approval: { when: [...] },
/// cost_minor: 25 }` and throws (`invalid_contract`, `unsupported_schema`, `invalid_schema`,
/// ..., with the path inside the document) when it is not one. Pass the instance to
/// `action`, `requiresApproval` and `check` (as `context.contract`) so that the schema is not
/// compiled on every call. Instances are immutable and may be shared freely.
#[napi]
pub struct Contract {
    inner: CoreContract,
}

#[napi]
impl Contract {
    /// Loads a contract document; raises ActionsealError when it is not one.
    ///
    /// Loads and validates a contract document. Takes no options: contracts are read with
    /// the strict profile only (`invalid_option` otherwise).
    #[napi(constructor, ts_args_type = "document: ContractDocument")]
    pub fn new(env: Env, document: Unknown<'_>, options: Option<Unknown<'_>>) -> Result<Contract> {
        run(&env, |js| {
            options::none(js, options.map(|o| o.raw()))?;
            Ok(Contract {
                inner: load(js, document.raw())?,
            })
        })
    }

    /// The contract's fingerprint, carried by every action made under it.
    ///
    /// The contract's fingerprint (`"sha256:<64 hex>"`), which every action made under it
    /// carries in its `contract` field.
    #[napi(getter, ts_return_type = "string")]
    pub fn digest(&self, env: Env) -> Result<Unknown<'static>> {
        run(&env, |js| to_js::text(js, &self.inner.digest().to_string()))
    }

    /// The tool name.
    #[napi(getter)]
    pub fn tool(&self) -> String {
        self.inner.tool().to_owned()
    }

    /// The contract version.
    #[napi(getter)]
    pub fn version(&self) -> String {
        self.inner.version().to_owned()
    }

    /// Whether the tool only reads or also changes something.
    #[napi(getter, ts_return_type = "'read' | 'write'")]
    pub fn effect(&self) -> &'static str {
        match self.inner.effect() {
            Effect::Read => "read",
            Effect::Write => "write",
        }
    }

    /// The cost of one call, in minor units.
    ///
    /// The cost of one call, in minor units of the budget's currency.
    #[napi(getter)]
    pub fn cost_minor(&self) -> f64 {
        // Core reads it as a safe integer (at most 2^53 - 1): exact as a double.
        self.inner.cost_minor() as f64
    }

    /// The contract document as loaded (a new dict on each access).
    ///
    /// The contract document as loaded: a fresh plain-object copy on each access.
    #[napi(getter, ts_return_type = "ContractDocument")]
    pub fn document(&self, env: Env) -> Result<Unknown<'static>> {
        run(&env, |js| to_js::value(js, self.inner.document()))
    }

    /// Whether a call with these arguments needs an approval; validates them first.
    ///
    /// Whether a call with these arguments needs an approval, and which rule of the contract
    /// decided (`/approval`, `/approval/when/<i>` or `/approval/when`). The arguments are
    /// validated first: invalid arguments throw (code and path inside the arguments), they
    /// never mean "no approval".
    #[napi(ts_args_type = "args: object")]
    pub fn requires_approval(
        &self,
        env: Env,
        args: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> Result<Requirement> {
        run(&env, |js| {
            options::none(js, options.map(|o| o.raw()))?;
            requirement(js, &self.inner, args.raw())
        })
    }

    /// Raises ActionsealError with the first way the arguments break the schema.
    ///
    /// Throws the first way the arguments break the contract's schema (code and path inside
    /// the arguments); returns nothing when they fit.
    #[napi(ts_args_type = "args: object")]
    pub fn validate_args(
        &self,
        env: Env,
        args: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> Result<()> {
        run(&env, |js| {
            options::none(js, options.map(|o| o.raw()))?;
            host::with_value(js, args.raw(), &Options::default(), |args, _| {
                self.inner.validate_args(args)
            })??;
            Ok(())
        })
    }

    /// Raises ActionsealError unless the action is an envelope for a call of this contract.
    ///
    /// Throws unless `action` is an envelope for a call of this contract (its tool, its
    /// fingerprint) with arguments it accepts: what a confirmation page checks before it
    /// offers an Approve button. `invalid_action` for the envelope, the arguments' own codes
    /// under `/args`.
    #[napi(ts_args_type = "action: object")]
    pub fn validate_action(
        &self,
        env: Env,
        action: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> Result<()> {
        run(&env, |js| {
            options::none(js, options.map(|o| o.raw()))?;
            host::with_value(js, action.raw(), &Options::default(), |action, _| {
                self.inner.validate_action(action)
            })??;
            Ok(())
        })
    }

    /// Whether a frozen action fits this contract, its commitments held back, and needs a person.
    ///
    /// What a reviewer's page checks of an action the ledger froze: `validateAction`, except
    /// that a sensitive place may hold its commitment (`{"_sd": "sha256:…"}`), which stands
    /// for a value the ledger validated in the clear when the call was proposed; then
    /// `{required, rule}` as `requiresApproval` gives it (a rule that tests a value still
    /// committed cannot tell, and asks for a person). Throws as `validateAction` does.
    #[napi(ts_args_type = "action: object")]
    pub fn review_action(
        &self,
        env: Env,
        action: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> Result<Requirement> {
        run(&env, |js| {
            options::none(js, options.map(|o| o.raw()))?;
            let r = host::with_value(js, action.raw(), &Options::default(), |action, _| {
                self.inner.review_action(action)
            })??;
            Ok(r.into())
        })
    }
}

/// Loads a contract document given as a JavaScript value.
fn load(js: Js, document: Handle) -> JsResult<CoreContract> {
    Ok(host::with_value(
        js,
        document,
        &Options::default(),
        |document, _| CoreContract::from_value(document),
    )??)
}

/// `contract.requiresApproval(args)`.
pub(crate) fn requirement(js: Js, contract: &CoreContract, args: Handle) -> JsResult<Requirement> {
    let r = host::with_value(js, args, &Options::default(), |args, _| {
        contract.requires_approval(args)
    })??;
    Ok(r.into())
}

/// A `Contract` instance's contract, or a contract document loaded (and compiled) for this
/// call.
pub(crate) fn contract_of(js: Js, value: Handle) -> JsResult<CoreContract> {
    match instance(js, value)? {
        Some(contract) => Ok(contract),
        None => load(js, value),
    }
}

/// The contract of a `Contract` instance (made by this addon in this environment); `None`
/// for anything else, including an object that only inherits from `Contract.prototype`.
pub(crate) fn instance(js: Js, value: Handle) -> JsResult<Option<CoreContract>> {
    // Cloned (an `Arc`) before any JavaScript runs.
    crate::js::unwrapped(js, value, |c: &Contract| c.inner.clone())
}

/// The contract of the object `check` found as `context.contract` (its prototype is
/// `Contract.prototype`); core's `unsupported_type` at `/contract` when it is not a real
/// instance.
pub(crate) fn lifted(js: Js, value: Handle) -> JsResult<CoreContract> {
    match instance(js, value)? {
        Some(contract) => Ok(contract),
        None => {
            let description = crate::text::describe(js, value)?;
            let t = actionseal_js::described(&description);
            Err(actionseal_core::host::not_an_instance(t, "contract").into())
        }
    }
}
