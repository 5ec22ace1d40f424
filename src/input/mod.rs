//! Reading input: a file into memory with a size bound, through one reader for every kind of
//! input (a regular file only: FIFOs, devices and sockets are refused by type; a file larger
//! than its limit is refused, and reading stops at the limit whatever the file claims), its text into serde types with the key path and
//! position of any error, and durations as people write them.

mod duration;
mod hap;
mod parse;
mod read;

pub use duration::parse_duration;
pub(crate) use hap::resolve_hap;
pub(crate) use parse::{parse_json, parse_yaml, top_level_keys};

pub use read::ReadError;
pub(crate) use read::{
    MAX_REPORT_BYTES, hash_file, kind_words, open_input, read_bounded, read_text,
};
