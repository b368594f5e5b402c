#!/usr/bin/env bash
# Installs everything the test suite needs (Debian's chromium for the browser
# test, the package with its test extras) and runs the whole suite:
# lint, format check, type check, then pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi

# playwright drives Debian's chromium; it must never fetch a browser of its own.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
python -m pip install -q --disable-pip-version-check -e ".[test]"

python -m ruff check .
python -m ruff format --check .
python -m mypy
python -m pytest "$@"
