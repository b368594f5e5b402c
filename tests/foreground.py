"""Starting a command as a terminal's foreground job would: Ctrl-C (SIGINT) reaches it."""

from __future__ import annotations

import signal


def ctrl_c_as_in_a_terminal() -> None:
    """In the child before it runs (``preexec_fn``): SIGINT's default action, as a terminal's
    foreground job has it. A suite started as a background job (``bash tests/run.sh &``)
    ignores SIGINT, and an ignored signal stays ignored in every child: the command then
    rightly ignored the test's Ctrl-C (found by the sweep runner's test failing in three such
    runs, the child's SigIgn showing SIGINT; and by ``dp-explorer serve``'s test waiting out
    its 30 s after SIGINT in a run whose worker had not, by chance, set a SIGINT handler of
    its own before: a caught signal is reset to the default in a child, an ignored one not)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
