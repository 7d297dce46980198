"""A minimal APK for tests: a zip whose binary AndroidManifest.xml (AXML) names a package.

The AXML is what aapt2 writes, reduced to what a package manager reads for the name: a string pool
(UTF-16) and a `<manifest package="...">` start and end element. No code: the sim runs none.
"""

from __future__ import annotations

import io
import struct
import zipfile

RES_XML_TYPE, RES_STRING_POOL_TYPE = 0x0003, 0x0001
RES_XML_START_ELEMENT_TYPE, RES_XML_END_ELEMENT_TYPE = 0x0102, 0x0103
TYPE_STRING = 0x03
NO_INDEX = 0xFFFFFFFF


def _string_pool(strings: list[str]) -> bytes:
    body = b""
    offsets = []
    for s in strings:
        offsets.append(len(body))
        units = s.encode("utf-16-le")
        body += struct.pack("<H", len(units) // 2) + units + b"\0\0"
    body += b"\0" * (-len(body) % 4)
    header_size = 28
    strings_start = header_size + 4 * len(strings)
    size = strings_start + len(body)
    header = struct.pack(
        "<HHIIIIII", RES_STRING_POOL_TYPE, header_size, size, len(strings), 0, 0, strings_start, 0
    )
    return header + struct.pack(f"<{len(strings)}I", *offsets) + body


def manifest_axml(package: str) -> bytes:
    """A binary AndroidManifest.xml: `<manifest package="PACKAGE"/>`."""
    pool = _string_pool(["manifest", "package", package])
    attribute = struct.pack("<IIIHBBI", NO_INDEX, 1, 2, 8, 0, TYPE_STRING, 2)
    ext = struct.pack("<IIHHHHHH", NO_INDEX, 0, 20, 20, 1, 0, 0, 0)
    start_body = ext + attribute
    start = struct.pack("<HHIII", RES_XML_START_ELEMENT_TYPE, 16, 16 + len(start_body), 1, NO_INDEX)
    end = struct.pack("<HHIIIII", RES_XML_END_ELEMENT_TYPE, 16, 24, 1, NO_INDEX, NO_INDEX, 0)
    chunks = pool + start + start_body + end
    return struct.pack("<HHI", RES_XML_TYPE, 8, 8 + len(chunks)) + chunks


def apk_bytes(package: str, filler: int = 64 * 1024) -> bytes:
    """An APK naming `package`, with `filler` stored bytes of classes.dex.

    The filler matters to android_env: on Python < 3.12 its AdbCallParser writes an APK blob to a
    NamedTemporaryFile and runs `adb install` without flushing it, so a blob smaller than the file's
    buffer reaches adb as an empty file (Google's real forwarder APK is megabytes).
    """
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("AndroidManifest.xml", manifest_axml(package), compress_type=zipfile.ZIP_DEFLATED)
        zf.writestr("classes.dex", b"dex\n035\0" + bytes(filler), compress_type=zipfile.ZIP_STORED)
    return out.getvalue()
