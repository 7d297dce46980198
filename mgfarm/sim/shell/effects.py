"""Which shell commands leave the screen as it was, so the window manager may keep its frame.

A command not named here counts as a change (the safe default): the next screenshot or dump
composes the screen anew. Only reads that controllers and verifiers run on every step are listed.
"""

from __future__ import annotations

# Commands that never write device state that a screen shows, whatever their arguments.
READ_ONLY = frozenset(
    {
        "[", "basename", "cat", "cksum", "comm", "cut", "date", "df", "dirname", "dumpsys", "echo",
        "egrep", "false", "fgrep", "file", "getprop", "grep", "head", "id", "log", "logcat", "ls",
        "md5sum", "nl", "paste", "pidof", "printenv", "printf", "ps", "pwd", "readlink", "realpath",
        "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "sleep", "stat",
        "strings", "tac", "tail", "test", "tr", "true", "uname", "uptime", "wc", "which",
        "whoami",
    }
)  # fmt: skip
# Subcommands that only read; the rest of these commands write.
READ_VERBS = {"content": {"query"}, "pm": {"list", "path", "dump"}, "settings": {"get", "list"}}
# Commands whose every effect on what a screen shows goes through the window manager's input events,
# which mark the device changed themselves when they did anything: the shell adds no mark of its own,
# so a tap beside every control keeps the composed screen.
MARKS_ITSELF = frozenset({"input"})
# Where `uiautomator dump` may write without changing what any app shows (no app lists these).
PRIVATE_OUTPUTS = ("/data/local/tmp/", "/dev/tty", "/dev/stdout", "/dev/null")


def screen_neutral(argv: list[str]) -> bool:
    """True when running `argv` cannot change what the screen shows (date: the clock is keyed apart)."""
    name, args = argv[0], argv[1:]
    if name in READ_ONLY:
        return True
    if name in READ_VERBS:
        while args[:1] == ["--user"]:
            args = args[2:]
        return bool(args) and args[0] in READ_VERBS[name]
    if name == "sort":  # -o FILE writes
        return not any(a.startswith(("-o", "--output")) or (a[:1] == "-" and "o" in a[1:]) for a in args)
    if name == "uniq":  # a second operand is the file it writes
        return len([a for a in args if not a.startswith("-") or a == "-"]) < 2
    if name == "mgfarm-frame":  # writes only the frame file, which no app shows
        return True
    if name == "screencap":  # to stdout only; a file target may be shown by the Files app
        return all(a.startswith("-") and a != "-d" for a in args)
    if name == "uiautomator":
        targets = [a for a in args[1:] if not a.startswith("--")]
        return args[:1] == ["dump"] and bool(targets) and all(t.startswith(PRIVATE_OUTPUTS) for t in targets)
    return False


def marks_changed(argv: list[str]) -> bool:
    """Whether the shell marks the device changed once `argv` ran: not when the command cannot
    change what the screen shows, nor when its effects mark the device themselves (`input`)."""
    return argv[0] not in MARKS_ITSELF and not screen_neutral(argv)
