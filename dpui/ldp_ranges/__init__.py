"""The "Range queries under local DP" page: view, figures, declaration."""
