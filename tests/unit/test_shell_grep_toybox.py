"""toybox 0.8.6's grep as the sim imitates it (shell/grep_cmd.py).

Each CASES entry's status, stdout and stderr were recorded from a real toybox 0.8.6 binary (built
from its source with Android's device config, run on the host) on the same files, in the folder
that holds them. The fuzz test checks that any command line ends with status 0, 1 or 2 and no
traceback; the bound tests that a catastrophic pattern ends the command and a 10 MB input does not
hold the event loop.
"""

from __future__ import annotations

import asyncio
import shlex
import time
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.sim.io import ShellIO
from mgfarm.sim.shell import run_command_line
from mgfarm.sim.shell.grep_cmd import Options, is_binary, split_patterns
from tests.unit.shellkit import ShellDevice

FILES = {
    "IN": b"Apple\nbanana\napple pie\ncherry\n\nword words\nfoo.bar\napple_x xapple\n",
    "IN2": b"apple\nx\n",
    "BIN": b"bin\x00 apple\napple two\n",
    "TAIL": b"no newline apple",
}
DIR = "/data/local/tmp"

# (command line, status, stdout, stderr) recorded from toybox 0.8.6
CASES = [
    ("grep apple IN", 0, b"apple pie\napple_x xapple\n", b""),
    ("grep -i apple IN", 0, b"Apple\napple pie\napple_x xapple\n", b""),
    ("grep -v apple IN", 0, b"Apple\nbanana\ncherry\n\nword words\nfoo.bar\n", b""),
    ("grep -c apple IN IN2", 0, b"IN:2\nIN2:1\n", b""),
    ("grep -n apple IN", 0, b"3:apple pie\n8:apple_x xapple\n", b""),
    ("grep -o 'a.' IN", 0, b"an\nan\nap\nar\nap\nap\n", b""),
    ("grep -ob p IN", 0, b"1:p\n2:p\n14:p\n15:p\n19:p\n51:p\n52:p\n60:p\n61:p\n", b""),
    ("grep -ov apple IN", 0, b"Apple\nbanana\n pie\ncherry\nword words\nfoo.bar\n_x x\n", b""),
    ("grep -on '' IN", 1, b"", b""),
    ("grep -w apple IN", 0, b"apple pie\n", b""),
    ("grep -x apple IN IN2", 0, b"IN2:apple\n", b""),
    ("grep -l apple IN IN2 TAIL", 0, b"IN\nIN2\nTAIL\n", b""),
    ("grep -L apple IN IN2", 0, b"", b""),
    ("grep -Z -l apple IN", 0, b"IN\x00", b""),
    ("grep -H apple IN2", 0, b"IN2:apple\n", b""),
    ("grep -h apple IN IN2", 0, b"apple pie\napple_x xapple\napple\n", b""),
    ("grep -m 1 apple IN", 0, b"apple pie\n", b""),
    ("grep -m 0 Apple IN", 0, b"Apple\n", b""),
    ("grep -A 1 apple IN", 0, b"apple pie\ncherry\n--\napple_x xapple\n", b""),
    ("grep -B 1 -n cherry IN", 0, b"3-apple pie\n4:cherry\n", b""),
    ("grep -C 1 -b word IN", 0, b"30-\n31:word words\nfoo.bar\n", b""),
    ("grep -A1 -e Apple -e word IN", 0, b"Apple\nbanana\n--\nword words\nfoo.bar\n", b""),
    ("grep -c -B1 word IN", 0, b"1\n", b""),
    ("grep apple BIN", 0, b"Binary file BIN matches\nBinary file BIN matches\n", b""),
    ("grep -a apple BIN", 0, b"bin\x00 apple\napple two\n", b""),
    ("grep -I apple BIN IN2", 0, b"IN2:apple\n", b""),
    ("grep -c apple BIN", 0, b"2\n", b""),
    ("grep apple TAIL", 0, b"no newline apple\n", b""),
    (
        "grep -z apple IN",
        0,
        b"Apple\nbanana\napple pie\ncherry\n\nword words\nfoo.bar\napple_x xapple\n\n",
        b"",
    ),
    ("grep -F a.b IN", 1, b"", b""),
    ("grep -F -o -e a -e p IN2", 0, b"p\np\n", b""),
    ("grep -E 'pie|word' IN", 0, b"apple pie\nword words\n", b""),
    ("grep -e 'a\\|ap' -o IN2", 0, b"ap\n", b""),
    ("grep -f IN2 IN", 0, b"apple pie\napple_x xapple\n", b""),
    ("grep -w '' IN2", 1, b"", b""),
    ("grep -x '' IN", 0, b"\n", b""),
    (
        "grep apple IN missing",
        2,
        b"IN:apple pie\nIN:apple_x xapple\n",
        b"grep: missing: No such file or directory\n",
    ),
    ("grep -s apple missing IN", 2, b"IN:apple pie\nIN:apple_x xapple\n", b""),
    ("grep -q apple missing IN", 0, b"", b"grep: missing: No such file or directory\n"),
    ("grep -q zzz IN", 1, b"", b""),
    ("grep apple .", 1, b"", b"grep: .: Is a directory\n"),
    ("grep 'a[' IN", 2, b"", b"grep: bad regex 'a[': Invalid regular expression\n"),
    ("grep -E '*a' IN", 2, b"", b"grep: bad regex '*a': Invalid preceding regular expression\n"),
    ("grep -E '(' IN", 2, b"", b"grep: bad regex '(': Unmatched ( or \\(\n"),
    ("grep -wx a IN", 2, b"", b"grep: No 'x' with 'w' (see \"grep --help\")\n"),
    ("grep -m x a IN", 2, b"", b"grep: not integer: x\n"),
    ("grep", 2, b"", b"grep: no REGEX\n"),
    ("grep --foo a IN", 2, b"", b"grep: Unknown option 'foo' (see \"grep --help\")\n"),
    ("grep -f missing IN", 2, b"", b"grep: Bad 'missing': No such file or directory\n"),
    ("grep --color=always -n apple IN2", 0, b"\x1b[32m1\x1b[36m:\x1b[m\x1b[1;31mapple\x1b[m\n", b""),
    ("grep --color apple IN2", 0, b"apple\n", b""),
    ("egrep 'x|pie' IN", 0, b"apple pie\napple_x xapple\n", b""),
    ("fgrep '.' IN", 0, b"foo.bar\n", b""),
    ("grep -- -x IN", 1, b"", b""),
    ("grep -e -x IN", 1, b"", b""),
    ("grep -rh apple IN IN2", 0, b"apple pie\napple_x xapple\napple\n", b""),
]


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    device = ShellDevice(tmp_path_factory.mktemp("grep"), boot=False)
    for name, data in FILES.items():
        device.host(f"{DIR}/{name}").write_bytes(data)
    yield device
    device.close()


@pytest.mark.parametrize(("line", "status", "out", "err"), CASES, ids=[c[0] for c in CASES])
def test_grep_as_toybox(sh: ShellDevice, line: str, status: int, out: bytes, err: bytes) -> None:
    r = sh.run(f"cd {DIR} && {line}")
    assert (r.status, r.out, r.err) == (status, out, err)


def test_grep_r_names_files_under_a_folder(sh: ShellDevice) -> None:
    sh.run(
        f"mkdir -p {DIR}/t/sub/skip; printf 'apple\\n' > {DIR}/t/a.txt; printf 'apple\\n' > {DIR}/t/sub/b.log"
    )
    sh.run(f"printf 'apple\\n' > {DIR}/t/sub/skip/c.txt")
    r = sh.run(f"cd {DIR} && grep -r apple t")
    assert sorted(r.out.splitlines()) == [b"t/a.txt:apple", b"t/sub/b.log:apple", b"t/sub/skip/c.txt:apple"]
    r = sh.run(f"cd {DIR} && grep -rl --exclude-dir=skip -M '*.txt' apple t")
    assert r.out == b"t/a.txt\n"
    r = sh.run(f"cd {DIR} && grep -rc -S '*.txt' apple t/")
    assert r.out == b"t/sub/b.log:1\n"
    assert sh.run(f"cd {DIR} && grep -r apple t/a.txt").out == b"apple\n"  # one file: no name


def test_binary_is_a_nul_or_bad_utf8_in_the_first_256_bytes() -> None:
    assert is_binary(b"a\x00b")
    assert is_binary(b"\xff text")
    assert not is_binary("été".encode())
    assert not is_binary(b"x" * 255 + "é".encode())  # a character cut by the 256th byte
    assert not is_binary(b"x" * 256 + b"\x00")


def test_patterns_split_at_newlines() -> None:
    plain, nul = Options(set()), Options({"z"})
    assert split_patterns("a\nb\n", plain) == ["a", "b"]
    assert split_patterns("\n", plain) == [""]
    assert split_patterns("a\n\nb", plain) == ["a", "", "b"]
    assert split_patterns("a\nb", nul) == ["a\nb"]


OPTION = st.sampled_from(
    ["-i", "-v", "-c", "-n", "-o", "-q", "-l", "-L", "-h", "-H", "-w", "-x", "-s", "-b", "-z", "-Z", "-a",
     "-I", "-E", "-F", "-r", "-m1", "-m0", "-A1", "-B2", "-C1", "--color=always", "-e", "-f", "-M*", "--"]
)  # fmt: skip
PIECE = st.sampled_from(
    ["a", "p", ".", "*", "^", "$", "[", "]", "\\", "(", ")", "|", "+", "?", "{", "1", "}", "\\<", "é"]
)


@settings(max_examples=60, deadline=None)
@given(
    options=st.lists(OPTION, max_size=4),
    pattern=st.lists(PIECE, max_size=6).map("".join),
    data=st.binary(max_size=80),
)
def test_fuzz_grep_ends_with_a_status(sh: ShellDevice, options: list[str], pattern: str, data: bytes) -> None:
    sh.host(f"{DIR}/FZ").write_bytes(data)
    r = sh.run(f"cd {DIR} && grep {' '.join(options)} {shlex.quote(pattern)} FZ IN")
    assert r.status in (0, 1, 2)
    assert b"Traceback" not in r.err


def test_a_catastrophic_pattern_ends_with_an_error(sh: ShellDevice) -> None:
    sh.host(f"{DIR}/cat").write_bytes((b"a" * 3000 + b"c\n") * 50)
    start = time.monotonic()
    r = sh.run(f"cd {DIR} && grep -E '(a|aa)*[bd]' cat")
    assert r.status == 2 and b"too long" in r.err
    assert time.monotonic() - start < 5


def test_a_10mb_input_leaves_the_event_loop_free(sh: ShellDevice) -> None:
    sh.host(f"{DIR}/big").write_bytes(
        b"".join(b"line %d: some text, an apple, and more text\n" % i for i in range(230_000))
    )

    async def both() -> tuple[int, float]:
        io = ShellIO.buffered()
        task = asyncio.ensure_future(run_command_line(sh.device, f"cd {DIR} && grep -c 7 big", io))
        longest, last = 0.0, time.monotonic()
        while not task.done():
            await asyncio.sleep(0.01)
            now = time.monotonic()
            longest, last = max(longest, now - last), now
        status = await task
        await io.stdout.flush()
        assert bytes(io.stdout.collected) == b"%d\n" % sum(b"7" in b"%d" % i for i in range(230_000))
        return status, longest

    status, longest = sh.loop.run_until_complete(both())
    assert status == 0
    assert longest < 0.5  # the matching ran in a worker thread
