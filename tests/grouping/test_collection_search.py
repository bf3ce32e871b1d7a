"""Search restricted to collections: never a passage from outside them, in every mode, and the
vector path keeps its top-k quality when restricted (measured against brute force)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kbapp.embedding import default_pack_dir
from kbapp.index.vector_index import VectorIndex
from kbapp.library import KnowledgeBase
from kbapp.store.collections import CollectionError
from tests.index.test_vector_index import DIM, brute_force, clustered

needs_pack = pytest.mark.skipif(
    not (default_pack_dir() / "manifest.json").is_file(), reason="no model pack (set KBAPP_MODEL_DIR)"
)

PUMPS = {
    "p40.txt": "Pump P-40 service manual\n\nCheck the impeller of the P-40 pump every 500 operating hours. "
    "Replace the mechanical seal when it leaks. Error E12 means the motor overheated.",
    "p60.txt": "Pump P-60 manual\n\nThe P-60 pump needs fresh bearing grease every 2000 hours. "
    "If the pump vibrates, check the coupling alignment and the impeller balance.",
    "p60_zh.txt": "P-60 水泵说明书\n\n每运行2000小时给轴承加注润滑脂。水泵振动时检查联轴器对中和叶轮平衡。",
}
VALVES = {
    "v7.txt": "Valve V-7 manual\n\nReplace the sealing ring of valve V-7 once a year. Error E12 means the "
    "actuator did not reach its end position. Lubricate the stem every 500 hours.",
    "v9.txt": "Valve V-9 manual\n\nThe V-9 control valve leaks when its packing is worn; tighten the "
    "packing nut a quarter turn. Check the actuator air supply at 6 bar.",
    "v9_zh.txt": "V-9 调节阀说明书\n\n填料磨损时调节阀会泄漏，请将填料压盖螺母拧紧四分之一圈。"
    "执行器气源压力为6巴。",
}
QUERIES = [
    "error E12",
    "how often to grease the bearings",
    "what to do when it leaks",
    "replace the seal",
    "每运行多少小时维护",
    "振动",
    "actuator air supply pressure",
    "impeller",
]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("collections")
    for folder, files in (("pumps", PUMPS), ("valves", VALVES)):
        (root / folder).mkdir()
        for name, text in files.items():
            (root / folder / name).write_text(text, encoding="utf-8")
    with KnowledgeBase(root / "lib", parse_limits=None) as kb:
        kb.sources.add(root / "pumps", collection="Pumps")
        kb.sources.add(root / "valves", collection="Valves")
        assert kb.sources.sync().ok
        kb.embed_pending()
        yield kb


def _names(kb: KnowledgeBase, name: str) -> set[str]:
    return {Path(d.path).name for d in kb.documents() if name in kb.collections.memberships().get(d.id, [])}


@needs_pack
@pytest.mark.parametrize("mode", ["lexical", "dense", "hybrid"])
def test_restricted_search_stays_inside_the_collection(library: KnowledgeBase, mode: str) -> None:
    kb = library
    assert kb.pending_embeddings() == 0
    assert _names(kb, "Pumps") == set(PUMPS) and _names(kb, "Valves") == set(VALVES)
    found_inside = 0
    for query in QUERIES:
        everywhere = {Path(r.path).name for r in kb.search(query, k=10, mode=mode).results}
        for collection, members in (("Pumps", PUMPS), ("Valves", VALVES)):
            response = kb.search(
                query, k=10, mode=mode, document_ids=kb.collections.restrict(None, [collection])
            )
            names = {Path(r.path).name for r in response.results}
            assert names <= set(members), (mode, query, collection, names)
            if response.results:
                found_inside += 1
            else:  # "nothing relevant" is decided within the collection, and says so
                assert response.message
            assert names <= everywhere | set(members)
        both = kb.search(
            query, k=10, mode=mode, document_ids=kb.collections.restrict(None, ["Pumps", "Valves"])
        )
        assert {Path(r.path).name for r in both.results} <= set(PUMPS) | set(VALVES)
    assert found_inside >= len(QUERIES)  # most questions find something in at least one collection


@needs_pack
def test_collection_and_document_filters_combine(library: KnowledgeBase) -> None:
    kb = library
    valve_ids = [d.id for d in kb.documents() if Path(d.path).name in VALVES]
    pump_ids = [d.id for d in kb.documents() if Path(d.path).name in PUMPS]
    assert not kb.search(
        "error E12", mode="hybrid", document_ids=kb.collections.restrict(valve_ids, ["Pumps"])
    ).results
    hits = kb.search(
        "error E12", mode="hybrid", document_ids=kb.collections.restrict(pump_ids + valve_ids, ["Pumps"])
    )
    assert {Path(r.path).name for r in hits.results} <= set(PUMPS)
    with pytest.raises(CollectionError, match="no collection named 'Motors'"):
        kb.collections.restrict(None, ["Motors"])


@pytest.mark.parametrize("kind", ["flat", "ivf"])
def test_restricted_vector_search_keeps_its_recall(kind: str) -> None:
    """A collection is topic-shaped (one machine's manuals): vectors from a few clusters. The restricted
    search must find the exact restricted top 10 as well as the unrestricted one finds its own."""
    n, centres = 20_000, 64
    rng = np.random.default_rng(7)
    middle = rng.standard_normal((centres, DIM))
    topic = rng.integers(0, centres, n)
    x = middle[topic] + 0.6 * rng.standard_normal((n, DIM))
    x = (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float16).astype(np.float32)
    ids = np.arange(1, n + 1, dtype=np.int64)
    index = VectorIndex(DIM, kind, VectorIndex.lists_for(n) if kind == "ivf" else 0)
    if index.training_size:
        index.train(x[rng.choice(n, index.training_size, replace=False)])
    index.add(ids, x)
    queries = clustered(50, seed=8, centres=centres)

    def recall(allowed: np.ndarray | None) -> float:
        pick = np.isin(ids, allowed) if allowed is not None else np.ones(n, bool)
        found = [
            len({i for i, _ in index.search(q, 10, allowed)} & set(brute_force(x[pick], ids[pick], q, 10)))
            for q in queries
        ]
        return float(np.mean(found)) / 10

    unrestricted = recall(None)
    topical = recall(ids[np.isin(topic, [3, 17, 40, 51])])  # ~6% of the library, four topics
    scattered = recall(np.sort(rng.choice(ids, n // 10, replace=False)))  # 10%, every topic
    print(f"\n{kind} recall@10: unrestricted {unrestricted:.3f}, topical {topical:.3f}, 10% {scattered:.3f}")
    assert topical >= unrestricted - 0.02 and scattered >= unrestricted - 0.02
    if kind == "flat":
        assert unrestricted == topical == scattered == 1.0
