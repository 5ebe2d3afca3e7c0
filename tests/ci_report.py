"""Where a test run's time went, from cargo-nextest's JUnit report.

Usage: python3 tests/ci_report.py target/nextest/default/junit.xml [slowest] [timings.html]

Prints, per test binary, its number of tests, the seconds its tests took added up, and
the wall-clock span from its first test's start to its last test's end (binaries run side
by side, so spans overlap); then the slowest tests with their seconds, and last the counts
in the plain form `tests: N passed, N failed`.
"""

import json
import re
import sys
import xml.etree.ElementTree as ET
from datetime import datetime


def when(stamp):
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def build_units(timings, most=10):
    """The longest compilations of cargo's `--timings` report."""
    text = open(timings, encoding="utf-8").read()
    found = re.search(r"const UNIT_DATA = (\[.*?\]);\n", text, re.S)
    if not found:
        return
    units = json.loads(found.group(1))
    total = sum(u["duration"] for u in units)
    print(f"Build: {len(units)} units, {total:.0f} s of compiling; the {most} longest:")
    for u in sorted(units, key=lambda u: -u["duration"])[:most]:
        target = u.get("target", "").strip()
        print(f"{u['duration']:>8.1f} s  {u['name']} {target}")
    print()


def main():
    path = sys.argv[1]
    slowest = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    if len(sys.argv) > 3 and sys.argv[3]:
        build_units(sys.argv[3])
    root = ET.parse(path).getroot()
    cases = []
    print(f"{'binary':<34} {'tests':>5} {'test-seconds':>12} {'span-seconds':>12}")
    for suite in root.iter("testsuite"):
        binary = suite.get("name", "?")
        times, starts, ends = [], [], []
        for case in suite.iter("testcase"):
            secs = float(case.get("time", "0"))
            times.append(secs)
            failed = case.find("failure") is not None or case.find("error") is not None
            cases.append((secs, binary, case.get("name", "?"), failed))
            if case.get("timestamp"):
                start = when(case.get("timestamp"))
                starts.append(start)
                ends.append(start + secs)
        span = max(ends) - min(starts) if starts else 0.0
        print(f"{binary:<34} {len(times):>5} {sum(times):>12.1f} {span:>12.1f}")
    print()
    print(f"The {slowest} slowest tests:")
    for secs, binary, name, failed in sorted(cases, reverse=True)[:slowest]:
        mark = "  FAILED" if failed else ""
        print(f"{secs:>8.1f} s  {binary} {name}{mark}")
    failed = sum(1 for case in cases if case[3])
    print()
    print(f"tests: {len(cases) - failed} passed, {failed} failed")


if __name__ == "__main__":
    main()
