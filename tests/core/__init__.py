"""dpcore: brute-force and dense oracles, seeded simulations."""
