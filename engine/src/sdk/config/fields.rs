//! Looking up the fields of a JSON document. A session document is parsed with some forty
//! lookups, most of them of keys it does not have; the maps are hashed with SipHash, which cost
//! more than comparing the key with the handful a document usually holds. So a small map is
//! scanned, a larger one hashed.

use serde_json::{Map, Value};

/// Maps of up to this many keys are scanned.
const SCAN_MAX: usize = 12;

/// Field lookup of a JSON object.
pub trait Fields {
    /// The value of `key` (same answer as [`Map::get`]).
    fn field(&self, key: &str) -> Option<&Value>;
}

impl Fields for Map<String, Value> {
    fn field(&self, key: &str) -> Option<&Value> {
        if self.len() <= SCAN_MAX {
            self.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
        } else {
            self.get(key)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn same_answers_as_get_for_small_and_large_maps() {
        for n in [0, 1, 5, SCAN_MAX, SCAN_MAX + 1, 40] {
            let mut m = Map::new();
            for i in 0..n {
                m.insert(format!("k{i}"), json!(i));
            }
            for i in 0..n + 2 {
                let k = format!("k{i}");
                assert_eq!(m.field(&k), m.get(&k), "{n} keys, {k}");
            }
            assert_eq!(m.field(""), None);
        }
    }
}
