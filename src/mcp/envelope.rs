//! The result envelope every tool answers with: a success carries `structuredContent`
//! (matching the tool's `outputSchema`) and a compact text copy; a failure is an `isError`
//! result with no `structuredContent` at all, its code, message, hint and suggestions in the
//! text and, for programs, under `_meta["agg/error"]`.
//!
//! Why no structured error: clients validate `structuredContent` against the tool's
//! `outputSchema` whenever it is present (the TypeScript SDK throws, the Inspector exits 1),
//! and an error body cannot match a success schema. The spec lets an `isError` result leave
//! it out.

use std::fmt::Write as _;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject};
use serde::Serialize;
use serde::de::DeserializeOwned;

use schemars::JsonSchema;

/// The body of an `isError` result, under `_meta["agg/error"]`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ToolError {
    /// Machine code, one of [`ErrorCode`]'s numbers (-32010…-32019, -32602).
    #[schemars(with = "i32")]
    pub code: ErrorCode,
    /// What went wrong.
    pub error: String,
    /// What to do about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The closest names, for a name that was not found.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<String>,
}

/// The `_meta` key that carries a failure's machine-readable body.
pub const ERROR_META_KEY: &str = "agg/error";

/// A tool's outcome before it is put in the envelope.
pub type ToolResult = Result<CallToolResult, ToolError>;

/// The machine code of an `isError` result, the number under `error CODE:` and in
/// `_meta["agg/error"].code` (docs/mcp.md lists them with the hint each carries):
///
/// | code | variant | meaning |
/// |---|---|---|
/// | -32010 | [`NotAllowlisted`](ErrorCode::NotAllowlisted) | not allowlisted, denied, or changed since it was allowed |
/// | -32011 | [`RunnerUnavailable`](ErrorCode::RunnerUnavailable) | the runner is not installed |
/// | -32012 | [`NotFound`](ErrorCode::NotFound) | no such task or job |
/// | -32013 | [`TooManyJobs`](ErrorCode::TooManyJobs) | the running-jobs cap is reached |
/// | -32014 | [`NeedsConfirmation`](ErrorCode::NeedsConfirmation) | the runner asks for a confirmation nobody gave |
/// | -32015 | [`NotRunnable`](ErrorCode::NotRunnable) | listed, but only the editor can run it |
/// | -32016 | [`NeedsApproval`](ErrorCode::NeedsApproval) | arguments or environment the allow does not cover |
/// | -32017 | [`EnvRefused`](ErrorCode::EnvRefused) | an environment variable that loads or redirects code |
/// | -32018 | [`SandboxUnavailable`](ErrorCode::SandboxUnavailable) | this machine cannot sandbox the run |
/// | -32019 | [`NotYours`](ErrorCode::NotYours) | the person's run: agents read it, never stop it |
/// | -32602 | [`InvalidArgs`](ErrorCode::InvalidArgs) | the arguments are invalid (JSON-RPC's own code) |
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// The user's allowlist does not allow the task.
    NotAllowlisted = -32010,
    /// The task's runner is not installed.
    RunnerUnavailable = -32011,
    /// No such task or job.
    NotFound = -32012,
    /// The running-jobs cap is reached.
    TooManyJobs = -32013,
    /// The task's runner asks for confirmation, and the user did not give it (or the
    /// client cannot ask).
    NeedsConfirmation = -32014,
    /// agg lists the task but cannot run it (a VS Code task an extension provides, or one
    /// that needs a variable only the editor fills in).
    NotRunnable = -32015,
    /// Arguments or environment the agent added are not covered by the allow, and the
    /// user did not approve them (or the client cannot ask).
    NeedsApproval = -32016,
    /// An environment variable that loads or redirects code: never taken from an agent.
    EnvRefused = -32017,
    /// This machine cannot sandbox the run, and the person's rule does not turn the
    /// sandbox off.
    SandboxUnavailable = -32018,
    /// The run is the person's (their `agg run`, or a service it left running): agents may
    /// list and read it, never stop or signal it.
    NotYours = -32019,
    /// The arguments are invalid.
    InvalidArgs = -32602,
}

impl ErrorCode {
    /// The number a client sees.
    pub const fn number(self) -> i32 {
        self as i32
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.number())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i32(self.number())
    }
}

/// A failure with `code`, a message and an optional hint.
pub fn tool_error(code: ErrorCode, error: impl Into<String>, hint: Option<String>) -> ToolError {
    ToolError {
        code,
        error: error.into(),
        hint,
        suggestions: Vec::new(),
    }
}

/// An invalid-arguments failure.
pub fn invalid(error: impl Into<String>) -> ToolError {
    tool_error(ErrorCode::InvalidArgs, error, None)
}

/// A success: `value` as `structuredContent`, `text` as its readable copy.
pub fn success<T: Serialize>(value: &T, text: String) -> CallToolResult {
    let mut result = CallToolResult::structured(without_nulls(value));
    result.content = vec![ContentBlock::text(text)];
    result
}

/// `value` as JSON with every `null` member left out: the published schemas make optional
/// fields plain types that are simply not required (see `schema.rs`), so an absent value
/// is absent, never `null`.
pub fn without_nulls<T: Serialize>(value: &T) -> serde_json::Value {
    let mut v = serde_json::to_value(value).unwrap_or_default();
    strip_nulls(&mut v);
    v
}

fn strip_nulls(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            map.retain(|_, x| !x.is_null());
            map.values_mut().for_each(strip_nulls);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_nulls),
        _ => {}
    }
}

/// The readable text of a failure: `error CODE: message`, suggestions, hint.
pub fn failure_text(err: &ToolError) -> String {
    let mut text = format!("error {}: {}", err.code, err.error);
    if !err.suggestions.is_empty() {
        let _ = write!(text, "\ndid you mean: {}?", err.suggestions.join(", "));
    }
    if let Some(hint) = &err.hint {
        let _ = write!(text, "\nhint: {hint}");
    }
    text
}

/// A failure: `isError`, the text, and the body under `_meta["agg/error"]`.
pub fn failure(err: &ToolError) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(failure_text(err))]);
    let mut meta = JsonObject::new();
    meta.insert(
        ERROR_META_KEY.to_owned(),
        serde_json::to_value(err).unwrap_or_default(),
    );
    result.meta = Some(MetaObject(meta));
    result
}

/// Reads a tool's arguments into `T`. Unknown fields are refused with the list of the
/// fields that exist (serde's message names them), and the bounds of [`Bounded`] apply
/// before any work is done.
pub fn parse<T: DeserializeOwned + Bounded>(args: Option<JsonObject>) -> Result<T, ToolError> {
    let value = serde_json::Value::Object(args.unwrap_or_default());
    let parsed: T = serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path.is_empty() || path == "." {
            invalid(format!("invalid arguments: {inner}"))
        } else {
            invalid(format!("invalid arguments: {path}: {inner}"))
        }
    })?;
    parsed.check()?;
    Ok(parsed)
}

/// Most bytes of a task or job name, a query or a directory argument. Real names are far
/// shorter; the bound keeps a hostile multi-megabyte name from costing anything.
pub const MAX_NAME_BYTES: usize = 1024;
/// Most bytes of one task argument or environment value.
pub const MAX_ARG_BYTES: usize = 128 * 1024;
/// Most task arguments or environment entries in one call.
pub const MAX_ARGS: usize = 1024;

/// Length bounds on string arguments, checked before anything else.
pub trait Bounded {
    /// `Err` naming the first field over its bound.
    fn check(&self) -> Result<(), ToolError> {
        Ok(())
    }
}

/// Refuses `value` when longer than `max` bytes.
pub fn bound(field: &str, value: Option<&str>, max: usize) -> Result<(), ToolError> {
    match value {
        Some(v) if v.len() > max => Err(invalid(format!(
            "{field} is {} bytes; at most {max} are accepted",
            v.len()
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVERY_CODE: [ErrorCode; 11] = [
        ErrorCode::NotAllowlisted,
        ErrorCode::RunnerUnavailable,
        ErrorCode::NotFound,
        ErrorCode::TooManyJobs,
        ErrorCode::NeedsConfirmation,
        ErrorCode::NotRunnable,
        ErrorCode::NeedsApproval,
        ErrorCode::EnvRefused,
        ErrorCode::SandboxUnavailable,
        ErrorCode::NotYours,
        ErrorCode::InvalidArgs,
    ];

    #[test]
    fn every_code_is_in_the_enum_doc_and_the_agg_codes_in_the_manual() {
        let source = include_str!("envelope.rs");
        let manual = include_str!("../../docs/mcp.md");
        for code in EVERY_CODE {
            let n = code.number();
            assert!(
                source.contains(&format!("/// | {n} | [`{code:?}`]")),
                "{code:?}"
            );
            if n != -32602 {
                assert!(
                    manual.contains(&format!("\n| {n} | ")),
                    "docs/mcp.md lacks {n}"
                );
            }
        }
        let rows = manual.matches("\n| -320").count();
        assert_eq!(
            rows,
            EVERY_CODE.len() - 1,
            "docs/mcp.md has a code ErrorCode lacks"
        );
    }

    #[test]
    fn a_failure_has_no_structured_content_and_keeps_code_hint_and_suggestions() {
        let mut err = tool_error(
            ErrorCode::NotFound,
            "no task named `x`",
            Some("list_tasks".into()),
        );
        err.suggestions = vec!["y".into()];
        let result = failure(&err);
        assert_eq!(result.is_error, Some(true));
        assert!(result.structured_content.is_none());
        let text = result.content[0]
            .as_text()
            .map(|t| t.text.clone())
            .unwrap_or_default();
        assert_eq!(
            text,
            "error -32012: no task named `x`\ndid you mean: y?\nhint: list_tasks"
        );
        let meta = result.meta.expect("meta").0;
        assert_eq!(meta[ERROR_META_KEY]["code"], -32012);
        assert_eq!(meta[ERROR_META_KEY]["hint"], "list_tasks");
        assert_eq!(meta[ERROR_META_KEY]["suggestions"][0], "y");
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Args {
        name: String,
        #[allow(dead_code)]
        limit: Option<u32>,
    }
    impl Bounded for Args {
        fn check(&self) -> Result<(), ToolError> {
            bound("name", Some(&self.name), 8)
        }
    }

    #[test]
    fn arguments_name_the_fields_that_exist_and_are_bounded() {
        let obj = |v: serde_json::Value| v.as_object().cloned();
        let err = parse::<Args>(obj(serde_json::json!({"nme": "x"}))).expect_err("unknown");
        assert!(
            err.error.contains("`name`") && err.error.contains("`limit`"),
            "{}",
            err.error
        );
        let err = parse::<Args>(obj(serde_json::json!({"name": "123456789"}))).expect_err("long");
        assert_eq!(err.code, ErrorCode::InvalidArgs);
        assert!(err.error.contains("at most 8"), "{}", err.error);
        assert!(parse::<Args>(obj(serde_json::json!({"name": "ok"}))).is_ok());
    }
}
