"""The lab's one HTTP transport: every model call (agent, summarizer, Test connection, the prompt
matrix, the LangChain strategies) goes through it, by way of providers.EndpointLLM.

Streamlit-free. What it holds to, below the HTTP client (so no caller can go around it):
- hosted mode connects only to the address that was checked (DNS pinning: addresses.public_address
  resolved the host once; a second DNS answer reaches nothing), and to no other host at all;
- no keep-alive: each call has its own socket, closed when the call ends (or is abandoned);
- the whole call is bounded by its deadline (`CallGuard`): every connect, write and read waits at
  most until then. httpx's own read timeout restarts with each byte, so a server sending one byte
  every 0.5 s would keep a call alive for ever; here it cannot;
- Stop: a read waits in slices of `POLL_S` and ends as soon as the call's stop event is set, so an
  abandoned call's thread and socket end within a fraction of a second, not at its timeout;
- the reply is capped while it arrives (`CallGuard.max_bytes`): a 5 MB reply is cut off at the cap,
  never held whole in memory;
- compressed replies are bounded too: the lab asks for an uncompressed reply (Accept-Encoding:
  identity); a server that compresses anyway may use one layer of gzip or deflate, which the lab decodes
  itself, a piece at a time, counting the decoded bytes against the same cap (`CappedInflate`), so a
  1 KB gzip bomb stops at the cap, not at 400 MB. Any other encoding (br, zstd, compress, or layers such
  as "gzip, gzip") is refused before a byte is decoded (`reason` "encoding"); httpx never decodes.
Redirects are refused by the client (follow_redirects=False, see providers.py); environment proxies
are not used (trust_env=False), so no variable can route a call around these rules.
"""
from __future__ import annotations

import importlib
import sys
import threading
import time
import zlib
from contextlib import contextmanager
from typing import Iterator, Optional, Tuple

POLL_S = 0.25  # how often a waiting read looks at Stop
DECODED_PIECE = 64 * 1024  # most bytes one decompress step may produce (the cap is checked after each)
DECODED_ENCODINGS = ("gzip", "x-gzip", "deflate")  # one layer of these is decoded here; nothing else is


class CallGuard:
    """One call's limits: an absolute deadline (time.monotonic), a byte cap, an optional stop event.
    `reason` says why the transport ended the call early: "deadline", "stopped", "too_large", "encoding"
    (a Content-Encoding the lab does not decode; `encoding` names it) or "damaged" (a gzip or deflate
    body that does not decode). `decoded` counts the bytes a compressed reply has decoded to so far."""

    def __init__(self, timeout_s: float, max_bytes: int, stop_event: Optional[threading.Event] = None) -> None:
        self.deadline = time.monotonic() + max(0.0, timeout_s)
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes
        self.stop_event = stop_event
        self.received = 0
        self.decoded = 0
        self.reason: Optional[str] = None
        self.encoding: Optional[str] = None

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def stopped(self) -> bool:
        return self.stop_event is not None and self.stop_event.is_set()


_local = threading.local()


@contextmanager
def guarded(guard: CallGuard) -> Iterator[CallGuard]:
    """Every request made on this thread inside the block is held to `guard`."""
    previous = getattr(_local, "guard", None)
    _local.guard = guard
    try:
        yield guard
    finally:
        _local.guard = previous


def current_guard() -> Optional[CallGuard]:
    return getattr(_local, "guard", None)


def http_modules():
    """(httpx, httpcore): the HTTP library openai's own client is built on (httpx, or its successor
    httpx2) and its core."""
    import openai

    httpx = sys.modules[openai.DefaultHttpxClient.__mro__[1].__module__.split(".")[0]]
    return httpx, importlib.import_module(httpx.__name__.replace("httpx", "httpcore", 1))


_CLASSES: list = []


def _classes():
    if _CLASSES:
        return _CLASSES[0]
    httpx, core = http_modules()

    def bounded(timeout: Optional[float], guard: CallGuard) -> float:
        left = guard.left()
        return left if timeout is None else min(timeout, left)

    class GuardedStream(core.NetworkStream):
        def __init__(self, inner, guard: CallGuard) -> None:
            self._inner, self._guard = inner, guard

        def _check(self) -> None:
            guard = self._guard
            if guard.stopped():
                guard.reason = guard.reason or "stopped"
                raise core.ReadError("the call was stopped")
            if guard.left() <= 0:
                guard.reason = guard.reason or "deadline"
                raise core.ReadTimeout(f"the call passed its {guard.timeout_s:g} s deadline")

        def read(self, max_bytes: int, timeout: Optional[float] = None) -> bytes:
            guard = self._guard
            quiet_until = None if timeout is None else time.monotonic() + timeout  # httpx's gap between bytes
            while True:
                self._check()
                wait = min(POLL_S, guard.left())
                if quiet_until is not None:
                    wait = min(wait, quiet_until - time.monotonic())
                    if wait <= 0:
                        raise core.ReadTimeout("no data within the read timeout")
                try:
                    data = self._inner.read(max_bytes, max(wait, 0.001))
                except core.ReadTimeout:
                    continue  # a slice passed quietly: look at Stop and the deadline again
                guard.received += len(data)
                if guard.received > guard.max_bytes:
                    guard.reason = "too_large"
                    raise core.ReadError(f"the reply passed the {guard.max_bytes:,}-byte cap")
                return data

        def write(self, buffer: bytes, timeout: Optional[float] = None) -> None:
            self._check()
            self._inner.write(buffer, bounded(timeout, self._guard))

        def close(self) -> None:
            self._inner.close()

        def start_tls(self, ssl_context, server_hostname=None, timeout=None):
            self._check()
            return GuardedStream(self._inner.start_tls(ssl_context, server_hostname,
                                                       bounded(timeout, self._guard)), self._guard)

        def get_extra_info(self, info: str):
            return self._inner.get_extra_info(info)

    class GuardedBackend(core.NetworkBackend):
        """Connects to the pinned address (hosted mode) and binds each new stream to the call's guard."""

        def __init__(self, pin: Optional[Tuple[str, str]], default_guard) -> None:
            self._inner = core.SyncBackend()
            self._pin = pin
            self._default_guard = default_guard

        def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
            guard = current_guard() or self._default_guard()
            if self._pin is not None:
                name = host.decode("ascii") if isinstance(host, bytes) else str(host)
                if name.lower() != self._pin[0]:
                    raise core.ConnectError(f"only the checked host {self._pin[0]} may be reached")
                host = self._pin[1]
            if guard.left() <= 0:
                guard.reason = guard.reason or "deadline"
                raise core.ConnectTimeout("no time left to connect")
            stream = self._inner.connect_tcp(host, port, bounded(timeout, guard), local_address, socket_options)
            return GuardedStream(stream, guard)

        def connect_unix_socket(self, *args, **kwargs):
            raise core.ConnectError("the lab connects over TCP only")

        def sleep(self, seconds: float) -> None:
            time.sleep(seconds)

    class CappedInflate(httpx.SyncByteStream):
        """A gzip or deflate body decoded a piece at a time (at most DECODED_PIECE bytes per step), its
        decoded size held to the guard's cap: the decoding stops at the cap, whatever the wire size."""

        def __init__(self, raw, coding: str, guard: CallGuard) -> None:
            self._raw, self._guard = raw, guard
            self._gzip = coding != "deflate"
            self._inflater = zlib.decompressobj(zlib.MAX_WBITS | 16 if self._gzip else zlib.MAX_WBITS)
            self._first = True

        def _inflate(self, data: bytes) -> bytes:
            try:
                return self._inflater.decompress(data, DECODED_PIECE)
            except zlib.error as exc:
                if self._first and not self._gzip:  # "deflate" sent raw, without its zlib header, as some do
                    self._first = False
                    self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)
                    return self._inflate(data)
                self._guard.reason = self._guard.reason or "damaged"
                raise httpx.DecodingError(f"the compressed reply is damaged ({exc})") from None

        def _pieces(self, data: bytes):
            """The decoded pieces of one chunk off the wire, then what the inflater still holds."""
            while True:
                piece = self._inflate(data)
                self._first = False
                data = b"" if self._inflater.eof else self._inflater.unconsumed_tail
                if piece:
                    yield piece
                if not data and (len(piece) < DECODED_PIECE or self._inflater.eof):
                    return

        def __iter__(self):
            guard = self._guard
            for data in self._raw:
                for piece in self._pieces(data):
                    guard.decoded += len(piece)
                    if guard.decoded > guard.max_bytes:
                        guard.reason = "too_large"
                        raise httpx.ReadError(f"the decoded reply passed the {guard.max_bytes:,}-byte cap")
                    yield piece

        def close(self) -> None:
            self._raw.close()

    class LabTransport(httpx.HTTPTransport):
        def __init__(self, pin: Optional[Tuple[str, str]], timeout_s: float, max_bytes: int) -> None:
            super().__init__(trust_env=False, retries=0)
            self._pool.close()
            self._default_guard = lambda: CallGuard(timeout_s, max_bytes)
            self._pool = core.ConnectionPool(
                ssl_context=httpx.create_ssl_context(trust_env=False), max_connections=10,
                max_keepalive_connections=0, retries=0,
                network_backend=GuardedBackend(pin, self._default_guard))

        def handle_request(self, request):
            request.headers["Accept-Encoding"] = "identity"
            response = super().handle_request(request)
            codings = [c.strip().lower() for c in response.headers.get_list("content-encoding", split_commas=True)]
            codings = [c for c in codings if c and c != "identity"]
            if not codings:
                return response
            guard = current_guard() or self._default_guard()
            if len(codings) > 1 or codings[0] not in DECODED_ENCODINGS:
                response.close()
                guard.reason, guard.encoding = "encoding", ", ".join(codings)
                raise httpx.DecodingError(f"the reply is compressed as {guard.encoding!r}, which is not decoded")
            # The body is handed on decoded, so the client (which would decode without a cap) sees no encoding.
            headers = [(k, v) for k, v in response.headers.raw
                       if k.lower() not in (b"content-encoding", b"content-length")]
            return httpx.Response(response.status_code, headers=headers,
                                  stream=CappedInflate(response.stream, codings[0], guard),
                                  extensions=response.extensions, request=request)

    _CLASSES.append(LabTransport)
    return LabTransport


def lab_transport(timeout_s: float, max_bytes: int, pin: Optional[Tuple[str, str]] = None):
    """The transport for one endpoint. `pin` = (hostname, address): connect only to that host, at that
    address. `timeout_s` and `max_bytes` bound a request made without a `guarded` block."""
    return _classes()(pin, timeout_s, max_bytes)
