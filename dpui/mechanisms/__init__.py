"""The Laplace and exponential mechanism pages."""
