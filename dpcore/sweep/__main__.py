"""``python -m dpcore.sweep``: see :mod:`dpcore.sweep.cli`."""

import sys

from dpcore.sweep.cli import main

if __name__ == "__main__":
    sys.exit(main())
