"""Encoder behaviour a caller relies on: meaning, order, long inputs, progress and cancel."""

from __future__ import annotations

import numpy as np
import pytest

from kbapp.contract import Cancelled
from kbapp.embedding.encoder import Encoder
from kbapp.embedding.tokens import Windower

EXPOSURE_EN = (
    "Exposure time is how long the camera sensor is exposed to light; longer exposures make brighter images."
)
UNRELATED_EN = "The dishwasher's upper rack can be raised or lowered to fit tall plates."


def test_basic_shape_and_norm(encoder: Encoder):
    assert encoder.pack_id == "multilingual-e5-small-q4@1"
    assert encoder.dimension == 384
    vectors = encoder.embed_passages(["a", "b c", ""])
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    query = encoder.embed_query("hello")
    assert query.shape == (384,)
    assert encoder.embed_passages([]).shape == (0, 384)


def test_questions_embedded_in_one_batch_are_each_as_if_embedded_alone(encoder: Encoder):
    # A Chinese question and its English reading go to the model together (``search.reading``):
    # the shorter one is padded, and padding must not move it.
    questions = ["图像太暗怎么办？", "image picture too dark dim what do"]
    together = encoder.embed_queries(questions)
    for row, question in zip(together, questions, strict=True):
        np.testing.assert_allclose(row, encoder.embed_query(question), atol=1e-5)


def test_cross_lingual_query(encoder: Encoder):
    passages = encoder.embed_passages([UNRELATED_EN, EXPOSURE_EN])
    scores = passages @ encoder.embed_query("曝光时间")
    assert scores[1] > scores[0] + 0.05, scores
    zh = encoder.embed_passages(["洗碗机的上层碗篮可以升高或降低。", "曝光时间是相机传感器感光的时长。"])
    scores = zh @ encoder.embed_query("how long is the exposure time")
    assert scores[1] > scores[0] + 0.05, scores


def test_query_and_passage_prefixes_differ(encoder: Encoder):
    assert float(encoder.embed_query("曝光时间") @ encoder.embed_passages(["曝光时间"])[0]) < 0.999


def test_results_come_back_in_input_order(encoder: Encoder, mixed_sentences):
    together = encoder.embed_passages(mixed_sentences, batch_size=4)
    reversed_ = encoder.embed_passages(mixed_sentences[::-1], batch_size=4)[::-1]
    assert np.sum(together * reversed_, axis=1).min() >= 0.99999


def test_count_tokens_excludes_prefix_and_specials(encoder: Encoder, e5_tokenizer):
    for text in ["曝光时间", "Hello world, this is a test.", "def f(x): return x"]:
        full = len(e5_tokenizer.encode("passage: " + text).ids)
        assert encoder.count_tokens(text) == full - 2 - 2  # <s> </s>, "▁passage" ":"
    assert encoder.max_passage_tokens == 512 - 2 - 2


def test_windows_fit_the_model(e5_tokenizer):
    windower = Windower(e5_tokenizer, max_tokens=512, bos=0, eos=2)
    head = windower.prefix_ids("passage: ")
    budget = windower.body_budget("passage: ")
    assert budget == 508

    def words(n: int) -> str:
        return " ".join(["word"] * n)  # n tokens: "▁word" each

    [exact] = windower.windows([words(budget)], "passage: ")
    assert [len(w) for w in exact] == [512]
    assert exact[0] == e5_tokenizer.encode("passage: " + words(budget)).ids  # the standard encoding

    [over] = windower.windows([words(budget + 1)], "passage: ")
    assert [len(w) for w in over] == [512, 2 + len(head) + 1]

    [many] = windower.windows([words(1200)], "passage: ")
    assert len(many) == 3
    for window in many:
        assert window[: 1 + len(head)] == [0, *head]
        assert window[-1] == 2


def test_long_input_is_windowed_like_the_reference(encoder: Encoder, e5_reference, e5_tokenizer):
    text = " ".join(
        f"Section {i}: the exposure time of sensor {i % 7} is {i} ms. 曝光时间为{i}毫秒。" for i in range(60)
    )
    assert encoder.count_tokens(text) > 1000
    [got] = encoder.embed_passages([text])
    windower = Windower(e5_tokenizer, max_tokens=512, bos=0, eos=2)
    [windows] = windower.windows([text], "passage: ")
    assert len(windows) >= 3
    pooled = sum(len(w) * e5_reference.hidden_states(w).mean(axis=0) for w in windows)
    expected = pooled / np.linalg.norm(pooled)
    assert float(got @ expected) >= 0.9995
    assert float(got @ encoder.embed_query("曝光时间")) > 0.75


def test_progress_reports_texts_done(encoder: Encoder):
    texts = [f"passage number {i}" for i in range(10)] + ["word " * 700]
    calls: list[tuple[int, int]] = []
    encoder.embed_passages(texts, batch_size=3, progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (11, 11)
    assert all(total == 11 for _, total in calls)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def test_cancel_stops_between_batches(encoder: Encoder):
    texts = [f"text {i}" for i in range(40)]
    batches_run = []

    def cancel() -> bool:
        return len(batches_run) >= 2

    with pytest.raises(Cancelled):
        encoder.embed_passages(
            texts, batch_size=8, cancel=cancel, progress=lambda done, total: batches_run.append(done)
        )
    assert len(batches_run) == 2
