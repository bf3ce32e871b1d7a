"""The library's view of the embedding model: whether a pack is there, its tokenizer for chunk
budgets, and the encoder, loaded only when something needs vectors.

Loading the ONNX session takes a moment; the GUI does it in the background and keyword search
works meanwhile. A window also keeps the model out of its own process (``own_process``, see
``model_process``): loading the tokenizer holds the GIL (0.15 s for the small vocabulary of
``covered``, 0.37 s to most of a second for the full one) and keeps 146-282 MB. Without a pack at all,
chunk budgets fall back to a conservative estimate and search is keyword-only, with a message
that says so.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from kbapp.chunking.estimate import estimate_tokens
from kbapp.chunking.splitter import TokenCounter
from kbapp.embedding.model_process import ModelProcess, ModelProcessError, RemoteCounter, RemoteEncoder
from kbapp.embedding.pack import ModelPack, PackError, load_pack

if TYPE_CHECKING:
    from kbapp.embedding.encoder import Encoder
    from kbapp.embedding.tokens import TextTokenizer


class ModelHandle:
    def __init__(self, pack_dir: Path | None, *, own_process: bool = False) -> None:
        """``own_process``: run the tokenizer and the encoder in a child process."""
        self.pack_dir = pack_dir
        self._own_process = own_process
        self._pack: ModelPack | None = None
        self._encoder: Encoder | RemoteEncoder | None = None
        self._process: ModelProcess | None = None
        self._tokenizer: TextTokenizer | None = None
        self._counter: TokenCounter | None = None
        self._lock = threading.Lock()
        # Loading the encoder takes a second: ``pack()`` (asked by the window) must not wait for it.
        self._encoder_lock = threading.Lock()
        self._tokenizer_lock = threading.Lock()
        self.problem: str | None = None if pack_dir is not None else "no model pack configured"

    def pack(self) -> ModelPack | None:
        with self._lock:
            if self._pack is None and self.problem is None and self.pack_dir is not None:
                try:
                    self._pack = load_pack(self.pack_dir)
                    if self._own_process:
                        self._process = ModelProcess(self._pack)
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

    def _shared_tokenizer(self, pack: ModelPack) -> TextTokenizer:
        """One tokenizer for chunk budgets and the encoder: loading it holds the GIL."""
        with self._tokenizer_lock:
            if self._tokenizer is None:
                from kbapp.embedding.tokens import load_tokenizer  # tokenizers: when counting or embedding

                self._tokenizer = load_tokenizer(pack.tokenizer_path)
            return self._tokenizer

    def token_counter(self) -> TokenCounter:
        """The pack's tokenizer, or the estimate without a pack."""
        if self._counter is None:
            pack = self.pack()
            if pack is None:
                self._counter = estimate_tokens
            elif self._process is not None:
                self._counter = RemoteCounter(self._process)
            else:
                from kbapp.embedding.budget import counter_for

                self._counter = counter_for(self._shared_tokenizer(pack))
        return self._counter

    def encoder(self) -> Encoder | RemoteEncoder | None:
        """The loaded encoder; None without a pack, or when its process cannot load it (``problem``
        says why)."""
        pack = self.pack()
        if pack is None:
            return None
        with self._encoder_lock:
            if self._encoder is None and self._process is not None:
                if self.problem is not None:  # it failed to load once: not again at every search
                    return None
                try:
                    self._process.start()
                except ModelProcessError as err:
                    self.problem = str(err)
                    return None
                self._encoder = RemoteEncoder(self._process, pack)
            elif self._encoder is None:
                from kbapp.embedding.encoder import Encoder  # onnxruntime: only when vectors are wanted

                self._encoder = Encoder(pack, tokenizer=self._shared_tokenizer(pack))
            return self._encoder

    def close(self) -> None:
        """Stop the model's process, if it has one."""
        if self._process is not None:
            self._process.stop()
