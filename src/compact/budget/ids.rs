//! An output's string ids ([`StrIds`]): two bytes each while the string table is small, four
//! once an id needs them.
//!
//! The ids of the units' strings and query words are the largest part of a big compaction's
//! memory after the units themselves (2.6 M ids on a generated 100 MB session, 86% of them query
//! words); the table behind them rarely holds 65,536 strings, so most outputs store them narrow.

use std::ops::Range;

/// String ids (indexes into the extractor's table), narrow until one does not fit in 16 bits.
#[derive(Clone, Debug, PartialEq)]
pub enum StrIds {
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

impl Default for StrIds {
    fn default() -> StrIds {
        StrIds::Narrow(Vec::new())
    }
}

impl StrIds {
    /// Ids held.
    pub fn len(&self) -> usize {
        match self {
            StrIds::Narrow(v) => v.len(),
            StrIds::Wide(v) => v.len(),
        }
    }

    /// Whether it holds no id.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Append `id` (the first id over 16 bits widens every id held).
    pub fn push(&mut self, id: u32) {
        match self {
            StrIds::Narrow(v) => match u16::try_from(id) {
                Ok(n) => v.push(n),
                Err(_) => {
                    let mut w: Vec<u32> = v.iter().map(|&n| u32::from(n)).collect();
                    w.push(id);
                    *self = StrIds::Wide(w);
                }
            },
            StrIds::Wide(v) => v.push(id),
        }
    }

    /// Keep the first `n` ids.
    pub fn truncate(&mut self, n: usize) {
        match self {
            StrIds::Narrow(v) => v.truncate(n),
            StrIds::Wide(v) => v.truncate(n),
        }
    }

    /// Give back spare capacity.
    pub fn shrink_to_fit(&mut self) {
        match self {
            StrIds::Narrow(v) => v.shrink_to_fit(),
            StrIds::Wide(v) => v.shrink_to_fit(),
        }
    }

    /// The ids in `r`.
    pub fn ids(&self, r: Range<usize>) -> Ids<'_> {
        match self {
            StrIds::Narrow(v) => Ids::Narrow(v[r].iter()),
            StrIds::Wide(v) => Ids::Wide(v[r].iter()),
        }
    }

    /// The ids from `from` on.
    pub fn ids_from(&self, from: usize) -> Ids<'_> {
        self.ids(from..self.len())
    }
}

/// An iterator over some of a [`StrIds`]' ids.
pub enum Ids<'a> {
    Narrow(std::slice::Iter<'a, u16>),
    Wide(std::slice::Iter<'a, u32>),
}

impl Iterator for Ids<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        match self {
            Ids::Narrow(it) => it.next().map(|&n| u32::from(n)),
            Ids::Wide(it) => it.next().copied(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Ids::Narrow(it) => it.size_hint(),
            Ids::Wide(it) => it.size_hint(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_stay_narrow_until_one_needs_more_bits_then_all_read_back_the_same() {
        let mut s = StrIds::default();
        for id in [0, 7, 65_535] {
            s.push(id);
        }
        assert!(matches!(s, StrIds::Narrow(_)));
        s.push(65_536);
        s.push(3);
        assert!(matches!(s, StrIds::Wide(_)));
        assert_eq!(s.ids_from(0).collect::<Vec<_>>(), [0, 7, 65_535, 65_536, 3]);
        assert_eq!(s.ids(1..3).collect::<Vec<_>>(), [7, 65_535]);
        s.truncate(2);
        assert_eq!(s.len(), 2);
        assert_eq!(s.ids_from(1).collect::<Vec<_>>(), [7]);
    }
}
