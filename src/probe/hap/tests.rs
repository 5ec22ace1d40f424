//! Tests of `crate::probe::hap`.

use std::io::{Cursor, Write};

use super::*;

/// A zip with `members`, deflated.
fn archive(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in members {
        zip.start_file(*name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

#[test]
fn a_hap_names_its_version_and_anything_else_says_why_not() {
    let hap = archive(&[
        (
            "module.json",
            br#"{"app":{"bundleName":"com.example.notes","versionCode":1000001,"versionName":"1.1.0"},"module":{"name":"entry"}}"#,
        ),
        ("ets/modules.abc", &[0; 4096]),
    ]);
    assert_eq!(
        version(Cursor::new(hap)).unwrap(),
        Version {
            name: "1.1.0".into(),
            code: 1_000_001
        }
    );
    for (bytes, said) in [
        (b"a stand-in, not a zip".to_vec(), "not a HAP archive"),
        (archive(&[("other.json", b"{}")]), "no module.json"),
        (
            archive(&[("module.json", br#"{"app":{"bundleName":"x"}}"#)]),
            "does not name the app's version",
        ),
        (archive(&[("module.json", b"\xff\xfe")]), "does not name"),
    ] {
        let error = version(Cursor::new(bytes)).unwrap_err().to_string();
        assert!(error.contains(said), "{error}");
    }
}
