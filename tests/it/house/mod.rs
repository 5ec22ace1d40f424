//! The house rules ARCHITECTURE.md states, held to the sources: the layers and the folders'
//! imports ([`layers`]), the sizes of files and functions ([`sizes`]), and the error codes'
//! one table ([`codes`]). A rule only a review checks is a rule that drifts.

mod codes;
mod layers;
mod sizes;
