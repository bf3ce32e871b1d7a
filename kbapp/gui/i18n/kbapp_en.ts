<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>ImportReportDialog</name>
    <message numerus="yes">
        <source>%n files could not be imported. Everything else is in the library.</source>
        <translation>
            <numerusform>%n file could not be imported. Everything else is in the library.</numerusform>
            <numerusform>%n files could not be imported. Everything else is in the library.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>JobFeedback</name>
    <message numerus="yes">
        <source>%n files imported</source>
        <translation>
            <numerusform>%n file imported</numerusform>
            <numerusform>%n files imported</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n already in the library</source>
        <translation>
            <numerusform>%n already in the library</numerusform>
            <numerusform>%n already in the library</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n could not be imported</source>
        <translation>
            <numerusform>%n could not be imported</numerusform>
            <numerusform>%n could not be imported</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n scanned pages read: their text is searchable now</source>
        <translation>
            <numerusform>%n scanned page read: its text is searchable now</numerusform>
            <numerusform>%n scanned pages read: their text is searchable now</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n could not be read</source>
        <translation>
            <numerusform>%n could not be read</numerusform>
            <numerusform>%n could not be read</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>LibraryCommands</name>
    <message numerus="yes">
        <source>Remove %n documents from the library? The files themselves are not deleted.</source>
        <translation>
            <numerusform>Remove %n document from the library? The file itself is not deleted.</numerusform>
            <numerusform>Remove %n documents from the library? The files themselves are not deleted.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ResultsArea</name>
    <message numerus="yes">
        <source>Searching only %n selected documents.</source>
        <translation>
            <numerusform>Searching only %n selected document.</numerusform>
            <numerusform>Searching only %n selected documents.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Copied %n passages as context for an assistant.</source>
        <translation>
            <numerusform>Copied %n passage as context for an assistant.</numerusform>
            <numerusform>Copied %n passages as context for an assistant.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SourcesPanel</name>
    <message numerus="yes">
        <source>%1 (%n documents)</source>
        <translation>
            <numerusform>%1 (%n document)</numerusform>
            <numerusform>%1 (%n documents)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>StatusBar</name>
    <message numerus="yes">
        <source>%n documents</source>
        <translation>
            <numerusform>%n document</numerusform>
            <numerusform>%n documents</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n passages</source>
        <translation>
            <numerusform>%n passage</numerusform>
            <numerusform>%n passages</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n passages waiting for semantic indexing…</source>
        <translation>
            <numerusform>%n passage waiting for semantic indexing…</numerusform>
            <numerusform>%n passages waiting for semantic indexing…</numerusform>
        </translation>
    </message>
</context>
</TS>
