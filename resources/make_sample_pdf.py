"""Regenerates ``sample_library/xk200_快速指南.pdf``, the sample library's PDF (Chinese with
English terms), so the committed file can be reproduced and stays small.

The text uses PyMuPDF's built-in "china-s" font (Droid Sans Fallback), embedded as a subset
of the characters used: real Latin and CJK glyph widths, and a file of a few tens of KB.

Run:  .venv/bin/python resources/make_sample_pdf.py
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

OUT = Path(__file__).parent / "sample_library" / "xk200_快速指南.pdf"
FONT = "china-s"
MARGIN = 64
BODY, HEADING, TITLE = 10.5, 14, 20

# (kind, text): "title", "h" (heading) or "p" (paragraph); None starts a new page.
CONTENT: list[tuple[str, str] | None] = [
    ("title", "XK-200 工业相机 快速指南"),
    ("p", "本指南适用于固件 2.4 及以上版本。完整说明请参阅英文版用户手册（XK-200 User Manual）。"),
    ("h", "1 曝光时间 Exposure Time"),
    (
        "p",
        "曝光时间是传感器为一帧图像采集光线的时长，可设置范围为 20 微秒至 1 秒。图像偏暗时请增加曝光时间；"
        "运动部件出现拖影时请减少曝光时间。输送带速度为 2 m/s 时，建议曝光时间不超过 100 微秒。",
    ),
    ("h", "2 增益 Gain"),
    (
        "p",
        "增益在曝光之后放大传感器信号，可以提高亮度而不会产生运动模糊，但会增加噪点。"
        "应优先延长曝光时间或增加照明，增益超过 12 dB 只作为最后手段。",
    ),
    ("h", "3 触发模式 Trigger Mode"),
    (
        "p",
        "在触发模式下，输入线 1 上每出现一个上升沿（5–24 V），相机采集一帧图像。"
        "触发延时可按 1 微秒步进调整，使工件正好位于镜头下方时拍摄。",
    ),
    None,
    ("h", "4 错误码 Error Codes"),
    ("p", "E5021：曝光时间长于触发周期。请缩短曝光时间，或降低触发频率。"),
    ("p", "E5030：传感器温度超过 65 °C。请检查风扇 XK-FAN-2 是否运转，以及外壳周围是否通风。"),
    ("p", "E7002：与上位机的连接中断。请检查网线和交换机端口，相机会自动重新建立连接。"),
    ("h", "5 维护与备件 Spare Parts"),
    (
        "p",
        "在多尘环境中，每周用干燥无绒布清洁保护窗一次。镜头盖 XK-200-LC 破裂时应更换。"
        "风扇 XK-FAN-2 的寿命约为 30 000 小时，建议备有一个。",
    ),
    ("p", "电源与 I/O 电缆：XK-CB3-05（8 芯，5 m）。安装支架：XK-BR1。"),
]


def _wrap(text: str, font: pymupdf.Font, size: float, width: float) -> list[str]:
    """Greedy wrapping by character: CJK text has no spaces to break at."""
    lines, line = [], ""
    for char in text:
        if font.text_length(line + char, fontsize=size) > width:
            lines.append(line)
            line = char.lstrip()
        else:
            line += char
    return [*lines, line] if line else lines


def _new_page(doc: pymupdf.Document, font: pymupdf.Font) -> pymupdf.Page:
    page = doc.new_page()
    page.insert_font(fontname="cjk", fontbuffer=font.buffer)
    return page


def build(out: Path = OUT) -> Path:
    doc = pymupdf.open()
    font = pymupdf.Font(FONT)
    page = _new_page(doc, font)
    width = page.rect.width - 2 * MARGIN
    y = MARGIN
    for item in CONTENT:
        if item is None:
            page, y = _new_page(doc, font), MARGIN
            continue
        kind, text = item
        size = {"title": TITLE, "h": HEADING, "p": BODY}[kind]
        y += size * (1.2 if kind != "p" else 0.6)
        for line in _wrap(text, font, size, width):
            y += size * 1.5
            page.insert_text((MARGIN, y), line, fontname="cjk", fontsize=size)
        y += size * 0.3
    doc.set_metadata({"title": "XK-200 工业相机 快速指南", "author": "kbapp sample library"})
    doc.subset_fonts()
    doc.save(out, garbage=4, deflate=True)
    doc.close()
    return out


if __name__ == "__main__":
    print(build(), f"{OUT.stat().st_size} bytes")
