"""The one error of ``dp-explorer serve``: what went wrong, said to the user."""


class ServeError(Exception):
    """A reason the class cannot be served (bad input, a port in use, HAProxy missing, a
    replica that did not start); its message says what was wrong and what is accepted. The
    command line prints it and exits with status 2, after stopping whatever it had started."""
