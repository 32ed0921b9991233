//! A light English stemmer: the suffixes that most often separate a query's
//! word from a description's (`deploying`, `deployed`, `deploys`,
//! `deployment` → `deploy`; `configuration`, `configure`, `configuring` →
//! `configur`; `linters` → `lint`).
//!
//! It is a handful of rules in the spirit of Porter's, applied in order to
//! ASCII words of at least four letters (others are kept as they are), each
//! only when enough of the word stays:
//!
//! 1. plurals and third persons: `sses` → `ss`, `ies` → `y`, `s` → `` (not
//!    after `s`, `u` or `i`: `class`, `status`, `analysis` stay);
//! 2. `ing`, `ed` (with a vowel left): a doubled final consonant is undone
//!    (`running` → `run`), and `at`, `bl`, `iz` get their `e` back
//!    (`updating` → `update`);
//! 3. `ation`, then `ion` after `s` or `t` (`creation`, `detection`);
//! 4. `ment`, `ness`, `ly`, `er` (with its doubled consonant undone);
//! 5. `ate`, then a final `e`.
//!
//! Stems are not words, only keys: what matters is that a query and a
//! description meet on the same one. A full stemmer (Snowball) would merge
//! more forms at the price of a dependency and of surprising merges; at the
//! size of a skill catalog, these rules plus prefix matching find the
//! inflected forms people actually type.

fn is_vowel(b: u8) -> bool {
    matches!(b, b'a' | b'e' | b'i' | b'o' | b'u' | b'y')
}

fn has_vowel(s: &[u8]) -> bool {
    s.iter().any(|&b| is_vowel(b))
}

/// `word` without `suffix` when at least `keep` bytes stay.
fn strip<'a>(word: &'a [u8], suffix: &str, keep: usize) -> Option<&'a [u8]> {
    let rest = word.strip_suffix(suffix.as_bytes())?;
    (rest.len() >= keep).then_some(rest)
}

/// Undoes a doubled final consonant (not `l`, `s`, `z`: `install`, `pass`).
fn undouble(stem: &mut Vec<u8>) {
    let n = stem.len();
    if n >= 3
        && stem[n - 1] == stem[n - 2]
        && !is_vowel(stem[n - 1])
        && !matches!(stem[n - 1], b'l' | b's' | b'z')
    {
        stem.pop();
    }
}

/// The stem of a folded word (see the module docs).
pub fn stem(word: &str) -> std::borrow::Cow<'_, str> {
    let bytes = word.as_bytes();
    if bytes.len() < 4 || !bytes.iter().all(u8::is_ascii_lowercase) {
        return std::borrow::Cow::Borrowed(word);
    }
    let mut w: Vec<u8> = bytes.to_vec();
    // 1. Plurals.
    if let Some(rest) = strip(&w, "sses", 2) {
        w.truncate(rest.len() + 2);
    } else if let Some(rest) = strip(&w, "ies", 2) {
        w.truncate(rest.len());
        w.push(b'y');
    } else if w.ends_with(b"s") && !matches!(w[w.len() - 2], b's' | b'u' | b'i') {
        w.pop();
    }
    // 2. `ing`, `ed`.
    let inflected = strip(&w, "ing", 3)
        .or_else(|| strip(&w, "ed", 3))
        .map(<[u8]>::len);
    if let Some(len) = inflected.filter(|&len| has_vowel(&w[..len])) {
        w.truncate(len);
        if w.ends_with(b"at") || w.ends_with(b"bl") || w.ends_with(b"iz") {
            w.push(b'e');
        } else {
            undouble(&mut w);
        }
    }
    // 3. `ation`, `ion`.
    if let Some(rest) = strip(&w, "ation", 3) {
        w.truncate(rest.len());
    } else if let Some(rest) = strip(&w, "ion", 4) {
        if rest.ends_with(b"s") || rest.ends_with(b"t") {
            w.truncate(rest.len());
        }
    }
    // 4. `ment`, `ness`, `ly`, `er`.
    if let Some(rest) = strip(&w, "ment", 4)
        .or_else(|| strip(&w, "ness", 4))
        .or_else(|| strip(&w, "ly", 4))
    {
        w.truncate(rest.len());
    } else if let Some(rest) = strip(&w, "er", 4) {
        w.truncate(rest.len());
        undouble(&mut w);
    }
    // 5. `ate`, a final `e`.
    if let Some(rest) = strip(&w, "ate", 3) {
        w.truncate(rest.len());
    } else if let Some(rest) = strip(&w, "e", 3) {
        w.truncate(rest.len());
    }
    // Only ASCII letters were kept or pushed.
    std::borrow::Cow::Owned(String::from_utf8(w).unwrap_or_else(|_| word.to_string()))
}

#[cfg(test)]
mod tests {
    use super::stem;

    fn same(words: &[&str]) {
        let first = stem(words[0]);
        for w in &words[1..] {
            assert_eq!(stem(w), first, "{} vs {}", words[0], w);
        }
    }

    #[test]
    fn inflections_meet() {
        same(&[
            "deploy",
            "deploys",
            "deploying",
            "deployed",
            "deployment",
            "deployments",
        ]);
        same(&[
            "configure",
            "configuring",
            "configured",
            "configuration",
            "configurations",
        ]);
        same(&["generate", "generating", "generated", "generation"]);
        same(&["validate", "validation", "validating", "validated"]);
        same(&["optimize", "optimizing", "optimization", "optimized"]);
        same(&["create", "creating", "created", "creation"]);
        same(&["update", "updating", "updated", "updates"]);
        same(&["lint", "linter", "linters", "linting"]);
        same(&["format", "formatter", "formatting", "formatted"]);
        same(&["run", "running", "runs"]);
        same(&["stop", "stopped", "stopping"]);
        same(&["review", "reviews", "reviewer", "reviewing"]);
        same(&["detect", "detection", "detecting"]);
        same(&["compress", "compression", "compressing"]);
        same(&["dependency", "dependencies"]);
        same(&["write", "writes", "writing"]);
        same(&["file", "files"]);
        same(&["fix", "fixes"]);
        same(&["quick", "quickly"]);
        same(&["install", "installing", "installation"]);
    }

    #[test]
    fn short_and_other_words_stay() {
        for w in [
            "api", "css", "go", "k8s", "class", "status", "analysis", "user", "café", "部署", "v2",
        ] {
            assert_eq!(stem(w), w);
        }
        assert_eq!(stem("processes"), "process");
        assert_eq!(stem("installs"), "install");
    }
}
