"""Generated documents for the reliability tests: good ones with planted tokens, and bad input.

Every good document carries a unique token at its start and a sentinel at its end, so a test can
check that a document is searchable and complete (its last passage is there too). Bad inputs are
generated here, never copied from anywhere, each with the outcome and the words its message must
contain.
"""

from __future__ import annotations

import io
import os
import random
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import docx
import pymupdf

from tests.conftest import write_pdf
from tests.office_files import ole2_file

WORDS = [
    *("valve", "pump", "sensor", "exposure", "trigger", "coupling", "seal", "bearing", "motor"),
    *("encoder", "relay", "fuse", "voltage", "current", "torque", "pressure", "flow", "calibrate"),
    *("inspect", "replace", "tighten", "align", "lubricate", "reset"),
]


def token(i: int, kind: str = "tok") -> str:
    """A word no generated text contains by chance (letters only: the keyword index splits digits)."""
    letters = "".join(chr(ord("a") + int(d)) for d in f"{i:05d}")
    return f"zq{kind}{letters}"


def prose(rnd: random.Random, words: int) -> str:
    lines, line = [], []
    for _ in range(words):
        line.append(rnd.choice(WORDS))
        if len(line) == 12:
            lines.append(" ".join(line) + ".")
            line = []
    lines.append(" ".join(line) + ".")
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class GoodDoc:
    path: Path
    begin: str  # token in the first passage
    end: str  # sentinel in the last passage


def write_good(folder: Path, i: int, kind: str, size_words: int, rnd: random.Random) -> GoodDoc:
    """One document of ``kind`` (md, txt, pdf, html, docx) with its tokens planted at both ends."""
    begin, end = token(i, "begin"), token(i, "end")
    body = prose(rnd, size_words)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"doc{i:03d}.{kind}"
    if kind == "md":
        path.write_text(
            f"# Manual {i}\n\n{begin} {body}\n\n## Last\n\n{body[:200]} {end}\n", encoding="utf-8"
        )
    elif kind == "txt":
        path.write_text(f"Manual {i}\n\n{begin} {body}\n\n{body[:200]} {end}\n", encoding="utf-8")
    elif kind == "html":
        paras = "".join(f"<p>{line}</p>" for line in body.splitlines())
        path.write_text(
            f"<html><head><title>Manual {i}</title></head><body><h1>Manual {i}</h1><p>{begin}</p>"
            f"{paras}<p>{end}</p></body></html>",
            encoding="utf-8",
        )
    elif kind == "docx":
        document = docx.Document()
        document.add_heading(f"Manual {i}", level=1)
        document.add_paragraph(begin)
        for line in body.splitlines():
            document.add_paragraph(line)
        document.add_paragraph(end)
        document.save(str(path))
    elif kind == "pdf":
        lines = [begin, *body.splitlines(), end]
        pages = [lines[n : n + 40] for n in range(0, len(lines), 40)]
        write_pdf(path, pages)
    else:
        raise ValueError(kind)
    return GoodDoc(path, begin, end)


# -- bad input ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Case:
    name: str  # path relative to the corpus folder
    outcome: str  # imported | failed | duplicate | problem (reported by discovery, no file report)
    words: tuple[str, ...] = ()  # all must appear in the message (case-insensitive)
    kind: str | None = None  # IngestErrorKind value a failure must carry
    present: str | None = None  # a token that must be searchable afterwards
    absent: str | None = None  # a token that must not be


def _pdf_bytes(lines: list[str], **save: object) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    for n, line in enumerate(lines):
        page.insert_text((72, 72 + 16 * n), line, fontsize=11)
    data = doc.tobytes(**save)
    doc.close()
    return data


def _image_only_pdf() -> bytes:
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 400, 300), False)
    pix.clear_with(200)
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_image(page.rect, pixmap=pix)
    data = doc.tobytes()
    doc.close()
    return data


def _garbled_pdf() -> bytes:
    """Text in a font whose encoding maps codes to unknown glyph names and that has no Unicode map:
    what a PDF made by an old typesetter with a subset font extracts to."""
    doc = pymupdf.open()
    page = doc.new_page()
    for n in range(30):
        page.insert_text(
            (72, 72 + 16 * n), "Pump maintenance: replace the seal kit every month", fontname="tiro"
        )
    doc = pymupdf.open("pdf", doc.tobytes())
    names = " ".join(f"/g{code}" for code in range(32, 128))
    for xref in range(1, doc.xref_length()):
        if "/Font" in doc.xref_object(xref) and "/BaseFont" in doc.xref_object(xref):
            doc.xref_set_key(xref, "Encoding", f"<< /Type /Encoding /Differences [ 32 {names} ] >>")
    data = doc.tobytes()
    doc.close()
    return data


def _pdf_pages(count: int, marker: str) -> bytes:
    doc = pymupdf.open()
    for n in range(count):
        page = doc.new_page()
        page.insert_text(
            (72, 72), f"Page {n + 1} of the very long manual about pump maintenance.", fontsize=11
        )
        if n == count - 2:
            page.insert_text((72, 100), marker, fontsize=11)
    data = doc.tobytes(garbage=1)
    doc.close()
    return data


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def _docx_bytes(text: str) -> bytes:
    document = docx.Document()
    document.add_paragraph(text)
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def zip_bomb(path: Path, expanded: int = (2 << 30) + (64 << 20)) -> None:
    """A DOCX-shaped ZIP whose ``word/document.xml`` really inflates to ``expanded`` bytes of zeros.

    Deflating gigabytes of zeros takes long, but with a full flush every 16 MB block deflates to
    the same bytes, so one block is compressed and repeated. Written by hand (ZIP64 sizes).
    """
    block = 16 << 20
    assert expanded % block == 0
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    piece = comp.compress(b"\0" * block) + comp.flush(zlib.Z_FULL_FLUSH)
    tail = comp.flush()
    zeros = b"\0" * block
    crc = 0
    for _ in range(expanded // block):
        crc = zlib.crc32(zeros, crc)
    member = b"word/document.xml"
    compressed = len(piece) * (expanded // block) + len(tail)
    small = {
        "[Content_Types].xml": b'<?xml version="1.0"?><Types xmlns="x"/>',
        "mimetype": b"application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    }
    with path.open("wb") as out:
        central = []
        for name, data in small.items():
            offset = out.tell()
            raw = name.encode()
            header = struct.pack(
                "<IHHHHHIIIHH",
                0x04034B50,
                20,
                0,
                0,
                0,
                0,
                zlib.crc32(data),
                len(data),
                len(data),
                len(raw),
                0,
            )
            out.write(header + raw + data)
            central.append(
                struct.pack(
                    "<IHHHHHHIIIHHHHHII",
                    0x02014B50,
                    20,
                    20,
                    0,
                    0,
                    0,
                    0,
                    zlib.crc32(data),
                    len(data),
                    len(data),
                    len(raw),
                    0,
                    0,
                    0,
                    0,
                    0,
                    offset,
                )
                + raw
            )
        offset = out.tell()
        extra = struct.pack("<HHQQ", 1, 16, expanded, compressed)
        out.write(
            struct.pack(
                "<IHHHHHIIIHH",
                0x04034B50,
                45,
                0,
                8,
                0,
                0,
                crc,
                0xFFFFFFFF,
                0xFFFFFFFF,
                len(member),
                len(extra),
            )
            + member
            + extra
        )
        for _ in range(expanded // block):
            out.write(piece)
        out.write(tail)
        central.append(
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                0x02014B50,
                45,
                45,
                0,
                8,
                0,
                0,
                crc,
                0xFFFFFFFF,
                0xFFFFFFFF,
                len(member),
                len(extra),
                0,
                0,
                0,
                0,
                offset,
            )
            + member
            + extra
        )
        start = out.tell()
        directory = b"".join(central)
        out.write(directory)
        out.write(
            struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(central), len(central), len(directory), start, 0)
        )


CJK = "曝光时间决定传感器采集光线的时长。图像偏暗时请增加曝光时间。"


def build_bad_corpus(root: Path, *, huge_text: bool = False) -> list[Case]:
    """Write the bad-input corpus under ``root`` and return what each file must produce."""
    rnd = random.Random(7)
    root.mkdir(parents=True, exist_ok=True)
    cases: list[Case] = []

    def put(name: str, data: bytes | str, case: Case) -> None:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        cases.append(case)

    put("empty.txt", b"", Case("empty.txt", "failed", ("empty",), "empty"))
    put("whitespace.txt", "  \n\n\t \n", Case("whitespace.txt", "failed", ("no text",), "empty"))
    put("random.pdf", rnd.randbytes(8192), Case("random.pdf", "failed", ("not a valid pdf",), "corrupt"))
    long_pdf = _pdf_bytes([f"Pump manual {token(25)}"] + ["replace the seal kit every month"] * 30)
    put(
        "truncated.pdf",
        long_pdf[: len(long_pdf) // 2],
        Case("truncated.pdf", "imported", ("truncated", "repaired"), present=token(25)),
    )
    put(
        "header_only.pdf",
        b"%PDF-1.7\n" + rnd.randbytes(3000),
        Case("header_only.pdf", "failed", ("not a valid pdf",), "corrupt"),
    )
    put(
        "encrypted_user.pdf",
        _pdf_bytes(["secret"], encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="own", user_pw="usr"),
        Case("encrypted_user.pdf", "failed", ("password",), "encrypted"),
    )
    put(
        "encrypted_owner.pdf",
        _pdf_bytes(
            ["Owner locked manual", f"printing restricted {token(2)} but readable"] * 3,
            encryption=pymupdf.PDF_ENCRYPT_AES_256,
            owner_pw="own",
            permissions=pymupdf.PDF_PERM_ACCESSIBILITY,
        ),
        Case("encrypted_owner.pdf", "imported", present=token(2)),
    )
    # Imported with their pages pending for the OCR stage (which this corpus does not run).
    put("image_only.pdf", _image_only_pdf(), Case("image_only.pdf", "imported", ("needs ocr",)))
    put("garbled.pdf", _garbled_pdf(), Case("garbled.pdf", "imported", ("garbled", "needs ocr")))
    put("pages2000.pdf", _pdf_pages(2000, token(3)), Case("pages2000.pdf", "imported", present=token(3)))
    put(
        "binary.txt",
        b"\x7fELF\x02\x01\x01" + rnd.randbytes(4000),
        Case("binary.txt", "failed", ("program",), "unsupported"),
    )
    put("zeros.txt", b"\0" * 5000, Case("zeros.txt", "failed", ("binary",), "unsupported"))
    put(
        "utf16.txt",
        ("标题\n\n" + CJK + f" {token(4)}\n").encode("utf-16"),
        Case("utf16.txt", "imported", present=token(4)),
    )
    put(
        "utf16_nobom.txt",
        (f"Title\n\nThe pump manual {token(5)}: replace the seal every month.\n" * 5).encode("utf-16-le"),
        Case("utf16_nobom.txt", "imported", present=token(5)),
    )
    put(
        "utf16_nobom_zh.txt",
        ("标题\n\n" + CJK * 3 + f" {token(26)}\n").encode("utf-16-le"),
        Case("utf16_nobom_zh.txt", "imported", present=token(26)),
    )
    put(
        "gbk.txt",
        ("标题\n\n" + CJK * 3 + f" {token(6)}\n").encode("gbk"),
        Case("gbk.txt", "imported", present=token(6)),
    )
    put(
        "big5.txt",
        ("標題\n\n曝光時間決定感測器採集光線的時長。" * 3 + f" {token(7)}\n").encode("big5"),
        Case("big5.txt", "imported", present=token(7)),
    )
    put(
        "invalid_utf8.txt",
        (f"Notes\n\nThe valve {token(8)} is tight. ".encode() * 20) + b"\xff\xfe\xc3(" + "温度".encode() * 10,
        Case("invalid_utf8.txt", "imported", present=token(8)),
    )
    scripts = "".join(
        f"<script>var {token(9, 'js')}{n} = {n}; document.write('x');</script>" for n in range(300)
    )
    put(
        "scripts.html",
        f"<html><head>{scripts}<style>p {{color: red}}</style></head><body>{scripts}"
        f"<p>Visible text about the pump {token(10)}.</p>{scripts}</body></html>",
        Case("scripts.html", "imported", present=token(10), absent=token(9, "js") + "0"),
    )
    put(
        "scripts_only.html",
        f"<html><body>{scripts}</body></html>",
        Case("scripts_only.html", "failed", ("no visible text",), "empty"),
    )
    good_docx = _docx_bytes(f"Docx manual {token(11)}")
    put(
        "corrupt.docx",
        good_docx[: len(good_docx) // 2],
        Case("corrupt.docx", "failed", ("not a valid",), "corrupt"),
    )
    put(
        "garbage_zip.docx",
        b"PK\x03\x04" + rnd.randbytes(3000),
        Case("garbage_zip.docx", "failed", ("not a valid",), "corrupt"),
    )
    zip_bomb(root / "bomb.docx")
    cases.append(Case("bomb.docx", "failed", ("expands to", "gb"), "too large"))
    put(
        "plain_zip.docx",
        _zip({"readme.txt": b"hello"}),
        Case("plain_zip.docx", "failed", ("zip archive",), "unsupported"),
    )
    put(
        "sheet.docx",
        _zip({"xl/workbook.xml": b"<x/>"}),
        Case("sheet.docx", "failed", ("excel",), "unsupported"),
    )
    put(
        "damaged_office.docx",  # an OLE2 signature and nothing readable after it
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(4000),
        Case("damaged_office.docx", "failed", ("not a valid word document", "damaged"), "corrupt"),
    )
    put(
        "legacy.docx",  # a Word 97-2003 file renamed
        ole2_file({"WordDocument": b"\x00" * 4096, "1Table": b"\x00" * 512}),
        Case("legacy.docx", "failed", ("legacy word 97",), "unsupported"),
    )
    put(
        "picture.pdf",
        b"\x89PNG\r\n\x1a\n" + rnd.randbytes(2000),
        Case("picture.pdf", "failed", ("png image",), "unsupported"),
    )
    put("letter.txt", r"{\rtf1\ansi hello}", Case("letter.txt", "failed", ("rtf",), "unsupported"))
    put(
        "broken.epub",
        _zip({"mimetype": b"application/epub+zip"}),
        Case("broken.epub", "failed", ("epub",), "corrupt"),
    )
    nested = "<div>" * 20000 + f"deep text {token(12)}" + "</div>" * 20000
    put(
        "deep.html",
        f"<html><body>{nested}</body></html>",
        Case("deep.html", "imported", present=token(12)),
    )
    put(
        "controls.txt",
        "Title\n\n" + "pump valve seal " * 100 + "\x01\x02\x07\x1b" + f" more text {token(13)}" * 50,
        Case("controls.txt", "imported", present=token(13)),
    )
    put("cjk_one_line.txt", CJK * 20000 + token(14), Case("cjk_one_line.txt", "imported", present=token(14)))
    put(
        "name with spaces.md",
        f"# Spaces\n\nvalve {token(15)}\n",
        Case("name with spaces.md", "imported", present=token(15)),
    )
    put("说明书.txt", f"说明书\n\n{CJK} {token(16)}\n", Case("说明书.txt", "imported", present=token(16)))
    put(
        "📘 guide.md",
        f"# Guide\n\nemoji named {token(17)}\n",
        Case("📘 guide.md", "imported", present=token(17)),
    )
    long_name = "长" * 80 + "a" * 11 + ".txt"
    assert len(long_name.encode()) == 255
    put(long_name, f"Long\n\nlong name {token(18)}\n", Case(long_name, "imported", present=token(18)))
    dup = f"Duplicate\n\nsame content {token(19)}\n"
    put("dup_a.txt", dup, Case("dup_a.txt", "imported", present=token(19)))
    put("dup_b.txt", dup, Case("dup_b.txt", "duplicate", ("same content",)))
    put(
        "one/notes.txt",
        f"Notes\n\nfirst folder {token(20)}\n",
        Case("one/notes.txt", "imported", present=token(20)),
    )
    put(
        "two/notes.txt",
        f"Notes\n\nsecond folder {token(21)}\n",
        Case("two/notes.txt", "imported", present=token(21)),
    )
    put(
        "folder.txt/inner.md",
        f"# Inner\n\nfolder named like a file {token(22)}\n",
        Case("folder.txt/inner.md", "imported", present=token(22)),
    )
    put(
        "crlf.txt",
        f"Title\r\n\r\nwindows line ends {token(23)}\r\n",
        Case("crlf.txt", "imported", present=token(23)),
    )
    put(
        "bom.md",
        "\ufeff# BOM\n\n" + f"byte order mark {token(24)}\n",
        Case("bom.md", "imported", present=token(24)),
    )

    os.symlink(".", root / "loop")
    cases.append(Case("loop", "problem", ("symbolic link loop",)))
    os.symlink("selfloop.txt", root / "selfloop.txt")
    cases.append(Case("selfloop.txt", "failed", ("cannot read",), "unreadable"))
    os.symlink("missing-target.txt", root / "dangling.txt")
    cases.append(Case("dangling.txt", "failed", ("cannot read",), "unreadable"))
    os.mkfifo(root / "pipe.txt")
    cases.append(Case("pipe.txt", "failed", ("not a regular file",), "unreadable"))
    # Names in GBK, as a zip made on Chinese Windows extracts on Linux: bytes that are not UTF-8.
    manual, folder = "说明书.txt".encode("gbk"), "手册".encode("gbk")
    (Path(os.fsdecode(os.fsencode(root) + b"/" + manual))).write_text(f"gbk name {token(25)}\n")
    nested = Path(os.fsdecode(os.fsencode(root) + b"/" + folder))
    nested.mkdir()
    (nested / "inside.txt").write_text(f"gbk folder {token(26)}\n")
    for name in (manual, folder):
        cases.append(Case(name.decode("utf-8", "backslashreplace"), "problem", ("not valid UTF-8",)))
    if huge_text:  # reading and chunking are linear: 50 MB on one line is imported, end to end
        with (root / "huge_line.txt").open("w", encoding="ascii") as f:
            chunk = " ".join(rnd.choice(WORDS) for _ in range(10000)) + " "
            f.write(f"{token(41)} ")
            while f.tell() < 50 << 20:
                f.write(chunk)
            f.write(token(42))
        cases.append(Case("huge_line.txt", "imported", present=token(42)))
    return cases
