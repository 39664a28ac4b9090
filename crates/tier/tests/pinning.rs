//! Guards thread placement plans on recorded topologies: physical cores before their
//! hyperthread siblings, NUMA-node cpulists, and refusal of CPU-less nodes.

use std::path::Path;

use pmolap_tier::{Pinning, Topology};

fn fixture(name: &str) -> Topology {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/topology")
        .join(name);
    Topology::detect_at(&root).unwrap()
}

#[test]
fn cores_fill_physical_cores_before_siblings() {
    let t = fixture("optane-2socket");
    let plan = Pinning::Cores.plan(&t, Some(0), 20).unwrap();
    let cpus: Vec<usize> = plan.iter().map(|c| c[0]).collect();
    let mut expected: Vec<usize> = (0..18).collect();
    expected.extend([36, 37]);
    assert_eq!(cpus, expected);
    // Node 1 gets the other socket's cores.
    let plan = Pinning::Cores.plan(&t, Some(1), 2).unwrap();
    assert_eq!(plan, vec![vec![18], vec![19]]);
}

#[test]
fn numa_pins_to_the_whole_node() {
    let t = fixture("optane-2socket");
    let plan = Pinning::Numa.plan(&t, Some(1), 3).unwrap();
    assert_eq!(plan.len(), 3);
    let mut expected: Vec<usize> = (18..36).collect();
    expected.extend(54..72);
    assert!(plan.iter().all(|c| *c == expected), "{:?}", plan[0]);
}

#[test]
fn none_leaves_threads_free_and_cpu_less_nodes_are_refused() {
    let t = fixture("cxl-1node");
    assert_eq!(
        Pinning::None.plan(&t, None, 2).unwrap(),
        vec![Vec::<usize>::new(); 2]
    );
    let e = Pinning::Cores.plan(&t, Some(1), 1).unwrap_err().to_string();
    assert!(e.contains("node 1 has no CPUs"), "{e}");
    let e = Pinning::Cores.plan(&t, Some(9), 1).unwrap_err().to_string();
    assert!(e.contains("NUMA node 9"), "{e}");
}

#[test]
fn pinning_names_round_trip() {
    for p in [Pinning::None, Pinning::Numa, Pinning::Cores] {
        assert_eq!(p.to_string().parse::<Pinning>().unwrap(), p);
    }
    assert!("socket".parse::<Pinning>().is_err());
}
