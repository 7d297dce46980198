"""The modem and telephony state: calls (IDLE, RINGING, OFFHOOK), received SMS, battery, location, network.

The emulator console (`gsm`, `sms`, `power`, `geo`, `network`) and the dialer drive it; `dumpsys
telephony.registry` and `dumpsys battery` read it. Calls follow TelephonyManager's states: any ringing
call makes the phone RINGING, else any active or dialing call makes it OFFHOOK, else it is IDLE.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Any

from mgfarm.sim.system.logs import log
from mgfarm.sim.system.profiles import package_of
from mgfarm.sim.system.providers import ProviderError

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

IN_CALL = "com.android.incallui.InCallActivity"
NUMBER = re.compile(r"\+?[0-9*#]{1,40}")
INCOMING, OUTGOING, MISSED = 1, 2, 3  # CallLog.Calls.TYPE
SMS_INBOX = 1
MAX_CALLS = 7  # a GSM modem holds at most 7 calls; an agent dialing in a loop gets no more


class CallState(IntEnum):
    IDLE = 0
    RINGING = 1
    OFFHOOK = 2


class TelephonyError(Exception):
    """A request the modem refuses; the message is what the console prints after `KO: `."""


@dataclass
class Call:
    number: str
    inbound: bool
    state: str  # the console's words: incoming, dialing, active, held
    started_ms: int
    answered_ms: int = 0
    logged: bool = False  # the dial pad writes its call-log row when dialing; others are logged at hang-up


@dataclass
class Power:
    capacity: int = 100
    status: str = "charging"  # unknown, charging, discharging, not-charging, full
    ac: bool = True
    health: str = "good"
    present: bool = True


@dataclass
class Radio:
    voice: str = "home"
    data: str = "home"
    speed: str = "full"
    delay: str = "none"
    location: tuple[float, float, float] = (-122.084, 37.4219983, 5.0)  # longitude, latitude, altitude
    rotation: int = 0


BATTERY_STATUS = {"unknown": 1, "charging": 2, "discharging": 3, "not-charging": 4, "full": 5}
BATTERY_HEALTH = {"unknown": 1, "good": 2, "overheat": 3, "dead": 4, "overvoltage": 5, "failure": 6}
NETWORK_SPEEDS = ("gsm", "hscsd", "gprs", "edge", "umts", "hsdpa", "lte", "evdo", "5g", "full")
NETWORK_DELAYS = ("gprs", "edge", "umts", "none")
REGISTRATION = ("unregistered", "home", "roaming", "searching", "denied", "off", "on")


@dataclass
class Telephony:
    """One device's modem. Every change calls `device.changed()` (the in-call screen shows it)."""

    device: SimDevice
    calls: list[Call] = field(default_factory=list)
    power: Power = field(default_factory=Power)
    radio: Radio = field(default_factory=Radio)

    # ---- calls
    def _radio_log(self, what: str) -> None:
        log(
            self.device,
            "D",
            "RILJ",
            f"[UNSL]< UNSOL_RESPONSE_CALL_STATE_CHANGED {what} [PHONE0]",
            700,
            "radio",
        )
        log(self.device, "I", "Telecom", f"CallsManager: call state now {self.state().name}", 700)

    def state(self) -> CallState:
        if any(c.state == "incoming" for c in self.calls):
            return CallState.RINGING
        if self.calls:
            return CallState.OFFHOOK
        return CallState.IDLE

    def incoming_number(self) -> str:
        ringing = [c for c in self.calls if c.state == "incoming"]
        return ringing[0].number if ringing else ""

    def find(self, number: str) -> Call | None:
        return next((c for c in self.calls if c.number == number), None)

    def ring(self, number: str) -> None:
        """`gsm call NUMBER`: an incoming call rings and the in-call screen comes up."""
        self._check_number(number)
        if self.find(number) is not None:
            raise TelephonyError("a call to/from this number is already in progress")
        self._check_room()
        self.calls.append(Call(number, True, "incoming", self._now()))
        self._radio_log("RINGING")
        self._show(number, incoming=True)

    def dial(self, number: str, logged: bool = False) -> None:
        """An outgoing call (the CALL intent or the dial pad): active at once, as on the emulator's modem."""
        self._check_number(number)
        if self.find(number) is None:
            self._check_room()
            now = self._now()
            self.calls.append(Call(number, False, "active", now, now, logged))
            self._radio_log("DIALING")
        self.device.changed()

    def accept(self, number: str | None = None) -> None:
        call = self._pick(number, "incoming")
        call.state, call.answered_ms = "active", self._now()
        self._radio_log("ACTIVE")
        self.device.changed()

    def hang_up(self, number: str | None = None) -> None:
        """`gsm cancel`, the End call button or KEYCODE_ENDCALL: the call ends and goes to the call log."""
        call = self._pick(number, None)
        self.calls.remove(call)
        self._radio_log("DISCONNECTED")
        kind = OUTGOING if not call.inbound else (INCOMING if call.answered_ms else MISSED)
        duration = (self._now() - call.answered_ms) // 1000 if call.answered_ms else 0
        if not call.logged:
            self._log(call.number, kind, call.started_ms, duration)
        if not self.calls:
            self._close_screen()
        self.device.changed()

    def hold(self, number: str) -> None:
        self._pick(number, "active").state = "held"
        self.device.changed()

    def listing(self) -> list[str]:
        """The lines of `gsm list`."""
        return [
            f"{'inbound from' if c.inbound else 'outbound to '} {c.number} : {c.state}" for c in self.calls
        ]

    # ---- messages
    def receive_sms(self, number: str, text: str) -> None:
        """`sms send NUMBER TEXT`: an SMS arrives in the telephony provider's inbox."""
        self._check_number(number)
        try:
            provider, _ = self.device.services.providers.resolve("content://sms/inbox")
        except ProviderError as exc:
            raise TelephonyError("no SMS storage on this device") from exc
        now = self._now()
        provider.insert(
            "content://sms/inbox",
            {"address": number, "body": text, "date": now, "date_sent": now, "read": 0, "seen": 0},
        )
        self.device.changed()

    # ---- helpers
    def _check_number(self, number: str) -> None:
        if not NUMBER.fullmatch(number):
            raise TelephonyError("bad phone number format, use digits, # and *")

    def _check_room(self) -> None:
        if len(self.calls) >= MAX_CALLS:
            raise TelephonyError(f"too many calls in progress ({MAX_CALLS}); end one first")

    def _pick(self, number: str | None, state: str | None) -> Call:
        for call in self.calls:
            if (number is None or call.number == number) and (state is None or call.state == state):
                return call
        raise TelephonyError("bad phone number" if number else "no call in progress")

    def _now(self) -> int:
        return self.device.services.clock.now_ms()

    def _show(self, number: str, incoming: bool) -> None:
        dialer = package_of(self.device.config.profile, "dialer")
        if dialer in self.device.services.apps:
            self.device.services.activities.start(
                dialer, IN_CALL, extras={"number": number, "incoming": incoming}
            )
        self.device.changed()

    def _close_screen(self) -> None:
        activities = self.device.services.activities
        dialer = package_of(self.device.config.profile, "dialer")
        for task in activities.tasks():
            for record in list(task.records):
                if record.package == dialer and record.activity == IN_CALL:
                    activities.finish(record)

    def _log(self, number: str, kind: int, started_ms: int, duration: int) -> None:
        try:
            provider, _ = self.device.services.providers.resolve("content://call_log/calls")
        except ProviderError:
            return  # no dialer installed: nothing keeps a call log
        provider.insert(
            "content://call_log/calls",
            {"number": number, "date": started_ms, "duration": duration, "type": kind, "new": 1},
        )

    # ---- snapshots
    def export_state(self) -> dict[str, Any]:
        return {
            "calls": [asdict(c) for c in self.calls],
            "power": asdict(self.power),
            "radio": {**asdict(self.radio), "location": list(self.radio.location)},
        }

    def import_state(self, state: dict[str, Any]) -> None:
        self.calls = [Call(**c) for c in state.get("calls", [])]
        self.power = Power(**state.get("power", {}))
        radio = dict(state.get("radio", {}))
        if "location" in radio:
            radio["location"] = tuple(radio["location"])
        self.radio = Radio(**radio)
