"""`diff` as toybox 0.8.6's (Android 13). The expected hunks and statuses were recorded from a
toybox 0.8.6 binary built from its source (`toybox diff OPTS a b` on the same files), quirks
included: back-to-back hunks where GNU would merge, its own choice among longest common
subsequences, -B's rule. Also toybox's headers and messages, folders, and the bound on the work a
hostile pair of files may ask for."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mgfarm.sim.shell.diff_cmd import MAX_DIFF_LINES
from tests.unit.shellkit import ShellDevice

TMP = "/data/local/tmp"

# (name, options, first file, second file, toybox's status, toybox's output from the first @@)
L = "".join(f"line {i}\n" for i in range(1, 21))


def rep(text: str, old: str, new: str) -> str:
    return text.replace(old, new, 1)


CASES = [
    (
        "insert middle",
        [],
        L,
        rep(L, "line 10\n", "line 10\nnew\n"),
        1,
        ("@@ -8,6 +8,7 @@\n line 8\n line 9\n line 10\n+new\n line 11\n line 12\n line 13\n"),
    ),
    ("insert start", [], L, "new\n" + L, 1, ("@@ -1,3 +1,4 @@\n+new\n line 1\n line 2\n line 3\n")),
    ("insert end", [], L, L + "new\n", 1, ("@@ -18,3 +18,4 @@\n line 18\n line 19\n line 20\n+new\n")),
    (
        "delete middle",
        [],
        L,
        rep(L, "line 7\n", ""),
        1,
        ("@@ -4,7 +4,6 @@\n line 4\n line 5\n line 6\n-line 7\n line 8\n line 9\n line 10\n"),
    ),
    (
        "delete start",
        [],
        L,
        rep(L, "line 1\n", ""),
        1,
        ("@@ -1,4 +1,3 @@\n-line 1\n line 2\n line 3\n line 4\n"),
    ),
    (
        "delete end",
        [],
        L,
        rep(L, "line 20\n", ""),
        1,
        ("@@ -17,4 +17,3 @@\n line 17\n line 18\n line 19\n-line 20\n"),
    ),
    (
        "change one",
        [],
        L,
        rep(L, "line 5\n", "LINE 5\n"),
        1,
        ("@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+LINE 5\n line 6\n line 7\n line 8\n"),
    ),
    (
        "two near changes",
        [],
        L,
        rep(rep(L, "line 3\n", "x\n"), "line 8\n", "y\n"),
        1,
        (
            "@@ -1,6 +1,6 @@\n"
            " line 1\n"
            " line 2\n"
            "-line 3\n"
            "+x\n"
            " line 4\n"
            " line 5\n"
            " line 6\n"
            "@@ -7,5 +7,5 @@\n"
            " line 7\n"
            "-line 8\n"
            "+y\n"
            " line 9\n"
            " line 10\n"
            " line 11\n"
        ),
    ),
    (
        "two far changes",
        [],
        L,
        rep(rep(L, "line 3\n", "x\n"), "line 15\n", "y\n"),
        1,
        (
            "@@ -1,6 +1,6 @@\n"
            " line 1\n"
            " line 2\n"
            "-line 3\n"
            "+x\n"
            " line 4\n"
            " line 5\n"
            " line 6\n"
            "@@ -12,7 +12,7 @@\n"
            " line 12\n"
            " line 13\n"
            " line 14\n"
            "-line 15\n"
            "+y\n"
            " line 16\n"
            " line 17\n"
            " line 18\n"
        ),
    ),
    (
        "gap of six",
        [],
        L,
        rep(rep(L, "line 3\n", "x\n"), "line 10\n", "y\n"),
        1,
        (
            "@@ -1,6 +1,6 @@\n"
            " line 1\n"
            " line 2\n"
            "-line 3\n"
            "+x\n"
            " line 4\n"
            " line 5\n"
            " line 6\n"
            "@@ -7,7 +7,7 @@\n"
            " line 7\n"
            " line 8\n"
            " line 9\n"
            "-line 10\n"
            "+y\n"
            " line 11\n"
            " line 12\n"
            " line 13\n"
        ),
    ),
    (
        "gap of seven",
        [],
        L,
        rep(rep(L, "line 3\n", "x\n"), "line 11\n", "y\n"),
        1,
        (
            "@@ -1,6 +1,6 @@\n"
            " line 1\n"
            " line 2\n"
            "-line 3\n"
            "+x\n"
            " line 4\n"
            " line 5\n"
            " line 6\n"
            "@@ -8,7 +8,7 @@\n"
            " line 8\n"
            " line 9\n"
            " line 10\n"
            "-line 11\n"
            "+y\n"
            " line 12\n"
            " line 13\n"
            " line 14\n"
        ),
    ),
    (
        "no newline both",
        [],
        L[:-1],
        rep(L, "line 2\n", "two\n")[:-1],
        1,
        ("@@ -1,5 +1,5 @@\n line 1\n-line 2\n+two\n line 3\n line 4\n line 5\n"),
    ),
    (
        "newline added",
        [],
        L[:-1],
        L,
        1,
        (
            "@@ -17,4 +17,4 @@\n"
            " line 17\n"
            " line 18\n"
            " line 19\n"
            "-line 20\n"
            "\\ No newline at end of file\n"
            "+line 20\n"
        ),
    ),
    (
        "newline removed",
        [],
        L,
        L[:-1],
        1,
        (
            "@@ -17,4 +17,4 @@\n"
            " line 17\n"
            " line 18\n"
            " line 19\n"
            "-line 20\n"
            "+line 20\n"
            "\\ No newline at end of file\n"
        ),
    ),
    ("empty to text", [], "", "a\nb\n", 1, ("@@ -0,0 +1,2 @@\n+a\n+b\n")),
    ("text to empty", [], "a\nb\n", "", 1, ("@@ -1,2 +0,0 @@\n-a\n-b\n")),
    ("empty vs no newline", [], "", "a", 1, ("@@ -0,0 +1 @@\n+a\n\\ No newline at end of file\n")),
    ("replace all", [], "a\nb\nc\n", "x\ny\n", 1, ("@@ -1,3 +1,2 @@\n-a\n-b\n-c\n+x\n+y\n")),
    (
        "-U0",
        ["-U0"],
        L,
        rep(rep(L, "line 3\n", "x\n"), "line 6\n", ""),
        1,
        ("@@ -3 +3 @@\n-line 3\n+x\n@@ -6 +5,0 @@\n-line 6\n"),
    ),
    (
        "-U1",
        ["-U1"],
        L,
        rep(rep(L, "line 3\n", "x\n"), "line 6\n", ""),
        1,
        ("@@ -2,3 +2,3 @@\n line 2\n-line 3\n+x\n line 4\n@@ -5,3 +5,2 @@\n line 5\n-line 6\n line 7\n"),
    ),
    (
        "-U5",
        ["-U5"],
        L,
        rep(L, "line 10\n", "ten\n"),
        1,
        (
            "@@ -5,11 +5,11 @@\n"
            " line 5\n"
            " line 6\n"
            " line 7\n"
            " line 8\n"
            " line 9\n"
            "-line 10\n"
            "+ten\n"
            " line 11\n"
            " line 12\n"
            " line 13\n"
            " line 14\n"
            " line 15\n"
        ),
    ),
    (
        "-U 10",
        ["-U", "10"],
        L,
        rep(L, "line 10\n", "ten\n"),
        1,
        (
            "@@ -1,20 +1,20 @@\n"
            " line 1\n"
            " line 2\n"
            " line 3\n"
            " line 4\n"
            " line 5\n"
            " line 6\n"
            " line 7\n"
            " line 8\n"
            " line 9\n"
            "-line 10\n"
            "+ten\n"
            " line 11\n"
            " line 12\n"
            " line 13\n"
            " line 14\n"
            " line 15\n"
            " line 16\n"
            " line 17\n"
            " line 18\n"
            " line 19\n"
            " line 20\n"
        ),
    ),
    (
        "-u",
        ["-u"],
        L,
        rep(L, "line 19\n", ""),
        1,
        ("@@ -16,5 +16,4 @@\n line 16\n line 17\n line 18\n-line 19\n line 20\n"),
    ),
    (
        "repeated lines",
        [],
        "a\nb\na\nb\na\n",
        "b\na\nb\na\nb\n",
        1,
        ("@@ -1,4 +1,3 @@\n-a\n b\n a\n b\n@@ -5 +4,2 @@\n a\n+b\n"),
    ),
    ("blank run slides", [], "a\n\n\nb\n", "a\n\n\n\nb\n", 1, ("@@ -1,4 +1,5 @@\n a\n \n \n+\n b\n")),
    (
        "duplicate block",
        [],
        "x\ny\nz\n",
        "x\ny\nz\nx\ny\nz\n",
        1,
        ("@@ -1,3 +1,6 @@\n x\n y\n z\n+x\n+y\n+z\n"),
    ),
    ("-b spaces", ["-b"], "a  b\nc\nd \n", "a b\nC\nd\n", 1, ("@@ -1,3 +1,3 @@\n a  b\n-c\n+C\n d \n")),
    ("-b leading", ["-b"], "  a\nb\n", "a\nb\n", 1, ("@@ -1,2 +1,2 @@\n-  a\n+a\n b\n")),
    ("-w", ["-w"], "a b\nc d\ne\n", "ab\ncd \nf\n", 1, ("@@ -1,3 +1,3 @@\n a b\n c d\n-e\n+f\n")),
    (
        "-i",
        ["-i"],
        "Hello\nWorld\nend\n",
        "hello\nWORLD\nEnd!\n",
        1,
        ("@@ -1,3 +1,3 @@\n Hello\n World\n-end\n+End!\n"),
    ),
    ("-B blank only", ["-B"], "a\nb\nc\n", "a\n\nb\nc\n", 0, ""),
    # the dropped blank insertion still moves the second file's start
    ("-B mixed", ["-B"], "a\nb\nc\nd\n", "a\n\nb\nX\nd\n", 1, ("@@ -1,4 +2,4 @@\n a\n b\n-c\n+X\n d\n")),
    (
        "-B blank far",
        ["-B"],
        L,
        rep(rep(L, "line 2\n", "line 2\n\n"), "line 15\n", "XV\n"),
        1,
        ("@@ -12,7 +13,7 @@\n line 12\n line 13\n line 14\n-line 15\n+XV\n line 16\n line 17\n line 18\n"),
    ),
    ("-b no newline", ["-b"], "a\nb", "a\nb\n", 0, ""),
    ("-i -b", ["-i", "-b"], "A  b\nc\n", "a b\nC\nx\n", 1, ("@@ -1,2 +1,3 @@\n A  b\n c\n+x\n")),
    ("tabs", [], "a\tb\nc\n", "a\tb\nc\td\n", 1, ("@@ -1,2 +1,2 @@\n a\tb\n-c\n+c\td\n")),
    (
        "blank shifts down",
        ["-U1"],
        "a\n\nb\n\nc\n",
        "a\n\nb\n\nX\n\nc\n",
        1,
        ("@@ -4,2 +4,4 @@\n \n+X\n+\n c\n"),
    ),
    (
        "moved block",
        [],
        "1\n2\n3\n4\n5\n6\n",
        "4\n5\n6\n1\n2\n3\n",
        1,
        ("@@ -1,6 +1,3 @@\n-1\n-2\n-3\n 4\n 5\n 6\n@@ -6,0 +4,3 @@\n+1\n+2\n+3\n"),
    ),
    # toybox's -B looks only at the deleted lines of a change
    ("-B blank into text", ["-B"], "a\n\nb\n", "a\nX\nb\n", 0, ""),
    # the change found last is printed even when -B would drop it
    (
        "-B trailing blank",
        ["-B"],
        "a\nb\nc\nd\ne\n",
        "a\nB\nc\nd\ne\n\n",
        1,
        ("@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n@@ -5,0 +6 @@\n+\n"),
    ),
    # changes 3 lines apart with -U2: GNU makes one hunk, toybox two, back to back
    (
        "back to back",
        ["-U2"],
        L,
        rep(rep(L, "line 5\n", "5\n"), "line 9\n", "9\n"),
        1,
        (
            "@@ -3,5 +3,5 @@\n line 3\n line 4\n-line 5\n+5\n line 6\n line 7\n"
            "@@ -8,4 +8,4 @@\n line 8\n-line 9\n+9\n line 10\n line 11\n"
        ),
    ),
    ("plus before minus", [], "a\n \nb\n", "a\nx\n \n", 1, ("@@ -1,3 +1,3 @@\n a\n+x\n  \n-b\n")),
    ("-U past the end", ["-U", "10"], "a\nb\n", "a\nc\n", 1, ("@@ -1,2 +1,2 @@\n a\n-b\n+c\n")),
    # the two lines share toybox's 31-bit hash; the line ending a run of matches is never checked
    (
        "hash collision",
        [],
        "a\nvhyvpaqc\n",
        "x\na\ny\nevwmjrre\n",
        1,
        ("@@ -1,2 +1,4 @@\n+x\n a\n+y\n vhyvpaqc\n"),
    ),
    ("-w blank", ["-w", "-B"], "a\n  \nb\n", "a\nb\n\t\n", 1, ("@@ -1,3 +1,3 @@\n a\n-  \n b\n+\t\n")),
    # --strip-trailing-cr compares without the \r but prints lines as they are
    ("cr kept", ["--strip-trailing-cr"], "a\r\nb\r\n", "a\nc\n", 1, ("@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\n")),
]


@pytest.fixture(scope="module")
def dsh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path_factory.mktemp("diff"), boot=False)
    yield dev
    dev.close()


def put(sh: ShellDevice, name: str, text: str | bytes) -> None:
    sh.host(f"{TMP}/{name}").write_bytes(text.encode() if isinstance(text, str) else text)


@pytest.mark.parametrize(("name", "options", "one", "two", "status", "hunks"), CASES)
def test_hunks_are_what_toybox_prints(
    dsh: ShellDevice, name: str, options: list[str], one: str, two: str, status: int, hunks: str
) -> None:
    put(dsh, "a", one)
    put(dsh, "b", two)
    r = dsh.run(f"cd {TMP} && diff {' '.join(options)} a b")
    assert (r.status, r.error) == (status, ""), name
    text = r.text
    assert (text[text.find("@@") :] if "@@" in text else "") == hunks, name
    if status == 1:
        head = text.splitlines()[:2]
        stamp = r"\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9} [+-]\d{4}$"
        assert re.fullmatch("--- a" + stamp, head[0]) and re.fullmatch(r"\+\+\+ b" + stamp, head[1]), head


def test_brief_identical_labels_and_errors(dsh: ShellDevice) -> None:
    put(dsh, "a", "x\ny\n")
    put(dsh, "b", "x\nz\n")
    put(dsh, "sp ace", "x\n")
    run = dsh.run
    assert (run(f"cd {TMP} && diff -q a b").text, run(f"cd {TMP} && diff -q a b").status) == (
        "Files a and b differ\n",
        1,
    )
    assert (run(f"cd {TMP} && diff a a").text, run(f"cd {TMP} && diff a a").status) == ("", 0)
    assert run(f"cd {TMP} && diff -s a a").text == "Files a and a are identical\n"
    assert run(f"cd {TMP} && diff -L one -L two a b").text.splitlines()[:2] == ["--- one", "+++ two"]
    one_label = run(f"cd {TMP} && diff --label=one a b").text.splitlines()
    assert one_label[0] == "--- one" and one_label[1].startswith("+++ b\t")
    assert run(f"cd {TMP} && diff 'sp ace' a").text.startswith('--- "sp ace"\t')
    missing = run(f"cd {TMP} && diff nothere a")
    assert (missing.status, missing.error) == (2, "diff: Can't stat nothere: No such file or directory\n")
    assert run("diff a").error == 'diff: Need 2 arguments (see "diff --help")\n'
    assert run("diff a b c").error == 'diff: Max 2 arguments (see "diff --help")\n'
    bad = run("diff -Z a b")
    assert (bad.status, bad.error) == (2, "diff: Unknown option 'Z' (see \"diff --help\")\n")
    assert run(f"cd {TMP} && diff -U -1 a b").status == 2


def test_stdin_binary_tabs_and_cr(dsh: ShellDevice) -> None:
    put(dsh, "a", "x\ny\n")
    r = dsh.run(f"cd {TMP} && diff - a", stdin=b"x\nq\n")
    assert r.status == 1 and r.text.startswith("--- -\t") and "-q\n+y\n" in r.text
    assert dsh.run(f"cd {TMP} && diff - a", stdin=b"x\ny\n").status == 0
    assert dsh.run(f"cd {TMP} && diff - {TMP}").error == "diff: can't compare stdin to directory\n"
    put(dsh, "bin1", b"a\0b\n")
    put(dsh, "bin2", b"a\0c\n")
    assert dsh.run(f"cd {TMP} && diff bin1 bin2").text == "Files bin1 and bin2 differ\n"
    assert "-a\0b\n+a\0c\n" in dsh.run(f"cd {TMP} && diff -a bin1 bin2").text
    put(dsh, "t1", "\tx\n")
    put(dsh, "t2", "\ty\n")
    assert dsh.run(f"cd {TMP} && diff -t t1 t2").text.endswith("-        x\n+        y\n")
    assert dsh.run(f"cd {TMP} && diff -T t1 t2").text.endswith("-\t\tx\n+\t\ty\n")
    put(dsh, "cr", "x\r\ny\r\n")
    assert dsh.run(f"cd {TMP} && diff --strip-trailing-cr cr a").status == 0
    assert dsh.run(f"cd {TMP} && diff cr a").status == 1


def test_folders_plain_recursive_and_new_file(dsh: ShellDevice) -> None:
    setup = (
        f"cd {TMP} && rm -rf d1 d2 && mkdir -p d1/s d2/s d1/only && echo 1 > d1/f && echo 2 > d2/f"
        " && echo z > d1/s/g && echo y > d2/s/g && echo q > d2/new && echo same > d1/t && echo same > d2/t"
    )
    assert dsh.run(setup).status == 0
    plain = dsh.run(f"cd {TMP} && diff d1 d2")
    lines = [ln for ln in plain.text.splitlines() if ln[:1] not in "-+@ "]
    assert plain.status == 0  # toybox's: that of the last comparison, t, which is the same
    assert lines == ["Only in d2: new", "Only in d1: only", "Common subdirectories: d1/s and d2/s"]
    deep = dsh.run(f"cd {TMP} && diff -r d1 d2")
    assert "--- d1/s/g\t" in deep.text and "Only in d1: only\n" in deep.text
    assert "Common subdirectories" not in deep.text
    brief = dsh.run(f"cd {TMP} && diff -rq d1 d2").text
    assert brief == (
        "Files d1/f and d2/f differ\nOnly in d2: new\nOnly in d1: only\nFiles d1/s/g and d2/s/g differ\n"
    )
    new = dsh.run(f"cd {TMP} && diff -rN d1 d2")
    assert "--- /dev/null\t" in new.text and "+++ d2/new\t" in new.text and "Only in" not in new.text
    assert dsh.run(f"cd {TMP} && diff -r -S s d1 d2").text.startswith("--- d1/s/g")
    # a folder and a file: the file of that name inside the folder
    assert dsh.run(f"cd {TMP} && diff d1/t d2").status == 0
    assert dsh.run(f"cd {TMP} && diff d1/f d2/s").error == "diff: d2/s/f: No such file or directory\n"


def apply_patch(old: list[str], patch: str) -> list[str]:
    """Apply unified hunks (without headers) to `old`, checking every context and removed line."""
    new: list[str] = []
    at = 0  # next line of old not yet copied
    lines = patch.splitlines()
    k = 0
    while k < len(lines):
        m = re.fullmatch(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", lines[k])
        assert m, lines[k]
        start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
        new.extend(old[at:start])
        at = start
        k += 1
        while k < len(lines) and not lines[k].startswith("@@"):
            mark, text = lines[k][0], lines[k][1:]
            if mark in " -":
                assert old[at] == text
                at += 1
            if mark in " +":
                new.append(text)
            k += 1
    return new + old[at:]


def lcs_length(a: list[str], b: list[str]) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        prev = 0
        for j, y in enumerate(b):
            prev, row[j + 1] = row[j + 1], prev + 1 if x == y else max(row[j + 1], row[j])
    return row[-1]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    one=st.lists(st.sampled_from(["a", "b", "c", "", "d"]), max_size=12),
    two=st.lists(st.sampled_from(["a", "b", "c", "", "e"]), max_size=12),
    context=st.integers(0, 4),
)
def test_patch_applies_and_is_minimal(dsh: ShellDevice, one: list[str], two: list[str], context: int) -> None:
    """The hunks rebuild the second file from the first, and change as few lines as can be: toybox's
    search (Hunt and McIlroy's) finds a longest common subsequence, one of its own choosing."""
    put(dsh, "p1", "".join(line + "\n" for line in one))
    put(dsh, "p2", "".join(line + "\n" for line in two))
    r = dsh.run(f"cd {TMP} && diff -U {context} p1 p2")
    assert r.status == (0 if one == two else 1), r.error
    hunks = r.text[r.text.find("@@") :] if r.status else ""
    assert apply_patch(one, hunks) == two
    body = [ln for ln in hunks.splitlines() if not ln.startswith("@@")]
    changed = sum(ln[:1] in "+-" for ln in body)
    assert changed == len(one) + len(two) - 2 * lcs_length(one, two)


OPTION_SETS = ["", "-u", "-U0", "-U 7", "-b", "-w", "-i", "-B", "-i -b", "-w -B", "-a", "-q", "-s", "-t -T"]
OPTION_SETS += ["--strip-trailing-cr", "-L x", "-N"]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    one=st.binary(max_size=300)
    | st.lists(st.sampled_from([b"a\n", b" \n", b"\n", b"A\t\r\n", b"\0"])).map(b"".join),
    two=st.binary(max_size=300)
    | st.lists(st.sampled_from([b"a\n", b"  \n", b"b", b"\r\n", b"a \n"])).map(b"".join),
    options=st.sampled_from(OPTION_SETS),
)
def test_fuzz_ends_with_a_status(dsh: ShellDevice, one: bytes, two: bytes, options: str) -> None:
    """Any bytes, any options: a status and diff's own output, never a traceback."""
    put(dsh, "f1", one)
    put(dsh, "f2", two)
    r = dsh.run(f"cd {TMP} && diff {options} f1 f2")
    assert r.status in (0, 1) and r.err == b"", r.error
    assert r.status == (0 if one == two else r.status)
    if r.status and "-q" not in options and b"\0" not in one + two:
        assert r.out.startswith(b"--- ") and b"\n@@ -" in r.out


def test_recursive_status_and_context_are_toyboxs(dsh: ShellDevice) -> None:
    """-r ends with the last comparison's status, and toybox trims -U to a first file's length for
    the files after it too."""
    setup = (
        f"cd {TMP} && rm -rf r1 r2 && mkdir r1 r2 && echo x > r1/a && echo y > r2/a && seq 10 > r1/b"
        " && seq 10 | sed s/5/five/ > r2/b && echo same > r1/c && echo same > r2/c"
    )
    assert dsh.run(setup).status == 0
    r = dsh.run(f"cd {TMP} && diff -r r1 r2")
    assert r.status == 0
    assert r.text[r.text.find("@@ -4") :] == "@@ -4,3 +4,3 @@\n 4\n-5\n+five\n 6\n"
    assert dsh.run(f"cd {TMP} && mkdir r1/e && diff -r r1 r2").status == 1  # `Only in` comes last


def test_hostile_inputs_end_quickly(dsh: ShellDevice) -> None:
    # 300k identical lines against 300k distinct ones: every line a change
    put(dsh, "same", b"x\n" * 300_000)
    put(dsh, "distinct", b"".join(b"%d\n" % i for i in range(300_000)))
    started = time.monotonic()
    r = dsh.run(f"cd {TMP} && diff -q same distinct", timeout=30)
    assert (r.status, r.text) == (1, "Files same and distinct differ\n")
    r = dsh.run(f"cd {TMP} && diff same distinct | tail -n 1", timeout=30)
    assert (r.status, r.text) == (0, "+299999\n")
    # many identical lines and one change at the top: the repeated lines are passed over in runs
    put(dsh, "same2", b"y\n" + b"x\n" * 300_000)
    r = dsh.run(f"cd {TMP} && diff same same2", timeout=30)
    assert (r.status, r.text[r.text.find("@@") :]) == (1, "@@ -1,3 +1,4 @@\n+y\n x\n x\n x\n")
    # two shuffles of a few repeated lines: candidates grow with the square of the lines, so the
    # budget ends it
    put(dsh, "mix1", b"".join(b"%d\n" % (i % 50) for i in range(40_000)))
    put(dsh, "mix2", b"".join(b"%d\n" % (i * 7 % 50) for i in range(40_000)))
    r = dsh.run(f"cd {TMP} && diff mix1 mix2", timeout=30)
    assert (r.status, r.error) == (2, "diff: files too different\n")
    put(dsh, "many", b"\n" * (MAX_DIFF_LINES + 1))
    r = dsh.run(f"cd {TMP} && diff many same", timeout=30)
    assert r.status == 2 and "more than" in r.error
    assert time.monotonic() - started < 15
