//! The queue's record of handed-over turns and the wake-ups of `robota_session_wait`.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::json;

use super::Queue;
use robota_engine::sdk::config::Delivery;
use robota_engine::sdk::error::SdkError;
use robota_engine::sdk::events::{self, Event};
use robota_engine::sdk::runtime::wake_batch::{self, Batched};
use robota_engine::sdk::runtime::Runtime;

/// How long a waiter waits before the test counts its wake-up as missing.
const LIMIT: Duration = Duration::from_secs(10);

/// A thread in `wait_delivered(turn)` on `q`, returned once it is counted asleep (synchronised
/// on that, not on time).
fn asleep_waiter(q: &Arc<Queue>, turn: u64) -> JoinHandle<Result<(), SdkError>> {
    let waiter = {
        let q = q.clone();
        std::thread::spawn(move || q.wait_delivered(turn, 0, Some(Instant::now() + LIMIT)))
    };
    while q.lock().delivery_waiters == 0 {
        std::thread::yield_now();
    }
    waiter
}

/// A `TURN_COMPLETED` that is handed over as it is pushed (`pull` delivery here; also `pump`
/// and sessions without a callback) wakes a sleeping `wait_delivered` only when the pushing
/// task reports its turn's end (`wake_batch::turn_ended`): the turn's task finishes the turn
/// after pushing it, in the same poll, and a host woken before that would find the turn
/// running and sleep a second time.
#[test]
fn a_turn_handed_over_on_push_wakes_its_waiter_at_the_turn_end() {
    let rt = Runtime::from_json(r#"{"v":1,"providers":{}}"#).unwrap();
    let q = Queue::new(Delivery::Pull, None, rt.shared().clone());
    let waiter = asleep_waiter(&q, 7);
    let pusher = q.clone();
    let deferred_in_poll = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(Batched(Box::pin(async move {
            pusher.push(Event::json(
                events::TURN_COMPLETED,
                7,
                json!({"turn_id": 7, "stop_reason": "end_turn"}),
            ));
            assert!(pusher.lock().delivered.has(7), "marked at once");
            let deferred = wake_batch::deferred();
            wake_batch::turn_ended();
            // Performed by the turn's end, within the poll (a waiter left asleep times out
            // and fails here instead of hanging the test).
            waiter.join().unwrap().unwrap();
            (deferred, wake_batch::deferred())
        })));
    assert_eq!(
        deferred_in_poll,
        (1, 0),
        "the waiter's wake-up waited for the turn's end"
    );
    // Outside a batched poll (a push from a host thread) the wake-up is immediate.
    let q2 = Queue::new(Delivery::Pull, None, rt.shared().clone());
    let waiter = asleep_waiter(&q2, 8);
    q2.push(Event::json(
        events::TURN_COMPLETED,
        8,
        json!({"turn_id": 8}),
    ));
    waiter.join().unwrap().unwrap();
}
