#!/usr/bin/env python3
"""A scripted model for a real agent runtime: an OpenAI-compatible chat-completions server on
127.0.0.1 that answers each turn of the conversation from a scenario file, so that OpenCode
(and DevEco Code, built from it) runs for real against a model whose every word is known.

    model_server.py SCENARIO.json PORT_FILE

SCENARIO.json is a list of turns, one per request that carries tools (the runtime's title
request, which carries none, gets a fixed title):
    {"tool": "edit", "arguments": {...}}   a tool call (finish_reason tool_calls)
    {"text": "Result: PASS"}               a closing text (finish_reason stop)
    {"status": 500}                        the request fails with that HTTP status
    {"cut": "partial text"}                a stream that stops mid-answer, without [DONE]
    {"fail": "overloaded"}                 a stream that begins, then carries an error object
    {"stall": true}                        no answer, ever
Past the last turn, every request gets {"text": "done"}. The port it listens on is written to
PORT_FILE once it listens; every request is appended to PORT_FILE + ".log" (its path, how many
tools and messages it carried, and the start of the last user message)."""

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SCENARIO = json.load(open(sys.argv[1]))
PORT_FILE = sys.argv[2]
LOCK = threading.Lock()
NEXT = [0]


def chunk(delta, finish=None):
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


class Model(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_json(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.rstrip("/").endswith("/models"):
            self.send_json(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
        else:
            self.send_json(404, {"error": {"message": "not found"}})

    def events(self, chunks, done=True):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for c in chunks:
            self.wfile.write(b"data: " + json.dumps(c).encode() + b"\n\n")
            self.wfile.flush()
        if done:
            self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        messages = body.get("messages") or []
        users = [m.get("content") for m in messages if m.get("role") == "user"]
        last = users[-1] if users else ""
        if isinstance(last, list):
            last = " ".join(str(part.get("text", "")) for part in last if isinstance(part, dict))
        last = last if isinstance(last, str) else ""
        with open(PORT_FILE + ".log", "a") as log:
            log.write(json.dumps({"path": self.path, "tools": len(body.get("tools") or []),
                                  "messages": len(messages), "last-user": last[:2000]}) + "\n")
        if not body.get("tools"):
            turn = {"text": "Scripted session"}
        else:
            with LOCK:
                i = NEXT[0]
                NEXT[0] += 1
            turn = SCENARIO[i] if i < len(SCENARIO) else {"text": "done"}
        if "status" in turn:
            self.send_json(turn["status"], {"error": {"message": "scripted failure", "type": "server_error"}})
        elif turn.get("stall"):
            time.sleep(3600)
        elif "fail" in turn:
            self.events([chunk({"role": "assistant", "content": "Working on it"}),
                         {"error": {"message": turn["fail"], "type": "invalid_request_error", "code": "scripted"}}],
                        done=False)
        elif "cut" in turn:
            self.events([chunk({"role": "assistant", "content": turn["cut"]})], done=False)
        elif "tool" in turn:
            call = {"index": 0, "id": "call_%d" % NEXT[0], "type": "function",
                    "function": {"name": turn["tool"], "arguments": json.dumps(turn["arguments"])}}
            self.events([chunk({"role": "assistant", "tool_calls": [call]}), chunk({}, "tool_calls")])
        else:
            self.events([chunk({"role": "assistant", "content": turn["text"]}), chunk({}, "stop")])


server = ThreadingHTTPServer(("127.0.0.1", 0), Model)
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os
os.replace(PORT_FILE + ".tmp", PORT_FILE)
server.serve_forever()
