"""Roboto, shipped with its Apache 2.0 licence in `fonts/`; loaded once per size for all devices."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

FONT_DIR = Path(__file__).with_name("fonts")
REGULAR = FONT_DIR / "Roboto-Regular.ttf"
MEDIUM = FONT_DIR / "Roboto-Medium.ttf"


@lru_cache(maxsize=64)
def font(size_px: int, medium: bool = False) -> ImageFont.FreeTypeFont:
    """The Roboto face at a pixel size; shared by every device in the process."""
    return ImageFont.truetype(str(MEDIUM if medium else REGULAR), size_px)


# Paragraph and line separators make raqm's layout fail; inside one run a TextView shows them as space.
SEPARATORS = str.maketrans(dict.fromkeys("\n\r\x1c\x1d\x1e\x85\u2029", " "))


def shapeable(text: str) -> str:
    """`text` as one run the shaper accepts (an agent can name a file or send an SMS with any of them)."""
    return text.translate(SEPARATORS)


# A text this long is taken as wider than any screen (a glyph is a pixel wide at least, zero-width
# characters aside), so only its start is measured: an agent can type a megabyte into a field, and
# measuring it whole on every frame, or keeping it in a cache, would stall every device of the process.
LONG = 4096
CACHED = 1024  # labels and wrapped lines repeat on every frame; at most 4096 of them are kept


@lru_cache(maxsize=4096)
def _cached_width(text: str, size_px: int, medium: bool) -> int:
    return round(font(size_px, medium).getlength(shapeable(text)))


def text_width(text: str, size_px: int, medium: bool = False) -> int:
    """The width of `text` in pixels; a text of over LONG characters measures as its first LONG."""
    if len(text) <= CACHED:
        return _cached_width(text, size_px, medium)
    return round(font(size_px, medium).getlength(shapeable(text[:LONG])))


def ellipsize(text: str, size_px: int, medium: bool, max_width: int) -> str:
    """`text` cut with an ellipsis so that it fits in `max_width` pixels, like TextView's end ellipsis."""
    if text_width(text, size_px, medium) <= max_width:
        return text
    lo, hi = 0, min(len(text), LONG)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if text_width(text[:mid] + "…", size_px, medium) <= max_width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…"


def tail(text: str, size_px: int, medium: bool, max_width: int) -> str:
    """The longest end of `text` (one character at least) that fits in `max_width` pixels: what a
    single-line field shows as it scrolls to the cursor."""
    lo, hi = 1, min(len(text), LONG)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if font(size_px, medium).getlength(text[-mid:]) <= max_width:
            lo = mid
        else:
            hi = mid - 1
    return text[-lo:] if text else text


def _pieces(text: str, sep: str) -> Iterator[str]:
    """`text.split(sep)`, one piece at a time (a megabyte of one-letter words is not a list)."""
    at = 0
    while True:
        end = text.find(sep, at)
        if end < 0:
            yield text[at:]
            return
        yield text[at:end]
        at = end + 1


def wrap(text: str, size_px: int, medium: bool, max_width: int, max_lines: int) -> list[str]:
    """Greedy word wrap into at most `max_lines` lines; the last line is ellipsized."""
    lines: list[str] = []
    joined = 0  # characters of the lines from the last allowed one on, which are joined into it
    for para in _pieces(text, "\n"):
        line = ""
        for word in _pieces(para, " "):
            candidate = word if not line else f"{line} {word}"
            if text_width(candidate, size_px, medium) <= max_width or not line:
                line = candidate
            else:
                lines.append(line)
                joined += len(line) + 1 if len(lines) >= max_lines else 0
                line = word
            if len(lines) >= max_lines - 1 and joined + len(line) > LONG:
                break  # the rest only lengthens a last line that is cut before LONG characters
        else:
            lines.append(line)
            joined += len(line) + 1 if len(lines) >= max_lines else 0
            continue
        lines.append(line)
        break
    if len(lines) > max_lines:
        lines = [*lines[: max_lines - 1], " ".join(lines[max_lines - 1 :])]
    return [ellipsize(ln, size_px, medium, max_width) for ln in lines] or [""]
