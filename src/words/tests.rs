//! Tests of `crate::words`.

words! {
    /// A test vocabulary.
    enum Colour {
        /// Red.
        Red = "red",
        /// Dark blue.
        DarkBlue = "dark-blue",
    }
}

#[test]
fn words_round_trip_through_text_and_serde() {
    for colour in Colour::ALL {
        assert_eq!(Colour::parse(colour.as_str()), Some(*colour));
        let json = serde_json::to_string(colour).unwrap();
        assert_eq!(json, format!("\"{colour}\""));
        assert_eq!(serde_json::from_str::<Colour>(&json).unwrap(), *colour);
    }
    assert_eq!(Colour::WORDS, ["red", "dark-blue"]);
    assert_eq!(Colour::parse("Red"), None);
    let error = serde_json::from_str::<Colour>("\"green\"").unwrap_err();
    assert!(
        error.to_string().contains("unknown variant `green`"),
        "{error}"
    );
}
