"""A device can make its worker log some warnings at will (a settings database it overwrote, a bad
packet): the worker's log file is bounded, so such a loop never fills the host's disk."""

from __future__ import annotations

import io
import logging

from mgfarm.sim.server import BoundedLog


def bounded_logger(limit: int, repeats: int) -> tuple[logging.Logger, io.StringIO]:
    out = io.StringIO()
    handler = BoundedLog(out, limit=limit, repeats=repeats)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    log = logging.getLogger(f"test.bounded.{limit}.{repeats}")
    log.propagate = False
    log.handlers = [handler]
    return log, out


def test_a_message_repeated_is_written_a_bounded_number_of_times_and_others_still_are() -> None:
    log, out = bounded_logger(limit=1 << 20, repeats=3)
    for i in range(1000):
        log.warning("%s is not a settings database", f"/data/{i}")
    log.warning("something else")
    lines = out.getvalue().splitlines()
    assert sum("is not a settings database" in line for line in lines) == 3
    assert "it is not written again" in lines[3] and lines[-1].endswith("something else")


def test_the_whole_log_stops_at_its_limit_and_says_so() -> None:
    log, out = bounded_logger(limit=10_000, repeats=1)
    for i in range(5000):
        log.warning(f"message number {i}")  # every one a new template
    text = out.getvalue()
    assert len(text) < 10_200 and text.splitlines()[-1].endswith("messages after this one are not written")
