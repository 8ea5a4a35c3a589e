//! The body written straight to bytes equals the bytes of the `Value` tree it replaced.

use super::body::RequestBody;
use super::tree;
use crate::providers::body_cases::each_case;
use crate::providers::config::ProviderKind;

#[test]
fn body_bytes_equal_the_tree_bytes() {
    let checked = each_case(ProviderKind::Anthropic, |cfg, req| {
        let old = serde_json::to_vec(&tree::request_body(cfg, req)).unwrap();
        let new = serde_json::to_vec(&RequestBody::new(cfg, req)).unwrap();
        assert_eq!(String::from_utf8_lossy(&new), String::from_utf8_lossy(&old));
    });
    assert!(checked > 200, "{checked}");
}
