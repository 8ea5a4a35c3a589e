//! Builds without the `mcp` cargo feature (the slim build, `--no-default-features`; rmcp adds
//! ~1.7 MB to the shipped library): the same surface, every server "failed" with [`NO_MCP`],
//! sessions usable.

/// The reason a server shows in a build without MCP.
pub const NO_MCP: &str = "this build of the library has no MCP support (cargo feature \"mcp\")";

/// Stand-in for the live connection.
pub mod connection {
    use std::sync::Arc;

    use crate::core::env_ref::EnvVars;
    use crate::sdk::mcp::config::McpServerDef;

    /// A server tool as listed (none without MCP).
    #[derive(Debug, Clone, Copy)]
    pub enum McpToolDef {}

    /// The tool list and how many times it changed.
    #[derive(Default)]
    pub struct ToolList {
        /// Bumped on every refresh.
        pub generation: u64,
        /// The server's tools.
        pub tools: Vec<McpToolDef>,
    }

    /// Never constructed without MCP.
    #[derive(Debug)]
    pub enum McpConnection {}

    impl McpConnection {
        /// Always fails with [`super::NO_MCP`].
        pub async fn connect(
            _def: McpServerDef,
            _http: reqwest::Client,
            _env: EnvVars,
        ) -> Result<Arc<McpConnection>, String> {
            Err(super::NO_MCP.to_string())
        }

        /// Unreachable (no value exists).
        pub fn tools(&self) -> Arc<ToolList> {
            match *self {}
        }

        /// Unreachable (no value exists).
        pub fn failure(&self) -> Option<String> {
            match *self {}
        }
    }
}

/// Stand-in for the session tool.
pub mod tool {
    use std::sync::Arc;

    use super::connection::{McpConnection, McpToolDef};

    /// Never constructed without MCP.
    pub enum McpTool {}

    impl McpTool {
        /// Unreachable (no tool definition exists).
        pub fn build(
            _server: &str,
            def: &McpToolDef,
            _conn: &Arc<McpConnection>,
        ) -> Result<Arc<dyn crate::core::tool::Tool>, String> {
            match *def {}
        }
    }
}
