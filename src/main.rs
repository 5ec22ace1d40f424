//! The `dwpipe` binary: parse, run, exit. All logic is in the library.

fn main() {
    std::process::exit(dwpipe::run(std::env::args_os()));
}
