"""The ``kbapp`` command line: the same façade the GUI drives, for scripts, tests and the scorer."""
