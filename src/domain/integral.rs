//! Integers in request bodies as JSON Schema defines them: `3` and `3.0` are the same
//! integer (a number with no fractional part), though serde's integer types refuse the
//! second. Generic clients and fuzzers do send `3.0`; refusing a schema-valid body would be
//! a contract violation.

use serde::Deserialize;
use serde::de::{Deserializer, Error};

fn to_int<T: TryFrom<i64>, E: Error>(n: serde_json::Number) -> Result<T, E> {
    let whole = if let Some(i) = n.as_i64() {
        Some(i)
    } else if let Some(f) = n.as_f64() {
        // Exactly integral and inside i64's range (2^63 is not, so `<`).
        (f.fract() == 0.0
            && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f))
        .then_some(f as i64)
    } else {
        None
    };
    let i = whole.ok_or_else(|| E::custom(format!("expected an integer, not {n}")))?;
    T::try_from(i).map_err(|_| E::custom(format!("integer {i} is out of range")))
}

/// `#[serde(deserialize_with = "integral::int")]`
pub fn int<'de, D: Deserializer<'de>, T: TryFrom<i64>>(d: D) -> Result<T, D::Error> {
    to_int(serde_json::Number::deserialize(d)?)
}

/// `#[serde(default, deserialize_with = "integral::opt")]`: null or absent is `None`.
pub fn opt<'de, D: Deserializer<'de>, T: TryFrom<i64>>(d: D) -> Result<Option<T>, D::Error> {
    Option::<serde_json::Number>::deserialize(d)?
        .map(to_int)
        .transpose()
}

/// `#[serde(default, deserialize_with = "integral::opt_vec")]`
pub fn opt_vec<'de, D: Deserializer<'de>, T: TryFrom<i64>>(
    d: D,
) -> Result<Option<Vec<T>>, D::Error> {
    Option::<Vec<serde_json::Number>>::deserialize(d)?
        .map(|v| v.into_iter().map(to_int).collect())
        .transpose()
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    struct T {
        #[serde(deserialize_with = "super::int")]
        a: i16,
        #[serde(default, deserialize_with = "super::opt")]
        b: Option<i64>,
        #[serde(default, deserialize_with = "super::opt_vec")]
        c: Option<Vec<i16>>,
    }

    fn parse(s: &str) -> Result<T, String> {
        serde_json::from_str(s).map_err(|e| e.to_string())
    }

    #[test]
    fn integral_floats_are_integers_and_others_are_refused() {
        let t = parse(r#"{"a": 3.0, "b": 56971.0, "c": [1, 2.0]}"#).unwrap();
        assert_eq!((t.a, t.b, t.c), (3, Some(56971), Some(vec![1, 2])));
        // Large whole numbers written with a fraction, as fuzzers send them, read exactly.
        let t = parse(r#"{"a": 1, "b": 2237275442388225.0}"#).unwrap();
        assert_eq!(t.b, Some(2_237_275_442_388_225));
        let t = parse(r#"{"a": 3, "b": null}"#).unwrap();
        assert_eq!((t.a, t.b, t.c), (3, None, None));
        assert!(
            parse(r#"{"a": 3.5}"#)
                .unwrap_err()
                .contains("expected an integer")
        );
        assert!(
            parse(r#"{"a": 40000}"#)
                .unwrap_err()
                .contains("out of range")
        );
        assert!(parse(r#"{"a": 1, "b": 1e300}"#).is_err());
        assert!(parse(r#"{"a": 1, "b": 9223372036854775808}"#).is_err());
        assert!(parse(r#"{"a": "1"}"#).is_err());
    }
}
