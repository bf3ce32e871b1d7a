"""Everyday passages no equipment library is about: a per-question yardstick for "unrelated".

How similar a question is to *unrelated* text varies a lot from question to question: e5 puts
a chatty Chinese question like 今天天气怎么样 close to almost any Chinese sentence, while a
specific technical question sits far from everything but its answer. A fixed floor cannot serve
both, and in a small library it let about half of 40 everyday questions through. So a passage
only counts as relevant on meaning if the question is closer to it than to every one of these
sentences in the passage's own script — everyday topics in English and Chinese, deliberately
none of them technical. Per script, because a question is closer to any text in its own language
than to text in the other: a Chinese question answered by an English manual must be compared
with English everyday text, or it would never clear the bar.
(Tested against ``bench/data/out_of_scope.jsonl``, whose questions are not among these.)
"""

from __future__ import annotations

UNRELATED_PASSAGES: dict[str, tuple[str, ...]] = {  # by script, as ``searcher.script_of`` names them
    "latin": (
        "The weather will be sunny tomorrow with a light breeze in the afternoon.",
        "She walked to the market to buy fresh vegetables and a loaf of bread.",
        "The concert last night was crowded, and the band played until midnight.",
        "Our family spent the summer holiday at the beach near the old lighthouse.",
        "He has been learning to play the guitar for three months.",
        "The museum exhibition shows paintings from the nineteenth century.",
        "Drink plenty of water and get enough sleep when you have a cold.",
        "The children built a snowman in the garden after school.",
        "The novel tells the story of two friends who travel across the desert.",
        "Stock prices rose slightly after the central bank's announcement.",
        "Remember to water the tomato plants every morning in hot weather.",
        "The city council approved a new park beside the river.",
        "My grandmother makes dumplings for the spring festival every year.",
        "The football team trained hard before the championship match.",
        "A cup of green tea in the afternoon helps me relax.",
        "The train to the airport leaves every fifteen minutes.",
        "Cats usually sleep for more than twelve hours a day.",
        "The restaurant on the corner serves noodles and fried rice.",
        "The students are preparing for their final exams next week.",
        "A good pair of running shoes makes long walks more comfortable.",
        "The movie won several awards at the international film festival.",
        "He booked a hotel room with a view of the mountains.",
        "The history of the ancient empire spans more than a thousand years.",
        "Wedding guests danced in the courtyard until late in the evening.",
    ),
    "cjk": (
        "明天天气晴朗，下午有微风。",
        "她去市场买了新鲜的蔬菜和一条面包。",
        "昨晚的音乐会人很多，乐队一直演奏到午夜。",
        "我们一家人在老灯塔附近的海滩度过了暑假。",
        "他学弹吉他已经三个月了。",
        "博物馆的展览展出了十九世纪的绘画作品。",
        "感冒的时候要多喝水，保证充足的睡眠。",
        "放学后孩子们在花园里堆了一个雪人。",
        "这部小说讲述了两个朋友穿越沙漠的故事。",
        "央行宣布消息后，股价小幅上涨。",
        "天气炎热时，记得每天早上给番茄浇水。",
        "市议会批准在河边修建一座新公园。",
        "每年春节奶奶都会包饺子。",
        "足球队在决赛前进行了艰苦的训练。",
        "下午喝一杯绿茶能让我放松下来。",
        "去机场的火车每十五分钟一班。",
        "猫通常每天睡十二个小时以上。",
        "街角的餐馆供应面条和炒饭。",
        "学生们正在为下周的期末考试做准备。",
        "一双好的跑鞋能让长距离步行更舒适。",
        "这部电影在国际电影节上获得了多个奖项。",
        "他预订了一间可以看到山景的酒店房间。",
        "这个古代帝国的历史跨越了一千多年。",
        "婚礼的宾客在院子里跳舞直到深夜。",
    ),
}
