"""Typed answers judged by meaning: what a value says, not how it is written.

An agent answers in words ("three", "At 9:30 AM", "45 dollars and 25 cents", a quoted sentence); a
judge compares what the answer means with the expected value. Each reader returns every distinct
value it finds in an answer, and an answer matches only when it states exactly one value and that
value is right: a hedge ("2 or 3", two phone numbers, "9:30 or 10:00") is wrong even when it
contains the right value, since a policy would otherwise learn to list every candidate.

Kinds: integer, number, money, text, exact, date, time, boolean, phone. `matches` is the verdict,
`describe` the sentence a report shows; the small readers (`number`, `time`, `date`, ...) are shared
with the checks that compare device data.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Callable
from typing import Any

from mgfarm.errors import MgfarmError

KINDS = ("integer", "number", "money", "text", "exact", "date", "time", "boolean", "phone")

# Absolute slack for float comparisons: "45.25" parsed twice may differ in the last bit.
EPSILON = 1e-6
# An answer is a value in a short sentence; a longer one is refused unread, so that a policy cannot
# make the judge slow (or hide a list of candidates in a wall of text).
MAX_ANSWER_CHARS = 2000

# -- shared text cleaning ---------------------------------------------------------------------------

_QUOTE_MAP = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "`": "'", "\u00b4": "'"}
)
_QUOTES = "\"'\u00ab\u00bb"
_TRAILING = ".!?,;:"


def _raw(value: Any) -> str:
    """A value as text with compatibility forms folded (full-width digits, curly quotes)."""
    if value is None:
        return ""
    return unicodedata.normalize("NFKC", str(value)).translate(_QUOTE_MAP)


def text(value: Any) -> str:
    """Case-folded, whitespace collapsed, enclosing quotes and trailing punctuation dropped."""
    s = re.sub(r"\s+", " ", _raw(value)).strip()
    while True:
        before = s
        s = s.rstrip(_TRAILING).strip()
        if len(s) >= 2 and s[0] in _QUOTES and s[-1] in _QUOTES:
            s = s[1:-1].strip()
        if s == before:
            return s.casefold()


# Lead-ins a person puts before a quoted value: "The last message was: ...", "It says ...".
_LEAD_IN = re.compile(
    r"^(?:(?:the\s+)?(?:last\s+|latest\s+|most\s+recent\s+)?"
    r"(?:message|text|sms|answer|reply|title|name|note|it|they|he|she)\s+"
    r"(?:is|was|says|said|reads|read|wrote|writes)|answer|message|text|reply)\s*:?\s+"
)


def _text_readings(value: Any) -> set[str]:
    """The whole answer, its one quoted part, and the answer without a lead-in, each normalised."""
    raw = _raw(value)
    readings = {text(raw)}
    quoted = re.findall(r'"([^"]+)"', raw) or re.findall(r"(?<!\w)'([^']+)'(?!\w)", raw)
    if len(quoted) == 1:
        readings.add(text(quoted[0]))
    bare = _LEAD_IN.sub("", text(raw), count=1)
    readings.add(text(bare))
    return readings


# -- numbers ---------------------------------------------------------------------------------------

_UNIT_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
)
_UNITS = {w: i for i, w in enumerate(_UNIT_WORDS.split())}
_TEN_WORDS = "twenty thirty forty fifty sixty seventy eighty ninety"
_TENS = {w: 10 * i for i, w in enumerate(_TEN_WORDS.split(), 2)}
_SCALES = {"thousand": 1000, "million": 1_000_000}
_NUMBER_WORDS = sorted([*_UNITS, *_TENS, "hundred", *_SCALES], key=len, reverse=True)
_WORD = "(?:" + "|".join(_NUMBER_WORDS) + r")\b"
_WORD_RUN = re.compile(rf"\b{_WORD}(?:(?:[\s-]+|\s+and\s+){_WORD})*")


def _kind_of(word: str) -> str:
    if word in _SCALES:
        return "scale"
    if word == "hundred":
        return "hundred"
    if word in _TENS:
        return "ten"
    if word == "zero":
        return "zero"
    return "small" if _UNITS[word] < 10 else "teen"


def _run_values(run: str) -> list[int]:
    """The numbers a run of number words says: 'twenty-one' -> [21], 'two and three' -> [2, 3]."""
    out: list[int] = []
    total = cur = 0
    last: str | None = None  # kind of the previous word of the number being read
    for word in re.split(r"[\s-]+", run):
        if word == "and":
            if last not in ("hundred", "scale"):
                out.append(total + cur)
                total = cur = 0
                last = None
            continue
        kind = _kind_of(word)
        follows = {
            "small": (None, "ten", "hundred", "scale"),
            "teen": (None, "hundred", "scale"),
            "ten": (None, "hundred", "scale"),
            "hundred": ("small", "teen"),
            "scale": ("small", "teen", "ten", "hundred"),
            "zero": (None,),
        }[kind]
        if last not in follows and not (kind == "hundred" and last is None):
            out.append(total + cur)
            total = cur = 0
        if kind == "hundred":
            cur = (cur or 1) * 100
        elif kind == "scale":
            total += (cur or 1) * _SCALES[word]
            cur = 0
        else:
            cur += _UNITS.get(word, 0) + _TENS.get(word, 0)
        last = kind
    out.append(total + cur)
    return out


def _spelled_out(s: str) -> str:
    """Number words replaced by digits ('forty-five dollars' -> '45 dollars'); 'none'/'no X' -> 0."""
    s = _WORD_RUN.sub(lambda m: " , ".join(str(v) for v in _run_values(m.group())), s)
    s = re.sub(r"\bnone\b", "0", s)
    return re.sub(r"\bno(?=\s+[a-z])", "0", s)


_DOLLARS = r"(?:us\s*)?(?:dollars?|bucks?|usd)"
_CENTS = r"(?:cents?|\u00a2)"


def numbers(value: Any) -> list[float]:
    """Every distinct number an answer states, in order.

    Reads '3', 'three', 'twenty-one', '3.0', '$1,234.50', '45 dollars and 25 cents', '7 out of 15' (7).
    """
    s = _spelled_out(_raw(value).lower())
    s = re.sub(
        rf"(\d+(?:\.\d+)?)\s*{_DOLLARS}\s*(?:and\s+|,\s*)?(\d{{1,2}})\s*{_CENTS}",
        lambda m: repr(float(m.group(1)) + int(m.group(2)) / 100),
        s,
    )
    # float, not int: an answer of 5,000 digits would pass int()'s digit limit and raise.
    s = re.sub(rf"(?<![\d.])(\d+)\s*{_CENTS}", lambda m: repr(float(m.group(1)) / 100), s)
    s = re.sub(r"(\d)\s+out\s+of\s+\d+(?:\.\d+)?", r"\1", s)  # "7 out of 15" is the level 7
    s = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", s)  # thousands separators
    found: list[float] = []
    for m in re.finditer(r"(?<![\d.])-?(?:\d+(?:\.\d+)?|\.\d+)", s):
        v = float(m.group())
        if not any(abs(v - f) <= EPSILON for f in found):
            found.append(v)
    return found


def number(value: Any) -> float | None:
    """The one number a value states, or None when it states none or several."""
    found = numbers(value)
    return found[0] if len(found) == 1 else None


# -- phone numbers ---------------------------------------------------------------------------------

# A phone number's digits are last ten; E.164 allows at most 15, so a longer run is two numbers.
_PHONE_RUN = re.compile(r"\+?\(?\d[\d\s().\-/]*\d\)?")
MAX_PHONE_DIGITS = 15


def digits(value: Any) -> str:
    """Only the digits of a value."""
    return re.sub(r"\D", "", _raw(value))


def same_number(a: Any, b: Any) -> bool:
    """Phone numbers match when their last ten digits do (country code, spaces, dashes, brackets ignored)."""
    da, db = digits(a), digits(b)
    return bool(da) and da[-10:] == db[-10:]


def phones(value: Any) -> list[str]:
    """The last ten digits of every distinct phone number in an answer (7+ digits each)."""
    found: list[str] = []
    for m in _PHONE_RUN.finditer(_raw(value)):
        d = digits(m.group())
        if len(d) < 7:
            continue
        parts = [d[: len(d) - 10], d[-10:]] if len(d) > MAX_PHONE_DIGITS else [d[-10:]]
        found += [p for p in parts if p not in found]
    return found


# -- times -----------------------------------------------------------------------------------------

_AMPM = r"(?:\s*([ap])\.?\s?m\b\.?)?"
_TIME_PATTERNS = (
    re.compile(r"(?<![\d.:])(\d{1,2})\s?[:.h]\s?([0-5]\d)(?::[0-5]\d)?(?![\d])" + _AMPM),
    re.compile(r"(?<![\d.:])(\d{1,2})()\s*([ap])\.?\s?m\b\.?"),
    re.compile(r"(?<![\d.:])(\d{1,2})()\s*o'?\s?clock()"),
    re.compile(r"(?<![\d.:])([01]\d|2[0-3])([0-5]\d)\s*(?:h|hrs|hours)\b()"),
)


def _clock(hour: int, minute: int, half: str) -> str | None:
    if (half == "a" and hour > 12) or hour > 23 or minute > 59:
        return None
    if half == "a" and hour == 12:
        hour = 0
    elif half == "p" and hour < 12:
        hour += 12
    return f"{hour:02d}:{minute:02d}"


def times(value: Any) -> list[str]:
    """Every distinct time of day an answer states, as HH:MM (24 h): '9.30', '9h30', 'At 9:30 AM', '9 pm'."""
    s = _blank_dates(_raw(value).lower())
    found: list[tuple[int, str]] = []
    for pattern in _TIME_PATTERNS:
        for m in pattern.finditer(s):
            got = _clock(int(m.group(1)), int(m.group(2) or 0), m.group(3) or "")
            if got is not None:
                found.append((m.start(), got))
            s = s[: m.start()] + " " * (m.end() - m.start()) + s[m.end() :]
    for m in re.finditer(r"\b(noon|midday|midnight)\b", s):
        found.append((m.start(), "00:00" if m.group() == "midnight" else "12:00"))
    out: list[str] = []
    for _, t in sorted(found):
        if t not in out:
            out.append(t)
    return out


def time(value: Any) -> str | None:
    """HH:MM (24 h) of the one time a value states, or None."""
    found = times(value)
    return found[0] if len(found) == 1 else None


# -- dates -----------------------------------------------------------------------------------------

_MONTHS = {
    m: i
    for i, names in enumerate(
        (
            "jan january",
            "feb february",
            "mar march",
            "apr april",
            "may",
            "jun june",
            "jul july",
            "aug august",
            "sep sept september",
            "oct october",
            "nov november",
            "dec december",
        ),
        1,
    )
    for m in names.split()
}
_WEEKDAYS = {
    d: i
    for i, names in enumerate(
        (
            "mon monday",
            "tue tues tuesday",
            "wed wednesday",
            "thu thur thurs thursday",
            "fri friday",
            "sat saturday",
            "sun sunday",
        )
    )
    for d in names.split()
}
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\b\.?"
_WEEKDAY = r"(?:(" + "|".join(sorted(_WEEKDAYS, key=len, reverse=True)) + r")\b\.?,?\s+)?"
_YEAR = r"(?:,?\s+(\d{4})\b)?"

# (pattern, order of the groups as year, month, day, weekday)
_DATE_PATTERNS: tuple[tuple[re.Pattern[str], tuple[int, int, int, int]], ...] = (
    (re.compile(r"\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b()"), (1, 2, 3, 4)),
    (re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})\b()"), (3, 1, 2, 4)),  # US m/d/y
    (re.compile(r"(?<![\d.])(\d{1,2})\.(\d{1,2})\.(\d{4})\b()"), (3, 2, 1, 4)),  # d.m.y
    (re.compile(rf"\b{_WEEKDAY}{_MONTH}\s*(\d{{1,2}})\b(?!:){_YEAR}"), (4, 2, 3, 1)),
    (re.compile(rf"\b{_WEEKDAY}(?:the\s+)?(\d{{1,2}})\s+(?:of\s+)?{_MONTH},?{_YEAR}"), (4, 3, 2, 1)),
)

DateParts = tuple[int | None, int, int, int | None]  # year (None: not said), month, day, weekday


def _date_matches(s: str) -> list[tuple[int, int, DateParts]]:
    """(start, end, parts) of every valid date written in lower-case text with ordinals removed."""
    found: list[tuple[int, int, DateParts]] = []
    for pattern, (yi, mi, di, wi) in _DATE_PATTERNS:
        for m in pattern.finditer(s):
            year_s, month_s, day_s, wd = m.group(yi), m.group(mi), m.group(di), m.group(wi)
            year = int(year_s) if year_s else None
            if year is not None and year < 100:
                year += 2000
            month = _MONTHS[month_s] if month_s in _MONTHS else int(month_s)
            try:
                dt.date(year or 2000, month, int(day_s))  # 2000 is a leap year: Feb 29 is valid
            except ValueError:
                continue
            found.append((m.start(), m.end(), (year, month, int(day_s), _WEEKDAYS[wd] if wd else None)))
            s = s[: m.start()] + " " * (m.end() - m.start()) + s[m.end() :]
    return found


def _dated_text(value: Any) -> str:
    return re.sub(r"(\d)(?:st|nd|rd|th)\b", r"\1", _raw(value).lower())


def _blank_dates(s: str) -> str:
    """Text with written dates blanked out, so '04.03.2026' is not read as the time 04:03."""
    s = re.sub(r"(\d)(?:st|nd|rd|th)\b", r"\1  ", s)
    for start, end, _ in _date_matches(s):
        s = s[:start] + " " * (end - start) + s[end:]
    return s


def _compatible(a: DateParts, b: DateParts) -> bool:
    """Two readings can be the same day: same month and day, year and weekday agree where both say one."""
    if a[1:3] != b[1:3]:
        return False
    if a[0] is not None and b[0] is not None and a[0] != b[0]:
        return False
    year = a[0] if a[0] is not None else b[0]
    if year is not None:
        try:
            weekday = dt.date(year, a[1], a[2]).weekday()
        except ValueError:  # Feb 29 in a year without one
            return False
        return all(w is None or w == weekday for w in (a[3], b[3]))
    return a[3] is None or b[3] is None or a[3] == b[3]


def dates(value: Any) -> list[DateParts]:
    """Every distinct date an answer states: '2026-03-04', 'March 4, 2026', '4 March 2026', '03/04/2026' (US),
    'Wednesday, March 4' (year None). A reading that only repeats a fuller one is dropped."""
    found = [parts for _, _, parts in sorted(_date_matches(_dated_text(value)))]
    out: list[DateParts] = []
    for parts in sorted(found, key=lambda p: (p[0] is None, p[3] is None)):
        if not any(_compatible(parts, kept) for kept in out):
            out.append(parts)
    return out


def date(value: Any) -> str | None:
    """The ISO date of the one full date (with a year) a value states, or None."""
    found = dates(value)
    if len(found) != 1:
        return None
    year, month, day, _ = found[0]
    return None if year is None else dt.date(year, month, day).isoformat()


# -- booleans --------------------------------------------------------------------------------------

_TRUE = {"yes", "y", "yeah", "yep", "true", "enabled", "enable", "active", "activated", "connected"}
_FALSE = {"no", "n", "nope", "false", "disabled", "disable", "inactive", "deactivated", "disconnected"}
_NEGATORS = {"not", "never"}
_STATE_VERBS = {"is", "was", "are", "were", "turned", "switched", "set", "stays", "remains", "it's", "its"}


def _negated(before: list[str]) -> bool:
    return bool(before) and (before[-1] in _NEGATORS or before[-1].endswith("n't"))


def booleans(value: Any) -> list[bool]:
    """Every distinct truth value an answer states: yes/no, true/false, on/off, enabled/disabled, 1/0;
    'not' before a word flips it ('it is not enabled' -> False)."""
    s = _raw(value).lower().strip()
    if s.rstrip(_TRAILING) in ("1", "0"):
        return [s.rstrip(_TRAILING) == "1"]
    found: list[bool] = []
    for m in re.finditer(r"[a-z']+", s):
        word, before = m.group(), re.findall(r"[a-z']+", s[: m.start()])
        if word in _TRUE or word in _FALSE:
            found.append((word in _TRUE) != _negated(before))
        elif word in ("on", "off"):
            # "on"/"off" are prepositions too ("the alarm on Monday"): a state only at the end of a
            # clause or right after a verb that takes one ("turned on", "is not on").
            after = s[m.end() :].lstrip()
            verb = [w for w in before[-2:] if w not in _NEGATORS and not w.endswith("n't")]
            if not after or after[0] in ".,;!?)" or (verb and verb[-1] in _STATE_VERBS):
                found.append((word == "on") != _negated(before))
    return list(dict.fromkeys(found))


def boolean(value: Any) -> bool | None:
    """The one truth value a value states, or None."""
    found = booleans(value)
    return found[0] if len(found) == 1 else None


# -- the verdict -----------------------------------------------------------------------------------


def _readings(kind: str) -> Callable[[Any], list[Any]]:
    readers: dict[str, Callable[[Any], list[Any]]] = {
        "integer": numbers,
        "number": numbers,
        "money": numbers,
        "date": dates,
        "time": times,
        "boolean": booleans,
        "phone": phones,
    }
    return readers[kind]


def _same(kind: str, got: Any, want: Any, tolerance: float) -> bool:
    if kind in ("integer", "number", "money"):
        return bool(abs(got - want) <= float(tolerance) + EPSILON)
    if kind == "date":
        year, month, day, _ = want
        return _compatible(got, (year, month, day, None))
    return bool(got == want)


def _show(kind: str, v: Any) -> str:
    if kind in ("integer", "number", "money"):
        return f"{v:g}" if kind != "money" else f"{v:.2f}"
    if kind == "date":
        year, month, day, weekday = v
        day_s = f"{year:04d}-{month:02d}-{day:02d}" if year is not None else f"--{month:02d}-{day:02d}"
        return day_s if weekday is None else f"{WEEKDAY_NAMES[weekday]} {day_s}"
    return str(v)


def verdict(kind: str, given: Any, expected: Any, tolerance: float = 0) -> tuple[bool, str]:
    """(matches, a sentence saying what the answer was read as and why it did or did not match)."""
    if kind not in KINDS:
        raise MgfarmError(f"Unknown answer kind {kind!r}; use one of {', '.join(KINDS)}.")
    size = len(_raw(given))
    if size > MAX_ANSWER_CHARS:
        return False, f"the answer is {size} characters long; answers are read up to {MAX_ANSWER_CHARS}"
    if kind == "exact":
        ok = _raw(given).strip() == _raw(expected).strip()
        return ok, f"{given!r} {'is' if ok else 'is not'} exactly {expected!r}"
    if kind == "text":
        want_text = text(expected)
        ok = want_text in _text_readings(given)
        return ok, f"{given!r} {'reads as' if ok else 'does not read as'} {want_text!r}"
    read = _readings(kind)
    want = read(expected)
    if len(want) != 1:
        return False, f"the expected value {expected!r} is not one {kind} ({len(want)} read); fix the task"
    got = read(given)
    if not got:
        return False, f"no {kind} in the answer {given!r}"
    if len(got) > 1:
        listed = ", ".join(_show(kind, g) for g in got)
        return False, f"the answer {given!r} hedges between {len(got)} values ({listed}); one is needed"
    ok = _same(kind, got[0], want[0], tolerance)
    slack = f" within {tolerance:g}" if tolerance and kind in ("integer", "number", "money") else ""
    how = "matches" if ok else "does not match"
    return ok, f"the answer {given!r} means {_show(kind, got[0])}, which {how} {_show(kind, want[0])}{slack}"


def matches(kind: str, given: object, expected: object, tolerance: float = 0) -> bool:
    """Whether an answer states exactly one value of `kind` and it is the expected one."""
    return verdict(kind, given, expected, tolerance)[0]


def describe(kind: str, given: object, expected: object, tolerance: float = 0) -> str:
    """Why an answer did (or did not) match, for reports."""
    return verdict(kind, given, expected, tolerance)[1]


def typed(kind: str, value: Any) -> Any:
    """The one value of `kind` an answer states (a number, 'HH:MM', an ISO date, a bool, text), or None."""
    if kind in ("text", "exact"):
        return text(value) if kind == "text" else _raw(value).strip()
    if kind == "integer":
        n = number(value)
        return None if n is None else round(n)
    if kind == "date":
        return date(value)
    found = _readings(kind)(value)
    return found[0] if len(found) == 1 else None
