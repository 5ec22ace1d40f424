//! A node's rect as the dump writes it (`[l,t][r,b]`, px), and the little geometry clipping
//! needs.

use serde::Serialize;

/// `[l,t][r,b]` in px.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Rect {
    /// Left.
    pub l: i64,
    /// Top.
    pub t: i64,
    /// Right.
    pub r: i64,
    /// Bottom.
    pub b: i64,
}

impl Rect {
    /// Parses `[l,t][r,b]`; inverted rects are kept (they have no area).
    pub(crate) fn parse(text: &str) -> Option<Rect> {
        let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
        let (first, second) = inner.split_once("][")?;
        let pair = |s: &str| -> Option<(i64, i64)> {
            let (a, b) = s.split_once(',')?;
            Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
        };
        let ((l, t), (r, b)) = (pair(first)?, pair(second)?);
        Some(Rect { l, t, r, b })
    }

    /// Width (0 when inverted).
    pub(crate) fn width(&self) -> i64 {
        (self.r - self.l).max(0)
    }

    /// Height (0 when inverted).
    pub(crate) fn height(&self) -> i64 {
        (self.b - self.t).max(0)
    }

    /// Whether the rect has no area.
    pub(crate) fn is_empty(&self) -> bool {
        self.width() == 0 || self.height() == 0
    }

    /// The overlap of two rects (possibly empty).
    pub(crate) fn intersect(&self, other: &Rect) -> Rect {
        Rect {
            l: self.l.max(other.l),
            t: self.t.max(other.t),
            r: self.r.min(other.r),
            b: self.b.min(other.b),
        }
    }
}
