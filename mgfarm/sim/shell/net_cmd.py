"""`su` (the emulator image's /system/xbin/su) and `iptables` (legacy 1.8.7) on the device's firewall.

android_env's A11yGrpcWrapper runs `su 0 iptables -A OUTPUT ...` to keep only its own connection.
`su WHO COMMAND...` runs COMMAND with USER and LOGNAME set to WHO's name and PATH reset, as AOSP's
su does. A command runs as adbd's uid (`adb root`/`unroot`), or as WHO's under su (the image's su lets
the shell user become anyone): `iptables` and the device's file permissions check it.
"""

from __future__ import annotations

from mgfarm.sim.shell.interp import DEFAULT_ENV
from mgfarm.sim.shell.registry import Invocation, command
from mgfarm.sim.system.firewall import (
    POLICIES,
    PROTOCOLS,
    TARGETS,
    Firewall,
    Rule,
    firewall,
    network,
    port_range,
)
from mgfarm.sim.system.fs import ROOT, USER_NAMES

VERSION = "iptables v1.8.7 (legacy)"
HELP = "Try `iptables -h' or 'iptables --help' for more information.\n"
NO_CHAIN = "iptables: No chain/target/match by that name.\n"


@command("su")
async def su(inv: Invocation) -> int:
    """`su [WHO [COMMAND...]]`: WHO (default root) is a user name or uid; COMMAND defaults to sh."""
    from mgfarm.sim.shell.interp import Shell

    args = inv.argv[1:]
    if args[:1] in (["-h"], ["--help"]):
        inv.err(
            "usage: su [WHO [COMMAND...]]\n\nSwitch to WHO (default 'root') and run the given COMMAND"
            " (default sh).\n\nWHO is a comma-separated list of user, group, and supplementary groups in"
            " that order.\n"
        )
        return 0
    who = (args[0] if args else "root").split(",")[0]
    uid = int(who) if who.isdigit() else {n: u for u, n in USER_NAMES.items()}.get(who)
    if uid is None:
        inv.err(f"su: unknown user {who}\n")
        return 1
    name = USER_NAMES.get(uid)
    env = {k: v for k, v in inv.env.items() if k not in ("IFS", "USER", "LOGNAME")}
    env["PATH"] = DEFAULT_ENV["PATH"]  # bionic's _PATH_DEFPATH, as a login shell has it
    if name is not None:
        env["USER"] = env["LOGNAME"] = name
    return await Shell(inv.device, env, inv.cwd, uid=uid).call(args[1:] or ["sh"], inv.io)


class Usage(Exception):
    """Arguments iptables rejects: the message, then its exit status."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def _take(args: list[str], option: str) -> str:
    if not args:
        raise Usage(f'{VERSION}: option "{option}" requires an argument\n{HELP}')
    return args.pop(0)


def parse_rule(args: list[str]) -> Rule:
    """A rule specification (`-p tcp -d 10.0.2.2 --dport 8554 -j ACCEPT`) as iptables reads it."""
    fields: dict[str, object] = {"target": ""}
    args = list(args)
    while args:
        option = args.pop(0)
        if option in ("-p", "--protocol"):
            protocol = _take(args, option).lower()
            if protocol not in PROTOCOLS:
                raise Usage(f'{VERSION}: unknown protocol "{protocol}" specified\n{HELP}')
            fields["protocol"] = protocol
        elif option in ("-s", "--source", "-d", "--destination"):
            value = _take(args, option)
            try:
                fields["source" if option in ("-s", "--source") else "destination"] = network(value)
            except ValueError:
                raise Usage(f"{VERSION}: host/network `{value}' not found\n{HELP}") from None
        elif option in ("-i", "--in-interface", "-o", "--out-interface"):
            fields["in_interface" if option.startswith(("-i", "--in")) else "out_interface"] = _take(
                args, option
            )
        elif option in ("-m", "--match"):
            match = _take(args, option)
            if match != fields.get("protocol"):
                raise Usage(f"{VERSION}: Couldn't load match `{match}':No such file or directory\n{HELP}")
        elif option in ("--dport", "--destination-port", "--sport", "--source-port"):
            if fields.get("protocol") not in ("tcp", "udp"):  # options of the tcp/udp match only
                raise Usage(f'{VERSION}: unknown option "{option}"\n{HELP}')
            try:
                ports = port_range(_take(args, option))
            except ValueError as exc:
                raise Usage(f"{VERSION}: {exc}\n{HELP}") from None
            fields["dport" if option.startswith(("--d", "--destination")) else "sport"] = ports
        elif option in ("-j", "--jump"):
            target = _take(args, option)
            if target not in TARGETS:
                raise Usage(f"{VERSION}: Couldn't load target `{target}':No such file or directory\n{HELP}")
            fields["target"] = target
        else:
            raise Usage(f'{VERSION}: unknown option "{option}"\n{HELP}')
    return Rule(**fields)  # type: ignore[arg-type]


def listing(wall: Firewall, table: str, chain: str | None, numeric: bool) -> str:
    """`iptables -L [CHAIN] [-n]`: each chain's policy and rules in columns."""
    out: list[str] = []
    for name in [chain] if chain else list(wall.chains[table]):
        out.append(f"Chain {name} (policy {wall.policies[table][name]})")
        out.append(f"{'target':<10} {'prot':<4} {'opt':<3} {'source':<20} {'destination':<20} ")
        for rule in wall.chains[table][name]:
            anywhere = "0.0.0.0/0" if numeric else "anywhere"
            source = rule.source.removesuffix("/32") if rule.source else anywhere
            dest = rule.destination.removesuffix("/32") if rule.destination else anywhere
            extra = [f"{rule.protocol} spt:{_ports(rule.sport)}"] if rule.sport else []
            extra += [f"{rule.protocol} dpt:{_ports(rule.dport)}"] if rule.dport else []
            line = f"{rule.target:<10} {rule.protocol:<4} {'--':<3} {source:<20} {dest:<20} {' '.join(extra)}"
            out.append(line.rstrip())
        out.append("")
    return "\n".join(out[:-1]) + "\n"


def _ports(ports: tuple[int, int]) -> str:
    return str(ports[0]) if ports[0] == ports[1] else f"{ports[0]}:{ports[1]}"


@command("iptables")
async def iptables(inv: Invocation) -> int:
    """`iptables [-w [S]] [-t TABLE] -A|-I|-D|-F|-L|-S|-P ...` on the device's own tables."""
    try:
        return run_iptables(inv, list(inv.argv[1:]))
    except Usage as exc:
        inv.err(str(exc))
        return exc.status


def run_iptables(inv: Invocation, args: list[str]) -> int:
    table = "filter"
    numeric = False
    rest: list[str] = []
    while args:  # options that may come anywhere
        arg = args.pop(0)
        if arg in ("-w", "--wait"):
            if args and args[0].isdigit():
                args.pop(0)
        elif arg in ("-W", "--wait-interval"):
            _take(args, arg)
        elif arg in ("-t", "--table"):
            table = _take(args, arg)
        elif arg in ("-n", "--numeric", "-v", "--verbose"):
            numeric = numeric or arg in ("-n", "--numeric")
        else:
            rest.append(arg)
    if inv.uid != ROOT:
        raise Usage(
            f"{VERSION}: can't initialize iptables table `{table}': Permission denied (you must be root)\n"
            "Perhaps iptables or your kernel needs to be upgraded.\n",
            3,
        )
    wall = firewall(inv.device)
    if table not in wall.chains:
        raise Usage(
            f"{VERSION}: can't initialize iptables table `{table}': Table does not exist"
            " (do you need to insmod?)\n"
            "Perhaps iptables or your kernel needs to be upgraded.\n",
            3,
        )
    if not rest:
        raise Usage(f"{VERSION}: no command specified\n{HELP}")
    verb = rest.pop(0)
    chain = rest.pop(0) if rest and not rest[0].startswith("-") else None
    chains = wall.chains[table]
    if chain is not None and chain not in chains:
        inv.err(NO_CHAIN)
        return 1
    if verb in ("-L", "--list", "-S", "--list-rules") and not rest:
        if verb in ("-L", "--list"):
            inv.out(listing(wall, table, chain, numeric))
        else:
            for name in [chain] if chain else list(chains):
                inv.out(f"-P {name} {wall.policies[table][name]}\n")
            for name in [chain] if chain else list(chains):
                inv.out("".join(rule.spec(name) + "\n" for rule in chains[name]))
        return 0
    if verb in ("-F", "--flush") and not rest:
        for name in [chain] if chain else list(chains):
            chains[name].clear()
        return 0
    if chain is None:
        raise Usage(f'{VERSION}: option "{verb}" requires an argument\n{HELP}')
    if verb in ("-P", "--policy"):
        policy = rest[0] if len(rest) == 1 else ""
        if policy not in POLICIES:
            inv.err("iptables: Bad policy name. Run `dmesg' for more information.\n")
            return 1
        wall.policies[table][chain] = policy
        return 0
    if verb in ("-I", "--insert"):
        position = int(rest.pop(0)) if rest and rest[0].isdigit() else 1
        if not 1 <= position <= len(chains[chain]) + 1:
            inv.err("iptables: Index of insertion too big.\n")
            return 1
        chains[chain].insert(position - 1, parse_rule(rest))
        return 0
    if verb in ("-A", "--append"):
        chains[chain].append(parse_rule(rest))
        return 0
    if verb in ("-D", "--delete"):
        if len(rest) == 1 and rest[0].isdigit():
            index = int(rest[0])
            if not 1 <= index <= len(chains[chain]):
                inv.err("iptables: Index of deletion too big.\n")
                return 1
            del chains[chain][index - 1]
            return 0
        rule = parse_rule(rest)
        if rule not in chains[chain]:
            inv.err("iptables: Bad rule (does a matching rule exist in that chain?).\n")
            return 1
        chains[chain].remove(rule)
        return 0
    raise Usage(f'{VERSION}: unknown option "{verb}"\n{HELP}')
