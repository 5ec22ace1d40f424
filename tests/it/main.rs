//! dwpipe's integration tests, one binary: each module drives the real binary (or the
//! library) through one area. The shared helpers are in `support`.

mod support;

mod ab;
mod agent_runtime;
mod attest;
mod audit;
mod browser;
mod ci_examples;
mod cli;
mod compare;
mod deliver;
mod deveco;
mod device;
mod device_state;
mod device_tools;
mod evidence;
mod flows;
mod fuzz;
mod history;
mod history_guard;
mod history_pg;
mod hook;
mod hostile;
mod house;
mod inspect;
mod install;
mod lab;
mod lease;
mod newcomer;
mod points;
mod preflight;
mod readings;
mod readme;
mod real_hdc;
mod rebuilt;
mod records;
mod releases;
mod reports;
mod resume;
mod review;
mod screens;
mod stability;
mod trust;
mod variance;
mod xdevice;
