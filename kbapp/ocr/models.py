"""Where the OCR models come from: the hash-pinned ``rapidocr-onnxruntime`` wheel, checked on load.

Only the wheel's ONNX files are used, never its Python code (which would pull in OpenCV), so the
package is installed with ``--no-deps`` and located without being imported. The files are
hash-checked before a session is built, so a swapped or truncated model fails with a clear error
instead of producing silent garbage.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path

MODEL_DIR_ENV = "KBAPP_OCR_MODEL_DIR"
PACKAGE = "rapidocr_onnxruntime"
DETECTOR_FILE = "ch_PP-OCRv4_det_infer.onnx"
RECOGNISER_FILE = "ch_PP-OCRv4_rec_infer.onnx"
SHA256 = {
    DETECTOR_FILE: "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9",
    RECOGNISER_FILE: "48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b",
}


class OcrModelError(RuntimeError):
    """The OCR models are missing or are not the files we pinned."""


@dataclass(frozen=True, slots=True)
class OcrModels:
    detector: Path
    recogniser: Path


def model_dir() -> Path:
    """``$KBAPP_OCR_MODEL_DIR``, else ``models/ocr`` in a frozen app's bundle, else the installed wheel's."""
    override = os.environ.get(MODEL_DIR_ENV)
    if override:
        return Path(override)
    bundle = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and bundle:
        return Path(bundle) / "models" / "ocr"
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise OcrModelError(
            f"OCR models not installed: install {PACKAGE} (see packaging/ocr-models.txt) "
            f"or set {MODEL_DIR_ENV}"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "models"


def locate_models(directory: Path | None = None, *, verify: bool = True) -> OcrModels:
    root = directory or model_dir()
    paths = {name: root / name for name in SHA256}
    for name, path in paths.items():
        if not path.is_file():
            raise OcrModelError(f"OCR model missing: {path}")
        if verify and _sha256(path) != SHA256[name]:
            raise OcrModelError(f"OCR model {path} is not the pinned file (sha256 mismatch)")
    return OcrModels(detector=paths[DETECTOR_FILE], recogniser=paths[RECOGNISER_FILE])


def models_problem() -> str | None:
    """Why OCR cannot run here (its models missing or not the pinned files), None when it can: asked
    before an OCR run, so scanned pages wait for the models instead of each failing for want of them."""
    try:
        locate_models()
    except OcrModelError as error:
        return str(error)
    return None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
