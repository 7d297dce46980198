"""Byte streams between the ADB services and the shell: the contract both sides code against."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

# Output is buffered so that `ls` writing 200 lines costs one WRTE, not 200.
FLUSH_THRESHOLD = 64 * 1024


class ByteSource:
    """Bytes flowing into a command (stdin). `feed` and `close` are called by the producer."""

    def __init__(self, seekable: bool = False) -> None:
        self._buf = bytearray()
        self._eof = False
        self._event = asyncio.Event()
        # A file (`< f`, a here-document: mksh writes those to a file), where a command may seek
        # and look ahead, as grep does for binary data; not a pipe or the adb stream.
        self.seekable = seekable
        # Called after a read takes bytes out: lets the producer resume (ADB flow control).
        self.on_consumed: Callable[[], None] | None = None

    @classmethod
    def from_bytes(cls, data: bytes, seekable: bool = False) -> ByteSource:
        src = cls(seekable)
        src.feed(data)
        src.close()
        return src

    def feed(self, data: bytes) -> None:
        self._buf += data
        self._event.set()

    def close(self) -> None:
        self._eof = True
        self._event.set()

    @property
    def buffered(self) -> int:
        return len(self._buf)

    def _taken(self, data: bytes) -> bytes:
        if data:
            self._notify()
        return data

    def _notify(self) -> None:
        if self.on_consumed is not None:
            self.on_consumed()

    async def read(self, n: int = -1) -> bytes:
        """Up to n bytes (all until EOF when n < 0); b'' only at EOF."""
        if n < 0:
            return await self._read_all()
        while not self._eof and not self._buf:
            self._event.clear()
            await self._event.wait()
        data = bytes(self._buf[:n])
        del self._buf[:n]
        return self._taken(data)

    async def _read_all(self) -> bytes:
        # Take bytes as they come, so that a producer waiting for room keeps sending until EOF.
        acc = bytearray()
        while True:
            if self._buf:
                acc += self._buf
                self._buf = bytearray()
                self._notify()
            if self._eof:
                return bytes(acc)
            self._event.clear()
            await self._event.wait()

    async def read_exactly(self, n: int) -> bytes | None:
        """Exactly n bytes, or None when the source ends first (a partial tail is dropped)."""
        while len(self._buf) < n and not self._eof:
            self._event.clear()
            await self._event.wait()
        if len(self._buf) < n:
            return None
        data = bytes(self._buf[:n])
        del self._buf[:n]
        return self._taken(data)

    async def readline(self) -> bytes:
        """One line including its newline; the rest at EOF; b'' at EOF."""
        while b"\n" not in self._buf and not self._eof:
            self._event.clear()
            await self._event.wait()
        idx = self._buf.find(b"\n")
        cut = len(self._buf) if idx < 0 else idx + 1
        data = bytes(self._buf[:cut])
        del self._buf[:cut]
        return self._taken(data)


Writer = Callable[[bytes], Awaitable[None]]


class ByteSink:
    """Bytes flowing out of a command. `write` buffers; `flush` hands them to the consumer."""

    def __init__(self, consumer: Writer | None = None, seekable: bool = False) -> None:
        self._consumer = consumer
        self.seekable = seekable  # a file (`> f`), where a command may seek; not a pipe or socket
        self._buf = bytearray()
        self.collected = bytearray()  # when there is no consumer (pipes, tests)

    def write(self, data: bytes | str) -> None:
        self._buf += data.encode() if isinstance(data, str) else data

    async def flush(self) -> None:
        if not self._buf:
            return
        data, self._buf = bytes(self._buf), bytearray()
        if self._consumer is None:
            self.collected += data
        else:
            await self._consumer(data)

    async def maybe_flush(self) -> None:
        if len(self._buf) >= FLUSH_THRESHOLD:
            await self.flush()


class ShellIO:
    """The three standard streams of one shell invocation."""

    def __init__(self, stdin: ByteSource, stdout: ByteSink, stderr: ByteSink) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr

    @classmethod
    def buffered(cls, stdin: bytes = b"") -> ShellIO:
        return cls(ByteSource.from_bytes(stdin), ByteSink(), ByteSink())


class LocalConnection:
    """One end of an in-device socket pair (the adb `tcp:PORT` service to a device-local server)."""

    def __init__(self, incoming: ByteSource, send: Writer, on_close: Callable[[], None]) -> None:
        self.incoming = incoming
        self._send = send
        self._on_close = on_close
        self.closed = False

    async def read(self, n: int = -1) -> bytes:
        return await self.incoming.read(n)

    async def write(self, data: bytes) -> None:
        if not self.closed:
            await self._send(data)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._on_close()


# A device-local server: called once per accepted connection.
LocalServer = Callable[[LocalConnection], Awaitable[None]]
