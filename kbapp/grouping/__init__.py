"""Collections: named groups of documents that searches can be restricted to."""
