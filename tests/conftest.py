"""Shared fixtures: generated documents (never copied from the evaluation sets)."""

from __future__ import annotations

import os
from pathlib import Path

import pymupdf
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

CAMERA_EN = """XK-200 Camera Manual

Chapter 3 Image settings

3.1 Exposure Time

The exposure time controls how long the sensor collects light. Increase the exposure time when the
image is too dark; decrease it when moving parts look blurred. The range is 10 µs to 2 s.

3.2 Trigger mode

In trigger mode the XK-200 captures one frame for every pulse on input line 1. Use a 24 V signal.

Chapter 5 Error codes

Error E5021 means the exposure time is longer than the trigger period. Shorten the exposure or
lower the trigger rate.
"""

CAMERA_ZH = """XK-200 相机说明书

第三章 图像设置

曝光时间 Exposure Time 决定传感器采集光线的时长。图像偏暗时请增加曝光时间；运动部件模糊时请减少曝光时间。

触发模式下，每个输入脉冲采集一帧图像。

第五章 错误码

错误码 E5021：曝光时间长于触发周期。请缩短曝光时间或降低触发频率。
"""


def write_pdf(path: Path, pages: list[list[str]], fontname: str = "helv") -> Path:
    """A real PDF with one text line per entry (CJK needs fontname='china-s')."""
    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page()
        y = 72
        for line in lines:
            page.insert_text((72, y), line, fontname=fontname, fontsize=11)
            y += 16
    doc.save(path)
    doc.close()
    return path


@pytest.fixture
def sample_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "manuals"
    folder.mkdir()
    (folder / "camera_en.md").write_text(
        CAMERA_EN.replace("Chapter", "# Chapter").replace("\n3.", "\n## 3."), encoding="utf-8"
    )
    (folder / "camera_zh.txt").write_text(CAMERA_ZH, encoding="utf-8")
    (folder / "camera_zh_gbk.txt").write_bytes(CAMERA_ZH.replace("XK-200", "XK-300").encode("gb18030"))
    write_pdf(
        folder / "pump.pdf",
        [
            ["Pump P-17 Maintenance", "Replace the seal kit SK-9 every 2000 hours of operation."],
            ["Troubleshooting", "If the pump vibrates, check the coupling alignment and the M3x0.5 screws."],
        ],
    )
    write_pdf(
        folder / "pump_zh.pdf",
        [["水泵维护", "每运行2000小时更换密封件。"], ["故障排除", "水泵振动时检查联轴器对中。"]],
        fontname="china-s",
    )
    return folder


@pytest.fixture(scope="session")
def default_pack():  # type: ignore[no-untyped-def]
    """The real default model pack, built into ``models/`` once if it is missing."""
    from kbapp.embedding.build import build_default_pack, default_wheel_cache
    from kbapp.embedding.pack import PackError, default_pack_dir, load_pack

    try:
        return load_pack(default_pack_dir())
    except PackError:
        build_default_pack(default_pack_dir(), default_wheel_cache())
        return load_pack(default_pack_dir())
