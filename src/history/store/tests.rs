//! History addresses parsed, shown without secrets, and opened.

use std::path::PathBuf;

use super::connect::pgpass_fields;
use super::*;

#[test]
fn a_path_is_a_file_and_a_url_a_server_shown_without_secrets() {
    assert_eq!(
        Store::parse(".dwpipe/history.sqlite").unwrap(),
        Store::Sqlite(PathBuf::from(".dwpipe/history.sqlite"))
    );
    let server = Store::parse("postgresql://lab@db.example:5433/dwpipe?sslmode=require").unwrap();
    assert_eq!(
        server.to_string(),
        "postgres://lab@db.example:5433/dwpipe?sslmode=require"
    );
    assert!(server.file().is_none());
}

/// Every way a password can be written into a history address is refused, and nothing
/// of it is echoed: in the user info (with `/`, `?`, `@`, `%` in it), as a parameter
/// however its key is spelled or encoded, in a connection string, under a scheme in
/// capitals. No such text becomes an SQLite file.
#[test]
fn a_password_is_refused_and_never_echoed_however_it_is_written() {
    let secret = "s3cr3tXY";
    for text in [
        format!("postgres://lab:{secret}@db/dwpipe"),
        format!("postgres://lab:{secret}/x@db/dwpipe"),
        format!("postgres://lab:{secret}?x@db/dwpipe"),
        format!("postgres://lab:{secret}%40x@db/dwpipe"),
        format!("postgresql://lab@db/dwpipe?password={secret}"),
        format!("postgres://lab@db/dwpipe?sslmode=require&password={secret}"),
        format!("postgres://lab@db/dwpipe?pass%77ord={secret}"),
        format!("postgres://lab@db/dwpipe?%70assword={secret}"),
        format!("POSTGRES://lab:{secret}@db/dwpipe"),
        format!("PostgreSQL://lab@db/dwpipe?password={secret}"),
        format!("host=db user=lab password={secret} dbname=dwpipe"),
        format!("host=db user=lab password='{secret}'"),
        format!("postgres://lab:{secret}@db/dwpipe?sslmode=sometimes"),
        format!("postgres://lab:p@{secret}@db/dwpipe"),
        format!("mysql://lab:{secret}@db/dwpipe"),
        // Meant as addresses, not written as ones: never a file named after the password.
        format!("postgres:/lab:{secret}@db/dwpipe"),
        format!("postgres:lab:{secret}@db/dwpipe"),
        format!("postgresql:lab:{secret}@db"),
        format!(" postgres://lab:{secret}@db/dwpipe"),
        format!("postgres://lab:{secret}@db/dwpipe "),
        format!("\"postgres://lab:{secret}@db/dwpipe\""),
        format!("'postgres://lab:{secret}@db/dwpipe'"),
        format!("postgres ://lab:{secret}@db/dwpipe"),
        format!("POSTGRES :/lab:{secret}@db/dwpipe"),
        format!("mysql:/lab:{secret}@db/dwpipe"),
    ] {
        let e = Store::parse(&text).expect_err(&text);
        assert!(
            ["E_HISTORY_PASSWORD", "E_HISTORY_URL"].contains(&e.code()),
            "{text}: {e}"
        );
        assert!(!e.to_string().contains(secret), "{text}: {e}");
        assert!(!e.to_string().contains("s3cr"), "{text}: {e}");
    }
}

/// What only looks like a scheme is a file: a drive's letter, a name with a colon.
#[test]
fn a_path_with_a_colon_is_still_a_file() {
    for path in [
        "C:/lab/history.sqlite",
        "C:\\lab\\history.sqlite",
        "notes:1.sqlite",
        "./postgres:/x.sqlite",
    ] {
        assert_eq!(
            Store::parse(path).unwrap(),
            Store::Sqlite(PathBuf::from(path)),
            "{path}"
        );
    }
}

#[test]
fn a_server_is_shown_as_rebuilt_from_its_parts() {
    for (text, shown) in [
        ("POSTGRES://lab@db/dwpipe", "postgres://lab@db/dwpipe"),
        (
            "host=db port=5433 user=lab dbname=dwpipe",
            "postgres://lab@db:5433/dwpipe",
        ),
        (
            "postgres://lab@db/dwpipe?sslmode=verify-full",
            "postgres://lab@db/dwpipe?sslmode=verify-full",
        ),
        (
            "postgres://lab@db/dwpipe?application_name=x&sslmode=disable",
            "postgres://lab@db/dwpipe?sslmode=disable",
        ),
        (
            "postgres://lab@[::1]:5433/dwpipe?options=-c%20password%3Dx",
            "postgres://lab@[::1]:5433/dwpipe",
        ),
    ] {
        assert_eq!(Store::parse(text).unwrap().to_string(), shown, "{text}");
    }
    // A path with `=` further on is still a path.
    assert_eq!(
        Store::parse("runs/a=b/history.sqlite").unwrap(),
        Store::Sqlite(PathBuf::from("runs/a=b/history.sqlite"))
    );
}

#[test]
fn password_file_lines_match_field_by_field_with_escapes() {
    assert_eq!(
        pgpass_fields(r"db:5432:*:lab:pa\:ss\\word"),
        ["db", "5432", "*", "lab", r"pa:ss\word"]
    );
}
