"""A real headless Chromium against the served app."""
