//! The session JSON's `prompt_cache` key: `"5m"` (the default), `"1h"` or `"off"`.

use serde_json::{Map, Value};

use crate::core::prompt_cache::PromptCache;
use crate::sdk::config::fields::Fields;
use crate::sdk::config::read::must_be;
use crate::sdk::error::SdkResult;

/// `map["prompt_cache"]` (absent or `null`: `None`); any other value than the three names is
/// refused with a message naming the key, the accepted values and the value given.
pub fn read(what: &str, map: &Map<String, Value>) -> SdkResult<Option<PromptCache>> {
    match map.field("prompt_cache") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_str().and_then(PromptCache::from_name) {
            Some(c) => Ok(Some(c)),
            None => Err(must_be(
                what,
                "prompt_cache",
                &format!("{}, got {v}", PromptCache::VALUES),
            )),
        },
    }
}
