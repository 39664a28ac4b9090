//! Writing whole `.tbl` files in parallel: the table is cut into fixed-size chunks
//! (partitions), worker threads format chunks into buffers, and the caller's thread
//! writes them in order. The bytes do not depend on the thread count.

use std::io::Write;
use std::sync::mpsc;

use crate::scale::Scale;
use crate::{
    CustomerGenerator, DateGenerator, Error, LineOrderGenerator, PartGenerator, Result,
    SupplierGenerator, Table,
};

/// Rows per chunk of the dimension tables (and orders per chunk of lineorder, ≈ 4 rows
/// each): a few MiB of text, large enough to amortise the hand-off, small enough to keep
/// memory bounded (threads × 3 chunks in flight).
const ROWS_PER_CHUNK: u64 = 65_536;
const ORDERS_PER_CHUNK: u64 = 16_384;
/// Chunks each worker may have formatted but not yet written.
const CHUNKS_IN_FLIGHT: usize = 2;

/// Number of rows `table` has at scale factor `sf` (for lineorder this draws the
/// line-count stream of every order: ~1.5 million draws per SF unit).
pub fn row_count(table: Table, sf: f64) -> Result<u64> {
    let scale = Scale::new(sf)?;
    Ok(match table {
        Table::Customer => scale.customer_rows(),
        Table::Date => scale.date_rows(),
        Table::LineOrder => LineOrderGenerator::with_scale(&scale, 1, 1)?.row_count(),
        Table::Part => scale.part_rows(),
        Table::Supplier => scale.supplier_rows(),
    })
}

/// How many chunks `table` is cut into at `scale`.
fn chunk_count(table: Table, scale: &Scale) -> usize {
    let (units, per_chunk) = match table {
        Table::Customer => (scale.customer_rows(), ROWS_PER_CHUNK),
        Table::Date => (scale.date_rows(), ROWS_PER_CHUNK),
        Table::LineOrder => (scale.orders(), ORDERS_PER_CHUNK),
        Table::Part => (scale.part_rows(), ROWS_PER_CHUNK),
        Table::Supplier => (scale.supplier_rows(), ROWS_PER_CHUNK),
    };
    units.div_ceil(per_chunk).max(1) as usize
}

/// A generous estimate of one chunk's `.tbl` size, to allocate buffers once.
fn chunk_bytes_estimate(table: Table, scale: &Scale, chunks: usize) -> usize {
    // Longest plausible line of each table (bytes, newline included) × units per row.
    let (units, bytes_per_unit) = match table {
        Table::Customer => (scale.customer_rows(), 110),
        Table::Date => (scale.date_rows(), 140),
        Table::LineOrder => (scale.orders(), 4 * 105),
        Table::Part => (scale.part_rows(), 100),
        Table::Supplier => (scale.supplier_rows(), 100),
    };
    (units.div_ceil(chunks as u64) * bytes_per_unit) as usize
}

/// Appends chunk `part` of `part_count` to `buf` as `.tbl` text; returns its row count.
fn format_chunk(
    table: Table,
    scale: &Scale,
    part: usize,
    part_count: usize,
    buf: &mut Vec<u8>,
) -> Result<u64> {
    fn write_all<T>(
        rows: impl Iterator<Item = T>,
        buf: &mut Vec<u8>,
        w: fn(&T, &mut Vec<u8>),
    ) -> u64 {
        let mut n = 0;
        for row in rows {
            w(&row, buf);
            n += 1;
        }
        n
    }
    Ok(match table {
        Table::Customer => write_all(
            CustomerGenerator::with_scale(scale, part, part_count)?.iter(),
            buf,
            crate::Customer::write_tbl,
        ),
        Table::Date => write_all(
            DateGenerator::with_scale(scale, part, part_count)?.iter(),
            buf,
            crate::Date::write_tbl,
        ),
        Table::LineOrder => write_all(
            LineOrderGenerator::with_scale(scale, part, part_count)?.iter(),
            buf,
            crate::LineOrder::write_tbl,
        ),
        Table::Part => write_all(
            PartGenerator::with_scale(scale, part, part_count)?.iter(),
            buf,
            crate::Part::write_tbl,
        ),
        Table::Supplier => write_all(
            SupplierGenerator::with_scale(scale, part, part_count)?.iter(),
            buf,
            crate::Supplier::write_tbl,
        ),
    })
}

/// Writes the complete `.tbl` text of `table` at scale factor `sf` to `out`, formatting
/// with `threads` threads (0 is taken as 1). Returns the number of rows written.
pub fn generate_table<W: Write + ?Sized>(
    table: Table,
    sf: f64,
    out: &mut W,
    threads: usize,
) -> Result<u64> {
    generate_table_with_progress(table, sf, out, threads, |_| {})
}

/// [`generate_table`], calling `progress(rows)` on the caller's thread after each chunk is
/// written with the number of rows it held.
pub fn generate_table_with_progress<W: Write + ?Sized>(
    table: Table,
    sf: f64,
    out: &mut W,
    threads: usize,
    mut progress: impl FnMut(u64),
) -> Result<u64> {
    let scale = Scale::new(sf)?;
    let chunks = chunk_count(table, &scale);
    let threads = threads.clamp(1, chunks);
    let chunk_bytes = chunk_bytes_estimate(table, &scale, chunks);
    let mut total = 0;
    if threads == 1 {
        let mut buf = Vec::with_capacity(chunk_bytes);
        for part in 1..=chunks {
            buf.clear();
            let rows = format_chunk(table, &scale, part, chunks, &mut buf)?;
            out.write_all(&buf)?;
            total += rows;
            progress(rows);
        }
        return Ok(total);
    }
    std::thread::scope(|scope| -> Result<u64> {
        let mut filled = Vec::with_capacity(threads);
        let mut recycle = Vec::with_capacity(threads);
        for worker in 0..threads {
            let (full_tx, full_rx) = mpsc::sync_channel::<Result<(u64, Vec<u8>)>>(CHUNKS_IN_FLIGHT);
            let (empty_tx, empty_rx) = mpsc::channel::<Vec<u8>>();
            filled.push(full_rx);
            recycle.push(empty_tx);
            let scale = &scale;
            scope.spawn(move || {
                // Worker `worker` formats chunks worker, worker + threads, ...; it stops
                // when the writer hangs up (on an error) or after its last chunk.
                // Buffers circulate: at most CHUNKS_IN_FLIGHT + 1 per worker exist, so
                // memory stays bounded and pages are reused rather than faulted in anew.
                let mut created = 0;
                for part in (worker + 1..=chunks).step_by(threads) {
                    let mut buf = match empty_rx.try_recv() {
                        Ok(buf) => buf,
                        Err(_) if created <= CHUNKS_IN_FLIGHT => {
                            created += 1;
                            Vec::with_capacity(chunk_bytes)
                        }
                        Err(_) => match empty_rx.recv() {
                            Ok(buf) => buf,
                            Err(_) => return,
                        },
                    };
                    buf.clear();
                    let r = format_chunk(table, scale, part, chunks, &mut buf).map(|n| (n, buf));
                    let failed = r.is_err();
                    if full_tx.send(r).is_err() || failed {
                        return;
                    }
                }
            });
        }
        for part in 0..chunks {
            let w = part % threads;
            let (rows, buf) = filled[w].recv().map_err(|_| Error::WorkerFailed)??;
            out.write_all(&buf)?;
            // The worker may already be gone after its last chunk; then the buffer is freed.
            let _ = recycle[w].send(buf);
            total += rows;
            progress(rows);
        }
        Ok(total)
    })
}
