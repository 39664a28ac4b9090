//! What each thread group reads: node-local copies of the join filters (replication) and
//! the plan's columns and steps as the group sees them (striped parts, replicas).

use pmolap_tier::{Region, RegionOptions, TierSpec};

use super::layout::{Layout, StripedFact};
use super::morsel::{ColRef, LutRef, StepRef, TestRef};
use crate::error::Result;
use crate::plan::{Plan, Test};

/// Per thread group: the node-local copy of each step's filter (`None`: read the plan's).
pub(super) type Replicas = Vec<Vec<Option<Region>>>;

/// Per thread group: its columns and steps.
pub(super) type GroupView<'a> = (Vec<ColRef<'a>>, Vec<StepRef<'a>>);

/// Copies `data` onto `node`'s memory (a replicated join filter).
fn node_copy<T: bytemuck::Pod>(data: &[T], node: u32, opts: &RegionOptions) -> Result<Region> {
    let src: &[u8] = bytemuck::cast_slice(data);
    let mut r = Region::new(&TierSpec::Dram { node: Some(node) }, src.len().max(8), opts)?;
    r.as_mut_slice()[..src.len()].copy_from_slice(src);
    Ok(r)
}

/// Node-local copies of the join filters (replication), made per run: they are the
/// query's own derived structures. Returns them and their bytes.
pub(super) fn replicate_filters(
    plan: &Plan<'_>,
    layout: &Layout,
    region: &RegionOptions,
) -> Result<(Replicas, u64)> {
    let mut replicas: Replicas = Vec::new();
    let mut replicated_bytes = 0u64;
    for g in &layout.groups {
        let mut v = Vec::new();
        for st in &plan.steps {
            let r = match (layout.replicated, g.node, &st.test) {
                (true, Some(node), Test::Lookup(l)) => Some(node_copy(l.bytes(), node, region)?),
                (true, Some(node), Test::Bits(b)) => Some(node_copy(b, node, region)?),
                _ => None,
            };
            replicated_bytes += r.as_ref().map_or(0, |r| r.len() as u64);
            v.push(r);
        }
        replicas.push(v);
    }
    Ok((replicas, replicated_bytes))
}

/// The columns and steps of every thread group of `layout`.
pub(super) fn group_views<'a>(
    plan: &'a Plan<'_>,
    layout: &Layout,
    striped: &'a StripedFact,
    replicas: &'a Replicas,
) -> Vec<GroupView<'a>> {
    (0..layout.groups.len())
        .map(|gi| {
            let cols = group_cols(plan, striped, gi);
            let steps = group_steps(plan, &replicas[gi]);
            (cols, steps)
        })
        .collect()
}

/// Group `gi`'s columns: its striped part where there is one, else the plan's.
fn group_cols<'a>(plan: &'a Plan<'_>, striped: &'a StripedFact, gi: usize) -> Vec<ColRef<'a>> {
    plan.cols
        .iter()
        .map(|c| match striped.cols.get(&c.name) {
            Some(parts) => {
                let (r, base) = &parts[gi];
                ColRef {
                    words: bytemuck::cast_slice(r.as_slice()),
                    width: c.width,
                    base: *base,
                }
            }
            None => ColRef {
                words: c.words,
                width: c.width,
                base: 0,
            },
        })
        .collect()
}

/// The plan's steps reading the group's replicas where there are some; a step with a
/// [`Hull`](crate::plan::Hull) is two, its hull's ranges and then its bitmap (which
/// the probe then tests only on the rows inside them).
fn group_steps<'a>(plan: &'a Plan<'_>, replicas: &'a [Option<Region>]) -> Vec<StepRef<'a>> {
    let mut out = Vec::with_capacity(plan.steps.len() + 1);
    for (st, rep) in plan.steps.iter().zip(replicas) {
        let test = match (&st.test, rep) {
            (Test::Range { lo, span }, _) => TestRef::Range {
                lo: *lo,
                span: *span,
            },
            (Test::Bits(b), None) => TestRef::Bits(b),
            (Test::Bits(b), Some(r)) => {
                TestRef::Bits(&bytemuck::cast_slice(r.as_slice())[..b.len()])
            }
            (Test::Ranges(r), _) => TestRef::Ranges(r),
            (Test::Code { len }, _) => TestRef::Code { len: *len },
            (Test::Lookup(l), None) => TestRef::Lookup(LutRef::of(l, l.bytes())),
            (Test::Lookup(l), Some(r)) => {
                TestRef::Lookup(LutRef::of(l, &r.as_slice()[..l.bytes().len()]))
            }
        };
        if let Some(h) = &st.hull {
            out.push(StepRef {
                col: st.col,
                test: TestRef::Ranges(&h.runs),
                stride: 0,
            });
        }
        out.push(StepRef {
            col: st.col,
            test,
            stride: st.stride,
        });
    }
    out
}
