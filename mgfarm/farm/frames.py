"""Where a process farm keeps its frame files: a private folder on a tmpfs when one is usable.

A worker writes ~7.8 MB into its frame file for every new frame. On a disk filesystem the kernel
writes those dirty pages back to disk (I/O and CPU no benchmark sees); on a tmpfs they stay in
memory. So the farm makes `mgfarm-<owner>-<farm>@<random>` (0700, `mkdir` fails on anything already
there, a symlink included) in the first usable tmpfs: /dev/shm, then $XDG_RUNTIME_DIR. Usable: a
tmpfs this user may write to where no other user can rename or replace its entries (sticky, or the
user's own and writable by nobody else). Without one the frames stay in `<farm>/frames`.
`down`, and `up` clearing a crashed farm's leftovers, remove every folder of that name and owner.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
from pathlib import Path

from mgfarm.farm.state import owner_id


def _candidates() -> list[Path]:
    roots = [Path("/dev/shm")]
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isabs(runtime):
        roots.append(Path(runtime))
    return roots


def _filesystem(path: Path) -> str:
    """The type of the filesystem `path` is on ('' when /proc/self/mounts does not say)."""
    try:
        lines = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return ""
    best, kind = "", ""
    target = str(path)
    for line in lines:
        fields = line.split()
        if len(fields) < 3:
            continue
        mount = fields[1].replace("\\040", " ")
        inside = target == mount or target.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= len(best):
            best, kind = mount, fields[2]
    return kind


def usable(root: Path) -> bool:
    """A tmpfs folder where this user can make a folder no other user can rename, replace or enter."""
    try:
        real = root.resolve(strict=True)
        info = real.stat()
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or not os.access(real, os.W_OK | os.X_OK):
        return False
    sticky = bool(info.st_mode & stat.S_ISVTX)
    own = info.st_uid == os.geteuid() and not info.st_mode & 0o022
    return (sticky or own) and _filesystem(real) == "tmpfs"


def _prefix(name: str) -> str:
    # The home's owner id: farms of one name in two homes (users, test runs) never meet. '@' is in
    # no farm name, so `a@` never matches the folders of farm `a-b`.
    return f"mgfarm-{owner_id()}-{name}@"


def make_dir(name: str, farm_folder: Path) -> Path:
    """A new private frames folder for farm `name`: on a tmpfs when usable, else in its folder."""
    for root in _candidates():
        if not usable(root):
            continue
        path = root.resolve() / f"{_prefix(name)}{secrets.token_hex(8)}"
        try:
            os.mkdir(path, 0o700)
        except OSError:
            continue
        os.chmod(path, 0o700)  # whatever the umask
        return path
    path = farm_folder / "frames"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def remove_dirs(name: str, recorded: str = "") -> None:
    """Remove farm `name`'s frames folders on every tmpfs (a crash's leftovers too) and `recorded`.

    Only folders this user owns: a same-named one of another user is theirs (a sticky /dev/shm
    would refuse anyway).
    """
    found = [Path(recorded)] if recorded else []
    for root in _candidates():
        with contextlib.suppress(OSError):
            found += [p for p in root.iterdir() if p.name.rpartition("@")[0] + "@" == _prefix(name)]
    for path in found:
        try:
            info = path.lstat()
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid():
            shutil.rmtree(path, ignore_errors=True)
