//! `pmolap ssb load`: the five SSB tables straight from the generators (no text round
//! trip) into domain-encoded column-store tables, one directory per table, then reopened
//! with checksums verified on the requested tier.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use pmolap_ssb::{
    row_count, CustomerGenerator, DateGenerator, LineOrderGenerator, PartGenerator,
    SupplierGenerator, Table,
};
use pmolap_store::{
    DatabaseWriter, DbWriteOptions, OpenOptions, Placement, Schema, Table as StoreTable,
    TableBuilder, Value, WriteOptions,
};
use pmolap_tier::TierSpec;

/// The SSB schema of `table`, with the column names of the SSB paper.
pub fn ssb_schema(table: Table) -> Result<Schema> {
    Ok(pmolap_engine::ssb::schema(&table.to_string())?)
}

/// Pushes every row of `table` at `sf` into a builder, ticking `pb` per 64 Ki rows.
fn build(table: Table, sf: f64, pb: &ProgressBar) -> Result<TableBuilder> {
    let mut b = TableBuilder::new(ssb_schema(table)?);
    let mut n = 0u64;
    let tick = |n: &mut u64| -> Result<()> {
        *n += 1;
        if n.is_multiple_of(65_536) {
            pb.inc(65_536);
            pmolap_tier::signal::check()?;
        }
        Ok(())
    };
    let ctx = || format!("generating {table} at SF {sf}");
    match table {
        Table::LineOrder => {
            for r in LineOrderGenerator::new(sf, 1, 1).with_context(ctx)? {
                b.push_row(&[
                    Value::Int(r.orderkey as i64),
                    Value::Int(r.linenumber.into()),
                    Value::Int(r.custkey.into()),
                    Value::Int(r.partkey.into()),
                    Value::Int(r.suppkey.into()),
                    Value::Int(r.orderdate.into()),
                    Value::Str(r.orderpriority),
                    Value::Int(r.shippriority.into()),
                    Value::Int(r.quantity.into()),
                    Value::Int(r.extendedprice.into()),
                    Value::Int(r.ordtotalprice.into()),
                    Value::Int(r.discount.into()),
                    Value::Int(r.revenue.into()),
                    Value::Int(r.supplycost.into()),
                    Value::Int(r.tax.into()),
                    Value::Int(r.commitdate.into()),
                    Value::Str(r.shipmode),
                ])?;
                tick(&mut n)?;
            }
        }
        Table::Part => {
            for r in PartGenerator::new(sf, 1, 1).with_context(ctx)? {
                b.push_row(&[
                    Value::Int(r.partkey.into()),
                    Value::Str(&r.name_text()),
                    Value::Str(&r.mfgr_text()),
                    Value::Str(&r.category_text()),
                    Value::Str(&r.brand_text()),
                    Value::Str(r.color),
                    Value::Str(r.part_type),
                    Value::Int(r.size.into()),
                    Value::Str(r.container),
                ])?;
                tick(&mut n)?;
            }
        }
        Table::Supplier => {
            for r in SupplierGenerator::new(sf, 1, 1).with_context(ctx)? {
                b.push_row(&[
                    Value::Int(r.suppkey.into()),
                    Value::Str(&r.name()),
                    Value::Str(&r.address),
                    Value::Str(&r.city),
                    Value::Str(r.nation),
                    Value::Str(r.region),
                    Value::Str(&r.phone),
                ])?;
                tick(&mut n)?;
            }
        }
        Table::Customer => {
            for r in CustomerGenerator::new(sf, 1, 1).with_context(ctx)? {
                b.push_row(&[
                    Value::Int(r.custkey.into()),
                    Value::Str(&r.name()),
                    Value::Str(&r.address),
                    Value::Str(&r.city),
                    Value::Str(r.nation),
                    Value::Str(r.region),
                    Value::Str(&r.phone),
                    Value::Str(r.mktsegment),
                ])?;
                tick(&mut n)?;
            }
        }
        Table::Date => {
            for r in DateGenerator::new(sf, 1, 1).with_context(ctx)? {
                b.push_row(&[
                    Value::Int(r.datekey.into()),
                    Value::Str(&r.date),
                    Value::Str(r.day_of_week),
                    Value::Str(r.month),
                    Value::Int(r.year.into()),
                    Value::Int(r.year_month_num.into()),
                    Value::Str(&r.year_month),
                    Value::Int(r.day_num_in_week.into()),
                    Value::Int(r.day_num_in_month.into()),
                    Value::Int(r.day_num_in_year.into()),
                    Value::Int(r.month_num_in_year.into()),
                    Value::Int(r.week_num_in_year.into()),
                    Value::Str(r.selling_season),
                    Value::Int(r.last_day_in_week_fl.into()),
                    Value::Int(r.last_day_in_month_fl.into()),
                    Value::Int(r.holiday_fl.into()),
                    Value::Int(r.weekday_fl.into()),
                ])?;
                tick(&mut n)?;
            }
        }
    }
    pb.inc(n % 65_536);
    Ok(b)
}

/// Generates (or, with `tbl_dir`, reads dbgen's `<table>.tbl` files), encodes and writes
/// the five SSB tables as one new database generation in `out`, publishes them together
/// (a failure, a missing file or Ctrl-C at any point leaves the old database as it was),
/// then reopens each on `tier` (`home`: where it was written) with checksums verified.
pub fn load(sf: f64, tier: &str, out: &Path, tbl_dir: Option<&Path>, quiet: bool) -> Result<()> {
    let placement = if tier == "home" {
        Placement::home()
    } else {
        Placement::all(tier.parse::<TierSpec>().context("--tier")?)
    };
    if !(sf > 0.0 && sf.is_finite()) {
        anyhow::bail!("--sf {sf}: the scale factor must be a positive number");
    }
    if let Some(d) = tbl_dir {
        // Every input first: a missing file fails before anything is written.
        for table in Table::ALL {
            let f = d.join(table.file_name());
            if !f.is_file() {
                anyhow::bail!(
                    "{}: missing (--tbl needs all five SSB tables); nothing was written",
                    f.display()
                );
            }
        }
    }
    let mut meta = std::collections::BTreeMap::new();
    meta.insert("workload".to_string(), serde_json::json!("ssb"));
    match tbl_dir {
        Some(d) => meta.insert(
            "source".into(),
            serde_json::json!(format!("tbl:{}", d.display())),
        ),
        None => meta.insert("sf".into(), serde_json::json!(sf)),
    };
    let mut writer = DatabaseWriter::begin(
        out,
        &DbWriteOptions {
            meta,
            ..Default::default()
        },
    )
    .with_context(|| format!("loading into {}", out.display()))?;
    let mut lines = Vec::new();
    for table in Table::ALL {
        pmolap_tier::signal::check()?;
        let rows = match tbl_dir {
            Some(_) => 0,
            None => row_count(table, sf).with_context(|| format!("counting {table} rows"))?,
        };
        let pb = if quiet {
            ProgressBar::hidden()
        } else {
            ProgressBar::new(rows)
        };
        pb.set_style(
            ProgressStyle::with_template("{msg:>10} {bar:30} {pos}/{len} rows")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        pb.set_message(table.to_string());
        let t0 = Instant::now();
        let builder = match tbl_dir {
            Some(d) => pmolap_store::load_tbl(&d.join(table.file_name()), &ssb_schema(table)?)
                .with_context(|| format!("loading {table} from {}", d.display()))?,
            None => build(table, sf, &pb)?,
        };
        pmolap_tier::signal::check()?;
        let name = table.to_string();
        writer
            .add_table(&name, builder, &WriteOptions::default())
            .with_context(|| format!("writing the {table} table into {}", out.display()))?;
        pb.finish_and_clear();
        lines.push((table, t0.elapsed().as_secs_f64()));
    }
    pmolap_tier::signal::check()?;
    writer
        .commit()
        .with_context(|| format!("publishing the database {}", out.display()))?;
    let snapshot = pmolap_store::DatabaseSnapshot::open(out)?;
    for (table, written) in lines {
        let dir = snapshot
            .tables()
            .iter()
            .find(|(n, _)| *n == table.to_string())
            .map(|(_, d)| d.clone())
            .context("a table just published is listed")?;
        let t1 = Instant::now();
        let opened = StoreTable::open_with(&dir, &placement, &OpenOptions::default())
            .with_context(|| format!("reopening {} on {tier}", dir.display()))?;
        if !quiet {
            println!(
                "{table:>10}: {} rows written in {written:.2} s, reopened on {tier} with checksums verified in {:.2} s -> {}",
                opened.rows(),
                t1.elapsed().as_secs_f64(),
                out.join(table.to_string()).display()
            );
        }
    }
    Ok(())
}
