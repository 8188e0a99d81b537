"""A real HTTP receiver on a free loopback port, in a thread: it answers each POST with the
next status of its script (the last one repeats) and keeps what it received. And the
verification code of docs/webhooks.md, taken from the document itself, so the tests check the
code receivers copy."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

DOC = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Receiver:
    def __init__(self, server: ThreadingHTTPServer) -> None:
        self.server = server
        self.received: list[Received] = []

    @property
    def url(self) -> str:
        port = self.server.server_address[1]
        return f"http://127.0.0.1:{port}/hooks/clusterbid"


@contextmanager
def receiving(*statuses: int) -> Iterator[Receiver]:
    script = list(statuses) or [200]
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with lock:
                receiver.received.append(Received(self.path, dict(self.headers), body))
                status = script[min(len(receiver.received), len(script)) - 1]
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver = Receiver(server)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()


def documented_verify() -> Callable[..., bool]:
    """`verify(secret, header, body)` exactly as docs/webhooks.md prints it."""
    text = DOC.read_text()
    section = text.split("## Verifying a delivery", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code, "docs/webhooks.md has no Python block under 'Verifying a delivery'"
    namespace: dict[str, Any] = {}
    exec(compile(code.group(1), str(DOC), "exec"), namespace)
    verify: Callable[..., bool] = namespace["verify"]
    return verify
