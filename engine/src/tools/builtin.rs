//! The one adapter of the built-ins: a [`Builtin`] declares its name, schema and typed
//! arguments and runs a call; [`Tool`] is implemented once for all of them (validation against
//! the schema, then parsing, the error result the model sees, the blocking pool).

use std::sync::Arc;

use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::args::parse;
use super::config::ToolEnv;
use super::result::ToolOutput;
use super::validation::{invalid_parameters, SchemaValidator};
use crate::core::provider::ToolSchema;
use crate::core::tool::{SchemaCell, Tool, ToolContext, ToolResult};

/// What every built-in holds: its environment and its compiled parameter schema.
pub(crate) struct Spec {
    /// Working directory, ports and configuration.
    pub(crate) env: ToolEnv,
    parameters: Value,
    validator: Option<SchemaValidator>,
    schema: SchemaCell,
}

impl Spec {
    /// The spec of built-in `T` on `env`.
    pub(crate) fn of<T: Builtin>(env: ToolEnv) -> Self {
        let parameters = T::parameters();
        Spec {
            env,
            validator: SchemaValidator::new(&parameters).ok(),
            parameters,
            schema: SchemaCell::default(),
        }
    }
}

/// A built-in tool with typed arguments.
#[async_trait]
pub(crate) trait Builtin: Send + Sync + Sized + 'static {
    /// The arguments (serde names = the schema's property names).
    type Args: DeserializeOwned + Send + 'static;
    /// Tool name.
    const NAME: &'static str;
    /// Description shown to the model.
    const DESCRIPTION: &'static str;
    /// Whether the tool never changes anything.
    const READ_ONLY: bool = false;

    /// JSON Schema of the arguments object.
    fn parameters() -> Value;
    /// The tool's [`Spec`].
    fn spec(&self) -> &Spec;

    /// Runs a call with valid arguments. The default runs [`run_blocking`](Self::run_blocking)
    /// on the blocking pool (file-system work).
    async fn run(&self, args: Self::Args, ctx: &ToolContext) -> ToolOutput {
        let env = self.spec().env.clone();
        let cancel = ctx.cancel.clone();
        blocking(move || Self::run_blocking(&env, args, &cancel)).await
    }

    /// The blocking body the default [`run`](Self::run) calls.
    fn run_blocking(env: &ToolEnv, args: Self::Args, cancel: &CancellationToken) -> ToolOutput {
        let _ = (env, args, cancel);
        ToolOutput::fail(format!("{} has no blocking body", Self::NAME))
    }
}

/// Validates `args` against `T`'s schema, then parses them; the failure is the result document.
fn typed_args<T: Builtin>(spec: &Spec, args: Value) -> Result<T::Args, ToolOutput> {
    if let Some(v) = &spec.validator {
        v.check_for_tool(T::NAME, &args).map_err(ToolOutput::fail)?;
    }
    parse(args).map_err(|p| ToolOutput::fail(invalid_parameters(T::NAME, &p)))
}

#[async_trait]
impl<T: Builtin> Tool for T {
    fn name(&self) -> &str {
        T::NAME
    }
    fn description(&self) -> &str {
        T::DESCRIPTION
    }
    fn parameters(&self) -> &Value {
        &self.spec().parameters
    }
    fn read_only(&self) -> bool {
        T::READ_ONLY
    }
    fn schema(&self) -> Arc<ToolSchema> {
        self.spec().schema.get(self)
    }
    async fn execute(&self, args: Value, ctx: &ToolContext) -> ToolResult {
        let spec = self.spec();
        let out = match typed_args::<T>(spec, args) {
            Ok(args) => self.run(args, ctx).await,
            Err(fail) => fail,
        };
        out.into_result(spec.env.limits().max_output_chars)
    }
}

/// Runs blocking file-system work off the async workers.
pub(crate) async fn blocking<F>(f: F) -> ToolOutput
where
    F: FnOnce() -> ToolOutput + Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(out) => out,
        Err(e) => ToolOutput::fail(format!("Tool task failed: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::{json, Value};

    use super::{Builtin, Spec};
    use crate::core::tool::{Tool, ToolContext};
    use crate::tools::args::int;
    use crate::tools::{ReadTool, ToolEnv, ToolOutput};

    /// A built-in whose schema checks nothing, so that serde's errors reach the model.
    struct Lax {
        spec: Spec,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Mode {
        Fast,
        Slow,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct LaxArgs {
        file_path: String,
        #[serde(default, deserialize_with = "int")]
        count: Option<i64>,
        mode: Option<Mode>,
        #[serde(default)]
        all: bool,
    }

    #[async_trait::async_trait]
    impl Builtin for Lax {
        type Args = LaxArgs;
        const NAME: &'static str = "Lax";
        const DESCRIPTION: &'static str = "test";
        fn parameters() -> Value {
            json!({"type": "object"})
        }
        fn spec(&self) -> &Spec {
            &self.spec
        }
        async fn run(&self, a: LaxArgs, _ctx: &ToolContext) -> ToolOutput {
            ToolOutput::ok(format!(
                "{}|{:?}|{:?}|{}",
                a.file_path, a.count, a.mode, a.all
            ))
        }
    }

    async fn call(tool: &dyn Tool, args: Value) -> ToolOutput {
        let text = tool.execute(args, &ToolContext::detached("c")).await;
        let text = text.ok().and_then(|v| v.as_str().map(str::to_string));
        serde_json::from_str(&text.unwrap_or_default()).unwrap_or(ToolOutput::fail("no JSON"))
    }

    fn env() -> ToolEnv {
        ToolEnv::new(&std::env::temp_dir())
    }

    fn error(name: &str, problem: &str) -> Option<String> {
        Some(format!(
            "Validation Error: Invalid parameters for tool \"{name}\": {problem}"
        ))
    }

    #[tokio::test]
    async fn serde_errors_read_like_the_validator() {
        let lax = Lax {
            spec: Spec::of::<Lax>(env()),
        };
        let cases = [
            (json!({}), "Missing required parameter: filePath"),
            (
                json!({"filePath": 3}),
                "Parameter \"filePath\" must be a string, got number",
            ),
            (
                json!({"filePath": "a", "count": "x"}),
                "Parameter \"count\" must be a number, got string",
            ),
            (
                json!({"filePath": "a", "all": 1}),
                "Parameter \"all\" must be a boolean, got number",
            ),
            (
                json!({"filePath": "a", "mode": "odd"}),
                "Parameter \"mode\" must be one of: fast, slow, got odd",
            ),
            (json!("a"), "Arguments must be an object, got string"),
        ];
        for (args, problem) in cases {
            let out = call(&lax, args.clone()).await;
            assert!(!out.success, "{args}");
            assert_eq!(out.error, error("Lax", problem), "{args}");
        }
    }

    #[tokio::test]
    async fn typed_arguments_defaults_and_extra_keys() {
        let lax = Lax {
            spec: Spec::of::<Lax>(env()),
        };
        let out = call(&lax, json!({"filePath": "a"})).await;
        assert_eq!(out.output, "a|None|None|false");
        // Unknown keys are ignored (the schemas do not forbid them); fractions truncate.
        let args = json!({"filePath": "a", "count": 2.9, "mode": "slow", "all": true, "x": 1});
        assert_eq!(call(&lax, args).await.output, "a|Some(2)|Some(Slow)|true");
    }

    #[tokio::test]
    async fn validation_runs_first_and_lists_every_problem() {
        let read = ReadTool::new(env());
        let out = call(&read, json!({"offset": "x"})).await;
        assert_eq!(
            out.error,
            error(
                "Read",
                "Missing required parameter: filePath, Parameter \"offset\" must be a number, got string"
            )
        );
        // The same wording whether the schema or serde rejects a wrong type.
        let lax = Lax {
            spec: Spec::of::<Lax>(env()),
        };
        let wrong = json!({"filePath": 3});
        let by_schema = call(&read, wrong.clone()).await.error.unwrap_or_default();
        let by_serde = call(&lax, wrong).await.error.unwrap_or_default();
        assert_eq!(by_schema.replace("\"Read\"", "\"Lax\""), by_serde);
    }

    #[tokio::test]
    async fn read_end_to_end() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("f.txt"), "a\nb\nc\n").unwrap_or_else(|e| panic!("{e}"));
        let read = ReadTool::new(ToolEnv::new(dir.path()));
        assert_eq!(read.name(), "Read");
        assert!(read.read_only());
        assert_eq!(read.schema().parameters["required"], json!(["filePath"]));
        let args = json!({"filePath": "f.txt", "offset": 2.7, "limit": 1, "extra": true});
        let out = call(&read, args).await;
        assert_eq!(out, ToolOutput::ok("[File: f.txt (lines 2-2 of 3)]\n2\tb"));
        let out = call(&read, json!({"filePath": "missing.txt"})).await;
        assert_eq!(out.error.as_deref(), Some("File not found: missing.txt"));
    }

    /// An image file comes back as a one-line text and an attached image part; an image over
    /// 5 MiB and other binary files are failures with nothing attached.
    #[tokio::test]
    async fn read_returns_an_image_file_as_an_attached_part() {
        use crate::core::image::{inline_image, MAX_IMAGE_BYTES};
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let gif = b"GIF89a\x01\x00\x01\x00\x80\x00\x00".to_vec();
        let mut big = gif.clone();
        big.resize(MAX_IMAGE_BYTES + 1, 0);
        for (name, bytes) in [("a.gif", &gif), ("big.gif", &big)] {
            std::fs::write(dir.path().join(name), bytes).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(dir.path().join("b.bin"), b"\x00\x01rest").unwrap_or_else(|e| panic!("{e}"));
        let read = ReadTool::new(ToolEnv::new(dir.path()));
        let run = |file: &str| {
            let ctx = ToolContext::detached("c");
            let read = &read;
            let args = json!({ "filePath": file });
            async move {
                let text = read.execute(args, &ctx).await.ok();
                let text = text.and_then(|v| v.as_str().map(str::to_string));
                (text.unwrap_or_default(), ctx.attachments.take())
            }
        };
        assert_eq!(
            run("a.gif").await,
            (
                r#"{"success":true,"output":"[Image: a.gif (image/gif, 13 bytes)]"}"#.to_string(),
                vec![inline_image(&gif).unwrap_or_else(|e| panic!("{e}"))]
            )
        );
        assert_eq!(
            run("big.gif").await,
            (
                r#"{"success":false,"output":"","error":"Image too large: big.gif is 5242881 bytes, over the limit of 5242880 bytes (5 MiB)"}"#.to_string(),
                vec![]
            )
        );
        assert_eq!(
            run("b.bin").await,
            (
                r#"{"success":false,"output":"","error":"Binary file not supported: b.bin"}"#
                    .to_string(),
                vec![]
            )
        );
    }
}
