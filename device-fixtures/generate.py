#!/usr/bin/env python3
"""Writes the notes-app captures in device-fixtures/ (needs Pillow for the screenshots).

Every capture answers the embedded playbooks for examples/notes/pack.yaml, in the order the
audit asks: run 1 = sessions cold-start, hypium, scroll, ui; runs 2 and 3 = cold-start only
(P-01 asks for 3 runs). Expected verdicts are asserted by tests/audit.rs.

  notes-pass        cold starts 700/720/760 ms, smooth scroll, 12 vp gap, 48 vp targets,
                    black title on white (21:1), all hypium cases pass        → every check passes
  notes-fail        cold starts 1150/1200/1250 ms, janky scroll (62.5 ms/s), 10 vp gap,
                    a 36 vp unlabeled icon, grey title (2.32:1), one failing case → P-01, P-02,
                    A-01, X-01, X-02, F-01 fail
  notes-unstable    like notes-pass, but cold starts of 500/720/1100 ms: the median passes, the
                    spread (83% > 25%) is W_MEASUREMENT_UNSTABLE
  notes-trace-cut   like notes-pass, but the first cold-start trace ends mid-line before the
                    first frame                                                → P-01 unverified
  notes-no-window   like notes-pass, but the layout dump lacks the app window   → A-01, X-01, X-02 unverified
  notes-no-screenshot like notes-pass, but pulling the screenshot fails         → X-02 unverified
"""
import hashlib, io, json, os, shutil, sys
from PIL import Image, ImageDraw

ROOT = os.path.dirname(os.path.abspath(__file__))
BUNDLE, ABILITY = "com.example.notes", "EntryAbility"
VPR = 3.25
HEADER = "# tracer: nop\n#\n#           TASK-PID       TGID    CPU#  ||||   TIMESTAMP  FUNCTION\n#              | |           |       |   ||||      |         |\n"

def line(task, tid, tgid, cpu, us, payload):
    secs, frac = divmod(us, 1_000_000)
    return f"{(task + '-' + str(tid)).rjust(24)} ({str(tgid).rjust(7)}) [{cpu:03d}] .... {secs}.{frac:06d}: tracing_mark_write: {payload}\n"

def cold_trace(total_ms):
    """A cold start whose first frame is on screen `total_ms` after the finger-up at 10 s."""
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

def layout(gap_vp, small_icon, with_app=True):
    px = lambda vp: round(vp * VPR)
    items, top = [], 400
    for i in range(3):
        h = px(60)
        items.append(node({"id": f"note_item_{i}", "type": "ListItem", "text": f"Note {i}", "clickable": "true", **rect(48, top, 1212, top + h)}))
        top += h + px(gap_vp)
    children = [
        node({"id": "note_title", "type": "Text", "text": "My notes", **rect(*TITLE)}),
        node({"id": "note_list", "type": "List", "scrollable": "true", **rect(0, 380, 1260, 2400)}, items),
        node({"id": "add_button", "type": "Button", "text": "Add", "clickable": "true", **rect(1000, 2450, 1000 + px(48), 2450 + px(48))}),
    ]
    if small_icon:
        children.append(node({"type": "Image", "clickable": "true", **rect(100, 2450, 100 + px(36), 2450 + px(36))}))
    windows = []
    if with_app:
        windows.append(node({"type": "root", "bundleName": BUNDLE, "abilityName": ABILITY, **rect(0, 123, 1260, 2720)}, [node({"type": "Column", **rect(0, 123, 1260, 2720)}, children)]))
    windows.append(node({"type": "WindowScene", "bundleName": "com.ohos.sceneboard", "id": "session33", **rect(0, 0, 1260, 123)}))
    return json.dumps({"attributes": {"bounds": "[0,0][1260,2720]", "origBounds": "", "type": ""}, "children": windows}, indent=1)

def screenshot(title_colour):
    img = Image.new("RGB", (1260, 2720), (255, 255, 255))
    d = ImageDraw.Draw(img)
    l, t, r, b = TITLE
    d.rectangle([l + 20, t + 30, l + 300, t + 70], fill=title_colour)  # the title's glyphs, as a block
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()

def hypium(failing):
    cases = [("NoteListTest", "saves", "0"), ("NoteListTest", "deletes", "-2" if failing else "0")]
    out = ""
    for cls, test, code in cases:
        block = f"OHOS_REPORT_STATUS: class={cls}\nOHOS_REPORT_STATUS: current=1\nOHOS_REPORT_STATUS: id=JS\nOHOS_REPORT_STATUS: numtests=2\nOHOS_REPORT_STATUS: stream=\nOHOS_REPORT_STATUS: test={test}\n"
        out += f"{block}OHOS_REPORT_STATUS_CODE: 1\n\n{block}OHOS_REPORT_STATUS_CODE: {code}\nOHOS_REPORT_STATUS: consuming=4\n\n"
    fail = 1 if failing else 0
    return out + f"OHOS_REPORT_RESULT: stream=Tests run: 2, Failure: {fail}, Error: 0, Pass: {2 - fail}, Ignore: 0\nOHOS_REPORT_CODE: 0\n"

def yaml_str(text):
    return json.dumps(text)  # JSON strings are YAML double-quoted scalars

class Capture:
    def __init__(self, name, comment):
        self.dir = os.path.join(ROOT, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(os.path.join(self.dir, "files"))
        self.lines = [f"# {c}" for c in comment.splitlines()] + ["format-version: 1", "exchanges:"]
    def shell(self, command, reply="", fault=None):
        self.lines.append(f"  - shell: {command}")
        self.lines.append(f"    reply: {yaml_str(reply)}")
        if fault:
            self.lines.append(f"    fault: {fault}")
    def pull(self, remote, name, data):
        path = os.path.join(self.dir, "files", name)
        with open(path, "wb") as f:
            f.write(data)
        self.lines += [f"  - pull: {remote}", f"    file: files/{name}", f"    sha256: {hashlib.sha256(data).hexdigest()}"]
    def finish(self):
        with open(os.path.join(self.dir, "device.yaml"), "w") as f:
            f.write("# A HUAWEI Mate 60 Pro running the example notes app.\nserial: FMR0223C13000649\nname: HUAWEI Mate 60 Pro\nmodel: ALN-AL00\nsoftware-version: ALN-AL00 5.0.0.22(SP35DEVC00E22R4P1log)\napi-level: 12\nvirtual-pixel-ratio: 3.25\n")
        with open(os.path.join(self.dir, "transcript.yaml"), "w") as f:
            f.write("\n".join(self.lines) + "\n")

def cold_session(c, run, trace):
    c.shell(f"aa force-stop {BUNDLE}", "force stop process successfully.\n")
    c.shell("hitrace -b 65536 app ability ace graphic multimodalinput ohos --trace_begin")
    c.shell(f"aa start -b {BUNDLE} -a {ABILITY}", "start ability successfully.\n")
    c.shell(f"hitrace --trace_finish -o /data/local/tmp/dwpipe-cold-{run}.ftrace")
    c.pull(f"/data/local/tmp/dwpipe-cold-{run}.ftrace", f"cold-{run}.ftrace", trace.encode())

def build(name, comment, cold_ms, intervals, gap_vp, small_icon, title_colour, failing_test, cut_trace=False, with_app=True, no_screenshot=False):
    c = Capture(name, comment)
    trace1 = cold_trace(cold_ms[0])
    if cut_trace:
        trace1 = trace1[: trace1.index("Waiting for Present Fence 101") - 60]
    cold_session(c, 1, trace1)
    c.shell(f"aa test -b {BUNDLE} -m entry_test -s unittest OpenHarmonyTestRunner -s class NoteListTest -s timeout 60000", hypium(failing_test))
    c.shell(f"aa start -b {BUNDLE} -a {ABILITY}", "start ability successfully.\n")
    c.shell("hitrace -b 65536 graphic ace app --trace_begin")
    c.shell("uitest uiInput swipe 600 2000 600 600 600")
    c.shell("uitest uiInput swipe 600 600 600 2000 600")
    c.shell("hitrace --trace_finish -o /data/local/tmp/dwpipe-scroll-1.ftrace")
    c.pull("/data/local/tmp/dwpipe-scroll-1.ftrace", "scroll-1.ftrace", scroll_trace(intervals).encode())
    c.shell(f"aa start -b {BUNDLE} -a {ABILITY}", "start ability successfully.\n")
    c.shell("uitest dumpLayout -p /data/local/tmp/dwpipe-layout-1.json", "DumpLayout saved to:/data/local/tmp/dwpipe-layout-1.json\n")
    c.pull("/data/local/tmp/dwpipe-layout-1.json", "layout-1.json", layout(gap_vp, small_icon, with_app).encode())
    c.shell("uitest screenCap -p /data/local/tmp/dwpipe-1-screen.png", "ScreenCap saved to /data/local/tmp/dwpipe-1-screen.png\n")
    if no_screenshot:
        c.lines += ["  - pull: /data/local/tmp/dwpipe-1-screen.png", "    reply: \"[Fail]Error opening file: no such file or directory, path:/data/local/tmp/dwpipe-1-screen.png\\r\\n\"", "    fault: hdc-reply"]
    else:
        c.pull("/data/local/tmp/dwpipe-1-screen.png", "screen-1.png", screenshot(title_colour))
    for run in (2, 3):
        cold_session(c, run, cold_trace(cold_ms[run - 1]))
    c.finish()

SMOOTH = [16667] * 60
JANKY = [16667] * 60
JANKY[19] = JANKY[39] = 50001

build("notes-pass", "The example notes app where every measured criterion passes (see generate.py).", (700, 720, 760), SMOOTH, 12, False, (0, 0, 0), False)
build("notes-fail", "The example notes app failing: slow start, jank, 10 vp gap, 36 vp unlabeled icon, grey title, a failing test.", (1150, 1200, 1250), JANKY, 10, True, (0xAA, 0xAA, 0xAA), True)
build("notes-unstable", "Cold starts that wander: 500/720/1100 ms (median 720 passes, the spread is a warning).", (500, 720, 1100), SMOOTH, 12, False, (0, 0, 0), False)
build("notes-trace-cut", "Fault: the first cold-start trace was cut before the first frame.", (700, 720, 760), SMOOTH, 12, False, (0, 0, 0), False, cut_trace=True)
build("notes-no-window", "Fault: the layout dump holds no window of the app.", (700, 720, 760), SMOOTH, 12, False, (0, 0, 0), False, with_app=False)
build("notes-no-screenshot", "Fault: the screenshot could not be pulled.", (700, 720, 760), SMOOTH, 12, False, (0, 0, 0), False, no_screenshot=True)
print("written")
