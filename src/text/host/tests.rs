//! Host programs' bytes as text.

use super::host_text;

#[test]
fn utf8_lines_stay_and_others_are_decoded_or_replaced_never_a_panic() {
    let phone = "设备 FMR0223C13000649\n".as_bytes();
    assert_eq!(host_text(phone), "设备 FMR0223C13000649\n");
    // hdc's own message naming a GBK path, between two lines of the phone's UTF-8.
    let mut mixed = phone.to_vec();
    mixed.extend_from_slice(b"[Fail]Error opening file: C:\\\xd6\xd0\xce\xc4\\a.hap\n");
    mixed.extend_from_slice("第二行\n".as_bytes());
    let text = host_text(&mixed);
    assert!(text.starts_with("设备 FMR0223C13000649\n[Fail]Error opening file: C:\\"));
    assert!(text.ends_with("\\a.hap\n第二行\n"), "{text}");
    // Every byte value, cut anywhere: text, never a panic.
    let all: Vec<u8> = (0..=255).collect();
    for cut in 0..all.len() {
        let _ = host_text(&all[..cut]);
    }
}

#[cfg(windows)]
#[test]
fn windows_decodes_a_chinese_code_page_as_windows_does() {
    assert_eq!(
        super::windows::decode(936, b"C:\\\xd6\xd0\xce\xc4").as_deref(),
        Some("C:\\中文")
    );
}
