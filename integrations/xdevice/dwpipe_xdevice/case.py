"""What a dwpipe test case asks for, and what its audit said: pure functions, no xdevice.

A case's JSON names the driver and its options:

    {"driver": {"type": "dwpipe", "pack": "pack.lock.json", "args": ["--runs", "5"],
                "timeout": 3600},
     "environment": [{"type": "device", "label": "phone"}]}

`pack` is read relative to the case's folder (a task's project moves to the worker), `args`
are added to `dwpipe audit`, `timeout` (seconds, default 3600) bounds the audit. Each entry of
`environment` is one device xdevice allocates; all of them are audited as one lab.
"""

import os
import shlex
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

DRIVER_TYPE = "dwpipe"
# hdc's own server, which dwpipe reaches without `--server`.
DEFAULT_SERVER = "127.0.0.1:8710"
KNOWN_KEYS = {"type", "pack", "args", "timeout"}


class CaseError(Exception):
    """A case that cannot be run as written, or an audit that left no result: the case is
    reported as not run, with this message, never as passed."""


@dataclass
class Case:
    pack: str
    args: List[str] = field(default_factory=list)
    timeout: int = 3600

    @staticmethod
    def from_driver(driver: dict, case_file: str) -> "Case":
        unknown = sorted(set(driver) - KNOWN_KEYS)
        if unknown:
            raise CaseError(
                f"{case_file}: unknown driver option(s) {', '.join(unknown)}; "
                f"a dwpipe case takes {', '.join(sorted(KNOWN_KEYS - {'type'}))}")
        pack = driver.get("pack")
        if not isinstance(pack, str) or not pack:
            raise CaseError(f"{case_file}: driver.pack must name the frozen pack (pack.lock.json)")
        pack = os.path.join(os.path.dirname(os.path.abspath(case_file)), pack)
        if not os.path.isfile(pack):
            raise CaseError(f"{case_file}: driver.pack {pack} is not a file; freeze the pack "
                            "(`dwpipe freeze pack.yaml`) and keep the lock beside the case")
        args = driver.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise CaseError(f"{case_file}: driver.args must be a list of strings")
        timeout = driver.get("timeout", 3600)
        if isinstance(timeout, str) and timeout.isdigit():
            timeout = int(timeout)
        if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout <= 0:
            raise CaseError(f"{case_file}: driver.timeout must be a number of seconds")
        return Case(pack=pack, args=list(args), timeout=timeout)


def allocated(environment: str) -> List[Tuple[str, str]]:
    """The devices a cluster's controller allocated to a block: the `<info sn ip port>` of the
    environment a worker runs the block with (`run -env …`), as (connect key, HOST:PORT).

    A worker's block runs in a process forked from the worker, whose own device pool it
    inherits: xdevice 6.0.7.210 then allocates the case's devices from that pool, not from the
    controller's choice, so two blocks on one worker can be given the same phone. The
    controller is the only one that sees every block, so its choice is the one audited."""
    if not environment.strip():
        return []
    try:
        root = ElementTree.fromstring(environment)
    except ElementTree.ParseError as e:
        raise CaseError(f"the environment xdevice ran the case with is not XML: {e}") from e
    return [(info.get("sn", ""), f"{info.get('ip') or '127.0.0.1'}:{info.get('port') or '8710'}")
            for info in root.iter("info") if info.get("sn")]


def audit_argv(dwpipe: str, case: Case, devices: Sequence[Tuple[str, str]], out: str,
               extra: str = "") -> List[str]:
    """`dwpipe audit` of `devices` (connect key, hdc server HOST:PORT) as one lab into `out`.
    `extra` is the worker's own options (`DWPIPE_XDEVICE_ARGS`, split as a shell would, never
    run by one), for what every case of a lab shares: `--history postgres://…`."""
    if not devices:
        raise CaseError("xdevice allocated no device to this case")
    argv = [dwpipe, "audit", "--pack", case.pack, "--lab", "--out", out]
    for serial, _ in devices:
        argv += ["--device", serial]
    servers = sorted({server for _, server in devices})
    # dwpipe reaches the default server by itself; others are named, and then all of them.
    if servers != [DEFAULT_SERVER]:
        for server in servers:
            argv += ["--server", server]
    return argv + shlex.split(extra) + case.args


# A JUnit testcase's outcome, as xdevice has them: a failure failed; an error (the device could
# not be audited) is blocked; a skip — what dwpipe's JUnit says of a criterion that does not
# decide the verdict (not measured, unverified, a `should` that failed while the musts held) —
# is skipped ("ignored" in xdevice's summary), its message saying which. None of them passed.
PASSED, FAILED, BLOCKED, SKIPPED = "passed", "failed", "blocked", "skipped"
OUTCOMES = {"failure": FAILED, "error": BLOCKED, "skipped": SKIPPED}


@dataclass
class Result:
    test_class: str
    test_name: str
    outcome: str
    message: str = ""
    millis: float = 0.0


def read_lab_junit(path: str) -> List[Result]:
    """The criteria of a dwpipe lab's `lab-junit.xml`, one result per criterion and device."""
    if not os.path.isfile(path):
        raise CaseError(f"the audit wrote no {os.path.basename(path)}: see its log")
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError as e:
        raise CaseError(f"{path}: not XML: {e}") from e
    if root.tag != "testsuites" or root.get("name") != "dwpipe":
        raise CaseError(f"{path}: not a dwpipe JUnit report")
    results = []
    for case in root.iter("testcase"):
        outcome, message = PASSED, ""
        for child in case:
            if child.tag in OUTCOMES:
                outcome = OUTCOMES[child.tag]
                text = (child.text or "").strip()
                message = "\n".join(m for m in (child.get("message", ""), text) if m)
                break
        results.append(Result(
            test_class=case.get("classname", ""),
            test_name=case.get("name", ""),
            outcome=outcome,
            message=message,
            millis=seconds(case.get("time")) * 1000,
        ))
    if not results:
        raise CaseError(f"{path}: the audit reported no criterion")
    return results


def seconds(text: Optional[str]) -> float:
    try:
        return max(float(text or 0), 0.0)
    except ValueError:
        return 0.0
