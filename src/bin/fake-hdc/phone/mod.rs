//! fake-hdc as a phone's own tools, for a real `hdcd`: installed under the tools' names
//! (`param`, `hidumper`, `aa`, `bm`, `uitest`, `hitrace`, `SP_daemon`, `snapshot_display`,
//! `pidof`, and `cat` for `/proc`) on the daemon's PATH, it answers each tool's call from the
//! same capture fake-hdc serves, so the real client, server and daemon carry the material.
//!
//! A phone tool cannot see the line dwpipe sent; the shell that runs it can. Each call reads
//! its parent shell's command line (`/bin/sh -c LINE`, from `/proc`), finds the exchange of the
//! capture that answers that line (from where the device left off, as an app's build is served
//! in `apps.rs`), and prints its own part of the recorded reply with its own exit status (see
//! `../line.rs`); when the capture pulls a file next that the tool was told to write
//! (`hitrace -o`, `uitest screenCap -p`), the tool writes it there, so `file recv` moves the
//! recorded bytes through hdc's real file transfer. The identity and the state a capture did not
//! record are answered as fake-hdc answers them. `bm install`/`bm uninstall` (what hdcd runs
//! for `hdc install`) act on a device with builds (`apps.yaml`), the build known by the version
//! code inside the HAP that hdc transferred.
//!
//! Environment (hdcd passes its own to every shell): `DWPIPE_FAKE_PHONE`, the device folder
//! (a capture or an `apps.yaml` device); `DWPIPE_FAKE_HDC_STATE`, where it keeps its place.
//! `cat` of anything but `/proc`, or of what the capture never answers, is the real `cat`.

mod tool;

pub(crate) use tool::{TOOLS, run};
