"""What scoring one 100-hand test costs a worker (a script, not a test).

The scoring task (games.practice_test_score) analyses each of the test's
hands exactly (every setting against every opponent hand, solo) unless its
suit class's analysis is stored already; this times that engine work, in one
process: the first test after the tables are read, then ``--tests`` more
(each a different test number, 100 hands). The database writes (about 100
cache rows and one bulk update) are left out: they are not where the time goes.

    .venv/bin/python benchmarks/practice_test.py [--tests 3]

The machine's load average is printed before and after: other work on the
two cores moves these numbers.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from games.engine import canonical, exact, test_hands


def score_seconds(number: int) -> tuple[float, float, int]:
    """Wall and CPU seconds to analyse test ``number``'s hands (each class once)."""
    classes = {canonical(hand)[0] for hand in test_hands(number)}
    wall, cpu = time.perf_counter(), time.process_time()
    for representative in classes:
        exact(representative, mode="solo", side="player")
    return time.perf_counter() - wall, time.process_time() - cpu, len(classes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tests", type=int, default=3)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    started = time.process_time()
    exact(test_hands(1)[0], mode="solo")
    print(f"first analysis in the process (tables read): {time.process_time() - started:.2f} s CPU")
    for number in range(1, args.tests + 1):
        wall, cpu, classes = score_seconds(number)
        print(f"test {number}: {classes} classes, {wall:.2f} s wall, {cpu:.2f} s CPU "
              f"({cpu / classes * 1000:.0f} ms a hand)")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
