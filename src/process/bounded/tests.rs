//! Tests of `crate::process::bounded`.

use super::*;

#[test]
fn keeps_head_and_tail_and_counts_the_middle() {
    let mut out = BoundedOutput::new(4, 3);
    out.push(b"abcdefgh");
    out.push(b"ij");
    assert_eq!(out.total(), 10);
    assert_eq!(out.dropped(), 3);
    assert_eq!(
        out.to_bytes(),
        b"abcd\n[\xe2\x80\xa6 3 bytes dropped \xe2\x80\xa6]\nhij"
    );
    let mut small = BoundedOutput::new(4, 3);
    small.push(b"abc");
    small.push(b"de");
    assert!(small.is_complete());
    assert_eq!(small.to_bytes(), b"abcde");
}
