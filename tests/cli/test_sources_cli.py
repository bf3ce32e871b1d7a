"""The watch, sync and collection commands as scripts use them, run as real subprocesses."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import kbapp


def json_lines(text: str) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in text.splitlines()]


def test_watch_sync_collections_and_search(tmp_path: Path, sample_folder: Path) -> None:
    data = tmp_path / "lib"
    run = kbapp(data, "watch", "add", str(sample_folder), "--collection", "Cameras")
    assert run.returncode == 0 and "Cameras" in run.stdout, run.stderr
    run = kbapp(data, "sync", "--no-embed")
    assert run.returncode == 0, run.stdout + run.stderr
    assert sum(line.startswith("ADDED") for line in run.stdout.splitlines()) == 5
    assert run.stdout.splitlines()[-1].startswith("5 added, 0 unchanged")

    [source] = json_lines(kbapp(data, "watch", "list", "--json").stdout)
    assert source["path"] == str(sample_folder) and source["state"] == "ok" and source["files"] == 5

    (sample_folder / "camera_en.md").rename(sample_folder / "camera_en_v2.md")
    run = kbapp(data, "sync", "--no-embed")
    assert [line.split()[0] for line in run.stdout.splitlines()[:-1]] == ["MOVED"], run.stdout

    docs = json_lines(kbapp(data, "docs", "--json").stdout)
    assert all(d["collections"] == ["Cameras"] and d["source"] == str(sample_folder) for d in docs)
    zh = [d["id"] for d in docs if d["path"].endswith("camera_zh.txt")]

    assert kbapp(data, "collection", "create", "Chinese").returncode == 0
    run = kbapp(data, "collection", "add", "Chinese", *map(str, zh))
    assert run.stdout.strip() == "added 1 document(s)"
    assert kbapp(data, "collection", "rename", "Chinese", "ZH").returncode == 0
    listed = json_lines(kbapp(data, "collection", "list", "--json").stdout)
    assert listed == [{"name": "Cameras", "documents": 5}, {"name": "ZH", "documents": 1}]

    run = kbapp(data, "search", "E5021", "--mode", "lexical", "--json", "--collection", "ZH")
    [obj] = json_lines(run.stdout)
    assert {r["path"] for r in obj["results"]} == {str(sample_folder / "camera_zh.txt")}
    run = kbapp(
        data,
        "search",
        "E5021",
        "--mode",
        "lexical",
        "--json",
        "--collection",
        "ZH",
        "--collection",
        "Cameras",
    )
    assert len({r["path"] for r in json_lines(run.stdout)[0]["results"]}) >= 2

    run = kbapp(data, "search", "E5021", "--collection", "Nope")
    assert run.returncode == 1 and "no collection named 'Nope'" in run.stderr

    assert kbapp(data, "collection", "delete", "ZH").returncode == 0
    assert kbapp(data, "watch", "remove", str(sample_folder)).returncode == 0
    assert kbapp(data, "watch", "list", "--json").stdout == ""
    assert len(json_lines(kbapp(data, "docs", "--json").stdout)) == 5  # documents stay
    assert kbapp(data, "verify").returncode == 0
