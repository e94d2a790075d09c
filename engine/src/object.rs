//! JSON objects only. The file formats of CONTRACTS.md are objects, but serde's derived
//! structs also read an array of their fields in order (`[0, 0, "fountain"]` for a tile),
//! which another implementation of the contract rightly refuses. The layout and game
//! files read their structs through these.

use serde::de::{Deserialize, DeserializeSeed, Deserializer, SeqAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;

/// Parses `text` as a `T` written as a JSON object (nested structs read through
/// [`object`] and [`objects`] are held to the same).
pub fn from_str<'a, T: Deserialize<'a>>(text: &'a str) -> serde_json::Result<T> {
    let mut json = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(MapOnly(&mut json))?;
    json.end()?;
    Ok(value)
}

/// For `#[serde(deserialize_with)]`: a struct field that must be a JSON object.
pub fn object<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    T::deserialize(MapOnly(d))
}

/// For `#[serde(deserialize_with)]`: a list whose every element must be a JSON object.
pub fn objects<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    struct Each<T>(PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for Each<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of objects")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            // The hint is the input's word: capped, so a lying one cannot reserve much.
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
            while let Some(x) = seq.next_element_seed(Element(PhantomData))? {
                out.push(x);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(Each(PhantomData))
}

/// One element of a list, read as an object.
struct Element<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for Element<T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        T::deserialize(MapOnly(d))
    }
}

/// A deserializer that offers its input to the visitor only as a map: a struct's visitor
/// then never sees the array form.
struct MapOnly<D>(D);

impl<'de, D: Deserializer<'de>> Deserializer<'de> for MapOnly<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use crate::layout::{GameFile, LayoutFile};

    #[test]
    fn a_layout_is_read_from_objects_and_not_from_arrays() {
        let ok: LayoutFile = super::from_str(
            r#"{"tiles": [{"x": 0, "y": 0, "building": "fountain"},
                          {"x": 1, "y": 0, "building": "tower", "walls": ["east"]}],
                "reserve": []}"#,
        )
        .expect("the contract's form");
        assert_eq!(ok.tiles.len(), 2);
        for bad in [
            r#"[[[0, 0, "fountain"]]]"#,
            r#"{"tiles": [[0, 0, "fountain"]]}"#,
            r#"[[{"x": 0, "y": 0, "building": "fountain"}]]"#,
        ] {
            assert!(super::from_str::<LayoutFile>(bad).is_err(), "{bad}");
        }
        // Two values for one field stay an error.
        assert!(
            super::from_str::<LayoutFile>(
                r#"{"tiles": [{"x": 0, "x": 1, "y": 0, "building": "fountain"}]}"#
            )
            .is_err()
        );
        assert!(super::from_str::<LayoutFile>(r#"{"tiles": []} x"#).is_err());
    }

    #[test]
    fn a_game_is_read_from_objects_and_not_from_arrays() {
        let ok: GameFile = super::from_str(
            r#"{"players": [{"name": "A", "alhambra": {"tiles": []}},
                            {"name": "B", "alhambra": {"tiles": []}}]}"#,
        )
        .expect("the contract's form");
        assert_eq!(ok.players.len(), 2);
        for bad in [
            r#"[[["A", [[]]], ["B", [[]]]]]"#,
            r#"{"players": [["A", {"tiles": []}], ["B", {"tiles": []}]]}"#,
            r#"{"players": [{"name": "A", "alhambra": [[]]}, {"name": "B", "alhambra": [[]]}]}"#,
        ] {
            assert!(super::from_str::<GameFile>(bad).is_err(), "{bad}");
        }
    }
}
