//! Unit tests of regions and views.

use super::*;

fn opts() -> RegionOptions {
    RegionOptions {
        prefault: true,
        ..RegionOptions::default()
    }
}

#[test]
fn dram_region_reads_back_and_reports_residency() {
    let mut r = Region::new(&TierSpec::Dram { node: None }, 1 << 20, &opts()).unwrap();
    r.as_mut_slice()[12345] = 42;
    assert_eq!(r.as_slice()[12345], 42);
    let res = r
        .info()
        .residency
        .clone()
        .expect("residency checked after prefault");
    assert_eq!(res.not_present, 0, "{res:?}");
    assert!(res.pages_checked > 0);
    r.persist(0, 100).unwrap();
    assert!(r.persist(1 << 20, 1).is_err());
}

#[test]
fn huge_pages_are_counted_only_when_asked() {
    // Counting reads /proc/self/smaps (every mapping's page tables): a store's many
    // structures skip it, a measured region asks for it.
    let quiet = Region::new(&TierSpec::Dram { node: None }, 1 << 20, &opts()).unwrap();
    assert_eq!(quiet.info().huge_page_bytes, None);
    let census = RegionOptions {
        huge_page_census: true,
        ..opts()
    };
    let counted = Region::new(&TierSpec::Dram { node: None }, 1 << 20, &census).unwrap();
    let bytes = counted
        .info()
        .huge_page_bytes
        .expect("the region's own smaps entry is found");
    assert!(
        bytes <= 1 << 21,
        "{bytes} bytes of huge pages in a 1 MiB region"
    );
}

#[test]
fn binding_to_node_zero_lands_there() {
    let r = Region::new(&TierSpec::Dram { node: Some(0) }, 4 << 20, &opts()).unwrap();
    let res = r.info().residency.clone().unwrap();
    assert_eq!(res.fraction_on(0), 1.0, "{res:?}");
    assert!(r.info().warnings.is_empty(), "{:?}", r.info().warnings);
}

#[test]
fn missing_node_is_an_error() {
    let e = Region::new(&TierSpec::Dram { node: Some(4000) }, 4096, &opts()).unwrap_err();
    assert!(matches!(e, Error::NoSuchNode { node: 4000, .. }), "{e}");
}

#[test]
fn too_large_is_an_error() {
    let e = Region::new(&TierSpec::Dram { node: None }, usize::MAX / 2, &opts()).unwrap_err();
    assert!(matches!(e, Error::TooLarge { .. }), "{e}");
}

#[test]
fn file_region_persists_with_msync_and_keeps_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data");
    let spec = TierSpec::File { path: path.clone() };
    let keep = RegionOptions {
        keep_file: true,
        ..opts()
    };
    {
        let mut r = Region::new(&spec, 10_000, &keep).unwrap();
        assert_eq!(r.durability(), Durability::PageCache);
        r.view().copy_from(9000, b"hello").unwrap();
        r.persist(9000, 5).unwrap();
    }
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[9000..9005], b"hello");
    let e = Region::new(&spec, 10_000, &opts()).unwrap_err();
    assert!(
        matches!(e, Error::Exists(_)),
        "an existing file is refused: {e}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "and left untouched");
    let use_it = RegionOptions {
        existing: ExistingFile::Use,
        ..opts()
    };
    let r = Region::new(&spec, 10_000, &use_it).unwrap();
    assert_eq!(
        &r.as_slice()[9000..9005],
        b"hello",
        "reopening keeps the content"
    );
    drop(r);
    assert!(path.exists(), "a file that was there is never removed");
}

#[test]
fn new_named_file_is_scratch_unless_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scratch");
    let r = Region::new(&TierSpec::File { path: path.clone() }, 8192, &opts()).unwrap();
    assert!(!path.exists(), "unlinked as soon as mapped");
    drop(r);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn durable_writes_reach_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d");
    let keep = RegionOptions {
        keep_file: true,
        ..opts()
    };
    let mut r = Region::new(&TierSpec::File { path: path.clone() }, 8192, &keep).unwrap();
    r.write_durable(4000, b"durable bytes").unwrap();
    assert!(r.write_durable(8190, b"xyz").is_err());
    assert_eq!(&std::fs::read(&path).unwrap()[4000..4013], b"durable bytes");
    let mut d = Region::new(&TierSpec::Dram { node: None }, 8192, &opts()).unwrap();
    d.write_durable(1, b"abc").unwrap();
    assert_eq!(&d.as_slice()[1..4], b"abc");
}

#[test]
fn region_files_of_dead_runs_are_swept_at_the_next_region() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = std::process::Command::new("true").spawn().unwrap();
    let dead = c.id();
    c.wait().unwrap();
    let left = dir.path().join(format!("pmolap-{dead}-0.region"));
    let live = dir
        .path()
        .join(format!("pmolap-{}-99.region", std::process::id()));
    let user = dir.path().join("notes.region");
    for p in [&left, &live, &user] {
        std::fs::write(p, b"x").unwrap();
    }
    let spec = TierSpec::File {
        path: dir.path().to_path_buf(),
    };
    drop(Region::new(&spec, 8192, &opts()).unwrap());
    assert!(!left.exists(), "a killed run's region file is removed");
    assert!(
        live.exists() && user.exists(),
        "a live owner's and a user's file stay"
    );
}

#[test]
fn file_in_directory_is_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let spec = TierSpec::File {
        path: dir.path().to_path_buf(),
    };
    let r = Region::new(&spec, 8192, &opts()).unwrap();
    let p = r.info().path.clone().unwrap();
    assert!(p.starts_with(dir.path()));
    assert!(
        !p.exists(),
        "unlinked once mapped: nothing left on any exit path"
    );
    drop(r);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn missing_directory_and_devdax_are_errors() {
    let e = Region::new(
        &TierSpec::File {
            path: "/nonexistent-dir/x".into(),
        },
        4096,
        &opts(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("/nonexistent-dir"), "{e}");
    let e = Region::new(
        &TierSpec::DevDax {
            path: "/dev/dax99.9".into(),
        },
        4096,
        &opts(),
    )
    .unwrap_err();
    assert!(matches!(e, Error::NotFound(_)), "{e}");
    let e = Region::new(
        &TierSpec::DevDax {
            path: "/dev/null".into(),
        },
        4096,
        &opts(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("devdax"), "{e}");
}

#[test]
fn view_bounds_and_chase() {
    let mut r = Region::new(&TierSpec::Dram { node: None }, 4096, &opts()).unwrap();
    let v = r.view();
    // ring 0 -> 64 -> 128 -> 0
    v.write_u64(0, 64).unwrap();
    v.write_u64(64, 128).unwrap();
    v.write_u64(128, 0).unwrap();
    assert_eq!(v.chase(0, 3).unwrap(), 0);
    assert_eq!(v.chase(0, 2).unwrap(), 128);
    assert!(v.read_u64(4096).is_err());
    assert!(v.read_u64(3).is_err());
    v.write_u64(0, 1 << 40).unwrap();
    assert!(v.chase(0, 2).is_err());
}
