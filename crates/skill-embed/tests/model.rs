//! The real model, when a model folder is at hand (`DSH_SKILL_EMBED_MODEL`,
//! made by `scripts/embed-model.mjs`); without one these tests say so and
//! check nothing else.

use skill_embed::Embedder;
use std::path::PathBuf;

fn model() -> Option<Embedder> {
    let dir = PathBuf::from(std::env::var_os("DSH_SKILL_EMBED_MODEL")?);
    Some(Embedder::load(&dir).expect("the model folder loads"))
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn similar_needs_are_closer_than_unrelated_ones() {
    let Some(model) = model() else {
        eprintln!("DSH_SKILL_EMBED_MODEL not set: model test skipped");
        return;
    };
    // The id names the weights and how they are kept (their vectors are
    // cached under it).
    assert!(
        model.id().starts_with("all-MiniLM-L6-v2@") && model.id().ends_with("-f16"),
        "{}",
        model.id()
    );
    assert_eq!(model.dimensions(), 384);
    let texts = [
        "rewrite my CV so it fits this job ad",
        "tailored resume generator: analyzes job descriptions and generates tailored resumes",
        "scan Solana smart contracts for vulnerabilities",
    ];
    let v = model.embed(&texts, 2, &|| false).expect("not cancelled");
    for vector in &v {
        assert!((dot(vector, vector) - 1.0).abs() < 1e-4, "unit length");
    }
    let (near, far) = (dot(&v[0], &v[1]), dot(&v[0], &v[2]));
    eprintln!("cv~resume {near:.3}, cv~solana {far:.3}");
    assert!(near > far + 0.2, "{near} vs {far}");
    // One thread or two: the same vectors.
    let one = model.embed(&texts, 1, &|| false).expect("not cancelled");
    assert_eq!(one, v);
    // Cancelled before it starts: nothing.
    assert!(model.embed(&texts, 2, &|| true).is_none());
}

#[test]
fn a_folder_without_a_model_is_a_clear_error() {
    let dir = std::env::temp_dir().join("skill-embed-no-model");
    let _ = std::fs::create_dir_all(&dir);
    let error = Embedder::load(&dir).expect_err("no model there");
    assert!(error.to_string().contains("config.json"), "{error}");
}
