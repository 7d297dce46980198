"""ADB transport messages: the 24-byte header, its commands and reading one message off a socket."""

from __future__ import annotations

import asyncio
import struct
from dataclasses import dataclass

A_CNXN = 0x4E584E43
A_AUTH = 0x48545541
A_OPEN = 0x4E45504F
A_OKAY = 0x59414B4F
A_CLSE = 0x45534C43
A_WRTE = 0x45545257
A_STLS = 0x534C5453
COMMANDS = {A_CNXN, A_AUTH, A_OPEN, A_OKAY, A_CLSE, A_WRTE, A_STLS}

VERSION_CHECKSUM = 0x01000000
VERSION_SKIP_CHECKSUM = 0x01000001
MAX_PAYLOAD = 1024 * 1024
MAX_HANDSHAKE_PAYLOAD = 4096  # CNXN/AUTH payloads are never larger, whatever was negotiated

HEADER = struct.Struct("<6I")


class ProtocolError(Exception):
    """The peer sent something that is not a valid ADB message; the transport is dropped."""


@dataclass(frozen=True)
class Message:
    command: int
    arg0: int
    arg1: int
    data: bytes = b""

    @property
    def name(self) -> str:
        return struct.pack("<I", self.command).decode("latin-1")


def checksum(data: bytes) -> int:
    """The plain byte sum adb uses as `data_check`."""
    return sum(data) & 0xFFFFFFFF


def encode(msg: Message, with_checksum: bool = True) -> bytes:
    """Header plus payload, ready to write."""
    check = checksum(msg.data) if with_checksum else 0
    header = HEADER.pack(msg.command, msg.arg0, msg.arg1, len(msg.data), check, msg.command ^ 0xFFFFFFFF)
    return header + msg.data


def decode_header(raw: bytes, max_payload: int) -> tuple[int, int, int, int]:
    """(command, arg0, arg1, data_length) of a header; raises ProtocolError when it is invalid."""
    command, arg0, arg1, length, _check, magic = HEADER.unpack(raw)
    if magic != command ^ 0xFFFFFFFF:
        raise ProtocolError(f"bad magic {magic:#x} for command {command:#x}")
    if command not in COMMANDS:
        raise ProtocolError(f"unknown command {command:#x}")
    limit = MAX_HANDSHAKE_PAYLOAD if command in (A_CNXN, A_AUTH) else max_payload
    if length > limit:
        raise ProtocolError(f"payload of {length} bytes exceeds the limit of {limit}")
    return command, arg0, arg1, length


async def read_message(reader: asyncio.StreamReader, max_payload: int) -> Message | None:
    """The next message, or None when the peer closed the connection cleanly between messages."""
    try:
        raw = await reader.readexactly(HEADER.size)
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None
        raise ProtocolError("connection closed inside a message header") from exc
    command, arg0, arg1, length = decode_header(raw, max_payload)
    try:
        data = await reader.readexactly(length) if length else b""
    except asyncio.IncompleteReadError as exc:
        raise ProtocolError("connection closed inside a message payload") from exc
    return Message(command, arg0, arg1, data)
