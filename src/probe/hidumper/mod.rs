//! hidumper output: RenderService `fps` and `fpsCount` and `screen`, `--mem <pid>`, the
//! device's state (battery, power, thermal zones) and the WindowManagerService window table (research/hdc-hidumper.md §2). Field names changed
//! between HarmonyOS 5.x and 6.x, so every pattern is case-insensitive and accepts both.

mod cpu;
mod displays;
mod memory;
mod state;
mod windows;

pub use cpu::{CpuUsage, cpu_usage};
pub use displays::{Display, Displays, displays};
pub use memory::{MemoryTotal, memory_total};
pub use state::{
    Battery, Brightness, PowerState, ThermalZone, battery, brightness, foreground_user,
    power_state, screen_locked, thermal_zones,
};
pub use windows::{Window, WindowTable, windows};

mod blocks;
mod fps;
mod screens;
#[cfg(test)]
mod tests;
pub use blocks::DumpError;
pub(crate) use blocks::{HIDUMPER_ERROR, re, require_block};
pub use fps::{FpsBlock, FpsSummary, fps_blocks, fps_count};
use screens::round3;
pub use screens::{Screen, screens};
