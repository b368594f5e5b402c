"""Cost of rejecting (and of accepting) large uploads -- histograms and key-value CSVs.

Each case runs in fresh subprocesses: one timed run (also reporting the growth of the
maximum RSS, which hides allocations when building the input already peaked higher), and
for rejected files one run under tracemalloc for the peak of Python/numpy allocations
while parsing (tracemalloc slows the Python parser a lot, so accepted files skip it).
Issue 10 D's target: a rejected file costs < 2 s and < 300 MB.
Run: ``python bench/bench_upload.py``.
"""

from __future__ import annotations

import subprocess
import sys

HIST = "parse_histogram, HistogramError"
KV = "read_kv_csv, KVDataError"
CASES = {
    "64 MiB of '1\\n' (rejected: rows)": (HIST, "b'1\\n' * (32 * 2**20 - 1)", True),
    "10^7 rows (rejected: rows)": (HIST, "b'1\\n' * 10**7", True),
    "one 60 MiB line of '1,' (rejected: line)": (HIST, "b'1,' * (30 * 2**20)", True),
    "2^22 rows, the limit (accepted)": (HIST, "b'7\\n' * 2**22", False),
    "2^22 labelled rows (accepted)": (
        HIST,
        "b''.join(b'bin%d,%d\\n' % (i, i % 9) for i in range(2**22))",
        False,
    ),
    "KV: 60 MiB of 'u,k,1\\n' (rejected: rows)": (
        KV,
        "b'u,k,v\\n' + b'u,k,1\\n' * (10 * 2**20)",
        True,
    ),
    "KV: 2^21 pairs (accepted)": (
        KV,
        "b'user,key,value\\n' + b''.join(b'u%d,k%d,0.5\\n' % (i, i % 7) for i in range(2**21))",
        False,
    ),
}

SCRIPT = """
import resource, sys, time, tracemalloc
from dpcore.histogram import HistogramError, parse_histogram
from dpcore.ldp.data import KVDataError, read_kv_csv
parse, errors = {parser}
data = {expr}
traced = sys.argv[1] == "traced"
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if traced:
    tracemalloc.start()
start = time.perf_counter()
try:
    parse(data)
    outcome = "accepted"
except errors as err:
    outcome = "rejected: " + str(err)[:60]
seconds = time.perf_counter() - start
growth = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
if traced:
    print(f"{{tracemalloc.get_traced_memory()[1] / 2**20:.0f}}")
else:
    print(f"{{seconds:.2f}}\\t{{growth:.0f}}\\t{{outcome}}")
"""


def _run(parser: str, expr: str, mode: str) -> str:
    code = SCRIPT.format(parser=parser, expr=expr)
    result = subprocess.run(
        [sys.executable, "-c", code, mode], capture_output=True, text=True, check=True
    )
    return result.stdout.strip()


def main() -> None:
    print("case\tseconds\tmax RSS growth MiB\toutcome\ttraced peak MiB")
    for name, (parser, expr, rejected) in CASES.items():
        timed = _run(parser, expr, "timed")
        traced = _run(parser, expr, "traced") if rejected else "-"
        print(f"{name}\t{timed}\t{traced}")


if __name__ == "__main__":
    main()
