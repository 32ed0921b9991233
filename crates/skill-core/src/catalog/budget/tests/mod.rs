//! The budget's tests, by what they hold: the literal reference of the
//! module docs (`reference`), one source (`single`), sources, folders and
//! glob pins sharing the room (`sources`), and the last line with its search
//! tool and the preferred skills (`notice`).

use super::*;
use crate::catalog::{digest_hex, MessageKind, Origin};

mod notice;
mod reference;
mod single;
mod sources;

use reference::{reference, reference_shared, Item};

fn render_with(skills: &[(&str, &str)], max_len: usize, chars: usize, pinned: &[&str]) -> Entries {
    let pinned = pinned.iter().map(|p| p.to_string()).collect();
    Catalog::new(skills.iter().copied(), max_len)
        .expect("valid")
        .with_budget(Some(Budget::new(chars, pinned).expect("budget")))
        .render()
}

fn unbudgeted(skills: &[(&str, &str)], max_len: usize) -> String {
    Catalog::new(skills.iter().copied(), max_len)
        .expect("valid")
        .entries()
}

fn desc(d: &str, cap: usize) -> String {
    let mut s = String::new();
    push_description(&mut s, d, cap);
    s
}
