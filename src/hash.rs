//! Content hashing for change detection: a streaming XXH3-64 over the bytes read.
//!
//! The reader hashes every byte it reads; the writer hashes the file again just before it
//! appends and refuses when the two differ. Not cryptographic: it detects change, not tampering.

use std::hash::Hasher;

/// Streaming hasher over file bytes.
pub struct StreamHasher(xxhash_rust::xxh3::Xxh3);

impl StreamHasher {
    /// A fresh hasher.
    pub fn new() -> StreamHasher {
        StreamHasher(xxhash_rust::xxh3::Xxh3::new())
    }
}

impl Default for StreamHasher {
    fn default() -> Self {
        Self::new()
    }
}

impl Hasher for StreamHasher {
    fn finish(&self) -> u64 {
        self.0.digest()
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

/// Hash the first `len` bytes of a reader (the writer's re-check).
pub fn hash_prefix<R: std::io::Read>(mut r: R, len: u64) -> std::io::Result<u64> {
    let mut h = StreamHasher::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut left = len;
    while left > 0 {
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = r.read(&mut buf[..want])?;
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "file shrank",
            ));
        }
        h.write(&buf[..n]);
        left -= n as u64;
    }
    Ok(h.finish())
}
