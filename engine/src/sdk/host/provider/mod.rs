//! Host-supplied providers (`robota_runtime_register_provider`): the host brings the model.
//! Each model call becomes a call id and a request document handed to the host's handler;
//! the host answers from any thread by pushing events for that id
//! ([`Runtime::push_provider_event`]) until one `done` or `error`. An abort, a closed session
//! or a timeout reaches the host as the cancel document of that id.
//!
//! One concept per file: [`caps`] (the registration's capabilities), `request` (the request
//! and cancel documents), `events` (a pushed event read), `calls` (the open calls and the
//! order of their events), `chat` (one model call: attempts, retries, timeout, cancel).

mod calls;
pub mod caps;
mod chat;
mod events;
mod request;

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

pub use calls::CallTable;

use crate::core::provider::Provider;
use crate::sdk::error::{SdkError, SdkResult};
use crate::sdk::host::cancelled::CancelReason;
use crate::sdk::runtime::Runtime;
use caps::HostCaps;

/// Receives a host provider's documents: a call (`{"v":1,"type":"call",…}`) or the
/// cancellation of one (`{"v":1,"type":"cancel","reason"}`), each with its call id. Called on a
/// library thread without a lock held; it must return quickly.
pub trait HostProviderHandler: Send + Sync {
    /// Hands `document` for `call_id` to the host.
    fn call(&self, call_id: u64, document: &str);
}

/// A registered host provider.
pub struct HostProvider {
    name: Arc<str>,
    caps: HostCaps,
    handler: Arc<dyn HostProviderHandler>,
    calls: Arc<CallTable>,
}

/// Why a bound session stops its call, read when the call is cancelled.
pub type CancelReasonFn = Arc<dyn Fn() -> CancelReason + Send + Sync>;

/// A host provider as one session (or none) uses it: its calls carry the session's id and
/// their cancellation the session's reason.
pub struct BoundHostProvider {
    host: Arc<HostProvider>,
    session_id: Option<String>,
    reason: Option<CancelReasonFn>,
}

impl HostProvider {
    /// This provider for a session (`None`: a call outside any session).
    pub fn bind(
        self: &Arc<Self>,
        session_id: Option<String>,
        reason: Option<CancelReasonFn>,
    ) -> Arc<dyn Provider> {
        Arc::new(BoundHostProvider {
            host: self.clone(),
            session_id,
            reason,
        })
    }
}

/// The host providers of a runtime by name, and their open calls.
#[derive(Default)]
pub struct HostProviders {
    by_name: RwLock<BTreeMap<String, Arc<HostProvider>>>,
    calls: Arc<CallTable>,
}

impl HostProviders {
    /// The provider registered as `name`.
    pub fn get(&self, name: &str) -> Option<Arc<HostProvider>> {
        self.read().get(name).cloned()
    }

    /// The registered names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.read().keys().cloned().collect()
    }

    /// Takes one event the host pushed for `call_id` (see [`CallTable::push`]).
    pub fn push(&self, call_id: u64, event_json: &str) -> SdkResult<()> {
        self.calls.push(call_id, event_json)
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<String, Arc<HostProvider>>> {
        self.by_name.read().unwrap_or_else(|p| p.into_inner())
    }
}

impl Runtime {
    /// Registers `handler` as provider `name` with its capabilities (`None` = `{}`). A name of
    /// a provider profile of the config or of an earlier registration is `InvalidConfig` (the
    /// old one is kept).
    pub fn register_provider(
        &self,
        name: &str,
        capabilities_json: Option<&str>,
        handler: Arc<dyn HostProviderHandler>,
    ) -> SdkResult<()> {
        if name.is_empty() {
            return Err(SdkError::config("name: a provider name must not be empty"));
        }
        let caps = HostCaps::parse(capabilities_json)?;
        let shared = self.shared();
        let registry = shared.host_providers();
        let mut by_name = registry.by_name.write().unwrap_or_else(|p| p.into_inner());
        if shared.has_profile(name) || by_name.contains_key(name) {
            return Err(SdkError::config(format!(
                "provider \"{name}\" already exists on this runtime (a provider profile or an earlier registration)"
            )));
        }
        let provider = HostProvider {
            name: Arc::from(name),
            caps,
            handler,
            calls: registry.calls.clone(),
        };
        by_name.insert(name.to_string(), Arc::new(provider));
        Ok(())
    }

    /// Takes one event the host pushed for call `call_id` (`robota_provider_push`).
    pub fn push_provider_event(&self, call_id: u64, event_json: &str) -> SdkResult<()> {
        self.shared().host_providers().push(call_id, event_json)
    }
}
