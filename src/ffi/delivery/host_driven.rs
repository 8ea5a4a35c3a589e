//! `pump` and `pull` delivery: the host's own thread takes the events
//! (`robota_session_dispatch`, `robota_session_next_event`).

use super::waiting::{deadline_of, wait_step, waiters};
use super::{robota_session, Queue};
use crate::ffi::callbacks::refuse_in_callback;
use crate::ffi::status::err;
use robota_engine::sdk::config::Delivery;
use robota_engine::sdk::error::{ErrorCode, SdkError};
use robota_engine::sdk::events;

impl Queue {
    /// Pump mode: delivers up to `max` events (`<= 0` = all queued) on this thread, waiting up
    /// to `timeout_ms` (`-1` = forever) for the first one. Returns how many were delivered.
    pub(crate) fn dispatch(&self, max: i32, timeout_ms: i32) -> Result<i32, SdkError> {
        if self.mode != Delivery::Pump {
            return Err(err(
                ErrorCode::Unsupported,
                format!("robota_session_dispatch needs \"delivery\": \"pump\" (this session uses \"{}\")", self.mode.as_str()),
            ));
        }
        refuse_in_callback("robota_session_dispatch")?;
        let mut st = self.lock();
        if st.dispatching {
            return Err(err(
                ErrorCode::Busy,
                "another thread is already dispatching this session",
            ));
        }
        st.dispatching = true;
        let deadline = deadline_of(timeout_ms);
        let mut count: i32 = 0;
        loop {
            if st.detached || (max > 0 && count >= max) {
                break;
            }
            if st.events.is_empty() {
                if count > 0 {
                    break;
                }
                match wait_step(&self.cond, st, deadline, waiters) {
                    (s, true) => {
                        st = s;
                        continue;
                    }
                    (s, false) => {
                        st = s;
                        break;
                    }
                }
            }
            let Some(ev) = st.events.pop_front() else {
                continue;
            };
            let reg = st.reg.clone();
            let ptr = st.session_ptr;
            drop(st);
            let delivered = self.deliver_gated(ev, reg.as_deref(), ptr as *mut robota_session);
            st = self.lock();
            if !delivered {
                break;
            }
            count += 1;
        }
        st.dispatching = false;
        Ok(count)
    }

    /// Pull mode: the next event as JSON, waiting up to `timeout_ms` (`-1` = forever).
    pub(crate) fn next_event(&self, timeout_ms: i32) -> Result<String, SdkError> {
        if self.mode != Delivery::Pull {
            return Err(err(
                ErrorCode::Unsupported,
                format!("robota_session_next_event needs \"delivery\": \"pull\" (this session uses \"{}\")", self.mode.as_str()),
            ));
        }
        if timeout_ms != 0 {
            refuse_in_callback("robota_session_next_event with a timeout")?;
        }
        let deadline = deadline_of(timeout_ms);
        let mut st = self.lock();
        loop {
            if let Some(ev) = st.events.pop_front() {
                if ev.kind == events::SESSION_CLOSED {
                    st.closed_taken = true;
                }
                drop(st);
                return Ok(ev.to_pull_text());
            }
            if st.closed_taken || st.detached {
                return Err(err(
                    ErrorCode::Closed,
                    "the session is closed; no more events",
                ));
            }
            match wait_step(&self.cond, st, deadline, waiters) {
                (s, true) => st = s,
                (_, false) => {
                    return Err(err(
                        ErrorCode::Timeout,
                        "no event arrived within the timeout",
                    ))
                }
            }
        }
    }
}
