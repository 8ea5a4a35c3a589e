//! The TLS settings every HTTP client of the process shares: built once, on the first client,
//! and cloned into each (a `rustls::ClientConfig` clone shares its certificate verifier — the
//! root store — and its session-resumption cache). Left to itself, reqwest builds both again
//! for every client, ~23 KB per client: a runtime's client and one per reactor of the threads
//! that drive their own turns (`caller_drive.rs`), so a host with a hundred such threads paid
//! them a hundred times. The settings are the ones reqwest's `rustls-tls` feature chooses: the
//! webpki root certificates, every TLS version, SNI, the process's default crypto provider (or
//! ring), no client certificate, ALPN `http/1.1` (this build speaks HTTP/1.1 only).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use crate::core::errors::RobotaError;

/// How many times this process built the settings (once; read by the tests).
static BUILT: AtomicUsize = AtomicUsize::new(0);

/// The process's TLS client settings: a clone is cheap and shares roots and session cache.
/// Fails only when the process installed a crypto provider that offers no TLS version this
/// build speaks.
pub(super) fn shared_tls_config() -> Result<rustls::ClientConfig, RobotaError> {
    static CONFIG: OnceLock<Result<rustls::ClientConfig, String>> = OnceLock::new();
    CONFIG
        .get_or_init(build)
        .clone()
        .map_err(RobotaError::Configuration)
}

fn root_store() -> rustls::RootCertStore {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    roots
}

fn build() -> Result<rustls::ClientConfig, String> {
    BUILT.fetch_add(1, Ordering::Relaxed);
    let provider = rustls::crypto::CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()));
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(rustls::ALL_VERSIONS)
        .map_err(|e| format!("cannot set up TLS: {e}"))?
        .with_root_certificates(root_store())
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn the_roots_are_the_webpki_set() {
        let roots = root_store();
        assert_eq!(roots.len(), webpki_roots::TLS_SERVER_ROOTS.len());
        assert!(roots.len() > 100, "{} roots", roots.len());
    }

    /// The server name and ALPN protocols of a client's TLS hello.
    type Hello = (Option<String>, Vec<Vec<u8>>);

    /// What a client put in its TLS hello, read by a listener that answers nothing.
    fn hello_seen_by_a_listener() -> (u16, std::thread::JoinHandle<Hello>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut acceptor = rustls::server::Acceptor::default();
            loop {
                acceptor.read_tls(&mut stream).unwrap();
                if let Some(accepted) = acceptor.accept().map_err(|(e, _)| e).unwrap() {
                    let hello = accepted.client_hello();
                    let name = hello.server_name().map(str::to_string);
                    let alpn = hello
                        .alpn()
                        .map(|list| list.map(<[u8]>::to_vec).collect())
                        .unwrap_or_default();
                    return (name, alpn);
                }
            }
        });
        (port, seen)
    }

    #[tokio::test]
    async fn every_client_shares_one_build_and_says_sni_and_http1_on_the_wire() {
        let first = crate::providers::new_http_client().unwrap();
        let second = crate::providers::new_http_client().unwrap();
        assert_eq!(BUILT.load(Ordering::Relaxed), 1, "built once per process");
        for client in [first, second] {
            let (port, seen) = hello_seen_by_a_listener();
            let err = client
                .get(format!("https://localhost:{port}/"))
                .send()
                .await
                .expect_err("the listener never finishes the handshake");
            assert!(err.is_connect() || err.is_request(), "{err:?}");
            let (name, alpn) = seen.join().unwrap();
            assert_eq!(name.as_deref(), Some("localhost"));
            assert_eq!(alpn, vec![b"http/1.1".to_vec()]);
        }
        assert_eq!(BUILT.load(Ordering::Relaxed), 1);
    }
}
