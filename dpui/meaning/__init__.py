"""What ε means: neighbouring datasets and the privacy loss, computed exactly."""
