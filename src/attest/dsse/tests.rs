//! Tests of `crate::attest::dsse`.

use super::*;

#[test]
fn pae_is_the_protocols_example() {
    // protocol.md's test vector.
    assert_eq!(
        pae("http://example.com/HelloWorld", b"hello world"),
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    );
}

#[test]
fn base64_of_either_alphabet_with_or_without_padding() {
    assert_eq!(decode("aGk/Pz8=").as_deref(), Some(&b"hi???"[..]));
    assert_eq!(decode("aGk_Pz8").as_deref(), Some(&b"hi???"[..]));
    assert_eq!(decode("not base64!"), None);
}
