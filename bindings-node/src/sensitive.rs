//! Sensitive values (issue 29): committing an action's sensitive values (`commitAction`), the
//! salts drawn from the host's CSPRNG, and revealing them again (`revealAction`). Core reads
//! every argument and decides every code (`actionseal_core::sensitive::calls`); this file
//! walks, draws and maps.

use crate::contract::contract_of;
use crate::fail::Fail;
use crate::host;
use crate::js::{Js, JsResult};
use crate::run;
use crate::to_js;
use actionseal_core::sensitive::{calls, SALT_BYTES};
use actionseal_core::{Options, Value};
use actionseal_js::salts;
use napi::bindgen_prelude::{Env, Unknown};
use napi::sys::{TypedarrayType, ValueType};
use napi::{JsValue, Result};
use napi_derive::napi;

/// Fills `slots` from the host's CSPRNG, `globalThis.crypto.getRandomValues` (Node's Web
/// Crypto, the operating system's generator that `crypto.randomBytes` reads too), through this
/// thread's block of salts drawn ahead (`actionseal_js::salts`).
fn draw(js: Js, slots: &mut [[u8; SALT_BYTES]]) -> JsResult<()> {
    salts::draw(slots, |out| {
        let crypto = js.named(js.global()?, c"crypto")?;
        let get = js.named(crypto, c"getRandomValues")?;
        let len = out.len();
        let array = js.new_typed_array(TypedarrayType::uint8_array, len)?;
        js.call_on(crypto, get, &[array])?;
        let filled = js
            .typed_array(array)?
            .filter(|t| t.len == len && !t.data.is_null())
            .ok_or(Fail::Internal("random bytes"))?;
        // SAFETY: a Uint8Array of `len` elements, made above and alive for this call.
        out.copy_from_slice(unsafe { std::slice::from_raw_parts(filled.data.cast::<u8>(), len) });
        Ok(())
    })
}

/// The action envelope for a call of `contract`'s tool with each value the contract marks sensitive committed: `{action, action_digest, disclosures}`, each disclosure salted from the host's CSPRNG (`salts`, one base64url 16-byte salt per value, only for reproducible tests).
///
/// The arguments are validated in the clear (their own codes, under `/args`), the ids as
/// `action` checks them; then each sensitive value is replaced by `{"_sd": "sha256:<hex>"}`.
/// Store the disclosures apart from the action: they are the values. Under a contract without
/// sensitive pointers this is `action`'s envelope and no disclosure. `salts` given must be one
/// per sensitive value (`invalid_request` under `/salts`); never reuse one.
#[napi(
    ts_args_type = "contract: Contract | ContractDocument, args: object, ids: ActionIds, salts?: string[] | null",
    ts_return_type = "CommittedAction"
)]
pub fn commit_action(
    env: Env,
    contract: Unknown<'_>,
    args: Unknown<'_>,
    ids: Unknown<'_>,
    salts: Option<Unknown<'_>>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let contract = contract_of(js, contract.raw())?;
        let salts = match salts {
            Some(s) if js.type_of(s.raw())? != ValueType::napi_undefined => s.raw(),
            _ => js.null()?,
        };
        // The arguments are the envelope's `args`: errors in them are under `/args`.
        host::with_value(js, args.raw(), &Options::default(), |args, _| {
            let values = [ids.raw(), salts];
            host::with_values(
                js,
                values,
                &Options::default(),
                None,
                None,
                |[ids, s], _| {
                    let committed =
                        calls::commit(&contract, args, ids, s, |slots| draw(js, slots))??;
                    to_js::value(js, &committed)
                },
            )?
        })
        .map_err(|f| f.in_key("args"))?
    })
}

/// The committed `action` with its sensitive values back from `disclosures`, each checked against the commitment at its place: `every` needs them all (to run the call), `given` leaves the rest committed (to show a reviewer); raises the disclosure_* codes.
///
/// `disclosure_extra`, `disclosure_mismatch`, `invalid_disclosure` and
/// `disclosure_not_canonical` are at the disclosure's index in the list; `disclosure_missing`
/// and `not_committed` at the place in the action. An action of another contract is
/// `invalid_action` at `/contract`.
#[napi(
    ts_args_type = "contract: Contract | ContractDocument, action: ActionEnvelope, disclosures: string[], coverage: 'every' | 'given'",
    ts_return_type = "ActionEnvelope"
)]
pub fn reveal_action(
    env: Env,
    contract: Unknown<'_>,
    action: Unknown<'_>,
    disclosures: Unknown<'_>,
    coverage: Unknown<'_>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let contract = contract_of(js, contract.raw())?;
        let values = [action.raw(), disclosures.raw(), coverage.raw()];
        host::with_values(
            js,
            values,
            &Options::default(),
            None,
            None,
            |[a, d, c], _| {
                let revealed: &Value<'_> = &calls::reveal(&contract, a, d, c)?;
                to_js::value(js, revealed)
            },
        )?
    })
}
