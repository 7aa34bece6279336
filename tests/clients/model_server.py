"""A scripted model for the host tests: a small HTTP server on 127.0.0.1 that speaks enough
of the Anthropic Messages API (Claude Code), the OpenAI Responses API (Codex), the Gemini API
(Gemini CLI) and OpenAI Chat Completions (Qwen Code) to drive one round of agg's tools
through a real host:

    turn 1: list_tasks {}
    turn 2: task_start {unique_name: ALLOWED}
    turn 3: task_start {unique_name: REFUSED}
    turn 4: task_output {unique_name: ALLOWED}
    then:   a final text answer

The turn is the number of tool results the host has fed back so far, so retries and side
requests (titles, token counts, classifiers) do not move the script. A request that does not
offer agg's tools gets a short text answer. Every request is appended to LOG as one JSON
line {"path": ..., "body": ...}: what the host sent the model, tool results included.

Usage: model_server.py PORT_FILE LOG ALLOWED REFUSED
The server writes its port to PORT_FILE once it listens, and exits when its parent dies.
"""

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT_FILE, LOG, ALLOWED, REFUSED = sys.argv[1:5]
LOCK = threading.Lock()

SCRIPT = [
    ("list_tasks", {}),
    ("task_start", {"unique_name": ALLOWED}),
    ("task_start", {"unique_name": REFUSED}),
    ("task_output", {"unique_name": ALLOWED}),
]
FINAL = "agg round finished"


def agg_tool(names, short):
    """The host's name for agg's tool `short` (hosts prefix MCP tool names)."""
    for name in names:
        if name == short or name.endswith("__" + short) or name.endswith("_" + short):
            if "agg" in name or name == short:
                return name
    return None


def step(names, results):
    """The tool call for this turn, or None for the final answer."""
    if agg_tool(names, "list_tasks") is None or results >= len(SCRIPT):
        return None
    short, args = SCRIPT[results]
    return agg_tool(names, short), args


def instance(schema):
    """The smallest value that fits a JSON schema (Gemini's side requests ask for JSON: a
    complexity score for the model router, a next-speaker check)."""
    kind = str(schema.get("type", "object")).lower()
    if schema.get("enum"):
        return schema["enum"][0]
    if kind == "object":
        return {k: instance(v) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return False
    return "user" if "speaker" in json.dumps(schema) else "ok"


def record(path, body):
    with LOCK:
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(json.dumps({"path": path, "body": body}) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return {"raw": raw.decode("utf-8", "replace")}

    def send_json(self, value, status=200):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_sse(self, events):
        """Server-sent events: (event name or None, data) pairs."""
        chunks = []
        for name, data in events:
            line = f"event: {name}\n" if name else ""
            text = data if isinstance(data, str) else json.dumps(data)
            chunks.append(f"{line}data: {text}\n\n")
        payload = "".join(chunks).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        record(self.path, None)
        if self.path.rstrip("/").endswith("/models"):
            self.send_json({"data": [], "models": []})
        else:
            self.send_json({}, 404)

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        body = self.body()
        record(self.path, body)
        path = self.path.split("?")[0]
        if path.endswith("/v1/messages/count_tokens"):
            self.send_json({"input_tokens": 100})
        elif path.endswith("/v1/messages"):
            self.anthropic(body)
        elif path.endswith("/chat/completions"):
            self.chat_completions(body)
        elif path.endswith("/responses"):
            self.openai_responses(body)
        elif ":countTokens" in path:
            self.send_json({"totalTokens": 100})
        elif ":streamGenerateContent" in path or ":generateContent" in path:
            self.gemini(body, stream=":streamGenerateContent" in path)
        else:
            self.send_json({"error": {"message": f"no such endpoint {path}"}}, 404)

    # Anthropic Messages (Claude Code).
    def anthropic(self, body):
        names = [t.get("name", "") for t in body.get("tools") or []]
        results = sum(
            1
            for m in body.get("messages") or []
            if m.get("role") == "user" and isinstance(m.get("content"), list)
            for block in m["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"
        )
        call = step(names, results)
        if call is None:
            content = [{"type": "text", "text": FINAL}]
            stop = "end_turn"
        else:
            content = [
                {
                    "type": "tool_use",
                    "id": f"toolu_{results}_{int(time.time() * 1000)}",
                    "name": call[0],
                    "input": call[1],
                }
            ]
            stop = "tool_use"
        message = {
            "id": f"msg_{results}",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "scripted"),
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        if not body.get("stream"):
            self.send_json(message)
            return
        start = dict(message, content=[], stop_reason=None)
        events = [("message_start", {"type": "message_start", "message": start})]
        for i, block in enumerate(content):
            if block["type"] == "text":
                events += [
                    (
                        "content_block_start",
                        {
                            "type": "content_block_start",
                            "index": i,
                            "content_block": {"type": "text", "text": ""},
                        },
                    ),
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": i,
                            "delta": {"type": "text_delta", "text": block["text"]},
                        },
                    ),
                ]
            else:
                events += [
                    (
                        "content_block_start",
                        {
                            "type": "content_block_start",
                            "index": i,
                            "content_block": dict(block, input={}),
                        },
                    ),
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": i,
                            "delta": {
                                "type": "input_json_delta",
                                "partial_json": json.dumps(block["input"]),
                            },
                        },
                    ),
                ]
            events.append(
                ("content_block_stop", {"type": "content_block_stop", "index": i})
            )
        events += [
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 5},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        self.send_sse(events)

    # OpenAI Responses (Codex).
    def openai_responses(self, body):
        # Codex offers each MCP server's tools in a namespace (`mcp__agg`): the call names
        # the namespace and the tool.
        names = []
        for t in body.get("tools") or []:
            if not isinstance(t, dict):
                continue
            if t.get("type") == "namespace":
                names += [
                    t.get("name", "") + "__" + s.get("name", "")
                    for s in t.get("tools") or []
                    if isinstance(s, dict)
                ]
            else:
                names.append(t.get("name", ""))
        results = sum(
            1
            for item in body.get("input") or []
            if isinstance(item, dict) and item.get("type") == "function_call_output"
        )
        call = step(names, results)
        rid = f"resp_{results}_{int(time.time() * 1000)}"
        if call is None:
            item = {
                "type": "message",
                "id": f"msg_{rid}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": FINAL, "annotations": []}],
            }
        else:
            namespace, _, name = call[0].rpartition("__")
            item = {
                "type": "function_call",
                "id": f"fc_{rid}",
                "call_id": f"call_{rid}",
                "name": name,
                "arguments": json.dumps(call[1]),
                "status": "completed",
            }
            if namespace:
                item["namespace"] = namespace
        response = {
            "id": rid,
            "object": "response",
            "status": "completed",
            "model": body.get("model", "scripted"),
            "output": [item],
            "usage": {
                "input_tokens": 10,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 5,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 15,
            },
        }
        created = dict(response, status="in_progress", output=[])
        self.send_sse(
            [
                ("response.created", {"type": "response.created", "response": created}),
                (
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": 0, "item": item},
                ),
                (
                    "response.completed",
                    {"type": "response.completed", "response": response},
                ),
            ]
        )

    # OpenAI Chat Completions (Qwen Code).
    def chat_completions(self, body):
        names = [
            (t.get("function") or {}).get("name", "")
            for t in body.get("tools") or []
            if isinstance(t, dict)
        ]
        results = sum(1 for m in body.get("messages") or [] if m.get("role") == "tool")
        call = step(names, results)
        # Qwen Code declares MCP tools lazily: their names are in a reminder, and the model
        # calls them through its `tool_call` tool.
        if call is None and results < len(SCRIPT) and "tool_call" in names:
            short, args = SCRIPT[results]
            deferred = "mcp__agg__" + short
            if deferred in json.dumps(body.get("messages")):
                call = ("tool_call", {"name": deferred, "arguments": args})
        cid = f"chatcmpl_{results}_{int(time.time() * 1000)}"
        if call is None:
            message = {"role": "assistant", "content": FINAL}
            finish = "stop"
        else:
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "index": 0,
                        "id": f"call_{cid}",
                        "type": "function",
                        "function": {"name": call[0], "arguments": json.dumps(call[1])},
                    }
                ],
            }
            finish = "tool_calls"
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        base = {"id": cid, "created": int(time.time()), "model": body.get("model", "scripted")}
        if not body.get("stream"):
            self.send_json(
                dict(
                    base,
                    object="chat.completion",
                    choices=[{"index": 0, "message": message, "finish_reason": finish}],
                    usage=usage,
                )
            )
            return
        chunk = dict(base, object="chat.completion.chunk")
        self.send_sse(
            [
                (None, dict(chunk, choices=[{"index": 0, "delta": message, "finish_reason": None}])),
                (
                    None,
                    dict(chunk, choices=[{"index": 0, "delta": {}, "finish_reason": finish}], usage=usage),
                ),
                (None, "[DONE]"),
            ]
        )

    # Gemini generateContent / streamGenerateContent (Gemini CLI).
    def gemini(self, body, stream):
        names = [
            d.get("name", "")
            for tool in body.get("tools") or []
            for d in tool.get("functionDeclarations") or []
        ]
        results = sum(
            1
            for c in body.get("contents") or []
            for part in c.get("parts") or []
            if isinstance(part, dict) and "functionResponse" in part
        )
        call = step(names, results)
        config = body.get("generationConfig") or {}
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
        if schema and not names:
            parts = [{"text": json.dumps(instance(schema))}]
        elif call is None:
            parts = [{"text": FINAL}]
        else:
            parts = [{"functionCall": {"name": call[0], "args": call[1]}}]
        reply = {
            "candidates": [
                {
                    "content": {"role": "model", "parts": parts},
                    "finishReason": "STOP",
                    "index": 0,
                }
            ],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 5,
                "totalTokenCount": 15,
            },
            "modelVersion": "scripted",
        }
        if stream:
            self.send_sse([(None, reply)])
        else:
            self.send_json(reply)


def watch_parent():
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=watch_parent, daemon=True).start()
    tmp = PORT_FILE + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, PORT_FILE)
    server.serve_forever()


if __name__ == "__main__":
    main()
