"""The UI kit every page runs on: state and URL codecs, the page runner, pin and compare, work
limits and the byte cache, presentation mode, chart style, downloads and safe text."""
