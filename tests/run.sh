#!/usr/bin/env bash
# Installs everything the test suite needs (Debian's chromium for the browser
# tests, Debian's haproxy for the serve command's, the package with its test
# extras) and runs the whole suite: lint, format check, type check, then
# pytest on parallel workers.
# Extra arguments go to pytest (e.g. `-m "not browser"`, or `-n 0` for one process).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi
# HAProxy for `dp-explorer serve`'s tests (tests/features/test_serve.py, the failover test);
# Debian puts it in /usr/sbin, which a user's PATH may lack
if ! command -v haproxy >/dev/null 2>&1 && [ ! -x /usr/sbin/haproxy ]; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq haproxy >/dev/null
fi

# playwright drives Debian's chromium; it must never fetch a browser of its own.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
python -m pip install -q --disable-pip-version-check -e ".[test]"

python -m ruff check .
python -m ruff format --check .
# mypy's incremental cache lives outside the checkout, so a fresh clone on a machine that
# has run the suite before checks only what changed (mypy validates each entry by its hash).
python -m mypy --cache-dir "${XDG_CACHE_HOME:-$HOME/.cache}/dp-explorer/mypy"
echo "install, lint and type check: ${SECONDS} s"

# Bytecode caches on, whatever the environment says (this machine's image sets
# PYTHONDONTWRITEBYTECODE): the run starts many Python processes (four workers, the apps
# they serve, Dask's workers, the CLIs under test) that import the same modules, and
# pytest caches its rewritten test modules only when bytecode may be written. Compiled once
# here on both cores, four workers' collection took 17.9 s instead of 21.7 s on a fresh clone.
unset PYTHONDONTWRITEBYTECODE
python -m compileall -q -j 0 dpcore dpui tests app.py app_server.py pages >/dev/null

# Four workers on two cores: a browser test waits for its server and its browser in turn,
# so two workers per core keep both cores busy; four measured faster than three (README,
# "Tests"). DP_TEST_WORKERS overrides the count.
python -m pytest -n "${DP_TEST_WORKERS:-4}" --dist worksteal "$@"
