"""Tree & budgets: the tree, its budgets and noise, the range explorer."""
