"""Overview, Glossary and References: the teaching text every page links to."""
