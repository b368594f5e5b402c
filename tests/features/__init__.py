"""Each feature's pages (AppTest), views and figure factories."""
