//! Frontmatter parsing and cold discovery of generated skill trees.

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use skill_core::frontmatter;
use skill_core::local::{LocalOptions, LocalProvider};
use skill_core::provider::LookupContext;
use skill_core::registry::{Finish, ProviderOutcome, Registry};
use skill_core::watch::LocalWatcher;
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A realistic skill file: ~200-character description, a small metadata map
/// and a ~2 KB body.
fn skill_text(name: &str) -> String {
    let description = format!(
        "Use {name} when the task involves reviewing, refactoring or documenting code in this \
         repository; it explains the conventions, the checks to run before committing and how \
         to report findings."
    );
    let mut body = format!("# {name}\n\n");
    while body.len() < 2048 {
        body.push_str(
            "Follow the project conventions. Run the formatter and the linter, then the tests. \
             Keep commits small and explain why in the message.\n\n",
        );
    }
    format!(
        "---\nname: {name}\ndescription: {description}\nwhenToUse: When asked about {name}\n\
         metadata:\n  owner: platform-team\n  version: 3\n  tags: [review, quality]\n---\n\n{body}"
    )
}

/// `count` skills split over the user DSH and user agents roots, half bundles
/// and half flat files.
fn generate(home: &Path, count: usize) {
    for i in 0..count {
        let root = if i % 2 == 0 {
            home.join(".dsh/skills")
        } else {
            home.join(".agents/skills")
        };
        let name = format!("skill-{i:05}");
        let path = if i % 4 < 2 {
            root.join(&name).join("SKILL.md")
        } else {
            root.join(format!("{name}.md"))
        };
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, skill_text(&name)).expect("write");
    }
}

fn provider(home: &Path) -> LocalProvider {
    provider_with(home, false)
}

/// A fresh provider over the generated home; with `watch`, its root watcher is
/// installed (the first discovery watches every root and bundle).
fn provider_with(home: &Path, watch: bool) -> LocalProvider {
    let options = LocalOptions {
        dsh_home: Some(home.join(".dsh").to_string_lossy().into_owned()),
        agents_home: Some(home.join(".agents").to_string_lossy().into_owned()),
        watch: Some(watch),
        ..LocalOptions::default()
    };
    let provider = LocalProvider::new(options.resolve_with(&|_| None).expect("config"));
    LocalWatcher::install(&provider);
    provider
}

fn bench_frontmatter(c: &mut Criterion) {
    let text = skill_text("bench-skill");
    let mut group = c.benchmark_group("frontmatter");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("parse", |b| {
        b.iter(|| frontmatter::parse(black_box(&text)).expect("valid"))
    });
    group.bench_function("parse_full_reader", |b| {
        b.iter(|| frontmatter::parse_with_full_reader(black_box(&text)).expect("valid"))
    });
    group.finish();
}

fn bench_discovery(c: &mut Criterion) {
    let mut group = c.benchmark_group("local_cold_discovery");
    for count in [1_000usize, 10_000] {
        let dir = tempfile::tempdir().expect("tempdir");
        generate(dir.path(), count);
        group.throughput(Throughput::Elements(count as u64));
        if count >= 10_000 {
            group.sample_size(10);
        }
        group.bench_with_input(BenchmarkId::from_parameter(count), &count, |b, &count| {
            b.iter(|| {
                // A fresh provider each time: nothing is cached between runs.
                let d = provider(dir.path()).discover(&LookupContext::new(None));
                assert_eq!(d.observation.candidates.len(), count);
                d
            })
        });
    }
    group.finish();
}

/// Cold discovery with watching on and off, side by side: with watching on,
/// the first discovery also watches every root and bundle directory (the
/// provider, and its watches, are dropped outside the measurement).
fn bench_watched_discovery(c: &mut Criterion) {
    let mut group = c.benchmark_group("local_cold_discovery_watch");
    for count in [1_000usize, 5_000, 10_000] {
        let dir = tempfile::tempdir().expect("tempdir");
        generate(dir.path(), count);
        group.throughput(Throughput::Elements(count as u64));
        group.sample_size(if count >= 5_000 { 10 } else { 30 });
        for watch in [false, true] {
            let id = BenchmarkId::new(if watch { "on" } else { "off" }, count);
            group.bench_with_input(id, &count, |b, &count| {
                b.iter_batched(
                    || provider_with(dir.path(), watch),
                    |provider| {
                        let d = provider.discover(&LookupContext::new(None));
                        assert_eq!(d.observation.candidates.len(), count);
                        assert!(d.observation.complete);
                        (provider, d)
                    },
                    BatchSize::PerIteration,
                )
            });
        }
    }
    group.finish();
}

/// A watched discovery after one file changed (the incremental path: only
/// the changed entry is read again, the rest of the listing is kept), next
/// to the same discovery unwatched (everything read again through the parse
/// cache), and to a watched discovery with nothing changed. The write is not
/// timed.
fn bench_incremental(c: &mut Criterion) {
    let mut group = c.benchmark_group("local_after_one_change");
    for count in [1_000usize, 5_000] {
        let dir = tempfile::tempdir().expect("tempdir");
        generate(dir.path(), count);
        // The parse cache trusts files whose times are 2 s old.
        std::thread::sleep(std::time::Duration::from_millis(2_100));
        let edited = dir.path().join(".dsh/skills/skill-00000/SKILL.md");
        group.sample_size(if count >= 5_000 { 20 } else { 50 });
        let ctx = LookupContext::new(None);
        for (label, watch) in [("watched", true), ("unwatched", false)] {
            let provider = provider_with(dir.path(), watch);
            provider.keep_listings(watch);
            assert_eq!(provider.discover(&ctx).observation.candidates.len(), count);
            let mut n = 0u64;
            group.bench_with_input(BenchmarkId::new(label, count), &count, |b, &count| {
                b.iter_batched(
                    || {
                        n += 1;
                        let text = skill_text("skill-00000")
                            .replace("platform-team", &format!("team-{n}"));
                        std::fs::write(&edited, text).expect("write");
                    },
                    |()| {
                        let d = provider.discover(&ctx);
                        assert_eq!(d.observation.candidates.len(), count);
                        d
                    },
                    BatchSize::PerIteration,
                )
            });
            if watch {
                group.bench_with_input(
                    BenchmarkId::new("watched, nothing changed", count),
                    &count,
                    |b, &count| {
                        b.iter(|| {
                            let d = provider.discover(&ctx);
                            assert_eq!(d.observation.candidates.len(), count);
                            d
                        })
                    },
                );
            }
        }
    }
    group.finish();
}

/// A registry lookup after one file changed, through the native local
/// provider with its watcher (the untimed setup writes the file and waits
/// for the watcher to invalidate the registration); then its two halves: the
/// provider's discovery with its kept listing, and the registry's merge of
/// the listing into a catalog (`Collection::finish`, what runs on the JS
/// thread in Node).
fn bench_registry_change(c: &mut Criterion) {
    let mut group = c.benchmark_group("registry_after_one_change");
    for count in [1_000usize, 5_000] {
        let dir = tempfile::tempdir().expect("tempdir");
        generate(dir.path(), count);
        std::thread::sleep(Duration::from_millis(2_100));
        let edited = dir.path().join(".dsh/skills/skill-00000/SKILL.md");
        group.sample_size(if count >= 5_000 { 20 } else { 40 });
        let ctx = LookupContext::new(None);
        let provider = Arc::new(provider_with(dir.path(), true));
        let registry = Registry::new(8).expect("registry");
        let slot = registry
            .register_provider("local", Some(provider.clone()))
            .expect("register");
        assert_eq!(registry.snapshot_native(&ctx).0.len(), count);
        let mut n = 0u64;
        let mut edit = || {
            n += 1;
            let text = skill_text("skill-00000").replace("platform-team", &format!("team-{n}"));
            std::fs::write(&edited, text).expect("write");
            // The watcher's coalescing window and its invalidation.
            std::thread::sleep(Duration::from_millis(25));
        };
        group.bench_function(BenchmarkId::new("lookup", count), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    edit();
                    let start = Instant::now();
                    let (catalog, _) = registry.snapshot_native(&ctx);
                    total += start.elapsed();
                    assert_eq!(catalog.len(), count);
                }
                total
            })
        });
        group.bench_function(BenchmarkId::new("merge", count), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    registry.invalidate(slot);
                    let collection = registry.collect(None, 0);
                    let obs = provider.discover(&ctx).observation;
                    let start = Instant::now();
                    let done = collection.finish(vec![ProviderOutcome::Listed(obs)]);
                    total += start.elapsed();
                    match done {
                        Finish::Done { catalog, .. } => assert_eq!(black_box(catalog).len(), count),
                        Finish::Retry => panic!("nothing changed meanwhile"),
                    }
                }
                total
            })
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    bench_frontmatter,
    bench_discovery,
    bench_watched_discovery,
    bench_incremental,
    bench_registry_change
);
criterion_main!(benches);
