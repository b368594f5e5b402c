"""Error analysis and the matrix mechanism / Privelet page."""
