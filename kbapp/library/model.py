"""The library's view of the embedding model: whether a pack is there, its tokenizer for chunk
budgets, and the encoder, loaded only when something needs vectors.

Loading the ONNX session takes a moment; the GUI does it in the background and keyword search
works meanwhile. Without a pack at all, chunk budgets fall back to a conservative estimate
and search is keyword-only, with a message that says so.
"""

from __future__ import annotations

import threading
from pathlib import Path

from kbapp.chunking.splitter import TokenCounter
from kbapp.embedding import Encoder, PackError, load_pack
from kbapp.embedding.pack import ModelPack
from kbapp.library.tokens import token_counter


class ModelHandle:
    def __init__(self, pack_dir: Path | None) -> None:
        self.pack_dir = pack_dir
        self._pack: ModelPack | None = None
        self._encoder: Encoder | None = None
        self._counter: TokenCounter | None = None
        self._lock = threading.Lock()
        self.problem: str | None = None if pack_dir is not None else "no model pack configured"

    def pack(self) -> ModelPack | None:
        with self._lock:
            if self._pack is None and self.problem is None and self.pack_dir is not None:
                try:
                    self._pack = load_pack(self.pack_dir)
                except PackError as err:
                    self.problem = str(err)
            return self._pack

    @property
    def available(self) -> bool:
        return self.pack() is not None

    def tokenizer_path(self) -> Path | None:
        """The verified pack's tokenizer file (chunk budgets are in its tokens), None without a pack."""
        pack = self.pack()
        return pack.tokenizer_path if pack is not None else None

    def token_counter(self) -> TokenCounter:
        """The pack's tokenizer, or the estimate without a pack."""
        if self._counter is None:
            self._counter = token_counter(self.tokenizer_path())
        return self._counter

    def encoder(self) -> Encoder | None:
        pack = self.pack()
        if pack is None:
            return None
        with self._lock:
            if self._encoder is None:
                self._encoder = Encoder(pack)
            return self._encoder
