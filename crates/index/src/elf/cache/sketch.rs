//! The frequency sketch of TinyLFU admission: a small aging count-min sketch.

/// A count-min sketch of 4-bit-ish (u8, saturating at 15) counters, 4 rows, halved after
/// `10 × width` additions (aging, as in TinyLFU).
#[derive(Debug)]
pub(super) struct Sketch {
    counters: Vec<u8>,
    mask: usize,
    adds: usize,
    period: usize,
}

impl Sketch {
    pub(super) fn new(width: usize) -> Sketch {
        let width = width.next_power_of_two();
        Sketch {
            counters: vec![0; if width > 1 { width } else { 0 }],
            mask: width.saturating_sub(1),
            adds: 0,
            period: 10 * width,
        }
    }

    #[inline]
    fn slots(&self, key: u32) -> [usize; 4] {
        let h = (u64::from(key) ^ 0xa076_1d64_78bd_642f).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let h2 = h.rotate_left(32).wrapping_mul(0xe703_7ed1_a0b4_28db);
        [
            (h as usize) & self.mask,
            ((h >> 21) as usize) & self.mask,
            (h2 as usize) & self.mask,
            ((h2 >> 29) as usize) & self.mask,
        ]
    }

    pub(super) fn add(&mut self, key: u32) {
        if self.counters.is_empty() {
            return;
        }
        for s in self.slots(key) {
            if self.counters[s] < 15 {
                self.counters[s] += 1;
            }
        }
        self.adds += 1;
        if self.adds >= self.period {
            self.adds = 0;
            for c in &mut self.counters {
                *c >>= 1;
            }
        }
    }

    pub(super) fn estimate(&self, key: u32) -> u8 {
        if self.counters.is_empty() {
            return 0;
        }
        self.slots(key)
            .iter()
            .map(|&s| self.counters[s])
            .min()
            .unwrap_or(0)
    }
}
