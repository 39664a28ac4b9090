//! The Dash table's layout in 64-bit words (byte offsets are word index × 8, little
//! endian); `docs/formats.md`, section "Dash hash table", documents it byte by byte.

/// Words 0..8 of the file: `PMODASH` and a zero byte.
pub const MAGIC: u64 = u64::from_le_bytes(*b"PMODASH\0");
/// The format version this build writes and reads.
pub const VERSION: u64 = 1;

/// The header page: 4096 bytes.
pub const HEADER_WORDS: usize = 512;
// Immutable header words (covered by the checksum).
pub const H_MAGIC: usize = 0;
pub const H_VERSION: usize = 1;
pub const H_SEG_CAP: usize = 2;
pub const H_DIR_CAP_LOG: usize = 3;
pub const H_DIR_OFF: usize = 4;
pub const H_SEG_OFF: usize = 5;
/// crc32 of the little-endian bytes of words 0..6.
pub const H_CHECKSUM: usize = 6;
// Mutable header words, each changed by one 8-byte store.
pub const H_CLEAN: usize = 8;
pub const H_EPOCH: usize = 9;
pub const H_GLOBAL_DEPTH: usize = 10;
pub const H_SEG_COUNT: usize = 11;

/// Normal buckets per segment.
pub const NORMAL: usize = 64;
/// Stash buckets per segment (after the normal ones).
pub const STASH: usize = 4;
pub const BUCKETS: usize = NORMAL + STASH;
/// Key/value slots per bucket.
pub const SLOTS: usize = 14;
/// Overflow fingerprint records per bucket.
pub const OVF_RECORDS: usize = 4;
/// 256 bytes per bucket.
pub const BUCKET_WORDS: usize = 32;
/// The segment header: 256 bytes.
pub const SEG_HEADER_WORDS: usize = 32;
pub const SEG_WORDS: usize = SEG_HEADER_WORDS + BUCKETS * BUCKET_WORDS;
/// Items a segment holds when every slot is full.
pub const SEG_SLOTS: usize = BUCKETS * SLOTS;

// Segment header words.
/// state (bits 0..8) | local depth (bits 8..16) | split sibling segment (bits 16..64).
pub const S_STATE: usize = 0;
/// The low `local depth` bits of the hash's segment bits that every key here has.
pub const S_PATTERN: usize = 1;
/// The recovery epoch the segment was last recovered (or created) in.
pub const S_EPOCH: usize = 2;

pub const STATE_NORMAL: u64 = 1;
/// The sibling holds a full copy of the items moving to it; the directory update and
/// the removal from this segment may be unfinished.
pub const STATE_COPIED: u64 = 2;

// Bucket words.
/// version lock (bits 0..32; bit 0 = locked) | allocation bitmap (32..46) |
/// membership bitmap (46..60: 1 = the item's home is the previous bucket).
pub const B_LOCK: usize = 0;
/// overflow metadata: record allocation (bits 0..4) | record membership (4..8: 1 = the
/// item's home is the previous bucket) | stash bucket of each record (8..16, 2 bits
/// each) | overflow count (16..24: stash items of this home bucket without a record) |
/// four record fingerprints (24..56).
pub const B_OVF: usize = 1;
/// Words 2 and 3: the 14 slot fingerprints (bytes 16..30 of the bucket), 2 bytes unused.
pub const B_FP: usize = 2;
/// Slot `i`: key at word `B_SLOTS + 2i`, value at `B_SLOTS + 2i + 1`.
pub const B_SLOTS: usize = 4;

pub const LOCKED: u64 = 1;
pub const VERSION_MASK: u64 = 0xffff_ffff;
pub const SLOT_MASK: u64 = (1 << SLOTS) - 1;

pub fn alloc_bits(lock: u64) -> u64 {
    (lock >> 32) & SLOT_MASK
}

pub fn member_bits(lock: u64) -> u64 {
    (lock >> 46) & SLOT_MASK
}

pub fn with_bits(lock: u64, alloc: u64, member: u64) -> u64 {
    (lock & VERSION_MASK) | (alloc << 32) | (member << 46)
}

/// The lock word after unlocking: lock bit cleared, version advanced.
pub fn unlocked(lock: u64) -> u64 {
    (lock & !VERSION_MASK) | ((lock & VERSION_MASK).wrapping_add(1) & VERSION_MASK & !LOCKED)
}

pub fn ovf_alloc(o: u64) -> u64 {
    o & 0xf
}
pub fn ovf_member(o: u64) -> u64 {
    (o >> 4) & 0xf
}
pub fn ovf_stash(o: u64, r: usize) -> usize {
    ((o >> (8 + 2 * r)) & 3) as usize
}
pub fn ovf_count(o: u64) -> u64 {
    (o >> 16) & 0xff
}
pub fn ovf_fp(o: u64, r: usize) -> u8 {
    (o >> (24 + 8 * r)) as u8
}
/// `o` with record `r` set to (fingerprint, stash bucket, membership).
pub fn ovf_with_record(o: u64, r: usize, fp: u8, stash: usize, member: bool) -> u64 {
    let mut o = o | (1 << r);
    o = (o & !(1 << (4 + r))) | (u64::from(member) << (4 + r));
    o = (o & !(3 << (8 + 2 * r))) | ((stash as u64) << (8 + 2 * r));
    (o & !(0xff << (24 + 8 * r))) | (u64::from(fp) << (24 + 8 * r))
}
pub fn ovf_without_record(o: u64, r: usize) -> u64 {
    o & !(1 << r) & !(1 << (4 + r))
}
pub fn ovf_with_count(o: u64, count: u64) -> u64 {
    (o & !(0xff << 16)) | ((count & 0xff) << 16)
}
pub const OVF_COUNT_MAX: u64 = 0xff;

/// The hash of a key: murmur3's 64-bit finalizer over the key xor a fixed seed (a
/// bijection, so distinct keys have distinct hashes).
#[inline]
pub fn hash(key: u64) -> u64 {
    let mut h = key ^ 0x9e37_79b9_7f4a_7c15;
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The one-byte fingerprint: hash bits 0..8.
#[inline]
pub fn fingerprint(h: u64) -> u8 {
    h as u8
}

/// The home bucket in a segment: hash bits 8..14.
#[inline]
pub fn home_bucket(h: u64) -> usize {
    ((h >> 8) as usize) & (NORMAL - 1)
}

/// The bits that choose the segment (directory index = their low global-depth bits).
#[inline]
pub fn segment_bits(h: u64) -> u64 {
    h >> 14
}

pub fn next(b: usize) -> usize {
    (b + 1) % NORMAL
}

pub fn prev(b: usize) -> usize {
    (b + NORMAL - 1) % NORMAL
}

/// Largest global depth the layout allows (segment bits are 50 wide).
pub const MAX_DEPTH: u32 = 40;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_and_segment_sizes() {
        assert_eq!(BUCKET_WORDS * 8, 256);
        assert_eq!(B_SLOTS + 2 * SLOTS, BUCKET_WORDS);
        assert_eq!(SEG_WORDS * 8, 256 + 68 * 256);
    }

    #[test]
    fn lock_word_round_trip() {
        let w = with_bits(5 | LOCKED, 0b101, 0b100);
        assert_eq!(alloc_bits(w), 0b101);
        assert_eq!(member_bits(w), 0b100);
        let u = unlocked(w);
        assert_eq!(u & LOCKED, 0);
        assert_eq!(u & VERSION_MASK, 6);
        assert_eq!(alloc_bits(u), 0b101);
        assert_eq!(unlocked(VERSION_MASK) & VERSION_MASK, 0);
    }

    #[test]
    fn overflow_records_round_trip() {
        let mut o = 0;
        o = ovf_with_record(o, 2, 0xab, 3, true);
        o = ovf_with_record(o, 0, 0x11, 1, false);
        o = ovf_with_count(o, 7);
        assert_eq!(ovf_alloc(o), 0b101);
        assert_eq!(ovf_member(o), 0b100);
        assert_eq!((ovf_fp(o, 2), ovf_stash(o, 2)), (0xab, 3));
        assert_eq!((ovf_fp(o, 0), ovf_stash(o, 0)), (0x11, 1));
        assert_eq!(ovf_count(o), 7);
        let o = ovf_without_record(o, 2);
        assert_eq!((ovf_alloc(o), ovf_member(o), ovf_count(o)), (1, 0, 7));
    }
}
