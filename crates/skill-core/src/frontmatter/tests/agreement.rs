//! The fast reader and the full composer give the same values: on generated
//! and mutated inputs, on everyday files (which take the fast path) and on
//! what the fuzzer found.

use super::*;

#[test]
fn fast_reader_agrees_with_composer() {
    let mut rng = Rng::new(11);
    let (mut fast_clean, mut clean, mut fast_mutated) = (0usize, 0usize, 0usize);
    for i in 0..20_000 {
        let base = gen_frontmatter(&mut rng);
        let mutated = i % 2 == 1;
        let yaml = if mutated {
            mutate(&mut rng, &base)
        } else {
            base
        };
        let full = compose::compose(&yaml, 1);
        if let Some(fast) = fast::parse(&yaml) {
            match &full {
                Ok(v) => assert_eq!(&fast, v, "fast and full readers differ on {yaml:?}"),
                Err(e) => panic!("fast reader accepted what the composer refuses ({e}): {yaml:?}"),
            }
            if mutated {
                fast_mutated += 1;
            } else {
                fast_clean += 1;
            }
        }
        if !mutated {
            clean += 1;
        }
    }
    // Both sides of the fast path are exercised (the generator also writes
    // many values the fast reader leaves to the composer).
    eprintln!("fast path: {fast_clean} of {clean} generated, {fast_mutated} mutated");
    assert!(
        fast_clean > 3000,
        "fast path taken for {fast_clean} of {clean}"
    );
    assert!(
        fast_mutated > 700,
        "fast path taken for {fast_mutated} mutated inputs"
    );
}

#[test]
fn everyday_frontmatter_takes_the_fast_path() {
    for yaml in [
        "name: code-review\ndescription: Review code before merging.\n",
        "name: a\ndescription: \"Quoted: with \\\"escapes\\\" and \\u00e9\"\nwhenToUse: 'it''s fine'\n",
        "name: a\r\ndescription: >-\r\n  folded\r\n  text\r\n\r\n  next\r\n",
        "# comment\nname: a\ndescription: |\n  line 1\n    indented\n\n  line 3\ndisable-model-invocation: true\nuser-invocable: no\n",
        "name: a\ndescription: d\nmetadata:\n  owner: platform-team\n  version: 3\n  tags: [review, quality]\n",
        "name: a\ndescription: d # trailing comment\nmetadata:\n  - a\n  - b\n",
    ] {
        let fast = fast::parse(yaml).unwrap_or_else(|| panic!("fast path not taken for {yaml:?}"));
        assert_eq!(Ok(fast), compose::compose(yaml, 1), "{yaml:?}");
    }
}

#[test]
fn fast_reader_agrees_on_fuzzer_findings() {
    // Inputs the fuzzer found where the two readers once disagreed.
    for yaml in [
        "n:  [ -------,--,----------o -,------------,-----,--,----------o   ]\n",
        "n: [a -, b]\n",
    ] {
        let full = compose::compose(yaml, 1);
        if let Some(fast) = fast::parse(yaml) {
            assert_eq!(Ok(fast), full, "{yaml:?}");
        }
        let text = format!("---\n{yaml}\n---\nbody");
        assert_eq!(parse(&text), parse_with_full_reader(&text), "{yaml:?}");
    }
}
