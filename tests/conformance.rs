//! JSON-RPC and MCP conformance on stdio, driven by raw lines: every malformed line gets
//! the error the specification asks for, with the right `id`, and the server stays up;
//! error results carry no `structuredContent`; every schema is portable; the 2026-07-28
//! logging opt-in is honoured; and agg exits within a second of stdin closing, whatever is
//! in flight.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::raw::{Raw, setup};

fn code(msg: &Value) -> i64 {
    msg["error"]["code"].as_i64().unwrap_or(0)
}

#[test]
fn every_malformed_line_gets_the_specified_error_and_the_server_stays_up() {
    let (dir, _config, allowlist) = setup();
    let mut raw = Raw::start(dir.path(), &allowlist);
    // Not JSON: -32700 with id null.
    raw.send_bytes(b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ");
    let m = raw.next();
    assert_eq!((code(&m), m["id"].clone()), (-32700, Value::Null), "{m}");
    // Invalid UTF-8 is not JSON either.
    raw.send_bytes(b"{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"tools/call\", \"params\": {\"name\": \"status\xff\xfe\"}}");
    let m = raw.next();
    assert_eq!((code(&m), m["id"].clone()), (-32700, Value::Null), "{m}");
    // Not JSON-RPC 2.0: -32600 with the id.
    raw.send_value(&json!({"id": 3, "method": "ping"}));
    let m = raw.response(3);
    assert_eq!(code(&m), -32600, "{m}");
    // A batch: -32600, id null (present).
    raw.send_value(&json!([{"jsonrpc": "2.0", "id": 4, "method": "ping"}]));
    let m = raw.next();
    assert_eq!(code(&m), -32600, "{m}");
    assert!(m.as_object().is_some_and(|o| o.contains_key("id")), "{m}");
    // Known methods with bad params: -32602.
    raw.send_value(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "status", "arguments": "x"}}));
    assert_eq!(code(&raw.response(5)), -32602);
    raw.send_value(&json!({"jsonrpc": "2.0", "id": 6, "method": "logging/setLevel", "params": {"level": "loud"}}));
    assert_eq!(code(&raw.response(6)), -32602);
    // An unknown method: -32601.
    raw.send_value(&json!({"jsonrpc": "2.0", "id": 7, "method": "tasks/explode"}));
    assert_eq!(code(&raw.response(7)), -32601);
    // An unknown tool stays a JSON-RPC error.
    raw.send_value(
        &json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "rm_rf"}}),
    );
    assert!(raw.response(8)["error"]["code"].is_i64());
    // A line over the transport's maximum: an error reply, not silence.
    let mut big =
        b"{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": \"ping\", \"params\": {\"pad\": \""
            .to_vec();
    big.extend(std::iter::repeat_n(b'a', 17 * 1024 * 1024));
    big.extend(b"\"}}");
    raw.send_bytes(&big);
    let m = raw.next();
    assert_eq!(code(&m), -32600, "{m}");
    assert!(
        m["error"]["message"]
            .as_str()
            .is_some_and(|t| t.contains("too large")),
        "{m}"
    );
    // Wrong argument types: an isError result naming the problem, no structuredContent.
    let wrong = raw.call(
        10,
        "task_start",
        &json!({"unique_name": ["not", "a", "string"]}),
    );
    assert_eq!(wrong["result"]["isError"], true, "{wrong}");
    assert!(
        wrong["result"].get("structuredContent").is_none(),
        "{wrong}"
    );
    assert_eq!(
        wrong["result"]["_meta"]["agg/error"]["code"], -32602,
        "{wrong}"
    );
    let wrong = raw.call(11, "task_output", &json!({"run_id": "x", "offset": "ten"}));
    assert_eq!(
        wrong["result"]["_meta"]["agg/error"]["code"], -32602,
        "{wrong}"
    );
    // An unknown argument names the ones that exist.
    let wrong = raw.call(12, "task_stop", &json!({"run": "x"}));
    let text = wrong["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    assert!(
        text.contains("run_id") && text.contains("unique_name"),
        "{text}"
    );
    // A multi-megabyte name is refused at once and not echoed.
    let name = "n".repeat(4 * 1024 * 1024);
    let t = Instant::now();
    let wrong = raw.call(13, "describe_task", &json!({"unique_name": name}));
    let took = t.elapsed();
    assert_eq!(
        wrong["result"]["_meta"]["agg/error"]["code"], -32602,
        "took {took:?}"
    );
    assert!(
        wrong.to_string().len() < 4096,
        "the name is not echoed back"
    );
    // task_stop and task_output take unique_name, as their error says.
    let none = raw.call(14, "task_stop", &json!({"unique_name": "nap"}));
    assert_eq!(
        none["result"]["_meta"]["agg/error"]["code"], -32012,
        "{none}"
    );
    // Still serving.
    let ok = raw.call(15, "status", &json!({}));
    assert!(ok["result"]["structuredContent"]["jobs"].is_array(), "{ok}");
    assert!(
        raw.child.try_wait().expect("wait").is_none(),
        "the server must stay up"
    );
}

#[test]
fn stdin_closing_ends_the_server_within_a_second_whatever_is_in_flight() {
    let (dir, _config, allowlist) = setup();
    let mut raw = Raw::start(dir.path(), &allowlist);
    // A waited start that would take a minute.
    raw.send_value(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "task_start", "arguments": {"unique_name": "nap", "wait_ms": 60000}}}));
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    raw.close_stdin();
    loop {
        if raw.child.try_wait().expect("wait").is_some() {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "agg still runs 5 s after stdin closed"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = t.elapsed();
    eprintln!("exited {took:?} after stdin closed");
    assert!(
        took < Duration::from_millis(1500),
        "agg took {took:?} to exit after stdin closed"
    );
}

#[test]
fn an_open_listen_stream_does_not_delay_the_exit() {
    let (dir, _config, allowlist) = setup();
    let mut raw = Raw::start_modern(dir.path(), &allowlist);
    raw.send_value(&json!({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {"_meta": modern_meta(), "notifications": {"toolsListChanged": true}}}));
    let ack = raw.next();
    assert!(ack.get("error").is_none(), "{ack}");
    let t = Instant::now();
    raw.close_stdin();
    while raw.child.try_wait().expect("wait").is_none() {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "agg still runs 5 s after stdin closed"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = t.elapsed();
    assert!(
        took < Duration::from_millis(1500),
        "agg took {took:?} to exit after stdin closed"
    );
}

/// The `_meta` every 2026-07-28 request carries.
pub fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

#[test]
fn log_messages_in_2026_sessions_only_with_the_opt_in() {
    let (dir, _config, allowlist) = setup();
    let mut raw = Raw::start_modern(dir.path(), &allowlist);
    let chatty = |id: u64, meta: Value| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"_meta": meta, "name": "task_start", "arguments": {"unique_name": "chatty", "wait_ms": 1500, "allow_parallel": true}}});
    raw.send_value(&chatty(1, modern_meta()));
    let mut logs = 0;
    loop {
        let m = raw.next();
        if m["method"] == "notifications/message" {
            logs += 1;
        }
        if m["id"] == 1 {
            assert!(m.get("result").is_some(), "{m}");
            break;
        }
    }
    assert_eq!(
        logs, 0,
        "no notifications/message without io.modelcontextprotocol/logLevel"
    );
    let mut meta = modern_meta();
    meta["io.modelcontextprotocol/logLevel"] = json!("info");
    raw.send_value(&chatty(2, meta));
    loop {
        let m = raw.next();
        if m["method"] == "notifications/message" {
            logs += 1;
        }
        if m["id"] == 2 {
            break;
        }
    }
    assert!(logs > 0, "the opt-in brings the output as log messages");
}
