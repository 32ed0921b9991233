//! The local embedder, one text at a time on one thread: a query of a few
//! words (what a search with a new query waits for) and a skill's name and
//! description (what a cold catalog embeds, 1,500 times). Needs a model
//! folder (`DSH_SKILL_EMBED_MODEL`, made by `scripts/embed-model.mjs`);
//! without one it says so and measures nothing.
//! `DSH_SKILL_EMBED_MODEL=DIR cargo bench -p skill-embed --bench embed`

use criterion::{criterion_group, criterion_main, Criterion};
use skill_embed::Embedder;
use std::hint::black_box;

const QUERY: &str = "something to hang on the wall at the conference";
const SKILL: &str = "pdf: Comprehensive PDF manipulation toolkit for extracting text and tables, \
    creating new PDFs, merging/splitting documents, and handling forms. When Claude needs to fill \
    in a PDF form or programmatically process, generate, or analyze PDF documents at scale.";

fn embed(c: &mut Criterion) {
    let Some(dir) = std::env::var_os("DSH_SKILL_EMBED_MODEL") else {
        eprintln!("DSH_SKILL_EMBED_MODEL not set: nothing measured");
        return;
    };
    let model = Embedder::load(std::path::Path::new(&dir)).expect("the model folder loads");
    for (label, text) in [("query", QUERY), ("skill", SKILL)] {
        let tokens = model.tokens(text).len();
        c.bench_function(&format!("embed one {label} ({tokens} tokens)"), |b| {
            b.iter(|| model.embed(black_box(&[text]), 1, &|| false))
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(50);
    targets = embed
}
criterion_main!(benches);
