//! Workload, profile and placement documents: JSON round trips, the store adapter, and
//! bad input as one-line errors naming the file and the item.

use std::path::Path;

use pmolap_place::placement::PlacementTier;
use pmolap_place::{
    solve_target, Error, Granularity, Model, ModelOptions, PlacementFile, Profile, StoreTable,
    TwoTierProblem, Workload,
};
use pmolap_store::{
    ColumnType, Location, Placement, Schema, StructureKind, Table, TableBuilder, Value,
    WriteOptions,
};
use serde_json::json;

fn one_line(e: &Error, parts: &[&str]) {
    let msg = e.to_string();
    assert!(!msg.contains('\n'), "{msg}");
    for p in parts {
        assert!(msg.contains(p), "`{msg}` lacks `{p}`");
    }
}

fn write(dir: &Path, name: &str, v: &serde_json::Value) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
    p
}

fn workload_json() -> serde_json::Value {
    json!({
        "format": "pmolap-workload", "version": 1,
        "store_format": pmolap_store::format::FORMAT_VERSION,
        "t_dram_ns": 1.0e6,
        "structures": [
            { "table": "t", "column": "a", "kind": "data_vector", "bytes": 8192,
              "type": "int", "bit_width": 7,
              "counts": { "scan": 1000, "lookup": 5, "near_dense": 0, "medium_dense": 0, "far_dense": 0 } },
            { "table": "t", "column": "a", "kind": "dictionary", "bytes": 4096, "type": "int",
              "counts": { "scan": 0, "lookup": 50, "near_dense": 10, "medium_dense": 0, "far_dense": 0 } },
            { "table": "u", "column": "b", "kind": "inverted_index", "bytes": 12288, "type": "str",
              "counts": { "scan": 0, "lookup": 3, "near_dense": 9, "medium_dense": 0, "far_dense": 0 } }
        ]
    })
}

#[test]
fn workload_loads_and_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "w.json", &workload_json());
    let w = Workload::load(&p).unwrap();
    assert_eq!(w.structures.len(), 3);
    assert_eq!(w.structures[2].id(), "u.b.inv");
    assert_eq!(w.total_bytes(), 8192 + 4096 + 12288);
    let q = dir.path().join("again.json");
    w.save(&q).unwrap();
    assert_eq!(Workload::load(&q).unwrap(), w);
}

#[test]
fn bad_workloads_name_file_and_item() {
    let dir = tempfile::tempdir().unwrap();
    /// (file name, how to spoil the document, what the error must say)
    type Case = (
        &'static str,
        fn(&mut serde_json::Value),
        &'static [&'static str],
    );
    let cases: [Case; 7] = [
        (
            "dup.json",
            |v| {
                let s = v["structures"][0].clone();
                v["structures"].as_array_mut().unwrap().push(s);
            },
            &["dup.json", "structure 3 (t.a.dv)", "twice"],
        ),
        (
            "width.json",
            |v| v["structures"][0]["bit_width"] = json!(40),
            &["width.json", "t.a.dv", "bit_width 40"],
        ),
        (
            "enc.json",
            |v| v["structures"][1]["encoding"] = json!("rle"),
            &["enc.json", "t.a.dict", "data vectors only"],
        ),
        (
            "tdram.json",
            |v| v["t_dram_ns"] = json!(0.0),
            &["tdram.json", "t_dram_ns"],
        ),
        (
            "samples.json",
            |v| {
                v["page_samples"] = json!([
                    {"one_stream_ns": 3000.0, "three_streams_ns": null,
                     "fault_page_ns": 4000.0, "fault_latency_ns": 60000.0},
                    {"one_stream_ns": -1.0, "three_streams_ns": 2900.0,
                     "fault_page_ns": 4000.0, "fault_latency_ns": 60000.0}
                ])
            },
            &["samples.json", "page_samples", "sample 1", "-1"],
        ),
        (
            "fmt.json",
            |v| v["format"] = json!("pmolap-profile"),
            &["fmt.json", "format", "pmolap-workload"],
        ),
        (
            "kind.json",
            |v| v["structures"][0]["kind"] = json!("btree"),
            &["kind.json", "btree"],
        ),
    ];
    for (name, edit, parts) in cases {
        let mut v = workload_json();
        edit(&mut v);
        let e = Workload::load(&write(dir.path(), name, &v)).unwrap_err();
        one_line(&e, parts);
    }
    let e = Workload::load(&dir.path().join("missing.json")).unwrap_err();
    one_line(&e, &["missing.json"]);
}

#[test]
fn profiles_round_trip_and_bad_ones_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("o200.json");
    Profile::optane_200().save(&p).unwrap();
    let mut q = Profile::load(&p).unwrap();
    assert_eq!(q.origin.as_deref(), Some(p.display().to_string().as_str()));
    q.origin = None;
    assert_eq!(q, Profile::optane_200());

    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    v["costs"][3]["variant"] = json!("rle");
    v["costs"][3]["structure"] = json!("dictionary");
    let e = Profile::load(&write(dir.path(), "variant.json", &v)).unwrap_err();
    one_line(
        &e,
        &["variant.json", "costs[3]", "does not exist for dictionary"],
    );

    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    v["tier"] = json!("dram");
    let e = Profile::load(&write(dir.path(), "tier.json", &v)).unwrap_err();
    one_line(&e, &["tier.json", "tier", "reference tier"]);

    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    v["source"] = json!({ "kind": "measured_here", "machine": "test box" });
    // A profile of another store format than the workload's.
    v["store_format"] = json!(pmolap_store::format::FORMAT_VERSION - 1);
    let path = write(dir.path(), "v2.json", &v);
    let prof = Profile::load(&path).unwrap();
    assert_eq!(prof.source.to_string(), "measured here (test box)");
    let w = Workload::load(&write(dir.path(), "w.json", &workload_json())).unwrap();
    let e = Model::new(ModelOptions::new(1 << 20))
        .unwrap()
        .costs(&w, &prof)
        .unwrap_err();
    assert!(matches!(e, Error::VersionMismatch { .. }));
    one_line(&e, &["v2.json", "optane-200", "version 2", "version 1"]);
}

fn solved(dir: &Path) -> (Workload, Profile, PlacementFile) {
    let w = Workload::load(&write(dir, "w.json", &workload_json())).unwrap();
    let prof = Profile::optane_200();
    let m = Model::new(ModelOptions::new(1 << 20)).unwrap();
    let p = TwoTierProblem::new(&w, &m, &prof, Granularity::Structure).unwrap();
    let s = solve_target(&p, 0.5).unwrap();
    let pf = PlacementFile::from_solution(&w, std::slice::from_ref(&prof), &s);
    assert_eq!(
        pf.assignment(&w, std::slice::from_ref(&prof)).unwrap(),
        s.assignment
    );
    (w, prof, pf)
}

#[test]
fn placements_round_trip_and_apply_to_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let (w, prof, mut pf) = solved(dir.path());
    pf.tiers[0].location = Some("dram".into());
    pf.tiers[1].location = Some(format!("file:{}", dir.path().display()));
    let path = dir.path().join("placement.json");
    pf.save(&path).unwrap();
    let back = PlacementFile::load(&path).unwrap();
    let a = back.assignment(&w, std::slice::from_ref(&prof)).unwrap();
    assert_eq!(a, pf.assignment(&w, std::slice::from_ref(&prof)).unwrap());
    let sp = back.to_store_placement("t").unwrap();
    for (s, &k) in w
        .structures
        .iter()
        .zip(&a.tier)
        .filter(|(s, _)| s.table == "t")
    {
        let want: Location = pf.tiers[k].location.as_ref().unwrap().parse().unwrap();
        assert_eq!(sp.location(&s.column, s.kind), &want);
    }
    // A table the placement does not mention stays on the reference tier.
    assert_eq!(
        back.to_store_placement("zz").unwrap(),
        Placement::all(pmolap_tier::TierSpec::Dram { node: None })
    );
}

#[test]
fn bad_placements_name_file_and_item() {
    let dir = tempfile::tempdir().unwrap();
    let (w, prof, pf) = solved(dir.path());
    let profs = std::slice::from_ref(&prof);
    let save = |name: &str, pf: &PlacementFile| {
        let p = dir.path().join(name);
        pf.save(&p).unwrap();
        p
    };
    let mut bad = pf.clone();
    bad.structures[1].column = "nope".into();
    let e = PlacementFile::load(&save("unknown.json", &bad))
        .unwrap()
        .assignment(&w, profs)
        .unwrap_err();
    one_line(
        &e,
        &[
            "unknown.json",
            "structures[1] (t.nope.dict)",
            "no such structure",
        ],
    );

    let mut bad = pf.clone();
    bad.structures[0].tier = "cxl".into();
    let e = PlacementFile::load(&save("tier.json", &bad)).unwrap_err();
    one_line(
        &e,
        &["tier.json", "structures[0] (t.a.dv)", "unknown tier `cxl`"],
    );

    let mut bad = pf.clone();
    bad.tiers.push(PlacementTier {
        name: "cxl".into(),
        location: None,
        capacity_bytes: None,
    });
    bad.structures[0].tier = "cxl".into();
    let e = PlacementFile::load(&save("noprof.json", &bad))
        .unwrap()
        .assignment(&w, profs)
        .unwrap_err();
    one_line(
        &e,
        &["noprof.json", "structures[0]", "tier `cxl` has no profile"],
    );

    let mut bad = pf.clone();
    for s in &mut bad.structures {
        s.tier = "optane-200".into();
    }
    bad.tiers[1].capacity_bytes = Some(10_000);
    let e = PlacementFile::load(&save("cap.json", &bad))
        .unwrap()
        .assignment(&w, profs)
        .unwrap_err();
    one_line(
        &e,
        &[
            "cap.json",
            "tiers[1] (optane-200)",
            "24576 bytes",
            "capacity is 10000",
        ],
    );

    let mut bad = pf.clone();
    bad.structures.push(bad.structures[0].clone());
    let e = PlacementFile::load(&save("twice.json", &bad)).unwrap_err();
    one_line(
        &e,
        &["twice.json", "structures[3] (t.a.dv)", "placed twice"],
    );

    let mut bad = pf.clone();
    bad.tiers[1].location = Some("floppy:/a".into());
    let e = PlacementFile::load(&save("loc.json", &bad)).unwrap_err();
    one_line(&e, &["loc.json", "tiers[1] (optane-200)", "location"]);

    let mut bad = pf.clone();
    bad.tiers.swap(0, 1);
    let e = PlacementFile::load(&save("order.json", &bad)).unwrap_err();
    one_line(&e, &["order.json", "first tier", "dram"]);

    // Applying needs a location for every tier used.
    let mut all = pf.clone();
    for s in &mut all.structures {
        s.tier = "optane-200".into();
    }
    let e = all.to_store_placement("t").unwrap_err();
    one_line(&e, &["<memory>", "t.a.dv", "no location"]);
}

#[test]
fn workload_from_store_tables() {
    let dir = tempfile::tempdir().unwrap();
    let schema = Schema::new([("k", ColumnType::Int), ("s", ColumnType::Str)]).unwrap();
    let mut b = TableBuilder::new(schema);
    for i in 0..1000i64 {
        let s = format!("v{}", i % 13);
        b.push_row(&[Value::Int(i % 97), Value::Str(&s)]).unwrap();
    }
    // Dictionaries only: `k` (0..97) would be a frame, whose lookups count nothing.
    let opts = WriteOptions {
        dictionary_only: true,
        ..WriteOptions::default()
    };
    b.finish(dir.path(), &opts.with_index(&["k"])).unwrap();
    let t = Table::open(dir.path(), &Placement::home()).unwrap();
    t.set_counting(true);
    let c = t.column("k").unwrap();
    for row in [1usize, 2, 3, 500] {
        let _ = c.value(row);
    }
    let info = t.info();
    let counts = t.access_counts();
    let w = Workload::from_store(
        &[StoreTable {
            name: "x",
            info: &info,
            counts: &counts,
        }],
        5e6,
    )
    .unwrap();
    // k: dictionary, data vector, inverted index; s: dictionary, data vector.
    assert_eq!(w.structures.len(), 5);
    let dv = &w.structures[w.find("x", "k", StructureKind::DataVector).unwrap()];
    assert_eq!(dv.counts.lookup, 4);
    assert_eq!(dv.bit_width, Some(info.columns[0].bit_width));
    let dict = &w.structures[w.find("x", "k", StructureKind::Dictionary).unwrap()];
    assert_eq!(dict.counts.lookup, 4);
    assert!(w.find("x", "k", StructureKind::InvertedIndex).is_some());
    assert!(w.find("x", "s", StructureKind::InvertedIndex).is_none());
    let file_bytes: u64 = info
        .columns
        .iter()
        .flat_map(|c| &c.structures)
        .map(|s| s.info.file_bytes)
        .sum();
    assert_eq!(w.total_bytes(), file_bytes);
    assert_eq!(w.store_format, info.format_version);
}
