//! Scalar resolution with the YAML 1.2 core schema, exactly as the JS `yaml`
//! package (v2, default options) resolves it, and JS number formatting.
//!
//! Numbers are what JS holds: every integer and float is an `f64`, so an
//! integer that does not fit 64 bits (or 53 bits of mantissa) keeps its value
//! the way `parseInt` rounds it, never an error.

use std::borrow::Cow;

/// A resolved scalar.
#[derive(Clone, Debug)]
pub enum Scalar<'a> {
    /// `null`, `~`, `NULL`, or nothing at all.
    Null,
    /// `true` / `false` (in the three spellings of the core schema).
    Bool(bool),
    /// Any number (JS numbers are doubles).
    Number(f64),
    /// A string.
    Str(Cow<'a, str>),
    /// A value the JS package turns into an object that is neither a plain
    /// mapping nor an array (`!!binary`, `!!timestamp`); kept as its text.
    Other(Cow<'a, str>),
}

impl PartialEq for Scalar<'_> {
    /// Structural equality; numbers compare by bits (so `NaN == NaN` and
    /// `0.0 != -0.0`), which is what "the same result" means in tests.
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Scalar::Null, Scalar::Null) => true,
            (Scalar::Bool(a), Scalar::Bool(b)) => a == b,
            (Scalar::Number(a), Scalar::Number(b)) => a.to_bits() == b.to_bits(),
            (Scalar::Str(a), Scalar::Str(b)) | (Scalar::Other(a), Scalar::Other(b)) => a == b,
            _ => false,
        }
    }
}

/// A mapping key as the JS package compares keys for uniqueness
/// (`a.value === b.value` between scalars: NaN, `!!binary` and `!!timestamp`
/// objects, aliases and collections never equal anything).
#[derive(PartialEq, Eq, Hash)]
pub enum KeyId<'k> {
    Null,
    Bool(bool),
    Number(u64),
    Str(&'k str),
}

impl<'k> KeyId<'k> {
    /// The identity of a scalar key, `None` when it equals no other key.
    pub fn of(scalar: &'k Scalar<'_>) -> Option<Self> {
        Some(match scalar {
            Scalar::Null => KeyId::Null,
            Scalar::Bool(b) => KeyId::Bool(*b),
            Scalar::Number(n) if n.is_nan() => return None,
            // `0 === -0` in JS.
            Scalar::Number(n) => KeyId::Number((n + 0.0).to_bits()),
            Scalar::Str(s) => KeyId::Str(s),
            Scalar::Other(_) => return None,
        })
    }
}

/// The YAML core schema namespace.
const CORE: &str = "tag:yaml.org,2002:";

/// Resolve an untagged plain scalar by the core schema tests, in the order of
/// the JS package's schema (null, bool, octal, decimal and hex integers, then
/// `.inf`/`.nan`, exponent floats and plain floats); anything else is a string.
pub fn resolve_plain(text: Cow<'_, str>) -> Scalar<'_> {
    match resolve_by_test(&text, None) {
        Some(s) => s,
        None => Scalar::Str(text),
    }
}

/// Resolve a scalar that carries a tag (`full` is the resolved tag name, e.g.
/// `tag:yaml.org,2002:int` or `!local`). Unknown tags, and known tags whose
/// test the text fails, leave a string (the JS package only warns).
pub fn resolve_tagged<'a>(text: Cow<'a, str>, full: &str) -> Scalar<'a> {
    let Some(name) = full.strip_prefix(CORE) else {
        return Scalar::Str(text);
    };
    let kind = match name {
        "null" => Kind::Null,
        "bool" => Kind::Bool,
        "int" => Kind::Int,
        "float" => Kind::Float,
        // Tags the JS package knows beyond the core schema: it builds a
        // `Uint8Array` or a `Date`, never a string.
        "binary" | "timestamp" => return Scalar::Other(text),
        _ => return Scalar::Str(text),
    };
    match resolve_by_test(&text, Some(kind)) {
        Some(s) => s,
        None => Scalar::Str(text),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Null,
    Bool,
    Int,
    Float,
}

fn resolve_by_test<'a>(s: &str, only: Option<Kind>) -> Option<Scalar<'a>> {
    let want = |k: Kind| only.is_none_or(|o| o == k);
    if want(Kind::Null) && matches!(s, "" | "~" | "null" | "Null" | "NULL") {
        return Some(Scalar::Null);
    }
    if want(Kind::Bool) {
        match s {
            "true" | "True" | "TRUE" => return Some(Scalar::Bool(true)),
            "false" | "False" | "FALSE" => return Some(Scalar::Bool(false)),
            _ => {}
        }
    }
    if want(Kind::Int) {
        if let Some(digits) = s.strip_prefix("0o") {
            if !digits.is_empty() && digits.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
                return Some(Scalar::Number(radix_to_f64(digits, 3)));
            }
        }
        let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
        if !unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit()) {
            return parse_decimal(s).map(Scalar::Number);
        }
        if let Some(digits) = s.strip_prefix("0x") {
            if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Some(Scalar::Number(radix_to_f64(digits, 4)));
            }
        }
    }
    if want(Kind::Float) {
        match s {
            ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
                return Some(Scalar::Number(f64::INFINITY))
            }
            "-.inf" | "-.Inf" | "-.INF" => return Some(Scalar::Number(f64::NEG_INFINITY)),
            ".nan" | ".NaN" | ".NAN" => return Some(Scalar::Number(f64::NAN)),
            _ => {}
        }
        if is_float_text(s) {
            return parse_decimal(s).map(Scalar::Number);
        }
    }
    None
}

/// `^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$` where a
/// number without exponent must hold a dot (the union of the JS package's
/// `floatExp` and `float` tests).
fn is_float_text(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'-' | b'+')));
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut dot = false;
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        dot = true;
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        frac_digits = i - start;
    }
    // `.5` needs fraction digits; `5.` is fine; `.` alone is not a number.
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if i == b.len() {
        return dot;
    }
    if b[i] != b'e' && b[i] != b'E' {
        return false;
    }
    i += 1;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    i > start && i == b.len()
}

/// `parseInt(s, 10)` / `parseFloat(s)` for text already matched by a test:
/// both round correctly to the nearest double, as Rust's parser does.
fn parse_decimal(s: &str) -> Option<f64> {
    s.parse::<f64>().ok()
}

/// `parseInt(digits, 2^bits_per_digit)` for octal or hex digits, rounded to
/// the nearest double (ties to even) like V8, however many digits there are.
fn radix_to_f64(digits: &str, bits_per_digit: u32) -> f64 {
    let mut mantissa: u64 = 0; // the top 64 significant bits at most
    let mut kept: u32 = 0; // significant bits in `mantissa`
    let mut dropped: u64 = 0; // significant bits beyond the first 64
    let mut sticky = false; // any dropped bit set
    for d in digits.bytes() {
        let v = u64::from(char::from(d).to_digit(16).unwrap_or(0));
        for shift in (0..bits_per_digit).rev() {
            let bit = (v >> shift) & 1;
            if kept == 0 && bit == 0 {
                continue; // leading zero
            }
            if kept < 64 {
                mantissa = (mantissa << 1) | bit;
                kept += 1;
            } else {
                dropped += 1;
                sticky |= bit == 1;
            }
        }
    }
    if kept <= 53 {
        return mantissa as f64;
    }
    // Round the top 64 bits (plus the sticky tail) to 53 bits.
    let extra = kept - 53;
    let mut top = mantissa >> extra;
    let rest = mantissa & ((1u64 << extra) - 1);
    let half = 1u64 << (extra - 1);
    let above_half = rest > half || (rest == half && sticky);
    if above_half || (rest == half && !sticky && top & 1 == 1) {
        top += 1;
    }
    let exponent = u64::from(extra) + dropped;
    let scale = i32::try_from(exponent).unwrap_or(i32::MAX);
    (top as f64) * 2f64.powi(scale)
}

/// JS `String(number)` (ECMAScript `Number::toString`, radix 10).
pub fn js_number_text(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if x < 0.0 {
        return format!("-{}", js_number_text(-x));
    }
    // Shortest round-trip digits and exponent, as `d.ddde±x`.
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let e: i64 = exp.parse().unwrap_or(0);
    let k = digits.len() as i64;
    let n = e + 1;
    if k <= n && n <= 21 {
        let zeros = "0".repeat(usize::try_from(n - k).unwrap_or(0));
        format!("{digits}{zeros}")
    } else if 0 < n && n <= 21 {
        let (a, b) = digits.split_at(usize::try_from(n).unwrap_or(0));
        format!("{a}.{b}")
    } else if -6 < n && n <= 0 {
        let zeros = "0".repeat(usize::try_from(-n).unwrap_or(0));
        format!("0.{zeros}{digits}")
    } else {
        let sign = if n - 1 < 0 { '-' } else { '+' };
        let abs = (n - 1).abs();
        if k == 1 {
            format!("{digits}e{sign}{abs}")
        } else {
            let (a, b) = digits.split_at(1);
            format!("{a}.{b}e{sign}{abs}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(s: &str) -> Scalar<'_> {
        resolve_plain(Cow::Borrowed(s))
    }

    fn num(s: &str) -> f64 {
        match plain(s) {
            Scalar::Number(x) => x,
            other => panic!("{s:?} should be a number, got {other:?}"),
        }
    }

    #[test]
    fn core_schema_like_the_js_package() {
        for s in ["", "~", "null", "Null", "NULL"] {
            assert_eq!(plain(s), Scalar::Null, "{s:?}");
        }
        for s in ["nULL", "none", "Nil"] {
            assert!(matches!(plain(s), Scalar::Str(_)), "{s:?}");
        }
        assert_eq!(plain("True"), Scalar::Bool(true));
        assert_eq!(plain("FALSE"), Scalar::Bool(false));
        for s in ["yes", "no", "on", "off", "y", "tRUE"] {
            assert!(matches!(plain(s), Scalar::Str(_)), "{s:?}");
        }
        assert_eq!(num("0o17"), 15.0);
        assert_eq!(num("0x1F"), 31.0);
        assert_eq!(num("-12"), -12.0);
        assert_eq!(num("+12"), 12.0);
        assert_eq!(num("007"), 7.0);
        assert!(num("-0").is_sign_negative());
        assert_eq!(num("1.5"), 1.5);
        assert_eq!(num("1."), 1.0);
        assert_eq!(num(".5"), 0.5);
        assert_eq!(num("1e3"), 1000.0);
        assert_eq!(num("-1.5E-2"), -0.015);
        assert_eq!(num(".5e1"), 5.0);
        assert_eq!(num("1e400"), f64::INFINITY);
        assert_eq!(num("-.INF"), f64::NEG_INFINITY);
        assert!(num(".NaN").is_nan());
        for s in [
            "0x", "0o8", "0X1F", "-0x1", "+0o7", "1_000", "1.2.3", "e3", "1e", ".", "-.", "+",
            "0b1", ".nAn", "-.nan", "1,5", " 1", "1 ",
        ] {
            assert!(matches!(plain(s), Scalar::Str(_)), "{s:?}");
        }
    }

    #[test]
    fn integers_beyond_64_bits_round_like_parse_int() {
        assert_eq!(num("12345678901234567890"), 12345678901234567890.0);
        assert_eq!(
            num("340282366920938463463374607431768211457"),
            3.402823669209385e38
        );
        // 2^53 + 1 rounds to even, 2^53 + 3 rounds up.
        assert_eq!(num("0x20000000000001"), 9007199254740992.0);
        assert_eq!(num("0x20000000000003"), 9007199254740996.0);
        assert_eq!(num("0o400000000000000001"), 9007199254740992.0);
        // Beyond the tie: a set bit past the round bit rounds up.
        assert_eq!(num("0x200000000000011"), 144115188075855904.0);
        assert_eq!(num(&format!("0x1{}", "0".repeat(300))), f64::INFINITY);
        assert_eq!(num(&format!("0x{}1", "0".repeat(300))), 1.0);
    }

    #[test]
    fn tags_resolve_like_the_js_package() {
        let t =
            |s: &'static str, tag: &str| resolve_tagged(Cow::Borrowed(s), &format!("{CORE}{tag}"));
        assert_eq!(t("123", "str"), Scalar::Str("123".into()));
        assert_eq!(t("0x10", "int"), Scalar::Number(16.0));
        // A known tag whose test fails leaves a string.
        assert_eq!(t("abc", "int"), Scalar::Str("abc".into()));
        assert_eq!(t("1", "float"), Scalar::Str("1".into()));
        assert_eq!(t("1.0", "float"), Scalar::Number(1.0));
        assert_eq!(t("yes", "bool"), Scalar::Str("yes".into()));
        assert_eq!(t("", "null"), Scalar::Null);
        assert_eq!(t("null", "str"), Scalar::Str("null".into()));
        assert_eq!(
            t("2001-12-14", "timestamp"),
            Scalar::Other("2001-12-14".into())
        );
        assert_eq!(
            resolve_tagged(Cow::Borrowed("true"), "!local"),
            Scalar::Str("true".into())
        );
    }

    #[test]
    fn number_text_like_js() {
        let cases = [
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (-1.5, "-1.5"),
            (0.1, "0.1"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123456789012345680000.0, "123456789012345680000"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (1.2345e-6, "0.0000012345"),
            (12345678901234567890.0, "12345678901234567000"),
            (2.5e300, "2.5e+300"),
            (f64::INFINITY, "Infinity"),
            (f64::NAN, "NaN"),
            (5e-324, "5e-324"),
        ];
        for (x, text) in cases {
            assert_eq!(js_number_text(x), text, "{x}");
        }
    }
}
