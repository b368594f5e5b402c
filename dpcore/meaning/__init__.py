"""What ε means, computed exactly: neighbouring datasets and the privacy loss."""
