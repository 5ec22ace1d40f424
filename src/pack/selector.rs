//! Layout selectors: `id:…`, `key:…`, `text:…`, `type:…`, with `[n]` for the n-th match.

use std::fmt;

/// Which attribute a selector matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum SelectorKind {
    /// The component id.
    Id,
    /// The inspector key.
    Key,
    /// The visible text.
    Text,
    /// The component type (`Button`).
    Type,
}

/// A parsed selector.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Selector {
    /// Which attribute.
    pub(crate) kind: SelectorKind,
    /// The value it must equal.
    pub(crate) value: String,
    /// Which match, 0-based, when the author wrote `[n]`.
    pub(crate) index: Option<usize>,
}

/// Why a selector does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("selector `{0}` is not `id:…`, `key:…`, `text:…` or `type:…` (optionally ending in `[n]`)")]
pub(crate) struct SelectorError(String);

impl Selector {
    /// Parses `kind:value[n]`.
    pub(crate) fn parse(text: &str) -> Result<Selector, SelectorError> {
        let error = || SelectorError(text.to_owned());
        let (kind, rest) = text.split_once(':').ok_or_else(error)?;
        let kind = match kind {
            "id" => SelectorKind::Id,
            "key" => SelectorKind::Key,
            "text" => SelectorKind::Text,
            "type" => SelectorKind::Type,
            _ => return Err(error()),
        };
        let (value, index) = match rest.strip_suffix(']').and_then(|r| r.rsplit_once('[')) {
            Some((value, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                (value, Some(n.parse().map_err(|_| error())?))
            }
            _ => (rest, None),
        };
        if value.is_empty() {
            return Err(error());
        }
        Ok(Selector {
            kind,
            value: value.to_owned(),
            index,
        })
    }
}

impl fmt::Display for SelectorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SelectorKind::Id => "id",
            SelectorKind::Key => "key",
            SelectorKind::Text => "text",
            SelectorKind::Type => "type",
        })
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.kind, self.value)?;
        if let Some(n) = self.index {
            write!(f, "[{n}]")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
