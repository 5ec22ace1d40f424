//! `lab.md` and `lab.html`: a lab's criterion × device matrix for people, each cell its result
//! with what was measured or why not.

mod markdown;
mod page;

pub(crate) use markdown::markdown;
pub(crate) use page::html;
