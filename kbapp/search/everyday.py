"""Everyday passages no equipment library is about: a per-question yardstick for "unrelated".

How similar a question is to unrelated text varies a lot from question to question: the model
puts a chatty Chinese question like 今天天气怎么样 close to almost any Chinese sentence, while a
precise technical question sits far from everything but its answer. So the best passage of a
language pool only counts if it is closer to the question than the closest of these sentences
in the same language (``relevance``).

The topics were chosen to share none with any question the relevance decision is evaluated on
(``bench/data/oos_heldout.jsonl``, ``bench/data/out_of_scope.jsonl``, the development sets'
out-of-scope questions, the tests): no weather, food or drink, travel, health, sport, music,
film, holidays, weddings, pets, gardens, games, art or clothes here. Home, school, family, town
life, reading and history stand for "everyday" instead.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Callable, Sequence

import numpy as np
from platformdirs import user_cache_path

from kbapp.index.atomic import atomic_write_bytes
from kbapp.text.script import Script

EVERYDAY_PASSAGES: dict[Script, tuple[str, ...]] = {
    Script.LATIN: (
        "The family moved into a new flat on the third floor last spring.",
        "The children are drawing pictures of their grandparents for the school fair.",
        "The post office on the square closes at noon on Saturdays.",
        "The library is open late on Thursdays for students preparing their essays.",
        "My sister is studying law at a university in the capital.",
        "The novel follows three generations of a family in a small fishing village.",
        "The newspaper printed a long article about the local election.",
        "The old castle was built in the twelfth century and rebuilt after a fire.",
        "Remember to call your aunt on her birthday next Sunday.",
        "The teacher asked the class to write a short poem about autumn leaves.",
        "The town hall clock was repaired after fifty years of silence.",
        "The city council voted to plant more trees along the main avenue.",
        "Grandfather tells the same story about his first job every winter.",
        "The kids built a treehouse with their father during the school break.",
        "She keeps her stamp collection in three thick albums on the top shelf.",
        "The bookshop sells second-hand dictionaries and old maps of the region.",
        "He wrote a long letter to an old friend he had not seen for years.",
        "The twins start primary school this September.",
        "Savings accounts paid a little more interest after the bank's announcement.",
        "The parents met the head teacher to discuss the new timetable.",
        "Her son learned to tie his shoelaces before his fifth birthday.",
        "The history lesson covered the rise and fall of the ancient empire.",
        "She keeps every birthday card her children have ever made for her.",
        "The village celebrated its five hundredth anniversary with a parade.",
    ),
    Script.CJK: (
        "去年春天他们一家搬进了三楼的新公寓。",
        "孩子们正在为学校的游园会画爷爷奶奶的画像。",
        "广场上的邮局每周六中午就关门了。",
        "图书馆每周四延长开放时间，方便学生写论文。",
        "我姐姐在首都的一所大学读法律。",
        "这部小说讲述了一个小渔村里一家三代人的故事。",
        "报纸登了一篇关于本地选举的长文章。",
        "这座古城堡建于十二世纪，火灾之后又重建过。",
        "下周日是你姑姑的生日，记得给她打个电话。",
        "老师让全班同学写一首关于秋天落叶的短诗。",
        "沉寂了五十年的市政厅大钟终于修好了。",
        "市议会投票决定在主干道两旁多种些树。",
        "每年冬天爷爷都会讲他第一份工作的故事。",
        "放假的时候孩子们和爸爸一起搭了一座树屋。",
        "她把集邮册放在书架最上层，一共有三大本。",
        "这家书店卖二手词典和本地区的老地图。",
        "他给多年未见的老朋友写了一封长信。",
        "这对双胞胎今年九月上小学。",
        "银行宣布消息后，储蓄存款的利息略有提高。",
        "家长们和校长见面，讨论新的课程表。",
        "她的儿子五岁之前就学会了自己系鞋带。",
        "历史课讲了这个古代帝国的兴起和衰落。",
        "孩子们亲手做的每一张生日贺卡她都留着。",
        "这个村子举行游行，庆祝建村五百周年。",
    ),
}


def everyday_vectors(
    pack_id: str, dimension: int, embed: Callable[[Sequence[str]], np.ndarray], kind: str = "passages"
) -> dict[Script, np.ndarray]:
    """The passages' vectors for pack ``pack_id``, embedded by ``embed`` once and then read from
    the user cache: embedding them cost 0.4 s of every cold search and every window start.
    ``kind`` names how ``embed`` embeds them (as passages, or as questions with the query prefix).

    The cache is named by the pack id (one id names one model, as for the vector index), the kind
    and a digest of the sentences, so editing them or changing the model embeds afresh; an
    unreadable cache, or one of another shape than ``dimension`` wide vectors, is embedded afresh too.
    """
    digest = hashlib.sha256(repr(sorted(EVERYDAY_PASSAGES.items())).encode()).hexdigest()[:16]
    safe_id = "".join(c if c.isalnum() or c in "-_.@" else "_" for c in pack_id)
    name = "everyday" if kind == "passages" else f"everyday-{kind}"
    cache = user_cache_path("kbapp") / f"{name}-{safe_id}-{digest}.npz"
    try:
        with np.load(cache) as stored:
            vectors = {s: stored[s.name] for s in EVERYDAY_PASSAGES}
        shapes = {s: (len(texts), dimension) for s, texts in EVERYDAY_PASSAGES.items()}
        if all(v.shape == shapes[s] and np.isfinite(v).all() for s, v in vectors.items()):
            return vectors
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        pass  # embedded afresh below
    vectors = {s: np.asarray(embed(texts), np.float32) for s, texts in EVERYDAY_PASSAGES.items()}
    buffer = io.BytesIO()
    np.savez(buffer, **{s.name: v for s, v in vectors.items()})
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(cache, buffer.getvalue())
    except OSError:
        pass  # a read-only cache only costs the embedding next time
    return vectors
