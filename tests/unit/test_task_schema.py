"""Template files: valid ones load; broken ones name the file, the line and the field."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mgfarm.catalog import load_catalog
from mgfarm.errors import MgfarmError

GOOD = """\
- id: settings.wifi_off
  apps: [settings]
  goal: "Turn Wi-Fi off, {name}."
  difficulty: L1
  params:
    name: {sample: first_names}
  setup:
    - settings: {global: {wifi_on: 1}}
  judge:
    all:
      - settings.equals: {namespace: global, key: wifi_on, value: 0}
  outcome: [{setting: {key: global.wifi_on, value: 0}}]
  oracle:
    - open_app: Settings
    - click: {text: "Network & internet"}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "t.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def error_of(path: Path) -> str:
    with pytest.raises(MgfarmError) as info:
        load_catalog([]).parse_file(path)
    return str(info.value)


def test_valid_template_loads_and_instantiates(tmp_path: Path) -> None:
    [template] = load_catalog([]).parse_file(write(tmp_path, GOOD))
    instance = template.instantiate(3)
    assert instance.goal.startswith("Turn Wi-Fi off, ")
    assert instance.params["name"] in instance.goal
    assert instance.max_steps == 15  # the L1 budget
    assert template.source.endswith("t.yaml:1")


def test_bad_difficulty_names_line_and_field(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, GOOD.replace("difficulty: L1", "difficulty: L9")))
    assert "t.yaml:4:" in message and "field difficulty" in message


def test_unknown_check_names_its_line(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, GOOD.replace("settings.equals", "settings.equalz")))
    assert "t.yaml:11:" in message and "judge" in message and "settings.equalz" in message


def test_wrong_check_argument_is_reported(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, GOOD.replace("namespace: global", "ns: global")))
    assert "t.yaml:11:" in message and "'ns'" in message


def test_unknown_setup_step_names_its_line(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, GOOD.replace("- settings: {global", "- setting: {global")))
    assert "t.yaml:8:" in message and "field setup" in message and "setting" in message


def test_preferences_step_without_values_names_its_line(tmp_path: Path) -> None:
    bad = GOOD.replace("    - settings: {global: {wifi_on: 1}}", "    - preferences: {app: opentracks}")
    message = error_of(write(tmp_path, bad))
    assert "t.yaml:8:" in message and "preferences needs {app: APP, values: {key: value}}" in message


def test_unknown_sampler_names_the_parameter(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, GOOD.replace("first_names", "pet_names")))
    assert "t.yaml:6:" in message and "params.name" in message and "pet_names" in message


def test_missing_field_is_named(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, GOOD.replace('  goal: "Turn Wi-Fi off, {name}."\n', "")))
    assert "t.yaml:1:" in message and "field goal" in message


def test_yaml_syntax_error_names_line(tmp_path: Path) -> None:
    message = error_of(write(tmp_path, GOOD.replace("apps: [settings]", "apps: [settings")))
    assert "t.yaml:" in message and "invalid YAML" in message


def test_bad_oracle_selector(tmp_path: Path) -> None:
    message = error_of(
        write(tmp_path, GOOD.replace('click: {text: "Network & internet"}', "click: {txt: x}"))
    )
    assert "t.yaml:15:" in message and "field oracle" in message and "selector" in message


def test_bad_outcome_item_names_its_line(tmp_path: Path) -> None:
    bad = GOOD.replace("{setting: {key: global.wifi_on, value: 0}}", "{setting: {key: global.wifi_on}}")
    message = error_of(write(tmp_path, bad))
    assert "t.yaml:12:" in message and "field outcome" in message and "setting needs value" in message
    message = error_of(write(tmp_path, GOOD.replace("{setting:", "{settings:")))
    assert "unknown outcome item 'settings'" in message


def test_operate_template_without_outcome_is_refused(tmp_path: Path) -> None:
    without = GOOD.replace("  outcome: [{setting: {key: global.wifi_on, value: 0}}]\n", "")
    message = error_of(write(tmp_path, without))
    assert "declare `outcome:`" in message


def test_negative_seed_is_refused(tmp_path: Path) -> None:
    [template] = load_catalog([]).parse_file(write(tmp_path, GOOD))
    with pytest.raises(MgfarmError, match="Seed -1 is negative"):
        template.instantiate(-1)


def test_undefined_placeholder_names_the_template_file(tmp_path: Path) -> None:
    [template] = load_catalog([]).parse_file(write(tmp_path, GOOD.replace("{name}", "{nobody}")))
    with pytest.raises(MgfarmError, match=r"t\.yaml:1: Placeholder \{nobody\}"):
        template.instantiate(0)
