"""Benchmark sweeps: a grid of DPBench settings run on Dask, results kept in DuckDB.

- :mod:`dpcore.sweep.spec`: the sweep file (TOML) and its checks;
- :mod:`dpcore.sweep.cell`: one cell, a pure function of its parameters and seed;
- :mod:`dpcore.sweep.runner`: cells on a Dask cluster, written as they arrive;
- :mod:`dpcore.sweep.store`: the DuckDB file, its transactions and its readers;
- :mod:`dpcore.sweep.report`: read-only SQL summaries for the dashboard;
- :mod:`dpcore.sweep.cli`: ``dp-sweep`` / ``python -m dpcore.sweep``.
"""
