//! The dump's JSON read straight into typed nodes: only the attributes dwpipe uses are kept
//! (a 200,000-node dump stays a few tens of MB, where a generic JSON tree costs hundreds), each
//! value read leniently (a string, or a number or boolean as its text; anything else absent).
//! The root is a node (merged mode) or an array of windows (`-i`). serde_json's recursion
//! limit (128) bounds the nesting, and so the walk that flattens the tree.

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{Layout, LayoutError, Node, NodeId, Rect};

#[derive(Deserialize)]
struct RawNode {
    #[serde(default)]
    attributes: RawAttributes,
    #[serde(default)]
    children: Vec<RawNode>,
}

#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawAttributes {
    #[serde(default, deserialize_with = "lenient")]
    id: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    key: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    text: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    description: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    hint: Option<String>,
    #[serde(default, rename = "type", deserialize_with = "lenient")]
    kind: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    bounds: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    orig_bounds: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    clickable: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    enabled: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    scrollable: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    clip: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    visible: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    bundle_name: Option<String>,
}

/// A string as it is, a number or boolean as its text, anything else (null, a list, an
/// object) as absent: dumps write every value as a string, but a hand-edited one may not.
fn lenient<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    struct Lenient;
    impl<'de> Visitor<'de> for Lenient {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an attribute value")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(v.to_owned()))
        }
        fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
            Ok(Some(v))
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(None)
        }
    }
    deserializer.deserialize_any(Lenient)
}

impl Layout {
    /// Parses dump bytes.
    pub fn parse(bytes: &[u8]) -> Result<Layout, LayoutError> {
        let invalid = |e: serde_json::Error| LayoutError::Invalid(e.to_string());
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
        let mut layout = Layout::empty();
        match first {
            Some(b'[') => {
                let windows: Vec<RawNode> = serde_json::from_slice(bytes).map_err(invalid)?;
                for window in windows {
                    layout.flatten(window, None, None);
                }
            }
            Some(b'{') => {
                let root: RawNode = serde_json::from_slice(bytes).map_err(invalid)?;
                layout.display = root.attributes.bounds.as_deref().and_then(Rect::parse);
                for window in root.children {
                    layout.flatten(window, None, None);
                }
            }
            _ => {
                return Err(LayoutError::Invalid(
                    "the root is neither a node nor a list of windows".to_owned(),
                ));
            }
        }
        Ok(layout)
    }

    /// Appends `raw` and its subtree, parents before children.
    fn flatten(&mut self, raw: RawNode, parent: Option<NodeId>, window: Option<NodeId>) {
        let a = raw.attributes;
        let index = NodeId(self.nodes.len());
        let window = if a.bundle_name.is_some() {
            Some(index)
        } else {
            window
        };
        let is = |value: &Option<String>| value.as_deref() == Some("true");
        let shown = a.bounds.as_deref().and_then(Rect::parse);
        self.nodes.push(Node {
            id: a.id.unwrap_or_default(),
            key: a.key.unwrap_or_default(),
            text: a.text.unwrap_or_default(),
            description: a.description.unwrap_or_default(),
            hint: a.hint.unwrap_or_default(),
            kind: a.kind.unwrap_or_default(),
            rect: a.orig_bounds.as_deref().and_then(Rect::parse).or(shown),
            shown,
            clickable: is(&a.clickable),
            enabled: a.enabled.as_deref() != Some("false"),
            clips: is(&a.scrollable) || is(&a.clip),
            hidden: a.visible.as_deref() == Some("false"),
            bundle: a.bundle_name,
            parent,
            window,
        });
        for child in raw.children {
            self.flatten(child, Some(index), window);
        }
    }
}
