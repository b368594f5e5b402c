"""Serving a class: ``dp-explorer serve`` runs several app processes behind HAProxy.

One Streamlit process runs one core of Python, so a class is served by N processes
(*replicas*) on loopback ports and HAProxy in front, which keeps each browser on its replica
with a cookie (a Streamlit session lives in one process) and sends a browser whose replica
died to another one. :mod:`~dpui.serve.haproxy` writes and checks HAProxy's configuration,
:mod:`~dpui.serve.processes` starts, watches and stops the processes,
:mod:`~dpui.serve.cli` is the command line, and :mod:`~dpui.serve.reconnect` is the page's
script that reloads a page whose replica died on its new one. Nothing here imports
Streamlit.
"""
