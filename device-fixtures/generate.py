#!/usr/bin/env python3
"""Writes the notes-app captures in device-fixtures/ (needs Pillow for the screenshots).

Every notes-* capture answers the embedded playbooks for examples/notes/pack.yaml, in the order
the audit asks: run 1 = sessions cold-start, hypium, scroll, ui, then the flow open-note (with
the ui session after it, for F-02); runs 2 and 3 = cold-start and the flow (P-01 and P-03 ask
for 3 runs). The notes-editor-* captures answer tests/fixtures/packs/editor.yaml: one run of the
flow open-note, then the ui session on the editor. Expected verdicts are asserted by
tests/it/audit.rs and tests/it/flows.rs.

Every capture is transcript format 3, as a recording by this dwpipe writes it: the device's
state (battery, power, thermal zones, brightness, lock, screen) before the first visit and
after the last; each visit of
the audit begins with a `visit` mark (`2 cold-start`: its run plan, which a replay with other
runs is refused on before its first call), each pause is a `sleep` exchange (a cold start's wait inside its trace, a traced step's settle —
the ceilings in run 1, then what the earlier runs needed, src/audit/window.rs — a poll's intervals), each
session that starts the app and each flow's `launch` poll for its window (`ready: window`: no
process at the first look, the window focused and shown 200 ms later, as SceneBoard prints it), and `sessions:` holds the SHA-256 of every file in
playbooks/sessions/, so a changed session makes the audit refuse these captures until this
script runs again.

  notes-pass        cold starts 700/720/760 ms, smooth scroll, 12 vp gap, 48 vp targets,
                    black title on white (21:1), all hypium cases pass        → every check passes
  notes-fail        cold starts 1150/1200/1250 ms, janky scroll (62.5 ms/s), 10 vp gap,
                    a 36 vp unlabeled icon, grey title (2.32:1), one failing case → P-01, P-02,
                    A-01, X-01, X-02, F-01 fail
  notes-pass-v1     notes-pass for the first release's example pack (no flows, no P-03)
  notes-unstable    like notes-pass, but cold starts of 500/720/1100 ms: the median passes, the
                    spread (83% > 25%) is W_MEASUREMENT_UNSTABLE; run 3's cold start and flow
                    are cut short by the windows runs 1-2 showed, and made again at the ceilings
  notes-trace-cut   like notes-pass, but the first cold-start trace ends mid-line before the
                    first frame                                                → P-01 unverified
  notes-no-window   like notes-pass, but the layout dump lacks the app window   → A-01, X-01, X-02 unverified
  notes-no-screenshot like notes-pass, but pulling the screenshot fails         → X-02 unverified

  notes-editor-pass   the editor opens in 700 ms (response 60 ms), 12 vp title-body gap, 48 vp save
  notes-editor-fail   opens in 1400 ms, a 30 vp gap, a 40 vp save button          → A-02, X-03, P-03 fail
  notes-scroll        a flow's swipe on the list: 60 frames, one of them 50 ms, traced and read
                      from RenderService's UniRender records                     → both agree
  notes-screens       not a capture: a fake app fake-hdc serves, answering taps by changing screens
  notes-editor-missing the editor never opens: `wait-for id:editor_title` times out after 2 s
                      (5 dumps)                                                   → A-02, X-03 unverified

  tests/fixtures/packs/stability.yaml (every visit bracketed by the fault records):
  notes-crash         API 22: a JsError as the flow opens a note                  → S-01 fails, P-02 unmeasured
  notes-freeze-5.1    5.1: an appfreeze file during the ui visit                  → S-01 fails, X-01 unmeasured
  notes-stable-5.0, notes-stable-6.0.2  an older crash only                       → S-01 passes
  notes-faults-unread 5.0: hidumper prints no fault-log section                   → S-01 unverified
  notes-gone-6.0.2    API 22: no process left after the ui visit, no record       → X-01 unmeasured
  notes-elsewhere-6.0.2 API 22: a browser's window focused as the ui visit ends   → X-01 unmeasured
  notes-appanalyzer also answers the AppAnalyzer preset's AA-STABILITY.

  tests/fixtures/packs/window.yaml (the app's window and display):
  notes-outer-6.0.2 / notes-outer-5.0   the app on display 5 (named from API 18; a warning before)
  notes-split-6.0.2   the app in the top half of a split screen beside a browser
  notes-fold-expanded / notes-fold-folded  a Mate X5 (FOLD01) in each fold state, its outer
                      screen at 3.0 px/vp
"""
import hashlib, io, json, math, os, shutil, sys
from PIL import Image, ImageDraw

ROOT = os.path.dirname(os.path.abspath(__file__))
BUNDLE, ABILITY = "com.example.notes", "EntryAbility"
VPR = 3.25
HEADER = "# tracer: nop\n#\n#           TASK-PID       TGID    CPU#  ||||   TIMESTAMP  FUNCTION\n#              | |           |       |   ||||      |         |\n"

def line(task, tid, tgid, cpu, us, payload):
    secs, frac = divmod(us, 1_000_000)
    return f"{(task + '-' + str(tid)).rjust(24)} ({str(tgid).rjust(7)}) [{cpu:03d}] .... {secs}.{frac:06d}: tracing_mark_write: {payload}\n"

def window(needs, ceiling_ms):
    """How long the audit leaves a traced window open (src/audit/window.rs): the ceiling in the
    first run, or when an earlier run read nothing; otherwise what the earlier runs needed, a
    quarter more (250 ms at least), in steps of 50 ms, when that is shorter than the ceiling."""
    if not needs or any(n is None for n in needs):
        return ceiling_ms
    n = max(needs)
    return min(math.ceil((n + max(n * 0.25, 250)) / 50) * 50, ceiling_ms)

def within(trace, t0_us, window_ms):
    """The lines of `trace` a window of `window_ms` from `t0_us` recorded."""
    lines = trace.splitlines(keepends=True)
    kept = [l for l in lines if l.startswith("#") or float(l.split(": tracing_mark_write")[0].split()[-1]) * 1e6 <= t0_us + window_ms * 1000 + 0.5]
    return "".join(kept)

def cold_trace(total_ms, window_ms=3000):
    """A cold start whose first frame is on screen `total_ms` after the finger-up at 10 s, as a
    window of `window_ms` from there recorded it (cut before the first frame when shorter)."""
    return within(full_cold_trace(total_ms), 10_000_000, window_ms)

def full_cold_trace(total_ms):
    t0 = 10_000_000
    end = t0 + total_ms * 1000
    at = lambda frac: t0 + int((end - t0) * frac)
    L = []
    L.append(line("mmi_service", 800, 800, 2, t0, "B|800|H:service report touchId:1, type: up|I62"))
    L.append(line("mmi_service", 800, 800, 2, t0 + 50, "E|800|I62"))
    L.append(line("foundation", 600, 600, 3, at(0.03), "B|600|H:OHOS::ErrCode OHOS::AAFwk::AbilityManagerClient::StartUIAbilityBySCB(sptr<SessionInfo>, bool &)|M62"))
    L.append(line("foundation", 600, 600, 3, at(0.04), "E|600|M62"))
    L.append(line("foundation", 600, 600, 3, at(0.07), "B|600|H:virtual void OHOS::AppExecFwk::AppMgrServiceInner::StartProcess(const std::string &, const std::string &)|M62"))
    L.append(line("foundation", 600, 600, 3, at(0.10), "E|600|M62"))
    L.append(line("ffrtwk/CPU-2-16", 4537, 600, 7, at(0.30), f"B|600|H:virtual void OHOS::AppExecFwk::AppMgrServiceInner::AttachApplication(const pid_t, const sptr<OHOS::AppExecFwk::IAppScheduler> &)##{BUNDLE}|M62"))
    L.append(line("ffrtwk/CPU-2-16", 4537, 600, 7, at(0.31), "E|600|M62"))
    L.append(line("m.example.notes", 5000, 5000, 4, at(0.37), f"B|5000|H:void OHOS::AppExecFwk::MainThread::HandleLaunchAbility(const std::shared_ptr<AbilityLocalRecord> &)##{BUNDLE}|M62"))
    L.append(line("m.example.notes", 5000, 5000, 4, at(0.55), "E|5000|M62"))
    L.append(line("m.example.notes", 5000, 5000, 4, at(0.62), "B|5000|H:void OHOS::AbilityRuntime::UIAbilityThread::HandleAbilityTransaction(const Want &, const LifeCycleStateInfo &, sptr<SessionInfo>)|M62"))
    L.append(line("m.example.notes", 5000, 5000, 4, at(0.70), "E|5000|M62"))
    L.append(line("m.example.notes", 5000, 5000, 4, at(0.88), "B|5000|H:ReceiveVsync dataCount:24bytes now:1 expectedEnd:2 vsyncId:1|M62"))
    L.append(line("m.example.notes", 5000, 5000, 4, at(0.89), "B|5000|H:MarshRSTransactionData cmdCount:20 transactionFlag:[5000,1]|M62"))
    L.append(line("m.example.notes", 5000, 5000, 4, at(0.895), "E|5000|M62"))
    L.append(line("m.example.notes", 5000, 5000, 4, at(0.90), "E|5000|M62"))
    L.append(line("render_service", 1252, 1252, 2, at(0.92), "B|1252|H:RSMainThread::ProcessCommandUni [5000,1]|M0538"))
    L.append(line("render_service", 1252, 1252, 2, at(0.93), "E|1252|M0538"))
    L.append(line("RSHardwareThrea", 1683, 1252, 1, at(0.95), "B|1252|H:CommitLayers rate:60,now:1,vsyncId:2,size:2,|M0538"))
    L.append(line("RSHardwareThrea", 1683, 1252, 1, at(0.96), "E|1252|M0538"))
    L.append(line("Present Fence", 1700, 1252, 0, at(0.97), "B|1252|H:Waiting for Present Fence 101|I38"))
    L.append(line("Present Fence", 1700, 1252, 0, end, "E|1252|I38"))
    return HEADER + "".join(L)

def scroll_trace(intervals_us):
    out, t = HEADER, 1_000_000
    out += line("RSHardwareThrea", 1683, 1252, 1, t - 5000, "B|1252|H:CommitLayers rate:60,now:0,vsyncId:0,size:1,|M0538")
    out += line("RSHardwareThrea", 1683, 1252, 1, t - 4000, "E|1252|M0538")
    times = [t]
    for d in intervals_us:
        times.append(times[-1] + d)
    for i, end in enumerate(times):
        out += line("Present Fence", 37819, 1252, 0, end - 2000, f"B|1252|H:Waiting for Present Fence {1000 + i}|I38")
        out += line("Present Fence", 37819, 1252, 0, end, "E|1252|I38")
    return out

def node(attrs, children=()):
    base = {"bounds": "", "clickable": "false", "description": "", "enabled": "true", "id": "", "key": "", "origBounds": "", "scrollable": "false", "text": "", "type": ""}
    base.update(attrs)
    return {"attributes": base, "children": list(children)}

def rect(l, t, r, b):
    return {"origBounds": f"[{l},{t}][{r},{b}]", "bounds": f"[{l},{t}][{r},{b}]"}

TITLE = (48, 200, 600, 300)

px = lambda vp: round(vp * VPR)

def item_rect(i, gap_vp):
    top = 400 + i * (px(60) + px(gap_vp))
    return (48, top, 1212, top + px(60))

def centre(r):
    return ((r[0] + r[2]) // 2, (r[1] + r[3]) // 2)

def layout(gap_vp, small_icon, with_app=True):
    items = [node({"id": f"note_item_{i}", "type": "ListItem", "text": f"Note {i}", "clickable": "true", **rect(*item_rect(i, gap_vp))}) for i in range(3)]
    children = [
        node({"id": "note_title", "type": "Text", "text": "My notes", **rect(*TITLE)}),
        node({"id": "note_list", "type": "List", "scrollable": "true", **rect(0, 380, 1260, 2400)}, items),
        node({"id": "add_button", "type": "Button", "text": "Add", "clickable": "true", **rect(1000, 2450, 1000 + px(48), 2450 + px(48))}),
    ]
    if small_icon:
        children.append(node({"type": "Image", "clickable": "true", **rect(100, 2450, 100 + px(36), 2450 + px(36))}))
    return dump(children, with_app)

def dump(children, with_app=True):
    windows = []
    if with_app:
        windows.append(node({"type": "root", "bundleName": BUNDLE, "abilityName": ABILITY, **rect(0, 123, 1260, 2720)}, [node({"type": "Column", **rect(0, 123, 1260, 2720)}, children)]))
    windows.append(node({"type": "WindowScene", "bundleName": "com.ohos.sceneboard", "id": "session33", **rect(0, 0, 1260, 123)}))
    return json.dumps({"attributes": {"bounds": "[0,0][1260,2720]", "origBounds": "", "type": ""}, "children": windows}, indent=1)

def save_rect(save_vp):
    return (1000, 2450, 1000 + px(save_vp), 2450 + px(save_vp))

def editor(gap_vp=12, save_vp=48, toast=False):
    """The note editor: a title input, the body 12 vp (or `gap_vp`) below it, a save button."""
    title_bottom = 200 + px(40)
    children = [
        node({"id": "editor_title", "type": "TextInput", "text": "Groceries", **rect(48, 200, 1212, title_bottom)}),
        node({"id": "editor_body", "type": "TextArea", "text": "Milk, eggs", **rect(48, title_bottom + px(gap_vp), 1212, 1800)}),
        node({"id": "btn_save", "type": "Button", "text": "Save", "clickable": "true", **rect(*save_rect(save_vp))}),
    ]
    if toast:
        children.append(node({"id": "toast", "type": "Text", "text": "Note saved", **rect(380, 2200, 880, 2320)}))
    return dump(children)

def screenshot(title_colour):
    img = Image.new("RGB", (1260, 2720), (255, 255, 255))
    d = ImageDraw.Draw(img)
    l, t, r, b = TITLE
    d.rectangle([l + 20, t + 30, l + 300, t + 70], fill=title_colour)  # the title's glyphs, as a block
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()

def editor_png(toast):
    img = Image.new("RGB", (1260, 2720), (255, 255, 255))
    d = ImageDraw.Draw(img)
    d.rectangle([68, 230, 500, 300], fill=(0, 0, 0))
    if toast:
        d.rectangle([380, 2200, 880, 2320], fill=(50, 50, 50))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()

def response_trace(complete_ms, lane=True, window_ms=2000):
    """A tap at 20 s: the page switch starts 40 ms later (response 60 ms with the 20 ms
    compensation), frames are composed every 16 ms until `complete_ms` - 32 ms (completion,
    with the 32 ms display time, is `complete_ms`), then the screen stays still for the rest of
    the trace, which ends `window_ms` after the tap (without a completion when the screen had
    not stood still 300 ms by then)."""
    return within(full_response_trace(complete_ms, lane, window_ms), 20_000_000, window_ms)

def full_response_trace(complete_ms, lane, window_ms):
    t0 = 20_000_000
    L = [line("mmi_service", 800, 800, 2, t0 - 80_000, "B|800|H:service report touchId:2, type: down|I62"),
         line("mmi_service", 800, 800, 2, t0 - 79_950, "E|800|I62"),
         line("mmi_service", 800, 800, 2, t0, "B|800|H:service report touchId:2, type: up|I62"),
         line("mmi_service", 800, 800, 2, t0 + 50, "E|800|I62")]
    if lane:
        L.append(line("render_service", 1252, 1252, 2, t0 + 40_000, f"S|1252|H:ABILITY_OR_PAGE_SWITCH, {BUNDLE}, pages/Editor, 1717000000000, IMPLICIT_ANIMATOR, uid0|7|M0538"))
    last = t0 + (complete_ms - 32) * 1000
    t = t0 + 16_000
    while t < last:
        L.append(line("render_service", 1252, 1252, 2, t, f"B|1252|H:RSMainThread::DoComposition: {t}|I38"))
        L.append(line("render_service", 1252, 1252, 2, t + 3000, "E|1252|I38"))
        t += 16_000
    L.append(line("render_service", 1252, 1252, 2, last, f"B|1252|H:RSMainThread::DoComposition: {last}|I38"))
    L.append(line("render_service", 1252, 1252, 2, last + 3000, "E|1252|I38"))
    if lane:
        L.append(line("render_service", 1252, 1252, 2, last + 4000, f"F|1252|H:ABILITY_OR_PAGE_SWITCH, {BUNDLE}, pages/Editor, 1717000000000, IMPLICIT_ANIMATOR, uid0|7|M0538"))
    L.append(line("hitrace", 900, 900, 1, t0 + window_ms * 1000, "B|900|H:trace finish|M62"))
    return HEADER + "".join(L)

def hypium(failing):
    cases = [("NoteListTest", "saves", "0"), ("NoteListTest", "deletes", "-2" if failing else "0")]
    out = ""
    for cls, test, code in cases:
        block = f"OHOS_REPORT_STATUS: class={cls}\nOHOS_REPORT_STATUS: current=1\nOHOS_REPORT_STATUS: id=JS\nOHOS_REPORT_STATUS: numtests=2\nOHOS_REPORT_STATUS: stream=\nOHOS_REPORT_STATUS: test={test}\n"
        out += f"{block}OHOS_REPORT_STATUS_CODE: 1\n\n{block}OHOS_REPORT_STATUS_CODE: {code}\nOHOS_REPORT_STATUS: consuming=4\n\n"
    fail = 1 if failing else 0
    return out + f"OHOS_REPORT_RESULT: stream=Tests run: 2, Failure: {fail}, Error: 0, Pass: {2 - fail}, Ignore: 0\nOHOS_REPORT_CODE: 0\n"

WMS = """----------------------------------WindowManagerService----------------------------------
-------------------------------------ScreenGroup 1-------------------------------------
WindowName           DisplayId Pid     WinId Type Mode Flag ZOrd Orientation [ x    y    w    h    ]
SystemUi_StatusBar   0         1572    9     2108 102  0    2    0           [ 0    0    1260 123  ]
notes0               0         5000    13    1    1    0    1    0           [ 0    0    1260 2720 ]
---------------------------------------------------------------------------------------  (Separator Line Between Foreground and Background Windows)
ScreenLockWindow     0         1572    4     2110 1    0    -1   0           [ 0    0    1260 2720 ]
Focus window: 13
total window num: 3
"""

# `hidumper -s WindowManagerService -a '-w 13'` as SceneBoard prints it (the Mate 60 Pro is a
# SceneBoard phone: `IsStartingWindow: -`, a constant first-frame flag, `IsVisible`), the
# app's window shown (scene_session_manager.cpp, GetSpecifiedSessionDumpInfo).
WMS_W13 = """----------------------------------WindowManagerService----------------------------------
WindowName: notes0
DisplayId: 0
WinId: 13
Pid: 5000
Type: 1
Mode: 1
Flag: 0
Orientation: 0
IsStartingWindow: -
FirstFrameCallbackCalled: 1
IsVisible: true
Focusable: true
DecoStatus: true
isPrivacyMode: false
WindowRect: [ 0, 0, 1260, 2720 ]
TouchHotAreas: 
"""

STATE_FIELDS = [
    ("battery", "hidumper -s BatteryService -a -i"),
    ("power", "hidumper -s PowerManagerService -a -s"),
    ("thermal", "hidumper -s ThermalService -a -t"),
    ("display", "hidumper -s 3308 -a -a"),
    ("lock", "hidumper -s 3704 -a -all"),
    ("users", "hidumper -s 200 -a -os_account_infos"),
    ("screen", "hidumper -s RenderService -a screen"),
    ("displays", "hidumper -s DisplayManagerService -a -a"),
]
STATE_COMMAND = "; ".join(f"echo __DWPIPE_STATE={f}; {c}" for f, c in STATE_FIELDS)

def sa(name):
    return f"\n-------------------------------[ability]-------------------------------\n\n\n----------------------------------{name}---------------------------------\n"

def lock_lines(users):
    """ScreenlockService -all: one ` * screenLocked` line a user since 5.1 (`users`: (id, locked,
    foreground)), one line with a description before it (`users` None)."""
    if users is None:
        return " * deviceLocked  \t\tfalse\t\twhether there is device locked\n * screenLocked  \t\tfalse\t\twhether there is lock screen status\n"
    return "".join(f" * deviceLocked  \t\t{str(l).lower()}\t\t{u}\n" for u, l, _ in users) + \
           "".join(f" * screenLocked  \t\t{str(l).lower()}\t\t{u}\n" for u, l, _ in users)

def accounts(users):
    """AccountMgr -os_account_infos (5.1+): `ID:` and `isForeground:` a user
    (os_account_manager_service.cpp DumpStateByAccounts); before 5.1 its usage text."""
    if users is None:
        return "Usage:dump <command> [options]\nDescription:\n-account_info          dump all account information in the system\n"
    return "OsAccount info:\n" + "".join(
        f"    ID: {u}\n    \tName: O**r\n    \tType: {'admin' if u == 100 else 'private'}\n    \tStatus: active\n    \tisForeground: {1 if fg else 0}\n    \tdispalyId: 0\n    \tConstraints: *\n    \n"
        for u, _, fg in users)

ONE_USER = [(100, False, True)]

def display_dump(fold="UNKNOWN", screens=((0, 1260, 2720, 3.25),)):
    """SceneBoard's DisplayManagerService `-a -a` (screen_session_dumper.cpp ShowAllScreenInfo):
    each screen's block, the fold state before it (`UNKNOWN` on a phone that does not fold)."""
    out = sa("DisplayManagerService")
    for sid, w, h, vpr in screens:
        out += (f"---------------- Screen ID: {sid} ----------------\n"
                f"PhysicalFoldStatus:           {fold}\nFoldLockStatus:               UNLOCKED\nDisplayFoldStatus:            {fold}\nTentMode:                     false\n"
                f"[SCREEN SESSION]\nName:                         {'SubScreen' if sid else 'FullScreen'}\nDisplayId:                    {sid}\nRSScreenId:                   {sid}\nisInternal:                   true\n"
                f"activeModes<id, W, H, RS>:    0, {w}, {h}, 120\n[SCREEN INFO]\nVirtualWidth:                 {round(w / vpr)}\nVirtualHeight:                {round(h / vpr)}\nVirtualPixelRatio:            {vpr}\n")
    return out

def state_reply(battery=90, charging=0, temperature=300, soc=36000, locked=False, hz=60, users=ONE_USER, displays=None):
    """What the device says of its state (src/device/state.rs), each service as its printer
    writes it: BatteryService -i (real captures' keys), PowerManagerService -s, ThermalService
    -t (ShowThermalZoneInfo), DisplayPowerManagerService (3308), ScreenlockService (3704)
    -all (one line a user since 5.1: `users`; None before), AccountMgr (200)
    -os_account_infos, RenderService screen."""
    plugged = 0 if charging == 0 else 2
    if users is None:
        lock = lock_lines(None).replace("false", "true") if locked else lock_lines(None)
    else:
        lock = lock_lines([(u, True, fg) for u, _, fg in users] if locked else users)
    return (f"__DWPIPE_STATE=battery\n{sa('BatteryService')}capacity: {battery} \nchargingStatus: {charging} \nhealthState: 1 \npluggedType: {plugged} \nvoltage: 4000000 \npresent: 1 \nnowCurrent: -400 \ntemperature: {temperature} \n"
            f"__DWPIPE_STATE=power\n{sa('PowerManagerService')}POWER STATE DUMP:\nCurrent State: AWAKE  Reason: 20  Time: 100\nScreenOffTime: Timeout=600000ms\n"
            f"__DWPIPE_STATE=thermal\n{sa('ThermalService')}Type: soc_thermal\nTemperature: {soc}\nType: shell_front\nTemperature: 31000\n"
            f"__DWPIPE_STATE=display\n{sa('DisplayPowerManagerService')}DISPLAY POWER MANAGER DUMP:\nDisplay Id=0 State=2 Discount=1.000000 Brightness=120\nDeviceBrightness=120\nSupport Ambient Light: TRUE\nAuto Adjust Brightness: OFF\nBrightness Limits: Max=255 Min=5 Default=102\n"
            f"__DWPIPE_STATE=lock\n{sa('ScreenlockService')}{lock}"
            f"__DWPIPE_STATE=users\n{sa('AccountMgr')}{accounts(users)}"
            f"__DWPIPE_STATE=screen\n{sa('RenderService')}-- ScreenInfo\nscreen[0]: id=0, powerstatus=POWER_STATUS_ON, render size: 1260x2720, physical screen resolution: 1260x2720, isvirtual=false\n  activeMode: 1260x2720, refreshrate={hz}\n"
            f"__DWPIPE_STATE=displays\n{displays or display_dump()}")

def session_hashes():
    """The `sessions:` of a recording: each embedded session's SHA-256, as dwpipe hashes its file."""
    folder = os.path.join(ROOT, "..", "playbooks", "sessions")
    out = []
    for file in sorted(os.listdir(folder)):
        text = open(os.path.join(folder, file), "rb").read()
        name = next(l.split(":", 1)[1].strip() for l in text.decode().splitlines() if l.startswith("session:"))
        out.append((name, hashlib.sha256(text).hexdigest()))
    return sorted(out)

def yaml_str(text):
    return json.dumps(text)  # JSON strings are YAML double-quoted scalars

def self_stat(seconds, pid=7001):
    """`cat /proc/self/stat` as the kernel prints it: the reading `cat`'s own line, field 22 its
    start in ticks (USER_HZ, 100) since boot: the device's clock (src/device/state.rs)."""
    return f"{pid} (cat) R 1 1 0 0 -1 4194560 90 0 0 0 0 0 0 0 20 0 1 0 {round(seconds * 100)} 9000000 200 0 0 0\n"

# Each release family a phone of the fixtures can run (device-fixtures/access.yaml): its API
# level and a software version of a phone on it.
RELEASES = {
    "3.2": (9, "ALN-AL00 3.2.0.100"),
    "4.0": (10, "ALN-AL00 4.0.0.60"),
    "4.1": (11, "ALN-AL00 4.1.0.80"),
    "5.0": (12, "ALN-AL00 5.0.0.22(SP35DEVC00E22R4P1log)"),
    "5.1": (18, "ALN-AL00 5.1.0.150(SP8C00E150R4P3)"),
}
# Phones of a later release a capture may be of, but whose shell the releases-* captures do
# not cover: HarmonyOS 6.0.2 is API 22, whose hidumper lists abnormal exits (`-e --list`).
LATER = {"6.0.2": (22, "ALN-AL00 6.0.2.120(SP3C00E120R2P1)")}

class Capture:
    def __init__(self, name, comment, release="5.0", users=ONE_USER, displays=None):
        self.dir = os.path.join(ROOT, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(os.path.join(self.dir, "files"))
        self.lines = [f"# {c}" for c in comment.splitlines()] + ["format-version: 3", "recorded-by: device-fixtures/generate.py", "sessions:"]
        self.lines += [f"  {name}: {sha}" for name, sha in session_hashes()]
        self.lines.append("exchanges:")
        self.due = None  # a flow step's screenshot left to the next step's first dump
        self.release = release
        self.users = users if release not in ("3.2", "4.0", "4.1", "5.0") else None
        self.displays = displays  # the DisplayManagerService dump of its state calls (a phone at rest: None)
        self.shell(STATE_COMMAND, self.state())  # the device's state before its runs
    def shell(self, command, reply="", fault=None, status=0):
        self.lines.append(f"  - shell: {command}")
        self.lines.append(f"    reply: {yaml_str(reply)}")
        if status:
            self.lines.append(f"    status: {status}")
        if fault:
            self.lines.append(f"    fault: {fault}")
    def state(self):
        """The state call's reply: before 4.2 the legacy display manager refuses `-a -a`."""
        legacy = sa("DisplayManagerService") + "The arguments are illegal and you can enter '-h' for help.\n"
        displays = legacy if self.release in ("3.2", "4.0", "4.1") else self.displays
        return state_reply(users=self.users, displays=displays)
    def api(self):
        return (RELEASES.get(self.release) or LATER[self.release])[0]
    def layout_command(self, remote):
        """uitest's dump: from 5.1 (API 18) of the app's windows on the display its window is
        on (display 0, where every capture's readiness poll found it)."""
        display = getattr(self, "display", 0)
        named = f" -b {BUNDLE} -d {display}" if self.api() >= 18 else ""
        return f"uitest dumpLayout -p {remote}{named}"
    def screen_command(self, remote):
        named = f" -d {getattr(self, 'display', 0)}" if self.api() >= 18 else ""
        return f"uitest screenCap -p {remote}{named}"
    def rm(self, remote):
        """A device file removed before the step that writes it (an earlier run's is never pulled)."""
        self.shell(f"rm -f {remote}")
    def clock(self, seconds):
        """The device's clock just before a trace begins (the reading `cat`'s start, from
        /proc/self/stat): the trace pulled must end after it."""
        self.shell("cat /proc/self/stat", self_stat(seconds))
    def visit(self, label):
        """Where a visit of the audit begins: its run and session (or `flow NAME`)."""
        self.lines.append(f"  - visit: {label}")
    def sleep(self, ms):
        """A pause the audit takes on the device's time: a playbook's fixed wait, a flow's settle, a poll's interval."""
        self.lines.append(f"  - sleep: {ms}ms")
    def ready(self, ceiling_ms=2000):
        """A readiness poll after `aa start` (a session's `ready: window`, a flow's `launch`):
        the app has no process at the first look; at the second, after the poll's 200 ms (or
        its ceiling, when that is sooner), its window is focused and drawn."""
        self.shell(f"pidof {BUNDLE}", "", status=1)
        self.sleep(min(200, ceiling_ms))
        self.shell(f"pidof {BUNDLE}", "5000\n")
        table, detail = getattr(self, "windows", (WMS, WMS_W13))
        self.shell("hidumper -s WindowManagerService -a -a", table)
        self.shell("hidumper -s WindowManagerService -a '-w 13'", detail)
    def start(self):
        """A session's `start`: `aa start`, then the readiness poll."""
        self.shell(f"aa start -b {BUNDLE} -a {ABILITY}", "start ability successfully.\n")
        self.ready()
    def pull(self, remote, name, data):
        """A pulled file; the same bytes pulled again (a flow's screens) are kept once."""
        digest = hashlib.sha256(data).hexdigest()
        kept = getattr(self, "kept", {})
        self.kept = kept
        if digest in kept:
            name = kept[digest]
        else:
            kept[digest] = name
            with open(os.path.join(self.dir, "files", name), "wb") as f:
                f.write(data)
        self.lines += [f"  - pull: {remote}", f"    file: files/{name}", f"    sha256: {digest}"]
    def dump(self, run, step, data):
        """A flow step's dump; a screenshot left due by the step before is taken beside it."""
        remote = f"/data/local/tmp/dwpipe-flow-{run}-{step:02}.json"
        name = f"flow-{run}-{step:02}.json"
        if self.due:
            screen, png, png_name = self.due
            self.due = None
            self.both(screen, png, png_name, remote, data, name)
            return
        self.rm(remote)
        self.shell(self.layout_command(remote), f"DumpLayout saved to:{remote}\n")
        self.pull(remote, name, data.encode())
    def step_screen(self, run, step, png, name, due=False):
        """The screenshot after a flow step; `due`: left to the next step's first dump."""
        remote = f"/data/local/tmp/dwpipe-step-{run}-{step:02}.png"
        if due:
            self.due = (remote, png, name)
            return
        self.rm(remote)
        self.shell(self.screen_command(remote), f"ScreenCap saved to {remote}\n")
        self.pull(remote, name, png)
    def both(self, screen, png, png_name, layout_remote, layout_json, layout_name, no_screenshot=False):
        """A screenshot and a dump of one screen side by side in one call (src/audit/capture.rs):
        both files removed in one call first, each tool's status echoed, the dump pulled first."""
        self.shell(f"rm -f {screen} {layout_remote}")
        self.shell(f"{self.screen_command(screen)} & {self.layout_command(layout_remote)}; echo __DWPIPE_DUMPED=$?; wait $!; echo __DWPIPE_SHOT=$?",
                   f"DumpLayout saved to:{layout_remote}\n__DWPIPE_DUMPED=0\nScreenCap saved to {screen}\n__DWPIPE_SHOT=0\n")
        self.pull(layout_remote, layout_name, layout_json.encode())
        if no_screenshot:
            self.lines += [f"  - pull: {screen}", f"    reply: \"[Fail]Error opening file: no such file or directory, path:{screen}\\r\\n\"", "    fault: hdc-reply"]
        else:
            self.pull(screen, png_name, png)
    def ui_session(self, run, layout_json, png, no_screenshot=False):
        """The ui session on the launch screen: `aa start`, the readiness poll, its `dump`
        and its `screenshot` side by side. (After a flow that ended on a wait, the session
        makes no call: the flow's last dump and screenshot are its.)"""
        self.start()
        self.both(f"/data/local/tmp/dwpipe-{run}-screen.png", png, f"screen-{run}.png",
                  f"/data/local/tmp/dwpipe-{run}-layout.json", layout_json, f"layout-{run}.json", no_screenshot)
    def finish(self):
        self.shell(STATE_COMMAND, self.state())  # and after them
        api, software = RELEASES.get(self.release) or LATER[self.release]
        with open(os.path.join(self.dir, "device.yaml"), "w") as f:
            f.write(getattr(self, "identity", None) or f"# A HUAWEI Mate 60 Pro running the example notes app (OpenHarmony {self.release}).\nserial: FMR0223C13000649\nname: HUAWEI Mate 60 Pro\nmodel: ALN-AL00\nsoftware-version: {software}\napi-level: {api}\nvirtual-pixel-ratio: 3.25\nrefresh-rate: 60\ndisplay-size: [1260, 2720]\n")
        with open(os.path.join(self.dir, "transcript.yaml"), "w") as f:
            f.write("\n".join(self.lines) + "\n")

COLD_CEILING_MS = 3000  # cold-start.yaml's wait inside the trace

def cold_session(c, run, ms, earlier=(), cut=False):
    """A cold start of `ms`: the wait inside the trace is what the `earlier` runs' readings
    showed it needs (the ceiling in run 1); a window that cuts the first frame off is made
    again at the ceiling. `cut`: the trace ends mid-line before the first frame (a fault, read
    as nothing). Returns the reading."""
    wait = window(list(earlier), COLD_CEILING_MS)
    if not cut and ms > wait:
        cold_attempt(c, run, cold_trace(ms, wait), wait, "-cut")
        wait = COLD_CEILING_MS
    trace = cold_trace(ms, wait)
    if cut:
        trace = trace[: trace.index("Waiting for Present Fence 101") - 60]
    cold_attempt(c, run, trace, wait)
    return None if cut else ms

def cold_attempt(c, run, trace, wait, suffix=""):
    c.rm(f"/data/local/tmp/dwpipe-cold-{run}.ftrace")
    c.shell(f"aa force-stop {BUNDLE}", "force stop process successfully.\n")
    c.clock(9.5)  # the cold start's trace begins at 10 s of uptime
    c.shell("hitrace -b 65536 app ability ace graphic multimodalinput ohos --trace_begin")
    c.shell(f"aa start -b {BUNDLE} -a {ABILITY}", "start ability successfully.\n")
    c.sleep(wait)  # inside the trace: its ceiling, or what earlier runs showed
    c.shell(f"hitrace --trace_finish -o /data/local/tmp/dwpipe-cold-{run}.ftrace")
    c.pull(f"/data/local/tmp/dwpipe-cold-{run}.ftrace", f"cold-{run}{suffix}.ftrace", trace.encode())

TRACE_BEGIN = "hitrace -b 65536 app ability ace graphic multimodalinput ohos --trace_begin"

def launch_step(c, run, list_png, timeout_ms=2000, due=True):
    """Step 1, `launch: cold`; its screenshot goes with step 2's first dump (`due`) unless
    RenderService's records are read between them."""
    c.shell(f"aa force-stop {BUNDLE}", "force stop process successfully.\n")
    c.shell(f"aa start -b {BUNDLE} -a {ABILITY}", "start ability successfully.\n")
    c.ready(timeout_ms)  # a flow's launch polls for the window, its timeout the ceiling
    c.step_screen(run, 1, list_png, "list.png", due)

STEP_CEILING_MS = 2000  # a flow step's default timeout: a traced step's longest settle

def step_settle(earlier, ceiling_ms=STEP_CEILING_MS):
    """A traced tap's settle: what the earlier runs' completions needed (the completion and
    the 300 ms still gap after it), the step's timeout in run 1."""
    return window([None if ms is None else ms + 300 for ms in earlier], ceiling_ms)

def completes_within(complete_ms, settle_ms):
    """Whether a trace of `settle_ms` after the tap shows the completion: the last frame
    (`complete_ms` - 32 ms) and 300 ms of stillness after it."""
    return complete_ms - 32 + 300 <= settle_ms

def open_step(c, run, list_json, gap_vp, trace, editor_png_bytes, settle_ms=2000, suffix=""):
    """Step 2, `click id:note_item_1` named open, traced for perf.response."""
    c.dump(run, 2, list_json)
    x, y = centre(item_rect(1, gap_vp))
    c.rm(f"/data/local/tmp/dwpipe-step-{run}-02.ftrace")
    c.clock(19.5)  # the tap's trace begins at 19.92 s of uptime
    c.shell(TRACE_BEGIN)
    c.shell(f"uitest uiInput click {x} {y}")
    c.sleep(settle_ms)  # a traced step settles for its timeout, or what earlier runs showed
    c.shell(f"hitrace --trace_finish -o /data/local/tmp/dwpipe-step-{run}-02.ftrace")
    c.pull(f"/data/local/tmp/dwpipe-step-{run}-02.ftrace", f"step-{run}-02{suffix}.ftrace", trace.encode())
    c.step_screen(run, 2, editor_png_bytes, "editor.png", due=True)  # step 3 waits: a dump first

def open_note_flow(c, run, gap_vp, title_colour, complete_ms, earlier=()):
    """The example pack's flow: launch, open the second note, wait for the editor, save, wait
    for the toast (F-02's ui session after it in run 1 takes step 5's dump and screenshot: no
    call). The tap settles for what the `earlier` runs' completions needed; a settle that cuts
    the completion off makes the whole flow again at the step's timeout. Returns the reading."""
    settle = step_settle(earlier)
    if not completes_within(complete_ms, settle):
        open_note_attempt(c, run, gap_vp, title_colour, complete_ms, settle, "-cut")
        settle = STEP_CEILING_MS
    open_note_attempt(c, run, gap_vp, title_colour, complete_ms, settle)
    return complete_ms

def open_note_attempt(c, run, gap_vp, title_colour, complete_ms, settle, suffix=""):
    plain, toasted = editor_png(False), editor_png(True)
    launch_step(c, run, screenshot(title_colour))
    open_step(c, run, layout(gap_vp, False), gap_vp, response_trace(complete_ms, window_ms=settle), plain, settle, suffix)
    c.dump(run, 3, editor())
    c.step_screen(run, 3, plain, "editor.png", due=True)
    c.dump(run, 4, editor())
    bx, by = centre(save_rect(48))
    c.shell(f"uitest uiInput click {bx} {by}")
    c.step_screen(run, 4, toasted, "editor-toast.png", due=True)
    c.dump(run, 5, editor(toast=True))
    c.step_screen(run, 5, toasted, "editor-toast.png")

def scroll_session(c, run, trace):
    """The scroll session: swipes down the middle of the 1260x2720 display, a quarter of its
    height from each edge."""
    c.rm(f"/data/local/tmp/dwpipe-scroll-{run}.ftrace")
    c.start()
    c.clock(0.5)  # the scroll's trace begins at 0.99 s of uptime
    c.shell("hitrace -b 65536 graphic ace app --trace_begin")
    c.shell("uitest uiInput swipe 630 2040 630 680 600")
    c.shell("uitest uiInput swipe 630 680 630 2040 600")
    c.shell(f"hitrace --trace_finish -o /data/local/tmp/dwpipe-scroll-{run}.ftrace")
    c.pull(f"/data/local/tmp/dwpipe-scroll-{run}.ftrace", f"scroll-{run}.ftrace", trace.encode())

def build(name, comment, cold_ms, intervals, gap_vp, small_icon, title_colour, failing_test, cut_trace=False, with_app=True, no_screenshot=False, flows=True):
    c = Capture(name, comment)
    colds, completes = [], []
    c.visit("1 cold-start")
    colds.append(cold_session(c, 1, cold_ms[0], cut=cut_trace))
    c.visit("1 hypium")
    c.shell(f"aa test -b {BUNDLE} -m entry_test -s unittest OpenHarmonyTestRunner -s class NoteListTest -s timeout 60000", hypium(failing_test))
    c.visit("1 scroll")
    scroll_session(c, 1, scroll_trace(intervals))
    c.visit("1 ui")
    c.ui_session(1, layout(gap_vp, small_icon, with_app), screenshot(title_colour), no_screenshot)
    if flows:
        c.visit("1 flow open-note")
        completes.append(open_note_flow(c, 1, gap_vp, title_colour, cold_ms[0]))
    for run in (2, 3):
        c.visit(f"{run} cold-start")
        colds.append(cold_session(c, run, cold_ms[run - 1], colds))
        if flows:
            c.visit(f"{run} flow open-note")
            completes.append(open_note_flow(c, run, gap_vp, title_colour, cold_ms[run - 1], completes))
    c.finish()

def build_editor(name, comment, complete_ms, gap_vp, save_vp, opens=True):
    c = Capture(name, comment)
    c.visit("1 flow open-note")
    # tests/fixtures/packs/editor.yaml settles 100 ms after the launch and the traced tap.
    launch_step(c, 1, screenshot((0, 0, 0)), 100)
    open_step(c, 1, layout(12, False), 12, response_trace(complete_ms, lane=opens), editor_png(False) if opens else screenshot((0, 0, 0)), 100)
    if opens:
        c.dump(1, 3, editor(gap_vp, save_vp))
        c.step_screen(1, 3, editor_png(False), "editor.png")
        # (The ui session after the flow takes step 3's dump and screenshot: no call.)
    else:
        # wait-for polls every 500 ms on the device clock: at 0, 0.5, 1, 1.5 and 2 s, then gives up.
        for i in range(5):
            if i:
                c.sleep(500)
            c.dump(1, 3, layout(12, False))
    c.finish()

SMOOTH = [16667] * 60
JANKY = [16667] * 60
JANKY[19] = JANKY[39] = 50001

build("notes-pass", "The example notes app where every measured criterion passes (see generate.py).", (700, 720, 760), SMOOTH, 12, False, (0, 0, 0), False)
build("notes-fail", "The example notes app failing: slow start, jank, 10 vp gap, 36 vp unlabeled icon, grey title, a failing test.", (1150, 1200, 1250), JANKY, 10, True, (0xAA, 0xAA, 0xAA), True)
build("notes-pass-v1", "notes-pass as the first release's example pack asked for it (no flows): runs recorded before flows existed replay against it.", (700, 720, 760), SMOOTH, 12, False, (0, 0, 0), False, flows=False)
build("notes-unstable", "Cold starts that wander: 500/720/1100 ms (median 720 passes, the spread is a warning).", (500, 720, 1100), SMOOTH, 12, False, (0, 0, 0), False)
build("notes-trace-cut", "Fault: the first cold-start trace was cut before the first frame.", (700, 720, 760), SMOOTH, 12, False, (0, 0, 0), False, cut_trace=True)
build("notes-no-window", "Fault: the layout dump holds no window of the app.", (700, 720, 760), SMOOTH, 12, False, (0, 0, 0), False, with_app=False)
build("notes-no-screenshot", "Fault: the screenshot could not be pulled.", (700, 720, 760), SMOOTH, 12, False, (0, 0, 0), False, no_screenshot=True)
build_editor("notes-editor-pass", "The note editor, reached by a flow: it opens in 700 ms, 12 vp title-body gap, 48 vp save button.", 700, 12, 48)
build_editor("notes-editor-fail", "The note editor failing: it opens in 1400 ms, a 30 vp gap, a 40 vp save button.", 1400, 30, 40)
build_editor("notes-editor-missing", "Fault: the tap on the note opens nothing, and `wait-for id:editor_title` times out.", 700, 12, 48, opens=False)

RS_HEADER = "\n-------------------------------[ability]-------------------------------\n\n\n----------------------------------RenderService---------------------------------\n"

RS_SCREEN = RS_HEADER + """-- ScreenInfo
screen[0]: id=0, powerstatus=POWER_STATUS_ON, backlight=51, screenType=EXTERNAL_TYPE, render size: 1260x2720, physical screen resolution: 1260x2720, isvirtual=false, skipFrameInterval_:1

  supportedMode[0]: 1260x2720, refreshrate=120
  supportedMode[1]: 1260x2720, refreshrate=60
  activeMode: 1260x2720, refreshrate=60
"""

def rs_fps(surface, presents_ns):
    """`hidumper -s RenderService -a '<surface> fps'` as OpenHarmony 5.1+ prints it: newest
    first, the ring's unused slots 0; header only for a surface with no records."""
    out = RS_HEADER + "\n-- The recently fps records info of screens:\n"
    if presents_ns:
        out += f"\n surface [{surface}] Id[6781753360410]:\n" + "".join(f"{p}\n" for p in sorted(presents_ns, reverse=True)) + "0\n" * 4
    return out

def build_scroll(name, comment, intervals_ms):
    """The list scrolled by a flow (tests/fixtures/packs/scroll.yaml): one swipe on the note
    list, traced, with RenderService's UniRender records read after the launch and after the
    swipe (the app's window `notes0` has none of its own, as on OpenHarmony 5.1+)."""
    c = Capture(name, comment)
    c.visit("1 flow scroll-list")
    # tests/fixtures/packs/scroll.yaml settles 100 ms after the launch and the traced swipe.
    launch_step(c, 1, screenshot((0, 0, 0)), 100, due=False)  # RenderService is read next
    c.shell(f"pidof {BUNDLE}", "5000\n")
    c.shell("hidumper -s WindowManagerService -a -a", WMS)
    c.shell("hidumper -s RenderService -a 'notes0 fps'", rs_fps("notes0", []))
    c.shell("hidumper -s RenderService -a screen", RS_SCREEN)
    idle = [100_000_000_000 + i * 16_666_667 for i in range(30)]
    c.shell("hidumper -s RenderService -a 'UniRender fps'", rs_fps("UniRender", idle))
    c.dump(1, 2, layout(12, False))
    # swipe up 300 vp (975 px) through the centre of note_list [0,380][1260,2400]
    c.rm("/data/local/tmp/dwpipe-step-1-02.ftrace")
    c.clock(0.5)
    c.shell(TRACE_BEGIN)
    c.shell("uitest uiInput swipe 630 1877 630 903 600")
    c.sleep(100)
    c.shell("hitrace --trace_finish -o /data/local/tmp/dwpipe-step-1-02.ftrace")
    c.pull("/data/local/tmp/dwpipe-step-1-02.ftrace", "step-1-02.ftrace", scroll_trace([round(i * 1000) for i in intervals_ms]).encode())
    c.step_screen(1, 2, screenshot((0, 0, 0)), "list.png")
    # The swipe's frames, 2 s after the idle ones: the same intervals RenderService saw.
    t, swipe = 102_500_000_000, []
    for i in [0] + intervals_ms:
        t += int(i * 1_000_000)
        swipe.append(t)
    c.shell("hidumper -s RenderService -a 'UniRender fps'", rs_fps("UniRender", idle[-10:] + swipe))
    c.finish()

def archive_list():
    """The list scrolled down: the notes moved up, an Archive entry at the bottom."""
    items = [node({"id": f"note_item_{i}", "type": "ListItem", "text": f"Note {i}", "clickable": "true", **rect(48, 400 + i * 234, 1212, 595 + i * 234)}) for i in range(2)]
    items.append(node({"id": "archive_item", "type": "ListItem", "text": "Archive", "clickable": "true", **rect(48, 2100, 1212, 2295)}))
    return dump([node({"id": "note_list", "type": "List", "scrollable": "true", **rect(0, 380, 1260, 2400)}, items)])

def archive_screen():
    return dump([node({"id": "archive_title", "type": "Text", "text": "Archive (3 notes)", **rect(48, 200, 1212, 330)})])

def app_points(shown_ms, t0=20_000_000, shown="B|5000|H:feed shown "):
    """The app's own trace points (tests/fixtures/packs/points.yaml), in the forms a phone
    prints them: the feed requested at 20 s and shown `shown_ms` later (the older trailing-space
    form), two page decodes (30 and 40 ms, their `area` argument, on another thread under a
    tgid of dashes), an async load (task 7, 350 ms) and the image cache's counter (1720 B, then
    200 MB). `shown`: the marker of the feed shown (a Debug one, `|D62`, on a 6.0 phone)."""
    dashed = lambda task, tid, cpu, us, payload: line(task, tid, 0, cpu, us, payload).replace("(      0)", "(-------)")
    return [
        line("m.example.notes", 5000, 5000, 4, t0, "B|5000|H:feed requested|M62"),
        line("m.example.notes", 5000, 5000, 4, t0 + 100, "E|5000|M62"),
        line("OS_IO", 5012, 5000, 2, t0 + 50_000, "S|5000|H:load feed|7|M62"),
        dashed("OS_Decode", 5013, 3, t0 + 100_000, "B|5000|H:decode page|I62|area=1228800,format=rgba"),
        dashed("OS_Decode", 5013, 3, t0 + 130_000, "E|5000|I62"),
        line("OS_Decode", 5013, 5000, 3, t0 + 200_000, "B|5000|H:decode page|I62|area=2457600,format=rgba"),
        line("OS_Decode", 5013, 5000, 3, t0 + 240_000, "E|5000|I62"),
        line("m.example.notes", 5000, 5000, 4, t0 + 300_000, "C|5000|H:image-cache-bytes 1720"),
        line("m.example.notes", 5000, 5000, 4, t0 + 350_000, "C|5000|H:image-cache-bytes|209715200|M62"),
        line("OS_IO", 5012, 5000, 2, t0 + 400_000, "F|5000|H:load feed|7|M62"),
        line("m.example.notes", 5000, 5000, 4, t0 + shown_ms * 1000, shown),
        line("m.example.notes", 5000, 5000, 4, t0 + shown_ms * 1000 + 200, "E|5000|"),
    ]

def with_lines(trace, extra):
    """`trace` with `extra` lines among its own, in the order of their clocks."""
    head = [l for l in trace.splitlines(keepends=True) if l.startswith("#")]
    body = [l for l in trace.splitlines(keepends=True) if not l.startswith("#")] + extra
    clock = lambda l: float(l.split(": tracing_mark_write")[0].split()[-1])
    return "".join(head + sorted(body, key=clock))

def build_screens(name, trace=None, serial="SCREENS01", api=12, version="5.0.0"):
    """A fake app for fake-hdc: the list; the editor a tap on the second note opens (it
    shows from the second layout dump after the tap, so `wait-for` polls twice); a swipe on
    the list scrolls to an Archive entry, whose tap opens the archive. Every trace it writes
    is `trace` (a tap's response, 700 ms to complete, by default)."""
    root = os.path.join(ROOT, name)
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "files"))
    files = {
        "list.json": layout(12, False).encode(), "list.png": screenshot((0, 0, 0)),
        "editor.json": editor().encode(), "editor.png": editor_png(False),
        "step.ftrace": (trace or response_trace(700)).encode(),
        "list-scrolled.json": archive_list().encode(), "archive.json": archive_screen().encode(),
    }
    for file, data in files.items():
        with open(os.path.join(root, "files", file), "wb") as f:
            f.write(data)
    with open(os.path.join(root, "device.yaml"), "w") as f:
        f.write(f"# A fake notes app served by fake-hdc: it answers taps by changing screens.\nserial: {serial}\nname: fake notes app\nmodel: FAKE-SCREENS\nsoftware-version: {version}\napi-level: {api}\nvirtual-pixel-ratio: 3.25\n")
    with open(os.path.join(root, "screens.yaml"), "w") as f:
        f.write(f"""# The notes app as screens: fake-hdc serves this folder through the real hdc process path.
format-version: 1
bundle: {BUNDLE}
start: list
trace: files/step.ftrace
screens:
  list:
    layout: files/list.json
    screenshot: files/list.png
    taps:
      - {{ on: "id:note_item_1", to: editor, after: 2 }}
    swipes:
      - {{ on: "id:note_list", to: list-scrolled }}
  list-scrolled:
    layout: files/list-scrolled.json
    screenshot: files/list.png
    taps:
      - {{ on: "id:archive_item", to: archive }}
  archive:
    layout: files/archive.json
    screenshot: files/list.png
    back: list-scrolled
  editor:
    layout: files/editor.json
    screenshot: files/editor.png
    back: list
""")

def build_cold(name, comment, cold_ms):
    """Cold starts only, one run per value (tests/fixtures/packs/cold-start.yaml)."""
    c = Capture(name, comment)
    colds = []
    for run, ms in enumerate(cold_ms, start=1):
        c.visit(f"{run} cold-start")
        colds.append(cold_session(c, run, ms, colds))
    c.finish()

def normal(seed, mean, sd, n):
    import random
    rng = random.Random(seed)
    return [round(rng.gauss(mean, sd)) for _ in range(n)]

# The regression gate's arms: a baseline and four candidates on the same device.
build_cold("regress-base", "Baseline: 10 cold starts around 700 ms (sd 15).", normal(1, 700, 15, 10))
build_cold("regress-slower", "Candidate 10% slower: around 770 ms.", normal(2, 770, 15, 10))
build_cold("regress-same", "Candidate within the 20 ms floor: around 702 ms (sd 5).", [v - 700 + 702 for v in normal(3, 700, 5, 10)])
build_cold("regress-faster", "Candidate faster: around 630 ms.", normal(4, 630, 15, 10))
build_cold("regress-few-base", "Three noisy cold starts (sd 60).", normal(5, 700, 60, 3))
build_cold("regress-few", "Three noisy cold starts, 60 ms slower on average.", normal(6, 760, 60, 3))
def build_jank(name, comment, long_frames_ms):
    """Scrolls only, one run per value (tests/fixtures/packs/jank.yaml): 60 frames at 60 Hz of
    which one, the 31st, takes the given time, so each run's jank is known."""
    c = Capture(name, comment)
    for run, long_ms in enumerate(long_frames_ms, start=1):
        c.visit(f"{run} scroll")
        intervals = [16_667] * 30 + [round(long_ms * 1000)] + [16_667] * 29
        scroll_session(c, run, scroll_trace(intervals))
    c.finish()

def normal_ms(seed, mean, sd, n):
    """Like `normal`, to a tenth of a millisecond."""
    import random
    rng = random.Random(seed)
    return [round(rng.gauss(mean, sd), 1) for _ in range(n)]

# The regression gate's jank arms: one long frame per scroll, its length drawn from a known
# distribution (a 50 ms frame in 60 is about 32 ms/s of jank).
build_jank("jank-base", "Baseline: the long frame around 50 ms (sd 0.4).", normal_ms(31, 50, 0.4, 10))
build_jank("jank-slower", "Candidate about 10% more jank: the long frame around 53.5 ms (sd 0.4).", normal_ms(32, 53.5, 0.4, 10))
build_jank("jank-same", "Candidate within the 1 ms/s floor: around 50.1 ms (sd 0.3).", normal_ms(33, 50.1, 0.3, 10))
build_jank("jank-faster", "Candidate with less jank: around 40 ms (sd 0.4).", normal_ms(34, 40, 0.4, 10))
build_jank("jank-few-base", "Three noisy scrolls (sd 8 ms).", normal_ms(35, 50, 8, 3))
build_jank("jank-few", "Three noisy scrolls, 5 ms longer on average.", normal_ms(36, 55, 8, 3))

def build_ab_arm(name, comment, warm_up_ms, cold_ms):
    """One build's cold starts for a same-device A/B session: run 0 is the warm-up after an
    install (slower: the first launch after an install compiles and caches), runs 1.. the
    measured ones. fake-hdc serves each run number its own trace, in whatever order the
    session's blocks ask for them."""
    c = Capture(name, comment)
    colds = []
    for run, ms in enumerate([warm_up_ms] + cold_ms):
        c.visit(f"{run} cold-start")
        # (The warm-up is read by nobody: no later run learns from it.)
        reading = cold_session(c, run, ms, colds)
        if run:
            colds.append(reading)
    c.finish()

def build_ab_device(name, serial, baseline, candidate):
    """A device with the notes app's two builds (apps.yaml): notes-1.0.hap answered by the
    `baseline` capture, notes-1.1.hap by `candidate`."""
    root = os.path.join(ROOT, name)
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    with open(os.path.join(root, "device.yaml"), "w") as f:
        f.write(f"# A HUAWEI Mate 60 Pro with two builds of the notes app to switch between.\nserial: {serial}\nname: HUAWEI Mate 60 Pro\nmodel: ALN-AL00\nsoftware-version: ALN-AL00 5.0.0.22(SP35DEVC00E22R4P1log)\napi-level: 12\nvirtual-pixel-ratio: 3.25\nrefresh-rate: 60\ndisplay-size: [1260, 2720]\n")
    with open(os.path.join(root, "apps.yaml"), "w") as f:
        f.write(f"""# The notes app's last release and its candidate, each answered by its own capture.
format-version: 1
bundle: {BUNDLE}
apps:
  - {{ hap: notes-1.0.hap, version-code: 1000000, capture: ../{baseline} }}
  - {{ hap: notes-1.1.hap, version-code: 1001000, capture: ../{candidate} }}
""")

# Same-device A/B: 16 measured runs per build (an A/B of --runs 8 --max-runs 16), each arm
# from a known distribution.
AB_RUNS = 16
build_ab_arm("ab-base", "Release 1.0: cold starts around 700 ms (sd 15).", 1100, normal(21, 700, 15, AB_RUNS))
build_ab_arm("ab-slower", "Candidate 1.1, 10% slower: around 770 ms (sd 15).", 1170, normal(22, 770, 15, AB_RUNS))
build_ab_arm("ab-same", "Candidate 1.1 within the 20 ms floor: around 702 ms (sd 4).", 1100, normal(23, 702, 4, AB_RUNS))
build_ab_arm("ab-noisy-base", "Release 1.0 on a noisy device: around 700 ms (sd 80).", 1100, normal(24, 700, 80, AB_RUNS))
build_ab_arm("ab-noisy", "Candidate 1.1 on a noisy device: around 720 ms (sd 80).", 1100, normal(25, 720, 80, AB_RUNS))
for i, candidate in enumerate(["ab-same", "ab-same", "ab-same", "ab-slower"], start=1):
    build_ab_device(f"ab-phone-{i}", f"AB0PHONE0{i}", "ab-base", candidate)
build_ab_device("ab-phone-noisy", "AB0NOISY01", "ab-noisy-base", "ab-noisy")

def build_points_arm(name, comment, warm_up_ms, span_ms):
    """One build's cold starts for an A/B session of tests/fixtures/packs/points-cold.yaml: a
    700 ms launch whose trace carries the app's own trace points (`app_points`, 100 ms after
    the launch), the feed shown `span_ms` after it was requested. A trace point reader cannot
    say how long its window needs, so every run waits the ceiling."""
    c = Capture(name, comment)
    for run, ms in enumerate([warm_up_ms] + span_ms):
        c.visit(f"{run} cold-start")
        trace = with_lines(cold_trace(700, COLD_CEILING_MS), app_points(round(ms), t0=10_100_000))
        cold_attempt(c, run, trace, COLD_CEILING_MS)
    c.finish()

build_points_arm("ab-points-base", "Release 1.0: the feed shown around 720 ms after it is requested (sd 15).", 1100, normal(41, 720, 15, AB_RUNS))
build_points_arm("ab-points-slower", "Candidate 1.1: the feed shown around 800 ms after it is requested (sd 15).", 1100, normal(42, 800, 15, AB_RUNS))
build_ab_device("ab-phone-points", "AB0POINTS1", "ab-points-base", "ab-points-slower")
os.makedirs(os.path.join(ROOT, "haps"), exist_ok=True)
for version, code in [("1.0", 1000000), ("1.1", 1001000)]:
    # A zip, as a HAP is, whose module.json names the version (what the A/B page shows); the
    # rest stands in for the signed app: fake-hdc installs it by name. Fixed times and order,
    # so that the bytes (and their SHA-256) are the same on every run.
    import zipfile
    with zipfile.ZipFile(os.path.join(ROOT, "haps", f"notes-{version}.hap"), "w", zipfile.ZIP_DEFLATED) as hap:
        def member(name, text):
            info = zipfile.ZipInfo(name, date_time=(2026, 11, 30, 10, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            hap.writestr(info, text)
        member("module.json", '{"app":{"bundleName":"%s","versionCode":%d,"versionName":"%s.0"},"module":{"name":"entry","type":"entry"}}' % (BUNDLE, code, version))
        member("README.txt", f"a stand-in for the notes app's signed HAP, version {version}: fake-hdc installs it by name\n")
CPU_AGAIN = "__DWPIPE_CPU_AGAIN"

def cpu_command(pid):
    """The cpu sessions' one call: /proc read twice, 2 s apart (playbooks/sessions/cpu.yaml)."""
    reads = f"cat /proc/self/stat /proc/{pid}/stat /proc/stat"
    return f"{reads}; sleep 2; echo {CPU_AGAIN}; {reads}"

def proc_cpu(pid, percent, cores=8, uptime=120.0, seconds=2.5, stat_denied=False):
    """Its reply as the kernel prints the three files (clock ticks of USER_HZ, 100): the app's
    process kept `percent` of all `cores` cores busy over the window (src/probe/proc_cpu.rs);
    `stat_denied`: the shell may not read /proc/stat (OpenHarmony 4.0 user builds, 4.1), and
    `cat` says so in its place."""
    name = BUNDLE[:15]
    def read(up, ticks, total):
        per_core = total // cores
        text = (self_stat(up) +
                f"{pid} ({name}) S 600 600 0 0 -1 4194560 5000 0 0 0 {ticks // 2} {ticks - ticks // 2} 0 0 20 0 40 0 1500 4000000000 20000 0 0 0\n")
        if stat_denied:
            return text + "cat: /proc/stat: Permission denied\n"
        text += f"cpu  {total // 4} 0 {total // 4} {total - 2 * (total // 4)} 0 0 0 0 0 0\n"
        text += "".join(f"cpu{core} {per_core} 0 0 0 0 0 0 0 0 0\n" for core in range(cores))
        return text + "intr 0\nctxt 0\nbtime 0\nprocesses 1\nprocs_running 1\nprocs_blocked 0\n"
    before = int(uptime * 100) * cores
    window = round(seconds * 100) * cores
    busy = round(window * percent / 100)
    return read(uptime, 1000, before) + f"{CPU_AGAIN}\n" + read(uptime + seconds, 1000 + busy, before + window)

def build_cpu(name, comment, foreground, background):
    """tests/fixtures/packs/cpu.yaml: the foreground load in runs 1-3, the background load
    (after Home and 3 minutes) in run 1."""
    c = Capture(name, comment)
    def cpu_session(run, percent, backgrounded):
        c.start()
        c.shell(f"pidof {BUNDLE}", "5000\n")
        if backgrounded:
            c.shell("uitest uiInput keyEvent Home")
            c.sleep(180_000)
        c.shell(cpu_command(5000), proc_cpu(5000, percent))
    c.visit("1 cpu")
    cpu_session(1, foreground[0], False)
    c.visit("1 cpu-background")
    cpu_session(1, background, True)
    for run in (2, 3):
        c.visit(f"{run} cpu")
        cpu_session(run, foreground[run - 1], False)
    c.finish()

MEM = ("\n-------------------------------[memory]-------------------------------\n\n"
       "                        Pss        Shared        Shared       Private       Private          Swap       SwapPss          Heap          Heap          Heap\n"
       "                    Total         Clean         Dirty         Clean         Dirty         Total         Total          Size         Alloc          Free\n"
       "                    ( kB )        ( kB )        ( kB )        ( kB )        ( kB )        ( kB )        ( kB )        ( kB )        ( kB )        ( kB )\n"
       " native heap         61440             0             0         61440             0          1948          1948             0             0             0\n"
       "        Total        {total}         15640          8560        {private}            72          2216          2216             0             0             0\n")

def build_appanalyzer(name, comment):
    """templates/init/appanalyzer.yaml on the notes app, every band passed: cold starts of
    700/720/760 ms, a click complete by 700 ms, a smooth scroll, 240 MB in the foreground,
    0.8% CPU three minutes in the background, 48 vp targets, black on white; no crash or
    freeze (AA-STABILITY: every visit bracketed by the fault records, the app idling 5 s on
    its launch screen in each run)."""
    c = Capture(name, comment)
    f = Faulted(c, RELEASES[c.release][0], [("cppcrash", "2026-12-05 18:42:10")])
    def visit(label, body):
        f.begin(label, home="cpu-background" in label)
        body()
        f.end()
    plain = editor_png(False)
    colds, completes = [], []
    def background():
        c.start()
        c.shell(f"pidof {BUNDLE}", "5000\n")
        c.shell("uitest uiInput keyEvent Home")
        c.sleep(180_000)
        c.shell(cpu_command(5000), proc_cpu(5000, 0.8))
    def memory(run):
        c.start()
        c.shell(f"pidof {BUNDLE}", "5000\n")
        c.shell("hidumper --mem 5000", MEM.format(total=245760 + run * 1024, private=184320))
    def idle():
        c.start()
        c.sleep(5000)
    def flow(run):
        launch_step(c, run, screenshot((0, 0, 0)))
        settle = step_settle(completes)
        open_step(c, run, layout(12, False), 12, response_trace(700, window_ms=settle), plain, settle)
        completes.append(700)
        c.dump(run, 3, editor())
        c.step_screen(run, 3, plain, "editor.png")
    for run, ms in zip((1, 2, 3), (700, 720, 760)):
        visit(f"{run} cold-start", lambda: colds.append(cold_session(c, run, ms, colds)))
        if run == 1:
            visit("1 cpu-background", background)
        visit(f"{run} memory", lambda: memory(run))
        if run == 1:
            visit("1 scroll", lambda: scroll_session(c, 1, scroll_trace(SMOOTH)))
        visit(f"{run} stability", idle)
        if run == 1:
            visit("1 ui", lambda: c.ui_session(1, layout(12, False), screenshot((0, 0, 0))))
        visit(f"{run} flow open-note", lambda: flow(run))
    c.finish()

def smartperf(samples):
    """`SP_daemon -N <n> -PKG <bundle> -g|-p` in SmartPerf's layout (its real `-f` captures):
    `order:<i> key=value` lines, a blank line between samples."""
    blocks = ["".join(f"order:{i} {k}={v}\n" for i, (k, v) in enumerate(sample)) for sample in samples]
    return "\n" + "\n".join(blocks) + "\ncommand exec finished!\n"

def battery_dump(charging=0, plugged=0, now_ma=-400):
    """`hidumper -s BatteryService -a -i` as the power session reads it before sampling
    (battery_dump.cpp: `voltage` µV, `nowCurrent` mA)."""
    return f"{sa('BatteryService')}capacity: 90 \nchargingStatus: {charging} \nhealthState: 1 \npluggedType: {plugged} \nvoltage: 4000000 \npresent: 1 \nnowCurrent: {now_ma} \ntemperature: 300 \n"

THERMAL_END = ("hidumper -s ThermalService -a -t; echo __DWPIPE_SYSFS; "
               "for z in /sys/class/thermal/thermal_zone*; do echo $z $(cat $z/type) $(cat $z/temp); done 2>&1")

# The thermal loop where the shell may not list /sys/class/thermal (4.0 and later under
# OpenHarmony's policy): the glob stays itself, each `cat` refused.
SYSFS_UNLISTED = ("__DWPIPE_SYSFS\ncat: /sys/class/thermal/thermal_zone*/type: No such file or directory\n"
                  "cat: /sys/class/thermal/thermal_zone*/temp: No such file or directory\n/sys/class/thermal/thermal_zone*\n")

def sysfs_denied(zones):
    """The loop where the folder lists but no file reads (3.2)."""
    return "__DWPIPE_SYSFS\n" + "".join(
        f"cat: /sys/class/thermal/{z}/type: Permission denied\ncat: /sys/class/thermal/{z}/temp: Permission denied\n/sys/class/thermal/{z}\n"
        for z in zones)

def thermal_dump(soc, shell):
    return f"{sa('ThermalService')}Type: soc_thermal\nTemperature: {soc}\nType: shell_front\nTemperature: {shell}\n"

GPU_ABORT = "terminate called after throwing an instance of 'std::invalid_argument'\n  what():  stof\n"

def power_samples(release="5.0"):
    """SP_daemon -p: mA and µV, discharging negative (OpenHarmony's units); before 4.1
    SmartPerf runs as sh and its nodes do not open: the values print empty."""
    if release in ("3.2", "4.0"):
        return smartperf([[("currentNow", ""), ("voltageNow", "")] for _ in range(5)])
    return smartperf([[("currentNow", f"-{ma}"), ("voltageNow", "4000000")] for ma in (350, 450, 400, 400, 400)])

def gpu_samples(release="5.0"):
    if release in ("3.2", "4.0"):
        return GPU_ABORT
    return smartperf([[("gpuFrequency", "279000000"), ("gpuLoad", f"{load}.000000")] for load in (40, 45, 50, 45, 45)])

def temperature_session(c, release="5.0", refreshed=True):
    """30 s on the first screen, ThermalService's report at both ends; the zones in sysfs as
    the release's policy lets the shell see them. `refreshed`: the report changed meanwhile."""
    c.start()
    c.shell("hidumper -s ThermalService -a -t", thermal_dump(36500 if refreshed else 41000, 33000 if refreshed else 36000))
    c.sleep(30_000)
    sysfs = sysfs_denied(["thermal_zone0", "thermal_zone1"]) if release == "3.2" else SYSFS_UNLISTED
    c.shell(THERMAL_END, thermal_dump(41000, 36000) + sysfs)

def build_resources(name, comment):
    """tests/fixtures/packs/resources.yaml: GPU 40-50% at 279 MHz, 400 mA drawn at 4 V (1600 mW;
    SmartPerf prints mA and µV, as OpenHarmony documents them, a discharging current negative;
    BatteryService's nowCurrent -400 mA agrees) from a battery discharging and unplugged, the
    hottest zone at 41 °C after 30 s in ThermalService's report, refreshed during the visit
    (the shell may not list sysfs's zones on 5.0)."""
    c = Capture(name, comment)
    c.visit("1 gpu")
    c.start()
    c.shell(f"SP_daemon -N 5 -PKG {BUNDLE} -g", gpu_samples())
    c.visit("1 power")
    c.start()
    c.shell("hidumper -s BatteryService -a -i", battery_dump())
    c.shell(f"SP_daemon -N 5 -PKG {BUNDLE} -p", power_samples())
    c.visit("1 temperature")
    temperature_session(c)
    c.finish()

FAULTS_CLOCK = "date '+%Y-%m-%d %H:%M:%S'"
FAULTS_DUMPED = "/data/local/tmp/dwpipe-faults.txt"
FAULTLOGGER = "/data/log/faultlog/faultlogger/"

def device_time(seconds):
    """The device's local time `seconds` after 12:00:00 on the day of the audit."""
    return f"2026-12-06 12:{seconds // 60:02}:{seconds % 60:02}"

def fault_log(kind, at, millis=True):
    """A fault log's first lines as hiview writes them (faultlog_formatter.cpp), and its
    file name (faultlog_util.cpp: milliseconds and `.log` from 5.1)."""
    stamp = at.replace("-", "").replace(" ", "").replace(":", "")
    name = f"{kind.lower() if kind != 'JsError' else 'jscrash'}-{BUNDLE}-20010039-{stamp}{'123.log' if millis else ''}"
    reason = {"JsError": "Reason:TypeError\nError name:TypeError\nError message:Cannot read properties of undefined (reading 'title')\nStacktrace:\n    at openNote (entry/src/main/ets/pages/Index.ets:42:15)",
              "appfreeze": "Reason:THREAD_BLOCK_6S\nFault time:" + at + "\nmainHandler dump is:\n EventHandler dump begin curTime: " + at,
              "cppcrash": "Reason:Signal:SIGSEGV(SEGV_MAPERR)@0x0000000000000000\nFault thread info:\nTid:5000, Name:com.example.notes\n#00 pc 0000000000012345 /data/storage/el1/bundle/libs/arm64/libnotes.so"}[kind]
    lines = f"Generated by HiviewDFX@OpenHarmony\n================================================================\nDevice info:HUAWEI Mate 60 Pro\nBuild info:ALN-AL00\nTimestamp:{at}.123\nModule name:{BUNDLE}\nPid:5000\nUid:20010039\nProcess name:{BUNDLE}\n{reason}\n"
    return name, lines

FOCUS = "echo __DWPIPE_FOCUS; hidumper -s WindowManagerService -a -a; echo __DWPIPE_RECORDS"

def faults_command(api, since, focus=True):
    """The read of the fault records after a visit (src/audit/faults.rs): the clock, whether
    the app still has a process, whose window has the focus (a visit that does not send the
    app home), the records."""
    ended = f"{FAULTS_CLOCK}; echo pid=$(pidof {BUNDLE})" + (f"; {FOCUS}" if focus else "")
    if api >= 22:
        return f"{ended}; hidumper -e --list {BUNDLE} --since '{since}'"
    return (f"{ended}; hidumper -e > {FAULTS_DUMPED}; grep -m 1 -E '^---*\\[' {FAULTS_DUMPED}; "
            f"grep -c '^{FAULTLOGGER}' {FAULTS_DUMPED}; grep -E -A 40 '^{FAULTLOGGER}([a-z]*-{BUNDLE}-|sysfreeze-)' {FAULTS_DUMPED}; rm -f {FAULTS_DUMPED}")

class Faulted:
    """A phone's fault records over an audit: `older` before it, each visit's own at a second
    of its window (`(kind, offset)`), on the device's clock, which a visit moves on by 10 s."""
    def __init__(self, c, api, older, unread=False):
        self.c, self.api, self.unread, self.now = c, api, unread, 0
        self.records = list(older)  # (kind, time)
    def begin(self, label, home=False):
        """A visit begins; `home`: it sends the app home (no focus kept at its end)."""
        self.home = home
        self.c.visit(label)
        self.since = device_time(self.now)
        self.c.shell(FAULTS_CLOCK, self.since + "\n")
    def end(self, crashes=(), gone=False, focus=None):
        """The visit's end: its records; the app has no process left after one of them (a
        crash, a freeze, hiview kills a frozen app) or when `gone`; the window table `focus`
        (the capture's own, by default) says whose window has the focus."""
        start = self.now
        for kind, offset in crashes:
            self.records.append((kind, device_time(start + offset)))
        self.now += 10
        until = device_time(self.now) + ("\npid=" if crashes or gone else "\npid=5000")
        if not self.home:
            table = focus or getattr(self.c, "windows", (WMS, WMS_W13))[0]
            until += f"\n__DWPIPE_FOCUS\n{table}__DWPIPE_RECORDS"
        if self.unread:
            reply = f"{until}\n"
        elif self.api >= 22:
            rows = [(i, kind, at) for i, (kind, at) in enumerate(self.records) if at >= self.since]
            if rows:
                reply = f"{until}\ntime                   foreground      reason            record_id      process_name        \n"
                for i, kind, at in rows:
                    reply += f"{at}    True            {kind:<18}{1733486400 + i:<15}{BUNDLE}   \n"
            else:
                reply = f"{until}\nno records found.\n"
        else:
            reply = f"{until}\n-------------------------------[faultlog]-------------------------------\n{len(self.records) + 14}\n"
            excerpts = []
            for kind, at in self.records:
                name, lines = fault_log(kind, at, self.api >= 18)
                excerpts.append(f"{FAULTLOGGER}{name}\n\n{lines}")
            reply += "--\n".join(excerpts)
        self.c.shell(faults_command(self.api, self.since, not self.home), reply)
        if self.api >= 22 and not self.unread:
            until = device_time(self.now)
            for i, (kind, at) in enumerate(self.records):
                if self.since <= at <= until:
                    name, lines = fault_log(kind, at)
                    self.c.shell(f"hidumper -e --print {1733486400 + i} | head -n 40",
                                 f"\n-------------------------------[faultlog]-------------------------------\n\n{FAULTLOGGER}{name}\n\n{lines}")

def build_stability(name, comment, release, crashes, unread=False, gone=(), elsewhere=False):
    """tests/fixtures/packs/stability.yaml, one run: the stability session (the app idles 5 s
    on its launch screen), the ui session, then the flow open-note (launch, the click on the
    second note, traced). Every visit is bracketed by the device's clock and the fault records
    (a crash in the flow leaves the launcher on screen after the click); an older crash of the
    app is on the phone before the audit."""
    c = Capture(name, comment, release)
    api = (RELEASES.get(release) or LATER[release])[0]
    f = Faulted(c, api, [("cppcrash", "2026-12-05 18:42:10")], unread)
    f.begin("1 stability")
    c.start()
    c.sleep(5000)
    f.end(crashes.get("stability", ()), "stability" in gone)
    f.begin("1 ui")
    c.ui_session(1, layout(12, False), screenshot((0, 0, 0)))
    browser = window_table([("SystemUi_StatusBar", 0, 1572, 9, 2108, 102, 2, [0, 0, 1260, 123]),
                            ("browser0", 0, 6000, 21, 1, 1, 1, [0, 0, 1260, 2720]),
                            ("notes0", 0, 5000, 13, 1, 1, 0, [0, 0, 1260, 2720])], focus=21)
    f.end(crashes.get("ui", ()), "ui" in gone, browser if elsewhere else None)
    f.begin("1 flow open-note")
    crashed = "flow open-note" in crashes
    launch_step(c, 1, screenshot((0, 0, 0)))
    c.dump(1, 2, layout(12, False))
    x, y = centre(item_rect(1, 12))
    c.rm("/data/local/tmp/dwpipe-step-1-02.ftrace")
    if api >= 20:  # the trace level threshold (Info by default) lowered for the trace
        c.shell("hitrace --get_level", "2026/12/06 12:00:22 the current trace level threshold is Info\n")
        c.shell("hitrace --trace_level D", "2026/12/06 12:00:22 success to set trace level.\n")
    c.clock(19.5)
    c.shell(TRACE_BEGIN)
    c.shell(f"uitest uiInput click {x} {y}")
    c.sleep(2000)
    c.shell("hitrace --trace_finish -o /data/local/tmp/dwpipe-step-1-02.ftrace")
    c.pull("/data/local/tmp/dwpipe-step-1-02.ftrace", "step-1-02.ftrace", response_trace(60 if crashed else 700).encode())
    if api >= 20:
        c.shell("hitrace --trace_level I", "2026/12/06 12:00:24 success to set trace level.\n")
    c.step_screen(1, 2, screenshot((255, 255, 255)) if crashed else editor_png(False), "after-open.png")
    f.end(crashes.get("flow open-note", ()))
    c.finish()

def window_table(rows, focus=13):
    """WindowManagerService's table (`-a -a`) of `rows`: (name, display, pid, id, type, mode,
    z, [x, y, w, h]), foreground windows, then the lock screen behind the separator."""
    header = "WindowName           DisplayId Pid     WinId Type Mode Flag ZOrd Orientation [ x    y    w    h    ]\n"
    line = lambda name, display, pid, wid, kind, mode, z, r: f"{name:<21}{display:<10}{pid:<8}{wid:<6}{kind:<5}{mode:<5}0    {z:<5}0           [ {r[0]:<5}{r[1]:<5}{r[2]:<5}{r[3]:<5}]\n"
    body = "".join(line(*row) for row in rows)
    return ("----------------------------------WindowManagerService----------------------------------\n"
            "-------------------------------------ScreenGroup 1-------------------------------------\n"
            + header + body
            + "---------------------------------------------------------------------------------------  (Separator Line Between Foreground and Background Windows)\n"
            + line("ScreenLockWindow", rows[0][1], 1572, 4, 2110, 1, -1, [0, 0, 1260, 2720])
            + f"Focus window: {focus}\ntotal window num: {len(rows) + 1}\n")

def build_window(name, comment, release, display=0, split=False):
    """tests/fixtures/packs/window.yaml, one ui visit: the app's window on `display` (a
    foldable's outer screen is another display than its inner one), alone and full screen, or
    (`split`) in the top half of a split screen beside another app's window. From 5.1 (API 18)
    the dump and the screenshot name the app's windows and that display."""
    c = Capture(name, comment, release)
    c.display = display
    app = [0, 0, 1260, 1350] if split else [0, 0, 1260, 2720]
    rows = [("SystemUi_StatusBar", display, 1572, 9, 2108, 102, 2, [0, 0, 1260, 123]),
            ("notes0", display, 5000, 13, 1, 100 if split else 1, 1, app)]
    if split:
        rows.append(("browser0", display, 6000, 21, 1, 101, 1, [0, 1370, 1260, 1350]))
    detail = WMS_W13.replace("DisplayId: 0", f"DisplayId: {display}").replace("Mode: 1", f"Mode: {100 if split else 1}")
    c.windows = (window_table(rows), detail)
    listed = json.loads(layout(12, False))
    if split:  # uitest's `bounds` of the app's window: the half it is shown in
        listed["children"][0]["attributes"]["bounds"] = "[0,123][1260,1350]"
    c.visit("1 ui")
    c.ui_session(1, json.dumps(listed, indent=1), screenshot((0, 0, 0)))
    c.finish()

def rescaled(layout_json, factor):
    """A layout dump drawn at another density: every bounds scaled by `factor`."""
    import re as regex
    scale = lambda m: f"[{round(int(m[1]) * factor)},{round(int(m[2]) * factor)}]"
    return regex.sub(r"\[(-?\d+),(-?\d+)\]", scale, layout_json)

FOLDABLE = ((0, 2224, 2496, 3.25), (5, 1080, 2504, 3.0))  # inner (full) and outer screens

def build_fold(name, comment, folded):
    """tests/fixtures/packs/window.yaml on a foldable (HarmonyOS 6.0.2, serial FOLD01): expanded,
    the app on the inner display 0 at 3.25 px/vp; folded, on the outer display 5 at 3.0 px/vp,
    its layout drawn at that density (a 48 vp button is 144 px there, 156 px inside)."""
    c = Capture(name, comment, "6.0.2", displays=display_dump("FOLDED" if folded else "EXPAND", FOLDABLE))
    display = 5 if folded else 0
    c.display = display
    c.identity = ("# A HUAWEI Mate X5 (a foldable) running the example notes app (HarmonyOS 6.0.2).\nserial: FOLD01\n"
                  "name: HUAWEI Mate X5\nmodel: ALT-AL10\nsoftware-version: ALT-AL10 6.0.2.120(SP3C00E120R2P1)\napi-level: 22\n"
                  "virtual-pixel-ratio: 3.25\nrefresh-rate: 120\ndisplay-size: [2224, 2496]\n")
    rows = [("SystemUi_StatusBar", display, 1572, 9, 2108, 102, 2, [0, 0, 1080 if folded else 2224, 123]),
            ("notes0", display, 5000, 13, 1, 1, 1, [0, 0, 1080, 2504] if folded else [0, 0, 2224, 2496])]
    detail = WMS_W13.replace("DisplayId: 0", f"DisplayId: {display}")
    c.windows = (window_table(rows), detail)
    listed = layout(12, False)
    c.visit("1 ui")
    c.ui_session(1, rescaled(listed, 3.0 / VPR) if folded else listed, screenshot((0, 0, 0)))
    c.finish()

def build_release(release, comment):
    """tests/fixtures/packs/releases.yaml on a phone of one release family, every reply as its
    shell prints it under OpenHarmony's policy (device-fixtures/access.yaml): the CPU 12/14/13%
    of all cores (/proc/stat refused on 4.0 user builds and 4.1: one core's share only), the
    GPU and the battery through SmartPerf (refused before 4.1), the heat from ThermalService's
    report, unchanged over the visit (the shell reads no sysfs zone); from 5.1 a second user
    (a private space) locked behind the unlocked foreground user."""
    users = [(100, False, True), (101, True, False)]
    c = Capture(f"releases-{release}", comment, release, users)
    denied = release in ("4.0", "4.1")
    def cpu_session(run, percent):
        c.visit(f"{run} cpu")
        c.start()
        c.shell(f"pidof {BUNDLE}", "5000\n")
        c.shell(cpu_command(5000), proc_cpu(5000, percent, stat_denied=denied))
    cpu_session(1, 12.0)
    c.visit("1 gpu")
    c.start()
    c.shell(f"SP_daemon -N 5 -PKG {BUNDLE} -g", gpu_samples(release), status=134 if release in ("3.2", "4.0") else 0)
    c.visit("1 power")
    c.start()
    c.shell("hidumper -s BatteryService -a -i", battery_dump())
    c.shell(f"SP_daemon -N 5 -PKG {BUNDLE} -p", power_samples(release))
    c.visit("1 temperature")
    temperature_session(c, release, refreshed=False)
    cpu_session(2, 14.0)
    cpu_session(3, 13.0)
    c.finish()

build_resources("notes-resources", "The notes app's GPU, power and heat on its first screen (see generate.py).")
for release in RELEASES:
    build_release(release, f"The notes app's resources on a phone of OpenHarmony {release}, as its shell answers under OpenHarmony's policy (see generate.py).")
build_appanalyzer("notes-appanalyzer", "The notes app audited against `dwpipe init --preset appanalyzer`: every band passed.")
build_cpu("notes-cpu", "The notes app's CPU load: 12/14/13% on its first screen, 0.8% three minutes in the background.", (12.0, 14.0, 13.0), 0.8)
build_scroll("notes-scroll", "The list scrolled by a flow, measured by hitrace and by RenderService's own present times.", [16.667] * 29 + [50.0] + [16.667] * 30)
build_screens("notes-screens")
build_screens("notes-screens-points", with_lines(response_trace(700), app_points(720)), "POINTS01")
build_screens("notes-screens-points-slower", with_lines(response_trace(700), app_points(1200)), "POINTS02")
# On OpenHarmony 6.0 (API 20) with the feed shown marked at Debug: hitrace keeps a level
# threshold (Info by default), below which fake-hdc drops markers as hitrace_meter does.
build_screens("notes-screens-points-6", with_lines(response_trace(700), app_points(720, shown="B|5000|H:feed shown|D62")), "POINTS06", 20, "6.0.0")
build_stability("notes-crash", "The notes app crashes as it opens a note (flow open-note, step 2): HarmonyOS 6.0.2's hidumper lists the JsError (see generate.py).", "6.0.2", {"flow open-note": [("JsError", 1)]})
build_stability("notes-stable-5.0", "The notes app audited for crashes on OpenHarmony 5.0: the fault logger holds an older crash of the app and another app's, none during the audit (see generate.py).", "5.0", {})
build_stability("notes-freeze-5.1", "The notes app's main thread blocks 6 s on its launch screen (the ui visit) on OpenHarmony 5.1: hidumper -e dumps the appfreeze log (see generate.py).", "5.1", {"ui": [("appfreeze", 2)]})
build_stability("notes-stable-6.0.2", "The notes app audited for crashes on HarmonyOS 6.0.2: hidumper's event list has an older crash only (see generate.py).", "6.0.2", {})
build_stability("notes-gone-6.0.2", "The notes app has no process left after its launch screen's visit, and the platform recorded nothing (see generate.py).", "6.0.2", {}, gone=("ui",))
build_stability("notes-elsewhere-6.0.2", "The notes app still runs, but a browser's window has the focus as its launch screen's visit ends (see generate.py).", "6.0.2", {}, elsewhere=True)
build_stability("notes-faults-unread", "The notes app on OpenHarmony 5.0 whose hidumper prints no fault-log section (see generate.py).", "5.0", {}, unread=True)
build_window("notes-outer-6.0.2", "The notes app on a foldable's outer screen (display 5), HarmonyOS 6.0.2: the dump and screenshot name the app and display 5 (see generate.py).", "6.0.2", display=5)
build_window("notes-outer-5.0", "The notes app on display 5 of an OpenHarmony 5.0 phone, whose uitest captures display 0 with every window merged (see generate.py).", "5.0", display=5)
build_window("notes-split-6.0.2", "The notes app in the top half of a split screen beside a browser, HarmonyOS 6.0.2 (see generate.py).", "6.0.2", split=True)
build_fold("notes-fold-expanded", "The notes app on a foldable, expanded: the inner display 0 (see generate.py).", False)
build_fold("notes-fold-folded", "The notes app on a foldable, folded: the outer display 5 at its own density (see generate.py).", True)
print("written")
