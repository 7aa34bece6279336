//! Tool schemas every client accepts: schemars' output made portable.
//!
//! What schemars writes is valid JSON Schema, but clients read a narrower dialect:
//! TypeScript validators warn on every non-standard `format` (`uint`, `uint32`, …), hosts
//! that map tool schemas onto a single-`type` dialect (Gemini function declarations) may
//! reject `"type": ["string", "null"]`, and not every client resolves `$ref`. So every
//! schema agg publishes is rewritten once: optional fields are plain types (they are simply
//! not required), `null` branches go, non-standard formats go, `$ref`s are inlined, a
//! `oneOf` of `const`s becomes an `enum` with its `type`, `additionalProperties: false`
//! goes (agg refuses unknown fields itself), and the root is `type: object`. Output schemas
//! are also shallow and without prose ([`output`]). A test checks every input schema, the
//! per-task tools' included, against the dialect Gemini's function declarations and
//! `OpenAI`'s function calling accept.

use std::sync::Arc;

use rmcp::model::JsonObject;
use serde_json::{Map, Value};

/// The `format` values of the JSON Schema specification; any other is dropped.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Deepest `$ref` chain followed; agg's own types never nest anywhere near this.
const MAX_DEPTH: usize = 64;

/// The portable form of `schema` (see the module doc).
pub fn portable(schema: &JsonObject) -> Arc<JsonObject> {
    let defs = schema
        .get("$defs")
        .or_else(|| schema.get("definitions"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut root = Value::Object(schema.clone());
    if let Value::Object(map) = &mut root {
        map.remove("$defs");
        map.remove("definitions");
        map.remove("$schema");
    }
    let mut root = rewrite(root, &defs, 0);
    if let Value::Object(map) = &mut root {
        map.insert("type".into(), Value::String("object".into()));
        map.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        Arc::new(std::mem::take(map))
    } else {
        Arc::new(JsonObject::new())
    }
}

/// The portable form of an output schema, without prose: a client validates
/// `structuredContent` against it, and hosts that show schemas to a model pay for every word.
/// Descriptions live in the input schemas and the tool descriptions.
/// Shallow: the result's own fields with their types, a nested object or list by its kind
/// only. That is what a client checks a result against; the model reads the fields'
/// meaning in the tool's description, and each nested shape would cost every session
/// hundreds of tokens of `tools/list`.
pub fn output(schema: &JsonObject) -> Arc<JsonObject> {
    let mut out = (*portable(schema)).clone();
    if let Some(Value::Object(props)) = out.get_mut("properties") {
        for prop in props.values_mut() {
            *prop = shallow(prop);
        }
    }
    let mut out = Value::Object(out);
    strip_prose(&mut out, 0);
    match out {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// A property's schema reduced to its kind: a scalar's type, an object or an array as such.
fn shallow(prop: &Value) -> Value {
    let mut out = Map::new();
    if let Some(t) = prop.get("type") {
        out.insert("type".into(), t.clone());
    }
    if out.is_empty() {
        // A union of shapes: say nothing rather than something wrong.
        return Value::Object(Map::new());
    }
    Value::Object(out)
}

/// Removes `description`, `title` and `examples` from a schema and every schema inside it
/// (a property called `description` stays: property maps hold names, not keywords).
fn strip_prose(schema: &mut Value, depth: usize) {
    let Value::Object(map) = schema else {
        return;
    };
    if depth > MAX_DEPTH {
        return;
    }
    for key in ["description", "title", "examples"] {
        map.remove(key);
    }
    for (key, child) in map.iter_mut() {
        match (key.as_str(), child) {
            ("properties" | "patternProperties", Value::Object(props)) => {
                for prop in props.values_mut() {
                    strip_prose(prop, depth + 1);
                }
            }
            ("items" | "additionalProperties" | "not" | "contains", child) => {
                strip_prose(child, depth + 1);
            }
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(items)) => {
                for item in items {
                    strip_prose(item, depth + 1);
                }
            }
            _ => {}
        }
    }
}

/// The portable form of one schema and every schema inside it: a `$ref` inlined, a union
/// made one type or an `enum` where it can be, keywords clients refuse or models pay for in
/// vain dropped, nullable properties made optional, then each child schema in turn.
fn rewrite(value: Value, defs: &JsonObject, depth: usize) -> Value {
    let Value::Object(mut map) = value else {
        return value;
    };
    if depth > MAX_DEPTH {
        return Value::Object(map);
    }
    if inline_ref(&mut map, defs) {
        return rewrite(Value::Object(map), defs, depth + 1);
    }
    if let Some(Value::Array(types)) = map.get("type") {
        let non_null: Vec<Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .cloned()
            .collect();
        if let Some(first) = non_null.first() {
            map.insert("type".into(), first.clone());
        }
    }
    // `oneOf` of `const`s (how schemars writes a Rust enum) is an `enum` with a `type`:
    // the form Gemini's function declarations and OpenAI's function calling accept.
    if let Some(Value::Array(branches)) = map.get("oneOf").or_else(|| map.get("anyOf"))
        && let Some((kind, values)) = const_branches(branches)
    {
        map.remove("oneOf");
        map.remove("anyOf");
        map.insert("type".into(), Value::String(kind));
        map.insert("enum".into(), Value::Array(values));
    }
    if merge_single_branch(&mut map) {
        return rewrite(Value::Object(map), defs, depth + 1);
    }
    drop_unportable(&mut map);
    unrequire_nullable(&mut map, defs);
    rewrite_children(&mut map, defs, depth);
    Value::Object(map)
}

/// Replaces a `$ref` to one of `defs` by the definition's keywords (keywords beside the
/// `$ref`, a description, win over the target's); whether it did.
fn inline_ref(map: &mut JsonObject, defs: &JsonObject) -> bool {
    let Some(Value::String(reference)) = map.remove("$ref") else {
        return false;
    };
    let target = reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))
        .and_then(|name| defs.get(name))
        .cloned();
    let Some(Value::Object(target)) = target else {
        return false;
    };
    for (k, v) in target {
        map.entry(k).or_insert(v);
    }
    true
}

/// Drops the `null` branches of `anyOf` and `oneOf`; a union left with one branch is
/// merged into `map` (its keywords beside the union's win), and then the schema must be
/// rewritten again: whether that happened.
fn merge_single_branch(map: &mut JsonObject) -> bool {
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.remove(key) {
            let mut kept: Vec<Value> = branches
                .into_iter()
                .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
                .collect();
            if kept.len() == 1 {
                if let Some(Value::Object(only)) = kept.pop() {
                    for (k, v) in only {
                        map.entry(k).or_insert(v);
                    }
                }
                return true;
            }
            map.insert(key.into(), Value::Array(kept));
        }
    }
    false
}

/// Drops the keywords some clients refuse or that tell a model nothing: a non-standard
/// `format`, a default of nothing, a count's lower bound 0, `additionalProperties: false`.
fn drop_unportable(map: &mut JsonObject) {
    if map
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| !STANDARD_FORMATS.contains(&f))
    {
        map.remove("format");
    }
    // Words a model pays for on every `tools/list` without learning anything: a default
    // of nothing (`null`, `false`, `[]`) and the lower bound 0 of a count (serde refuses a
    // negative one anyway).
    if map.get("default").is_some_and(|d| {
        d.is_null() || *d == Value::Bool(false) || d.as_array().is_some_and(Vec::is_empty)
    }) {
        map.remove("default");
    }
    if map.get("minimum").and_then(Value::as_u64) == Some(0) {
        map.remove("minimum");
    }
    // `additionalProperties: false` (schemars' `deny_unknown_fields`): Gemini's function
    // declarations reject the keyword, and agg refuses an unknown field itself (-32602).
    if map.get("additionalProperties") == Some(&Value::Bool(false)) {
        map.remove("additionalProperties");
    }
}

/// Takes the properties that may be null off `required`: agg leaves such a property out
/// instead of sending null.
fn unrequire_nullable(map: &mut JsonObject, defs: &JsonObject) {
    let nullable: Vec<String> = map
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .filter(|(_, p)| allows_null(p, defs))
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Array(required)) = map.get_mut("required") {
        required.retain(|r| !r.as_str().is_some_and(|r| nullable.iter().any(|n| n == r)));
        if required.is_empty() {
            map.remove("required");
        }
    }
}

/// Rewrites every schema `map` holds: its properties, items, branches; `items: true`
/// becomes a list of strings.
fn rewrite_children(map: &mut JsonObject, defs: &JsonObject, depth: usize) {
    let keys: Vec<String> = map.keys().cloned().collect();
    for key in keys {
        let Some(child) = map.remove(&key) else {
            continue;
        };
        let child = match key.as_str() {
            "properties" | "patternProperties" => match child {
                Value::Object(props) => Value::Object(
                    props
                        .into_iter()
                        .map(|(k, v)| (k, rewrite(v, defs, depth + 1)))
                        .collect(),
                ),
                other => other,
            },
            "items" | "additionalProperties" | "not" | "contains" => match child {
                Value::Bool(true) if key == "items" => {
                    serde_json::json!({"type": "string"})
                }
                Value::Object(_) => rewrite(child, defs, depth + 1),
                other => other,
            },
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => match child {
                Value::Array(items) => Value::Array(
                    items
                        .into_iter()
                        .map(|v| rewrite(v, defs, depth + 1))
                        .collect(),
                ),
                other => other,
            },
            _ => child,
        };
        map.insert(key, child);
    }
}

/// The type and values of branches that are each one `const` of one type (a `null`
/// branch aside), when they all are.
fn const_branches(branches: &[Value]) -> Option<(String, Vec<Value>)> {
    let mut kind: Option<String> = None;
    let mut values = Vec::new();
    for branch in branches {
        if branch.get("type").and_then(Value::as_str) == Some("null") {
            continue;
        }
        let value = branch.get("const")?;
        let this = match value {
            Value::String(_) => "string",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
            Value::Number(_) => "number",
            _ => return None,
        };
        if kind.get_or_insert_with(|| this.to_owned()) != this {
            return None;
        }
        values.push(value.clone());
    }
    kind.map(|k| (k, values))
}

/// Whether `schema` accepts `null` (a `type` array with it, a `null` branch, a `$ref` to
/// such a schema).
fn allows_null(schema: &Value, defs: &JsonObject) -> bool {
    let null = |t: &Value| t.as_str() == Some("null");
    match schema.get("type") {
        Some(Value::Array(types)) if types.iter().any(null) => return true,
        Some(t) if null(t) => return true,
        _ => {}
    }
    let branch_null = |key: &str| {
        schema
            .get(key)
            .and_then(Value::as_array)
            .is_some_and(|b| b.iter().any(|b| allows_null(b, defs)))
    };
    if branch_null("anyOf") || branch_null("oneOf") {
        return true;
    }
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .and_then(|name| defs.get(name))
        .is_some_and(|target| target != schema && allows_null(target, defs))
}

#[cfg(test)]
/// The problems [`portable`] removes, for tests: every path holding a `type` array, a
/// non-standard `format`, a `$ref` or a `null` type.
pub fn unportable(value: &Value, path: &str, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if map.get("type").is_some_and(Value::is_array) {
                found.push(format!("{path}: type array"));
            }
            if map.get("type").and_then(Value::as_str) == Some("null") {
                found.push(format!("{path}: null type"));
            }
            if map.contains_key("$ref") {
                found.push(format!("{path}: $ref"));
            }
            if let Some(f) = map.get("format").and_then(Value::as_str)
                && !STANDARD_FORMATS.contains(&f)
            {
                found.push(format!("{path}: format {f}"));
            }
            for (k, v) in map {
                unportable(v, &format!("{path}/{k}"), found);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                unportable(v, &format!("{path}/{i}"), found);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn optional_fields_formats_refs_and_null_branches_become_portable() {
        let raw = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "X",
            "required": ["limit", "when"],
            "properties": {
                "limit": {"type": ["integer", "null"], "format": "uint", "minimum": 0},
                "mode": {"anyOf": [{"$ref": "#/$defs/Mode"}, {"type": "null"}], "description": "How"},
                "when": {"type": "string", "format": "date-time"},
                "list": {"type": "array", "items": {"$ref": "#/$defs/Mode"}}
            },
            "$defs": {"Mode": {"type": "string", "enum": ["a", "b"]}}
        });
        let out = portable(raw.as_object().expect("object"));
        let out = Value::Object((*out).clone());
        let mut found = Vec::new();
        unportable(&out, "", &mut found);
        assert!(found.is_empty(), "{found:?}");
        assert_eq!(out["type"], "object");
        // A count's lower bound 0 says nothing a model needs.
        assert_eq!(out["properties"]["limit"], json!({"type": "integer"}));
        assert_eq!(out["properties"]["mode"]["enum"], json!(["a", "b"]));
        assert_eq!(out["properties"]["mode"]["description"], "How");
        assert_eq!(out["properties"]["when"]["format"], "date-time");
        assert_eq!(out["properties"]["list"]["items"]["type"], "string");
        assert!(out.get("$defs").is_none());
        assert_eq!(
            out["required"],
            json!(["when"]),
            "a nullable field is not required"
        );
    }

    #[test]
    fn every_published_tool_schema_is_portable() {
        for tool in crate::mcp::server::tools() {
            let schemas = [
                Some(Value::Object((*tool.input_schema).clone())),
                tool.output_schema
                    .as_ref()
                    .map(|s| Value::Object((**s).clone())),
            ];
            for schema in schemas.into_iter().flatten() {
                let mut found = Vec::new();
                unportable(&schema, &tool.name, &mut found);
                assert!(found.is_empty(), "{found:?}");
                assert_eq!(schema["type"], "object", "{}", tool.name);
            }
        }
    }

    /// What the function-calling dialects of Gemini (its function declarations) and `OpenAI`
    /// (non-strict) accept of JSON Schema, as a checker: one `type` from a short list on
    /// every schema, `enum` only beside a `type`, no `oneOf`/`anyOf`/`allOf`/`const`, no
    /// `$ref`, no maps (`additionalProperties`, `patternProperties`), every nested object
    /// with properties and every array with `items`.
    fn function_calling(schema: &Value, path: &str, root: bool, found: &mut Vec<String>) {
        let Value::Object(map) = schema else {
            found.push(format!("{path}: not a schema object"));
            return;
        };
        for key in [
            "oneOf",
            "anyOf",
            "allOf",
            "not",
            "const",
            "$ref",
            "$defs",
            "additionalProperties",
            "patternProperties",
        ] {
            if map.contains_key(key) {
                found.push(format!("{path}: {key}"));
            }
        }
        let kind = map.get("type").and_then(Value::as_str);
        match kind {
            Some("string" | "integer" | "number" | "boolean") => {}
            Some("array") => match map.get("items") {
                Some(items) => function_calling(items, &format!("{path}[]"), false, found),
                None => found.push(format!("{path}: array without items")),
            },
            Some("object") => {
                let props = map.get("properties").and_then(Value::as_object);
                if !root && props.is_none_or(serde_json::Map::is_empty) {
                    found.push(format!("{path}: object without properties"));
                }
                for (name, prop) in props.into_iter().flatten() {
                    function_calling(prop, &format!("{path}.{name}"), false, found);
                }
            }
            other => found.push(format!("{path}: type {other:?}")),
        }
        if map.contains_key("enum") && kind.is_none() {
            found.push(format!("{path}: enum without type"));
        }
    }

    #[test]
    fn every_input_schema_fits_gemini_and_openai_function_calling() {
        let table = crate::table::Table::load(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/polyglot"),
        );
        let per_task = crate::mcp::per_task_tools::TaskTools::new("*", 500)
            .expect("glob")
            .tools(&table);
        let mut found = Vec::new();
        for tool in crate::mcp::server::tools()
            .into_iter()
            .chain(per_task.tools.into_iter().map(|t| t.tool))
        {
            let schema = Value::Object((*tool.input_schema).clone());
            function_calling(&schema, &tool.name, true, &mut found);
        }
        assert!(found.is_empty(), "{found:#?}");
    }
}
