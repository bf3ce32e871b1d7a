"""The library's view of the embedding model: whether a pack is there, its tokenizer for chunk
budgets, and the encoder, loaded only when something needs vectors.

Loading the ONNX session takes a moment; the GUI does it in the background and keyword search
works meanwhile. Without a pack at all, chunk budgets fall back to a conservative estimate
and search is keyword-only, with a message that says so.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from tokenizers import Tokenizer

from kbapp.chunking.estimate import estimate_tokens
from kbapp.chunking.splitter import TokenCounter
from kbapp.embedding.budget import counter_for, load_tokenizer
from kbapp.embedding.pack import ModelPack, PackError, load_pack

if TYPE_CHECKING:
    from kbapp.embedding.encoder import Encoder


class ModelHandle:
    def __init__(self, pack_dir: Path | None) -> None:
        self.pack_dir = pack_dir
        self._pack: ModelPack | None = None
        self._encoder: Encoder | None = None
        self._tokenizer: Tokenizer | None = None
        self._counter: TokenCounter | None = None
        self._lock = threading.Lock()
        self._tokenizer_lock = threading.Lock()
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

    def _shared_tokenizer(self, pack: ModelPack) -> Tokenizer:
        """One tokenizer for chunk budgets and the encoder: loading it holds the GIL for seconds."""
        with self._tokenizer_lock:
            if self._tokenizer is None:
                self._tokenizer = load_tokenizer(pack.tokenizer_path)
            return self._tokenizer

    def token_counter(self) -> TokenCounter:
        """The pack's tokenizer, or the estimate without a pack."""
        if self._counter is None:
            pack = self.pack()
            self._counter = counter_for(self._shared_tokenizer(pack)) if pack is not None else estimate_tokens
        return self._counter

    def encoder(self) -> Encoder | None:
        pack = self.pack()
        if pack is None:
            return None
        with self._lock:
            if self._encoder is None:
                from kbapp.embedding.encoder import Encoder  # onnxruntime: only when vectors are wanted

                self._encoder = Encoder(pack, tokenizer=self._shared_tokenizer(pack))
            return self._encoder
