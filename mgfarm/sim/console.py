"""The emulator console on adb_port - 1: token auth and the commands farms and `adb emu` send."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from mgfarm.sim import snapshot
from mgfarm.sim.console_cmds import HELP as COMMAND_HELP
from mgfarm.sim.console_cmds import emulator_command

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

log = logging.getLogger("mgfarm.sim.console")

MAX_LINE = 4096
UNKNOWN = "KO: unknown command, try 'help'"
BEFORE_AUTH = {"help", "h", "?", "ping", "avd name", "auth", "quit", "exit"}
HELP = (
    "Android console commands:\r\n"
    "\r\n"
    "    help|h|?         print a list of commands\r\n"
    "    ping             check if the emulator is alive\r\n"
    "    avd              control virtual device execution (name, status, snapshot)\r\n"
    "    gsm              GSM related commands (call, accept, cancel, list, status)\r\n"
    "    sms              SMS related commands (send)\r\n"
    "    geo              Geo-location commands (fix)\r\n"
    "    power            power related commands (capacity, status, ac, health, present)\r\n"
    "    network          manage network settings (speed, delay, status)\r\n"
    "    rotate           rotate the screen clockwise by 90 degrees\r\n"
    "    kill             kill the emulator instance\r\n"
    "    quit|exit        quit control session\r\n"
    "\r\n"
    "try 'help <command>' for command-specific help"
)
SNAPSHOT_HEADER = "ID        TAG                 VM SIZE                DATE       VM CLOCK"


def default_token_file() -> Path:
    return Path.home() / ".emulator_console_auth_token"


class TokenError(Exception):
    """The token file holds no token: refused, because an empty token would turn auth off."""


def read_token(path: Path) -> str:
    """The auth token without surrounding whitespace, creating the file (0600) when it is missing.

    A file holding only whitespace is refused rather than read as "no auth": a device console
    lets whoever reaches it load snapshots and kill the device.
    """
    try:
        token = path.read_text().strip()
    except FileNotFoundError:
        token = secrets.token_urlsafe(12)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(token)
        return token
    if not token:
        raise TokenError(
            f"the console token file {path} is empty; write a token into it, or delete it so one is made"
        )
    return token


# Console lines that only answer (the watchdog's `auth`, `ping`, `quit` on every pass): the screen
# is not composed again after them.
NEUTRAL_VERBS = frozenset({"", "quit", "exit", "auth", "help", "h", "?", "ping", "kill"})


def screen_neutral(line: str) -> bool:
    """True when console line `line` cannot change what the screen shows."""
    words = [w.lower() for w in line.split()[:3]] or [""]
    if words[0] == "avd":
        return words[1:2] in (["name"], ["status"]) or words[1:3] == ["snapshot", "list"]
    return words[0] in NEUTRAL_VERBS


class Console:
    """The TCP console of one device."""

    def __init__(self, device: SimDevice, host: str, port: int, token: str | None = None) -> None:
        self.device = device
        self.host = host
        self.port = port
        self.token_file = device.config.token_file or default_token_file()
        # Read before the worker gave up root (the file is 0600); a trailing newline is no part of it.
        self.token = token if token else read_token(self.token_file)
        self._server: asyncio.Server | None = None
        self._sessions: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._session, self.host, self.port, reuse_address=True)
        self.port = self._server.sockets[0].getsockname()[1]  # the one the system chose for port 0

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in list(self._sessions):
            writer.close()
        if self._server is not None:
            await self._server.wait_closed()

    def greeting(self) -> str:
        if not self.token:
            return "Android Console: type 'help' for a list of commands\r\nOK\r\n"
        return (
            "Android Console: Authentication required\r\n"
            "Android Console: type 'auth <auth_token>' to authenticate\r\n"
            "Android Console: you can find your <auth_token> in \r\n"
            f"'{self.token_file}'\r\n"
            "OK\r\n"
        )

    async def _session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._sessions.add(writer)
        session = ConsoleSession(self, authed=not self.token)
        try:
            writer.write(session.console.greeting().encode())
            while not writer.is_closing():
                line = await read_line(reader)
                if line is None:
                    break
                reply, close = session.handle(line)
                if not screen_neutral(line):
                    self.device.changed()  # snapshot loads, power, geo, sms...: the screen composes anew
                if reply:
                    writer.write(reply.encode())
                await writer.drain()
                if close:
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except ValueError as exc:
            log.warning("%s console: dropping session: %s", self.device.config.serial, exc)
        finally:
            self._sessions.discard(writer)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
            if session.kill_requested:
                self.device.killed.set()


async def read_line(reader: asyncio.StreamReader) -> str | None:
    """One command line without its terminator; None at EOF; ValueError when it is too long."""
    try:
        raw = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None
        raw = exc.partial
    except asyncio.LimitOverrunError as exc:
        raise ValueError("command line too long") from exc
    if len(raw) > MAX_LINE:
        raise ValueError("command line too long")
    return raw.decode("utf-8", errors="replace").strip("\r\n")


class ConsoleSession:
    """The state of one console connection: authenticated or not, and what to do after a reply."""

    def __init__(self, console: Console, authed: bool) -> None:
        self.console = console
        self.device = console.device
        self.authed = authed
        self.kill_requested = False

    def handle(self, line: str) -> tuple[str, bool]:
        """(reply text with CRLF line ends, close the session afterwards)."""
        words = line.split()
        if not words:
            return "", False
        verb = words[0].lower()
        key = " ".join(w.lower() for w in words[:2]) if verb == "avd" else verb
        if not self.authed and key not in BEFORE_AUTH:
            return lines(UNKNOWN), False
        if verb in ("quit", "exit"):
            return "", True
        if verb == "auth":
            return self.auth(line[len(words[0]) :].strip()), False
        if verb in ("help", "h", "?"):
            topic = COMMAND_HELP.get(words[1].lower()) if len(words) > 1 else None
            return lines(topic or HELP, "OK"), False
        if verb == "ping":
            return lines("I am alive!", "OK"), False
        if verb == "kill":
            self.kill_requested = True
            return lines("OK: killing emulator, bye bye", "OK"), True
        if verb == "avd":
            return self.avd(words[1:]), False
        return emulator_command(self.device, line) or lines(UNKNOWN), False

    def auth(self, token: str) -> str:
        if not token:
            return lines("KO: missing authentication token")
        if self.console.token and token == self.console.token:
            self.authed = True
            return lines("Android Console: type 'help' for a list of commands", "OK")
        if not self.console.token:
            self.authed = True
            return lines("OK")
        return lines("KO: authentication token does not match ~/.emulator_console_auth_token")

    def avd(self, args: list[str]) -> str:
        if not args:
            return lines("KO: missing sub-command, try 'help avd'")
        sub = args[0].lower()
        if sub == "name":
            return lines(self.device.config.name, "OK")
        if sub == "status":
            return lines("virtual device is running", "OK")
        if sub == "snapshot":
            return self.snapshot(args[1:])
        return lines(f"KO: bad sub-command '{args[0]}', try 'help avd'")

    def snapshot(self, args: list[str]) -> str:
        if not args:
            return lines("KO: missing sub-command, try 'help avd snapshot'")
        sub = args[0].lower()
        if sub == "list":
            rows = [row.console_line() for row in snapshot.list_snapshots(self.device)]
            return lines("List of snapshots present on all disks:", SNAPSHOT_HEADER, *rows, "OK")
        if sub not in ("save", "load", "delete"):
            return lines(f"KO: bad sub-command '{args[0]}', try 'help avd snapshot'")
        if len(args) < 2:
            return lines(f"KO: Argument missing, try 'avd snapshot {sub} <name>'")
        action = {"save": snapshot.save, "load": snapshot.load, "delete": snapshot.delete}[sub]
        try:
            action(self.device, args[1])
        except snapshot.SnapshotError as exc:
            return lines(f"KO: {exc}")
        return lines("OK")


def lines(*texts: str) -> str:
    return "".join(f"{t}\r\n" for t in texts)
