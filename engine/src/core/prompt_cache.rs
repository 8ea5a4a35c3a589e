//! Prompt caching (`"prompt_cache"` in the session JSON): whether requests mark their stable
//! prefix for the vendor's prompt cache, and for how long Anthropic keeps what they write.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The prompt-cache setting of every model call of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub enum PromptCache {
    /// No cache hints: no Anthropic `cache_control`, no OpenAI `prompt_cache_key`.
    #[serde(rename = "off")]
    Off,
    /// Cache hints with the vendors' default lifetime (Anthropic: 5 minutes).
    #[default]
    #[serde(rename = "5m")]
    FiveMinutes,
    /// Cache hints with Anthropic's one-hour lifetime (`"ttl": "1h"`; writes cost more).
    #[serde(rename = "1h")]
    OneHour,
}

impl PromptCache {
    /// The accepted values, for error messages.
    pub const VALUES: &'static str = "\"5m\", \"1h\" or \"off\"";

    /// The setting named `s` (`5m`, `1h`, `off`).
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "5m" => Some(PromptCache::FiveMinutes),
            "1h" => Some(PromptCache::OneHour),
            "off" => Some(PromptCache::Off),
            _ => None,
        }
    }

    /// Its name in the session JSON.
    pub fn name(self) -> &'static str {
        match self {
            PromptCache::Off => "off",
            PromptCache::FiveMinutes => "5m",
            PromptCache::OneHour => "1h",
        }
    }

    /// Whether requests carry cache hints.
    pub fn is_on(self) -> bool {
        self != PromptCache::Off
    }
}

#[cfg(test)]
mod tests {
    use super::PromptCache;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for c in [
            PromptCache::Off,
            PromptCache::FiveMinutes,
            PromptCache::OneHour,
        ] {
            assert_eq!(PromptCache::from_name(c.name()), Some(c));
            assert_eq!(serde_json::to_value(c).unwrap(), c.name());
        }
        assert_eq!(PromptCache::from_name("5M"), None);
        assert_eq!(PromptCache::from_name("on"), None);
        assert_eq!(PromptCache::default(), PromptCache::FiveMinutes);
        assert!(!PromptCache::Off.is_on() && PromptCache::OneHour.is_on());
    }
}
