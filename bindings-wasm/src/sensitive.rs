//! Sensitive values (issue 29): committing an action's sensitive values (`commitAction`), the
//! salts drawn from the host's CSPRNG, and revealing them again (`revealAction`). Core reads
//! every argument and decides every code (`actionseal_core::sensitive::calls`); this file
//! walks, draws and maps.

use crate::contract::contract_of;
use crate::host::{self, Fail};
use crate::model::with;
use crate::to_js;
use actionseal_core::sensitive::{calls, SALT_BYTES};
use actionseal_core::Options;
use actionseal_js::salts;
use js_sys::{Function, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A list of salts, declared as TypeScript's `string[]` so that an optional argument of it
    /// is declared `salts?: string[] | null`, as the function table has it.
    #[wasm_bindgen(typescript_type = "string[]")]
    pub type Salts;
}

/// Fills `slots` from the host's CSPRNG, `globalThis.crypto.getRandomValues` in a browser and
/// in Node alike, through this instance's block of salts drawn ahead (`actionseal_js::salts`).
fn draw(slots: &mut [[u8; SALT_BYTES]]) -> Result<(), JsValue> {
    salts::draw(slots, |out| {
        let crypto = Reflect::get(&js_sys::global(), &JsValue::from_str("crypto"))?;
        let get: Function = Reflect::get(&crypto, &JsValue::from_str("getRandomValues"))?
            .dyn_into()
            .map_err(|_| host::internal("no crypto.getRandomValues"))?;
        let array = Uint8Array::new_with_length(out.len() as u32);
        get.call1(&crypto, &array)?;
        // A replaced getRandomValues could have detached the array's buffer.
        if array.length() as usize != out.len() {
            return Err(host::internal("random bytes"));
        }
        array.copy_to(out);
        Ok(())
    })
}

/// The action envelope for a call of `contract`'s tool with each value the contract marks sensitive committed: `{action, action_digest, disclosures}`, each disclosure salted from the host's CSPRNG (`salts`, one base64url 16-byte salt per value, only for reproducible tests).
///
/// The arguments are validated in the clear (errors under `/args`), the ids as `action`
/// checks them; then each sensitive value is replaced by `{"_sd": "sha256:<hex>"}`. Keep the
/// disclosures apart from the action: they are the values.
#[wasm_bindgen(js_name = commitAction, unchecked_return_type = "CommittedAction")]
pub fn commit_action(
    #[wasm_bindgen(unchecked_param_type = "Contract | ContractDocument")] contract: JsValue,
    #[wasm_bindgen(unchecked_param_type = "object")] args: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ActionIds")] ids: JsValue,
    salts: Option<Salts>,
) -> Result<JsValue, JsValue> {
    let contract = contract_of(&contract)?;
    let salts: JsValue = salts.map_or(JsValue::NULL, Into::into);
    // The arguments are the envelope's `args`: errors in them are under `/args`.
    let committed = host::with_value(&args, &Options::default(), |args| {
        with([&ids, &salts], |[ids, salts]| {
            Ok(calls::commit(&contract, args, ids, salts, draw))
        })
    })
    .map_err(|f| f.in_key("args"))??;
    let committed = committed?.map_err(Fail::Core)?;
    to_js::value(&committed)
}

/// The committed `action` with its sensitive values back from `disclosures`, each checked against the commitment at its place: `every` needs them all (to run the call), `given` leaves the rest committed (to show a reviewer); raises the disclosure_* codes.
///
/// `disclosure_extra`, `disclosure_mismatch`, `invalid_disclosure` and
/// `disclosure_not_canonical` are at the disclosure's index in the list; `disclosure_missing`
/// and `not_committed` at the place in the action.
#[wasm_bindgen(js_name = revealAction, unchecked_return_type = "ActionEnvelope")]
pub fn reveal_action(
    #[wasm_bindgen(unchecked_param_type = "Contract | ContractDocument")] contract: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ActionEnvelope")] action: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string[]")] disclosures: JsValue,
    #[wasm_bindgen(unchecked_param_type = "'every' | 'given'")] coverage: JsValue,
) -> Result<JsValue, JsValue> {
    let contract = contract_of(&contract)?;
    let revealed = with([&action, &disclosures, &coverage], |[a, d, c]| {
        calls::reveal(&contract, a, d, c)
    })?;
    to_js::value(&revealed)
}
