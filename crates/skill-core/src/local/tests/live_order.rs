//! Kept listings under concurrent discoveries (`live.rs`): whichever order
//! they end in, what is kept and what is still noted cover every change.

use super::super::live::{Changes, Live};
use super::*;
use std::collections::HashMap;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Mutex;

/// A gate on one path: the first call on it (after doing its work) says it
/// arrived, then waits to be released.
struct Gate {
    arrived: Sender<()>,
    release: Receiver<()>,
}

/// The disk, with gates.
#[derive(Default)]
struct GatedFs {
    gates: Mutex<HashMap<PathBuf, Gate>>,
}

impl GatedFs {
    /// Arm a gate on `path`: returns (arrived, release).
    fn arm(&self, path: &Path) -> (Receiver<()>, Sender<()>) {
        let (arrived_tx, arrived_rx) = channel();
        let (release_tx, release_rx) = channel();
        let gate = Gate {
            arrived: arrived_tx,
            release: release_rx,
        };
        self.gates
            .lock()
            .expect("lock")
            .insert(path.to_path_buf(), gate);
        (arrived_rx, release_tx)
    }

    fn pass(&self, path: &Path) {
        let gate = self.gates.lock().expect("lock").remove(path);
        if let Some(gate) = gate {
            gate.arrived.send(()).expect("arrived");
            gate.release
                .recv_timeout(std::time::Duration::from_secs(30))
                .expect("released");
        }
    }
}

impl SkillFs for GatedFs {
    on_disk!();
    fn read_file(&self, path: &Path, cap: u64) -> io::Result<FileRead> {
        let read = StdFs.read_file(path, cap);
        self.pass(path);
        read
    }
    fn entry_kind(&self, path: &Path) -> io::Result<Option<super::super::fs::EntryKind>> {
        self.pass(path);
        StdFs.entry_kind(path)
    }
    fn identity(&self, path: &Path) -> io::Result<Option<(u64, u64)>> {
        StdFs.identity(path)
    }
    fn read_file_unless(
        &self,
        path: &Path,
        cap: u64,
        known: &mut dyn FnMut(&FileStamp) -> bool,
    ) -> io::Result<StampedRead> {
        let read = StdFs.read_file_unless(path, cap, known);
        self.pass(path);
        read
    }
}

fn wait(arrived: &Receiver<()>, what: &str) {
    arrived
        .recv_timeout(std::time::Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("{what} never arrived"));
}

fn descriptions(collected: &super::super::collected::Collected) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = collected
        .files
        .iter()
        .filter_map(|(_, f)| match &f.outcome {
            super::super::collected::Outcome::Parsed(c) => {
                Some((c.summary.name.clone(), c.summary.description.clone()))
            }
            _ => None,
        })
        .collect();
    out.sort();
    out
}

/// An older full listing put back after a newer discovery took the listing
/// out (and with it the change it reads again) must not hide that change.
#[test]
fn an_older_listing_put_back_late_does_not_hide_a_change() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = fs::canonicalize(dir.path())
        .expect("canonical")
        .join("skills");
    for name in ["a", "b", "y"] {
        bundle(&root, name, name);
    }
    let spec = RootSpec::new(root.clone(), roots::Source::Custom);
    let roots = vec![spec];
    let fs = Arc::new(GatedFs::default());
    let live = Arc::new(Live::new(8));
    let cache = Arc::new(crate::local::cache::ParseCache::default());
    let collect = {
        let (fs, live, cache, roots) = (fs.clone(), live.clone(), cache.clone(), roots.clone());
        move |paths: Vec<PathBuf>| {
            let (fs, live, cache, roots) = (fs.clone(), live.clone(), cache.clone(), roots.clone());
            std::thread::spawn(move || {
                live.collect_within(
                    fs.as_ref(),
                    "local",
                    &roots,
                    1 << 20,
                    &cache,
                    &CancelToken::new(),
                    move || Some(Changes::Paths(paths)),
                    None,
                )
                .expect("without a budget a collection always completes")
            })
        }
    };
    let first = collect(vec![]).join().expect("first");
    assert_eq!(descriptions(&first).len(), 3);

    // D1 takes the listing out to read `y` again, and waits there.
    let (y_arrived, y_release) = fs.arm(&root.join("y"));
    let d1 = collect(vec![root.join("y")]);
    wait(&y_arrived, "the discovery reading y");
    // D0 finds the listing out and lists the root; it has read `b` as it was
    // and waits.
    let b_file = root.join("b/SKILL.md");
    let (b_arrived, b_release) = fs.arm(&b_file);
    let d0 = collect(vec![]);
    wait(&b_arrived, "the full listing reading b");
    // `b` changes (another size: no timestamp doubt), and is noted.
    write(&b_file, &skill("b", "b edited, a longer description"));
    y_release.send(()).expect("release y");
    d1.join().expect("d1");
    // D2 takes the listing (and the note of `b`) out, and waits.
    let (b2_arrived, b2_release) = fs.arm(&root.join("b"));
    let d2 = collect(vec![b_file.clone()]);
    wait(&b2_arrived, "the discovery reading b again");
    // D0 ends first (its listing shows `b` as it was), then D2.
    b_release.send(()).expect("release b");
    d0.join().expect("d0");
    b2_release.send(()).expect("release b again");
    let d2 = d2.join().expect("d2");
    assert!(
        descriptions(&d2).contains(&("b".into(), "b edited, a longer description".into())),
        "{:?}",
        descriptions(&d2)
    );
    // Nothing noted since: what is kept must show the change.
    let next = collect(vec![]).join().expect("next");
    assert_eq!(descriptions(&next), descriptions(&d2));
}
