//! `/name` gestures: how a user invokes a skill by name in a message.
//!
//! A gesture is a token `/name` that starts the text or follows whitespace,
//! and is followed by whitespace or the end of the text; `name` is a kebab-case
//! skill name ([`is_skill_name`]). Whitespace is what JS `\s` matches
//! ([`is_js_whitespace`]). So paths (`a/b`, `/usr/bin`), fractions (`1/2`),
//! `//name`, `/Name` and a name with punctuation glued on (`/name.`,
//! `(/name)`) are prose. Whether a gesture names a skill the user may invoke is
//! for the caller to decide.

use super::is_js_whitespace;
use crate::model::is_skill_name;

/// The names of the `/name` gestures of `text`, first occurrence order, each
/// name once.
pub fn scan_gestures(text: &str) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for token in text.split(is_js_whitespace) {
        let Some(name) = token.strip_prefix('/') else {
            continue;
        };
        if is_skill_name(name) && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gestures_by_the_boundary_rule() {
        for (text, expected) in [
            ("/deploy", vec!["deploy"]),
            ("/deploy now", vec!["deploy"]),
            ("please /code-review this", vec!["code-review"]),
            ("run /a then /b2 and /a again", vec!["a", "b2"]),
            ("line one\n/deploy\tnext", vec!["deploy"]),
            ("\u{3000}/deploy\u{a0}", vec!["deploy"]),
            ("/deploy\u{2028}", vec!["deploy"]),
            ("/b /a /b", vec!["b", "a"]),
            // Not gestures: paths, fractions, punctuation, case, bad names.
            ("a/b", vec![]),
            ("see /usr/bin", vec![]),
            ("1/2 of it", vec![]),
            ("/deploy.", vec![]),
            ("/deploy, then", vec![]),
            ("(/deploy)", vec![]),
            ("x/deploy", vec![]),
            ("//deploy", vec![]),
            ("/Deploy", vec![]),
            ("/deploy-", vec![]),
            ("/de--ploy", vec![]),
            ("/", vec![]),
            ("/ deploy", vec![]),
            ("", vec![]),
            ("/déploy", vec![]),
            // U+0085 and U+200B are not JS whitespace: still glued.
            ("/deploy\u{85}", vec![]),
            ("\u{200b}/deploy", vec![]),
        ] {
            assert_eq!(scan_gestures(text), expected, "{text:?}");
        }
    }
}
