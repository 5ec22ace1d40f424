//! Tests of `crate::pack::regression`.

use super::*;

#[test]
fn floors_parse_and_convert_to_the_probe_unit() {
    assert_eq!(
        Floor::parse("5%").unwrap().amount(Some("ms"), 700.0),
        Ok(35.0)
    );
    assert_eq!(
        Floor::parse("20ms").unwrap().amount(Some("ms"), 700.0),
        Ok(20.0)
    );
    assert_eq!(
        Floor::parse("0.02s").unwrap().amount(Some("ms"), 700.0),
        Ok(20.0)
    );
    assert_eq!(
        Floor::parse("10MB").unwrap().amount(Some("KB"), 1.0),
        Ok(10_240.0)
    );
    assert!(
        Floor::parse("20ms")
            .unwrap()
            .amount(Some("vp"), 1.0)
            .is_err()
    );
    assert!(Floor::parse("20ms").unwrap().amount(None, 1.0).is_err());
    for bad in ["", "0ms", "-3ms", "150%", "x%", "fast"] {
        assert!(Floor::parse(bad).is_err(), "{bad}");
    }
    assert_eq!(Floor::default_for(Some("ms")), 20.0);
    assert_eq!(Floor::default_for(None), 1.0);
}
