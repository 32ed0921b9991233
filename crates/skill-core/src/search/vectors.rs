//! Skill vectors for the semantic half of search: one store per embedding
//! model, each vector kept under the sha256 of the text it embeds (a
//! skill's name and description), so that an unchanged skill is never
//! embedded twice, and a changed one is embedded again.
//!
//! The store is in memory and, when given a folder, on disk: one file per
//! model id, `<folder>/<id, letters and digits>-<hash of the id>.vectors`,
//! records appended as vectors are added (a 16-byte key, the length as a
//! little-endian `u32`, the numbers as little-endian `f32`). A restart
//! reads the file back: an unchanged catalog embeds nothing. A damaged
//! record (a crash while writing) ends the reading, and the file is cut
//! back to the records before it, so that new records follow them; a file
//! that cannot be read, cut or written leaves the store in memory only (the
//! caller is told once, through [`VectorStore::disk_error`]).

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

/// The key of a text: the start of its sha256.
pub type Key = [u8; 16];

/// Longest vector accepted (a bigger one is a corrupt record).
const MAX_DIMENSIONS: u32 = 8192;

/// Vectors by key.
type Vectors = HashMap<Key, Arc<[f32]>>;

/// The text of a skill that is embedded: its name's words and its
/// description.
pub fn skill_text(name: &str, description: &str) -> String {
    format!("{}: {}", name.replace('-', " "), description.trim())
}

/// The key of `text`.
pub fn key_of(text: &str) -> Key {
    let digest = Sha256::digest(text.as_bytes());
    let mut key = [0u8; 16];
    key.copy_from_slice(&digest[..16]);
    key
}

/// Vectors of one model, by key.
#[derive(Debug)]
pub struct VectorStore {
    vectors: RwLock<Vectors>,
    file: Mutex<Option<File>>,
    path: Option<PathBuf>,
    disk_error: Mutex<Option<String>>,
}

/// The file of `model`'s vectors in `dir`.
fn file_name(dir: &Path, model: &str) -> PathBuf {
    let readable: String = model
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .take(48)
        .collect();
    let hex = crate::catalog::digest_hex(model);
    dir.join(format!("{readable}-{}.vectors", &hex[..8]))
}

/// The records of a vectors file, up to the first damaged one (cut short
/// by a crash while writing, or with an impossible length), and the length
/// of the good records before it. An error other than the end of the file
/// is returned as it is.
fn read_records(file: &mut impl Read) -> std::io::Result<(Vectors, u64)> {
    let mut map = HashMap::new();
    let mut good = 0u64;
    let mut head = [0u8; 20];
    loop {
        if let Err(e) = file.read_exact(&mut head) {
            return damage_or_error(e, map, good);
        }
        let mut key = [0u8; 16];
        key.copy_from_slice(&head[..16]);
        let len = u32::from_le_bytes([head[16], head[17], head[18], head[19]]);
        if len == 0 || len > MAX_DIMENSIONS {
            return Ok((map, good));
        }
        let mut bytes = vec![0u8; len as usize * 4];
        if let Err(e) = file.read_exact(&mut bytes) {
            return damage_or_error(e, map, good);
        }
        let vector: Arc<[f32]> = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        map.insert(key, vector);
        good += 20 + u64::from(len) * 4;
    }
}

/// The end of [`read_records`]: the end of the file (a record cut short, or
/// none) keeps what was read; any other failure is an error.
fn damage_or_error(
    error: std::io::Error,
    map: Vectors,
    good: u64,
) -> std::io::Result<(Vectors, u64)> {
    match error.kind() {
        std::io::ErrorKind::UnexpectedEof => Ok((map, good)),
        _ => Err(error),
    }
}

/// Reads `file`'s records and cuts off whatever follows the last good one
/// (a damaged record), so that records appended later follow the good ones
/// and are read back on the next start.
fn load(file: &File, path: &Path) -> std::io::Result<Vectors> {
    let (map, good) = read_records(&mut BufReader::new(file))?;
    let len = file.metadata()?.len();
    if len > good {
        tracing::warn!(
            path = %path.display(),
            kept = map.len(),
            dropped_bytes = len - good,
            "skill vectors file damaged after its last good record (a write cut short?): the rest is cut off"
        );
        file.set_len(good)?;
    }
    Ok(map)
}

impl VectorStore {
    /// The store of `model`'s vectors, read from `dir` when given (and
    /// kept there as vectors are added).
    pub fn open(model: &str, dir: Option<&Path>) -> Self {
        let store = VectorStore {
            vectors: RwLock::new(HashMap::new()),
            file: Mutex::new(None),
            path: dir.map(|d| file_name(d, model)),
            disk_error: Mutex::new(None),
        };
        if let Some(path) = &store.path {
            let opened =
                std::fs::create_dir_all(path.parent().unwrap_or(Path::new("."))).and_then(|()| {
                    OpenOptions::new()
                        .read(true)
                        .append(true)
                        .create(true)
                        .open(path)
                });
            match opened {
                Ok(file) => match load(&file, path) {
                    Ok(map) => {
                        *store
                            .vectors
                            .write()
                            .unwrap_or_else(PoisonError::into_inner) = map;
                        *store.file.lock().unwrap_or_else(PoisonError::into_inner) = Some(file);
                    }
                    // Unreadable, or its damaged end cannot be cut off: new
                    // records would go after bytes that end the reading.
                    Err(e) => store.note_disk_error(&e),
                },
                Err(e) => store.note_disk_error(&e),
            }
        }
        store
    }

    fn note_disk_error(&self, error: &std::io::Error) {
        let path = self.path.as_deref().unwrap_or(Path::new("")).display();
        let mut slot = self
            .disk_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        slot.get_or_insert_with(|| format!("skill vectors are not kept on disk ({path}: {error})"));
    }

    /// The file the vectors are kept in, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The first disk failure, once (later calls give `None`).
    pub fn disk_error(&self) -> Option<String> {
        self.disk_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Number of vectors held.
    pub fn len(&self) -> usize {
        self.vectors
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Whether no vector is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The vector of `key` (for tests: a search takes them all at once,
    /// [`VectorStore::get_all`]).
    #[cfg(test)]
    pub fn get(&self, key: &Key) -> Option<Arc<[f32]>> {
        self.vectors
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
            .cloned()
    }

    /// The vectors of `keys`, in order (one look under the lock for all).
    pub fn get_all(&self, keys: &[Key]) -> Vec<Option<Arc<[f32]>>> {
        let map = self.vectors.read().unwrap_or_else(PoisonError::into_inner);
        keys.iter().map(|key| map.get(key).cloned()).collect()
    }

    /// Whether each of `keys` lacks its vector, in order (one look under
    /// the lock for all).
    pub fn lacks(&self, keys: &[Key]) -> Vec<bool> {
        let map = self.vectors.read().unwrap_or_else(PoisonError::into_inner);
        keys.iter().map(|key| !map.contains_key(key)).collect()
    }

    /// Adds vectors (and appends them to the file). Empty vectors and
    /// vectors with a non-finite number are left out.
    pub fn insert(&self, items: impl IntoIterator<Item = (Key, Vec<f32>)>) {
        let mut bytes = Vec::new();
        let mut map = self.vectors.write().unwrap_or_else(PoisonError::into_inner);
        for (key, vector) in items {
            let Ok(len) = u32::try_from(vector.len()) else {
                continue;
            };
            if len == 0 || len > MAX_DIMENSIONS || !vector.iter().all(|v| v.is_finite()) {
                continue;
            }
            bytes.extend_from_slice(&key);
            bytes.extend_from_slice(&len.to_le_bytes());
            for v in &vector {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
            map.insert(key, vector.into());
        }
        drop(map);
        if bytes.is_empty() {
            return;
        }
        let mut file = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(f) = file.as_mut() {
            if let Err(e) = f.write_all(&bytes).and_then(|()| f.flush()) {
                *file = None;
                drop(file);
                self.note_disk_error(&e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_survive_a_restart_and_a_cut_record_is_dropped() {
        let dir = tempfile::TempDir::new().expect("tempdir");
        let a = key_of(&skill_text("pdf", "Fill PDF forms."));
        let b = key_of("other");
        {
            let store = VectorStore::open("model@1", Some(dir.path()));
            assert!(store.is_empty());
            store.insert([
                (a, vec![0.5, -0.5]),
                (b, vec![1.0, 0.0]),
                (key_of("nan"), vec![f32::NAN]),
            ]);
            assert_eq!(store.len(), 2);
        }
        let store = VectorStore::open("model@1", Some(dir.path()));
        assert_eq!(store.get(&a).as_deref(), Some(&[0.5f32, -0.5][..]));
        let all = store.get_all(&[b, key_of("absent"), a]);
        assert_eq!(all[0].as_deref(), Some(&[1.0f32, 0.0][..]));
        assert!(all[1].is_none());
        assert_eq!(all[2].as_deref(), Some(&[0.5f32, -0.5][..]));
        assert_eq!(store.lacks(&[b, key_of("absent"), a]), [false, true, false]);
        assert!(store.disk_error().is_none());
        // Another model id: another file.
        assert!(VectorStore::open("model@2", Some(dir.path())).is_empty());
        // The file's name: the id's letters and digits, the start of its
        // hash (unchanged, or every cache is embedded again).
        let path = store.path().expect("on disk").to_path_buf();
        let d = Sha256::digest(b"model@1");
        assert_eq!(
            path.file_name().and_then(|n| n.to_str()),
            Some(
                format!(
                    "model-1-{:02x}{:02x}{:02x}{:02x}.vectors",
                    d[0], d[1], d[2], d[3]
                )
                .as_str()
            )
        );
        // A record cut short ends the reading; the others stay.
        drop(store);
        let mut bytes = std::fs::read(&path).expect("read");
        bytes.extend_from_slice(&[7u8; 22]);
        std::fs::write(&path, bytes).expect("write");
        assert_eq!(VectorStore::open("model@1", Some(dir.path())).len(), 2);
    }

    #[test]
    fn vectors_added_after_a_damaged_record_are_read_back() {
        let dir = tempfile::TempDir::new().expect("tempdir");
        let (a, b, c) = (key_of("a"), key_of("b"), key_of("c"));
        let path = {
            let store = VectorStore::open("m", Some(dir.path()));
            store.insert([(a, vec![1.0, 2.0]), (b, vec![3.0, 4.0])]);
            store.path().expect("on disk").to_path_buf()
        };
        let good = std::fs::metadata(&path).expect("metadata").len();
        // A record cut short: a whole head, half of its numbers.
        let mut bytes = std::fs::read(&path).expect("read");
        bytes.extend_from_slice(&key_of("cut"));
        bytes.extend_from_slice(&2u32.to_le_bytes());
        bytes.extend_from_slice(&1f32.to_le_bytes());
        std::fs::write(&path, bytes).expect("write");
        {
            let store = VectorStore::open("m", Some(dir.path()));
            assert_eq!(store.len(), 2);
            assert!(store.disk_error().is_none());
            // The damaged end is gone before anything is appended.
            assert_eq!(std::fs::metadata(&path).expect("metadata").len(), good);
            store.insert([(c, vec![5.0, 6.0])]);
        }
        let store = VectorStore::open("m", Some(dir.path()));
        assert_eq!(store.len(), 3);
        assert_eq!(store.get(&c).as_deref(), Some(&[5.0f32, 6.0][..]));
        assert_eq!(store.get(&a).as_deref(), Some(&[1.0f32, 2.0][..]));
        // Garbage with an impossible length is cut off as well.
        drop(store);
        let mut bytes = std::fs::read(&path).expect("read");
        let three = bytes.len() as u64;
        bytes.extend_from_slice(&[7u8; 22]);
        std::fs::write(&path, bytes).expect("write");
        let store = VectorStore::open("m", Some(dir.path()));
        assert_eq!(store.len(), 3);
        assert_eq!(std::fs::metadata(&path).expect("metadata").len(), three);
    }

    #[test]
    fn an_unusable_folder_keeps_vectors_in_memory_and_says_so_once() {
        let dir = tempfile::TempDir::new().expect("tempdir");
        let file = dir.path().join("not-a-dir");
        std::fs::write(&file, "x").expect("write");
        let store = VectorStore::open("m", Some(&file));
        store.insert([(key_of("t"), vec![1.0])]);
        assert_eq!(store.len(), 1);
        assert!(store.disk_error().is_some());
        assert!(store.disk_error().is_none());
    }
}
