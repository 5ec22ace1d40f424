//! Enums that are words in files and on screens (`median`, `cold-start`, `no_changes`): one
//! macro gives each the same `as_str`, `parse`, `Display` and serde form, so a word is spelled
//! once, parsed once at the edge and matched as a variant everywhere else.

/// Declares a `Copy` enum whose variants are the given words. `parse` takes exactly these
/// words; serde writes and reads them (an unknown word is an error naming the known ones).
macro_rules! words {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[$variant_meta:meta])* $variant:ident = $word:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
        $vis enum $name {
            $($(#[$variant_meta])* #[serde(rename = $word)] $variant,)+
        }

        impl $name {
            /// Every variant, in declaration order.
            #[allow(dead_code, reason = "not every vocabulary is listed")]
            $vis const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// Every word, in declaration order.
            #[allow(dead_code, reason = "not every vocabulary is listed")]
            $vis const WORDS: &'static [&'static str] = &[$($word,)+];

            /// The word.
            $vis const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $word,)+
                }
            }

            /// The variant of a word, if it is one.
            #[allow(dead_code, reason = "not every vocabulary is parsed outside serde")]
            $vis fn parse(word: &str) -> Option<$name> {
                match word {
                    $($word => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

pub(crate) use words;

#[cfg(test)]
mod tests;
