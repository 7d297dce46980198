# ruff: noqa: E501  (outputs recorded from toybox, kept whole)
"""`ls` against toybox 0.8.6: each expected output was recorded from a toybox 0.8.6 binary built
with Android's config, run (TZ=UTC, LC_ALL=C.UTF-8, output not a terminal) over the same tree built
as root on the host. The sim lists the tree under /data, which Android's rules give to root, so the
owner columns need no normalising. Then fuzzing: any options end with a status, never a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.shellkit import ShellDevice

SETUP = "mkdir -p t/sub/deep t/.hid && printf abc > t/a.txt && printf '' > t/empty && head -c 1500 /dev/zero > t/big && head -c 1300000 /dev/zero > t/huge && printf 1234567890 > t/sub/b.bin && printf x > t/.dot && printf s > 't/with space' && printf n > 't/new line' && ln -s a.txt t/link && ln -s nowhere t/dangling && ln -s sub t/dirlink && chmod 640 t/a.txt && chmod 755 t/exe 2>/dev/null; touch -d '2024-01-02 03:04:05' t/a.txt t/empty t/sub/b.bin t/.dot 't/with space' 't/new line' && touch -d '2023-05-06 07:08:09.5' t/big t/huge && touch -h -d '2024-01-02 03:04:05' t/link t/dangling t/dirlink && touch -d '2022-02-02 02:02:02' t/sub/deep t/sub t/.hid t"

CASES = [
    ("ls t", 0, "a.txt\nbig\ndangling\ndirlink\nempty\nhuge\nlink\nnew line\nsub\nwith space\n", ""),
    (
        "ls -a t",
        0,
        ".\n..\n.dot\n.hid\na.txt\nbig\ndangling\ndirlink\nempty\nhuge\nlink\nnew line\nsub\nwith space\n",
        "",
    ),
    (
        "ls -A t",
        0,
        ".dot\n.hid\na.txt\nbig\ndangling\ndirlink\nempty\nhuge\nlink\nnew line\nsub\nwith space\n",
        "",
    ),
    ("ls -F t", 0, "a.txt\nbig\ndangling@\ndirlink@\nempty\nhuge\nlink@\nnew line\nsub/\nwith space\n", ""),
    ("ls -p t", 0, "a.txt\nbig\ndangling\ndirlink\nempty\nhuge\nlink\nnew line\nsub/\nwith space\n", ""),
    (
        "ls -R t",
        0,
        "t:\na.txt\nbig\ndangling\ndirlink\nempty\nhuge\nlink\nnew line\nsub\nwith space\n\nt/sub:\nb.bin\ndeep\n\nt/sub/deep:\n",
        "",
    ),
    ("ls -d t t/sub", 0, "t\nt/sub\n", ""),
    ("ls -r t", 0, "with space\nsub\nnew line\nlink\nhuge\nempty\ndirlink\ndangling\nbig\na.txt\n", ""),
    ("ls -t t", 0, "a.txt\ndangling\ndirlink\nempty\nlink\nnew line\nwith space\nbig\nhuge\nsub\n", ""),
    ("ls -S t", 0, "huge\nsub\nbig\ndangling\nlink\na.txt\ndirlink\nnew line\nwith space\nempty\n", ""),
    ("ls -tr t", 0, "sub\nhuge\nbig\nwith space\nnew line\nlink\nempty\ndirlink\ndangling\na.txt\n", ""),
    ("ls -q t", 0, "a.txt\nbig\ndangling\ndirlink\nempty\nhuge\nlink\nnew line\nsub\nwith space\n", ""),
    ("ls -b t", 0, "a.txt\nbig\ndangling\ndirlink\nempty\nhuge\nlink\nnew\\ line\nsub\nwith\\ space\n", ""),
    ("ls -m t", 0, "a.txt, big, dangling, dirlink, empty, huge, link, new line, sub, with space\n", ""),
    (
        "ls -C t",
        0,
        "a.txt  dangling  empty  link      sub\nbig    dirlink   huge   new line  with space\n",
        "",
    ),
    ("ls -x t", 0, "a.txt       big  dangling  dirlink  empty  huge  link  new line  sub\nwith space\n", ""),
    (
        "ls -w 30 -C t",
        0,
        "a.txt     huge\nbig       link\ndangling  new line\ndirlink   sub\nempty     with space\n",
        "",
    ),
    (
        "ls -w 20 -x t",
        0,
        "a.txt     big\ndangling  dirlink\nempty     huge\nlink      new line\nsub       with space\n",
        "",
    ),
    (
        "ls -w 40 -m t",
        0,
        "a.txt, big, dangling, dirlink, empty,\nhuge, link, new line, sub, with space\n",
        "",
    ),
    (
        "ls -l t/a.txt t/empty t/link t/dangling",
        0,
        "-rw-r----- 1 root root 3 2024-01-02 03:04 t/a.txt\nlrwxrwxrwx 1 root root 7 2024-01-02 03:04 t/dangling -> nowhere\n-rw-r--r-- 1 root root 0 2024-01-02 03:04 t/empty\nlrwxrwxrwx 1 root root 5 2024-01-02 03:04 t/link -> a.txt\n",
        "",
    ),
    (
        "ls -lh t/big t/huge t/a.txt",
        0,
        "-rw-r----- 1 root root    3 2024-01-02 03:04 t/a.txt\n-rw-r--r-- 1 root root 1.4K 2023-05-06 07:08 t/big\n-rw-r--r-- 1 root root 1.2M 2023-05-06 07:08 t/huge\n",
        "",
    ),
    (
        "ls -n t/a.txt t/big",
        0,
        "-rw-r----- 1 0 0    3 2024-01-02 03:04 t/a.txt\n-rw-r--r-- 1 0 0 1500 2023-05-06 07:08 t/big\n",
        "",
    ),
    ("ls -g t/a.txt", 0, "-rw-r----- 1 root 3 2024-01-02 03:04 t/a.txt\n", ""),
    ("ls -o t/a.txt", 0, "-rw-r----- 1 root 3 2024-01-02 03:04 t/a.txt\n", ""),
    (
        "ls -go t/a.txt t/big",
        0,
        "-rw-r----- 1    3 2024-01-02 03:04 t/a.txt\n-rw-r--r-- 1 1500 2023-05-06 07:08 t/big\n",
        "",
    ),
    (
        "ls --full-time t/big",
        0,
        "-rw-r--r-- 1 root root 1500 2023-05-06 07:08:09.500000000 +0000 t/big\n",
        "",
    ),
    ("ls -ll t/a.txt", 0, "-rw-r----- 1 root root 3 2024-01-02 03:04:05.000000000 +0000 t/a.txt\n", ""),
    (
        "ls -lF t/link t/dirlink",
        0,
        "lrwxrwxrwx 1 root root 3 2024-01-02 03:04 t/dirlink -> sub@\nlrwxrwxrwx 1 root root 5 2024-01-02 03:04 t/link -> a.txt@\n",
        "",
    ),
    (
        "ls -lL t/link t/dangling",
        0,
        "lrwxrwxrwx 1 root root 7 2024-01-02 03:04 t/dangling -> nowhere\n-rw-r----- 1 root root 3 2024-01-02 03:04 t/link\n",
        "",
    ),
    (
        "ls -lH t/dirlink/ t/link",
        0,
        "\n-rw-r----- 1 root root    3 2024-01-02 03:04 t/link\n\nt/dirlink:\ntotal 8\n-rw-r--r-- 1 root root   10 2024-01-02 03:04 b.bin\ndrwxr-xr-x 2 root root 4096 2022-02-02 02:02 deep\n",
        "",
    ),
    ("ls -dF t/dirlink t/sub/", 0, "t/dirlink@\nt/sub//\n", ""),
    ("ls t/missing t/a.txt", 1, "t/a.txt\n", "ls: t/missing: No such file or directory\n"),
    ("ls t/a.txt/", 1, "", "ls: t/a.txt/: Not a directory\n"),
    ("ls -Q t", 1, "", "ls: Unknown option 'Q' (see \"ls --help\")\n"),
    ("ls --foo", 1, "", "ls: Unknown option 'foo' (see \"ls --help\")\n"),
    ("ls -qb t", 1, "", "ls: No 'b' with 'q' (see \"ls --help\")\n"),
    ("ls -w x t", 1, "", "ls: not integer: x\n"),
    (
        "ls -Cl t/a.txt t/big",
        0,
        "-rw-r----- 1 root root    3 2024-01-02 03:04 t/a.txt\n-rw-r--r-- 1 root root 1500 2023-05-06 07:08 t/big\n",
        "",
    ),
    ("ls -lC t/a.txt t/big", 0, "t/a.txt  t/big\n", ""),
    ("ls --color t/sub t/link", 0, "t/link\n\nt/sub:\nb.bin\n\x1b[1;34mdeep\x1b[0m\n", ""),
    ("ls --color=never t/sub", 0, "b.bin\ndeep\n", ""),
    ("ls -1 t/sub t/a.txt", 0, "t/a.txt\n\nt/sub:\nb.bin\ndeep\n", ""),
    ("ls -f t/a.txt t/sub", 0, "t/a.txt\nt/sub\n", ""),
    (
        "ls t/sub -ll",
        0,
        "total 8\n-rw-r--r-- 1 root root   10 2024-01-02 03:04:05.000000000 +0000 b.bin\ndrwxr-xr-x 2 root root 4096 2022-02-02 02:02:02.000000000 +0000 deep\n",
        "",
    ),
    (
        "ls -lS t/big t/huge t/a.txt",
        0,
        "-rw-r--r-- 1 root root 1300000 2023-05-06 07:08 t/huge\n-rw-r--r-- 1 root root    1500 2023-05-06 07:08 t/big\n-rw-r----- 1 root root       3 2024-01-02 03:04 t/a.txt\n",
        "",
    ),
    ("ls -- -l", 1, "", "ls: -l: No such file or directory\n"),
    ("ls -@ t", 1, "", "ls: Unknown option '@' (see \"ls --help\")\n"),
    ("ls --full-time=1 t", 1, "", "ls: Unknown option 'full-time=1' (see \"ls --help\")\n"),
    ("ls -m t/sub t/a.txt t/big", 0, "t/a.txt, t/big\n\nt/sub:\nb.bin, deep\n", ""),
    ("ls -s t/a.txt", 0, "4 t/a.txt\n", ""),
    ("ls -Rd t", 0, "t\n", ""),
    ("ls -dR t", 0, "t\n", ""),
    ("ls -1F t/dirlink", 0, "t/dirlink@\n", ""),
]


@pytest.fixture(scope="module")
def sh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    device = ShellDevice(Path(tmp_path_factory.mktemp("ls")), boot=False)
    result = device.run("mkdir -p /data/lsw && cd /data/lsw && " + SETUP)
    assert result.status == 0, result
    yield device
    device.close()


@pytest.mark.parametrize(("line", "status", "out", "err"), CASES, ids=[c[0] for c in CASES])
def test_ls_matches_toybox(sh: ShellDevice, line: str, status: int, out: str, err: str) -> None:
    result = sh.run("cd /data/lsw && TZ=UTC " + line)
    assert (result.status, result.text, result.error) == (status, out, err)


def test_touch_h_sets_the_link_itself(sh: ShellDevice) -> None:
    """toybox's touch -h changes a dangling link's own times and creates no target."""
    result = sh.run(
        "cd /data/lsw && ln -s gone t2 && touch -h -d '2020-01-01 00:00' t2 && TZ=UTC ls -l t2 gone"
    )
    assert result.status == 1
    assert result.text.endswith(" 1 root root 4 2020-01-01 00:00 t2 -> gone\n")
    assert result.error == "ls: gone: No such file or directory\n"


OPTION = st.sampled_from(
    [
        *"aACFHLRSZbcdfghiklmnopqrstux1@Q-",
        "--color",
        "--color=never",
        "--full-time",
        "-w",
        "-w 5",
        "--x",
        "-ll",
    ]
)
OPERAND = st.sampled_from(
    ["t", "t/sub", "t/a.txt", "t/link", "t/dangling", "t/dirlink/", "t/missing", "t/a.txt/", "/dev/null"]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(OPTION, OPERAND), max_size=5))
def test_ls_fuzz_ends_with_a_status(sh: ShellDevice, words: list[str]) -> None:
    args = " ".join(w if w.startswith(("-", "t", "/")) else "-" + w for w in words)
    result = sh.run("cd /data/lsw && ls " + args)
    assert result.status in (0, 1)
    assert "Traceback" not in result.error
