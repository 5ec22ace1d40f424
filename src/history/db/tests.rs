//! Tests of `crate::history::db`.

use super::dollars;

#[test]
fn placeholders_are_numbered_the_same_for_postgres() {
    assert_eq!(
        dollars("SELECT 1 WHERE a = ?1 AND (?2 IS NULL OR b = ?2) AND c = ?10"),
        "SELECT 1 WHERE a = $1 AND ($2 IS NULL OR b = $2) AND c = $10"
    );
}
