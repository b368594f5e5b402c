"""Cost of rejecting (and of accepting) large histogram uploads: wall time and peak memory.

Each case runs in a fresh subprocess so its peak RSS (``ru_maxrss``) is its own.
Issue 10 D's target: a rejected file costs < 2 s and < 300 MB over the interpreter's baseline.
Run: ``python bench/bench_upload.py``.
"""

from __future__ import annotations

import subprocess
import sys

CASES = {
    "64 MiB of '1\\n' (rejected: rows)": "b'1\\n' * (32 * 2**20 - 1)",
    "10^7 rows (rejected: rows)": "b'1\\n' * 10**7",
    "one 60 MiB line of '1,' (rejected: line)": "b'1,' * (30 * 2**20)",
    "2^22 rows, the limit (accepted)": "b'7\\n' * 2**22",
    "2^22 labelled rows (accepted)": "b''.join(b'bin%d,%d\\n' % (i, i % 9) for i in range(2**22))",
}

SCRIPT = """
import resource, time
from dpcore.histogram import HistogramError, parse_histogram
data = {expr}
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
try:
    outcome = f"accepted, {{parse_histogram(data).n_bins:,}} bins"
except HistogramError as err:
    outcome = "rejected: " + str(err)[:60]
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"{{seconds:.2f}}\\t{{(peak - base) / 1024:.0f}}\\t{{outcome}}")
"""


def main() -> None:
    print("case\tseconds\tpeak MB above input\toutcome")
    for name, expr in CASES.items():
        result = subprocess.run(
            [sys.executable, "-c", SCRIPT.format(expr=expr)],
            capture_output=True,
            text=True,
            check=True,
        )
        print(f"{name}\t{result.stdout.strip()}")


if __name__ == "__main__":
    main()
