"""The preview pane: the cited PDF page rendered with highlights, or the document's text."""
