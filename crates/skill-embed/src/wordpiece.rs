//! BERT's uncased tokenizer: clean the text, put spaces around Han
//! characters, lowercase and strip accents, split at whitespace and
//! punctuation, then split each word into the longest vocabulary pieces
//! (WordPiece, `##` marking a piece that continues a word). What the
//! `BertNormalizer` + `BertPreTokenizer` + `WordPiece` of the model's
//! `tokenizer.json` do, checked against that tokenizer by
//! `scripts/embed-model.mjs --check` when Python's `tokenizers` is installed.

use std::collections::HashMap;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Longest word split into pieces (longer words are `[UNK]`).
const MAX_WORD_CHARS: usize = 100;

/// A WordPiece vocabulary and the ids of its special tokens.
#[derive(Debug)]
pub struct WordPiece {
    vocab: HashMap<String, u32>,
    /// One past the largest id: the number of lines (more than the
    /// vocabulary's size when lines repeat, ids being line numbers).
    ids: usize,
    pub(crate) cls: u32,
    pub(crate) sep: u32,
    unk: u32,
}

fn is_control(c: char) -> bool {
    if matches!(c, '\t' | '\n' | '\r') {
        return false;
    }
    c.is_control() || matches!(c, '\u{200b}'..='\u{200f}' | '\u{feff}')
}

fn is_punctuation(c: char) -> bool {
    let code = c as u32;
    // ASCII symbols count as punctuation for BERT, as do Unicode P* letters.
    (33..=47).contains(&code)
        || (58..=64).contains(&code)
        || (91..=96).contains(&code)
        || (123..=126).contains(&code)
        || (!c.is_ascii() && is_unicode_punctuation(c))
}

/// The general punctuation blocks (Unicode category P, approximately: the
/// punctuation blocks and the CJK punctuation and full-width forms).
fn is_unicode_punctuation(c: char) -> bool {
    matches!(c,
        '\u{00a1}' | '\u{00a7}' | '\u{00ab}' | '\u{00b6}' | '\u{00b7}' | '\u{00bb}' | '\u{00bf}'
        | '\u{2010}'..='\u{2027}'
        | '\u{2030}'..='\u{205e}'
        | '\u{3001}'..='\u{3003}'
        | '\u{3008}'..='\u{3011}'
        | '\u{3014}'..='\u{301f}'
        | '\u{ff01}'..='\u{ff0f}'
        | '\u{ff1a}'..='\u{ff20}'
        | '\u{ff3b}'..='\u{ff40}'
        | '\u{ff5b}'..='\u{ff65}')
}

fn is_han(c: char) -> bool {
    matches!(c,
        '\u{4e00}'..='\u{9fff}'
        | '\u{3400}'..='\u{4dbf}'
        | '\u{20000}'..='\u{2a6df}'
        | '\u{2a700}'..='\u{2b73f}'
        | '\u{2b740}'..='\u{2b81f}'
        | '\u{2b820}'..='\u{2ceaf}'
        | '\u{f900}'..='\u{faff}'
        | '\u{2f800}'..='\u{2fa1f}')
}

impl WordPiece {
    /// A vocabulary from `vocab.txt` (one token a line, ids in line order).
    pub fn from_lines(text: &str) -> Option<Self> {
        let vocab: HashMap<String, u32> = text
            .lines()
            .enumerate()
            .map(|(i, line)| (line.trim_end_matches('\r').to_string(), i as u32))
            .collect();
        let ids = vocab.values().max().map_or(0, |&id| id as usize + 1);
        Some(WordPiece {
            ids,
            cls: *vocab.get("[CLS]")?,
            sep: *vocab.get("[SEP]")?,
            unk: *vocab.get("[UNK]")?,
            vocab,
        })
    }

    pub(crate) fn vocab_len(&self) -> usize {
        self.vocab.len()
    }

    /// One past the largest id it gives: the rows the model's word
    /// embeddings need.
    pub(crate) fn id_bound(&self) -> usize {
        self.ids
    }

    /// The words of `text` after normalisation and the split at whitespace
    /// and punctuation.
    fn words(text: &str) -> Vec<String> {
        let mut spaced = String::with_capacity(text.len());
        for c in text.chars() {
            if c == '\0' || c == '\u{fffd}' || is_control(c) {
                continue;
            }
            if c.is_whitespace() {
                spaced.push(' ');
            } else if is_han(c) {
                spaced.push(' ');
                spaced.push(c);
                spaced.push(' ');
            } else {
                spaced.push(c);
            }
        }
        let lowered = spaced.to_lowercase();
        let stripped: String = lowered.nfd().filter(|&c| !is_combining_mark(c)).collect();
        let mut words = Vec::new();
        for chunk in stripped.split(' ').filter(|w| !w.is_empty()) {
            let mut word = String::new();
            for c in chunk.chars() {
                if is_punctuation(c) {
                    if !word.is_empty() {
                        words.push(std::mem::take(&mut word));
                    }
                    words.push(c.to_string());
                } else {
                    word.push(c);
                }
            }
            if !word.is_empty() {
                words.push(word);
            }
        }
        words
    }

    /// Appends the pieces of one word.
    fn pieces(&self, word: &str, out: &mut Vec<u32>) {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        if chars.len() > MAX_WORD_CHARS {
            out.push(self.unk);
            return;
        }
        let at = out.len();
        let mut start = 0;
        let mut candidate = String::new();
        while start < chars.len() {
            let mut end = chars.len();
            let mut found = None;
            while start < end {
                let from = chars[start].0;
                let to = chars.get(end).map_or(word.len(), |c| c.0);
                candidate.clear();
                if start > 0 {
                    candidate.push_str("##");
                }
                candidate.push_str(&word[from..to]);
                if let Some(&id) = self.vocab.get(candidate.as_str()) {
                    found = Some(id);
                    break;
                }
                end -= 1;
            }
            match found {
                Some(id) => out.push(id),
                None => {
                    out.truncate(at);
                    out.push(self.unk);
                    return;
                }
            }
            start = end;
        }
    }

    /// The ids of `text`: `[CLS]`, its pieces, `[SEP]`, at most `max` in
    /// all (the pieces are cut; a `max` below 2 gives `[CLS]` and `[SEP]`).
    pub fn encode(&self, text: &str, max: usize) -> Vec<u32> {
        let max = max.max(2);
        let mut ids = vec![self.cls];
        for word in Self::words(text) {
            self.pieces(&word, &mut ids);
            if ids.len() >= max - 1 {
                break;
            }
        }
        ids.truncate(max - 1);
        ids.push(self.sep);
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> WordPiece {
        let lines =
            "[PAD]\n[UNK]\n[CLS]\n[SEP]\nun\n##aff\n##able\nrun\n##ning\n,\n!\nhello\ncafe\n中";
        WordPiece::from_lines(lines).expect("vocab")
    }

    #[test]
    fn words_split_at_space_and_punctuation_lowercased_without_accents() {
        assert_eq!(
            WordPiece::words("Hello,  CAFÉ!\tun-run 中文"),
            ["hello", ",", "cafe", "!", "un", "-", "run", "中", "文"]
        );
    }

    #[test]
    fn longest_pieces_first_and_unknown_words() {
        let wp = vocab();
        assert_eq!(wp.encode("unaffable running", 16), [2, 4, 5, 6, 7, 8, 3]);
        assert_eq!(wp.encode("hello xyz", 16), [2, 11, 1, 3]);
        // Cut to the maximum, [SEP] kept.
        assert_eq!(wp.encode("hello hello hello", 3), [2, 11, 3]);
        // Room for nothing but [CLS] and [SEP], however small the maximum.
        for max in [0, 1, 2] {
            assert_eq!(wp.encode("hello", max), [2, 3], "max {max}");
        }
        assert_eq!(wp.encode("", 16), [2, 3]);
    }

    #[test]
    fn ids_are_line_numbers_even_when_lines_repeat() {
        let wp =
            WordPiece::from_lines("[UNK]\n[CLS]\n[SEP]\nhello\nhello\nworld\n").expect("vocab");
        assert_eq!(wp.vocab_len(), 5);
        assert_eq!(wp.id_bound(), 6);
        assert_eq!(wp.encode("world", 8), [1, 5, 2]);
    }
}
