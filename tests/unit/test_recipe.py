"""Snapshot recipes, manifests and the check that refuses a snapshot that does not fit a farm."""

from __future__ import annotations

from pathlib import Path

import pytest

import mgfarm
from mgfarm.errors import MgfarmError
from mgfarm.snapshots import farm as snapfarm
from mgfarm.snapshots.listing import snapshot_rows
from mgfarm.snapshots.manifest import (
    Manifest,
    Screen,
    check_manifest,
    list_manifests,
    read_manifest,
    snapshot_files,
    write_manifest,
)
from mgfarm.snapshots.recipe import Recipe, list_recipes, load_recipe
from mgfarm.tasks.steps import STEPS
from tests.support import run_mgfarm

PHONE = Screen(width=1080, height=2400, density=420)


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MGFARM_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _manifest(**changes: object) -> Manifest:
    base = Manifest(
        name="golden",
        recipe_hash=load_recipe("golden").content_hash(),  # built from the shipped recipe: not stale
        backend="process",
        image="mgfarm-sim 0.1.0",
        screen=PHONE,
        created_at="2026-03-04T09:30:00+00:00",
        mgfarm_version=mgfarm.__version__,
    )
    return base.model_copy(update=changes)


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "r.yaml"
    path.write_text(text)
    return str(path)


def test_golden_recipe_is_shipped_and_valid() -> None:
    recipe = load_recipe("golden")
    assert recipe.name == "golden"
    assert "com.google.android.contacts" in recipe.apps and "com.android.messaging" in recipe.apps
    kinds = [next(iter(step)) for step in recipe.steps()]
    assert set(kinds) <= set(STEPS), "every recipe step must be a task setup step"
    assert kinds.count("add_contact") >= 3
    assert [r.name for r in list_recipes()] == ["golden"]


def test_repo_root_snapshots_link_points_at_the_shipped_recipes() -> None:
    link = Path(__file__).resolve().parents[2] / "snapshots"
    assert (link / "golden.yaml").is_file()


def test_locale_comes_first_and_the_clock_is_set_last() -> None:
    recipe = Recipe(name="r", locale="fr-FR", time="2026-01-02 03:04", seed=[{"home": None}])
    steps = recipe.steps()
    assert steps[0] == {"shell": "setprop persist.sys.locale fr-FR"}
    assert steps[1] == {"settings": {"system": {"system_locales": "fr-FR"}}}
    assert steps[2] == {"home": None}
    assert steps[-1] == {"set_time": "2026-01-02 03:04"}


def test_hash_follows_content_not_description_or_location() -> None:
    a = Recipe(name="r", seed=[{"settings": {"global": {"wifi_on": 1}}}], description="one")
    b = a.model_copy(update={"description": "two", "source": "/elsewhere.yaml"})
    c = Recipe(name="r", seed=[{"settings": {"global": {"wifi_on": 0}}}])
    assert a.content_hash() == b.content_hash()
    assert a.content_hash() != c.content_hash()
    assert len(a.content_hash()) == 12


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("name: r\nseed:\n  - teleport: x\n", ":2: field seed: step 1: unknown seed step 'teleport'"),
        ("name: r\nseed:\n  - snapshot: golden\n", "cannot load one"),
        ("name: r\ntime: yesterday\n", ":2: field time: 'yesterday' is not a date"),
        ("name: r\nlocale: english\n", "field locale"),
        ("name: r\ncolour: red\n", "field colour"),
        ("- just a list\n", "a recipe is a mapping"),
    ],
)
def test_bad_recipes_name_file_line_and_field(tmp_path: Path, body: str, fragment: str) -> None:
    with pytest.raises(MgfarmError, match="fix") as info:
        load_recipe(_write(tmp_path, body))
    assert fragment in str(info.value)
    assert str(tmp_path / "r.yaml") in str(info.value)


def test_unknown_recipe_lists_the_shipped_ones() -> None:
    with pytest.raises(MgfarmError, match=r"No snapshot recipe 'nope'.*golden"):
        load_recipe("nope")


def test_manifest_round_trips_through_the_store() -> None:
    assert read_manifest("process", "golden") is None
    write_manifest(_manifest())
    assert read_manifest("process", "golden") == _manifest()
    assert list_manifests() == [_manifest()]


def test_matching_manifest_is_accepted() -> None:
    check_manifest(_manifest(), "process", screen=PHONE, mgfarm_version=mgfarm.__version__)
    docker = _manifest(
        backend="docker", snapshot_image="mgfarm-snapshot:golden-abc", snapshot_image_id="sha256:1"
    )
    check_manifest(docker, "docker", image="mgfarm-snapshot:golden-abc", screen=PHONE)
    check_manifest(docker, "docker", image="retagged:1", image_id="sha256:1")


@pytest.mark.parametrize(
    ("manifest", "farm", "fragment"),
    [
        (_manifest(), {"backend": "docker", "image": "x"}, "built on the process backend, not docker"),
        (
            _manifest(screen=Screen(width=720, height=1280, density=320)),
            {"backend": "process", "screen": PHONE},
            "saved on a 720x1280 at 320 dpi screen but this farm's devices are 1080x2400 at 420 dpi",
        ),
        (
            _manifest(backend="docker", image="mgfarm/sim:1", snapshot_image="mgfarm-snapshot:golden-abc"),
            {"backend": "docker", "image": "mgfarm/sim:2", "image_id": "sha256:2"},
            "start the farm with `--image mgfarm-snapshot:golden-abc`",
        ),
        (_manifest(mgfarm_version="0.0.1"), {"backend": "process", "mgfarm_version": "9.9"}, "mgfarm 0.0.1"),
        (
            _manifest(profile="aosp"),
            {"backend": "process", "profile": "android13"},
            "built on device profile aosp, not android13; start the farm with --profile aosp",
        ),
    ],
)
def test_mismatched_manifest_is_refused_with_the_fix(
    manifest: Manifest, farm: dict[str, object], fragment: str
) -> None:
    with pytest.raises(MgfarmError) as info:
        check_manifest(manifest, **farm)  # type: ignore[arg-type]
    message = str(info.value)
    assert fragment in message
    # The fix is a command: rebuild, or (a docker snapshot lives in its own image) start from that image.
    assert "`mgfarm snapshot build golden" in message or "`--image mgfarm-snapshot:" in message
    assert message.endswith(".")


def test_a_built_process_snapshot_is_found_and_placed_where_devices_load_it(tmp_path: Path) -> None:
    farm_folder = tmp_path / "farm"
    assert snapfarm.find_built("process", "", "golden") is None  # nothing built yet
    write_manifest(_manifest())
    with pytest.raises(MgfarmError, match="files are gone"):
        snapfarm.find_built("process", "", "golden")
    files = snapshot_files("golden")
    (files / "files").mkdir(parents=True)
    (files / "state.json").write_text("{}")
    (files / "files" / "marker").write_text("seeded")
    built = snapfarm.find_built("process", "", "golden")
    assert built is not None and built.manifest == _manifest()
    built.place(farm_folder)
    assert (farm_folder / "snapshots/golden/files/marker").read_text() == "seeded"
    assert snapfarm.find_built("existing", "", "golden") is None  # its devices keep their own


def test_finding_refuses_a_snapshot_from_another_mgfarm_version(tmp_path: Path) -> None:
    write_manifest(_manifest(mgfarm_version="0.0.1"))
    with pytest.raises(MgfarmError, match=r"built by mgfarm 0\.0\.1"):
        snapfarm.find_built("process", "", "golden")


def test_a_farm_of_another_profile_refuses_the_built_golden_and_starts_nothing(_home: Path) -> None:
    write_manifest(_manifest())  # built on the default profile, android13
    files = snapshot_files("golden")
    files.mkdir(parents=True)
    (files / "state.json").write_text("{}")
    assert snapfarm.find_built("process", "", "golden", profile="android13") is not None
    proc = run_mgfarm("up", "--replicas", "1", "--profile", "aosp", "--name", "other", timeout=60)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    message = " ".join(proc.stderr.split())
    assert "Snapshot 'golden' was built on device profile android13, not aosp;" in message
    assert "`mgfarm snapshot build golden --backend process --profile aosp`." in message
    assert not (_home / "farms" / "other").exists()


def test_finding_refuses_a_stale_snapshot(tmp_path: Path) -> None:
    write_manifest(_manifest(recipe_hash="0123456789ab"))
    with pytest.raises(MgfarmError, match=r"'golden' is stale.*`mgfarm snapshot build golden`\.$"):
        snapfarm.find_built("process", "", "golden")


def test_list_rows_mark_stale_and_unbuilt_snapshots() -> None:
    recipes = [Recipe(name="golden", seed=[]), Recipe(name="other", seed=[])]
    current = _manifest(recipe_hash=recipes[0].content_hash())
    rows = snapshot_rows(recipes, [current, _manifest(backend="docker", recipe_hash="old")])
    assert [r["profile"] for r in rows] == ["android13", "android13", "-"]
    assert [(r["name"], r["backend"], r["status"]) for r in rows] == [
        ("golden", "process", "ready"),
        ("golden", "docker", "stale: recipe changed, rebuild"),
        ("other", "-", "not built"),
    ]
