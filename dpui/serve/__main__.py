"""``python -m dpui.serve [options]``: the same as ``dp-explorer serve [options]``."""

import sys

from dpui.serve.cli import main

sys.exit(main(["serve", *sys.argv[1:]]))
