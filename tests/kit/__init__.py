"""The UI kit and the house rules: codecs, pin, limits, presentation, safe text, architecture."""
