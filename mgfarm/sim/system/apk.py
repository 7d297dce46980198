"""Reading the package name out of an APK: its binary AndroidManifest.xml (AXML) or a text one."""

from __future__ import annotations

import re
import struct
import zipfile
from pathlib import Path

RES_XML_TYPE = 0x0003
RES_STRING_POOL_TYPE = 0x0001
RES_XML_START_ELEMENT_TYPE = 0x0102
UTF8_FLAG = 1 << 8
NO_INDEX = 0xFFFFFFFF
TEXT_PACKAGE = re.compile(rb'<manifest[^>]*\spackage="([A-Za-z][A-Za-z0-9_.]*)"')


def _string_pool(data: bytes, start: int) -> list[str]:
    _, header_size, _ = struct.unpack_from("<HHI", data, start)
    count, _, flags, strings_start, _ = struct.unpack_from("<IIIII", data, start + 8)
    offsets = struct.unpack_from(f"<{count}I", data, start + header_size)
    utf8 = bool(flags & UTF8_FLAG)
    out: list[str] = []
    for off in offsets:
        pos = start + strings_start + off
        if utf8:
            pos += 2 if data[pos] & 0x80 else 1  # length in characters
            length = data[pos]
            if length & 0x80:
                length = ((length & 0x7F) << 8) | data[pos + 1]
                pos += 1
            pos += 1
            out.append(data[pos : pos + length].decode("utf-8", "replace"))
        else:
            (length,) = struct.unpack_from("<H", data, pos)
            pos += 2
            if length & 0x8000:
                (low,) = struct.unpack_from("<H", data, pos)
                length = ((length & 0x7FFF) << 16) | low
                pos += 2
            out.append(data[pos : pos + 2 * length].decode("utf-16-le", "replace"))
    return out


def axml_package(data: bytes) -> str | None:
    """The `package` attribute of the `<manifest>` element of a binary manifest, or None."""
    try:
        kind, header_size, total = struct.unpack_from("<HHI", data, 0)
        if kind != RES_XML_TYPE:
            return None
        strings: list[str] = []
        pos = header_size
        while pos + 8 <= min(total, len(data)):
            chunk_type, chunk_header, chunk_size = struct.unpack_from("<HHI", data, pos)
            if chunk_size < 8:
                return None
            if chunk_type == RES_STRING_POOL_TYPE:
                strings = _string_pool(data, pos)
            elif chunk_type == RES_XML_START_ELEMENT_TYPE:
                name_idx = struct.unpack_from("<I", data, pos + 20)[0]
                attr_start, attr_size, attr_count = struct.unpack_from("<HHH", data, pos + 24)
                if name_idx < len(strings) and strings[name_idx] == "manifest":
                    for i in range(attr_count):
                        at = pos + chunk_header + attr_start + i * attr_size
                        _, attr_name, raw, _, _, data_type, value = struct.unpack_from("<IIIHBBI", data, at)
                        if attr_name < len(strings) and strings[attr_name] == "package":
                            index = raw if raw != NO_INDEX else (value if data_type == 3 else NO_INDEX)
                            return strings[index] if index < len(strings) else None
                    return None
            pos += chunk_size
    except (struct.error, IndexError, UnicodeDecodeError):
        return None
    return None


def apk_package(apk: Path) -> str | None:
    """The package an APK declares, from its manifest (binary or plain XML); None if unreadable."""
    try:
        if not zipfile.is_zipfile(apk):
            return None
        with zipfile.ZipFile(apk) as zf:
            manifest = zf.read("AndroidManifest.xml")
    except (OSError, KeyError, zipfile.BadZipFile):
        return None
    if manifest.startswith(b"\x03\x00"):
        return axml_package(manifest)
    m = TEXT_PACKAGE.search(manifest)
    return m.group(1).decode() if m else None
