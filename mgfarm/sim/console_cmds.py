"""Console commands that drive the device's modem and sensors: gsm, sms, geo, power, network, rotate.

Replies are the emulator console's (`OK`, or one `KO: ...` line saying what was wrong). Note that the
real `adb emu` prints the reply and exits 0 whatever it says (adb's console client returns 0 once it
could connect), so callers that need to know read the `KO:` line, as they must with an emulator.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mgfarm.sim.system.telephony import (
    BATTERY_HEALTH,
    BATTERY_STATUS,
    NETWORK_DELAYS,
    NETWORK_SPEEDS,
    REGISTRATION,
    TelephonyError,
)

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

HELP = {
    "gsm": "allows you to change GSM-related settings, or to make a new inbound phone call\r\n"
    "available sub-commands:\r\n    list  call  busy  hold  accept  cancel  data  voice  status",
    "sms": "allows you to simulate an inbound SMS\r\navailable sub-commands:\r\n    send",
    "geo": "allows you to change Geo-related settings, or to send GPS NMEA sentences\r\n"
    "available sub-commands:\r\n    fix",
    "power": "allows to change battery and AC power status\r\n"
    "available sub-commands:\r\n    display  ac  status  present  health  capacity",
    "network": "allows you to manage the settings related to the network data connection of the\r\n"
    "emulated device.\r\navailable sub-commands:\r\n    status  speed  delay",
    "rotate": "rotate the screen clockwise by 90 degrees",
}


def reply(*texts: str) -> str:
    return "".join(f"{t}\r\n" for t in texts)


def ko(message: str) -> str:
    return reply(f"KO: {message}")


def gsm(device: SimDevice, args: list[str], line: str) -> str:
    del line
    if not args:
        return ko("missing sub-command, try 'help gsm'")
    sub, rest = args[0].lower(), args[1:]
    m = device.services.telephony
    if sub == "list":
        return reply(*m.listing(), "OK")
    if sub == "status":
        return reply(f"gsm voice state: {m.radio.voice}", f"gsm data state:  {m.radio.data}", "OK")
    if sub in ("voice", "data"):
        if not rest or rest[0] not in REGISTRATION:
            return ko(f"bad GSM {sub} state name, try 'help gsm {sub}'")
        setattr(m.radio, sub, rest[0])
        return reply("OK")
    actions: dict[str, Callable[[str], None]] = {
        "call": m.ring,
        "accept": m.accept,
        "cancel": m.hang_up,
        "busy": m.hang_up,
        "hold": m.hold,
    }
    if sub not in actions:
        return ko(f"bad sub-command '{args[0]}', try 'help gsm'")
    if len(rest) != 1:
        return ko(f"missing argument, try 'gsm {sub} <phonenumber>'")
    try:
        actions[sub](rest[0])
    except TelephonyError as exc:
        return ko(str(exc))
    return reply("OK")


def sms(device: SimDevice, args: list[str], line: str) -> str:
    if not args or args[0].lower() != "send":
        return ko("missing sub-command, try 'help sms'" if not args else f"bad sub-command '{args[0]}'")
    if len(args) < 3:
        return ko("missing argument, try 'sms send <phonenumber> <text message>'")
    # The text is the rest of the line as typed (spaces kept), after `sms send NUMBER `.
    text = line.split(None, 3)[3] if len(line.split(None, 3)) == 4 else ""
    try:
        device.services.telephony.receive_sms(args[1], text)
    except TelephonyError as exc:
        return ko(str(exc))
    return reply("OK")


def geo(device: SimDevice, args: list[str], line: str) -> str:
    del line
    if not args or args[0].lower() != "fix":
        return ko("missing sub-command, try 'help geo'" if not args else f"bad sub-command '{args[0]}'")
    values = args[1:]
    if len(values) < 2 or len(values) > 5:
        return ko("should have 2, 3, 4 or 5 arguments, try 'help geo fix'")
    try:
        numbers = [float(v) for v in values[:3]]
    except ValueError:
        return ko("longitude, latitude and altitude must be numbers, e.g. 'geo fix -122.08 37.42'")
    longitude, latitude = numbers[0], numbers[1]
    if not -180 <= longitude <= 180:
        return ko("invalid longitude value, use a value between -180 and 180")
    if not -90 <= latitude <= 90:
        return ko("invalid latitude value, use a value between -90 and 90")
    altitude = numbers[2] if len(numbers) > 2 else 0.0
    device.services.telephony.radio.location = (longitude, latitude, altitude)
    return reply("OK")


def power(device: SimDevice, args: list[str], line: str) -> str:
    del line
    if not args:
        return ko("missing sub-command, try 'help power'")
    sub, rest = args[0].lower(), args[1:]
    p = device.services.telephony.power
    if sub == "display":
        return reply(
            f"AC: {'online' if p.ac else 'offline'}",
            f"status: {p.status.title()}",
            f"health: {p.health.title()}",
            f"present: {str(p.present).lower()}",
            f"capacity: {p.capacity}",
            "OK",
        )
    if not rest:
        return ko(f"missing argument, try 'help power {sub}'")
    value = rest[0].lower()
    if sub == "ac" and value in ("on", "off"):
        p.ac = value == "on"
    elif sub == "status" and value in BATTERY_STATUS:
        p.status = value
    elif sub == "health" and value in BATTERY_HEALTH:
        p.health = value
    elif sub == "present" and value in ("true", "false"):
        p.present = value == "true"
    elif sub == "capacity" and value.isdigit() and 0 <= int(value) <= 100:
        p.capacity = int(value)
    elif sub in ("ac", "status", "health", "present", "capacity"):
        return ko(f"bad {sub} value '{rest[0]}', try 'help power {sub}'")
    else:
        return ko(f"bad sub-command '{args[0]}', try 'help power'")
    return reply("OK")


def network(device: SimDevice, args: list[str], line: str) -> str:
    del line
    if not args:
        return ko("missing sub-command, try 'help network'")
    sub, rest = args[0].lower(), args[1:]
    radio = device.services.telephony.radio
    if sub == "status":
        return reply(
            "Current network status:",
            f"  download speed:   {radio.speed}",
            f"  upload speed:     {radio.speed}",
            f"  minimum latency:  {radio.delay}",
            "OK",
        )
    if sub == "speed" and rest and rest[0].lower() in NETWORK_SPEEDS:
        radio.speed = rest[0].lower()
    elif sub == "delay" and rest and rest[0].lower() in NETWORK_DELAYS:
        radio.delay = rest[0].lower()
    elif sub in ("speed", "delay"):
        return ko(f"invalid {sub} value, try 'help network {sub}'")
    else:
        return ko(f"bad sub-command '{args[0]}', try 'help network'")
    return reply("OK")


def rotate(device: SimDevice, args: list[str], line: str) -> str:
    """Turns the virtual device a quarter clockwise; the sensor reports it, and the display follows it
    while `accelerometer_rotation` is 1 (the window manager reads `radio.rotation`)."""
    del args, line
    radio = device.services.telephony.radio
    radio.rotation = (radio.rotation + 1) % 4
    return reply("OK")


COMMANDS: dict[str, Callable[[SimDevice, list[str], str], str]] = {
    "gsm": gsm,
    "sms": sms,
    "geo": geo,
    "power": power,
    "network": network,
    "rotate": rotate,
}


def emulator_command(device: SimDevice, line: str) -> str | None:
    """The reply to one of these commands, or None when `line` is not one of them."""
    words = line.split()
    handler = COMMANDS.get(words[0].lower()) if words else None
    if handler is None:
        return None
    return handler(device, words[1:], line)
