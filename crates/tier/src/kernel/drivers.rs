//! The macros that generate each ISA's kernels (`drivers!`) and pick a monomorphised
//! kernel by size class, operation and fence (`pick!`).

/// Generates the per-access body and the two drivers of one ISA. Expects, in scope:
/// `V` (the registers of one line), `zero`, `xor`, `fold`, `pattern` and the unsafe
/// `load`, `store`, `stream`, all for one 64-byte-aligned line. The first attribute is
/// the inlining hint of the per-access helpers (`inline(always)` cannot be combined with
/// `target_feature`), the rest the ISA's target features.
macro_rules! drivers {
    (#[$inline:meta] $(#[$feat:meta])*) => {
        /// One access of `LINES` lines at `p` (`LINES == 0`: `size` bytes, 8 lines per
        /// iteration).
        ///
        /// # Safety
        /// `p..p+size` lies inside one live mapping, `p` is 64-byte aligned, `size` is
        /// `LINES * 64` (or a multiple of 512 when `LINES == 0`), and the CPU has this
        /// module's ISA and the flush instruction of `W`.
        $(#[$feat])*
        #[$inline]
        unsafe fn access<const LINES: usize, const W: u8, const FENCE: bool>(
            p: *mut u8,
            size: usize,
            acc: &mut [V; 4],
        ) {
            // SAFETY: every line touched is one of the `size / 64` aligned lines at `p`,
            // inside the caller's mapping; the ISA and flush instruction are available
            // (the caller's contract).
            unsafe {
                if W == W_READ {
                    if LINES == 0 {
                        let end = p.add(size);
                        let mut q = p;
                        while q < end {
                            acc[0] = xor(acc[0], load(q));
                            acc[1] = xor(acc[1], load(q.add(64)));
                            acc[2] = xor(acc[2], load(q.add(128)));
                            acc[3] = xor(acc[3], load(q.add(192)));
                            acc[0] = xor(acc[0], load(q.add(256)));
                            acc[1] = xor(acc[1], load(q.add(320)));
                            acc[2] = xor(acc[2], load(q.add(384)));
                            acc[3] = xor(acc[3], load(q.add(448)));
                            q = q.add(512);
                        }
                    } else {
                        // LINES is 1, 2 or 4, a constant: this loop is fully unrolled.
                        for (i, a) in acc.iter_mut().enumerate().take(LINES) {
                            *a = xor(*a, load(p.add(i * CACHE_LINE)));
                        }
                    }
                } else {
                    let v = pattern();
                    if LINES == 0 {
                        let end = p.add(size);
                        let mut q = p;
                        while q < end {
                            for i in 0..8 {
                                put::<W>(q.add(i * CACHE_LINE), v);
                            }
                            if W >= W_CLWB {
                                for i in 0..8 {
                                    persist::flush_line(flush_mode(W), q.add(i * CACHE_LINE));
                                }
                            }
                            q = q.add(512);
                        }
                    } else {
                        for i in 0..LINES {
                            put::<W>(p.add(i * CACHE_LINE), v);
                        }
                        if W >= W_CLWB {
                            for i in 0..LINES {
                                persist::flush_line(flush_mode(W), p.add(i * CACHE_LINE));
                            }
                        }
                    }
                    if FENCE {
                        persist::sfence();
                    }
                }
            }
        }

        /// Stores `v` into the line at `p`: non-temporal for `W_NT`, regular otherwise.
        ///
        /// # Safety
        /// As [`store`].
        $(#[$feat])*
        #[$inline]
        unsafe fn put<const W: u8>(p: *mut u8, v: V) {
            if W == W_NT {
                // SAFETY: the caller's contract is `stream`'s.
                unsafe { stream(p, v) }
            } else {
                // SAFETY: the caller's contract is `store`'s.
                unsafe { store(p, v) }
            }
        }

        /// # Safety
        /// `count` accesses of `size` bytes at `p + i * stride` lie inside one live
        /// mapping, `p` and `stride` are 64-byte aligned, and the CPU has the ISA and
        /// the flush instruction of `W`.
        $(#[$feat])*
        pub(super) unsafe fn strided<const LINES: usize, const W: u8, const FENCE: bool>(
            p: *mut u8,
            size: usize,
            stride: usize,
            count: usize,
        ) -> u64 {
            let mut acc = [zero(); 4];
            let mut q = p;
            for _ in 0..count {
                // SAFETY: access `i` is in bounds and aligned (the caller's contract).
                unsafe { access::<LINES, W, FENCE>(q, size, &mut acc) };
                q = q.wrapping_add(stride);
            }
            if W != W_READ && !FENCE {
                // Order the run's (possibly non-temporal) stores before whatever follows.
                persist::sfence();
            }
            fold(xor(xor(acc[0], acc[1]), xor(acc[2], acc[3])))
        }

        /// # Safety
        /// `base..base + limit + size` lies inside one live mapping, `base` is 64-byte
        /// aligned, and the CPU has the ISA and the flush instruction of `W`.
        $(#[$feat])*
        pub(super) unsafe fn offsets<const LINES: usize, const W: u8, const FENCE: bool>(
            base: *mut u8,
            size: usize,
            limit: usize,
            offsets: &[usize],
        ) -> std::result::Result<u64, usize> {
            let mut acc = [zero(); 4];
            let mut bad = None;
            for (i, &off) in offsets.iter().enumerate() {
                if off > limit || off % CACHE_LINE != 0 {
                    bad = Some(i);
                    break;
                }
                // SAFETY: `off + size <= limit + size` is inside the mapping and `off`
                // is 64-byte aligned, both checked just above.
                unsafe { access::<LINES, W, FENCE>(base.add(off), size, &mut acc) };
            }
            if W != W_READ && !FENCE {
                persist::sfence();
            }
            match bad {
                Some(i) => Err(i),
                None => Ok(fold(xor(xor(acc[0], acc[1]), xor(acc[2], acc[3])))),
            }
        }
    };
}

/// Picks the monomorphised drivers of one size class for an operation.
macro_rules! pick_op {
    ($m:ident, $lines:literal, $w:expr, $fence:expr) => {
        match ($w, $fence) {
            (W_NT, false) => pick_op!(@ $m, $lines, W_NT, false),
            (W_NT, true) => pick_op!(@ $m, $lines, W_NT, true),
            (W_STORE, false) => pick_op!(@ $m, $lines, W_STORE, false),
            (W_STORE, true) => pick_op!(@ $m, $lines, W_STORE, true),
            (W_CLWB, false) => pick_op!(@ $m, $lines, W_CLWB, false),
            (W_CLWB, true) => pick_op!(@ $m, $lines, W_CLWB, true),
            (W_CLFLUSHOPT, false) => pick_op!(@ $m, $lines, W_CLFLUSHOPT, false),
            (W_CLFLUSHOPT, true) => pick_op!(@ $m, $lines, W_CLFLUSHOPT, true),
            (W_CLFLUSH, false) => pick_op!(@ $m, $lines, W_CLFLUSH, false),
            (W_CLFLUSH, true) => pick_op!(@ $m, $lines, W_CLFLUSH, true),
            _ => pick_op!(@ $m, $lines, W_READ, false),
        }
    };
    (@ $m:ident, $lines:literal, $w:ident, $fence:literal) => {
        (
            $m::strided::<$lines, $w, $fence> as StridedFn,
            $m::offsets::<$lines, $w, $fence> as OffsetsFn,
        )
    };
}

/// Picks the drivers of ISA module `$m` for a size class (`lines`: 1, 2, 4; 0 = looped).
macro_rules! pick {
    ($m:ident, $lines:expr, $w:expr, $fence:expr) => {
        match $lines {
            1 => pick_op!($m, 1, $w, $fence),
            2 => pick_op!($m, 2, $w, $fence),
            4 => pick_op!($m, 4, $w, $fence),
            _ => pick_op!($m, 0, $w, $fence),
        }
    };
}
