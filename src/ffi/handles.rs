//! Handle registry. A C handle is a boxed struct holding an `Arc` of the real object; every
//! live handle address is in a process-wide table, so a freed or foreign pointer is answered
//! with `ROBOTA_E_INVALID_HANDLE` without ever being dereferenced.
//!
//! One generic [`Handle`] does the work for every handle type; a C-visible type
//! ([`robota_runtime`], [`robota_session`]) only wraps it and names its object, magic and text
//! ([`HandleType`]).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex};

use super::session_obj::SessionObj;
use super::status::err;
use robota_engine::sdk::error::{ErrorCode, SdkError};
use robota_engine::sdk::runtime::Runtime;

/// The boxed part of every handle: the type's magic and the shared object.
pub(crate) struct Handle<T> {
    magic: u64,
    inner: Arc<T>,
}

/// A C-visible handle type: a wrapper of one [`Handle`].
pub(crate) trait HandleType: Sized {
    /// The object behind the handle.
    type Object;
    /// Tags the type both in the live table and in the handle itself.
    const MAGIC: u64;
    /// Names the handle in error texts ("runtime handle").
    const WHAT: &'static str;
    /// Wraps a handle.
    fn wrap(h: Handle<Self::Object>) -> Self;
    /// The wrapped handle.
    fn handle(&self) -> &Handle<Self::Object>;
    /// Unwraps the handle.
    fn into_handle(self) -> Handle<Self::Object>;
}

/// Opaque runtime handle.
#[allow(non_camel_case_types)]
pub struct robota_runtime(Handle<Runtime>);

/// Opaque session handle.
#[allow(non_camel_case_types)]
pub struct robota_session(Handle<SessionObj>);

/// Implements [`HandleType`] for a one-field wrapper of `Handle<$object>`.
macro_rules! handle_type {
    ($name:ident, $object:ty, $magic:expr, $what:expr) => {
        impl HandleType for $name {
            type Object = $object;
            const MAGIC: u64 = $magic;
            const WHAT: &'static str = $what;
            fn wrap(h: Handle<$object>) -> Self {
                $name(h)
            }
            fn handle(&self) -> &Handle<$object> {
                &self.0
            }
            fn into_handle(self) -> Handle<$object> {
                self.0
            }
        }
    };
}

// The magics read "ROBOTART" and "ROBOTASS".
handle_type!(
    robota_runtime,
    Runtime,
    0x524f_424f_5441_5254,
    "runtime handle"
);
handle_type!(
    robota_session,
    SessionObj,
    0x524f_424f_5441_5353,
    "session handle"
);

/// Hashes a handle's address: the keys are the library's own allocations, so nobody can
/// choose them to collide, and a multiply and a fold spread them well enough. Every call of the
/// ABI looks its handle up; SipHash took ~230 instructions of a lookup (a host that pumps 100
/// sessions makes ~390 lookups per session's turn: docs/dev/perf.md §36).
#[derive(Default)]
struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_usize(&mut self, address: usize) {
        self.write_u64(address as u64);
    }

    fn write_u64(&mut self, n: u64) {
        // Fibonacci hashing; the fold brings the product's high bits to the low ones the
        // table indexes by (addresses end in zero bits).
        let h = (self.0 ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 32);
    }
}

/// The live-handle table, hashed by [`AddressHasher`].
type LiveTable = HashMap<usize, u64, BuildHasherDefault<AddressHasher>>;

/// Live handle address -> the magic of its type.
static LIVE: Mutex<Option<LiveTable>> = Mutex::new(None);

fn live() -> std::sync::MutexGuard<'static, Option<LiveTable>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

fn invalid(what: &str) -> SdkError {
    err(
        ErrorCode::InvalidHandle,
        format!("{what} is not a live handle (already freed, foreign, or of another type)"),
    )
}

/// Publishes a handle of type `H` for `obj`.
pub(crate) fn publish<H: HandleType>(obj: Arc<H::Object>) -> *mut H {
    let p = Box::into_raw(Box::new(H::wrap(Handle {
        magic: H::MAGIC,
        inner: obj,
    })));
    live()
        .get_or_insert_with(LiveTable::default)
        .insert(p as usize, H::MAGIC);
    p
}

/// The object behind a live handle of type `H`.
pub(crate) fn get<H: HandleType>(p: *const H) -> Result<Arc<H::Object>, SdkError> {
    if p.is_null() {
        return Err(err(ErrorCode::NullArg, format!("{} is NULL", H::WHAT)));
    }
    let guard = live();
    if guard.as_ref().and_then(|m| m.get(&(p as usize))) != Some(&H::MAGIC) {
        return Err(invalid(H::WHAT));
    }
    // SAFETY: the address is registered as a live handle of type `H` (same magic); it is
    // removed from the table (under this same lock, still held) before it is deallocated, so
    // it points to a valid `H` made by `publish::<H>`.
    let h = unsafe { &*p }.handle();
    if h.magic != H::MAGIC {
        return Err(invalid(H::WHAT));
    }
    Ok(h.inner.clone())
}

/// Unpublishes and frees a handle of type `H`; returns its object (None if not live).
pub(crate) fn free<H: HandleType>(p: *mut H) -> Option<Arc<H::Object>> {
    if p.is_null() {
        return None;
    }
    {
        let mut guard = live();
        let m = guard.as_mut()?;
        if m.get(&(p as usize)) != Some(&H::MAGIC) {
            return None;
        }
        m.remove(&(p as usize));
        if m.is_empty() {
            // Nothing live: release the table itself (keeps leak checkers quiet at exit).
            *guard = None;
        }
    }
    // SAFETY: the pointer came from `Box::into_raw` in `publish::<H>` (its address was live
    // with `H`'s magic), and has just been removed from the table, so no other call can reach
    // it; it is freed exactly once.
    let b = unsafe { Box::from_raw(p) };
    Some(b.into_handle().inner)
}

/// Publishes a runtime handle.
pub(crate) fn new_runtime(rt: Arc<Runtime>) -> *mut robota_runtime {
    publish(rt)
}

/// Publishes a session handle.
pub(crate) fn new_session(s: Arc<SessionObj>) -> *mut robota_session {
    publish(s)
}

/// The runtime behind a handle.
pub(crate) fn runtime(p: *const robota_runtime) -> Result<Arc<Runtime>, SdkError> {
    get(p)
}

/// The session behind a handle.
pub(crate) fn session(p: *const robota_session) -> Result<Arc<SessionObj>, SdkError> {
    get(p)
}

/// Unpublishes and frees a runtime handle; returns its object (None if not live).
pub(crate) fn free_runtime(p: *mut robota_runtime) -> Option<Arc<Runtime>> {
    free(p)
}

/// Unpublishes and frees a session handle; returns its object (None if not live).
pub(crate) fn free_session(p: *mut robota_session) -> Option<Arc<SessionObj>> {
    free(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Alpha(Handle<String>);
    struct Beta(Handle<String>);

    handle_type!(Alpha, String, 1, "alpha handle");
    handle_type!(Beta, String, 2, "beta handle");

    fn refused<H: HandleType>(p: *const H) -> (ErrorCode, String) {
        let e = get(p).err().expect("refused");
        (e.code, e.message)
    }

    const NOT_LIVE: &str = "is not a live handle (already freed, foreign, or of another type)";

    #[test]
    fn null_freed_foreign_and_other_type_pointers_are_refused_without_a_dereference() {
        assert_eq!(
            refused(std::ptr::null::<Alpha>()),
            (ErrorCode::NullArg, "alpha handle is NULL".to_string())
        );
        assert!(free(std::ptr::null_mut::<Alpha>()).is_none());

        let a: *mut Alpha = publish(Arc::new("a".to_string()));
        assert_eq!(*get(a).unwrap(), "a");
        let as_beta = a.cast::<Beta>();
        assert_eq!(
            refused(as_beta),
            (ErrorCode::InvalidHandle, format!("beta handle {NOT_LIVE}"))
        );
        assert!(
            free(as_beta).is_none(),
            "a handle of another type is not freed"
        );
        assert_eq!(*get(a).unwrap(), "a", "still live");

        let foreign = Box::into_raw(Box::new(0u64));
        assert_eq!(
            refused(foreign.cast::<Alpha>()),
            (ErrorCode::InvalidHandle, format!("alpha handle {NOT_LIVE}"))
        );
        // SAFETY: `foreign` came from `Box::into_raw` just above and was never freed.
        drop(unsafe { Box::from_raw(foreign) });

        assert_eq!(*free(a).unwrap(), "a");
        assert_eq!(
            refused(a),
            (ErrorCode::InvalidHandle, format!("alpha handle {NOT_LIVE}"))
        );
        assert!(free(a).is_none(), "freed exactly once");
    }

    #[test]
    fn many_live_handles_are_told_apart_and_their_addresses_spread_over_the_table() {
        let handles: Vec<*mut Alpha> = (0..1000)
            .map(|i| publish(Arc::new(i.to_string())))
            .collect();
        for (i, &h) in handles.iter().enumerate() {
            assert_eq!(*get(h).unwrap(), i.to_string());
        }
        for h in handles {
            assert!(free(h).is_some());
        }
        // Aligned addresses (here 64 bytes apart) must not share the low bits a table
        // indexes by.
        let low_bits: std::collections::HashSet<u64> = (0..128usize)
            .map(|i| {
                let mut h = AddressHasher::default();
                h.write_usize(0x7f00_0000_0000 + i * 64);
                h.finish() & 127
            })
            .collect();
        assert!(low_bits.len() > 64, "{} of 128", low_bits.len());
    }
}
