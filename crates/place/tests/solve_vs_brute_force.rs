//! The two-tier front and both modes, and the multi-tier MIP, against brute force over
//! every placement of small random workloads (optimality, not just feasibility).

mod common;

use common::{
    accessed_subsets, brute_front, costs_ps, groups_of, model, model_for, random_workload, subsets,
};
use pmolap_place::solve::mip::solve_tiers_within;
use pmolap_place::{
    pareto_front, pareto_front_by, solve_budget, solve_target, solve_tiers, Error, Granularity,
    Objective, Profile, TierProblem, TwoTierProblem, Weight,
};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::time::Duration;

const GRANULARITIES: [(Granularity, &str); 3] = [
    (Granularity::Structure, "structure"),
    (Granularity::Column, "column"),
    (Granularity::Table, "table"),
];

/// Every structure of a group on the same tier.
fn moves_whole_groups(tier: &[usize], groups: &[Vec<usize>]) -> bool {
    groups
        .iter()
        .all(|g| g.iter().all(|&i| tier[i] == tier[g[0]]))
}

#[test]
fn front_and_modes_are_optimal_at_every_granularity() {
    let mut rng = SmallRng::seed_from_u64(7);
    let profile = Profile::optane_200();
    for case in 0..60 {
        let m = model_for(case);
        let n = rng.gen_range(1..=14);
        let w = random_workload(&mut rng, n);
        let ps = costs_ps(&w, &profile, &m);
        for (g, by) in GRANULARITIES {
            let groups = groups_of(&w, by);
            let all = subsets(&w, &groups, &ps);
            let want = brute_front(&all);
            let p = TwoTierProblem::new(&w, &m, &profile, g).unwrap();
            let f = pareto_front(&p).unwrap();
            let got: Vec<(u64, u64)> = f.points().iter().map(|q| (q.bytes, q.cost_ps)).collect();
            assert_eq!(got, want, "case {case} {by}: front differs");
            // Every point's placement has the point's bytes and cost and moves groups.
            for (i, &(b, c)) in got.iter().enumerate() {
                let a = f.assignment(i);
                assert!(moves_whole_groups(&a.tier, &groups), "case {case} {by}");
                let (mut ab, mut ac) = (0, 0);
                for (s, &t) in a.tier.iter().enumerate() {
                    if t == 1 {
                        ab += w.structures[s].bytes;
                        ac += ps[s];
                    }
                }
                assert_eq!((ab, ac), (b, c), "case {case} {by} point {i}");
            }
            // Budgets: 0, random, exactly each subset's cost (the boundary), above all.
            let t_ps = w.t_dram_ns * 1000.0;
            let mut budgets: Vec<f64> = vec![0.0, rng.gen_range(0.0..1.0), 10.0];
            budgets.extend(all.iter().take(6).map(|&(_, c)| c as f64 / t_ps));
            for b in budgets {
                let s = solve_budget(&p, b).unwrap();
                let limit = (b * t_ps * (1.0 + 1e-12)).floor() as u64;
                let best = all
                    .iter()
                    .filter(|&&(_, c)| c <= limit)
                    .map(|&(b, _)| b)
                    .max();
                assert_eq!(Some(s.bytes_moved), best, "case {case} {by} budget {b}");
                let cost: u64 = (0..n)
                    .filter(|&i| s.assignment.tier[i] == 1)
                    .map(|i| ps[i])
                    .sum();
                assert!(cost <= limit, "case {case} {by} budget {b}: infeasible");
                assert!(moves_whole_groups(&s.assignment.tier, &groups));
            }
            // Targets are shares of the accessed bytes: the front by accessed bytes is
            // the brute force's, and each target's placement is the cheapest that meets
            // it, with every group that costs nothing on the slow tier there too.
            let acc = accessed_subsets(&w, &groups, &ps);
            let fa = pareto_front_by(&p, Weight::Accessed).unwrap();
            let got: Vec<(u64, u64)> = fa.points().iter().map(|q| (q.bytes, q.cost_ps)).collect();
            let points: Vec<(u64, u64)> = acc.iter().map(|&(a, c, _)| (a, c)).collect();
            assert_eq!(
                got,
                brute_front(&points),
                "case {case} {by}: front by accessed bytes differs"
            );
            let accessed = w.accessed_bytes();
            let mut targets: Vec<f64> = vec![0.0, 1.0, rng.gen_range(0.0..1.0)];
            if accessed > 0 {
                targets.extend(
                    acc.iter()
                        .take(6)
                        .map(|&(a, _, _)| a as f64 / accessed as f64),
                );
            }
            for t in targets {
                let s = solve_target(&p, t).unwrap();
                let need = (t * accessed as f64 * (1.0 - 1e-12)).ceil() as u64;
                let best = acc
                    .iter()
                    .filter(|&&(a, _, _)| a >= need)
                    .map(|&(_, c, _)| c)
                    .min();
                let slow: Vec<usize> = (0..n).filter(|&i| s.assignment.tier[i] == 1).collect();
                let cost: u64 = slow.iter().map(|&i| ps[i]).sum();
                assert_eq!(Some(cost), best, "case {case} {by} target {t}");
                let moved = |only_accessed: bool| -> u64 {
                    slow.iter()
                        .map(|&i| &w.structures[i])
                        .filter(|s| !only_accessed || s.accessed())
                        .map(|s| s.bytes)
                        .sum()
                };
                assert!(
                    moved(true) >= need,
                    "case {case} {by} target {t}: infeasible"
                );
                assert_eq!(s.bytes_moved, moved(false), "case {case} {by} target {t}");
                for g in &groups {
                    let free = g.iter().map(|&i| ps[i]).sum::<u64>() == 0
                        && g.iter().map(|&i| w.structures[i].bytes).sum::<u64>() > 0;
                    assert!(
                        !free || g.iter().all(|&i| s.assignment.tier[i] == 1),
                        "case {case} {by} target {t}: a group that costs nothing stayed in DRAM"
                    );
                }
                assert_eq!(s.t_ns, cost as f64 / 1000.0);
            }
        }
    }
}

#[test]
fn solution_agrees_with_the_model() {
    let mut rng = SmallRng::seed_from_u64(11);
    let profile = Profile::optane_100();
    let m = model();
    for _ in 0..20 {
        let w = random_workload(&mut rng, 12);
        let p = TwoTierProblem::new(&w, &m, &profile, Granularity::Structure).unwrap();
        let s = solve_target(&p, 0.7).unwrap();
        let pred = m
            .predict(&w, std::slice::from_ref(&profile), &s.assignment)
            .unwrap();
        // Rounding to whole ps: at most 0.5 ps per structure.
        let slack = 12.0 * 0.0005 + 1e-9 * pred.t_ns;
        assert!((pred.t_ns - s.t_ns).abs() <= slack);
        assert_eq!(pred.tiers[1].bytes, s.bytes_moved);
        assert!((pred.relative - s.relative).abs() <= slack / w.t_dram_ns);
    }
}

#[test]
fn bad_budgets_and_targets_are_one_line_errors() {
    let mut rng = SmallRng::seed_from_u64(3);
    let w = random_workload(&mut rng, 5);
    let p = TwoTierProblem::new(&w, &model(), &Profile::optane_200(), Granularity::Column).unwrap();
    for e in [
        solve_budget(&p, -0.1).unwrap_err(),
        solve_budget(&p, f64::NAN).unwrap_err(),
        solve_target(&p, 1.5).unwrap_err(),
        solve_target(&p, -0.01).unwrap_err(),
    ] {
        let msg = e.to_string();
        assert!(matches!(e, Error::Argument(_)), "{msg}");
        assert!(
            !msg.contains('\n') && (msg.contains("budget") || msg.contains("target")),
            "{msg}"
        );
    }
}

/// A slower copy of a profile under another tier name (every cost scaled).
fn scaled(p: &Profile, tier: &str, f: f64) -> Profile {
    let mut q = p.clone();
    q.tier = tier.into();
    for c in &mut q.costs {
        c.extra_ns *= f;
    }
    q
}

/// All assignments of `groups` to `k` tiers: (tier per group).
fn all_choices(groups: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for _ in 0..groups {
        out = out
            .into_iter()
            .flat_map(|c| {
                (0..k).map(move |t| {
                    let mut c = c.clone();
                    c.push(t);
                    c
                })
            })
            .collect();
    }
    out
}

#[test]
fn mip_is_optimal_on_three_tiers_with_capacities() {
    let mut rng = SmallRng::seed_from_u64(5);
    let profiles = [
        Profile::optane_200(),
        scaled(&Profile::optane_100(), "far-pmem", 1.7),
    ];
    let mut solved = 0;
    for case in 0..24 {
        let m = model_for(case);
        let n = rng.gen_range(2..=7);
        let w = random_workload(&mut rng, n);
        let total = w.total_bytes();
        let caps: Vec<Option<u64>> = (0..3)
            .map(|_| rng.gen_bool(0.6).then(|| rng.gen_range(0..=total)))
            .collect();
        let ps: Vec<Vec<u64>> = std::iter::once(vec![0; n])
            .chain(profiles.iter().map(|p| costs_ps(&w, p, &m)))
            .collect();
        let (g, by) = GRANULARITIES[case % 3];
        let groups = groups_of(&w, by);
        let p = TierProblem::new(&w, &m, &profiles, &caps, g).unwrap();
        // Brute force: every group on every tier.
        // (bytes off tier 0, cost, accessed bytes off tier 0) of every feasible choice.
        let feasible: Vec<(u64, u64, u64)> = all_choices(groups.len(), 3)
            .into_iter()
            .filter_map(|choice| {
                let mut bytes = [0u64; 3];
                let (mut cost, mut accessed) = (0, 0);
                for (grp, &t) in groups.iter().zip(&choice) {
                    for &i in grp {
                        bytes[t] += w.structures[i].bytes;
                        cost += ps[t][i];
                        if t != 0 && w.structures[i].accessed() {
                            accessed += w.structures[i].bytes;
                        }
                    }
                }
                let fits = (0..3).all(|t| caps[t].is_none_or(|c| bytes[t] <= c));
                fits.then_some((total - bytes[0], cost, accessed))
            })
            .collect();
        let t_ps = w.t_dram_ns * 1000.0;
        let budget = rng.gen_range(0.0..0.8);
        let target = rng.gen_range(0.0..1.0);
        let limit = (budget * t_ps * (1.0 + 1e-12)).floor() as u64;
        let need = (target * w.accessed_bytes() as f64 * (1.0 - 1e-12)).ceil() as u64;
        let best_b = feasible
            .iter()
            .filter(|&&(_, c, _)| c <= limit)
            .map(|&(b, _, _)| b)
            .max();
        let best_t = feasible
            .iter()
            .filter(|&&(_, _, a)| a >= need)
            .map(|&(_, c, _)| c)
            .min();
        for (obj, best) in [
            (Objective::Budget(budget), best_b),
            (Objective::Target(target), best_t),
        ] {
            match (solve_tiers(&p, obj), best) {
                (Ok(s), Some(best)) => {
                    solved += 1;
                    assert!(moves_whole_groups(&s.assignment.tier, &groups));
                    let cost: u64 = (0..n).map(|i| ps[s.assignment.tier[i]][i]).sum();
                    for (cap, &used) in caps.iter().zip(&s.bytes_per_tier) {
                        assert!(cap.is_none_or(|c| used <= c), "case {case}: capacity");
                    }
                    match obj {
                        Objective::Budget(_) => {
                            assert!(cost <= limit, "case {case}: over budget");
                            assert_eq!(s.bytes_moved, best, "case {case} {by}: not optimal");
                        }
                        Objective::Target(_) => {
                            let accessed: u64 = (0..n)
                                .filter(|&i| s.assignment.tier[i] != 0)
                                .map(|i| &w.structures[i])
                                .filter(|s| s.accessed())
                                .map(|s| s.bytes)
                                .sum();
                            assert!(accessed >= need, "case {case}: under target");
                            // Costs enter the LP as fractions of T_DRAM: equal to 1e-6.
                            let d = cost.abs_diff(best) as f64;
                            assert!(d <= 1e-6 * t_ps, "case {case} {by}: {cost} vs best {best}");
                        }
                    }
                }
                (Err(Error::Infeasible(msg)), None) => assert!(!msg.contains('\n')),
                (got, want) => {
                    panic!("case {case} {by} {obj:?}: got {got:?}, brute force {want:?}")
                }
            }
        }
    }
    assert!(solved >= 24, "only {solved} feasible instances");
}

#[test]
fn mip_matches_the_front_on_two_tiers() {
    let mut rng = SmallRng::seed_from_u64(9);
    let m = model();
    let profile = Profile::optane_200();
    for _ in 0..10 {
        let w = random_workload(&mut rng, 10);
        let two = TwoTierProblem::new(&w, &m, &profile, Granularity::Structure).unwrap();
        let mip = TierProblem::new(
            &w,
            &m,
            std::slice::from_ref(&profile),
            &[None, None],
            Granularity::Structure,
        )
        .unwrap();
        let b = rng.gen_range(0.0..0.5);
        let f = solve_budget(&two, b).unwrap();
        let s = solve_tiers_within(&mip, Objective::Budget(b), Duration::from_secs(30)).unwrap();
        assert_eq!(f.bytes_moved, s.bytes_moved);
        // A target, a share of the accessed bytes, in both: the same least time, and
        // everything that costs nothing off DRAM in both.
        let t = rng.gen_range(0.0..1.0);
        let f = solve_target(&two, t).unwrap();
        let s = solve_tiers_within(&mip, Objective::Target(t), Duration::from_secs(30)).unwrap();
        assert!(
            (f.t_ns - s.t_ns).abs() <= 1e-6 * w.t_dram_ns,
            "{f:?} vs {s:?}"
        );
        let free: Vec<usize> = two
            .items()
            .iter()
            .filter(|it| it.cost_ps == 0 && it.bytes > 0)
            .flat_map(|it| it.structures.clone())
            .collect();
        for i in free {
            assert_eq!((f.assignment.tier[i], s.assignment.tier[i]), (1, 1));
        }
    }
}

#[test]
fn capacities_no_placement_can_meet_are_infeasible() {
    let mut rng = SmallRng::seed_from_u64(1);
    let w = random_workload(&mut rng, 4);
    let total = w.total_bytes();
    let profiles = [Profile::optane_200()];
    let p = TierProblem::new(
        &w,
        &model(),
        &profiles,
        &[Some(0), Some(total - 1)],
        Granularity::Structure,
    )
    .unwrap();
    let e = solve_tiers(&p, Objective::Target(0.0)).unwrap_err();
    assert!(matches!(e, Error::Infeasible(_)), "{e}");
    assert!(e.to_string().contains("capacities"), "{e}");
    // Room for everything, but DRAM may hold nothing while the budget is zero and every
    // structure costs something: only feasible if all are free.
    let p = TierProblem::new(
        &w,
        &model(),
        &profiles,
        &[Some(0), None],
        Granularity::Structure,
    )
    .unwrap();
    let costly = costs_ps(&w, &profiles[0], &model()).iter().any(|&c| c > 0);
    match solve_tiers(&p, Objective::Budget(0.0)) {
        Err(Error::Infeasible(m)) => assert!(costly && m.contains("budget"), "{m}"),
        Ok(s) => assert!(!costly && s.bytes_moved == total),
        Err(e) => panic!("{e}"),
    }
    let e = TierProblem::new(&w, &model(), &profiles, &[None], Granularity::Table).unwrap_err();
    assert!(e.to_string().contains("capacities"), "{e}");
}
