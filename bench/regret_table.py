"""One table of DPBench errors per dataset, the best of each row starred, and the regrets
(shared by bench_algorithms.py and bench_algorithms_2d.py)."""

from __future__ import annotations

from dpcore.algorithms.dpbench import regret


def print_error_rows(
    table: dict[str, dict[str, float]], names: list[str], unit: float, width: int = 12
) -> dict[str, list[float]]:
    """Print a header and one row per dataset (errors times ``unit``, ``*`` on the best);
    return every algorithm's regret per dataset, in row order."""
    print(f"{'dataset':12}" + "".join(f"{n:>{width}}" for n in names))
    regrets: dict[str, list[float]] = {n: [] for n in names}
    for dataset, row in table.items():
        best = min(row, key=row.__getitem__)
        cells = "".join(
            f"{row[n] * unit:>{width - 1}.4f}{'*' if n == best else ' '}" for n in names
        )
        print(f"{dataset:12}{cells}")
        for n, r in regret(row).items():
            regrets[n].append(r)
    return regrets
