//! Where a finger goes: the node a selector names in the app window, the centre of its
//! visible rect, a swipe across it, and the coordinates uitest takes.

use crate::pack::{Direction, Selector};
use crate::probe::layout::{Layout, NodeId, Rect};
use crate::shell::ShellValue;

use super::super::evidence::{StepFailure, StepFile, step_error, step_file};

/// The node `selector` names in the app window of `layout`, or why there is none.
pub(super) fn select(
    layout: &Layout,
    bundle: &str,
    selector: &Selector,
    index: usize,
) -> Result<NodeId, StepFailure> {
    let last = step_file(index, StepFile::Layout);
    let window = layout
        .app_window(Some(bundle))
        .map_err(|e| step_error(format!("{e} (last layout: {last})")))?;
    layout
        .select(window, selector)
        .map_err(|e| step_error(format!("{e} (last layout: {last})")))
}

/// A coordinate uitest takes: a positive integer (it refuses 0 and below).
pub(super) fn coordinate(value: i64) -> Result<ShellValue, StepFailure> {
    if value <= 0 {
        return Err(step_error(format!(
            "the point {value} is off screen: uitest takes positive coordinates only"
        )));
    }
    ShellValue::number("coordinate", &value.to_string()).map_err(|e| step_error(e.to_string()))
}

/// The centre of a node's visible rect (a selected node always has one).
pub(super) fn centre(layout: &Layout, node: NodeId) -> [i64; 2] {
    let rect = layout.visible_rect(node).unwrap_or_default();
    mid(&rect)
}

fn mid(rect: &Rect) -> [i64; 2] {
    [(rect.l + rect.r) / 2, (rect.t + rect.b) / 2]
}

/// A swipe across a node's visible rect: centred on it, `distance` vp long (half the rect
/// by default), kept inside the rect.
pub(super) fn along(
    layout: &Layout,
    node: NodeId,
    direction: Direction,
    distance_vp: Option<f64>,
    vpr: Option<f64>,
) -> ([i64; 2], [i64; 2]) {
    let rect = layout.visible_rect(node).unwrap_or_default();
    let [cx, cy] = mid(&rect);
    let vertical = matches!(direction, Direction::Up | Direction::Down);
    let span = if vertical {
        rect.height()
    } else {
        rect.width()
    };
    let wanted = match (distance_vp, vpr) {
        (Some(vp), Some(vpr)) => (vp * vpr).round() as i64,
        _ => span / 2,
    };
    // Inside the rect, one px from its edges.
    let half = (wanted.min(span - 2) / 2).max(1);
    match direction {
        Direction::Up => ([cx, cy + half], [cx, cy - half]),
        Direction::Down => ([cx, cy - half], [cx, cy + half]),
        Direction::Left => ([cx + half, cy], [cx - half, cy]),
        Direction::Right => ([cx - half, cy], [cx + half, cy]),
    }
}
