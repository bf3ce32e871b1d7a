"""The import pipeline: from what the user dropped to documents, passages and vectors in the library.

Discovery turns files and folders into a list of files; reading (in parse worker processes, with
time and memory limits) turns each into pages and passages; the importer decides what a file needs
and what is written for it, beside a kept copy; the import run goes through a journaled job,
reading ahead and writing small documents in groups (one transaction each); the embedding job then
gives the new passages their vectors. The modules are imported one by one, so the parse worker
process loads only what reading needs.
"""
