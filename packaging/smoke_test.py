"""Smoke test of a frozen kbapp: does the bundle hold everything the app needs at run time?

    python packaging/smoke_test.py dist/kbapp/kbapp [--gui-exe dist/kbapp/kbapp-gui.exe]

Against a fresh temporary library and settings folder, with no display (Qt's offscreen platform):

1. ``kbapp --help`` and ``kbapp model info`` (the bundled model pack is found and its hashes match);
2. imports the sample PDF shipped in the bundle (resources/sample_library: Chinese with English
   terms) through the parse worker process, and embeds it (onnxruntime, tokenizers);
3. one Chinese and one English query (``search --json``): cited results with page numbers, and
   the semantic half of hybrid search took part;
   then a scanned label (resources/smoke: an image with no text layer) is imported and an English
   and a Chinese query find it, marked as read by OCR (the bundled OCR models and reader work);
4. opens the main window (``kbapp gui`` with KBAPP_GUI_SMOKE_TEST=1, handled by the bundle's entry
   script: quit with 0 once the window is shown and has listed the library) and checks the Qt
   platform plugin and both translation catalogues loaded.

A missing Qt plugin, onnxruntime library, model file or Python module makes a step fail; the
script prints what it ran and what came back, and exits 1. Needs only the standard library.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Output that means the bundle is broken, wherever it appears (the GUI may log harmless noise).
BROKEN = (
    "ModuleNotFoundError",
    "ImportError",
    "Failed to execute script",
    "Could not find the Qt platform plugin",
    "Could not load the Qt platform plugin",
    "no usable model pack",
)
QUERIES = [("曝光时间", "Chinese"), ("exposure time error code E5021", "English")]
SCAN = Path("scanned_label.png")  # in the bundle's resources/smoke (packaging/make_smoke_scan.py)
SCAN_QUERIES = [("prime the coolant pump", "English"), ("冷却泵排气", "Chinese")]


class SmokeFailure(Exception):
    pass


def bundle_dir(exe: Path) -> Path:
    """The folder holding the bundle's files (``_internal/``) next to the resolved executable."""
    return exe.resolve().parent / "_internal"


def run(cmd: list[str], env: dict[str, str], timeout: float, expect: int | None = 0) -> str:
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as err:
        raise SmokeFailure(f"{' '.join(cmd)}: no exit after {timeout:g} s") from err
    out = proc.stdout.decode("utf-8", "replace")
    err = proc.stderr.decode("utf-8", "replace")
    print(f"  $ {' '.join(cmd[1:]) or cmd[0]}  → {proc.returncode} in {time.monotonic() - start:.1f} s")
    broken = [marker for marker in BROKEN if marker in out or marker in err]
    if (expect is not None and proc.returncode != expect) or broken:
        raise SmokeFailure(
            f"{' '.join(cmd)} exited {proc.returncode}{f' reporting {broken}' if broken else ''}\n"
            f"--- stdout\n{out[-4000:]}\n--- stderr\n{err[-4000:]}"
        )
    return out


def check_results(out: str, what: str) -> None:
    response = json.loads(out.strip().splitlines()[-1])
    results = response.get("results") or []
    if not results:
        raise SmokeFailure(f"{what} query {response.get('query')!r} found nothing: {response}")
    if not all(isinstance(r.get("page"), int) for r in results):
        raise SmokeFailure(f"{what} query: results without page numbers: {results}")
    if not any((r.get("why") or {}).get("dense_rank") is not None for r in results):
        raise SmokeFailure(f"{what} query: no result came from the embedding model: {results}")
    top = results[0]
    print(f"    {what}: {len(results)} results, top: {top['title']} p. {top['page']} ({top.get('heading')})")


def smoke(exe: Path, gui_exe: Path | None, timeout: float, gui_only: bool = False) -> None:
    internal = bundle_dir(exe)
    samples = sorted((internal / "resources" / "sample_library").glob("*.pdf"))
    if not samples:
        raise SmokeFailure(f"no sample PDF in the bundle ({internal / 'resources' / 'sample_library'})")
    with tempfile.TemporaryDirectory(prefix="kbapp-smoke-") as tmp:
        work = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith("KBAPP_")}  # the bundled pack only
        env.update(
            QT_QPA_PLATFORM="offscreen",
            XDG_CONFIG_HOME=str(work / "config"),  # Qt settings (Linux): none of the user's
            XDG_DATA_HOME=str(work / "data-home"),
        )
        data = ["--data-dir", str(work / "library")]
        cli = str(exe)
        if not gui_only:
            cli_steps(cli, data, env, timeout, samples[0], work)
        # Chinese UI on Linux (Windows ignores LANG): both kbapp's and Qt's catalogues must load.
        gui_env = {**env, "KBAPP_GUI_SMOKE_TEST": "1"}
        if sys.platform != "win32":
            gui_env.update(LANG="zh_CN.UTF-8", LC_ALL="C.UTF-8", LANGUAGE="zh_CN")
        report = json.loads(run([cli, *data, "gui"], gui_env, timeout * 2).strip().splitlines()[-1])
        print(f"    window: {report}")
        if report.get("platform") != "offscreen" or report.get("translators", 0) < 2:
            raise SmokeFailure(f"window opened without the expected platform or translations: {report}")
        if gui_exe is not None:  # windowed: no stdout, only the exit code tells
            run([str(gui_exe), *data], gui_env, timeout * 2)


def cli_steps(cli: str, data: list[str], env: dict[str, str], timeout: float, pdf: Path, work: Path) -> None:
    """--help, the bundled model pack, importing the sample PDF and two cited searches."""
    exe = Path(cli)
    run([cli, "--help"], env, timeout)
    info = json.loads(run([cli, "model", "info", "--json"], env, timeout))
    if not info.get("ok") or not Path(info["path"]).resolve().is_relative_to(exe.resolve().parent):
        raise SmokeFailure(f"model pack not taken from the bundle: {info}")
    sample = work / pdf.name  # a copy: the path has Chinese characters, as users' do
    shutil.copy2(pdf, sample)
    out = run([cli, *data, "import", str(sample)], env, timeout * 2)
    if "IMPORTED" not in out:
        raise SmokeFailure(f"import did not report IMPORTED:\n{out}")
    for query, what in QUERIES:
        check_results(run([cli, *data, "search", "--json", query], env, timeout), what)
    scan = work / SCAN.name
    shutil.copy2(bundle_dir(exe) / "resources" / "smoke" / SCAN.name, scan)
    out = run([cli, *data, "import", str(scan)], env, timeout * 2)
    if "IMPORTED" not in out or "OCR read 1 pages" not in out:
        raise SmokeFailure(f"the scanned label was not imported and read by OCR:\n{out}")
    for query, what in SCAN_QUERIES:
        check_scan_found(run([cli, *data, "search", "--json", query], env, timeout), what)


def check_scan_found(out: str, what: str) -> None:
    """The top result is the scanned label, marked as OCR text."""
    response = json.loads(out.strip().splitlines()[-1])
    top = (response.get("results") or [{}])[0]
    if top.get("title") != SCAN.stem or not (top.get("why") or {}).get("ocr"):
        raise SmokeFailure(f"{what} query {response.get('query')!r} did not find the scan by OCR: {response}")
    print(f"    {what} (OCR): top: {top['title']} p. {top['page']}: {top['text'][:60]!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("exe", type=Path, help="the console kbapp executable (or /usr/bin/kbapp)")
    parser.add_argument("--gui-exe", type=Path, help="also start this windowed executable (Windows)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per command (import: twice)")
    parser.add_argument("--gui-only", action="store_true", help="only open the window (Qt checks)")
    args = parser.parse_args(argv)
    for stream in (sys.stdout, sys.stderr):  # Chinese in the output, whatever the console's code page
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="replace")
    print(f"smoke test of {args.exe} ({args.exe.resolve()})")
    start = time.monotonic()
    try:
        smoke(args.exe, args.gui_exe, args.timeout, args.gui_only)
    except SmokeFailure as failure:
        print(f"SMOKE TEST FAILED: {failure}", file=sys.stderr)
        return 1
    print(f"smoke test passed in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
