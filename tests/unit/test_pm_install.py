"""`pm install` as adb's streamed install runs it (`cmd package install -S SIZE`, the APK on stdin)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mgfarm.sim.shell.pm_cmd import INSTALL_VALUE_OPTIONS, install_paths
from tests.apkkit import apk_bytes
from tests.unit.shellkit import ShellDevice

PACKAGE = "org.example.streamed"


def test_install_paths_skip_option_values_and_find_the_size() -> None:
    assert install_paths(["-r", "-t", "-g", "-S", "4096"]) == ([], "4096")
    assert install_paths(["-i", "com.android.vending", "--user", "0", "/data/local/tmp/a.apk"]) == (
        ["/data/local/tmp/a.apk"],
        None,
    )
    assert install_paths(["-S"]) == ([], "")


@given(st.lists(st.sampled_from([*INSTALL_VALUE_OPTIONS, "-r", "-g", "a.apk", "7", "--x"]), max_size=8))
def test_install_paths_never_takes_an_option_or_its_value_for_a_path(args: list[str]) -> None:
    paths, size = install_paths(args)
    assert all(not p.startswith("-") for p in paths)
    assert len(paths) <= args.count("a.apk") + args.count("7")
    if size is not None:
        assert "-S" in args and (size == "" or size in args)


def test_streamed_install_reads_exactly_size_bytes_from_stdin(sh: ShellDevice) -> None:
    apk = apk_bytes(PACKAGE, filler=300)
    got = sh.run(f"cmd package install -r -t -g -S {len(apk)}", stdin=apk + b"trailing")
    assert got.text == "Success\n", got.error
    assert f"package:{PACKAGE}" in sh.run(f"pm list packages {PACKAGE}").text
    assert sh.host(f"/data/app/{PACKAGE}-1/base.apk").read_bytes() == apk
    assert not sh.host("/data/app/vmdl1.tmp").exists()


def test_streamed_install_that_ends_early_or_names_no_size_fails(sh: ShellDevice) -> None:
    apk = apk_bytes(PACKAGE, filler=300)
    short = sh.run(f"pm install -S {len(apk)}", stdin=apk[:100])
    assert short.status == 1 and short.text.startswith("Failure [INSTALL_FAILED_INVALID_APK")
    bad = sh.run("pm install -S lots", stdin=apk)
    assert bad.status == 1 and bad.error == "Error: invalid size: lots\n"
    assert sh.run(f"pm list packages {PACKAGE}").text == ""
