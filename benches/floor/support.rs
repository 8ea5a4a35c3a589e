//! The project's fake model server (`tests/support`), shared with the integration tests.

#[allow(dead_code)]
#[path = "../../tests/support/fake_cache.rs"]
pub(crate) mod fake_cache;
#[allow(dead_code)]
#[path = "../../tests/support/fake_http.rs"]
pub(crate) mod fake_http;
#[allow(dead_code)] // the tests use the rest
#[path = "../../tests/support/fake_reply.rs"]
pub(crate) mod fake_reply;
#[allow(dead_code)]
#[path = "../../tests/support/fake_server/mod.rs"]
pub(crate) mod fake_server;
#[allow(dead_code)]
#[path = "../../tests/support/fake_wire.rs"]
pub(crate) mod fake_wire;
#[allow(dead_code)]
#[path = "../../tests/support/invariants.rs"]
pub(crate) mod invariants;
