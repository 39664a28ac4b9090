//! TPC-H on a real PostgreSQL server per storage tier (DaMoN'21 §4): the unmodified-engine
//! side of pmolap. One private cluster per run ([`server`]), one tablespace and database
//! per tier path ([`tiers`]), data from the `tpchgen` crate ([`data`]) loaded with
//! parallel COPY streams and measured against a single-stream `psql \copy` ([`load`]),
//! the 22 queries ([`queries`]) cold and warm per tier ([`run`]), one typed `pg-tpch`
//! document ([`results`]). Before any work the scale factor is checked against free space
//! and RAM ([`sizing`]); initdb runs on a private share directory so that its own backends
//! keep their shared memory in the cluster directory ([`share`]). docs/pg.md describes the
//! settings and the document.
#![forbid(unsafe_code)]

pub mod data;
pub mod error;
pub mod load;
pub mod queries;
pub mod results;
pub mod run;
pub mod server;
pub mod settings;
pub mod share;
pub mod sizing;
pub mod tiers;

pub use error::{Error, Result};
pub use results::{TpchReport, FORMAT_VERSION, KIND};
pub use run::{run, Event, TpchOptions};
