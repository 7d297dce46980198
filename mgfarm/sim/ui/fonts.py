"""Roboto, shipped with its Apache 2.0 licence in `fonts/`; loaded once per size for all devices."""

from __future__ import annotations

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


@lru_cache(maxsize=4096)
def text_width(text: str, size_px: int, medium: bool = False) -> int:
    return round(font(size_px, medium).getlength(shapeable(text)))


def ellipsize(text: str, size_px: int, medium: bool, max_width: int) -> str:
    """`text` cut with an ellipsis so that it fits in `max_width` pixels, like TextView's end ellipsis."""
    if text_width(text, size_px, medium) <= max_width:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if text_width(text[:mid] + "…", size_px, medium) <= max_width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…"


def wrap(text: str, size_px: int, medium: bool, max_width: int, max_lines: int) -> list[str]:
    """Greedy word wrap into at most `max_lines` lines; the last line is ellipsized."""
    lines: list[str] = []
    for para in text.split("\n"):
        words = para.split(" ")
        line = ""
        for word in words:
            candidate = word if not line else f"{line} {word}"
            if text_width(candidate, size_px, medium) <= max_width or not line:
                line = candidate
            else:
                lines.append(line)
                line = word
        lines.append(line)
    if len(lines) > max_lines:
        lines = [*lines[: max_lines - 1], " ".join(lines[max_lines - 1 :])]
    return [ellipsize(ln, size_px, medium, max_width) for ln in lines] or [""]
