"""Text normalisation and the keyword terms the index and the highlighter share."""
