//! Tests of `crate::attest::key`.

use super::*;

/// A private key file that is not what dwpipe signs with says what it is, and how to get
/// one that is.
#[test]
fn keys_of_other_kinds_say_what_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let rows = [
        (
            "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n",
            "SEC1 form",
        ),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n",
            "an RSA key",
        ),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
            "OpenSSH private key",
        ),
        (
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n",
            "encrypted",
        ),
        (
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
            "neither Ed25519 nor ECDSA P-256",
        ),
        ("not a key\n", "holds no PEM key"),
    ];
    for (text, says) in rows {
        let path = dir.path().join("key.pem");
        std::fs::write(&path, text).unwrap();
        #[cfg(unix)]
        {
            let mut permissions = std::fs::metadata(&path).unwrap().permissions();
            std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o600);
            std::fs::set_permissions(&path, permissions).unwrap();
        }
        let Err(refused) = SigningKey::read(&path) else {
            panic!("{says}: read");
        };
        let found = refused.diagnostic();
        assert_eq!(found.code, "E_KEY_UNSUPPORTED", "{says}");
        assert!(found.message.contains(says), "{says}: {}", found.message);
        assert!(found.fix.unwrap().contains("openssl"), "{says}");
    }
}

#[test]
fn an_ed25519_key_id_is_securesystemslibs() {
    // RFC 8032's first test key; the id is what securesystemslib 1.6's
    // `SSlibKey.from_crypto` printed for it (CI checks fresh keys of both kinds too).
    let raw = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
    let key = PublicKey {
        algorithm: Algorithm::Ed25519,
        raw: (0..32)
            .map(|i| u8::from_str_radix(&raw[2 * i..2 * i + 2], 16).unwrap())
            .collect(),
    };
    assert_eq!(
        key.keyid(),
        "74c181c7ad8a0855d4b55e44d2ba87aabdddb196832571f15f92fece332e4916"
    );
}
