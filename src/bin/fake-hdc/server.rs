//! `fake-hdc -s HOST:PORT -m`: the hdc *server* side, for tools that talk to hdc's server over
//! TCP rather than through the client — xdevice's workers find devices this way (the
//! `xdevice-ohos` plugin's `dmlib.py`). It speaks the wire protocol of hdc's own sources
//! (`developtools_hdc`, `src/host/server_for_client.cpp`, `src/common/channel.cpp`) for the
//! requests those tools make:
//!
//! - on connect the server sends its handshake, 48 bytes: a channel id (u32, big-endian), the
//!   banner `OHOS HDC` in 12 bytes, 32 bytes of connect key (empty here); the client answers
//!   with a length (u32, big-endian) and that many bytes: the banner again and the connect key
//!   it wants to talk to (NUL-padded);
//! - every request is a length (u32, big-endian) and a NUL-terminated command; every reply
//!   chunk a length and that many bytes;
//! - `alive` keeps the channel open for repeated `list targets -v` (a device monitor's
//!   channel) and is not answered; a `shell` channel is closed after its reply.
//!
//! The devices listed are those of `DWPIPE_FAKE_HDC_CAPTURES` served at this address (an entry
//! prefixed by it, or an unprefixed one on the default `127.0.0.1:8710`). The shell answers only
//! what a scheduler's housekeeping asks, and never from a capture's transcript (which is the
//! audit's, through the client): `param get` of the product parameters from `device.yaml`,
//! `param get` of anything else the way the `param` tool refuses a missing key, and an empty
//! reply to any other command (named on stderr, so a test's log shows what was asked).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use dwpipe::device::DeviceInfo;

use crate::{Named, list_targets, named_devices};

/// Where hdc's server listens unless told otherwise.
pub(crate) const DEFAULT_ADDRESS: &str = "127.0.0.1:8710";

/// The largest request a client may send (a shell command line is far shorter).
const MAX_REQUEST: u32 = 64 * 1024;

/// Runs the server at `address` until killed; an address that cannot be bound is an error.
pub(crate) fn serve(address: &str) -> Result<(), String> {
    let listener =
        TcpListener::bind(address).map_err(|e| format!("cannot listen on {address}: {e}"))?;
    eprintln!("fake-hdc server: listening on {address}");
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let address = address.to_owned();
        std::thread::spawn(move || {
            // A client that stops talking frees its thread within a minute.
            let _ = stream.set_read_timeout(Some(Duration::from_secs(60)));
            if let Err(e) = channel(stream, &address) {
                eprintln!("fake-hdc server: a channel ended: {e}");
            }
        });
    }
    Ok(())
}

/// The devices served at `address`.
fn served_here(address: &str) -> Vec<Named> {
    named_devices()
        .into_iter()
        .filter(|n| match &n.server {
            Some(server) => server == address,
            None => address == DEFAULT_ADDRESS,
        })
        .collect()
}

/// One client connection: the handshake, then requests until it closes or a one-shot
/// request was answered.
fn channel(mut stream: TcpStream, address: &str) -> std::io::Result<()> {
    let mut hello = Vec::with_capacity(48);
    hello.extend_from_slice(&1u32.to_be_bytes());
    hello.extend_from_slice(&padded(b"OHOS HDC", 12));
    hello.extend_from_slice(&[0; 32]);
    stream.write_all(&hello)?;
    let reply = read_frame(&mut stream)?.ok_or_else(|| eof("the client's handshake"))?;
    if reply.get(..8) != Some(b"OHOS HDC") {
        return Err(invalid("the client's handshake has no `OHOS HDC` banner"));
    }
    let key = text(reply.get(12..).unwrap_or_default());
    while let Some(request) = read_frame(&mut stream)? {
        let request = text(&request);
        let request = request.trim();
        if request == "alive" {
            continue;
        }
        if request.starts_with("list targets") {
            let here = served_here(address);
            let listed = list_targets(&here.iter().collect::<Vec<_>>());
            write_frame(&mut stream, listed.as_bytes())?;
            continue;
        }
        let answer = match request.strip_prefix("shell ") {
            Some(command) => shell(&served_here(address), &key, command.trim()),
            None => format!("[Fail]fake-hdc server: `{request}` is not served\r\n"),
        };
        if !answer.is_empty() {
            write_frame(&mut stream, answer.as_bytes())?;
        }
        // hdc closes a command's channel once the command ended: the client reads to the end.
        return Ok(());
    }
    Ok(())
}

/// What the device `key` answers to a shell command of a scheduler's housekeeping.
fn shell(here: &[Named], key: &str, command: &str) -> String {
    let Some(info) = here
        .iter()
        .filter_map(|n| n.info().ok())
        .find(|info| info.serial == key)
    else {
        return "[Fail][E001005] Device not found or connected\r\n".to_owned();
    };
    match command.strip_prefix("param get ") {
        Some(name) => param(&info, name.trim()),
        None => {
            eprintln!("fake-hdc server: {key}: not served, answered empty: {command}");
            String::new()
        }
    }
}

/// `param get NAME`, from the device's identity.
fn param(info: &DeviceInfo, name: &str) -> String {
    let value = match name {
        "const.product.model" => info.model.clone(),
        "const.product.name" => info.name.clone(),
        "const.product.software.version" => info.software_version.clone(),
        "const.ohos.apiversion" => info.api_level.map(|level| level.to_string()),
        "const.product.devicetype" => Some("phone".to_owned()),
        "bootevent.boot.completed" => Some("true".to_owned()),
        _ => None,
    };
    match value {
        Some(value) => format!("{value}\n"),
        None => format!("Get parameter \"{name}\" fail! errNum is:106!\n"),
    }
}

/// A length-prefixed frame, or `None` at the end of the stream.
fn read_frame(stream: &mut TcpStream) -> std::io::Result<Option<Vec<u8>>> {
    let mut length = [0; 4];
    match stream.read_exact(&mut length) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let length = u32::from_be_bytes(length);
    if length > MAX_REQUEST {
        return Err(invalid(&format!("a request of {length} bytes")));
    }
    let mut body = vec![0; length as usize];
    stream.read_exact(&mut body)?;
    Ok(Some(body))
}

fn write_frame(stream: &mut TcpStream, body: &[u8]) -> std::io::Result<()> {
    let length = u32::try_from(body.len()).map_err(|_| invalid("a reply over 4 GiB"))?;
    let mut frame = length.to_be_bytes().to_vec();
    frame.extend_from_slice(body);
    stream.write_all(&frame)
}

/// `bytes` up to their first NUL, as text.
fn text(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

fn padded(bytes: &[u8], width: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out.resize(width, 0);
    out
}

fn invalid(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned())
}

fn eof(what: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        format!("{what} never came"),
    )
}
