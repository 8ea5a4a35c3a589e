//! The body written straight to bytes equals the bytes of the `Value` tree it replaced, for
//! the streamed request and for the one asked again without streaming.

use serde_json::Value;

use super::body::RequestBody;
use super::tree;
use crate::providers::body_cases::each_case;
use crate::providers::config::ProviderKind;

#[test]
fn body_bytes_equal_the_tree_bytes() {
    for kind in [ProviderKind::OpenAi, ProviderKind::OpenAiCompatible] {
        let checked = each_case(kind, |cfg, req| {
            let mut old_tree = tree::request_body(cfg, req);
            let old = serde_json::to_vec(&old_tree).unwrap();
            let body = RequestBody::new(cfg, req);
            let new = serde_json::to_vec(&body).unwrap();
            assert_eq!(String::from_utf8_lossy(&new), String::from_utf8_lossy(&old));
            // The fallback without streaming, as the provider built it from the tree.
            let o = old_tree.as_object_mut().unwrap();
            o.insert("stream".into(), Value::Bool(false));
            o.remove("stream_options");
            let old = serde_json::to_vec(&old_tree).unwrap();
            let new = serde_json::to_vec(&body.without_streaming()).unwrap();
            assert_eq!(String::from_utf8_lossy(&new), String::from_utf8_lossy(&old));
        });
        assert!(checked > 200, "{checked}");
    }
}
