"""Load the served app like a class of students, without browsers: Streamlit's websocket
protocol (:mod:`tests.load.protocol`) driven by Locust (:mod:`tests.load.students`).
``python -m tests.load URL`` runs a class and prints what it measured as JSON (the suite's
load test runs it in a process of its own: Locust patches the sockets with gevent);
``bench/bench_class.py`` measures a class against ``dp-explorer serve``."""
