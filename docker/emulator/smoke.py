"""`make emulator-smoke`: the emulator path end to end on one replica, with a summary.

Builds the emulator image (the real one with `--real --accept-android-sdk-licenses` on a host with a
usable /dev/kvm and internet; otherwise the STAND-IN image, a simulated device behind the same
entrypoint, and the summary says so in capitals), builds the golden snapshot on it, starts
`up --replicas 1` (no --image: the farm finds the snapshot's image), runs the smoke suite with the
oracle agent, times 20 resets and 100 steps, and stops the farm.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from mgfarm.errors import MgfarmError

FARM = "emulator-smoke"


def say(line: str) -> None:
    print(f"[emulator-smoke] {line}", flush=True)


def kvm_problem() -> str:
    """'' when this process may use /dev/kvm, else why not."""
    if not os.path.exists("/dev/kvm"):
        return "/dev/kvm is missing"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "/dev/kvm is not readable and writable by this user (mode/group; see the workflow's udev rule)"
    return ""


def choose_variant(real: bool, accepted: bool) -> tuple[bool, str]:
    """(use the real emulator, why the stand-in was used instead)."""
    if not real:
        return False, "the real emulator was not requested (pass --real --accept-android-sdk-licenses)"
    if not accepted:
        return False, "the Android SDK licence was not accepted (--accept-android-sdk-licenses)"
    problem = kvm_problem()
    return (False, problem) if problem else (True, "")


def ms(values: list[float]) -> str:
    if not values:
        return "no samples"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {statistics.median(ordered):.0f} ms, p95 {p95:.0f} ms over {len(ordered)}"


def run(real: bool, accepted: bool, boot_timeout: float) -> int:
    from mgfarm.bench.measure import measure_env
    from mgfarm.catalog import load_catalog
    from mgfarm.env.evaluate import run_eval
    from mgfarm.farm import api
    from mgfarm.farm.images import build_images
    from mgfarm.snapshots import farm as snapshot_farm
    from mgfarm.snapshots.build import build
    from mgfarm.snapshots.manifest import remove_snapshot

    use_real, why = choose_variant(real, accepted)
    which = "emulator" if use_real else "emulator-standin"
    summary: list[str] = []
    if not use_real:
        say(f"using the STAND-IN emulator image: {why}")
    started = time.monotonic()
    build_images(say, which, accept_android_sdk_licenses=accepted)
    image = "mgfarm/emulator:latest" if use_real else "mgfarm/emulator:standin"
    summary.append(f"image            {image} built in {time.monotonic() - started:.0f} s")

    started = time.monotonic()
    manifest = build("golden", backend="docker", image=image, boot_timeout=boot_timeout, report=say)
    summary.append(f"golden snapshot  {manifest.snapshot_image} in {time.monotonic() - started:.0f} s")
    summary.append(f"hardware         {manifest.ram_mb} MB, {manifest.cores} cores, {manifest.gpu_mode}")

    started = time.monotonic()
    farm = snapshot_farm.up(1, "docker", name=FARM, boot_timeout=boot_timeout)
    catalog = load_catalog()
    failed = 0
    try:
        summary.append(f"up --replicas 1  {farm.image} ready in {time.monotonic() - started:.1f} s")
        evaluation = run_eval(catalog, [], "smoke", "oracle", [0], FARM, None, None, record=False, show=False)
        ok = sum(r.success for r in evaluation.results)
        failed = len(evaluation.results) - ok
        summary.append(
            f"smoke suite      oracle {ok}/{len(evaluation.results)} in {evaluation.seconds:.1f} s"
        )
        task = catalog.select(None, "smoke")[0].id
        sample = measure_env(FARM, 1, task, episodes=20, steps=5)
        summary.append(f"20 resets        {ms(sample.reset_ms)}")
        summary.append(f"100 steps        {ms(sample.step_ms)}")
    finally:
        api.down(FARM)
        summary.append("down             farm stopped, nothing left")
        removed = remove_snapshot("golden", "docker")
        summary.append(f"snapshot rm      {', '.join(removed)}")
    print()
    print("== emulator smoke summary ==")
    for line in summary:
        print(line)
    if use_real:
        print("EMULATOR: the real Android emulator (docker/emulator/Dockerfile) on KVM.")
    else:
        print("STAND-IN: THIS RUN DID NOT USE A REAL ANDROID EMULATOR. It ran mgfarm.sim behind the emulator")
        print(f"image's entrypoint, health check and snapshot path ({why}).")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make emulator-smoke", description=__doc__)
    parser.add_argument("--real", action="store_true", help="build and run the real emulator image")
    parser.add_argument("--accept-android-sdk-licenses", action="store_true", dest="accepted")
    parser.add_argument("--boot-timeout", type=float, default=600.0)
    args = parser.parse_args(argv)
    os.environ.setdefault("MGFARM_HOME", str(Path("build") / "emulator-smoke-home"))
    try:
        return run(args.real, args.accepted, args.boot_timeout)
    except MgfarmError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
