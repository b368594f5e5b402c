"""Paper experiments: the papers' sweeps recomputed, and the typed custom tree."""
