"""Exact outcomes: each required change exactly once, nothing else, tolerances, progress that never
pays for doing nothing or for harm."""

from __future__ import annotations

import datetime as dt
import hashlib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mgfarm.tasks.outcome import MatchContext, evaluate, incidental_match, item_problem, matches
from mgfarm.tasks.state import Change

UTC = MatchContext("UTC")


def ins(where: str, key: str, **row: Any) -> Change:
    return Change("insert", where, key, None, row)


def dele(where: str, key: str, **row: Any) -> Change:
    return Change("delete", where, key, row, None)


def upd(where: str, key: str, before: dict[str, Any], after: dict[str, Any]) -> Change:
    return Change("update", where, key, before, after)


ADD_SMS = {"insert": {"table": "sms.sms", "match": {"address": {"phone": "5551234567"}, "body": "On my way"}}}
SMS = ins("sms.sms", "7", address="+1 (555) 123-4567", body="on my  way", type=2)


def test_insert_matches_formatted_numbers_and_loose_text() -> None:
    result = evaluate([ADD_SMS], [SMS], [], UTC)
    assert result.success and result.progress == 1.0


def test_a_duplicate_is_an_unexpected_change() -> None:
    twice = ins("sms.sms", "8", address="5551234567", body="On my way")
    result = evaluate([ADD_SMS], [SMS, twice], [], UTC)
    assert not result.success and result.unexpected == [twice]
    assert result.progress == 0.0  # one made, one unexpected


def test_collateral_damage_fails_and_is_named() -> None:
    damage = dele("contacts.contact", "3", display_name="Ada Lovelace")
    result = evaluate([ADD_SMS], [SMS, damage], [], UTC)
    assert not result.success
    assert [c.line() for c in result.unexpected] == [
        "delete contacts.contact[3]: {'display_name': 'Ada Lovelace'}"
    ]


def test_wrong_value_is_not_the_required_change() -> None:
    wrong = ins("sms.sms", "7", address="5559999999", body="On my way")
    result = evaluate([ADD_SMS], [wrong], [], UTC)
    assert not result.success and result.met == 0 and result.progress == 0.0


def test_update_requires_the_row_and_only_the_set_columns() -> None:
    item = {"update": {"table": "alarms.alarm_templates", "where": {"hour": 6}, "set": {"enabled": 1}}}
    good = upd("alarms.alarm_templates", "4", {"hour": 6, "enabled": 0}, {"hour": 6, "enabled": 1})
    assert evaluate([item], [good], [], UTC).success
    other = upd("alarms.alarm_templates", "5", {"hour": 7, "enabled": 0}, {"hour": 7, "enabled": 1})
    both = evaluate([item], [good, other], [], UTC)
    assert not both.success and both.unexpected == [other]  # over-broad: both alarms on
    moved = upd("alarms.alarm_templates", "4", {"hour": 6, "enabled": 0}, {"hour": 8, "enabled": 1})
    assert not evaluate([item], [moved], [], UTC).success
    stamped = upd("expense.e", "1", {"hour": 6, "enabled": 0, "t": 1}, {"hour": 6, "enabled": 1, "t": 2})
    item2 = {"update": {"table": "expense.e", "where": {"hour": 6}, "set": {"enabled": 1}}}
    assert not evaluate([item2], [stamped], [], UTC).success
    assert evaluate([item2], [stamped], ["expense.e:t"], UTC).success


def test_recreate_accepts_delete_and_insert_only_when_allowed() -> None:
    item: dict[str, Any] = {
        "update": {
            "table": "contacts.contact",
            "where": {"display_name": "Ada Lovelace"},
            "set": {"phones": [{"phone": "5550001111"}]},
        }
    }
    gone = dele("contacts.contact", "1", display_name="Ada Lovelace", phones=("4155550101",), starred=0)
    back = ins("contacts.contact", "9", display_name="Ada Lovelace", phones=("555-000-1111",), starred=0)
    assert not evaluate([item], [gone, back], [], UTC).success
    item["update"]["recreate"] = True
    assert evaluate([item], [gone, back], [], UTC).success
    assert not evaluate([item], [gone], [], UTC).success  # deleting alone is harm
    assert not evaluate([item], [back], [], UTC).success  # a second contact keeps the old one
    renamed = ins("contacts.contact", "9", display_name="Ada Byron", phones=("5550001111",), starred=0)
    assert not evaluate([item], [gone, renamed], [], UTC).success


def test_settings_and_files() -> None:
    wifi = {"setting": {"key": "global.wifi_on", "value": 0}}
    off = upd("settings.global", "wifi_on", {"value": "1"}, {"value": "0"})
    plane = upd("settings.global", "airplane_mode_on", {"value": "0"}, {"value": "1"})
    assert evaluate([wifi], [off], [], UTC).success
    assert not evaluate([wifi], [off, plane], [], UTC).success
    assert evaluate([wifi], [off], ["settings.global[airplane_mode_on]"], UTC).success
    assert evaluate([], [off], ["settings.global[wifi_on]=0"], UTC).success
    assert not evaluate([], [off], ["settings.global[wifi_on]=1"], UTC).success

    path = "/storage/emulated/0/Documents/b.txt"
    digest = hashlib.sha1(b"draft").hexdigest()
    made = ins("files", path, type="file", size=5, sha1=digest)
    create = {"file": {"path": "/sdcard/Documents/b.txt", "exists": True, "text": "draft"}}
    assert evaluate([create], [made], [], UTC).success
    assert not evaluate(
        [{"file": {"path": "/sdcard/Documents/b.txt", "exists": True, "text": "x"}}], [made], [], UTC
    ).success
    removed = dele("files", path, type="file")
    assert evaluate(
        [{"file": {"path": "/sdcard/Documents/b.txt", "exists": False}}], [removed], [], UTC
    ).success


def test_a_file_path_glob_takes_one_stamped_file_within_its_folder() -> None:
    photo = {"file": {"path": "/sdcard/Pictures/IMG_*.jpg", "exists": True}}
    first = ins("files", "/storage/emulated/0/Pictures/IMG_20260304_093000.jpg", type="file", size=9)
    second = ins("files", "/storage/emulated/0/Pictures/IMG_20260304_093001.jpg", type="file", size=9)
    deeper = ins("files", "/storage/emulated/0/Pictures/trip/IMG_20260304_093000.jpg", type="file", size=9)
    assert evaluate([photo], [first], [], UTC).success
    assert not evaluate([photo], [first, second], [], UTC).success  # a second photo is unexpected
    assert not evaluate([photo], [deeper], [], UTC).success  # wildcards stay within the folder
    gone = dele("files", "/storage/emulated/0/Pictures/IMG_20260304_093000.jpg", type="file")
    assert not evaluate([photo], [gone], [], UTC).success


def test_local_time_follows_the_device_zone() -> None:
    nine_kolkata = int(
        dt.datetime(2026, 3, 4, 9, 0, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30))).timestamp()
        * 1000
    )
    want = {"local_time": "2026-03-04 09:00"}
    assert matches(want, nine_kolkata, MatchContext("Asia/Kolkata"))
    assert not matches(want, nine_kolkata, UTC)
    assert not matches(want, nine_kolkata, MatchContext("America/Los_Angeles"))
    assert matches(
        {"local_time": "2026-03-04 09:10", "tol_minutes": 15}, nine_kolkata, MatchContext("Asia/Kolkata")
    )


def test_matchers() -> None:
    assert matches(5, "5", UTC) and matches("05", 5, UTC) and not matches(5, 6, UTC)
    assert matches({"approx": 10, "tol": 0.5}, 10.4, UTC) and not matches({"approx": 10, "tol": 0.5}, 11, UTC)
    assert matches(["a", {"phone": "5551112222"}], ("555-111-2222", "A"), UTC)
    assert not matches(["a"], ("a", "a"), UTC)  # a list is a multiset: an extra element fails
    assert matches({"in": [1, 2]}, 2, UTC) and matches({"not": 1}, 2, UTC)
    assert not matches({"exact": "Ab"}, "ab", UTC) and matches({"contains": "office"}, "Main Office", UTC)
    assert matches(None, None, UTC) and not matches("x", None, UTC)


def test_item_problems_are_sentences() -> None:
    assert item_problem({"insert": {"table": "t"}}) == "insert needs match"
    assert "unknown outcome item" in str(item_problem({"upsert": {}}))
    assert "has no field 'sett'" in str(
        item_problem({"update": {"table": "t", "where": {}, "set": {}, "sett": 1}})
    )
    assert item_problem(ADD_SMS) is None


def test_incidental_patterns() -> None:
    read = upd("sms.sms", "1", {"read": 0, "body": "x"}, {"read": 1, "body": "x"})
    edited = upd("sms.sms", "1", {"read": 0, "body": "x"}, {"read": 1, "body": "y"})
    assert incidental_match(read, ["sms.sms:read,seen"])
    assert not incidental_match(edited, ["sms.sms:read,seen"])
    assert incidental_match(edited, ["sms.*"]) and incidental_match(edited, ["sms.sms[1]"])
    assert not incidental_match(edited, ["sms.sms[2]"])


def test_nothing_done_is_never_progress() -> None:
    assert evaluate([ADD_SMS], [], [], UTC).progress == 0.0
    assert not evaluate([ADD_SMS], [], [], UTC).success
    query = evaluate([], [], [], UTC)
    assert query.success and query.progress == 1.0  # a query task's state: nothing may change


# ---- properties

NAMES = st.text(alphabet="abcdefgh", min_size=1, max_size=5)


@st.composite
def required_and_made(draw: Any) -> tuple[list[dict[str, Any]], list[Change]]:
    names = draw(st.lists(NAMES, min_size=1, max_size=6, unique=True))
    items = [{"insert": {"table": "db.t", "match": {"name": n}}} for n in names]
    made = [ins("db.t", str(i), name=n) for i, n in enumerate(names)]
    return items, made


@settings(max_examples=80, deadline=None)
@given(required_and_made(), st.data())
def test_a_strict_subset_of_required_changes_never_succeeds(case: Any, data: Any) -> None:
    items, made = case
    picked = data.draw(st.lists(st.sampled_from(range(len(made))), unique=True, max_size=len(made) - 1))
    subset = [made[i] for i in picked]
    result = evaluate(items, subset, [], UTC)
    assert not result.success
    assert result.progress < 1.0
    assert result.met == len(subset)


@settings(max_examples=80, deadline=None)
@given(
    required_and_made(),
    st.lists(st.tuples(st.sampled_from(["insert", "delete", "update"]), NAMES), min_size=1, max_size=4),
)
def test_extra_changes_are_always_reported(case: Any, extras: list[tuple[str, str]]) -> None:
    items, made = case
    noise = []
    for i, (kind, name) in enumerate(extras):
        key = str(100 + i)
        if kind == "insert":
            noise.append(ins("db.other", key, name=name))
        elif kind == "delete":
            noise.append(dele("db.t", key, name=name + "!"))
        else:
            noise.append(upd("db.t", key, {"name": name}, {"name": name + "?"}))
    result = evaluate(items, made + noise, [], UTC)
    assert not result.success
    assert sorted(c.key for c in result.unexpected) == sorted(c.key for c in noise)
    assert result.progress <= max(0.0, 1 - len(noise) / len(items)) + 1e-9


@settings(max_examples=60, deadline=None)
@given(required_and_made(), st.integers(1, 5))
def test_harm_alone_earns_nothing(case: Any, n: int) -> None:
    items, _ = case
    harm = [dele("db.t", str(200 + i), name=f"victim{i}") for i in range(n)]
    result = evaluate(items, harm, [], UTC)
    assert result.progress == 0.0 and not result.success
