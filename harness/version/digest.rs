//! The content digests the cache names things by: a build (its tarball's
//! or folder's bytes), a pin's lockfiles, an install's manifest, a corpus.
//! SHA-256 cut to the digits a name needs: a cache key, not a security
//! check (npm and pnpm check every package's integrity). Pure.

use sha2::{Digest, Sha256};

/// The first `digits` hex digits of a finished hash.
pub fn digest_hex(h: Sha256, digits: usize) -> String {
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    hex[..digits.min(hex.len())].to_string()
}

/// The first `digits` hex digits of the SHA-256 of `bytes`.
pub fn bytes_digest(bytes: &[u8], digits: usize) -> String {
    digest_hex(Sha256::new().chain_update(bytes), digits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_sha256_cut_to_the_digits_asked() {
        // SHA-256 of "abc" (FIPS 180-2, appendix B.1).
        assert_eq!(bytes_digest(b"abc", 16), "ba7816bf8f01cfea");
        assert_eq!(bytes_digest(b"abc", 12), "ba7816bf8f01");
        assert_eq!(bytes_digest(b"abc", 99).len(), 64);
    }
}
