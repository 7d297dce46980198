"""The uiautomator2 server inside the sim: HTTP/1.1 + JSON-RPC on device port 9008.

uiautomator2 launches it with `CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main
-p 9008` on a shell stream and talks to it through adb `tcp:9008`, one connection per request.
The server lives exactly as long as that shell stream (closing it is how u2 stops the server).
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from mgfarm.sim.io import LocalConnection
from mgfarm.sim.uiautomator.rpc import RpcError, UiAutomatorRpc

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

log = logging.getLogger("mgfarm.sim.uiautomator")

MAX_HEADER = 64 * 1024
MAX_BODY = 16 * 1024 * 1024
_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 413: "Too Large"}


class HttpRequest:
    def __init__(self, method: str, path: str, headers: dict[str, str], body: bytes) -> None:
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body


async def read_request(conn: LocalConnection) -> HttpRequest | None:
    """One HTTP request from the connection; None when the peer closed or sent garbage."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = await conn.read(65536)
        if not chunk or len(buf) > MAX_HEADER:
            return None
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) < 2:
        return None
    headers: dict[str, str] = {}
    for line in lines[1:]:
        key, _, value = line.partition(":")
        headers[key.strip().lower()] = value.strip()
    try:
        length = int(headers.get("content-length", "0"))
    except ValueError:
        return None
    if length > MAX_BODY:
        return None
    while len(rest) < length:
        chunk = await conn.read(length - len(rest))
        if not chunk:
            return None
        rest += chunk
    return HttpRequest(parts[0].upper(), parts[1], headers, rest[:length])


def http_response(status: int, body: bytes, content_type: str) -> bytes:
    head = (
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n"
        f"Content-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body


class UiAutomatorServer:
    """Serves HTTP connections for one launch of the server on one device."""

    def __init__(self, device: SimDevice) -> None:
        self.rpc = UiAutomatorRpc(device)

    async def serve(self, conn: LocalConnection) -> None:
        try:
            request = await read_request(conn)
            if request is not None:
                await conn.write(await self.respond(request))
        finally:
            conn.close()

    async def respond(self, request: HttpRequest) -> bytes:
        path = request.path.split("?", 1)[0]
        if path == "/ping":
            return http_response(200, b"pong", "text/plain")
        if path.startswith("/jsonrpc/"):
            if request.method != "POST":
                return http_response(405, b"POST only", "text/plain")
            reply = await self.jsonrpc(request.body)
            return http_response(200, json.dumps(reply).encode("utf-8"), "application/json")
        return http_response(404, b"not found", "text/plain")

    async def jsonrpc(self, body: bytes) -> dict[str, Any]:
        try:
            payload = json.loads(body)
            if not isinstance(payload, dict):
                raise ValueError("not an object")
        except (ValueError, RecursionError):  # RecursionError: JSON nested past the decoder's depth
            return {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
        call_id = payload.get("id")
        method = str(payload.get("method", ""))
        try:
            result = await self.rpc.call(method, payload.get("params"))
        except RpcError as exc:
            return {"jsonrpc": "2.0", "id": call_id, "error": {"code": exc.code, "message": exc.message}}
        except Exception as exc:  # a bug in one method must not take the server down
            log.exception("uiautomator method %s failed", method)
            message = f"java.lang.RuntimeException: {type(exc).__name__}: {exc}"
            return {"jsonrpc": "2.0", "id": call_id, "error": {"code": -32001, "message": message}}
        return {"jsonrpc": "2.0", "id": call_id, "result": result}
