"""The desktop window (PySide6) over ``kbapp.library.KnowledgeBase``.

Everything long (import, embedding, model loading, searching, listing the library) runs
through ``operations.Operation`` on a worker thread; widgets only ever see results delivered
back on the GUI thread. Start it with ``kbapp.gui.app.run``.
"""
