"""The CLI contract the scorer relies on, run as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from kbapp.embedding.pack import ModelPack

SAMPLE_LIBRARY = Path(__file__).resolve().parents[2] / "resources" / "sample_library"


def kbapp(data: Path, *args: str, input_text: str | None = None) -> subprocess.CompletedProcess[str]:
    """The command as a script runs it: output to a pipe is block-buffered, so what the command
    printed last reaches the pipe only if it is flushed before the process ends (this workplace
    sets PYTHONUNBUFFERED, which would hide that)."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    return subprocess.run(
        [sys.executable, "-m", "kbapp", "--data-dir", str(data), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        input=input_text,
        timeout=300,
        env=env,
    )


def test_import_search_docs_remove_verify(tmp_path: Path, sample_folder: Path) -> None:
    data = tmp_path / "lib"
    bad = sample_folder / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4\n" + bytes(range(256)) * 8)
    run = kbapp(data, "import", str(sample_folder))
    assert run.returncode == 1, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert any(line.startswith("FAILED") and "broken.pdf" in line for line in lines)
    assert sum(line.startswith("IMPORTED") for line in lines) == 5

    run = kbapp(data, "search", "曝光时间", "--mode", "lexical", "--json", "--top-k", "3")
    assert run.returncode == 0, run.stderr
    [obj] = [json.loads(line) for line in run.stdout.splitlines()]
    assert obj["query"] == "曝光时间"
    assert 1 <= len(obj["results"]) <= 3
    for rank, r in enumerate(obj["results"], start=1):
        assert r["rank"] == rank and r["citation"] >= 1
        assert {
            "doc_id",
            "path",
            "title",
            "page",
            "heading",
            "text",
            "highlights",
            "score",
            "why",
        } <= r.keys()
        for s, e in r["highlights"]:
            assert 0 <= s <= e <= len(r["text"])

    queries = tmp_path / "q.jsonl"
    queries.write_text(
        "\n".join(
            json.dumps({"id": i, "text": t}, ensure_ascii=False)
            for i, t in [("a", "E5021"), ("b", "联轴器"), ("c", "zebra giraffe")]
        )
        + "\n"
        + json.dumps({"id": "d", "text": "E5021 \ud800"}),  # a lone surrogate, as a JSON escape
        encoding="utf-8",
    )
    run = kbapp(data, "search", "--queries", str(queries), "--json", "--mode", "lexical")
    out = [json.loads(line) for line in run.stdout.splitlines()]
    assert [o["query_id"] for o in out] == ["a", "b", "c", "d"]
    assert out[2]["results"] == [] and "Nothing" in out[2]["message"]
    # The lone surrogate is echoed as asked, and the question still answered.
    assert out[3]["query"] == "E5021 \ud800" and out[3]["results"]
    assert all(isinstance(o["took_ms"], float) for o in out)

    # A reader that stops early (``| head``) ends the output quietly, as other commands do.
    queries.write_text(
        "\n".join(json.dumps({"id": i, "text": "E5021"}) for i in range(2000)), encoding="utf-8"
    )
    command = [
        sys.executable,
        "-m",
        "kbapp",
        "--data-dir",
        str(data),
        "search",
        "--queries",
        str(queries),
        "--json",
    ]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as reader:
        assert reader.stdout is not None and reader.stderr is not None
        assert json.loads(reader.stdout.readline())["query_id"] == "0"
        reader.stdout.close()
        assert reader.wait(timeout=300) == 141
        assert b"Traceback" not in reader.stderr.read()

    run = kbapp(data, "docs", "--json")
    docs = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(docs) == 6
    zh = next(d for d in docs if d["path"].endswith("camera_zh.txt"))
    run = kbapp(data, "remove", str(zh["id"]))
    assert run.returncode == 0 and "removed 1" in run.stdout
    run = kbapp(data, "verify", "--json")
    assert json.loads(run.stdout)["ok"] is True


def test_a_refused_question_prints_the_closest_passages_apart(
    tmp_path: Path, default_pack: ModelPack
) -> None:
    """With the model: "nothing relevant" is the answer (no results), and the passages the search
    set aside follow under a heading that says they were judged not relevant."""
    data = tmp_path / "lib"
    assert kbapp(data, "import", str(SAMPLE_LIBRARY)).returncode == 0
    question = "who won the football world cup final"
    run = kbapp(data, "search", question, "--json")
    [obj] = [json.loads(line) for line in run.stdout.splitlines()]
    assert obj["status"] == "nothing_relevant" and obj["results"] == []
    assert obj["closest"] and obj["closest"][0]["rank"] == 1 and obj["closest"][0]["text"]
    lines = kbapp(data, "search", question).stdout.splitlines()
    assert lines[0].startswith("Nothing relevant found")
    heading = lines.index("The 3 closest passages, judged not relevant:")
    assert lines[heading + 1].startswith("[1] ")

    # The words no document mentions are named with what else they were looked for as, so a
    # user can tell a gap in the library from a gap in the dictionary.
    run = kbapp(data, "search", "世界杯决赛谁赢了", "--json")
    [obj] = [json.loads(line) for line in run.stdout.splitlines()]
    assert obj["results"] == [] and "世界杯" in obj["unknown_words"]
    assert {"world", "cup"} <= set(obj["unknown_translations"]["世界杯"]), obj["unknown_translations"]
    lines = kbapp(data, "search", "世界杯决赛谁赢了").stdout.splitlines()
    assert any(
        line.startswith("Not in the library: 世界杯 (also looked for: world, cup)") for line in lines
    ), lines
    # An English passage found for a Chinese question says which of its words answered which.
    lines = kbapp(data, "search", "风扇的寿命有多长").stdout.splitlines()
    assert "    by dictionary: 风扇 → fan" in lines, lines
    assert not any(line.startswith("Not in the library") for line in lines), lines  # every word known
    # Answered on its other words, a question still names the words no document holds.
    run = kbapp(data, "search", "how far from motor power lines should the camera cable be, zorblax")
    first, second = run.stdout.splitlines()[:2]
    assert first.startswith("Not in the library:") and "zorblax" in first, first
    assert first.endswith("; the results match the rest of the question") and second.startswith("[1] ")
    # A word the library holds only in a later sense of the dictionary's: the wiring guide's 屏蔽
    # ("shield", the ninth of its words) is searched and found, and "shield" is not called missing.
    lines = kbapp(data, "search", "where should the cable shield be grounded").stdout.splitlines()
    assert lines[0].startswith("Not in the library: grounded") and "shield" not in lines[0], lines[0]
    assert any(line.startswith("    by dictionary:") and "shield → 屏蔽" in line for line in lines), lines


def test_a_keyword_search_loads_neither_numpy_nor_the_model(tmp_path: Path, sample_folder: Path) -> None:
    """A one-shot keyword search pays for what it uses: numpy alone took 55-60 ms of its 0.3 s
    (``python -X importtime``), for vectors it never reads; the file sniffer with its text
    decoding, the folder watcher, the reader workers' modules and the tokenizer another 60-80 ms."""
    data = tmp_path / "lib"
    assert kbapp(data, "import", "--no-embed", str(sample_folder)).returncode == 0
    heavy = (
        "numpy",
        "faiss",
        "onnxruntime",
        "pymupdf",
        "charset_normalizer",
        "kbapp.ingest.sniff",
        "watchdog",
        "psutil",
        "tokenizers",
    )
    code = (
        "import contextlib, io, json, sys\n"
        "from kbapp.cli.main import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    main(['--data-dir', {str(data)!r}, 'search', '--json', '--mode', 'lexical', 'exposure time'])\n"
        "found = json.loads(out.getvalue().splitlines()[-1])['results']\n"
        f"print(json.dumps([len(found), [m for m in {heavy!r} if m in sys.modules]]))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    found, loaded = json.loads(run.stdout.splitlines()[-1])
    assert found > 0
    assert loaded == []


def test_the_collector_is_paused_only_while_the_core_first_loads(tmp_path: Path, sample_folder: Path) -> None:
    """Start-up pauses the cyclic garbage collector and freezes what the core's import made; a
    program that calls ``main`` again keeps its collector and its own garbage collectable."""
    data = tmp_path / "lib"
    assert kbapp(data, "import", "--no-embed", str(sample_folder)).returncode == 0
    code = (
        "import contextlib, gc, io, json\n"
        "from kbapp.cli.main import main\n"
        "counts = []\n"
        "for _ in range(2):\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        f"        main(['--data-dir', {str(data)!r}, 'search', '--mode', 'lexical', 'exposure time'])\n"
        "    counts.append([gc.isenabled(), gc.get_freeze_count()])\n"
        "print(json.dumps(counts))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    (on_first, frozen_first), (on_second, frozen_second) = json.loads(run.stdout.splitlines()[-1])
    assert on_first and on_second
    assert frozen_first > 10_000  # the core's modules, classes and functions (76,590 here)
    assert frozen_second <= frozen_first  # nothing frozen again (a frozen object can still be freed)


def test_a_document_id_the_library_lacks_is_named_not_ignored(tmp_path: Path, sample_folder: Path) -> None:
    """A mistyped id had searched nothing and said "Nothing relevant found", or removed nothing and
    said only "removed 0 document(s)"; a search of an empty library said "Nothing in the library
    matches this query"."""
    data = tmp_path / "lib"
    # A path refused before reading is printed as FAILED and counted in the summary line.
    run = kbapp(data, "import", "--no-embed", str(tmp_path / "missing.pdf"))
    assert run.returncode == 1 and run.stdout.splitlines()[-1].startswith("nothing to import; 1 not imported")
    # Before anything is imported a search says why it finds nothing.
    assert "The library is empty" in kbapp(data, "search", "--mode", "lexical", "E5021").stdout
    assert kbapp(data, "import", "--no-embed", str(sample_folder)).returncode == 0
    count = len(kbapp(data, "docs", "--json").stdout.splitlines())
    assert kbapp(data, "collection", "create", "pumps").returncode == 0
    for args in (
        ("search", "--mode", "lexical", "--doc", "99999", "E5021"),
        ("remove", "99999"),
        ("collection", "add", "pumps", "99999"),
    ):
        run = kbapp(data, *args)
        assert run.returncode == 1 and "99999" in run.stderr, (args, run.stdout, run.stderr)
    assert len(kbapp(data, "docs", "--json").stdout.splitlines()) == count
    run = kbapp(data, "search", "--mode", "lexical", "--collection", "pumps", "E5021")  # still empty
    assert run.returncode == 1 and "pumps: no documents" in run.stderr, run.stderr
    for top_k in ("0", "-3", "ten"):
        run = kbapp(data, "search", "--mode", "lexical", "--top-k", top_k, "E5021")
        assert run.returncode == 2 and "--top-k" in run.stderr and "Traceback" not in run.stderr


def test_a_questions_file_is_read_whole_or_refused_with_the_line(tmp_path: Path) -> None:
    """A byte order mark (Windows editors write one) reads as nothing; a line that is not a
    question is named before anything is searched, not a traceback halfway through the batch."""
    data, questions = tmp_path / "lib", tmp_path / "q.jsonl"
    questions.write_bytes(b'\xef\xbb\xbf{"id": "a", "text": "pump"}\n\n{"id": 7, "text": "\xe6\xb3\xb5"}\n')
    run = kbapp(data, "search", "--mode", "lexical", "--json", "--queries", str(questions))
    assert run.returncode == 0, run.stderr
    assert [json.loads(line)["query_id"] for line in run.stdout.splitlines()] == ["a", "7"]
    for bad, line in (('{"id": "a", "text": "pump"}\nnot json\n', 2), ('{"id": "a"}\n', 1), ("[1, 2]\n", 1)):
        questions.write_text(bad, encoding="utf-8")
        run = kbapp(data, "search", "--mode", "lexical", "--json", "--queries", str(questions))
        assert run.returncode == 2 and run.stdout == "", run.stdout
        assert f"q.jsonl line {line}:" in run.stderr and "Traceback" not in run.stderr
