"""Watchdog footprint: resident and proportional memory and import time of a process that loads what
`python -m mgfarm.farm.health NAME` loads before its first pass (the module and the process backend).

    .venv/bin/python benchmarks/bench_watchdog.py [--runs 5]

Each run is a fresh interpreter importing from this file's checkout; compare two checkouts by running
this file from each, alternately. Prints medians and JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks._common import percentile  # noqa: E402

PROBE = """
import json, sys, time
start = time.perf_counter()
import mgfarm.farm.health
from mgfarm.farm.backends import get_backend
get_backend("process")
seconds = time.perf_counter() - start
lines = open("/proc/self/smaps_rollup").read().splitlines()
kib = {l.split(":")[0]: int(l.split()[1]) for l in lines if l.startswith(("Rss:", "Pss:"))}
print(json.dumps({"rss_mib": kib["Rss"] / 1024, "pss_mib": kib["Pss"] / 1024, "import_s": seconds,
                  "modules": len(sys.modules)}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    probe = [sys.executable, "-c", PROBE]
    rows = [
        json.loads(subprocess.run(probe, cwd=ROOT, capture_output=True, text=True, check=True).stdout)
        for _ in range(args.runs)
    ]
    medians = {key: percentile([row[key] for row in rows], 0.5) for key in rows[0]}
    print(f"watchdog footprint in {ROOT}, median of {args.runs}, load average {load:.1f}:")
    rss, pss, seconds = medians["rss_mib"], medians["pss_mib"], medians["import_s"]
    print(f"RSS {rss:.1f} MiB  PSS {pss:.1f} MiB  import {seconds:.2f} s  {medians['modules']:.0f} modules")
    print(json.dumps({"root": str(ROOT), "load": load, **medians}))


if __name__ == "__main__":
    main()
