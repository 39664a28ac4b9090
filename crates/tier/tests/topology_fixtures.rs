//! Guards topology discovery: recorded sysfs/procfs trees (a 1-node VM, a 2-socket Optane
//! server, a server with a CPU-less CXL node) must be read into the right `Topology`, bad
//! trees must give one-line errors naming the file, and `detect()` must work on this machine.

use std::fs;
use std::path::{Path, PathBuf};

use pmolap_tier::topology::{parse_cpulist, NodeKind, Topology};
use pmolap_tier::Error;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/topology")
        .join(name)
}

fn detect(name: &str) -> Topology {
    Topology::detect_at(&fixture(name)).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

fn specs(t: &Topology) -> Vec<String> {
    t.tiers().into_iter().map(|t| t.spec).collect()
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

#[test]
fn vm_1node() {
    let t = detect("vm-1node");
    assert_eq!(t.cpu_model, "Intel(R) Xeon(R) Processor");
    assert!(t.cpu_features.avx2);
    assert!(
        !t.cpu_features.avx512f,
        "the fixture's flags have no avx512f"
    );
    assert_eq!(t.kernel_release, "6.18.44-fc-v669");
    assert_eq!(t.cpus.len(), 2);
    assert_eq!(t.cpus.iter().map(|c| c.id).collect::<Vec<_>>(), vec![0, 1]);
    assert!(t
        .cpus
        .iter()
        .all(|c| c.node == Some(0) && c.package_id == 0));
    assert_eq!(t.nodes.len(), 1);
    let n = &t.nodes[0];
    assert_eq!((n.id, n.kind), (0, NodeKind::Dram));
    assert_eq!(n.cpus, vec![0, 1]);
    assert_eq!(n.distances, vec![10]);
    assert_eq!(n.mem_total, 8_612_044 * 1024);
    assert_eq!(n.mem_free, 5_526_508 * 1024);
    assert_eq!(n.memory_tier, Some(4));
    assert!(n.hmat.is_empty());
    assert_eq!(t.memory_nodes(), vec![0]);
    assert_eq!(t.node_of_cpu(1), Some(0));
    assert_eq!(t.node_of_cpu(2), None);
    assert!(t.dax_devices.is_empty());
    assert!(t.dax_mounts.is_empty());
    assert_eq!(t.cpus_physical_first(None), vec![0, 1]);

    let tiers = t.tiers();
    assert_eq!(tiers[0].spec, "dram");
    assert_eq!(tiers[0].capacity, 8_612_044 * 1024);
    assert_eq!(tiers[0].persistence, "none");
    assert_eq!(tiers[1].spec, "file:/dev/shm");
    assert_eq!(tiers[1].capacity, 24_684_084 * 1024);
    // The current directory (the crate, on the fixture's ext4 `/`) is the last tier.
    // ... twice: with a warm page cache and cold.
    for (t, cold) in [(&tiers[2], false), (&tiers[3], true)] {
        assert!(t.spec.starts_with("file:/"), "{t:?}");
        assert_eq!(t.class, pmolap_tier::TierClass::Disk);
        assert_eq!(t.cold, cold);
        assert_eq!(t.kind, "file (ext4 page cache)");
        assert_eq!(t.persistence, "msync");
        assert_eq!(t.capacity, 536_870_912 * 512);
    }
    assert!(tiers[3].name.ends_with(" cold"), "{}", tiers[3].name);
    assert_eq!(tiers[0].class, pmolap_tier::TierClass::Dram);
    assert_eq!(tiers.len(), 4);
    // The spec strings are valid tier specs.
    for s in specs(&t) {
        s.parse::<pmolap_tier::TierSpec>().unwrap();
    }
}

#[test]
fn optane_2socket() {
    let t = detect("optane-2socket");
    assert_eq!(t.cpu_model, "Intel(R) Xeon(R) Gold 5220S CPU @ 2.70GHz");
    assert!(t.cpu_features.avx512f && t.cpu_features.avx2);
    assert!(t.cpu_features.clwb && t.cpu_features.clflushopt && t.cpu_features.clflush);
    assert!(!t.cpu_features.movdir64b);
    assert_eq!(t.kernel_release, "5.15.0-91-generic");
    assert_eq!(t.cpus.len(), 72);
    let sockets: std::collections::BTreeSet<usize> = t.cpus.iter().map(|c| c.package_id).collect();
    assert_eq!(sockets.len(), 2);
    assert_eq!(t.cpus[5].siblings, vec![5, 41]);
    assert_eq!(t.cpus[41].siblings, vec![5, 41]);
    assert_eq!(t.cpus[5].core_id, 8);

    assert_eq!(t.nodes.len(), 2);
    let n0_cpus: Vec<usize> = (0..18).chain(36..54).collect();
    let n1_cpus: Vec<usize> = (18..36).chain(54..72).collect();
    assert_eq!(t.nodes[0].cpus, n0_cpus);
    assert_eq!(t.nodes[1].cpus, n1_cpus);
    assert_eq!(t.nodes[0].distances, vec![10, 21]);
    assert_eq!(t.nodes[1].distances, vec![21, 10]);
    assert!(t
        .nodes
        .iter()
        .all(|n| n.kind == NodeKind::Dram && n.memory_tier.is_none()));
    assert!(t
        .nodes
        .iter()
        .all(|n| n.mem_total > 90 << 30 && n.mem_total < 100 << 30));
    assert_eq!(t.memory_nodes(), vec![0, 1]);
    assert!(t.memory_tiers.is_empty());
    assert_eq!(t.node_of_cpu(40), Some(0));
    assert_eq!(t.node_of_cpu(71), Some(1));
    assert_eq!(t.nodes[0].hmat.len(), 1);
    assert_eq!(t.nodes[0].hmat[0].read_latency_ns, Some(89));
    assert!(t.nodes[1].hmat.is_empty());

    // Physical cores first, then their hyperthreads.
    let expect: Vec<usize> = (0..18).chain(36..54).collect();
    assert_eq!(t.cpus_physical_first(Some(0)), expect);
    let expect1: Vec<usize> = (18..36).chain(54..72).collect();
    assert_eq!(t.cpus_physical_first(Some(1)), expect1);
    let all = t.cpus_physical_first(None);
    assert_eq!(&all[..36], &(0..36).collect::<Vec<_>>()[..]);
    assert_eq!(all.len(), 72);
    assert!(t.cpus_physical_first(Some(7)).is_empty());

    assert_eq!(t.dax_devices.len(), 1);
    let d = &t.dax_devices[0];
    assert_eq!(d.name, "dax0.0");
    assert_eq!(d.dev_path, Path::new("/dev/dax0.0"));
    assert_eq!(d.size, 1512 << 30);
    assert_eq!(d.align, 2 << 20);
    assert_eq!(d.target_node, Some(2));
    assert_eq!(d.numa_node, Some(0));
    assert_eq!(d.driver.as_deref(), Some("device_dax"));

    assert_eq!(t.dax_mounts.len(), 1);
    let m = &t.dax_mounts[0];
    assert_eq!(m.device, "/dev/pmem1");
    assert_eq!(m.mount_point, Path::new("/mnt/pmem1"));
    assert_eq!(m.fs_type, "ext4");
    assert_eq!(m.options, "rw,relatime,dax=always");
    assert_eq!(t.dax_mount_for(Path::new("/mnt/pmem1/x/y")), Some(m));
    assert_eq!(t.dax_mount_for(Path::new("/mnt/pmem1")), Some(m));
    assert_eq!(t.dax_mount_for(Path::new("/mnt/pmem1/../pmem1/z")), Some(m));
    assert_eq!(t.dax_mount_for(Path::new("/mnt/pmem10/x")), None);
    assert_eq!(t.dax_mount_for(Path::new("/tmp/x")), None);

    let tiers = t.tiers();
    let s = specs(&t);
    assert_eq!(
        &s[..6],
        &[
            "dram",
            "dram:node=0",
            "dram:node=1",
            "devdax:/dev/dax0.0",
            "file:/mnt/pmem1",
            "file:/dev/shm"
        ]
    );
    // The disk of the current directory, warm and cold.
    assert_eq!(s.len(), 8, "{s:?}");
    use pmolap_tier::TierClass;
    let classes: Vec<TierClass> = tiers.iter().map(|t| t.class).collect();
    assert_eq!(
        classes,
        [
            TierClass::Dram,
            TierClass::NumaNode,
            TierClass::NumaNode,
            TierClass::Devdax,
            TierClass::Fsdax,
            TierClass::Tmpfs,
            TierClass::Disk,
            TierClass::Disk
        ]
    );
    assert_eq!(tiers[0].capacity, tiers[1].capacity + tiers[2].capacity);
    assert_eq!(tiers[3].capacity, 1512 << 30);
    assert_eq!(tiers[3].numa_node, Some(0));
    assert_eq!(tiers[3].persistence, "cache-line flush + fence (MAP_SYNC)");
    assert_eq!(tiers[4].kind, "fsdax (ext4, dax=always)");
    assert_eq!(tiers[4].capacity, 1512 << 30);
    assert_eq!(tiers[4].numa_node, Some(1));
    assert_eq!(tiers[4].persistence, "cache-line flush + fence (MAP_SYNC)");
    assert!(
        tiers[1]
            .notes
            .iter()
            .any(|n| n == "distances 10 21 to nodes 0 1"),
        "{:?}",
        tiers[1].notes
    );
    // tmpfs without size= has unknown capacity.
    assert_eq!(tiers[5].capacity, 0);
    // Data on the fsdax mount: no disk tier, the mount is listed as fsdax.
    let on_pmem = t.tiers_for(Path::new("/mnt/pmem1/db"));
    assert!(on_pmem.iter().all(|x| x.class != TierClass::Disk));
}

#[test]
fn cxl_1node() {
    let t = detect("cxl-1node");
    assert!(t.cpu_features.avx512f && t.cpu_features.movdir64b);
    assert_eq!(t.cpus.len(), 16);
    assert_eq!(t.nodes.len(), 2);
    let (n0, n1) = (&t.nodes[0], &t.nodes[1]);
    assert_eq!(n0.kind, NodeKind::Dram);
    assert_eq!(n0.cpus, (0..16).collect::<Vec<_>>());
    assert_eq!(n1.kind, NodeKind::CpuLessMemory);
    assert!(n1.cpus.is_empty());
    assert_eq!(n1.mem_total, 64 << 30);
    assert_eq!(n0.distances, vec![10, 20]);
    assert_eq!(n1.distances, vec![20, 10]);
    assert_eq!(t.memory_nodes(), vec![0, 1]);
    assert_eq!(t.memory_tiers.len(), 2);
    assert_eq!(
        (t.memory_tiers[0].id, &t.memory_tiers[0].nodes),
        (4, &vec![0])
    );
    assert_eq!(
        (t.memory_tiers[1].id, &t.memory_tiers[1].nodes),
        (22, &vec![1])
    );
    assert_eq!(n0.memory_tier, Some(4));
    assert_eq!(n1.memory_tier, Some(22));

    assert_eq!(n1.hmat.len(), 2);
    for (class, h) in n1.hmat.iter().enumerate() {
        assert_eq!(h.class as usize, class);
        assert_eq!(h.initiators, vec![0]);
        assert_eq!(h.read_latency_ns, Some(250));
        assert_eq!(h.write_latency_ns, Some(250));
        assert_eq!(h.read_bandwidth_mbps, Some(30000));
        assert_eq!(h.write_bandwidth_mbps, Some(30000));
    }
    assert_eq!(n0.hmat.len(), 2);
    assert_eq!(n0.hmat[0].read_latency_ns, Some(110));
    assert_eq!(n0.hmat[0].read_bandwidth_mbps, Some(153600));

    // The expander was onlined by kmem: it is a node, not a devdax tier.
    assert_eq!(t.dax_devices.len(), 1);
    assert_eq!(t.dax_devices[0].driver.as_deref(), Some("kmem"));
    assert_eq!(t.dax_devices[0].target_node, Some(1));
    assert!(t.dax_mounts.is_empty());
    assert_eq!(t.cpus_physical_first(Some(0)), (0..16).collect::<Vec<_>>());
    assert!(t.cpus_physical_first(Some(1)).is_empty());

    let tiers = t.tiers();
    let s = specs(&t);
    assert_eq!(
        &s[..4],
        &["dram", "dram:node=0", "dram:node=1", "file:/dev/shm"]
    );
    assert_eq!(s.len(), 6, "{s:?}");
    assert_eq!(tiers[2].kind, "cxl/far-memory node");
    assert_eq!(tiers[2].class, pmolap_tier::TierClass::FarMemory);
    assert_eq!(tiers[2].capacity, 64 << 30);
    assert_eq!(
        tiers[0].capacity, tiers[1].capacity,
        "dram = the DRAM nodes only"
    );
    let notes = tiers[2].notes.join("\n");
    assert!(notes.contains("memory tier 22"), "{notes}");
    assert!(
        notes.contains("HMAT access0+1 from node 0: read 250 ns, write 250 ns, read 30000 MB/s, write 30000 MB/s"),
        "{notes}"
    );
    assert!(
        notes.contains("onlined from dax0.0 by the kmem driver"),
        "{notes}"
    );
    assert_eq!(tiers[3].capacity, 65_536_000 * 1024);
    assert_eq!(tiers[4].kind, "file (xfs page cache)");
}

#[test]
fn round_trips_through_json() {
    let t = detect("optane-2socket");
    let json = serde_json::to_string(&t).unwrap();
    let back: Topology = serde_json::from_str(&json).unwrap();
    assert_eq!(back, t);
}

#[test]
fn missing_root_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("no-such-root");
    match Topology::detect_at(&root) {
        Err(Error::NotFound(p)) => assert_eq!(p, root),
        other => panic!("expected NotFound, got {other:?}"),
    }
}

#[test]
fn malformed_cpulist_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "sys/devices/system/cpu/online", "0-1\n");
    write(root, "sys/devices/system/node/node0/cpulist", "0-x\n");
    let err = Topology::detect_at(root).unwrap_err();
    assert!(matches!(err, Error::Parse { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("node0/cpulist"), "{msg}");
    assert!(msg.contains("`x`"), "{msg}");
    assert_eq!(msg.lines().count(), 1, "{msg}");
}

#[test]
fn malformed_files_give_parse_errors() {
    let cases = [
        ("sys/devices/system/cpu/online", "zero\n", "cpu/online"),
        (
            "sys/devices/system/node/node0/distance",
            "10 far\n",
            "node0/distance",
        ),
        (
            "sys/devices/system/node/node0/meminfo",
            "Node 0 MemTotal: lots kB\n",
            "node0/meminfo",
        ),
        ("sys/bus/dax/devices/dax0.0/size", "big\n", "dax0.0/size"),
        (
            "sys/devices/system/cpu/cpu0/topology/core_id",
            "-\n",
            "cpu0/topology/core_id",
        ),
        ("proc/mounts", "garbage\n", "proc/mounts"),
    ];
    for (rel, text, needle) in cases {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "sys/devices/system/cpu/online", "0\n");
        write(root, "sys/devices/system/node/node0/cpulist", "0\n");
        write(root, rel, text);
        let err = Topology::detect_at(root).unwrap_err();
        assert!(matches!(err, Error::Parse { .. }), "{rel}: {err:?}");
        assert!(err.to_string().contains(needle), "{rel}: {err}");
    }
}

#[test]
fn no_numa_kernel_gets_one_synthesized_node() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "sys/devices/system/cpu/online", "0-3\n");
    write(
        root,
        "proc/meminfo",
        "MemTotal:       8000000 kB\nMemFree:        6000000 kB\n",
    );
    let t = Topology::detect_at(root).unwrap();
    assert_eq!(t.cpu_model, "unknown");
    assert_eq!(t.kernel_release, "unknown");
    assert_eq!(t.nodes.len(), 1);
    assert_eq!(t.nodes[0].cpus, vec![0, 1, 2, 3]);
    assert_eq!(t.nodes[0].mem_total, 8_000_000 * 1024);
    assert_eq!(t.nodes[0].mem_free, 6_000_000 * 1024);
    assert_eq!(t.nodes[0].kind, NodeKind::Dram);
    assert!(t
        .cpus
        .iter()
        .all(|c| c.node == Some(0) && c.siblings == vec![c.id]));
    // No mounts recorded: only the DRAM tier and the current directory (as a plain file tier).
    let s = specs(&t);
    assert_eq!(s[0], "dram");
    assert!(s[1..].iter().all(|s| s.starts_with("file:")), "{s:?}");
}

#[test]
fn detect_on_this_machine() {
    let t = Topology::detect().unwrap();
    assert!(!t.nodes.is_empty());
    assert!(!t.cpus.is_empty());
    assert!(!t.memory_nodes().is_empty());
    assert!(t.nodes.iter().any(|n| !n.cpus.is_empty()));
    for c in &t.cpus {
        assert!(c.siblings.contains(&c.id), "{c:?}");
    }
    assert!(t.tiers().iter().any(|x| x.spec.starts_with("dram")));
    assert_eq!(t.cpus_physical_first(None).len(), t.cpus.len());
}

#[test]
fn parse_cpulist_is_public() {
    assert_eq!(parse_cpulist("0-2,5").unwrap(), vec![0, 1, 2, 5]);
}
