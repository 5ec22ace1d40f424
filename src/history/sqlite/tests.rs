//! Tests of `crate::history::sqlite`.

/// Sixteen first openers of a new file at once, thirty times over: each finds it in WAL
/// mode. (SQLite refuses the conversion at once, without its busy handler, while another
/// opener holds a lock: asked once, some of these openers failed with `database is
/// locked`.)
#[test]
fn many_first_openers_of_a_new_file_all_get_it_in_wal_mode() {
    for _ in 0..30 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.sqlite");
        let start = std::sync::Barrier::new(16);
        std::thread::scope(|scope| {
            let openers: Vec<_> = (0..16)
                .map(|_| {
                    scope.spawn(|| {
                        start.wait();
                        let conn = super::super::open_file(&path).map_err(|e| e.to_string())?;
                        conn.pragma_query_value(None, "journal_mode", |row| row.get::<_, String>(0))
                            .map_err(|e| e.to_string())
                    })
                })
                .collect();
            for opener in openers {
                assert_eq!(opener.join().unwrap().as_deref(), Ok("wal"));
            }
        });
    }
}
