//! Allocation-free text pieces: a fixed-capacity inline string for short generated
//! fields (addresses, cities, phones) and the fast integer/date writers that format
//! `.tbl` lines into a reused byte buffer.

use std::fmt;

/// An ASCII string of at most `N` bytes stored inline (no heap allocation).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct InlineStr<const N: usize> {
    buf: [u8; N],
    len: u8,
}

impl<const N: usize> InlineStr<N> {
    /// The empty string.
    pub(crate) const fn new() -> Self {
        Self {
            buf: [0; N],
            len: 0,
        }
    }

    /// Appends ASCII bytes; panics in debug builds if the capacity is exceeded (a bug).
    #[inline]
    pub(crate) fn push_bytes(&mut self, bytes: &[u8]) {
        let start = usize::from(self.len);
        debug_assert!(start + bytes.len() <= N && bytes.is_ascii());
        self.buf[start..start + bytes.len()].copy_from_slice(bytes);
        self.len = (start + bytes.len()) as u8;
    }

    /// Appends one ASCII byte.
    #[inline]
    pub(crate) fn push(&mut self, b: u8) {
        self.push_bytes(&[b]);
    }

    /// Appends `v` in decimal.
    #[inline]
    pub(crate) fn push_decimal(&mut self, v: u64) {
        let mut tmp = [0u8; 20];
        let mut pos = tmp.len();
        let mut v = v;
        loop {
            pos -= 1;
            tmp[pos] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.push_bytes(&tmp[pos..]);
    }

    /// Appends `v` zero-padded to `width` digits (`v` < 10^width).
    #[inline]
    pub(crate) fn push_padded(&mut self, mut v: u64, width: usize) {
        let mut tmp = [b'0'; 20];
        for slot in tmp[..width].iter_mut().rev() {
            *slot = b'0' + (v % 10) as u8;
            v /= 10;
        }
        self.push_bytes(&tmp[..width]);
    }

    /// The bytes of the string.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..usize::from(self.len)]
    }

    /// The string.
    #[inline]
    pub fn as_str(&self) -> &str {
        // Only ASCII is ever pushed, so this cannot fail.
        std::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }

    /// Length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether the string is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<const N: usize> std::ops::Deref for InlineStr<N> {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl<const N: usize> fmt::Display for InlineStr<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<const N: usize> fmt::Debug for InlineStr<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// "00" to "99", for writing two digits at a time.
const DIGIT_PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Appends `v` in decimal (as `printf("%ld")` would).
#[inline]
pub(crate) fn push_u64(out: &mut Vec<u8>, mut v: u64) {
    let mut tmp = [0u8; 20];
    let mut pos = tmp.len();
    while v >= 100 {
        let pair = (v % 100) as usize * 2;
        v /= 100;
        pos -= 2;
        tmp[pos..pos + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    }
    if v >= 10 {
        let pair = v as usize * 2;
        pos -= 2;
        tmp[pos..pos + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    } else {
        pos -= 1;
        tmp[pos] = b'0' + v as u8;
    }
    out.extend_from_slice(&tmp[pos..]);
}

/// Appends `v` zero-padded to exactly `width` digits (`width` ≤ 20, `v` < 10^width).
#[inline]
pub(crate) fn push_u64_padded(out: &mut Vec<u8>, mut v: u64, width: usize) {
    let mut tmp = [b'0'; 20];
    let mut pos = tmp.len();
    while v > 0 {
        pos -= 1;
        tmp[pos] = b'0' + (v % 10) as u8;
        v /= 10;
    }
    out.extend_from_slice(&tmp[tmp.len() - width.max(tmp.len() - pos)..]);
}

/// Appends a `yyyymmdd` date (always 8 digits for the years dbgen produces).
#[inline]
pub(crate) fn push_date(out: &mut Vec<u8>, yyyymmdd: u32) {
    let hi = (yyyymmdd / 10_000) as usize;
    let lo = (yyyymmdd % 10_000) as usize;
    let b = [
        DIGIT_PAIRS[(hi / 100) * 2],
        DIGIT_PAIRS[(hi / 100) * 2 + 1],
        DIGIT_PAIRS[(hi % 100) * 2],
        DIGIT_PAIRS[(hi % 100) * 2 + 1],
        DIGIT_PAIRS[(lo / 100) * 2],
        DIGIT_PAIRS[(lo / 100) * 2 + 1],
        DIGIT_PAIRS[(lo % 100) * 2],
        DIGIT_PAIRS[(lo % 100) * 2 + 1],
    ];
    out.extend_from_slice(&b);
}

/// Formats a row through its `.tbl` writer, for `Display` (the line without its newline).
pub(crate) fn display_via(
    f: &mut fmt::Formatter<'_>,
    write: impl FnOnce(&mut Vec<u8>),
) -> fmt::Result {
    let mut buf = Vec::with_capacity(160);
    write(&mut buf);
    if buf.last() == Some(&b'\n') {
        buf.pop();
    }
    f.write_str(std::str::from_utf8(&buf).map_err(|_| fmt::Error)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        for v in [
            0u64,
            7,
            10,
            99,
            100,
            101,
            999,
            1000,
            12345,
            6_000_000,
            u64::MAX,
        ] {
            let mut out = Vec::new();
            push_u64(&mut out, v);
            assert_eq!(out, v.to_string().into_bytes());
            let mut padded = Vec::new();
            push_u64_padded(&mut padded, v % 1_000_000_000, 9);
            assert_eq!(padded, format!("{:09}", v % 1_000_000_000).into_bytes());
        }
        let mut out = Vec::new();
        push_date(&mut out, 19_940_925);
        assert_eq!(out, b"19940925");
    }

    #[test]
    fn inline_str() {
        let mut s = InlineStr::<10>::new();
        s.push_bytes(b"PERU");
        s.push(b'3');
        assert_eq!(s.as_str(), "PERU3");
        assert_eq!(s.len(), 5);
    }
}
