"""A local HTTP server speaking the chat-completions protocol, told per request how to fail.

Used by the endpoint tests: it runs in the test process on 127.0.0.1 and only answers there.
`server.script` is a list of behaviours consumed one per request; when it is empty, `server.default`
is used. Behaviours: ("ok", text), ("status", code), ("stall", seconds), ("garbage", body),
("redirect", url) (a 302; ("redirect307", url) a 307), ("big", n_bytes), ("drip", seconds) (a
completion sent one byte every `seconds`, as a server that keeps a socket alive would),
("echo_auth", code) (an error whose body repeats the request's Authorization header, as some
proxies do), ("bomb", (encodings, decoded_bytes)) (a completion whose text is `decoded_bytes` long, sent
compressed with `encodings` applied in order, e.g. ("gzip", "gzip"): a few KB on the wire; see `bomb`),
("html", body) (a 200 with Content-Type text/html, as a login page or a proxy's error page).
Every request (path, headers, body) is kept in `server.requests`.
`server.wait_for_requests(n)` blocks until n requests have come in (a test waits on that, not a sleep).
A text may be a function of the request body, so replies can depend on the prompt (`echo_marker`);
`server.delay` seconds pass before every reply (the requests are served concurrently).
"""
from __future__ import annotations

import json
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def completion(text: str, prompt_tokens: int = 11, completion_tokens: int = 7) -> dict:
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "fake",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}}


def prompt_of(body: dict) -> str:
    return "\n".join(str(m.get("content", "")) for m in body.get("messages", []))


def echo_marker(body: dict) -> str:
    """A summary that depends on the prompt: it names the prompt's MARKER-... word and keeps the
    scratchpad's lines that hold a ticket or order id (A-1001, T-4870, ...), as a model might."""
    import re

    prompt = prompt_of(body)
    marker = re.search(r"MARKER-[A-Za-z0-9]+", prompt)
    kept = [line.strip() for line in prompt.splitlines() if re.search(r"\b[ATCR]-\d{4,5}\b", line)][:6]
    words = " ".join(prompt.split()[:4])
    return "\n".join([f"Summary by {marker.group(0) if marker else words}"] + kept)


def keeps_pins(body: dict) -> str:
    """A summary that keeps nothing of the scratchpad but what the prompt asks it to keep verbatim (the lines
    after model/pins.ASK), as a model that follows "pass pins to the summarizer" would: without the ask, every
    pin is lost; with it, every pin is kept."""
    from scratchpad_lab.model.pins import ASK

    prompt = prompt_of(body)
    asked = prompt.split(ASK, 1)[1].splitlines() if ASK in prompt else []
    pins = [line[2:].strip() for line in asked if line.startswith("- ")]
    return "\n".join(["Key findings: the agent is working on the ticket."] + [f"Pinned: {p}" for p in pins]
                     + ["Tool results: read.", "Current status: in progress."])


_BOMBS: dict = {}


def bomb(encodings, decoded_bytes: int) -> bytes:
    """A completion of `decoded_bytes` of text, compressed with each of `encodings` in turn ("gzip",
    "deflate", "zstd"). Built in pieces, never whole in memory, and kept: a 400 MB bomb is about 1 KB."""
    key = (tuple(encodings), decoded_bytes)
    if key in _BOMBS:
        return _BOMBS[key]
    head, tail = json.dumps(completion("@")).encode().split(b"@")

    def pieces():
        yield head
        block = b"x" * (1 << 20)
        left = decoded_bytes
        while left > 0:
            yield block[:min(left, len(block))]
            left -= len(block)
        yield tail

    def compressed(source, coding):
        if coding == "zstd":
            import zstandard
            packer = zstandard.ZstdCompressor().compressobj()
            for piece in source:
                yield packer.compress(piece)
            yield packer.flush()
            return
        packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16 if coding == "gzip" else zlib.MAX_WBITS)
        for piece in source:
            yield packer.compress(piece)
        yield packer.flush()

    stream = pieces()
    for coding in encodings:
        stream = compressed(stream, coding)
    _BOMBS[key] = body = b"".join(stream)
    return body


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep test output clean
        pass

    def _send(self, code: int, body: bytes, headers: dict = None, content_type: str = "application/json") -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _drip(self, body: bytes, every: float) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            for i in range(len(body)):
                self.wfile.write(body[i:i + 1])
                self.wfile.flush()
                if self.server.stalled.wait(every):
                    return
        except (BrokenPipeError, ConnectionResetError):
            self.server.dropped += 1

    def do_POST(self):
        server = self.server
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace")
        with server.lock:
            server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            server.lock.notify_all()  # wakes wait_for_requests
            kind, arg = server.script.pop(0) if server.script else server.default
        if server.delay:
            server.stalled.wait(server.delay)
        if callable(arg):
            arg = arg(json.loads(body))
        if kind == "ok":
            self._send(200, json.dumps(completion(arg)).encode())
        elif kind == "status":
            self._send(arg, json.dumps({"error": {"message": f"fake error {arg}", "type": "test"}}).encode())
        elif kind == "stall":
            server.stalled.wait(arg)
            self._send(200, json.dumps(completion("late")).encode())
        elif kind == "garbage":
            self._send(200, arg.encode() if isinstance(arg, str) else arg)
        elif kind in ("redirect", "redirect307"):
            self._send(302 if kind == "redirect" else 307, b"{}", {"Location": arg})
        elif kind == "echo_auth":
            echoed = {"error": {"message": f"bad credentials: {self.headers.get('Authorization')}",
                                "type": "auth", "headers": dict(self.headers)}}
            self._send(arg, json.dumps(echoed).encode())
        elif kind == "drip":
            self._drip(json.dumps(completion("slow")).encode(), arg)
        elif kind == "big":
            self._send(200, json.dumps(completion("x" * arg)).encode())
        elif kind == "bomb":
            encodings, size = arg
            self._send(200, bomb(encodings, size), {"Content-Encoding": ", ".join(encodings)})
        elif kind == "html":
            self._send(200, arg.encode(), content_type="text/html; charset=utf-8")


class FakeOpenAI(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Condition()  # guards script and requests; notified at every request
        self.script = []
        self.default = ("ok", "hello")
        self.requests = []
        self.delay = 0.0
        self.stalled = threading.Event()  # set at shutdown so stalled handlers end
        self.dropped = 0  # drip replies the client hung up on
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    def wait_for_requests(self, count: int, timeout_s: float = 10.0) -> bool:
        """Block until `count` requests have come in (True) or `timeout_s` has passed (False)."""
        with self.lock:
            return self.lock.wait_for(lambda: len(self.requests) >= count, timeout_s)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def __enter__(self) -> "FakeOpenAI":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stalled.set()
        self.shutdown()
        self.server_close()


# A scripted agent's replies, for tests that drive the real agent through this server: one tool step on
# the support-ticket scenario, then a final answer.
STEP = json.dumps({"thought": "Read the ticket.", "actions": [
    {"action": "get_ticket", "action_input": {"ticket_id": "T-5521"}}], "final_answer": None})
ANSWER = json.dumps({"thought": "done", "actions": [], "final_answer": "Order A-1001 for Asha Rao."})
