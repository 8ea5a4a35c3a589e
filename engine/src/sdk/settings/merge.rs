//! Merging settings layers, later layer wins: top-level keys are replaced,
//! except `provider` (field-wise), `permissions` (`allow` and `deny` each replaced as a whole
//! when the later layer defines it), `env` and `enabledPlugins` (key merge) and `providers`
//! (per-profile field merge). `hooks` is replaced wholesale.

use serde_json::{Map, Value};

/// Keys merged one level deep (`key → value` of the later layer wins).
const KEY_MERGED: [&str; 4] = ["provider", "permissions", "env", "enabledPlugins"];

/// Merges `upper` (a higher-priority layer) into `acc`.
pub fn merge_into(acc: &mut Map<String, Value>, upper: Map<String, Value>) {
    for (key, value) in upper {
        match (acc.get_mut(&key), value) {
            (Some(Value::Object(lower)), Value::Object(up))
                if KEY_MERGED.contains(&key.as_str()) =>
            {
                lower.extend(up);
            }
            (Some(Value::Object(lower)), Value::Object(up)) if key == "providers" => {
                for (name, profile) in up {
                    match (lower.get_mut(&name), profile) {
                        (Some(Value::Object(lp)), Value::Object(up)) => lp.extend(up),
                        (_, p) => {
                            lower.insert(name, p);
                        }
                    }
                }
            }
            (_, v) => {
                acc.insert(key, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn merge_rules_per_key() {
        let mut acc = obj(json!({
            "language": "en",
            "permissions": {"allow": ["Read(*)"], "deny": ["Bash(rm *)"]},
            "env": {"A": "1", "B": "2"},
            "providers": {"x": {"type": "anthropic", "model": "m1"}},
            "provider": {"name": "anthropic", "model": "m0"},
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": []}]},
        }));
        merge_into(
            &mut acc,
            obj(json!({
                "language": "ko",
                "permissions": {"allow": ["Glob(*)"]},
                "env": {"B": "3"},
                "providers": {"x": {"model": "m2"}, "y": {"type": "openai"}},
                "provider": {"model": "m9"},
                "hooks": {"Stop": []},
            })),
        );
        assert_eq!(
            Value::Object(acc),
            json!({
                "language": "ko",
                "permissions": {"allow": ["Glob(*)"], "deny": ["Bash(rm *)"]},
                "env": {"A": "1", "B": "3"},
                "providers": {"x": {"type": "anthropic", "model": "m2"}, "y": {"type": "openai"}},
                "provider": {"name": "anthropic", "model": "m9"},
                "hooks": {"Stop": []},
            })
        );
    }
}
