"""The emulator command line and AVD config that the emulator image launches."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from mgfarm.errors import MgfarmError
from mgfarm.farm.emulator import (
    EmulatorSettings,
    avd_config,
    emulator_command,
    forward,
    hardware,
    installed_versions,
    main,
    settings_from_env,
    write_avd,
)

REPO = Path(__file__).resolve().parents[2]


def free_pair() -> tuple[int, int]:
    """An even console port and the adb port after it, both free on 127.0.0.1 and 127.0.0.2."""
    from mgfarm.farm.ports import free_port

    for _ in range(50):
        port = free_port()
        console = port - port % 2
        try:
            for host in ("127.0.0.1", "127.0.0.2"):
                for p in (console, console + 1):
                    with socket.socket() as sock:
                        sock.bind((host, p))
        except OSError:
            continue
        return console, console + 1
    raise RuntimeError("no free port pair")


def _flag_value(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


def test_command_is_headless_and_boots_the_golden_snapshot_without_saving() -> None:
    argv = emulator_command(EmulatorSettings(), "/sdk/emulator/emulator")
    assert argv[0] == "/sdk/emulator/emulator"
    for flag in ("-no-window", "-no-audio", "-no-boot-anim", "-skip-adb-auth", "-no-snapshot-save"):
        assert flag in argv
    assert _flag_value(argv, "-gpu") == "swiftshader_indirect"
    assert _flag_value(argv, "-snapshot") == "golden"
    assert _flag_value(argv, "-ports") == "5554,5555"
    assert _flag_value(argv, "-avd") == "mgfarm"


def test_command_never_uses_read_only_because_it_blocks_in_place_snapshot_loads() -> None:
    settings = EmulatorSettings(snapshot="other", save_snapshot_on_exit=True)
    assert "-read-only" not in emulator_command(settings)


def test_snapshot_build_mode_may_save_on_exit() -> None:
    assert "-no-snapshot-save" not in emulator_command(EmulatorSettings(save_snapshot_on_exit=True))


def test_avd_config_matches_the_settings() -> None:
    cfg = avd_config(EmulatorSettings(ram_mb=3072, cores=4, width=720, height=1280, density=320))
    assert cfg["hw.ramSize"] == "3072"
    assert cfg["hw.cpu.ncore"] == "4"
    assert (cfg["hw.lcd.width"], cfg["hw.lcd.height"], cfg["hw.lcd.density"]) == ("720", "1280", "320")
    assert cfg["hw.gpu.mode"] == "swiftshader_indirect"
    assert cfg["hw.keyboard"] == "yes"
    assert cfg["disk.dataPartition.size"] == "6144M"
    assert cfg["image.sysdir.1"] == "system-images/android-33/google_apis/x86_64/"


def test_write_avd_creates_config_and_pointer(tmp_path: Path) -> None:
    avd_dir = write_avd(EmulatorSettings(avd_name="r1"), tmp_path)
    assert avd_dir == tmp_path / "r1.avd"
    config = (avd_dir / "config.ini").read_text()
    assert "hw.ramSize=2048\n" in config
    pointer = (tmp_path / "r1.ini").read_text()
    assert f"path={avd_dir}\n" in pointer


def test_settings_from_env_reads_prefixed_variables() -> None:
    env = {"MGFARM_EMU_RAM_MB": "4096", "MGFARM_EMU_SAVE_SNAPSHOT_ON_EXIT": "yes", "HOME": "/"}
    s = settings_from_env(env)
    assert s.ram_mb == 4096
    assert s.save_snapshot_on_exit is True
    assert s.cores == EmulatorSettings().cores


@pytest.mark.parametrize(
    ("env", "fragment"),
    [
        ({"MGFARM_EMU_RAM_MB": "lots"}, "not a number"),
        ({"MGFARM_EMU_RAM_MB": "512"}, "too small"),
        ({"MGFARM_EMU_CORES": "0"}, "out of range"),
        ({"MGFARM_EMU_CONSOLE_PORT": "5555"}, "console port must be even"),
        ({"MGFARM_EMU_SAVE_SNAPSHOT_ON_EXIT": "maybe"}, "not a boolean"),
        ({"MGFARM_EMU_AVD_NAME": "a b"}, "AVD name"),
    ],
)
def test_bad_settings_are_refused_with_one_sentence(env: dict[str, str], fragment: str) -> None:
    with pytest.raises(MgfarmError, match=fragment) as info:
        settings_from_env(env)
    assert str(info.value).endswith(".")


def test_grpc_needs_a_token_and_the_defaults_are_android_13() -> None:
    argv = emulator_command(EmulatorSettings())
    assert _flag_value(argv, "-grpc") == "8554"
    assert "-grpc-use-token" in argv
    assert _flag_value(argv, "-accel") == "on"
    assert EmulatorSettings().system_image == "system-images;android-33;google_apis;x86_64"


def test_forward_relays_both_ports_from_the_container_address_to_loopback() -> None:
    # The emulator listens on 127.0.0.1 only; the relay listens on the container's address.
    console, adb = free_pair()

    async def scenario() -> list[bytes]:
        async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(b"port says " + await reader.readline())
            await writer.drain()
            writer.close()

        servers = [await asyncio.start_server(echo, "127.0.0.1", port) for port in (console, adb)]
        relay = asyncio.ensure_future(
            forward(EmulatorSettings(console_port=console, adb_port=adb), "127.0.0.2")
        )
        await asyncio.sleep(0.2)
        replies = []
        for port in (console, adb):
            reader, writer = await asyncio.open_connection("127.0.0.2", port)
            writer.write(f"{port}\n".encode())
            replies.append(await asyncio.wait_for(reader.read(), 5))
            writer.close()
        relay.cancel()
        for server in servers:
            server.close()
        return replies

    assert asyncio.run(scenario()) == [f"port says {console}\n".encode(), f"port says {adb}\n".encode()]


def test_hardware_is_what_the_manifest_records(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hardware"], environ={"MGFARM_EMU_RAM_MB": "3072", "MGFARM_EMU_CORES": "4"}) == 0
    assert json.loads(capsys.readouterr().out) == {
        "ram_mb": 3072,
        "cores": 4,
        "gpu_mode": "swiftshader_indirect",
    }
    assert hardware(EmulatorSettings()) == {"ram_mb": 2048, "cores": 2, "gpu_mode": "swiftshader_indirect"}


def test_installed_versions_read_source_properties(tmp_path: Path) -> None:
    (tmp_path / "emulator").mkdir()
    (tmp_path / "emulator" / "source.properties").write_text("Pkg.Desc=Emulator\nPkg.Revision=37.2.12\n")
    img = tmp_path / "system-images/android-33/google_apis/x86_64"
    img.mkdir(parents=True)
    (img / "source.properties").write_text("Pkg.Revision=14\n")
    versions = installed_versions(EmulatorSettings(), tmp_path)
    assert versions == {
        "emulator_build": "37.2.12",
        "system_image": "system-images;android-33;google_apis;x86_64 r14",
    }
    assert installed_versions(EmulatorSettings(), tmp_path / "none")["emulator_build"] == "unknown"


def test_main_prints_one_argument_per_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["command", "/e"], environ={"MGFARM_EMU_CORES": "3"}) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == emulator_command(EmulatorSettings(cores=3), "/e")
    assert main(["command"], environ={"MGFARM_EMU_CORES": "99"}) == 2


def test_module_runs_with_only_the_files_the_image_copies(tmp_path: Path) -> None:
    # The image copies errors.py and farm/emulator.py alone: the module must not need more.
    pkg = tmp_path / "mgfarm"
    (pkg / "farm").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "farm" / "__init__.py").write_text("")
    (pkg / "errors.py").write_text((REPO / "mgfarm/errors.py").read_text())
    (pkg / "farm" / "emulator.py").write_text((REPO / "mgfarm/farm/emulator.py").read_text())
    proc = subprocess.run(
        [sys.executable, "-S", "-m", "mgfarm.farm.emulator", "command", "emu"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(tmp_path), "MGFARM_EMU_RAM_MB": "2500"},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "-memory\n2500\n" in proc.stdout


def test_image_context_holds_the_files_the_module_needs(tmp_path: Path) -> None:
    from mgfarm.farm.images import _stage_emulator

    _stage_emulator(REPO, tmp_path, standin=False)
    assert (tmp_path / "mgfarm/errors.py").read_text() == (REPO / "mgfarm/errors.py").read_text()
    assert (tmp_path / "mgfarm/farm/emulator.py").is_file()
    assert {p.name for p in tmp_path.iterdir()} == {"Dockerfile", "entrypoint.sh", "healthcheck.py", "mgfarm"}
    entrypoint = (tmp_path / "entrypoint.sh").read_text()
    assert "helper command" in entrypoint
    assert "printf '%s' \"$token\"" in entrypoint
