"""Where a student's session spends the server's CPU on the bundled lesson's first steps
(issue 42, item 5).

Serves ``app.py`` alone (``tests/served_app.py``), opens the steps once (caches warm, as
after the lecturer's rehearsal), then lets ``--sessions`` students, one after another, open
the first ``--steps`` links through Streamlit's protocol (``tests/load/protocol.py``: a new
session, then each next link on it, as a lesson's Next). It prints each step's server CPU per
student (``/proc/<pid>/stat`` around each link) and, from py-spy's samples of the server
(``py-spy record``, active threads only), where that CPU goes:

- numerics: ``dpcore`` (cached results are not recomputed: what is left is per session);
- figure building: Plotly's objects (``plotly``), including the pages' figure factories;
- figure serialisation: ``st.plotly_chart`` turning the figure into its JSON spec;
- QR codes: ``segno``;
- messages: protobuf serialisation and hashing of the ``ForwardMsg``s;
- file watcher: Streamlit's watch of the app's modules (off for a class);
- after the run: Streamlit's garbage collection after every run (off for a class);
- script, other: the page runner, Streamlit's other elements, session state;
- server: the event loop, websockets, sessions starting and stopping, other threads.

The server runs with ``dp-explorer serve``'s options for a class
(:data:`dpui.serve.processes.CLASS_OPTIONS`); ``--streamlit-defaults`` profiles it without
them.

    python bench/profile_session.py                  # 10 students, the first 3 steps
    python bench/profile_session.py --steps 5 --sessions 20
    python bench/profile_session.py --streamlit-defaults

py-spy (``pip install py-spy``) must be allowed to read the server's memory (root, or
``ptrace_scope`` 0). Run it on an idle machine: samples missed under load are not counted.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from dpui.serve.processes import CLASS_OPTIONS  # noqa: E402  (after the path)
from tests.load.protocol import Tab  # noqa: E402
from tests.load.students import bundled, cpu_seconds  # noqa: E402
from tests.served_app import serve  # noqa: E402

CATEGORIES = (
    ("figure serialisation", ("streamlit/elements/plotly_chart.py",)),
    ("QR codes", ("segno/",)),
    ("messages", ("serialize_forward_msg", "populate_hash", "SerializeToString")),
    ("numerics", ("dpcore/",)),
    ("figure building", ("plotly/", "_plotly_utils/", "/figures.py")),
    ("file watcher", ("local_sources_watcher.py", "watchdog/", "path_watcher.py")),
    ("after the run (garbage collection)", ("ScriptRunner._on_script_finished (",)),
)
"""Each category and the frames (substrings of py-spy's ``function (file:line)``) that put
a sample in it; a sample goes to the category of its outermost matching frame."""

SCRIPT = "script_runner.py"

WAITS = (
    *("Selector.select (", "Condition.wait (", "Event.wait (", "path_watcher.py:90)"),
    "_worker (concurrent/futures/thread.py",
)
"""Leaf frames of a thread that waits (the event loop's ``select``, a lock, a watcher's
sleep, an idle worker of a thread pool): py-spy reports some of them as active, and they are
not counted, nor are samples without a Python frame."""


def category(frames: list[str]) -> str:
    """The category of one sample's stack (outermost frame first)."""
    for frame in frames:
        for name, marks in CATEGORIES:
            if any(mark in frame for mark in marks):
                return name
    return "script, other" if any(SCRIPT in f for f in frames) else "server"


def breakdown(raw: Path) -> collections.Counter[str]:
    """Samples per category in py-spy's raw output (``stack count`` per line), waits left
    out."""
    counts: collections.Counter[str] = collections.Counter()
    for line in raw.read_text(encoding="utf-8").splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if frames[-1] and not any(wait in frames[-1] for wait in WAITS):
            counts[category(frames)] += int(count)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=3, help="the bundled lesson's first steps")
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--rate", type=int, default=100, help="py-spy's samples per second")
    parser.add_argument(
        "--streamlit-defaults", action="store_true", help="without the options for a class"
    )
    parser.add_argument("--raw", type=Path, help="keep py-spy's samples there")
    args = parser.parse_args()
    spy = shutil.which("py-spy")
    if spy is None:
        sys.exit("py-spy is not installed: pip install py-spy")
    links = bundled(args.steps).links
    options = () if args.streamlit_defaults else CLASS_OPTIONS
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; options {options}")
    with serve(options=options) as (url, server), tempfile.TemporaryDirectory() as folder:
        rehearsal = Tab(url, timeout=120)
        for link in links:
            rehearsal.open(link)
        rehearsal.close()
        raw = args.raw or Path(folder) / "samples.txt"
        record = [spy, "record", "--pid", str(server.pid), "--rate", str(args.rate)]
        sampler = subprocess.Popen(
            [*record, "--format", "raw", "--nonblocking", "-o", str(raw)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        cpu: collections.defaultdict[str, float] = collections.defaultdict(float)
        try:
            for _ in range(args.sessions):
                tab = Tab(url, timeout=120)
                for link in links:
                    before = cpu_seconds([server.pid])
                    tab.open(link)
                    cpu[link] += cpu_seconds([server.pid]) - before
                tab.close()
        finally:
            sampler.send_signal(signal.SIGINT)
            sampler.wait(timeout=60)
        counts = breakdown(raw)
    print(f"\nserver CPU per student and step ({args.sessions} students, caches warm)")
    print("| step | CPU (s) |\n|---|---|")
    for link in links:
        print(f"| {link[:60]} | {cpu[link] / args.sessions:.3f} |")
    total = sum(cpu.values()) / args.sessions
    print(f"| all {len(links)} | {total:.3f} |")
    samples = sum(counts.values())
    print(f"\nwhere it goes ({samples} samples of the server's active threads)")
    print("| part | share | CPU per student (s) |\n|---|---|---|")
    for name, count in counts.most_common():
        print(f"| {name} | {count / samples:.0%} | {total * count / samples:.3f} |")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
