from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from kbapp.ocr.models import locate_models
from kbapp.ocr.streamline import streamlined


@pytest.mark.parametrize(
    ("which", "shape"), [("recogniser", (2, 3, 48, 400)), ("detector", (1, 3, 320, 256))]
)
def test_the_streamlined_models_compute_what_the_pinned_ones_do(which: str, shape: tuple[int, ...]) -> None:
    path = getattr(locate_models(), which)
    data = streamlined(path)
    before = [node.op_type for node in onnx.load(str(path)).graph.node]
    after = [node.op_type for node in onnx.load_from_string(data).graph.node]
    assert after.count("Clip") == 0 < before.count("Clip")  # every hard-swish was fused
    assert after.count("Mul") < before.count("Mul") and after.count("Conv") == before.count("Conv")
    options = ort.SessionOptions()
    options.log_severity_level = 3
    original = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    rewritten = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    name = original.get_inputs()[0].name
    x = np.random.default_rng(0).uniform(-1, 1, shape).astype(np.float32)
    want, got = original.run(None, {name: x})[0], rewritten.run(None, {name: x})[0]
    np.testing.assert_allclose(got, want, atol=1e-4)
    if which == "recogniser":
        assert (got.argmax(-1) == want.argmax(-1)).all()
