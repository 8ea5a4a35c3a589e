//! Handle registry. A C handle is a boxed struct holding an `Arc` of the real object; every
//! live handle address is in a process-wide table, so a freed or foreign pointer is answered
//! with `ROBOTA_E_INVALID_HANDLE` without ever being dereferenced.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::session_obj::SessionObj;
use super::status::err;
use crate::sdk::error::{ErrorCode, SdkError};
use crate::sdk::runtime::Runtime;

const RUNTIME_MAGIC: u64 = 0x524f_424f_5441_5254; // "ROBOTART"
const SESSION_MAGIC: u64 = 0x524f_424f_5441_5353; // "ROBOTASS"

/// Opaque runtime handle.
#[allow(non_camel_case_types)]
pub struct robota_runtime {
    magic: u64,
    inner: Arc<Runtime>,
}

/// Opaque session handle.
#[allow(non_camel_case_types)]
pub struct robota_session {
    magic: u64,
    inner: Arc<SessionObj>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Runtime,
    Session,
}

static LIVE: Mutex<Option<HashMap<usize, Kind>>> = Mutex::new(None);

fn live() -> std::sync::MutexGuard<'static, Option<HashMap<usize, Kind>>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Publishes a runtime handle.
pub(crate) fn new_runtime(rt: Arc<Runtime>) -> *mut robota_runtime {
    let p = Box::into_raw(Box::new(robota_runtime {
        magic: RUNTIME_MAGIC,
        inner: rt,
    }));
    live()
        .get_or_insert_with(HashMap::new)
        .insert(p as usize, Kind::Runtime);
    p
}

/// Publishes a session handle.
pub(crate) fn new_session(s: Arc<SessionObj>) -> *mut robota_session {
    let p = Box::into_raw(Box::new(robota_session {
        magic: SESSION_MAGIC,
        inner: s,
    }));
    live()
        .get_or_insert_with(HashMap::new)
        .insert(p as usize, Kind::Session);
    p
}

fn invalid(what: &str) -> SdkError {
    err(
        ErrorCode::InvalidHandle,
        format!("{what} is not a live handle (already freed, foreign, or of another type)"),
    )
}

/// The runtime behind a handle.
pub(crate) fn runtime(p: *const robota_runtime) -> Result<Arc<Runtime>, SdkError> {
    if p.is_null() {
        return Err(err(ErrorCode::NullArg, "runtime handle is NULL"));
    }
    let guard = live();
    if guard.as_ref().and_then(|m| m.get(&(p as usize))) != Some(&Kind::Runtime) {
        return Err(invalid("runtime handle"));
    }
    // SAFETY: the address is registered as a live runtime handle; it is removed from the table
    // (under this same lock) before it is deallocated, so it points to a valid `robota_runtime`.
    let h = unsafe { &*p };
    if h.magic != RUNTIME_MAGIC {
        return Err(invalid("runtime handle"));
    }
    Ok(h.inner.clone())
}

/// The session behind a handle.
pub(crate) fn session(p: *const robota_session) -> Result<Arc<SessionObj>, SdkError> {
    if p.is_null() {
        return Err(err(ErrorCode::NullArg, "session handle is NULL"));
    }
    let guard = live();
    if guard.as_ref().and_then(|m| m.get(&(p as usize))) != Some(&Kind::Session) {
        return Err(invalid("session handle"));
    }
    // SAFETY: registered live session handle (see `runtime`).
    let h = unsafe { &*p };
    if h.magic != SESSION_MAGIC {
        return Err(invalid("session handle"));
    }
    Ok(h.inner.clone())
}

/// Unpublishes and frees a runtime handle; returns its object (None if not live).
pub(crate) fn free_runtime(p: *mut robota_runtime) -> Option<Arc<Runtime>> {
    if p.is_null() {
        return None;
    }
    {
        let mut guard = live();
        let m = guard.as_mut()?;
        if m.get(&(p as usize)) != Some(&Kind::Runtime) {
            return None;
        }
        m.remove(&(p as usize));
        if m.is_empty() {
            // Nothing live: release the table itself (keeps leak checkers quiet at exit).
            *guard = None;
        }
    }
    // SAFETY: the pointer came from `Box::into_raw` in `new_runtime`, was live, and has just been
    // removed from the table, so no other call can reach it; it is freed exactly once.
    let b = unsafe { Box::from_raw(p) };
    Some(b.inner)
}

/// Unpublishes and frees a session handle; returns its object (None if not live).
pub(crate) fn free_session(p: *mut robota_session) -> Option<Arc<SessionObj>> {
    if p.is_null() {
        return None;
    }
    {
        let mut guard = live();
        let m = guard.as_mut()?;
        if m.get(&(p as usize)) != Some(&Kind::Session) {
            return None;
        }
        m.remove(&(p as usize));
        if m.is_empty() {
            *guard = None;
        }
    }
    // SAFETY: as in `free_runtime`, for a session handle.
    let b = unsafe { Box::from_raw(p) };
    Some(b.inner)
}
