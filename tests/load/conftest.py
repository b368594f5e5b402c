"""The load generator's Locust modules are not collected for doctests: importing Locust
patches the standard library's sockets and threads with gevent for the whole process (the
xdist workers then crashed at start); the load test runs Locust in a process of its own."""

collect_ignore = ["students.py", "followers.py", "__main__.py"]
