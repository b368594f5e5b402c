"""The "Audit a mechanism" page: lower bounds on ε from a mechanism's runs (dpcore.audit)."""
