//! Tests of `crate::process::limits`.

use super::*;

#[test]
fn the_jobs_a_limit_allows() {
    let rows: [(u64, usize); 5] = [(0, 1), (64, 1), (80, 2), (256, 24), (1024, 120)];
    for (limit, jobs) in rows {
        assert_eq!(jobs_within(limit), jobs, "{limit}");
    }
}
