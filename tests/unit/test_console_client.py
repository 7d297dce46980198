"""The emulator console client against a scripted console: what comes back is bounded, and any
reply is lines or one ConsoleError (the watchdog and the trainer read consoles in their own process)."""

from __future__ import annotations

import contextlib
import socket
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.adb.console import ConsoleClient
from mgfarm.adb.errors import ConsoleError

GREETING = b"Android Console: type 'help' for a list of commands\r\nOK\r\n"


def scripted_console(reply: bytes) -> tuple[socket.socket, int]:
    """A console that greets, then answers the first command with `reply` and closes."""
    listener = socket.create_server(("127.0.0.1", 0))

    def run() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.sendall(GREETING)
            conn.recv(4096)
            with contextlib.suppress(OSError):  # the client stopped reading
                conn.sendall(reply)

    threading.Thread(target=run, daemon=True).start()
    return listener, listener.getsockname()[1]


def ask(reply: bytes) -> list[str]:
    listener, port = scripted_console(reply)
    try:
        with ConsoleClient(port, None, timeout=5.0) as client:
            return client.command("avd snapshot list")
    finally:
        listener.close()


def test_a_reply_is_its_lines_up_to_ok() -> None:
    assert ask(b"List of snapshots:\r\ngolden\r\nOK\r\n") == ["List of snapshots:", "golden"]


@pytest.mark.parametrize(
    ("reply", "what"),
    [(b"x" * (3 << 20), "a line of over"), (b"golden\r\n" * (400_000), "a reply of over")],
    ids=["endless-line", "endless-lines"],
)
def test_a_reply_past_the_bound_is_refused(reply: bytes, what: str) -> None:
    with pytest.raises(ConsoleError, match=what):
        ask(reply)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300))
def test_any_reply_is_lines_or_a_console_error(reply: bytes) -> None:
    try:
        lines = ask(reply)
    except ConsoleError:
        return
    assert all("\n" not in line for line in lines)
