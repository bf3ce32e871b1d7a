<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>App</name>
    <message>
        <source>Cannot open the library in %1:
%2</source>
        <translation>无法打开位于 %1 的资料库：
%2</translation>
    </message>
</context>
<context>
    <name>CollectionPicker</name>
    <message>
        <source>All documents</source>
        <translation>全部文档</translation>
    </message>
    <message>
        <source>In: %1</source>
        <translation>范围：%1</translation>
    </message>
    <message>
        <source>Search only in the chosen collections</source>
        <translation>只在所选集合中搜索</translation>
    </message>
</context>
<context>
    <name>DocumentsModel</name>
    <message>
        <source>Document</source>
        <translation>文档</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Pages</source>
        <translation>页数</translation>
    </message>
    <message>
        <source>Passages</source>
        <translation>段落</translation>
    </message>
    <message>
        <source>Imported</source>
        <translation>导入时间</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>unknown reason</source>
        <translation>原因不明</translation>
    </message>
    <message>
        <source>Searchable · OCR pending on %1 pages</source>
        <translation>可搜索 · %1 页等待 OCR 识别</translation>
    </message>
    <message>
        <source>Searchable · embedding %1 %</source>
        <translation>可搜索 · 语义索引 %1 %</translation>
    </message>
    <message>
        <source>Searchable · OCR failed on %1 pages</source>
        <translation>可搜索 · %1 页 OCR 识别失败</translation>
    </message>
    <message>
        <source>Searchable</source>
        <translation>可搜索</translation>
    </message>
</context>
<context>
    <name>DropImport</name>
    <message>
        <source>Drop to import into the library</source>
        <translation>松开即可导入资料库</translation>
    </message>
</context>
<context>
    <name>Formatting</name>
    <message>
        <source>pp. %1–%2</source>
        <translation>第 %1–%2 页</translation>
    </message>
    <message>
        <source>p. %1</source>
        <translation>第 %1 页</translation>
    </message>
    <message>
        <source>By dictionary: %1</source>
        <translation>词典对照：%1</translation>
    </message>
    <message>
        <source>source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>The numbered passages below come from the user&apos;s manuals. They were found by search and may not all apply: ignore any passage that does not answer the question, and cite the ones you use by their [number].</source>
        <translation>以下带编号的段落摘自用户的手册，由搜索得到，未必都相关：请忽略与问题无关的段落，并用 [编号] 注明所引用的段落。</translation>
    </message>
    <message>
        <source>Question</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>Matched words: %1</source>
        <translation>匹配的词：%1</translation>
    </message>
    <message>
        <source>Found through the dictionary: %1</source>
        <translation>经词典找到：%1</translation>
    </message>
    <message>
        <source>Keyword match: rank %1 (BM25 %2)</source>
        <translation>关键词匹配：第 %1 名（BM25 %2）</translation>
    </message>
    <message>
        <source>Keyword match: not in the top %1 (BM25 %2)</source>
        <translation>关键词匹配：未进前 %1 名（BM25 %2）</translation>
    </message>
    <message>
        <source>Keyword match: none</source>
        <translation>关键词匹配：无</translation>
    </message>
    <message>
        <source>Semantic match: rank %1 (similarity %2)</source>
        <translation>语义匹配：第 %1 名（相似度 %2）</translation>
    </message>
    <message>
        <source>Semantic match: not in the top %1 (similarity %2)</source>
        <translation>语义匹配：未进前 %1 名（相似度 %2）</translation>
    </message>
    <message>
        <source>Semantic match also with the question read in English (dictionary)</source>
        <translation>语义匹配也参考了问题的英文读法（词典）</translation>
    </message>
    <message>
        <source>Joined from %1 overlapping passages</source>
        <translation>由 %1 个重叠段落合并而成</translation>
    </message>
</context>
<context>
    <name>ImportReportDialog</name>
    <message>
        <source>Files that could not be imported</source>
        <translation>未能导入的文件</translation>
    </message>
    <message numerus="yes">
        <source>%n files could not be imported. Everything else is in the library.</source>
        <translation>
            <numerusform>%n 个文件未能导入，其余文件均已导入资料库。</numerusform>
        </translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
</context>
<context>
    <name>JobFeedback</name>
    <message>
        <source>Something went wrong: %1</source>
        <translation>出现错误：%1</translation>
    </message>
    <message>
        <source>An import did not finish last time: %1 of %2 files were read. Import the other %3?</source>
        <translation>上次的导入没有完成：%2 个文件中已读取 %1 个。要导入其余 %3 个吗？</translation>
    </message>
    <message>
        <source>Resume import</source>
        <translation>继续导入</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>放弃</translation>
    </message>
    <message numerus="yes">
        <source>%n files imported</source>
        <translation>
            <numerusform>已导入 %n 个文件</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n already in the library</source>
        <translation>
            <numerusform>%n 个已在资料库中</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n could not be imported</source>
        <translation>
            <numerusform>%n 个未能导入</numerusform>
        </translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Semantic indexing finished: questions now also find passages by meaning.</source>
        <translation>语义索引已完成：现在提问也能按语义找到段落。</translation>
    </message>
    <message>
        <source>Scanned pages cannot be read yet: %1</source>
        <translation>扫描页暂时无法识别：%1</translation>
    </message>
    <message numerus="yes">
        <source>%n scanned pages read: their text is searchable now</source>
        <translation>
            <numerusform>已识别 %n 个扫描页：其中的文字现在可以搜索了</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n could not be read</source>
        <translation>
            <numerusform>%n 页无法识别</numerusform>
        </translation>
    </message>
    <message>
        <source>stopped: the other pages are read at the next import or start</source>
        <translation>已停止：其余页面将在下次导入或启动时识别</translation>
    </message>
</context>
<context>
    <name>LibraryCommands</name>
    <message>
        <source>Documents (%1);;All files (*)</source>
        <translation>文档 (%1);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Import files</source>
        <translation>导入文件</translation>
    </message>
    <message>
        <source>Import a folder (with its subfolders)</source>
        <translation>导入文件夹（包括子文件夹）</translation>
    </message>
    <message>
        <source>Remove documents</source>
        <translation>移除文档</translation>
    </message>
    <message numerus="yes">
        <source>Remove %n documents from the library? The files themselves are not deleted.</source>
        <translation>
            <numerusform>要从资料库中移除 %n 个文档吗？文件本身不会被删除。</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 is no longer there.</source>
        <translation>%1 已不存在。</translation>
    </message>
    <message>
        <source>The library is consistent.</source>
        <translation>资料库完好。</translation>
    </message>
    <message>
        <source>Library problems</source>
        <translation>资料库问题</translation>
    </message>
</context>
<context>
    <name>LibraryPanel</name>
    <message>
        <source>Filter documents…</source>
        <translation>筛选文档…</translation>
    </message>
    <message>
        <source>Search only the selected documents</source>
        <translation>只搜索选中的文档</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Remove the selected documents from the library (the files stay)</source>
        <translation>从资料库中移除选中的文档（文件本身保留）</translation>
    </message>
    <message>
        <source>Re-import</source>
        <translation>重新导入</translation>
    </message>
    <message>
        <source>Read the selected files again (picks up changes, retries failures)</source>
        <translation>重新读取选中的文件（获取改动，重试失败的文件）</translation>
    </message>
    <message>
        <source>Show file</source>
        <translation>显示文件</translation>
    </message>
    <message>
        <source>Show the file in its folder</source>
        <translation>在所在文件夹中显示文件</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>kbapp — manuals search</source>
        <translation>kbapp — 手册搜索</translation>
    </message>
    <message>
        <source>Library</source>
        <translation>资料库</translation>
    </message>
</context>
<context>
    <name>NoticeBar</name>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>PreviewPane</name>
    <message>
        <source>Previous page</source>
        <translation>上一页</translation>
    </message>
    <message>
        <source>Next page</source>
        <translation>下一页</translation>
    </message>
    <message>
        <source>Zoom out</source>
        <translation>缩小</translation>
    </message>
    <message>
        <source>Zoom in</source>
        <translation>放大</translation>
    </message>
    <message>
        <source>Fit width</source>
        <translation>适合宽度</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>适合宽度</translation>
    </message>
    <message>
        <source>Open the original file with its usual application</source>
        <translation>用默认程序打开原始文件</translation>
    </message>
    <message>
        <source>Open original</source>
        <translation>打开原文件</translation>
    </message>
    <message>
        <source>Select a result to see the passage in its document.</source>
        <translation>选择一条结果，即可在原文档中查看该段落。</translation>
    </message>
    <message>
        <source>Opening the document…</source>
        <translation>正在打开文档…</translation>
    </message>
    <message>
        <source>The original PDF could not be opened; showing its extracted text.</source>
        <translation>无法打开原始 PDF，显示的是提取的文本。</translation>
    </message>
    <message>
        <source>Could not show the document: %1</source>
        <translation>无法显示文档：%1</translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Could not open %1: the file is missing or has no application.</source>
        <translation>无法打开 %1：文件不存在，或没有可以打开它的程序。</translation>
    </message>
    <message>
        <source>Opened %1; the passage is on page %2.</source>
        <translation>已打开 %1，该段落在第 %2 页。</translation>
    </message>
</context>
<context>
    <name>ProgressPanel</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Importing…</source>
        <translation>正在导入…</translation>
    </message>
    <message>
        <source>Preparing to read scanned pages…</source>
        <translation>正在准备识别扫描页…</translation>
    </message>
    <message>
        <source>Preparing semantic indexing…</source>
        <translation>正在准备语义索引…</translation>
    </message>
    <message>
        <source>Importing file %1 of %2</source>
        <translation>正在导入第 %1 个文件，共 %2 个</translation>
    </message>
    <message>
        <source>Reading scanned pages (OCR): %1 of %2 done</source>
        <translation>正在识别扫描页（OCR）：已完成 %1 / %2 页</translation>
    </message>
    <message>
        <source>Semantic indexing: %1 of %2 passages</source>
        <translation>语义索引：%1 / %2 个段落</translation>
    </message>
    <message>
        <source>Keyword search already covers every imported document.</source>
        <translation>所有已导入的文档已可按关键词搜索。</translation>
    </message>
    <message>
        <source>%1, page %2</source>
        <translation>%1，第 %2 页</translation>
    </message>
    <message>
        <source>a few seconds left</source>
        <translation>还需几秒</translation>
    </message>
    <message>
        <source>about %1 s left</source>
        <translation>还需约 %1 秒</translation>
    </message>
    <message>
        <source>about %1 min left</source>
        <translation>还需约 %1 分钟</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
</context>
<context>
    <name>ResultsArea</name>
    <message>
        <source>Opening the library…</source>
        <translation>正在打开资料库…</translation>
    </message>
    <message>
        <source>Nothing was judged relevant to this question. These are the closest passages in the library; check them before relying on them.</source>
        <translation>没有找到与此问题相关的内容。以下是资料库中最接近的段落，使用前请先核对。</translation>
    </message>
    <message>
        <source>Importing your documents…</source>
        <translation>正在导入文档…</translation>
    </message>
    <message>
        <source>Each file can be searched as soon as it has been read.</source>
        <translation>每个文件读取完成后即可搜索。</translation>
    </message>
    <message>
        <source>Search your library</source>
        <translation>搜索资料库</translation>
    </message>
    <message>
        <source>Type a question, a word, an error code or a part number, in Chinese or English. Each result shows its document, page and heading; the page itself appears on the right.</source>
        <translation>输入问题、词语、错误码或零件号，中文或英文均可。每条结果都注明文档、页码和标题，原页面显示在右侧。</translation>
    </message>
    <message>
        <source>Keyword matches only: the semantic model is still loading.</source>
        <translation>仅显示关键词匹配：语义模型仍在加载。</translation>
    </message>
    <message>
        <source>Keyword matches only: semantic search is not available (%1).</source>
        <translation>仅显示关键词匹配：语义搜索不可用（%1）。</translation>
    </message>
    <message>
        <source>Keyword matches only: semantic search is not available.</source>
        <translation>仅显示关键词匹配：语义搜索不可用。</translation>
    </message>
    <message>
        <source>No document mentions %1: the results match the rest of the question.</source>
        <translation>没有任何文档提到 %1：以下结果匹配的是问题的其余部分。</translation>
    </message>
    <message numerus="yes">
        <source>Searching only %n selected documents.</source>
        <translation>
            <numerusform>只搜索选中的 %n 个文档。</numerusform>
        </translation>
    </message>
    <message>
        <source>No passage in the library is close to this question.</source>
        <translation>资料库中没有与这个问题相近的段落。</translation>
    </message>
    <message>
        <source>No document mentions: %1</source>
        <translation>没有任何文档提到：%1</translation>
    </message>
    <message>
        <source>No passage in the library contains these words.</source>
        <translation>资料库中没有包含这些词的段落。</translation>
    </message>
    <message>
        <source>Matching by meaning starts once the semantic model has loaded.</source>
        <translation>语义模型加载完成后，即可按语义匹配。</translation>
    </message>
    <message>
        <source>Only the documents selected in the library were searched.</source>
        <translation>只搜索了资料库中选中的文档。</translation>
    </message>
    <message>
        <source>Search all documents</source>
        <translation>搜索全部文档</translation>
    </message>
    <message>
        <source>Try other or fewer words, a synonym, or the other language.</source>
        <translation>请尝试换用或减少关键词、使用同义词，或换一种语言。</translation>
    </message>
    <message>
        <source>Show the closest passages anyway</source>
        <translation>仍然显示最接近的段落</translation>
    </message>
    <message>
        <source>Nothing found for “%1”</source>
        <translation>没有找到“%1”</translation>
    </message>
    <message>
        <source>%1 (also looked for: %2)</source>
        <translation>%1（也查找了：%2）</translation>
    </message>
    <message>
        <source>The search failed</source>
        <translation>搜索失败</translation>
    </message>
    <message>
        <source>Copied passage [%1] with its source.</source>
        <translation>已复制段落 [%1] 及其出处。</translation>
    </message>
    <message numerus="yes">
        <source>Copied %n passages as context for an assistant.</source>
        <translation>
            <numerusform>已复制 %n 个段落，可作为 AI 助手的上下文。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SearchBar</name>
    <message>
        <source>Ask a question or type a word, code or part number…</source>
        <translation>输入问题，或输入词语、代码、零件号…</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Same as the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>A new language takes effect the next time kbapp starts.</source>
        <translation>更改语言后，下次启动 kbapp 时生效。</translation>
    </message>
    <message>
        <source>Language:</source>
        <translation>语言：</translation>
    </message>
    <message>
        <source>Library folder:</source>
        <translation>资料库文件夹：</translation>
    </message>
</context>
<context>
    <name>SourcesPanel</name>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Last sync</source>
        <translation>上次同步</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件数</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>No sync yet.</source>
        <translation>尚未同步。</translation>
    </message>
    <message>
        <source>Keep dropped folders in sync</source>
        <translation>拖入的文件夹保持同步</translation>
    </message>
    <message>
        <source>A folder dropped on the window is watched: new, changed, moved and deleted files follow.</source>
        <translation>拖入窗口的文件夹会被监视：新增、修改、移动和删除的文件都会同步到资料库。</translation>
    </message>
    <message>
        <source>Watch folder…</source>
        <translation>监视文件夹…</translation>
    </message>
    <message>
        <source>Stop watching</source>
        <translation>停止监视</translation>
    </message>
    <message>
        <source>Sync now</source>
        <translation>立即同步</translation>
    </message>
    <message>
        <source>New…</source>
        <translation>新建…</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Add selected documents</source>
        <translation>添加所选文档</translation>
    </message>
    <message>
        <source>Watched folders</source>
        <translation>监视的文件夹</translation>
    </message>
    <message>
        <source>Collections</source>
        <translation>集合</translation>
    </message>
    <message>
        <source>OK</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>Offline</source>
        <translation>离线</translation>
    </message>
    <message>
        <source>Not synced yet</source>
        <translation>尚未同步</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n documents)</source>
        <translation>
            <numerusform>%1（%n 个文档）</numerusform>
        </translation>
    </message>
    <message>
        <source>Syncing: %1 of %2 changes — %3</source>
        <translation>正在同步：第 %1 / %2 项更改 — %3</translation>
    </message>
    <message>
        <source>Last sync: %1 added, %2 updated, %3 moved, %4 removed, %5 failed, %6 unchanged</source>
        <translation>上次同步：新增 %1，更新 %2，移动 %3，删除 %4，失败 %5，未变 %6</translation>
    </message>
    <message>
        <source>Offline (documents kept): %1</source>
        <translation>离线（文档仍保留）：%1</translation>
    </message>
    <message>
        <source>Watch folder</source>
        <translation>监视文件夹</translation>
    </message>
    <message>
        <source>Put its documents in a collection (optional, a new name creates one):</source>
        <translation>将其文档放入集合（可选，输入新名称即新建集合）：</translation>
    </message>
    <message>
        <source>New collection</source>
        <translation>新建集合</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Rename collection</source>
        <translation>重命名集合</translation>
    </message>
    <message>
        <source>New name:</source>
        <translation>新名称：</translation>
    </message>
</context>
<context>
    <name>SourcesUi</name>
    <message>
        <source>Folders &amp;&amp; collections</source>
        <translation>文件夹与集合</translation>
    </message>
</context>
<context>
    <name>StatusBar</name>
    <message numerus="yes">
        <source>%n documents</source>
        <translation>
            <numerusform>%n 个文档</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n passages</source>
        <translation>
            <numerusform>%n 个段落</numerusform>
        </translation>
    </message>
    <message>
        <source>Loading the semantic model… keyword search works meanwhile</source>
        <translation>正在加载语义模型…此时已可按关键词搜索</translation>
    </message>
    <message>
        <source>Semantic search ready</source>
        <translation>语义搜索已就绪</translation>
    </message>
    <message>
        <source>Keyword search only</source>
        <translation>仅关键词搜索</translation>
    </message>
    <message>
        <source>No semantic model: %1</source>
        <translation>没有语义模型：%1</translation>
    </message>
    <message numerus="yes">
        <source>%n passages waiting for semantic indexing…</source>
        <translation>
            <numerusform>%n 个段落等待语义索引…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TextView</name>
    <message>
        <source>page %1</source>
        <translation>第 %1 页</translation>
    </message>
</context>
<context>
    <name>WelcomePage</name>
    <message>
        <source>Your library is empty</source>
        <translation>资料库还是空的</translation>
    </message>
    <message>
        <source>Drop PDFs, Word, Markdown, text or HTML files or whole folders here</source>
        <translation>把 PDF、Word、Markdown、文本或 HTML 文件，或整个文件夹拖到这里</translation>
    </message>
    <message>
        <source>kbapp reads them on this computer — nothing is uploaded — and answers a question with the exact passages, pages and headings, in Chinese or English.</source>
        <translation>kbapp 在本机读取这些文件，不上传任何内容；提问时给出确切的段落、页码和标题，中英文均可。</translation>
    </message>
    <message>
        <source>Try the sample library</source>
        <translation>试用示例资料库</translation>
    </message>
    <message>
        <source>Import files…</source>
        <translation>导入文件…</translation>
    </message>
    <message>
        <source>Import folder…</source>
        <translation>导入文件夹…</translation>
    </message>
</context>
<context>
    <name>WindowActions</name>
    <message>
        <source>Import &amp;files…</source>
        <translation>导入文件(&amp;F)…</translation>
    </message>
    <message>
        <source>Import f&amp;older…</source>
        <translation>导入文件夹(&amp;O)…</translation>
    </message>
    <message>
        <source>Import the &amp;sample library</source>
        <translation>导入示例资料库(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Copy passage with citation</source>
        <translation>复制段落及出处(&amp;C)</translation>
    </message>
    <message>
        <source>Copy results as &amp;context</source>
        <translation>复制结果作为上下文(&amp;C)</translation>
    </message>
    <message>
        <source>Copy the top passages with their sources, ready to paste into an assistant</source>
        <translation>复制排名靠前的段落及其出处，可直接粘贴给 AI 助手</translation>
    </message>
    <message>
        <source>&amp;Find</source>
        <translation>查找(&amp;F)</translation>
    </message>
    <message>
        <source>Finish &amp;semantic indexing</source>
        <translation>完成语义索引(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Check the library</source>
        <translation>检查资料库(&amp;C)</translation>
    </message>
    <message>
        <source>Cancel import, indexing or OCR</source>
        <translation>取消导入、索引或 OCR</translation>
    </message>
    <message>
        <source>&amp;About kbapp</source>
        <translation>关于 kbapp(&amp;A)</translation>
    </message>
    <message>
        <source>Import files</source>
        <translation>导入文件</translation>
    </message>
    <message>
        <source>Import folder</source>
        <translation>导入文件夹</translation>
    </message>
    <message>
        <source>Copy as context</source>
        <translation>复制为上下文</translation>
    </message>
    <message>
        <source>&amp;Library panel</source>
        <translation>资料库面板(&amp;L)</translation>
    </message>
    <message>
        <source>Library</source>
        <translation>资料库</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Library</source>
        <translation>资料库(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Main toolbar</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source>About kbapp</source>
        <translation>关于 kbapp</translation>
    </message>
    <message>
        <source>kbapp finds the passage you need in your manuals, offline.
Library: %1</source>
        <translation>kbapp 离线在您的手册中找到所需的段落。
资料库：%1</translation>
    </message>
</context>
</TS>
