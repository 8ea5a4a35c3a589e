//! The runtime of the scripted turn with one host tool, shared by `benches/ffi.rs` and
//! `benches/abi_turn.rs`: a scripted provider that calls the host tool `clock` once, then
//! answers; the tool's callback answers `"12:00"` inline and counts its calls.

use std::ffi::{c_char, c_void, CString};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicU64, Ordering};

use robota::ffi::*;
use robota::ffi::{robota_runtime, robota_session};

/// Calls of the `clock` tool so far.
pub static TOOL_CALLS: AtomicU64 = AtomicU64::new(0);

/// The runtime the tool callback answers through (one clock runtime per bench process).
static RT_FOR_TOOL: AtomicU64 = AtomicU64::new(0);

unsafe extern "C" fn tool_cb(
    _ud: *mut c_void,
    _s: *mut robota_session,
    call_id: u64,
    _name: *const c_char,
    _in: *const c_char,
    _n: usize,
) {
    TOOL_CALLS.fetch_add(1, Ordering::Relaxed);
    let rt = RT_FOR_TOOL.load(Ordering::Relaxed) as *mut robota_runtime;
    robota_tool_call_complete(rt, call_id, c"\"12:00\"".as_ptr(), 0, null_mut());
}

/// A runtime with the scripted provider `s` and the host tool `clock` registered.
pub fn clock_runtime() -> *mut robota_runtime {
    let mut rt = null_mut();
    let cfg = CString::new(
        r#"{"v":1,"providers":{"s":{"kind":"scripted","turns":[
            {"text":"Checking.","tool_calls":[{"name":"clock","arguments":{}}]},{"text":"It is noon."}]}}}"#,
    )
    .unwrap();
    assert_eq!(
        robota_runtime_new(cfg.as_ptr(), &mut rt, null_mut()),
        ROBOTA_OK
    );
    RT_FOR_TOOL.store(rt as u64, Ordering::Relaxed);
    let tool = CString::new(
        r#"{"name":"clock","description":"time","read_only":true,"input_schema":{"type":"object"}}"#,
    )
    .unwrap();
    assert_eq!(
        robota_runtime_register_tool(
            rt,
            tool.as_ptr(),
            Some(tool_cb),
            null_mut(),
            None,
            null_mut()
        ),
        ROBOTA_OK
    );
    rt
}
