//! The order of a plan's filter steps: the one with the least expected probe work per
//! fact row, under the probe's own rules for how a step reads its column at a given
//! density of the selection (which are defined here, once, for both).

use pmolap_kernels::bits;

use super::{Step, Test};

/// How the probe tests a filter step's value ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TestKind {
    /// `id - lo <= span`, on the packed words.
    Range,
    /// Any of this many ranges: one range test each on the packed words, the masks ORed.
    Ranges(u32),
    /// A bitmap small enough to be held in registers (`BitKernels::bitmap_in_registers`).
    RegisterBitmap,
    /// A bitmap gathered from memory, a `vpgatherdd` per 16 ids, small enough for L1.
    GatheredBitmap,
    /// A gathered bitmap of [`LARGE_BITMAP_WORDS`] and more: out of L1, a scalar test
    /// per row costs more, and the probe tests a sparse selection's ids by the kernel.
    LargeBitmap,
}

/// Bitmaps from this many words (16 KiB, half an L1 data cache) are [`TestKind::LargeBitmap`].
pub(crate) const LARGE_BITMAP_WORDS: usize = 2048;

impl TestKind {
    /// The kind of a bitmap test of `words` words, with the running bit kernels.
    pub(crate) fn of_bitmap(words: usize) -> TestKind {
        if bits::active().bitmap_in_registers(words) {
            TestKind::RegisterBitmap
        } else if words < LARGE_BITMAP_WORDS {
            TestKind::GatheredBitmap
        } else {
            TestKind::LargeBitmap
        }
    }

    /// The kind of a plan step's test; None for a group step.
    pub(crate) fn of(test: &Test) -> Option<TestKind> {
        match test {
            Test::Range { .. } => Some(TestKind::Range),
            Test::Bits(b) => Some(TestKind::of_bitmap(b.len())),
            Test::Ranges(r) => Some(TestKind::Ranges(r.len() as u32)),
            Test::Lookup(_) | Test::Code { .. } => None,
        }
    }

    /// Whether a later step tests the whole morsel on the packed words while `k` of its
    /// `n` rows are selected, rather than only the selected rows. Testing all rows costs
    /// about an unpack for a range (0.1 ns per id, AVX-512, Zen 4), two for a bitmap held
    /// in registers (0.16-0.25 ns) and five for a gathered one (0.53 ns), while the other
    /// path reads the selected rows' ids by an unpack of the morsel or one by one and tests
    /// each at about 0.6 ns: the whole morsel is tested while a sixteenth (ranges, bitmaps
    /// in registers) or half of it is still selected (docs/engine.md, "Dense later steps";
    /// an eighth and a thirty-second measured worse).
    ///
    /// Below that, ranges still test the whole morsel of a column `width` bits wide
    /// while [`dense_by_width`] holds: the narrower the column, the fewer selected rows
    /// make its words worth reading.
    pub(crate) fn whole_morsel(self, k: usize, n: usize, width: u32) -> bool {
        self.whole_morsel_by_density(k, n)
            || match self {
                TestKind::Range | TestKind::Ranges(_) => {
                    dense_by_width(k, n, width, WHOLE_TEST_BITS)
                }
                // A bitmap looked up across registers costs more than its column's read:
                // no width rule (R14's date join at 5 % of the rows, 12 bits: 0.81x, the
                // samples on the lookups); one of ids of a byte, a lookup in one register,
                // about two ranges (R36's `IN` over 3-bit priorities at 2 %: 1.3x).
                TestKind::RegisterBitmap => {
                    bits::active().bitmap_by_bytes(width)
                        && dense_by_width(k, n, width, WHOLE_TEST_BITS / 2)
                }
                TestKind::GatheredBitmap | TestKind::LargeBitmap => false,
            }
    }

    /// Whether [`Self::whole_morsel`] takes the whole morsel for its older rule alone (a
    /// sixteenth or half of the rows selected), where the order model prices the test at
    /// [`Self::dense_cost`]; below that, the width rule picks the whole morsel only
    /// where it is the cheaper way, and the model prices the selected rows' way (an upper
    /// bound, which keeps its orders as they were).
    fn whole_morsel_by_density(self, k: usize, n: usize) -> bool {
        match self {
            // A few ranges are tested in one pass (each id unpacked once), at about the
            // cost of one range, so from the same density (R10's supplier join, four runs
            // at 22 % of the rows, had taken 1.36x longer by a scalar test per row).
            TestKind::Range | TestKind::Ranges(_) | TestKind::RegisterBitmap => k * 16 >= n,
            TestKind::GatheredBitmap | TestKind::LargeBitmap => k * 2 >= n,
        }
    }

    /// What testing one row of the whole morsel costs, in unpacks (about 0.1 ns per id):
    /// a gather from a bitmap out of L1 a fifth more than from one in it (set from the
    /// alternated runs of SSB Q3.2, whose supplier join, in L1, is 1.2x faster first than
    /// its customer join, out of it, though that keeps a few more rows).
    fn dense_cost(self) -> f64 {
        match self {
            TestKind::Range => 1.0,
            // One pass compares each id with every run: a count through a customer join
            // of one to four runs took 1.0, 0.99, 1.09 and 1.27 times one range's time, a
            // gathered bitmap 3.5 (SF 10, two threads, Zen 5).
            TestKind::Ranges(r) => 1.0 + 0.1 * r as f64,
            TestKind::RegisterBitmap => 2.0,
            TestKind::GatheredBitmap => 5.0,
            TestKind::LargeBitmap => 6.0,
        }
    }

    /// What testing one selected row costs the sparse path after the id is read, in
    /// unpacks: a scalar test (about 0.6 ns, ranges and bitmaps in L1), about 1.5 ns for
    /// a bitmap out of L1 (set from the alternated runs of R44, R50 and SSB Q3.4 at SF 10:
    /// 1 ns, the microbenchmark's figure for 300,000-key bitmaps, ordered R44 wrongly).
    fn sparse_test_cost(self) -> f64 {
        match self {
            TestKind::LargeBitmap => 15.0,
            _ => 6.0,
        }
    }
}

/// Whether `k` selected rows of an `n`-row morsel are read by unpacking the whole morsel
/// rather than by a get per row: from one row in eight (one in sixteen and one in
/// thirty-two measured 0.94x on the median queries at SF 10, two threads: close
/// ascending gets are cheap).
#[inline(always)]
pub(crate) fn unpacks_morsel(k: usize, n: usize) -> bool {
    k * 8 >= n
}

/// Whether the group steps and the aggregates read the `k` selected rows of an `n`-row
/// morsel by unpacking the morsel (compressed by the selection's mask, or gathered from)
/// rather than by a get per row: from one row in sixteen. Lower than a filter's
/// [`unpacks_morsel`] since the unpack by `vpermb` (one in sixteen had measured 0.94x
/// before it): SF 10, two threads, R15 1.20x, R18 1.15x.
#[inline(always)]
pub(crate) fn reads_morsel(k: usize, n: usize) -> bool {
    k * 16 >= n
}

/// [`reads_morsel`] where the selection is still the morsel's bitmask (every filter
/// tested whole morsels), so that reading by the mask needs no selection vector at all:
/// from one row in thirty-two.
#[inline(always)]
pub(crate) fn reads_by_mask(k: usize, n: usize) -> bool {
    k * 32 >= n
}

/// Whether the aggregates that fold the packed words straight (sums, dot products,
/// extremes: no ids stored) read columns at most `width` bits wide by the selection's
/// bitmask rather than by gets: [`reads_by_mask`], or below it while [`dense_by_width`]
/// holds. (Storing the ids by the mask, as the group steps do, did not pay below one row
/// in thirty-two: R11, whose supplier group step then read 1.6 % of the rows so, 0.87x.)
#[inline(always)]
pub(crate) fn folds_by_mask(k: usize, n: usize, width: u32) -> bool {
    reads_by_mask(k, n) || dense_by_width(k, n, width, BY_MASK_BITS)
}

/// Whether reading every id of an `n`-row morsel of a column `width` bits wide costs
/// less than `k` gets and what follows them: `k * bits >= n * width`. A whole-morsel
/// pass reads the column at close to memory bandwidth (at 6 bits, a range test over
/// `lo_quantity` ran at 62 GiB/s on two threads), so its cost grows with the width; a
/// get, its selection-vector entry and its test cost about the same at any width.
///
/// `bits` was set from alternated runs at SF 10, two threads (Zen 5): counts and sums
/// over `lo_quantity = 1` and one or two more fact filters, leaving 0.18-2 % of the
/// rows, with a last filter or a sum over columns of 4, 12, 17 and 24 bits.
#[inline(always)]
fn dense_by_width(k: usize, n: usize, width: u32, bits: usize) -> bool {
    k * bits >= n * width as usize
}

/// [`dense_by_width`]'s `bits` for a range test of the whole morsel: it paid from 0.1 %
/// of the rows at 4 bits (1.08x at 0.18 %), from 0.3-0.4 % at 12 bits (1.18x slower at
/// 0.18 %) and from about 0.6 % at 24 bits (1.06x at 0.9 %, 1.35x slower at 0.36 %):
/// about one row in 4096 per bit of width.
const WHOLE_TEST_BITS: usize = 4096;

/// [`dense_by_width`]'s `bits` for reading the aggregates' columns by the mask: it paid
/// at 0.36 % of the rows at 4 bits (1.6x), at 0.9 % at 17 bits (1.2x; 0.96x at 0.36 %)
/// and broke even at 0.9 % at 24 bits (0.77x at 0.36 %): one row in 2048 per bit.
const BY_MASK_BITS: usize = 2048;

/// A get's cost per selected row, in unpacks: 0.8 ns — set from alternated runs of R49
/// and R44 at SF 10 (ascending gets a few rows apart are cheap; a microbenchmark of gets
/// over a streamed column had 1.5-2.5 ns at one row in four to sixteen, which ordered
/// both wrongly).
const GET: f64 = 8.0;

/// Keeping a selected row by its bit in a whole-morsel test's mask, in unpacks.
const KEEP: f64 = 0.5;

/// A filter as the order model sees it: its test, the fraction of rows it keeps and,
/// for a bitmap join with a [`Hull`](super::Hull), the hull's runs and the fraction of
/// rows inside them (at least the bitmap's: every row it passes is inside).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Unit {
    pub(crate) kind: TestKind,
    pub(crate) selectivity: f64,
    pub(crate) hull: Option<(u32, f64)>,
}

impl From<(TestKind, f64)> for Unit {
    fn from((kind, selectivity): (TestKind, f64)) -> Unit {
        Unit {
            kind,
            selectivity,
            hull: None,
        }
    }
}

/// What a filter of `kind` costs per fact row, the first one (on every row) or a later
/// one by the probe's rule at `density`.
fn step_cost(kind: TestKind, first: bool, density: f64) -> f64 {
    const N: usize = 1 << 16;
    let k = (density * N as f64).round() as usize;
    if first {
        kind.dense_cost()
    } else if kind.whole_morsel_by_density(k, N) {
        // And the selected rows kept by their bits.
        kind.dense_cost() + density * KEEP
    } else if unpacks_morsel(k, N) {
        1.0 + density * kind.sparse_test_cost()
    } else {
        density * (GET + kind.sparse_test_cost())
    }
}

/// What `u` costs per fact row at `density` (first or not), and whether testing its hull
/// first is the cheaper way: the hull's ranges at `density`, then the bitmap on the rows
/// inside them. Either way the same rows pass.
fn unit_cost(u: &Unit, first: bool, density: f64) -> (f64, bool) {
    let alone = step_cost(u.kind, first, density);
    match u.hull {
        Some((runs, inside)) => {
            let hulled = step_cost(TestKind::Ranges(runs), first, density)
                + step_cost(u.kind, false, density * inside);
            if hulled < alone {
                (hulled, true)
            } else {
                (alone, false)
            }
        }
        None => (alone, false),
    }
}

/// The expected work per fact row of the filters run in `order`, the first on every row,
/// each later one by the probe's rule at the density the earlier ones leave (independent
/// predicates assumed), each bitmap join through its hull where that is cheaper.
fn expected_cost(order: &[Unit]) -> f64 {
    let mut density = 1.0f64;
    let mut cost = 0.0;
    for (i, u) in order.iter().enumerate() {
        cost += unit_cost(u, i == 0, density).0;
        density *= u.selectivity;
    }
    cost
}

/// At most this many filters are ordered by trying every order (7! = 5,040); more by
/// rank alone.
const EXHAUSTIVE_MAX: usize = 7;

/// Orders `steps`: the filters in the order of least [`expected_cost`] (ties keep the
/// more selective first), then the group steps in their order. A bitmap join keeps its
/// hull only where testing the hull first is the cheaper way at its place in that order.
pub(super) fn order(steps: &mut Vec<Step>) {
    let (mut filters, mut groups) = (Vec::new(), Vec::new());
    for s in std::mem::take(steps) {
        match TestKind::of(&s.test) {
            Some(kind) => filters.push((s, kind)),
            None => groups.push(s),
        }
    }
    filters.sort_by(|x, y| x.0.selectivity.total_cmp(&y.0.selectivity));
    let units: Vec<Unit> = filters
        .iter()
        .map(|(s, kind)| Unit {
            kind: *kind,
            selectivity: s.selectivity,
            hull: s
                .hull
                .as_ref()
                .map(|h| (h.runs.len() as u32, h.selectivity)),
        })
        .collect();
    let best = if units.len() <= EXHAUSTIVE_MAX {
        cheapest_order(&units)
    } else {
        let rank = |u: &Unit| u.kind.dense_cost() / (1.0 - u.selectivity).max(1e-9);
        let mut idx: Vec<usize> = (0..units.len()).collect();
        idx.sort_by(|&a, &b| rank(&units[a]).total_cmp(&rank(&units[b])));
        idx
    };
    let mut slots: Vec<Option<Step>> = filters.into_iter().map(|(s, _)| Some(s)).collect();
    let mut density = 1.0f64;
    for (pos, i) in best.into_iter().enumerate() {
        let Some(mut s) = slots[i].take() else {
            continue;
        };
        if !unit_cost(&units[i], pos == 0, density).1 {
            s.hull = None;
        }
        density *= units[i].selectivity;
        steps.push(s);
    }
    steps.extend(groups);
}

/// The permutation of `units` with the least [`expected_cost`] (the first found among
/// equals, in lexicographic order of indexes).
fn cheapest_order(units: &[Unit]) -> Vec<usize> {
    fn walk(
        units: &[Unit],
        prefix: &mut Vec<usize>,
        used: &mut Vec<bool>,
        best: &mut (f64, Vec<usize>),
    ) {
        if prefix.len() == units.len() {
            let order: Vec<Unit> = prefix.iter().map(|&i| units[i]).collect();
            let c = expected_cost(&order);
            if c < best.0 - 1e-12 {
                *best = (c, prefix.clone());
            }
            return;
        }
        for i in 0..units.len() {
            if !used[i] {
                used[i] = true;
                prefix.push(i);
                walk(units, prefix, used, best);
                prefix.pop();
                used[i] = false;
            }
        }
    }
    let mut best = (f64::INFINITY, (0..units.len()).collect());
    walk(
        units,
        &mut Vec::with_capacity(units.len()),
        &mut vec![false; units.len()],
        &mut best,
    );
    best.1
}

#[cfg(test)]
mod tests {
    use super::{TestKind, Unit};
    use TestKind::{GatheredBitmap as S, LargeBitmap as G, Range as R, RegisterBitmap as B};

    fn units(kinds: &[(TestKind, f64)]) -> Vec<Unit> {
        kinds.iter().map(|&k| Unit::from(k)).collect()
    }

    fn cheapest_order(kinds: &[(TestKind, f64)]) -> Vec<usize> {
        super::cheapest_order(&units(kinds))
    }

    fn expected_cost(kinds: &[(TestKind, f64)]) -> f64 {
        super::expected_cost(&units(kinds))
    }

    /// Below a sixteenth of the rows, a range tests the whole morsel of a narrow column
    /// and not of a wide one, and the packed aggregates read by the mask likewise; the
    /// bitmaps keep their density rules (a byte-wide one only where the kernels look it
    /// up by bytes).
    #[test]
    fn narrow_columns_are_read_whole_at_lower_densities() {
        use super::{folds_by_mask, reads_by_mask};
        const N: usize = 1 << 16;
        let k = |share: f64| (share * N as f64) as usize;
        // 4 bits: from about 0.1 %; 12 bits: 0.3 %; 24 bits: 0.6 %.
        assert!(R.whole_morsel(k(0.0015), N, 4));
        assert!(!R.whole_morsel(k(0.0015), N, 12));
        assert!(R.whole_morsel(k(0.004), N, 12));
        assert!(!R.whole_morsel(k(0.0036), N, 24));
        assert!(R.whole_morsel(k(0.009), N, 24));
        assert!(TestKind::Ranges(3).whole_morsel(k(0.009), N, 24));
        // At 32 bits, from one row in 128.
        assert!(R.whole_morsel(N / 128, N, 32));
        assert!(!R.whole_morsel(N / 128 - 1, N, 32));
        // Bitmaps: gathered ones only from half the rows; one in registers over 12-bit
        // ids only from a sixteenth.
        assert!(!S.whole_morsel(N / 2 - 1, N, 1));
        assert!(!G.whole_morsel(N / 2 - 1, N, 1));
        assert!(!B.whole_morsel(k(0.05), N, 12));
        assert_eq!(
            B.whole_morsel(k(0.05), N, 3),
            pmolap_kernels::bits::active().bitmap_by_bytes(3)
        );
        // Folding the aggregates by the mask: from a thirty-second at any width, below it
        // by the width (ids stored by the mask keep the density rule).
        assert!(folds_by_mask(N / 32, N, 32) && reads_by_mask(N / 32, N));
        assert!(!reads_by_mask(N / 32 - 1, N));
        assert!(folds_by_mask(k(0.004), N, 4));
        assert!(!folds_by_mask(k(0.004), N, 17));
        assert!(folds_by_mask(k(0.009), N, 17));
        assert!(!folds_by_mask(k(0.009), N, 24));
        // No column read (`COUNT(*)`): any density.
        assert!(folds_by_mask(1, N, 0));
    }

    #[test]
    fn the_cheapest_order_follows_the_probes_rules() {
        // R50: a join keeping almost no rows through a gathered bitmap goes first, though
        // a range is cheaper per row: every later step then reads a few rows.
        assert_eq!(cheapest_order(&[(G, 0.0005), (R, 0.341), (B, 0.389)])[0], 0);
        // SSB Q3.4: a date join in registers keeping 18 % before a customer join keeping
        // 8 % through a gathered bitmap, which then tests few rows.
        assert_eq!(cheapest_order(&[(G, 0.08), (B, 0.18)]), [1, 0]);
        // R35: a range keeping 46 % before a supplier join (a bitmap in L1) keeping 91 %.
        assert_eq!(cheapest_order(&[(S, 0.906), (R, 0.461)]), [1, 0]);
        // R49: two ranges, then the supplier join at one row in nine (cheap gets).
        assert_eq!(
            cheapest_order(&[(R, 0.197), (S, 0.237), (R, 0.556)]),
            [0, 2, 1]
        );
        // R44: a range at one row in eighteen before the customer join out of L1.
        let r44 = [(B, 0.057), (R, 0.563), (G, 0.395), (G, 0.537)];
        assert_eq!(cheapest_order(&r44), [0, 1, 2, 3]);
        // SSB Q3.2: the supplier join (bitmap in L1, 3.6 %) before the customer's (4.1 %).
        assert_eq!(
            cheapest_order(&[(G, 0.041), (S, 0.036), (B, 0.906)]),
            [1, 0, 2]
        );
        // Two ranges: the more selective first.
        assert_eq!(cheapest_order(&[(R, 0.6), (R, 0.2)]), [1, 0]);
        // The cost is the first step's dense test plus what the later ones cost at the
        // density they see: a gathered bitmap at 60 % tests the whole morsel.
        assert_eq!(expected_cost(&[(R, 0.6), (S, 0.5)]), 1.0 + 5.0 + 0.6 * 0.5);
        assert!(expected_cost(&[(R, 0.01), (S, 0.5)]) < 1.0 + 1.0);
    }

    /// A bitmap join through its hull: the hull's ranges on every row, then the bitmap
    /// on the rows inside, where that is cheaper than the bitmap alone.
    #[test]
    fn a_narrow_hull_is_tested_before_its_bitmap() {
        use super::{order, unit_cost, Step, Test};
        use crate::plan::Hull;
        // R32: two cities of customers (0.8 % of the fact rows), a market segment among
        // them (0.4 %): two range tests and the bitmap on few rows, not a gather per row.
        let r32 = Unit {
            kind: G,
            selectivity: 0.004,
            hull: Some((2, 0.008)),
        };
        let (cost, hulled) = unit_cost(&r32, true, 1.0);
        assert!(hulled);
        assert!(cost < G.dense_cost() / 2.0, "{cost}");
        // A hull holding most rows (a container among all parts) is not worth its ranges.
        let wide = Unit {
            hull: Some((4, 0.9)),
            ..r32
        };
        assert_eq!(unit_cost(&wide, true, 1.0), (G.dense_cost(), false));
        // Late in the order, at a few rows: a wide hull's gets and tests cost more than
        // they spare the bitmap; a narrow one still spares it the dearer tests.
        assert!(!unit_cost(&wide, false, 0.01).1);
        assert!(unit_cost(&r32, false, 0.01).1);
        // `order` keeps the hull of the step where it is cheaper and drops the other's.
        let step = |what: &str, selectivity, hull: Option<(usize, f64)>| Step {
            what: what.into(),
            col: 0,
            test: Test::Bits(vec![0; 4096]),
            stride: 0,
            selectivity,
            group_only: false,
            hull: hull.map(|(r, h)| Hull {
                runs: vec![(0, 1); r],
                selectivity: h,
            }),
        };
        let mut steps = vec![
            step("wide", 0.5, Some((4, 0.9))),
            step("narrow", 0.004, Some((2, 0.008))),
        ];
        order(&mut steps);
        let got: Vec<(&str, bool)> = steps.iter().map(|s| (&*s.what, s.hull.is_some())).collect();
        assert_eq!(got, [("narrow", true), ("wide", false)]);
    }
}
