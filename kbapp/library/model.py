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
from kbapp.chunking.tokens import estimate_tokens
from kbapp.embedding import Encoder, PackError, load_pack
from kbapp.embedding.pack import ModelPack
from kbapp.embedding.tokens import plain_tokenizer


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

    def token_counter(self) -> TokenCounter:
        """The pack's tokenizer (chunk budgets are in its tokens), or the estimate without a pack."""
        if self._counter is None:
            pack = self.pack()
            if pack is None:
                self._counter = estimate_tokens
            else:
                tok = plain_tokenizer(pack.tokenizer_path.read_text(encoding="utf-8"))
                self._counter = lambda text: len(tok.encode(text, add_special_tokens=False).ids)
        return self._counter

    def encoder(self) -> Encoder | None:
        pack = self.pack()
        if pack is None:
            return None
        with self._lock:
            if self._encoder is None:
                self._encoder = Encoder(pack)
            return self._encoder
