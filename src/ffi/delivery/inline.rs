//! `thread` delivery of a host I/O request on the tool thread that makes it: instead of
//! queueing the request for a callback thread and blocking until that thread ran the host's
//! callback (two thread switches per request), the tool thread takes the delivering role
//! itself when nobody holds it, hands over what is queued before the request (order kept),
//! then the request. A host that answers inside its callback so wakes nobody: the answer is
//! waiting when the tool looks for it. Only tool threads off the async workers do this (the
//! blocking file-system port, `robota_engine::sdk::host::io::caller_serves_inline`); the
//! callbacks of one session still run one at a time, in order.

use std::collections::VecDeque;
use std::sync::{Arc, MutexGuard};

use super::{robota_session, QState, Queue};
use robota_engine::sdk::events::Event;

impl Queue {
    /// Delivers `ev` (a `HOST_IO` request) after the queued events on this thread; `st` is
    /// the locked state with nobody delivering.
    pub(super) fn deliver_inline(self: &Arc<Self>, mut st: MutexGuard<'_, QState>, ev: Event) {
        st.delivering = true;
        let (reg, ptr) = (st.reg.clone(), st.session_ptr);
        if st.events.is_empty() {
            // The usual case: nothing queued, nothing to allocate.
            drop(st);
            self.deliver_gated(ev, reg.as_deref(), ptr as *mut robota_session);
            drop(reg);
        } else {
            let mut batch: VecDeque<Event> = std::mem::take(&mut st.events);
            batch.push_back(ev);
            drop(st);
            self.deliver_batch(&mut batch, reg, ptr);
        }
        let mut st = self.lock();
        st.delivering = false;
        // Events queued meanwhile go to a callback thread unless a dispatcher is on its way.
        if !st.detached && !st.events.is_empty() && !st.dispatcher_running {
            st.dispatcher_running = true;
            drop(st);
            self.start_dispatcher();
        }
    }
}
