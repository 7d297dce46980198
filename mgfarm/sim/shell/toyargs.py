"""toybox's command-line rules (lib/args.c), for the commands that follow them: options anywhere
among the operands, bundled letters, a value attached or in the next argument, numbers as atolx
reads them, and the messages and exit status 1 of a bad command line."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mgfarm.sim.shell.registry import Invocation

SUFFIXES = "cwbkmgtpe"  # atolx's: c(har) w(ord) b(lock) k m g t p e
PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"  # C's ispunct


class UsageError(Exception):
    """A bad command line: printed as `name: message (see "name --help")`, status 1."""


class Fatal(Exception):
    """toybox's error_exit: printed as `name: message`, status 1, nothing more done."""


@dataclass(frozen=True)
class ToySpec:
    """What a toybox optstring says: which letters a command takes and how many operands."""

    name: str
    flags: str = ""  # letters without a value
    strings: str = ""  # letters whose value is a string
    numbers: dict[str, tuple[int | None, int | None]] = field(default_factory=dict)  # letter: bounds
    defaults: dict[str, int] = field(default_factory=dict)
    longs: dict[str, str] = field(default_factory=dict)  # --name: letter
    min_args: int = 0
    max_args: int | None = None
    exclusive: tuple[str, ...] = ()  # [!bc] groups: letters that may not come together
    overrides: tuple[str, ...] = ()  # [-nc] groups: of their letters the last given counts
    long_only: str = ""  # stand-in letters of --long options that have no short form
    optional: str = ""  # value letters whose value comes only as --name=VALUE (`;`)
    signed: str = ""  # number letters whose plain value counts from the end (`-n 5` is -5; `+5` is 5)
    passthrough: bool = False  # `?`: an argument with an unknown letter is an operand
    stop_at_operand: bool = False  # `^`: the first operand ends the options (the rest are operands)


@dataclass
class ToyArgs:
    flags: set[str]
    values: dict[str, str | int]  # each letter's last value
    operands: list[str]
    order: list[tuple[str, str | int]] = field(default_factory=list)  # every option as given ("" for a flag)


STRTOLL = re.compile(r"[ \t\n\v\f\r]*([+-]?)(0[xX](?=[0-9a-fA-F])[0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")


def wrap(value: int, bits: int = 64) -> int:
    """C's two's complement wrap-around: a long long (64 bits) or an int (32)."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def strtoll(text: str) -> tuple[int, int] | None:
    """C's strtoll(text, &end, 0) before its range check: the value (any size) and where the
    number ends, or None when there are no digits."""
    digits = STRTOLL.match(text)
    if digits is None:
        return None
    sign, body = digits.groups()
    base = 16 if body[:2].lower() == "0x" else 8 if body.startswith("0") else 10
    return int(body, base) * (-1 if sign == "-" else 1), digits.end()


def atolx(text: str) -> int:
    """toybox's atolx: strtoll in any base (0x, 0 octal), then an optional size suffix."""
    found = strtoll(text)
    if found is None:
        raise Fatal(f"not integer: {text}")
    value, end = found
    if not -(1 << 63) <= value < 1 << 63:
        raise Fatal(f"{text}: Numerical result out of range")
    rest = text[end:]
    if rest and rest[0].lower() in SUFFIXES:
        value, rest = _apply_suffix(value, rest)
    if rest.lstrip(" \t\n\v\f\r"):
        raise Fatal(f"not integer: {text}")
    return wrap(value)  # C wraps a suffix's overflow


def _apply_suffix(value: int, rest: str) -> tuple[int, str]:
    """Scale by a suffix; k..e take 1024s, or 1000s with a `d` after (its next letter is eaten
    whatever it is, as atolx does)."""
    shift = SUFFIXES.index(rest[0].lower()) - 2
    rest = rest[1:]
    if shift == -1:
        return value * 2, rest
    if shift == 0:
        return value * 512, rest
    if shift > 0:
        if rest:
            decimal, rest = rest[0].lower() == "d", rest[1:]
            return value * (1000**shift if decimal else 1 << (shift * 10)), rest
        return value << (shift * 10), rest
    return value, rest


def toy_parse(spec: ToySpec, argv: list[str]) -> ToyArgs:
    """Parse `argv` (without the command name) as toybox's get_optflags would."""
    args = ToyArgs(set(), dict(spec.defaults), [])
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            args.operands.extend(argv[i:])
            break
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            letter = spec.longs.get(name)
            if letter is None:
                if spec.passthrough:
                    args.operands.append(arg)
                    continue
                raise UsageError(f"Unknown option '{arg[2:]}'")
            takes_value = letter in spec.strings or letter in spec.numbers
            if eq and not takes_value:
                raise UsageError(f"Unknown option '{arg[2:]}'")  # only a value option has `=`
            _set_flag(spec, args, letter)
            if takes_value and not (letter in spec.optional and not eq):
                if not eq:
                    if i >= len(argv):
                        raise UsageError(f"Missing argument to --{name}")
                    value, i = argv[i], i + 1
                args.values[letter] = _option_value(spec, letter, value)
                args.order.append((letter, args.values[letter]))
        elif arg.startswith("-") and arg != "-":
            if spec.passthrough and not _known(spec, arg[1:]):
                args.operands.append(arg)
                continue
            i = _short_options(spec, args, argv, i, arg[1:])
        else:
            args.operands.append(arg)
            if spec.stop_at_operand:
                args.operands.extend(argv[i:])
                break
    count = len(args.operands)
    if count < spec.min_args:
        plural = "" if spec.min_args == 1 else "s"
        raise UsageError(f"Need{'s' if spec.min_args == 1 else ''} {spec.min_args} argument{plural}")
    if spec.max_args is not None and count > spec.max_args:
        raise UsageError(f"Max {spec.max_args} argument{'' if spec.max_args == 1 else 's'}")
    return args


def _short_options(spec: ToySpec, args: ToyArgs, argv: list[str], i: int, bundle: str) -> int:
    """One `-abc` argument; returns the index of the next argument (past a value taken)."""
    for pos, letter in enumerate(bundle):
        if letter in spec.long_only:
            raise UsageError(f"Unknown option '{bundle[pos:]}'")
        if letter in spec.flags:
            _set_flag(spec, args, letter)
            continue
        if letter not in spec.strings and letter not in spec.numbers:
            raise UsageError(f"Unknown option '{bundle[pos:]}'")
        _set_flag(spec, args, letter)
        value = bundle[pos + 1 :]
        if not value:
            if i >= len(argv):
                raise UsageError(f"Missing argument to -{letter}")
            value, i = argv[i], i + 1
        args.values[letter] = _option_value(spec, letter, value)
        args.order.append((letter, args.values[letter]))
        return i
    return i


def _known(spec: ToySpec, bundle: str) -> bool:
    """Whether every option letter of `-bundle` is the command's (up to the first that takes a
    value: the rest is its value)."""
    for letter in bundle:
        if letter in spec.long_only:
            return False
        if letter in spec.strings or letter in spec.numbers:
            return True
        if letter not in spec.flags:
            return False
    return True


def _set_flag(spec: ToySpec, args: ToyArgs, letter: str) -> None:
    for group in spec.overrides:
        if letter in group:
            args.flags.difference_update(group)
    for group in spec.exclusive:
        if letter not in group:
            continue
        for other in group:
            if other != letter and other in args.flags:
                raise UsageError(f"No '{letter}' with '{other}'")
    args.flags.add(letter)
    if letter in spec.flags:
        args.order.append((letter, ""))


def _option_value(spec: ToySpec, letter: str, value: str) -> str | int:
    if letter in spec.strings:
        return value
    number = atolx(value)
    if letter in spec.signed and value[:1] not in PUNCTUATION:
        number = -number  # toybox's `-` type: a value without a sign counts from the end
    low, high = spec.numbers[letter]
    if low is not None and number < low:
        raise UsageError(f"-{letter} < {low}")
    if high is not None and number > high:
        raise UsageError(f"-{letter} > {high}")
    return number


def parse_or_report(inv: Invocation, spec: ToySpec) -> ToyArgs | None:
    """The parsed command line, or None once a bad one is reported on stderr."""
    try:
        return toy_parse(spec, inv.argv[1:])
    except UsageError as exc:
        inv.err(f'{spec.name}: {exc} (see "{spec.name} --help")\n')
    except Fatal as exc:
        inv.err(f"{spec.name}: {exc}\n")
    return None


def arg_bytes(text: str) -> bytes:
    """An argument as the bytes a C program gets (arguments that were not UTF-8 kept as they were)."""
    return text.encode("utf-8", "surrogateescape")
