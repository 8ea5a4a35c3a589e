//! The fields `SubagentStart` and `SubagentStop` give the parent's hooks about a child: its id,
//! type, hook environment and transcript file, and at the stop its answer and error.

use serde_json::{json, Map, Value};

use super::runner::ChildOutcome;
use super::Parent;
use crate::sdk::config::SessionConfig;

/// Who the child is, as the parent's hooks see it.
pub(super) struct HookIdentity {
    agent_id: String,
    agent_type: String,
    /// `CLAUDE_PROJECT_DIR`, `CLAUDE_SESSION_ID`, `ROBOTA_AGENT_ID`, `ROBOTA_AGENT_TYPE`.
    env: Value,
    /// The child's transcript file, when the parent keeps transcripts.
    transcript: Option<String>,
}

impl HookIdentity {
    /// The identity of the child `agent_id` configured by `cfg`.
    pub(super) fn new(
        parent: &dyn Parent,
        cfg: &SessionConfig,
        agent_id: &str,
        agent_type: &str,
    ) -> Self {
        let transcript = cfg.transcript.as_ref().map(|d| {
            d.join(format!("{agent_id}.jsonl"))
                .to_string_lossy()
                .into_owned()
        });
        let env = json!({
            "CLAUDE_PROJECT_DIR": cfg.cwd,
            "CLAUDE_SESSION_ID": parent.session_id(),
            "ROBOTA_AGENT_ID": agent_id,
            "ROBOTA_AGENT_TYPE": agent_type,
        });
        HookIdentity {
            agent_id: agent_id.to_string(),
            agent_type: agent_type.to_string(),
            env,
            transcript,
        }
    }

    /// `SubagentStart`'s fields.
    pub(super) fn start_fields(&self) -> Map<String, Value> {
        self.fields(Vec::new())
    }

    /// `SubagentStop`'s fields: the child's answer, and its error as `reason`.
    pub(super) fn stop_fields(&self, outcome: &ChildOutcome) -> Map<String, Value> {
        let mut fields = self.fields(vec![
            ("stop_hook_active", json!(false)),
            ("last_assistant_message", json!(outcome.response)),
        ]);
        if let Some(e) = &outcome.error {
            fields.insert("reason".to_string(), json!(e));
        }
        fields
    }

    /// Id and type, then `middle`, then the environment and the transcript path, in this order.
    fn fields(&self, middle: Vec<(&str, Value)>) -> Map<String, Value> {
        let mut pairs = vec![
            ("agent_id", json!(self.agent_id)),
            ("agent_type", json!(self.agent_type)),
        ];
        pairs.extend(middle);
        pairs.push(("env", self.env.clone()));
        if let Some(t) = &self.transcript {
            pairs.push(("agent_transcript_path", json!(t)));
        }
        pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }
}
