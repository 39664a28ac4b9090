//! Guards "one solver, one meaning": the placements `place validate` measures (the
//! scenarios of the grid) are exactly those `place advise` writes for each budget and
//! target, with the model picked from the profile and the workload's worker threads; the
//! advice's key changes with everything that changes a placement; old files still read.

mod common;

use common::random_workload;
use pmolap_place::{
    advise, grid, scenarios, solve_budget, solve_target, AdviceOptions, Goal, Granularity, Model,
    ModelOptions, PageCosts, PlacementFile, Profile, TwoTierProblem, Workload, BUDGETS, TARGETS,
};
use rand::rngs::SmallRng;
use rand::SeedableRng;

/// Optane-200's per-access costs plus page costs: a page-granular tier.
fn paged() -> Profile {
    let mut p = Profile::optane_200();
    p.pages = Some(PageCosts {
        page_bytes: 4096,
        random_page_ns: 60.0,
        sequential_page_ns: 4.0,
        fault_pages: 4,
        readahead_pages: None,
        fault_page_ns: None,
        fault_latency_ns: None,
        reclaim_page_ns: None,
        streams: None,
        note: None,
    });
    p
}

#[test]
fn validated_placements_are_the_advised_ones() {
    let mut differs_from_paper = 0;
    for seed in 0..40u64 {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut w = random_workload(&mut rng, 12);
        w.threads = Some(1 + (seed % 3) as u32);
        for p in [Profile::optane_200(), paged()] {
            for g in [Granularity::Structure, Granularity::Column] {
                let mut o = AdviceOptions::new(&w, 4096);
                o.granularity = g;
                let sc = scenarios(&w, &p, &o).unwrap();
                assert_eq!(sc.len(), 3 + BUDGETS.len() + TARGETS.len());
                for goal in grid() {
                    let s = sc.iter().find(|s| s.name == goal.to_string()).unwrap();
                    let a = advise(&w, &p, &o, goal).unwrap();
                    assert_eq!(s.assignment, a.assignment, "seed {seed} {goal} {}", p.tier);
                    // Equal up to the solver's rounding of each cost to whole ps.
                    let rel = (s.relative - a.relative).abs() / a.relative;
                    assert!(
                        rel < 1e-6,
                        "seed {seed} {goal}: {} vs {}",
                        s.relative,
                        a.relative
                    );
                    // The lower-level solvers agree with the advisor's front.
                    let problem = TwoTierProblem::new(&w, &o.model().unwrap(), &p, g).unwrap();
                    let direct = match goal {
                        Goal::Budget(b) => solve_budget(&problem, b).unwrap(),
                        Goal::Target(t) => solve_target(&problem, t).unwrap(),
                    };
                    assert_eq!(direct.assignment, a.assignment);
                    // With page costs the per-access model would often place otherwise:
                    // the advice must not be that one.
                    if p.pages.is_some() {
                        let paper = Model::new(ModelOptions {
                            page_model: false,
                            ..o.model_options()
                        })
                        .unwrap();
                        let pp = TwoTierProblem::new(&w, &paper, &p, g).unwrap();
                        let other = match goal {
                            Goal::Budget(b) => solve_budget(&pp, b).unwrap(),
                            Goal::Target(t) => solve_target(&pp, t).unwrap(),
                        };
                        differs_from_paper += usize::from(other.assignment != a.assignment);
                    }
                }
            }
        }
    }
    assert!(
        differs_from_paper > 0,
        "the test profiles never tell the models apart"
    );
}

#[test]
fn the_model_is_picked_from_the_profile_with_the_workloads_threads() {
    let mut rng = SmallRng::seed_from_u64(7);
    let mut w = random_workload(&mut rng, 10);
    assert_eq!(
        AdviceOptions::new(&w, 4096).io_threads,
        1,
        "no threads recorded: 1"
    );
    w.threads = Some(3);
    let o = AdviceOptions::new(&w, 4096);
    assert_eq!(o.io_threads, 3);
    let m = o.model().unwrap();
    assert_eq!(m.options().io_threads, 3);
    assert_eq!(
        m.options().page_cache_bytes,
        None,
        "the solvers price cold costs"
    );
    let per_access = Model::new(ModelOptions {
        page_model: false,
        io_threads: 3,
        ..ModelOptions::new(4096)
    })
    .unwrap();
    let page = Model::new(ModelOptions {
        page_model: true,
        io_threads: 3,
        ..ModelOptions::new(4096)
    })
    .unwrap();
    let (opt, pg) = (Profile::optane_200(), paged());
    assert_eq!(
        m.costs(&w, &opt).unwrap(),
        per_access.costs(&w, &opt).unwrap()
    );
    assert_eq!(m.costs(&w, &pg).unwrap(), page.costs(&w, &pg).unwrap());
    assert_ne!(
        m.costs(&w, &pg).unwrap(),
        per_access.costs(&w, &pg).unwrap()
    );
    assert_eq!(o.model_name(&opt), "paper");
    assert_eq!(o.model_name(&pg), "page");
    assert_eq!(
        o.predicting(Some(1 << 20))
            .unwrap()
            .options()
            .page_cache_bytes,
        Some(1 << 20)
    );
}

#[test]
fn the_key_names_everything_that_changes_a_placement() {
    let mut rng = SmallRng::seed_from_u64(3);
    let w = random_workload(&mut rng, 8);
    let p = paged();
    let o = AdviceOptions::new(&w, 4096);
    let k = o.key(&w, &p);
    assert_eq!(k.len(), 16);
    assert_eq!(k, o.key(&w.clone(), &p.clone()));
    let mut described = w.clone();
    described.description = "recorded elsewhere".into();
    assert_eq!(
        k,
        o.key(&described, &p),
        "the description is not the workload"
    );
    let mut keys = vec![k];
    let mut other = w.clone();
    other.t_dram_ns *= 2.0;
    keys.push(o.key(&other, &p));
    keys.push(o.key(&w, &Profile::optane_200()));
    for change in 0..5 {
        let mut o2 = o;
        match change {
            0 => o2.llc_bytes += 1,
            1 => o2.granularity = Granularity::Table,
            2 => o2.cache_miss_ratio = false,
            3 => o2.dense_classes = false,
            _ => o2.io_threads = 2,
        }
        keys.push(o2.key(&w, &p));
    }
    let mut unique = keys.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), keys.len(), "{keys:?}");
}

#[test]
fn old_workloads_and_placements_read_and_accuracy_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SmallRng::seed_from_u64(5);
    let w = random_workload(&mut rng, 6);
    let wf = dir.path().join("w.json");
    w.save(&wf).unwrap();
    let text = std::fs::read_to_string(&wf).unwrap();
    assert!(!text.contains("threads"), "an unset field is not written");
    assert_eq!(Workload::load(&wf).unwrap().threads, None);
    let mut zero = serde_json::from_str::<serde_json::Value>(&text).unwrap();
    zero["threads"] = 0.into();
    std::fs::write(&wf, zero.to_string()).unwrap();
    let e = Workload::load(&wf).unwrap_err().to_string();
    assert!(e.contains("threads"), "{e}");

    // A placement file of the format before `accuracy`.
    let old = dir.path().join("old.json");
    std::fs::write(
        &old,
        r#"{"format":"pmolap-placement","version":1,
            "tiers":[{"name":"dram","location":"dram"},{"name":"disk","location":"home"}],
            "structures":[],
            "predicted":{"t_ns":1.0,"relative":1.01,"bytes_moved":0}}"#,
    )
    .unwrap();
    assert_eq!(PlacementFile::load(&old).unwrap().accuracy, None);
    // One written by advise carries it.
    let o = AdviceOptions::new(&w, 4096);
    let s = advise(&w, &Profile::optane_200(), &o, Goal::Target(0.5)).unwrap();
    let mut pf = PlacementFile::from_solution(&w, &[Profile::optane_200()], &s);
    pf.accuracy = Some(pmolap_place::Accuracy::NotValidated);
    let f = dir.path().join("p.json");
    pf.save(&f).unwrap();
    let back = PlacementFile::load(&f).unwrap();
    assert_eq!(back.accuracy, Some(pmolap_place::Accuracy::NotValidated));
    assert!(std::fs::read_to_string(&f)
        .unwrap()
        .contains("not_validated"));
}
