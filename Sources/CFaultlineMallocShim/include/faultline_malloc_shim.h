// Placeholder header.
