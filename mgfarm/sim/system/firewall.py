"""The device's packet filter as `iptables` (legacy 1.8.7 on Android 13) edits it: tables of chains of rules.

Only what decides the device's own outgoing TCP connections is evaluated (the filter table's OUTPUT
chain, first matching rule wins, then the chain's policy): the accessibility forwarder is the one
thing on a simulated device that connects anywhere (android_env's A11yGrpcWrapper can drop all other
traffic with `su 0 iptables -A OUTPUT -j DROP` after accepting its own port). The rules live in
memory, as the kernel's do: a reboot forgets them; snapshots do not hold them.
"""

from __future__ import annotations

import ipaddress
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mgfarm.sim.device import SimDevice

TABLES: dict[str, tuple[str, ...]] = {
    "filter": ("INPUT", "FORWARD", "OUTPUT"),
    "nat": ("PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"),
    "mangle": ("PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"),
    "raw": ("PREROUTING", "OUTPUT"),
}
TARGETS = {"ACCEPT", "DROP", "REJECT", "RETURN", "LOG"}
POLICIES = {"ACCEPT", "DROP"}
PROTOCOLS = {"all", "tcp", "udp", "icmp"}


@dataclass(frozen=True)
class Rule:
    """One rule: every criterion that is set must match; then `target` decides."""

    target: str
    protocol: str = "all"
    source: str = ""  # network as "a.b.c.d/len"; "" = any
    destination: str = ""
    in_interface: str = ""
    out_interface: str = ""
    sport: tuple[int, int] | None = None  # inclusive range
    dport: tuple[int, int] | None = None

    def spec(self, chain: str) -> str:
        """The rule as `iptables -S` prints it (iptables-save's order of options)."""
        parts = [f"-A {chain}"]
        if self.source:
            parts.append(f"-s {self.source}")
        if self.destination:
            parts.append(f"-d {self.destination}")
        if self.in_interface:
            parts.append(f"-i {self.in_interface}")
        if self.out_interface:
            parts.append(f"-o {self.out_interface}")
        if self.protocol != "all":
            parts.append(f"-p {self.protocol}")
        if self.sport or self.dport:
            parts.append(f"-m {self.protocol}")
        for name, ports in (("--sport", self.sport), ("--dport", self.dport)):
            if ports:
                parts.append(
                    f"{name} {ports[0]}" if ports[0] == ports[1] else f"{name} {ports[0]}:{ports[1]}"
                )
        if self.target:  # a rule without a target only counts packets
            parts.append(f"-j {self.target}")
        return " ".join(parts)

    def matches(self, protocol: str, destination: str, dport: int) -> bool:
        """Whether an outgoing packet (no interface criteria apply to it here) meets this rule."""
        if self.protocol not in ("all", protocol) or self.in_interface or self.out_interface:
            return False
        if self.destination and ipaddress.ip_address(destination) not in ipaddress.ip_network(
            self.destination
        ):
            return False
        if self.source and ipaddress.ip_address("10.0.2.15") not in ipaddress.ip_network(self.source):
            return False  # 10.0.2.15: the emulator's own address on its virtual network
        if self.sport is not None:
            return False  # the source port is an ephemeral one nobody can name in advance
        return self.dport is None or self.dport[0] <= dport <= self.dport[1]


@dataclass
class Firewall:
    """A device's tables: chain name -> rules, and each built-in chain's policy."""

    chains: dict[str, dict[str, list[Rule]]] = field(
        default_factory=lambda: {t: {c: [] for c in chains} for t, chains in TABLES.items()}
    )
    policies: dict[str, dict[str, str]] = field(
        default_factory=lambda: {t: dict.fromkeys(chains, "ACCEPT") for t, chains in TABLES.items()}
    )

    def verdict(self, protocol: str, destination: str, dport: int) -> str:
        """ACCEPT, DROP or REJECT for a connection the device opens."""
        for rule in self.chains["filter"]["OUTPUT"]:
            if rule.target in ("", "LOG") or not rule.matches(protocol, destination, dport):
                continue
            return self.policies["filter"]["OUTPUT"] if rule.target == "RETURN" else rule.target
        return self.policies["filter"]["OUTPUT"]


_FIREWALLS: weakref.WeakKeyDictionary[SimDevice, Firewall] = weakref.WeakKeyDictionary()


def firewall(device: SimDevice) -> Firewall:
    found = _FIREWALLS.get(device)
    if found is None:
        found = _FIREWALLS[device] = Firewall()
    return found


def network(value: str) -> str:
    """`-s`/`-d` as iptables stores it: an IPv4 network `a.b.c.d/len`, "" for any (`0.0.0.0/0`, which
    the listing leaves out); ValueError when it is none."""
    net = ipaddress.IPv4Network(value, strict=False)
    return "" if net.prefixlen == 0 else str(net)


def port_range(value: str) -> tuple[int, int]:
    """`--dport 80` or `--dport 1000:2000` (either end may be left out); ValueError when invalid."""
    low, sep, high = value.partition(":")
    if not (low or high) or any(part and not part.isdigit() for part in (low, high)):
        raise ValueError(f"invalid port/service `{value}' specified")
    first = int(low) if low else 0
    last = int(high) if high else (65535 if sep else first)
    if first > 65535 or last > 65535:
        raise ValueError(f"invalid port/service `{value}' specified")
    if first > last:
        raise ValueError("invalid portrange (min > max)")
    return (first, last)
