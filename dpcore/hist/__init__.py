"""Central differential privacy on 1-D histograms: interval trees, their budgets, Laplace
releases and BLUE consistency, exact errors of every algorithm, Privelet and the matrix
mechanism, optimised strategies."""
