//! Thin wrappers over the raw Node-API calls the conversion makes, one call each.
//!
//! The host walk calls these a few times per value, so they go straight to `napi::sys`
//! without napi-rs's typed wrappers, and map the status to a [`Fail`].

use crate::fail::Fail;
use napi::bindgen_prelude::TypeTag;
use napi::sys;
use std::ffi::{c_char, c_void, CStr};
use std::ptr;

/// Result of a Node-API call.
pub(crate) type JsResult<T> = Result<T, Fail>;

/// A raw handle.
pub(crate) type Handle = sys::napi_value;

/// A plain Node-API callback.
pub(crate) type RawCallback =
    unsafe extern "C" fn(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value;

/// The environment of the current callback.
#[derive(Clone, Copy)]
pub(crate) struct Js(pub(crate) sys::napi_env);

/// Maps a Node-API status: a pending JavaScript exception stays pending.
fn check(status: sys::napi_status) -> JsResult<()> {
    match status {
        sys::Status::napi_ok => Ok(()),
        sys::Status::napi_pending_exception => Err(Fail::Js),
        other => Err(Fail::Napi(other)),
    }
}

/// What [`Js::utf8_into`] found.
pub(crate) enum Utf8 {
    /// Not a string.
    NotString,
    /// The string did not fit; it needs this many bytes.
    TooLong(usize),
    /// The string's UTF-8 bytes (lone surrogates replaced by U+FFFD) are in the buffer.
    Done,
}

// SAFETY (for every method): `self.0` is the environment of the callback that is running, and
// every handle passed in was obtained in that callback.
impl Js {
    /// `typeof`, as a `napi_valuetype`.
    pub(crate) fn type_of(self, v: Handle) -> JsResult<sys::napi_valuetype> {
        let mut t = 0;
        check(unsafe { sys::napi_typeof(self.0, v, &mut t) })?;
        Ok(t)
    }

    /// The global object.
    pub(crate) fn global(self) -> JsResult<Handle> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_global(self.0, &mut out) })?;
        Ok(out)
    }

    /// `null`.
    pub(crate) fn null(self) -> JsResult<Handle> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_null(self.0, &mut out) })?;
        Ok(out)
    }

    /// `undefined`.
    pub(crate) fn undefined(self) -> JsResult<Handle> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_undefined(self.0, &mut out) })?;
        Ok(out)
    }

    /// A number.
    pub(crate) fn number(self, f: f64) -> JsResult<Handle> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_create_double(self.0, f, &mut out) })?;
        Ok(out)
    }

    /// A string from UTF-8 text.
    pub(crate) fn string(self, s: &str) -> JsResult<Handle> {
        let mut out = ptr::null_mut();
        check(unsafe {
            sys::napi_create_string_utf8(
                self.0,
                s.as_ptr().cast::<c_char>(),
                s.len() as isize,
                &mut out,
            )
        })?;
        Ok(out)
    }

    /// A string from Latin-1 bytes (one byte per character).
    pub(crate) fn latin1(self, bytes: &[u8]) -> JsResult<Handle> {
        let mut out = ptr::null_mut();
        check(unsafe {
            sys::napi_create_string_latin1(
                self.0,
                bytes.as_ptr().cast::<c_char>(),
                bytes.len() as isize,
                &mut out,
            )
        })?;
        Ok(out)
    }

    /// A new array holding `items`.
    pub(crate) fn array_of(self, items: &[Handle]) -> JsResult<Handle> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_create_array_with_length(self.0, items.len(), &mut out) })?;
        for (i, &item) in items.iter().enumerate() {
            let i = u32::try_from(i).map_err(|_| Fail::Napi(sys::Status::napi_invalid_arg))?;
            check(unsafe { sys::napi_set_element(self.0, out, i, item) })?;
        }
        Ok(out)
    }

    /// A number as a `u32` (Node-API's conversion: truncated, modulo 2^32).
    pub(crate) fn uint32(self, v: Handle) -> JsResult<u32> {
        let mut out = 0u32;
        check(unsafe { sys::napi_get_value_uint32(self.0, v, &mut out) })?;
        Ok(out)
    }

    /// A new empty object.
    pub(crate) fn object(self) -> JsResult<Handle> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_create_object(self.0, &mut out) })?;
        Ok(out)
    }

    /// `arr[i]`.
    pub(crate) fn element(self, arr: Handle, i: u32) -> JsResult<Handle> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_element(self.0, arr, i, &mut out) })?;
        Ok(out)
    }

    /// `obj[name]`.
    pub(crate) fn named(self, obj: Handle, name: &CStr) -> JsResult<Handle> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_named_property(self.0, obj, name.as_ptr(), &mut out) })?;
        Ok(out)
    }

    /// A function named `name` that Node-API calls `callback` for.
    pub(crate) fn function(self, name: &CStr, callback: RawCallback) -> JsResult<Handle> {
        self.function_with(name, callback, ptr::null_mut())
    }

    /// A function named `name` that Node-API calls `callback` for, handing it `data`.
    pub(crate) fn function_with(
        self,
        name: &CStr,
        callback: RawCallback,
        data: *mut c_void,
    ) -> JsResult<Handle> {
        let mut out = ptr::null_mut();
        check(unsafe {
            sys::napi_create_function(
                self.0,
                name.as_ptr(),
                name.to_bytes().len() as isize,
                Some(callback),
                data,
                &mut out,
            )
        })?;
        Ok(out)
    }

    /// Has Node call `finalize(data)` once `v` is collected.
    pub(crate) fn finalize_with(
        self,
        v: Handle,
        data: *mut c_void,
        finalize: unsafe extern "C" fn(sys::napi_env, *mut c_void, *mut c_void),
    ) -> JsResult<()> {
        check(unsafe {
            sys::napi_add_finalizer(
                self.0,
                v,
                data,
                Some(finalize),
                ptr::null_mut(),
                ptr::null_mut(),
            )
        })
    }

    /// `obj[name] = value`.
    pub(crate) fn set_named(self, obj: Handle, name: &CStr, value: Handle) -> JsResult<()> {
        check(unsafe { sys::napi_set_named_property(self.0, obj, name.as_ptr(), value) })
    }

    /// `f.call(f, ...args)`.
    pub(crate) fn call(self, f: Handle, args: &[Handle]) -> JsResult<Handle> {
        let mut out = ptr::null_mut();
        check(unsafe {
            sys::napi_call_function(self.0, f, f, args.len(), args.as_ptr(), &mut out)
        })?;
        Ok(out)
    }

    /// `f.call(this, ...args)`: a method that needs its object, such as `getRandomValues`.
    pub(crate) fn call_on(self, this: Handle, f: Handle, args: &[Handle]) -> JsResult<Handle> {
        let mut out = ptr::null_mut();
        check(unsafe {
            sys::napi_call_function(self.0, this, f, args.len(), args.as_ptr(), &mut out)
        })?;
        Ok(out)
    }

    /// Copies a string's UTF-8 bytes into `buf`'s spare capacity, replacing its contents.
    ///
    /// V8 writes whole characters only, so when fewer than 5 bytes of the capacity stay
    /// unused the string may have been cut; it is then measured and reported as
    /// [`Utf8::TooLong`] unless it did fit.
    pub(crate) fn utf8_into(self, v: Handle, buf: &mut Vec<u8>) -> JsResult<Utf8> {
        buf.clear();
        let cap = buf.capacity();
        let mut len = 0usize;
        let status = unsafe {
            sys::napi_get_value_string_utf8(
                self.0,
                v,
                buf.as_mut_ptr().cast::<c_char>(),
                cap,
                &mut len,
            )
        };
        if status == sys::Status::napi_string_expected {
            return Ok(Utf8::NotString);
        }
        check(status)?;
        let mut full = len;
        if len + 5 > cap {
            check(unsafe {
                sys::napi_get_value_string_utf8(self.0, v, ptr::null_mut(), 0, &mut full)
            })?;
        }
        if full > len || len >= cap {
            return Ok(Utf8::TooLong(full));
        }
        // SAFETY: Node wrote `len` initialized bytes, fewer than the capacity.
        unsafe { buf.set_len(len) };
        Ok(Utf8::Done)
    }

    /// A new typed array of `len` zeros, of element type `kind` (8 bytes or fewer each).
    pub(crate) fn new_typed_array(
        self,
        kind: sys::napi_typedarray_type,
        len: usize,
    ) -> JsResult<Handle> {
        let mut data: *mut c_void = ptr::null_mut();
        let mut buffer = ptr::null_mut();
        check(unsafe { sys::napi_create_arraybuffer(self.0, len * 8, &mut data, &mut buffer) })?;
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_create_typedarray(self.0, kind, len, buffer, 0, &mut out) })?;
        Ok(out)
    }

    /// A string's length in UTF-16 code units; `None` when `v` is not a string.
    pub(crate) fn string_length(self, v: Handle) -> JsResult<Option<usize>> {
        let mut len = 0usize;
        let status =
            unsafe { sys::napi_get_value_string_utf16(self.0, v, ptr::null_mut(), 0, &mut len) };
        if status == sys::Status::napi_string_expected {
            return Ok(None);
        }
        check(status)?;
        Ok(Some(len))
    }

    /// The UTF-16 code units of a string known to be `len` units long.
    pub(crate) fn utf16_exact(self, v: Handle, len: usize) -> JsResult<Vec<u16>> {
        let mut units: Vec<u16> = Vec::with_capacity(len + 1);
        let mut copied = 0usize;
        check(unsafe {
            sys::napi_get_value_string_utf16(self.0, v, units.as_mut_ptr(), len + 1, &mut copied)
        })?;
        // SAFETY: Node wrote `copied` code units, at most the `len + 1` it was given room for.
        unsafe { units.set_len(copied.min(len)) };
        Ok(units)
    }

    /// A string's UTF-16 code units, exactly (lone surrogates included).
    pub(crate) fn utf16(self, v: Handle) -> JsResult<Vec<u16>> {
        let len = self
            .string_length(v)?
            .ok_or(Fail::Napi(sys::Status::napi_string_expected))?;
        self.utf16_exact(v, len)
    }

    /// A typed array's element type, element count, data pointer and whether its memory is
    /// a plain (not shared) `ArrayBuffer`; `None` when `v` is not a typed array.
    pub(crate) fn typed_array(self, v: Handle) -> JsResult<Option<TypedArray>> {
        let mut is = false;
        check(unsafe { sys::napi_is_typedarray(self.0, v, &mut is) })?;
        if !is {
            return Ok(None);
        }
        let mut kind = 0;
        let mut len = 0usize;
        let mut data: *mut c_void = ptr::null_mut();
        let mut buffer = ptr::null_mut();
        let mut offset = 0usize;
        check(unsafe {
            sys::napi_get_typedarray_info(
                self.0,
                v,
                &mut kind,
                &mut len,
                &mut data,
                &mut buffer,
                &mut offset,
            )
        })?;
        let mut plain = false;
        check(unsafe { sys::napi_is_arraybuffer(self.0, buffer, &mut plain) })?;
        Ok(Some(TypedArray {
            kind,
            len,
            data: data.cast_const(),
            plain,
        }))
    }

    /// The data and length of a `Float64Array` whose data is aligned for `f64` (one Node-API
    /// call; [`Js::typed_array`] makes three); `None` for anything else.
    pub(crate) fn float64_array(self, v: Handle) -> JsResult<Option<(*const f64, usize)>> {
        let mut kind = 0;
        let mut len = 0usize;
        let mut data: *mut c_void = ptr::null_mut();
        let mut buffer = ptr::null_mut();
        let mut offset = 0usize;
        let status = unsafe {
            sys::napi_get_typedarray_info(
                self.0,
                v,
                &mut kind,
                &mut len,
                &mut data,
                &mut buffer,
                &mut offset,
            )
        };
        if status == sys::Status::napi_invalid_arg {
            return Ok(None);
        }
        check(status)?;
        let data = data.cast_const().cast::<f64>();
        let fits = kind == sys::TypedarrayType::float64_array
            && !data.is_null()
            && data.align_offset(std::mem::align_of::<f64>()) == 0;
        Ok(fits.then_some((data, len)))
    }

    /// Compiles and runs a script in the current context; returns its completion value.
    pub(crate) fn run_script(self, source: &str) -> JsResult<Handle> {
        let source = self.string(source)?;
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_run_script(self.0, source, &mut out) })?;
        Ok(out)
    }

    /// A strong reference that keeps `v` alive across calls.
    pub(crate) fn reference(self, v: Handle) -> JsResult<sys::napi_ref> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_create_reference(self.0, v, 1, &mut out) })?;
        Ok(out)
    }

    /// The value a reference holds.
    pub(crate) fn deref(self, r: sys::napi_ref) -> JsResult<Handle> {
        let mut out = ptr::null_mut();
        check(unsafe { sys::napi_get_reference_value(self.0, r, &mut out) })?;
        Ok(out)
    }

    /// Releases a reference made by [`Js::reference`].
    pub(crate) fn delete_reference(self, r: sys::napi_ref) -> JsResult<()> {
        check(unsafe { sys::napi_delete_reference(self.0, r) })
    }
}

/// `f` of the Rust value that napi-rs wrapped in `value`, an instance of the class `T` made by
/// this addon; `None` for anything else, including an object that only inherits from the
/// class's prototype (napi-rs tags every instance it makes with the class's type tag).
pub(crate) fn unwrapped<T: TypeTag + 'static, R>(
    js: Js,
    value: Handle,
    f: impl FnOnce(&T) -> R,
) -> JsResult<Option<R>> {
    if js.type_of(value)? != sys::ValueType::napi_object {
        return Ok(None);
    }
    let tag = T::type_tag();
    let mut tagged = false;
    // SAFETY: `js.0` is the live environment and `value` one of its handles.
    check(unsafe { sys::napi_check_object_type_tag(js.0, value, &tag, &mut tagged) })?;
    if !tagged {
        return Ok(None);
    }
    let mut data: *mut c_void = ptr::null_mut();
    // SAFETY: as above; napi-rs wraps every object it tags as a `T` with a `Box<T>`, which
    // lives until the object is collected (it is in use here).
    let status = unsafe { sys::napi_unwrap(js.0, value, &mut data) };
    if status != sys::Status::napi_ok || data.is_null() {
        return Ok(None);
    }
    // SAFETY: see above. The classes have only `&self` methods, so no `&mut` to it can be
    // live, and `f` runs no JavaScript.
    Ok(Some(f(unsafe { &*data.cast::<T>() })))
}

/// What [`Js::typed_array`] reports.
pub(crate) struct TypedArray {
    /// `napi_typedarray_type`.
    pub(crate) kind: sys::napi_typedarray_type,
    /// Number of elements.
    pub(crate) len: usize,
    /// First element (null when empty or detached).
    pub(crate) data: *const c_void,
    /// Backed by a plain `ArrayBuffer`, not a `SharedArrayBuffer`.
    pub(crate) plain: bool,
}
