//! The JavaScript side of the walk: `js/host.js`, which reports facts about values.
//!
//! No function here throws: an exception crossing wasm frames would skip Rust's cleanup and
//! leave the shadow stack pointer moved. The functions that run user code (getters, Proxy
//! traps) or allocate in proportion to the input catch exceptions themselves, say so in their
//! result, and keep the exception for [`take_thrown`]; that is cheaper than wasm-bindgen's
//! `catch` wrapper, which matters at one call per object.

use wasm_bindgen::prelude::*;

/// Record tags of a tape other than a string's byte length (see `js/host.js`).
pub mod tag {
    /// A number; an f64 follows.
    pub const NUMBER: i32 = -1;
    /// `false`.
    pub const FALSE: i32 = -2;
    /// `true`.
    pub const TRUE: i32 = -3;
    /// `null`.
    pub const NULL: i32 = -4;
    /// Any other `typeof "object"`: the next of the call's `children`.
    pub const OBJECT: i32 = -5;
    /// `undefined`.
    pub const UNDEFINED: i32 = -6;
    /// A BigInt.
    pub const BIGINT: i32 = -7;
    /// A Symbol.
    pub const SYMBOL: i32 = -8;
    /// A function.
    pub const FUNCTION: i32 = -9;
    /// A missing array element; ends the tape.
    pub const HOLE: i32 = -10;
}

/// `shape` bits (see `js/host.js`).
pub mod shape {
    /// `Array.isArray`.
    pub const ARRAY: u32 = 1;
    /// Prototype `null`.
    pub const PROTO_NULL: u32 = 2;
    /// Prototype `Object.prototype`.
    pub const PROTO_OBJECT: u32 = 4;
    /// Prototype `Array.prototype`.
    pub const PROTO_ARRAY: u32 = 8;
    /// Another realm's `Object.prototype`.
    pub const PROTO_OTHER_OBJECT: u32 = 16;
    /// Another realm's `Array.prototype`.
    pub const PROTO_OTHER_ARRAY: u32 = 32;
    /// A callable `toJSON`.
    pub const TO_JSON: u32 = 64;
    /// An own enumerable symbol-keyed property.
    pub const SYMBOL_KEY: u32 = 128;
    /// Reading the object threw (a Proxy trap or getter).
    pub const THREW: u32 = 1 << 30;
}

#[wasm_bindgen(module = "/js/host.js")]
extern "C" {
    /// Gives the JS side this instance's memory.
    pub fn attach(memory: &JsValue);

    /// Writes the tape of one value; see [`encode_members`] for the arguments and result.
    #[wasm_bindgen(js_name = encodeValue)]
    pub fn encode_value(value: &JsValue, ptr: u32, cap: u32, slot: u32) -> JsValue;

    /// Writes the tape of an object's members to `ptr` if it fits in `cap` bytes and its
    /// length to the f64 at `slot` (-1 when a getter threw: see [`take_thrown`]); returns the
    /// objects among the values (or `null`).
    #[wasm_bindgen(js_name = encodeMembers)]
    pub fn encode_members(object: &JsValue, ptr: u32, cap: u32, slot: u32) -> JsValue;

    /// As [`encode_members`], for an array's elements.
    #[wasm_bindgen(js_name = encodeElements)]
    pub fn encode_elements(array: &JsValue, ptr: u32, cap: u32, slot: u32) -> JsValue;

    /// Copies the last tape to `ptr`, once there is room for it.
    pub fn take(ptr: u32);

    /// The `shape` bits of an object, with [`shape::THREW`] set when a trap threw.
    pub fn shape(value: &JsValue) -> u32;

    /// The exception that the last failed call caught.
    #[wasm_bindgen(js_name = takeThrown)]
    pub fn take_thrown() -> JsValue;

    /// Calls `value.__actionsealLend()`, with which a `Contract` instance hands its contract
    /// to Rust (see `contract.rs`): 1 when called, 0 when there is no such method,
    /// [`shape::THREW`] when the call threw (a freed contract; see [`take_thrown`]).
    #[wasm_bindgen(js_name = lendContract)]
    pub fn lend_contract(value: &JsValue) -> u32;

    /// A verdict object from core's strings (see `to_js::verdict`).
    pub fn verdict(pool: &str, lengths: &[u32]) -> JsValue;

    /// The name of the value's class, `""` when it has none.
    #[wasm_bindgen(js_name = className)]
    pub fn class_name(value: &JsValue) -> String;
}
