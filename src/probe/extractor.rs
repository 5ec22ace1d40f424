//! The evidence a probe reads and the extractor that turns it into a reading, by name.

use crate::words::words;

words! {
    /// The built-in extractors a probe playbook may name (`extract: cold-start`).
    pub enum Extractor {
        /// Launch start to first frame presented, from a hitrace trace.
        ColdStart = "cold-start",
        /// Present-fence intervals from a hitrace trace: fps, percentiles, jank.
        Frames = "frames",
        /// The Total PSS row of `hidumper --mem`.
        Memory = "memory",
        /// The app process's CPU over a window, from two reads of `/proc`.
        Cpu = "cpu",
        /// SmartPerf's GPU load.
        GpuLoad = "gpu-load",
        /// SmartPerf's GPU frequency.
        GpuFrequency = "gpu-frequency",
        /// SmartPerf's battery draw.
        Power = "power",
        /// The hottest thermal zone.
        Temperature = "temperature",
        /// The gap between two nodes of a layout dump.
        LayoutGap = "layout-gap",
        /// A node's width or height.
        LayoutSize = "layout-size",
        /// The offset between two nodes' edges.
        LayoutAlign = "layout-align",
        /// The smallest side of the clickable nodes.
        TouchTarget = "touch-target",
        /// WCAG contrast inside a node, from the screenshot.
        Contrast = "contrast",
        /// Clickable nodes with neither text nor description.
        Labels = "labels",
        /// The results of `aa test`.
        Hypium = "hypium",
        /// The cost of one flow step's input, from the trace around it.
        Response = "response",
        /// A node's text, from a layout dump.
        Text = "text",
        /// The app's own trace points: a span, a section or a counter.
        TracePoint = "trace-point",
        /// The platform's records of the app's crashes and freezes, around every visit.
        Faults = "faults",
    }
}

impl Extractor {
    /// The revision of the extractor's behaviour: bumped whenever the same evidence would
    /// read differently (a parser fix, a new clipping rule), so `verify-evidence` can tell an
    /// audit read by an older extractor from a tampered one.
    ///
    /// Revision 2 (dwpipe 0.3): the layout extractors see only what is visible (a wholly
    /// hidden node is "not visible"); touch targets are measured by their own size; labels
    /// are read as a screen reader reads them; contrast is measured in the visible rect; the
    /// memory table is read by its header; a missing launch names the missing markers; hypium
    /// criteria are judged by their suite's cases, and an abnormal run is no result. The
    /// resource readers: the CPU from two reads of `/proc` around a window (no longer
    /// hidumper's row); every SmartPerf sample or none, zeros of a missing GPU node no
    /// reading, the power with its sign and the battery's state at the visit; the hottest
    /// zone from sysfs, or from a ThermalService report that changed during the visit.
    ///
    /// Revision 3 (the readings a production phone allows): the power in OpenHarmony's mA and
    /// µV, values no phone has in them and a current BatteryService's `nowCurrent` does not
    /// bear out no reading; a clocked GPU's all-zero load no reading; the CPU's impossible
    /// counters no reading (never clamped) and, where `/proc/stat` is refused, the share of one
    /// core over the clock's window; the temperature from ThermalService's report whether or
    /// not it changed (at most one polling interval old), a sysfs zone that errors left out;
    /// the summary's unexplained failures no pass; a trace whose clock does not read no
    /// reading (the trace readers: cold start, frames, response).
    pub(crate) fn revision(self) -> u32 {
        match self {
            Extractor::Text | Extractor::TracePoint | Extractor::Faults => 1,
            Extractor::Frames | Extractor::Response => 2,
            Extractor::Cpu
            | Extractor::GpuLoad
            | Extractor::GpuFrequency
            | Extractor::Power
            | Extractor::Temperature
            | Extractor::Hypium
            | Extractor::ColdStart => 3,
            Extractor::Memory
            | Extractor::LayoutGap
            | Extractor::LayoutSize
            | Extractor::LayoutAlign
            | Extractor::TouchTarget
            | Extractor::Contrast
            | Extractor::Labels => 2,
        }
    }
}

words! {
    /// The evidence files extractors read, by the name a session saves them under
    /// (`save: trace.ftrace` in a playbook).
    pub enum Evidence {
        /// A hitrace text trace.
        Trace = "trace.ftrace",
        /// `hidumper --mem <pid>`.
        Memory = "mem.txt",
        /// `/proc/self/stat` (the clock), `/proc/<pid>/stat` and `/proc/stat`, read twice around a
        /// window.
        Cpu = "cpu.txt",
        /// `SP_daemon … -g`.
        Gpu = "gpu.txt",
        /// `SP_daemon … -p`.
        Power = "power.txt",
        /// `hidumper -s BatteryService -a -i`, just before the power is sampled.
        Battery = "battery.txt",
        /// `hidumper -s ThermalService -a -t` as the visit begins.
        ThermalStart = "thermal-start.txt",
        /// `hidumper -s ThermalService -a -t` and every sysfs thermal zone, at the visit's end.
        Thermal = "thermal.txt",
        /// `uitest dumpLayout`.
        Layout = "layout.json",
        /// `uitest screenCap`.
        Screen = "screen.png",
        /// `aa test … OpenHarmonyTestRunner`.
        TestOutput = "aa-test.txt",
    }
}
