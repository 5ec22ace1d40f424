//! The dump's JSON read straight into the flat node list, while it streams by: no tree of the
//! dump is ever built (a 200,000-node dump costs its nodes, not a generic JSON tree of
//! hundreds of MB). Only the attributes dwpipe uses are kept, each value read leniently (a
//! string, or a number or boolean as its text; anything else absent). The root is a node
//! (merged mode) or an array of windows (`-i`). serde_json's recursion limit (128) bounds the
//! nesting, and with it the stack.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{Layout, LayoutError, Node, NodeId, Rect};

/// The keys of a node object that matter.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Key {
    Attributes,
    Children,
    #[serde(other)]
    Other,
}

#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawAttributes<'a> {
    #[serde(borrow, default, deserialize_with = "lenient")]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient")]
    key: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient")]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient")]
    description: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient")]
    hint: Option<Cow<'a, str>>,
    #[serde(borrow, default, rename = "type", deserialize_with = "lenient")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient")]
    bounds: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient")]
    orig_bounds: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient")]
    clickable: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient")]
    enabled: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient")]
    scrollable: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient")]
    clip: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient")]
    visible: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient")]
    bundle_name: Option<Cow<'a, str>>,
    // The newer uitest attribute set (ArkUI's inspector fields): what decides whether a
    // finger can hit a node.
    #[serde(borrow, default, deserialize_with = "lenient")]
    opacity: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient")]
    hit_test_behavior: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient")]
    touchable: Option<Cow<'a, str>>,
}

/// Whether a finger can hit a node with these attributes: enabled, not fully transparent,
/// hit testing on (`hitTestBehavior` other than `HitTestMode.None`) and `touchable`. A dump
/// without the newer attributes says only `enabled`.
fn hittable(a: &RawAttributes<'_>) -> bool {
    let transparent = a
        .opacity
        .as_deref()
        .and_then(|o| o.trim().parse::<f64>().ok())
        .is_some_and(|o| o <= 0.0);
    let no_hit_test = a
        .hit_test_behavior
        .as_deref()
        .is_some_and(|h| h.trim().to_ascii_lowercase().ends_with("none"));
    a.enabled.as_deref() != Some("false")
        && a.touchable.as_deref() != Some("false")
        && !transparent
        && !no_hit_test
}

/// A string as it is (borrowed from the dump when it has no escapes), a number or boolean as
/// its text, anything else (null, a list, an object) as absent: dumps write every value as a
/// string, but a hand-edited one may not.
fn lenient<'de: 'a, 'a, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Cow<'a, str>>, D::Error> {
    struct Lenient;
    impl<'de> Visitor<'de> for Lenient {
        type Value = Option<Cow<'de, str>>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an attribute value")
        }
        fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Some(Cow::Borrowed(v)))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(v.to_owned())))
        }
        fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(v)))
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(v.to_string())))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(v.to_string())))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(v.to_string())))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(v.to_string())))
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

/// An attribute kept as text.
fn owned(value: Option<Cow<'_, str>>) -> String {
    value.map(Cow::into_owned).unwrap_or_default()
}

impl Layout {
    /// Parses dump bytes.
    pub fn parse(bytes: &[u8]) -> Result<Layout, LayoutError> {
        let mut layout = Layout::empty();
        // Room for every node at once (each has one `"attributes"`; a text that quotes the
        // word only reserves a little more): the list never doubles past what it needs.
        layout
            .nodes
            .reserve(memchr::memmem::find_iter(bytes, b"\"attributes\"").count());
        let mut reader = serde_json::Deserializer::from_slice(bytes);
        let parsed = match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'[') => Children {
                layout: &mut layout,
                parent: None,
            }
            .deserialize(&mut reader),
            Some(b'{') => NodeSeed {
                layout: &mut layout,
                place: Place::Root,
            }
            .deserialize(&mut reader),
            _ => {
                return Err(LayoutError::Invalid(
                    "the root is neither a node nor a list of windows".to_owned(),
                ));
            }
        };
        parsed
            .and_then(|()| reader.end())
            .map_err(|e| LayoutError::Invalid(e.to_string()))?;
        // Parents come before children, so one pass finds every node's window.
        for index in 0..layout.nodes.len() {
            let node = &layout.nodes[index];
            layout.nodes[index].window = if node.bundle.is_some() {
                Some(NodeId(index))
            } else {
                node.parent.and_then(|p| layout.nodes[p.0].window)
            };
        }
        Ok(layout)
    }

    /// Fills a node's fields from its attributes.
    fn apply(&mut self, index: NodeId, a: RawAttributes<'_>) {
        let is = |value: &Option<Cow<'_, str>>| value.as_deref() == Some("true");
        let shown = a.bounds.as_deref().and_then(Rect::parse);
        let hittable = hittable(&a);
        let node = &mut self.nodes[index.0];
        *node = Node {
            id: owned(a.id),
            key: owned(a.key),
            text: owned(a.text),
            description: owned(a.description),
            hint: owned(a.hint),
            kind: owned(a.kind),
            rect: a.orig_bounds.as_deref().and_then(Rect::parse).or(shown),
            shown,
            clickable: is(&a.clickable),
            hittable,
            clips: is(&a.scrollable) || is(&a.clip),
            hidden: a.visible.as_deref() == Some("false"),
            bundle: a.bundle_name.map(Cow::into_owned),
            parent: node.parent,
            window: None,
        };
    }
}

/// Where an object of the dump sits: the merged root (its `bounds` are the display, its
/// children the windows) or a node under `parent`.
#[derive(Clone, Copy)]
enum Place {
    Root,
    Under(Option<NodeId>),
}

/// One object of the dump. A node is appended before its children (whichever key comes
/// first), so parents precede children in the list.
struct NodeSeed<'l> {
    layout: &'l mut Layout,
    place: Place,
}

impl<'de> DeserializeSeed<'de> for NodeSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for NodeSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a node (an object with `attributes` and `children`)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let layout = self.layout;
        let index = match self.place {
            Place::Root => None,
            Place::Under(parent) => {
                layout.nodes.push(Node {
                    hittable: true,
                    parent,
                    ..Node::default()
                });
                Some(NodeId(layout.nodes.len() - 1))
            }
        };
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Attributes => {
                    let a: RawAttributes<'de> = map.next_value()?;
                    match index {
                        Some(index) => layout.apply(index, a),
                        None => layout.display = a.bounds.as_deref().and_then(Rect::parse),
                    }
                }
                Key::Children => map.next_value_seed(Children {
                    layout: &mut *layout,
                    parent: index,
                })?,
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// A list of nodes under `parent`.
struct Children<'l> {
    layout: &'l mut Layout,
    parent: Option<NodeId>,
}

impl<'de> DeserializeSeed<'de> for Children<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Children<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of nodes")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let layout = self.layout;
        while seq
            .next_element_seed(NodeSeed {
                layout: &mut *layout,
                place: Place::Under(self.parent),
            })?
            .is_some()
        {}
        Ok(())
    }
}
