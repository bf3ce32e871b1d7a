; Inno Setup recipe for kbapp on Windows: a per-user install that needs no administrator rights.
;
;   set KBAPP_VERSION=0.1.0
;   iscc packaging\windows\kbapp.iss        ->  dist\kbapp-<version>-setup.exe
;
; Packs the PyInstaller folder dist\kbapp\ (kbapp.exe: console, the command line;
; kbapp-gui.exe: windowed, what the Start-menu entry runs). Built and tested by
; .github/workflows/windows-installer.yml; see packaging/README.md.

; The version comes from the environment rather than /D or --define, whose spelling differs
; between Inno Setup 6 (/DName=Value) and newer compilers (--define=Name=Value).
#define AppVersion GetEnv("KBAPP_VERSION")
#if AppVersion == ""
  #define AppVersion "0.0.0"
#endif
#define Root AddBackslash(SourcePath) + "..\.."
; x64compatible (below) needs Inno Setup 6.3+ (PREPROCVER: one byte each for major, minor, ...).
#if PREPROCVER < 0x06030000
  #error Inno Setup 6.3 or newer is required
#endif

[Setup]
; AppId identifies the installation for upgrades and the uninstaller: never change it.
AppId={{9CDDB85B-6DBB-49B9-8C38-A21A1FD7EB0F}
AppName=kbapp
AppVersion={#AppVersion}
AppVerName=kbapp {#AppVersion}
AppPublisher=kbapp
; Non administrative install mode only: no UAC prompt even for administrators, and the {auto*}
; constants resolve to the user forms: {autopf} = {userpf} (%LOCALAPPDATA%\Programs),
; {autoprograms} = {userprograms}, uninstall entry under HKCU.
PrivilegesRequired=lowest
DefaultDirName={autopf}\kbapp
DisableProgramGroupPage=yes
DisableDirPage=auto
; PyInstaller builds a 64-bit app: refuse 32-bit Windows, install in 64-bit mode.
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir={#Root}\dist
OutputBaseFilename=kbapp-{#AppVersion}-setup
SetupIconFile={#Root}\packaging\icons\kbapp.ico
UninstallDisplayIcon={app}\kbapp-gui.exe
UninstallDisplayName=kbapp
; The model and Qt libraries compress well together; solid LZMA2 keeps the download small.
Compression=lzma2
SolidCompression=yes
WizardStyle=modern
; Close a running kbapp (Restart Manager) before replacing its files on upgrade or uninstall.
CloseApplications=yes

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"
; Simplified Chinese ships with recent Inno Setup releases; use it when this compiler has it.
#ifexist AddBackslash(CompilerPath) + "Languages\ChineseSimplified.isl"
Name: "chinesesimplified"; MessagesFile: "compiler:Languages\ChineseSimplified.isl"
#endif

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
; The whole one-folder bundle; ignoreversion because PyInstaller's DLLs carry unrelated versions.
Source: "{#Root}\dist\kbapp\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\kbapp"; Filename: "{app}\kbapp-gui.exe"; Comment: "Search your manuals offline"
Name: "{autodesktop}\kbapp"; Filename: "{app}\kbapp-gui.exe"; Tasks: desktopicon

[Run]
Filename: "{app}\kbapp-gui.exe"; Description: "{cm:LaunchProgram,kbapp}"; Flags: nowait postinstall skipifsilent

; The library itself lives in the user's data folder (%LOCALAPPDATA%\kbapp), outside {app}:
; uninstalling removes the program and keeps the user's documents and index.
