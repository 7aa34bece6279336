//! The stdio front of `agg mcp`: every line the client sends is checked here before rmcp
//! sees it, so every malformed line gets the JSON-RPC answer the specification asks for.
//!
//! rmcp 3.9's stdio transport drops unparseable lines without a reply, answers a protocol
//! error with no `id`, lets a known method with bad params fall through to its custom
//! request handler (-32601), discards an over-long line silently, and, when stdin closes,
//! waits up to 5 s for in-flight requests. agg keeps rmcp for the protocol and puts this
//! front between it and the process's stdio:
//!
//! - a line that is not JSON: -32700 with `id: null`;
//! - JSON that is not a JSON-RPC 2.0 message (or a batch, which MCP does not allow):
//!   -32600 with the message's `id` when it has a usable one, else `null`;
//! - a known method whose params do not fit: -32602 with the `id`; an unknown one: -32601;
//! - a line over [`MAX_LINE`] bytes: read to its end without keeping it, then -32600;
//! - everything else goes to rmcp unchanged, through an in-memory pipe; rmcp's output and
//!   these replies are written to stdout whole lines at a time, never interleaved.
//!
//! Every line out goes through the [`Outbox`], which bounds what waits for a client that
//! does not read: a request is read and handed to rmcp only when one of a fixed number of
//! places is free, and its place is freed when its answer is taken to be written.
//!
//! End of stdin is reported through [`Front::closed`], so the server can stop its jobs and
//! exit within a second whatever is in flight.

use std::sync::Arc;

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::oneshot;

use super::outbox::{Admission, Outbox, id_key};

/// Longest line accepted from the client (16 MiB, rmcp's own default).
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// The standard MCP methods a client may call: a bad `params` on one of these is -32602.
const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "tasks/get",
    "tasks/list",
    "tasks/result",
    "tasks/cancel",
];

/// JSON-RPC error codes of the specification.
mod rpc {
    pub const PARSE_ERROR: i32 = -32700;
    pub const INVALID_REQUEST: i32 = -32600;
    pub const METHOD_NOT_FOUND: i32 = -32601;
    pub const INVALID_PARAMS: i32 = -32602;
}

/// The two ends rmcp is served on, and the signal that stdin closed.
#[derive(Debug)]
pub struct Front {
    /// What rmcp reads: the client's valid lines.
    pub read: DuplexStream,
    /// Where rmcp writes: copied to stdout line by line.
    pub write: DuplexStream,
    /// Fires when the client closed stdin (or it failed).
    pub closed: oneshot::Receiver<()>,
    /// The stdout writer: it ends once rmcp's side and the reader are both gone.
    pub writer: tokio::task::JoinHandle<()>,
}

/// Starts the front on the process's stdin and stdout.
pub fn stdio() -> Front {
    start(tokio::io::stdin(), tokio::io::stdout())
}

/// Starts the front on any reader and writer (tests use in-memory pipes).
pub fn start<R, W>(input: R, output: W) -> Front
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    const PIPE: usize = 1024 * 1024;
    let (rmcp_read, feed) = tokio::io::duplex(PIPE);
    let (rmcp_write, drain) = tokio::io::duplex(PIPE);
    let outbox = Arc::new(Outbox::default());
    let (closed_tx, closed) = oneshot::channel();
    let writer = {
        let outbox = Arc::clone(&outbox);
        tokio::spawn(async move { outbox.write_to(output).await })
    };
    {
        let outbox = Arc::clone(&outbox);
        tokio::spawn(async move {
            drain_rmcp(drain, &outbox).await;
            outbox.rmcp_done();
        });
    }
    tokio::spawn(async move {
        read_loop(input, feed, &outbox).await;
        outbox.reader_done();
        let _ = closed_tx.send(());
    });
    Front {
        read: rmcp_read,
        write: rmcp_write,
        closed,
        writer,
    }
}

async fn read_loop<R: AsyncRead + Unpin>(input: R, mut feed: DuplexStream, outbox: &Outbox) {
    let mut input = BufReader::with_capacity(64 * 1024, input);
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = read_line(&mut input, &mut line).await;
        let (too_long, eof) = match read {
            Ok(Line::Complete) => (false, false),
            Ok(Line::TooLong) => (true, false),
            Ok(Line::Eof) => (false, true),
            Err(err) => {
                tracing::warn!("stdin: {err}");
                return;
            }
        };
        if too_long {
            tracing::warn!("a message over {MAX_LINE} bytes was refused");
            let reply = error(
                &Value::Null,
                rpc::INVALID_REQUEST,
                &format!("message too large: at most {MAX_LINE} bytes per line"),
            );
            if !outbox.reply(reply).await {
                return;
            }
            continue;
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if !text.iter().all(u8::is_ascii_whitespace) {
            let forward = match check(text) {
                Verdict::Forward => true,
                Verdict::Request(id) => match outbox.admit(&id).await {
                    Admission::Admitted => true,
                    Admission::Closed => return,
                    Admission::Duplicate => {
                        let reply = error(
                            &serde_json::from_str(&id).unwrap_or(Value::Null),
                            rpc::INVALID_REQUEST,
                            "invalid request: a request with this id is still in flight",
                        );
                        if !outbox.reply(reply).await {
                            return;
                        }
                        false
                    }
                },
                Verdict::Cancel(id) => {
                    outbox.cancelled(&id);
                    true
                }
                Verdict::Reply(reply) => {
                    if !outbox.reply(reply).await {
                        return;
                    }
                    false
                }
                Verdict::Drop => false,
            };
            if forward {
                let mut owned = text.to_vec();
                owned.push(b'\n');
                if feed.write_all(&owned).await.is_err() {
                    return;
                }
            }
        }
        if eof {
            return;
        }
    }
}

enum Line {
    Complete,
    TooLong,
    Eof,
}

/// Reads one line into `buf` (with its newline), keeping at most [`MAX_LINE`] bytes: the
/// rest of a longer line is consumed and dropped.
async fn read_line<R: AsyncRead + Unpin>(
    input: &mut BufReader<R>,
    buf: &mut Vec<u8>,
) -> std::io::Result<Line> {
    let mut too_long = false;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok(if too_long {
                Line::TooLong
            } else if buf.is_empty() {
                Line::Eof
            } else {
                // A last line without a newline still counts; the next read says EOF.
                Line::Complete
            });
        }
        let (chunk, done) = match memchr::memchr(b'\n', available) {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let used = chunk.len();
        if !too_long {
            if buf.len() + chunk.len() > MAX_LINE + 1 {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        input.consume(used);
        if done {
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Complete
            });
        }
    }
}

enum Verdict {
    /// A notification or a response: to rmcp, nothing to wait for.
    Forward,
    /// A request with this id (JSON text): to rmcp once it has a place.
    Request(String),
    /// `notifications/cancelled` for this request id: to rmcp, and its place is free.
    Cancel(String),
    Reply(Vec<u8>),
    Drop,
}

/// Decides what to do with one line.
fn check(line: &[u8]) -> Verdict {
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Verdict::Reply(error(
                &Value::Null,
                rpc::PARSE_ERROR,
                &format!("parse error: {e}"),
            ));
        }
    };
    let Value::Object(map) = &value else {
        let what = if value.is_array() {
            "batches are not supported by MCP; send one message per line"
        } else {
            "a JSON-RPC message is an object"
        };
        return Verdict::Reply(error(&Value::Null, rpc::INVALID_REQUEST, what));
    };
    let id = match map.get("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(id.clone()),
        Some(_) => {
            return Verdict::Reply(error(
                &Value::Null,
                rpc::INVALID_REQUEST,
                "invalid request: id must be a string or a number",
            ));
        }
    };
    let reply_id = id.clone().unwrap_or(Value::Null);
    if map.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Verdict::Reply(error(
            &reply_id,
            rpc::INVALID_REQUEST,
            "invalid request: jsonrpc must be \"2.0\"",
        ));
    }
    let method = match map.get("method") {
        Some(Value::String(m)) => Some(m.as_str()),
        Some(_) => {
            return Verdict::Reply(error(
                &reply_id,
                rpc::INVALID_REQUEST,
                "invalid request: method must be a string",
            ));
        }
        None => None,
    };
    if map
        .get("params")
        .is_some_and(|p| !p.is_object() && !p.is_array())
    {
        if id.is_none() {
            return Verdict::Drop;
        }
        return Verdict::Reply(error(
            &reply_id,
            rpc::INVALID_PARAMS,
            "invalid params: params must be an object",
        ));
    }
    let Some(method) = method else {
        // A response to one of agg's requests (result or error with an id).
        let is_response = id.is_some() && (map.contains_key("result") || map.contains_key("error"));
        return if is_response {
            Verdict::Forward
        } else {
            Verdict::Reply(error(
                &reply_id,
                rpc::INVALID_REQUEST,
                "invalid request: no method",
            ))
        };
    };
    // Read again from the bytes: cloning a large `Value` would cost more than parsing.
    let parsed = serde_json::from_slice::<ClientJsonRpcMessage>(line);
    let Some(_) = id else {
        // Notifications get no reply, valid or not; rmcp ignores the ones it does not know.
        return if parsed.is_ok() {
            match cancelled_id(&value, method) {
                Some(id) => Verdict::Cancel(id),
                None => Verdict::Forward,
            }
        } else {
            tracing::debug!("dropped a malformed notification `{method}`");
            Verdict::Drop
        };
    };
    let known = KNOWN_METHODS.contains(&method);
    match parsed {
        Ok(JsonRpcMessage::Request(req))
            if known && matches!(req.request, ClientRequest::CustomRequest(_)) =>
        {
            Verdict::Reply(error(
                &reply_id,
                rpc::INVALID_PARAMS,
                &params_problem(&value, method),
            ))
        }
        Ok(_) if known => Verdict::Request(id_key(&reply_id)),
        Ok(_) | Err(_) if !known => Verdict::Reply(error(
            &reply_id,
            rpc::METHOD_NOT_FOUND,
            &format!("method not found: {method}"),
        )),
        _ => Verdict::Reply(error(
            &reply_id,
            rpc::INVALID_PARAMS,
            &params_problem(&value, method),
        )),
    }
}

/// The request a `notifications/cancelled` names, as the outbox keys it.
fn cancelled_id(value: &Value, method: &str) -> Option<String> {
    if method != "notifications/cancelled" {
        return None;
    }
    match value.get("params")?.get("requestId")? {
        id @ (Value::String(_) | Value::Number(_)) => Some(id_key(id)),
        _ => None,
    }
}

/// Why a known method's params did not fit, as precisely as serde can say.
fn params_problem(value: &Value, method: &str) -> String {
    let detail = serde_json::from_value::<ClientRequest>(json!({
        "method": method,
        "params": value.get("params").cloned().unwrap_or(Value::Null),
    }))
    .err()
    .map(|e| e.to_string());
    match detail {
        Some(d) if !d.contains("did not match any variant") => {
            format!("invalid params for {method}: {d}")
        }
        _ => format!("invalid params for {method}"),
    }
}

fn error(id: &Value, code: i32, message: &str) -> Vec<u8> {
    let mut out = serde_json::to_vec(&json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    }))
    .unwrap_or_default();
    out.push(b'\n');
    out
}

/// Copies rmcp's output to the outbox line by line, as fast as rmcp writes it: rmcp never
/// waits on a slow client, and the outbox decides what is kept.
async fn drain_rmcp(drain: DuplexStream, outbox: &Outbox) {
    let mut drain = BufReader::with_capacity(64 * 1024, drain);
    loop {
        let mut line = Vec::new();
        match drain.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => outbox.rmcp_line(line),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(line: &str) -> Option<Value> {
        match check(line.as_bytes()) {
            Verdict::Reply(bytes) => serde_json::from_slice(&bytes).ok(),
            Verdict::Forward | Verdict::Request(_) | Verdict::Cancel(_) | Verdict::Drop => None,
        }
    }

    #[test]
    fn each_malformed_line_gets_the_specified_error() {
        let r = reply("{not json").expect("reply");
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (Value::Null, json!(-32700))
        );
        let r = reply(r#"{"id":7,"method":"ping"}"#).expect("reply");
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (json!(7), json!(-32600))
        );
        let r = reply(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).expect("reply");
        assert_eq!(r["error"]["code"], -32600);
        assert!(r.as_object().expect("object").contains_key("id"));
        let r = reply(r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":"x"}}"#).expect("reply");
        assert_eq!(
            (r["id"].clone(), r["error"]["code"].clone()),
            (json!("a"), json!(-32602))
        );
        let r = reply(
            r#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"loud"}}"#,
        )
        .expect("reply");
        assert_eq!(r["error"]["code"], -32602);
        let r = reply(r#"{"jsonrpc":"2.0","id":3,"method":"nope/nothing"}"#).expect("reply");
        assert_eq!(r["error"]["code"], -32601);
        let r =
            reply(r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":"x"}"#).expect("reply");
        assert_eq!(r["error"]["code"], -32602);
    }

    #[test]
    fn valid_messages_and_notifications_pass() {
        for ok in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":9,"result":{}}"#,
        ] {
            assert!(
                matches!(check(ok.as_bytes()), Verdict::Forward | Verdict::Request(_)),
                "{ok}"
            );
        }
        assert!(matches!(
            check(br#"{"jsonrpc":"2.0","method":"x/y","params":3}"#),
            Verdict::Drop
        ));
    }

    #[tokio::test]
    async fn an_over_long_line_is_answered_and_the_next_one_still_read() {
        let (mut client, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, mut client_out) = tokio::io::duplex(1 << 16);
        let front = start(server_in, server_out);
        let writer = tokio::spawn(async move {
            let big = vec![b'x'; MAX_LINE + 10];
            client.write_all(&big).await.expect("write");
            client.write_all(b"\n{bad\n").await.expect("write");
        });
        let mut reader = BufReader::new(&mut client_out);
        let mut first = String::new();
        reader.read_line(&mut first).await.expect("read");
        let mut second = String::new();
        reader.read_line(&mut second).await.expect("read");
        writer.await.expect("writer");
        let first: Value = serde_json::from_str(&first).expect("json");
        let second: Value = serde_json::from_str(&second).expect("json");
        assert_eq!(first["error"]["code"], -32600);
        assert_eq!(second["error"]["code"], -32700);
        drop(front);
    }
}
