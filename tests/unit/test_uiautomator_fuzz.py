"""The sim's uiautomator2 server (HTTP/1.1 + JSON-RPC on device port 9008) reached by any peer: a
request of any bytes, or any method with any params, gets an HTTP reply or a closed connection and
never an exception out of the server (which would end the adb stream's task, not one request)."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from mgfarm.sim.io import ByteSource, LocalConnection
from mgfarm.sim.uiautomator.rpc import UiAutomatorRpc
from mgfarm.sim.uiautomator.server import UiAutomatorServer
from tests.unit.shellkit import ShellDevice

VALUES: list[Any] = [None, True, -1, 0, 2**70, 1e308, "", "x" * 3000, [], {}, {"text": "Save"}, [1, 2]]


@pytest.fixture(scope="module")
def shell(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    device = ShellDevice(tmp_path_factory.mktemp("u2"))
    yield device
    device.close()


def exchange(server: UiAutomatorServer, loop: asyncio.AbstractEventLoop, request: bytes) -> bytes:
    replies: list[bytes] = []

    async def send(data: bytes) -> None:
        replies.append(data)

    conn = LocalConnection(ByteSource.from_bytes(request), send, lambda: None)
    loop.run_until_complete(asyncio.wait_for(server.serve(conn), 10))
    return b"".join(replies)


def post(body: bytes) -> bytes:
    return b"POST /jsonrpc/0 HTTP/1.1\r\nContent-Length: %d\r\n\r\n" % len(body) + body


def test_any_request_bytes_get_a_reply_or_a_close(shell: ShellDevice) -> None:
    server, rng = UiAutomatorServer(shell.device), random.Random(3)
    valid = post(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "deviceInfo", "params": []}).encode())
    assert exchange(server, shell.loop, valid).startswith(b"HTTP/1.1 200 OK")
    odd = [
        post(b"[" * 100_000),  # nested past the JSON decoder's recursion limit
        post(b'{"method": "click", "params": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"),
        b"GET / HTTP/1.1\r\nContent-Length: " + b"9" * 5000 + b"\r\n\r\n",
        b"POST /jsonrpc/0 HTTP/1.1\r\nContent-Length: -5\r\n\r\n{}",
        b"\r\n\r\n",
    ]
    for request in odd:
        reply = exchange(server, shell.loop, request)
        assert reply == b"" or reply.startswith(b"HTTP/1.1 "), request[:60]
    for _ in range(300):
        data = bytearray(valid)
        for _ in range(rng.randrange(1, 6)):
            at = rng.randrange(len(data))
            data[at : at + rng.randrange(1, 4)] = rng.randbytes(rng.randrange(0, 4))
        reply = exchange(server, shell.loop, bytes(data))
        assert reply == b"" or reply.startswith(b"HTTP/1.1 ")


def test_any_method_with_any_params_answers_json_rpc(shell: ShellDevice) -> None:
    server, rng = UiAutomatorServer(shell.device), random.Random(4)
    methods = sorted(UiAutomatorRpc(shell.device).methods)
    for _ in range(400):
        params: Any = [rng.choice(VALUES) for _ in range(rng.randrange(4))]
        if rng.random() < 0.2:
            params = rng.choice(VALUES)
        method = rng.choice(methods)
        if method.startswith("wait") and isinstance(params, list):
            params = params[:1]  # a wait lasts the timeout its caller gives: none here
        body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}
        reply = exchange(server, shell.loop, post(json.dumps(body).encode()))
        head, _, payload = reply.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 OK"), body
        answer = json.loads(payload)
        assert answer["id"] == 7 and ("result" in answer or "error" in answer)
