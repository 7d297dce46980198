"""`gzip`, `gunzip`, `zcat` and `tar` as toybox 0.8.6 runs them: round trips, archives made by other
tools, messages and statuses, and hostile archives (escaping members, bombs, lies, corruption) that
end with an error and leave everything outside the device's folder as it was."""

from __future__ import annotations

import gzip
import hashlib
import io
import shutil
import subprocess
import tarfile
import tracemalloc
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mgfarm.sim.shell.archive_cmd import MAX_INFLATE
from tests.unit.shellkit import ShellDevice

TMP = "/data/local/tmp"


@pytest.fixture
def sh(tmp_path: Path) -> Iterator[ShellDevice]:
    dev = ShellDevice(tmp_path, boot=False)
    yield dev
    dev.close()


def shell_user(sh: ShellDevice) -> ShellDevice:
    sh.device.root_adbd = False  # what `adb unroot` leaves: uid 2000
    return sh


def tree_digest(top: Path, skip: Path) -> str:
    """A hash of every path, type and content under `top`, `skip` (the device folder) left out."""
    h = hashlib.sha256()
    for path in sorted(top.rglob("*")):
        if path == skip or skip in path.parents:
            continue
        h.update(str(path).encode())
        if path.is_symlink():
            h.update(b"L" + str(path.readlink()).encode())
        elif path.is_file():
            h.update(b"F" + path.read_bytes())
    return h.hexdigest()


def tar_bytes(members: list[tuple[tarfile.TarInfo, bytes]], fmt: int = tarfile.GNU_FORMAT) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=fmt) as tf:
        for info, data in members:
            info.size = len(data) if info.isreg() else 0
            tf.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return out.getvalue()


def member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "", mode: int = 0o644) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode, info.mtime = kind, link, mode, 1_700_000_000
    return info


def zero_bomb(size: int) -> bytes:
    """`size` zero bytes as gzip, made without holding them."""
    zobj = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b"\0" * (1 << 20)
    parts = [zobj.compress(chunk) for _ in range(size >> 20)]
    return b"".join([*parts, zobj.flush()])


# -- gzip, gunzip, zcat ----------------------------------------------------------------------------


def test_gzip_then_gunzip_replaces_the_file_and_keeps_its_time(sh: ShellDevice) -> None:
    data = b"hello archive\n" * 100
    sh.host(f"{TMP}/f").write_bytes(data)
    assert sh.run(f"cd {TMP} && touch -d 2020-01-02T03:04:05 f && gzip f && ls").text == "f.gz\n"
    assert gzip.decompress(sh.host(f"{TMP}/f.gz").read_bytes()) == data  # Python reads the sim's gzip
    assert sh.run(f"stat -c %y {TMP}/f.gz").text.startswith("2020-01-02")
    r = sh.run(f"cd {TMP} && gunzip f.gz && ls && stat -c %y f")
    assert (r.status, r.text[:12]) == (0, "f\n2020-01-02")
    assert sh.host(f"{TMP}/f").read_bytes() == data


def test_gzip_options_keep_stdout_and_level(sh: ShellDevice) -> None:
    sh.host(f"{TMP}/f").write_bytes(b"abc" * 1000)
    r = sh.run(f"cd {TMP} && gzip -k9 f && ls && gzip -c -1 f | zcat | wc -c")
    assert (r.status, r.text) == (0, "f\nf.gz\n3000\n")
    assert sh.host(f"{TMP}/f.gz").read_bytes()[8] == 2  # zlib's XFL for level 9, as gzwrite sets it
    assert sh.run(f"cd {TMP} && gunzip -k f.gz").error == "gunzip: f: File exists\n"
    assert sh.run(f"cd {TMP} && gzip -dkf f.gz && ls").text == "f\nf.gz\n"
    assert sh.run(f"cd {TMP} && gzip f").error == "gzip: f.gz: File exists\n"


def test_streams_through_a_pipeline(sh: ShellDevice) -> None:
    sh.host(f"{TMP}/x").write_bytes(b"line\n" * 5000)
    r = sh.run(f"cat {TMP}/x | gzip -c | zcat | wc -l")
    assert (r.status, r.text, r.error) == (0, "5000\n", "")
    r = sh.run("gzip | gunzip", stdin=b"from stdin")
    assert (r.status, r.out) == (0, b"from stdin")
    # zlib reads members one after another, and ignores what follows the last one
    two = gzip.compress(b"one ") + gzip.compress(b"two") + b"trailing junk"
    assert sh.run("zcat", stdin=two).out == b"one two"


def test_gzip_messages_and_statuses(sh: ShellDevice) -> None:
    sh.host(f"{TMP}/plain").write_bytes(b"not compressed")
    cases = [
        ("gzip /nope", "gzip: /nope: No such file or directory\n"),
        (f"gunzip {TMP}/plain", f"gunzip: no .gz: {TMP}/plain\n"),
        ("gzip -x", "gzip: Unknown option 'x' (see \"gzip --help\")\n"),
        ("zcat", "zcat: not gzip\n"),
        (f"zcat {TMP}/plain", "zcat: not gzip\n"),
        (f"gzip {TMP}", "gzip: read: Is a directory\n"),
    ]
    for line, message in cases:
        r = sh.run(line)
        assert (r.status, r.error) == (1, message), line
    assert not sh.host(f"{TMP}.gz").exists()  # the failed output is removed


def test_corrupt_and_truncated_gzip(sh: ShellDevice) -> None:
    good = gzip.compress(b"payload " * 1000)
    bad_crc = good[:-8] + bytes([good[-8] ^ 1]) + good[-7:]
    for data, message in [
        (good[: len(good) // 2], "gunzip: gzread: unexpected end of file\n"),
        (bad_crc, "gunzip: gzread: incorrect data check\n"),
        (good[:10] + b"\xff" * 40, "gunzip: gzread: invalid block type\n"),
    ]:
        sh.host(f"{TMP}/c.gz").write_bytes(data)
        r = sh.run(f"cd {TMP} && gunzip c.gz; echo $?; ls")
        assert (r.text, r.error) == ("1\nc.gz\n", message)  # the output is removed, the input kept


def test_a_gzip_bomb_stops_at_the_bound_with_little_memory(sh: ShellDevice) -> None:
    sh.host(f"{TMP}/bomb.gz").write_bytes(zero_bomb(100 << 20))  # ~100 KiB that inflates to 100 MiB
    tracemalloc.start()
    try:
        r = sh.run(f"cd {TMP} && gunzip bomb.gz; ls", timeout=60)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (r.text, r.error) == ("bomb.gz\n", "gunzip: write: File too large\n")  # its output removed
    assert peak < 16 << 20  # streamed: never the whole output in memory
    r = sh.run(f"zcat {TMP}/bomb.gz > {TMP}/out; echo $?", timeout=60)
    assert (r.text, r.error) == ("1\n", "zcat: write: File too large\n")
    assert sh.host(f"{TMP}/out").stat().st_size <= MAX_INFLATE
    r = sh.run(f"zcat {TMP}/bomb.gz | wc -c", timeout=60)  # a pipe ends it first, as SIGPIPE would
    assert int(r.text) <= 16 << 20 and "Traceback" not in r.error
    assert MAX_INFLATE < 100 << 20


# -- tar -------------------------------------------------------------------------------------------


def test_tar_round_trip_with_gzip_and_listing(sh: ShellDevice) -> None:
    r = sh.run(
        f"cd {TMP} && mkdir -p d/sub && echo hi > d/a && echo deep > d/sub/b && ln -s a d/l && "
        "tar -czf x.tgz d && mkdir out && tar -xzf x.tgz -C out && cat out/d/a out/d/sub/b && "
        "readlink out/d/l && tar -tf x.tgz"
    )
    assert (r.status, r.error) == (0, "")
    assert r.text == "hi\ndeep\na\nd/\nd/a\nd/l -> a\nd/sub/\nd/sub/b\n"
    with tarfile.open(sh.host(f"{TMP}/x.tgz")) as tf:  # Python reads the sim's archive
        assert tf.getnames() == ["d", "d/a", "d/l", "d/sub", "d/sub/b"]
        assert tf.getmember("d/l").linkname == "a"
        assert tf.extractfile("d/sub/b").read() == b"deep\n"  # type: ignore[union-attr]
    listing = sh.run(f"TZ=UTC tar -tvf {TMP}/x.tgz d/a d/l").text.splitlines()
    assert listing[0].startswith("-rw-r--r-- shell/shell         3  ") and listing[0].endswith(" d/a")
    assert listing[1].startswith("lrwxrwxrwx ") and listing[1].endswith(" d/l -> a")


def test_tar_verbose_stdout_and_operands(sh: ShellDevice) -> None:
    sh.run(f"cd {TMP} && mkdir d && echo one > d/a && echo two > d/b && tar -cf t.tar d")
    r = sh.run(f"cd {TMP} && tar -xOf t.tar d/b")
    assert (r.status, r.text) == (0, "two\n")
    r = sh.run(f"cd {TMP} && tar -tf t.tar 'd/*a' nothere")
    assert (r.status, r.text) == (1, "d/a\n")
    assert r.error == "tar: 'nothere' not in archive\ntar: had errors\n"
    r = sh.run(f"cd {TMP} && tar -cvf - d | tar -tv | wc -l")
    assert (r.text, r.error) == ("3\n", "d/\nd/a\nd/b\n")  # -v goes to stderr when the archive is stdout


def test_tar_reads_archives_from_python_and_gnu_tar(sh: ShellDevice, tmp_path: Path) -> None:
    long_name = "deep/" + "n" * 150  # past ustar's 100 bytes: GNU's ././@LongLink, pax's path=
    for fmt in (tarfile.GNU_FORMAT, tarfile.PAX_FORMAT, tarfile.USTAR_FORMAT):
        members = [(member("deep", tarfile.DIRTYPE, mode=0o755), b""), (member("deep/f"), b"data\n")]
        if fmt != tarfile.USTAR_FORMAT:
            members.append((member(long_name), b"long\n"))
        data = tar_bytes(members, fmt)
        r = sh.run(
            f"rm -rf {TMP}/o; mkdir {TMP}/o && tar -xz -C {TMP}/o && cat {TMP}/o/deep/f", gzip.compress(data)
        )
        assert (r.status, r.text, r.error) == (0, "data\n", ""), fmt
        if fmt != tarfile.USTAR_FORMAT:
            assert sh.host(f"{TMP}/o/{long_name}").read_bytes() == b"long\n"
    gnu_tar = shutil.which("tar")
    if gnu_tar is None:
        return
    src = tmp_path / "src"
    (src / "dir").mkdir(parents=True)
    (src / "dir" / "file").write_text("from gnu tar\n")
    archive = subprocess.run(
        [gnu_tar, "-czf", "-", "-C", str(src), "dir"], check=True, capture_output=True
    ).stdout
    r = sh.run(f"cd {TMP} && mkdir g && tar -xf - -C g && cat g/dir/file", stdin=archive)
    assert (r.status, r.text) == (0, "from gnu tar\n")


def test_tar_messages_and_statuses(sh: ShellDevice) -> None:
    cases = [
        ("tar -cf x.tar", "tar: empty archive\n"),
        ("tar -tf /nope.tar", "tar: /nope.tar: No such file or directory\n"),
        ("tar -cx", "tar: No 'x' with 'c' (see \"tar --help\")\n"),
        ("tar -tf - -C /nope", "tar: chdir '/nope': No such file or directory\n"),
        ("echo junk | tar -t", "tar: Not tar\n"),
        ("tar -tj", "tar: -j: only gzip (-z) archives are supported\n"),
        (f"cd {TMP} && tar -cf x.tar nofile", "tar: nofile: No such file or directory\ntar: had errors\n"),
    ]
    for line, message in cases:
        r = sh.run(line)
        assert (r.status, r.error) == (1, message), line
    r = sh.run("cd /data/local/tmp && mkdir d && tar -cf d/self.tar d")
    assert r.error == "tar: 'self.tar' file is the archive; not dumped\ntar: had errors\n"


def test_hostile_members_stay_under_the_folder(sh: ShellDevice, tmp_path: Path) -> None:
    shell_user(sh)
    sentinel = tmp_path / "sentinel"
    sentinel.write_text("untouched")
    outside = tmp_path.parent / f"{tmp_path.name}-escape"
    before = tree_digest(tmp_path.parent, tmp_path / "dev")
    evil = tar_bytes(
        [
            (member("../up"), b"x"),
            (member("/abs"), b"x"),
            (member("a/../../up2"), b"x"),
            (member("out", tarfile.SYMTYPE, "/data/local"), b""),
            (member("out/pwned"), b"x"),
            (member("hostlink", tarfile.SYMTYPE, str(outside)), b""),
            (member("hostlink/pwned"), b"x"),
            (member("dots", tarfile.SYMTYPE, "../../../../../../../.."), b""),
            (member("dots/pwned"), b"x"),
            (member("hard", tarfile.LNKTYPE, "/data/system/packages.xml"), b""),
            (member("null", tarfile.CHRTYPE), b""),
            (member("fifo", tarfile.FIFOTYPE), b""),
            (member("ok"), b"fine"),
        ]
    )
    r = sh.run(f"mkdir {TMP}/x && cd {TMP}/x && tar -xf -", stdin=evil)
    assert r.status == 1
    errors = r.error.splitlines()
    assert f"tar: '../up' {TMP}/up not under '{TMP}/x'" in errors
    assert f"tar: '/abs' /abs not under '{TMP}/x'" in errors
    assert f"tar: 'a/../../up2' {TMP}/up2 not under '{TMP}/x'" in errors
    assert f"tar: 'out/pwned' /data/local/pwned not under '{TMP}/x'" in errors
    assert f"tar: 'dots/pwned' /pwned not under '{TMP}/x'" in errors
    assert "tar: can't link 'hard' -> '/data/system/packages.xml': Permission denied" in errors
    assert "tar: can't create 'null': Operation not permitted" in errors
    assert errors[-1] == "tar: had errors"
    assert "Traceback" not in r.error
    assert sh.host(f"{TMP}/x/ok").read_text() == "fine"
    assert tree_digest(tmp_path.parent, tmp_path / "dev") == before
    assert sentinel.read_text() == "untouched" and not outside.exists()
    assert not list((tmp_path / "dev").rglob("pwned")) and not list((tmp_path / "dev").rglob("up*"))


def test_tar_into_shared_storage_refuses_links(sh: ShellDevice) -> None:
    data = tar_bytes([(member("l", tarfile.SYMTYPE, "/data"), b""), (member("f"), b"ok")])
    r = sh.run("mkdir -p /sdcard/t && tar -x -C /sdcard/t; cat /sdcard/t/f", stdin=data)
    assert r.text == "ok"
    assert r.error == "tar: can't link 'l' -> '/data': Function not implemented\ntar: had errors\n"


def test_tar_lies_and_corruption_end_with_an_error(sh: ShellDevice) -> None:
    good = tar_bytes([(member("a"), b"A" * 1000), (member("b"), b"B" * 10)])
    huge = bytearray(good[:512])
    huge[124:136] = b"77777777777\0"  # 8 GiB of data that is not there
    huge[148:156] = b"        "
    huge[148:156] = b"%06o\0 " % sum(huge)
    bad_sum = bytearray(good)
    bad_sum[1536] ^= 1  # the second header: the first one decides whether it is a tar at all
    for data, message in [
        (bytes(huge) + b"x" * 2048, "tar: EOF\n"),
        (good[:700], "tar: EOF\n"),
        (good[:1600], "tar: short header\n"),
        (bytes(bad_sum), "tar: bad header\n"),
    ]:
        r = sh.run(f"rm -rf {TMP}/o; mkdir {TMP}/o; tar -x -C {TMP}/o", stdin=data)
        assert (r.status, r.error) == (1, message)
    # a compressed archive whose member claims 100 MiB of zeros: inflating stops at the bound
    bomb_tar = bytes(huge[:124]) + b"00620000000\0" + bytes(huge[136:512])
    bomb_tar = (
        bomb_tar[:148] + b"%06o\0 " % (sum(bomb_tar[:148]) + 256 + sum(bomb_tar[156:])) + bomb_tar[156:]
    )
    zobj = zlib.compressobj(9, zlib.DEFLATED, 31)
    blob = (
        zobj.compress(bomb_tar)
        + b"".join(zobj.compress(b"\0" * (1 << 20)) for _ in range(100))
        + zobj.flush()
    )
    r = sh.run("tar -tz", stdin=blob, timeout=60)
    assert (r.status, r.error) == (1, "zcat: write: File too large\ntar: EOF\n")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=2048), gz=st.booleans())
def test_random_bytes_end_with_a_status(sh: ShellDevice, data: bytes, gz: bool) -> None:
    blob = gzip.compress(data) if gz else data
    for line in ("gunzip", "tar -t", "tar -tz", f"tar -x -C {TMP}"):
        r = sh.run(line, stdin=blob)
        assert r.status in (0, 1), line
        assert "Traceback" not in r.error


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flips=st.lists(st.tuples(st.integers(0, 3071), st.integers(1, 255)), min_size=1, max_size=8))
def test_damaged_archives_end_with_a_status(sh: ShellDevice, flips: list[tuple[int, int]]) -> None:
    data = bytearray(tar_bytes([(member("a"), b"A" * 600), (member("l", tarfile.SYMTYPE, "a"), b"")]))
    for pos, bits in flips:
        data[pos % len(data)] ^= bits
    for blob in (bytes(data), gzip.compress(bytes(data))):
        r = sh.run(f"mkdir -p {TMP}/f && tar -x -C {TMP}/f; tar -tv", stdin=blob)
        assert "Traceback" not in r.error
