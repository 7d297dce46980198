"""Every over-acting run the issue measured being paid is an adversary of `tasks check`, and the
judge rejects it on a simulated device; other correct paths are accepted, in every time zone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mgfarm.catalog import load_catalog
from mgfarm.env.runner import run_jobs
from mgfarm.farm.state import FarmState
from mgfarm.tasks.adversaries import adversaries
from mgfarm.tasks.checker import TIMEZONES, verdict
from mgfarm.tasks.jobs import Job
from tests.support import private_farm

# (template, adversary) for each example of issue 14, which the old judges accepted.
ISSUE_EXAMPLES = [
    ("contacts.star_contact", "over_broad"),  # star every contact
    ("phone.call_contact", "wrong_then_right"),  # call the wrong contact, then the right one
    ("messages.send_sms", "wrong_then_right"),  # text the wrong number first
    ("clock.enable_alarm", "over_broad"),  # enable both alarms
    ("expense.delete_expense", "over_broad"),  # delete both expenses
    ("expense.fix_amount", "add_new_keep_wrong"),  # a new row, the wrong one kept
    ("calendar.move_event", "add_a_copy"),  # "moved" by adding a copy
    ("calendar.add_event_with_location", "miss_end"),  # a wrong end time
    ("calendar.add_event", "wrong_then_right"),  # the wrong day and the right day
    ("settings.wifi_off", "airplane_mode"),  # Wi-Fi off by turning on airplane mode
    ("contacts.add_contact", "oracle_twice"),  # doing the task twice
    ("messages.send_sms", "damage_insert_sms"),  # the run plus an extra text ("I quit")
    ("contacts.delete_contact", "damage_delete_contacts"),  # the run plus another contact deleted
    ("contacts.change_phone", "delete_only"),  # deleting the contact is not progress
    ("clock.count_alarms_on", "constant_2"),  # a constant answer
    ("contacts.lookup_phone", "all_candidates"),  # several numbers, the right one last
]
ALTERNATIVES = [
    ("contacts.add_contact", "provider_formatted_number"),
    ("contacts.change_phone", "delete_and_recreate"),
    ("messages.send_sms", "provider_formatted_number"),
    ("calendar.event_start_time", "other_words"),
    ("expense.how_much_spent", "other_words"),
]


@pytest.fixture(scope="module")
def farm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FarmState]:
    with private_farm(tmp_path_factory.mktemp("home"), 2) as state:
        yield state


def job(task_id: str, name: str, seed: int, zone: str) -> Job:
    catalog = load_catalog()
    template = catalog.get(task_id)
    [adv] = [a for a in adversaries(template, seed, catalog) if a.name == name]
    return Job(template, seed, adv.agent, f"{adv.group}/{adv.name}", zone, adv.after, adv.expect, adv.budget)


@pytest.mark.timeout(900)
def test_issue_examples_are_rejected_and_alternatives_accepted(farm: FarmState) -> None:
    jobs = [job(t, a, seed, "UTC") for t, a in ISSUE_EXAMPLES for seed in (0, 1)]
    jobs += [job(t, a, 0, zone) for t, a in ALTERNATIVES for zone in TIMEZONES]
    # The calendar oracle in every zone: it failed 3 of 3 off UTC before.
    jobs += [job("calendar.add_event", "oracle", 0, zone) for zone in TIMEZONES]
    results = run_jobs(jobs, farm)
    played = 0
    for j, r in zip(jobs, results, strict=True):
        v = verdict(r, j.expect)
        assert v in ("ok", "n/a"), (
            f"{j.task.id} {j.key} seed {j.seed} {j.timezone}: {v} {r.error} {r.side_effects}"
        )
        played += v == "ok"
    # n/a only where an instance offers nothing to play (e.g. no second candidate on screen).
    assert played >= len(jobs) - 4
