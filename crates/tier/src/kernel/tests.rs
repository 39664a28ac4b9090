//! Unit tests of the kernels: every ISA, operation and size against the portable one.

use super::*;
use crate::region::{Region, RegionOptions};
use crate::spec::TierSpec;

const SIZES: [usize; 5] = [64, 128, 256, 4096, 1 << 16];

fn region(len: usize) -> Region {
    Region::new(
        &TierSpec::Dram { node: None },
        len,
        &RegionOptions {
            prefault: true,
            ..Default::default()
        },
    )
    .unwrap()
}

fn isas() -> Vec<Isa> {
    let f = CpuFeatures::detect();
    let v: Vec<Isa> = Isa::ALL.into_iter().filter(|i| i.supported(&f)).collect();
    assert!(v.contains(&Isa::Portable));
    v
}

fn write_ops() -> Vec<AccessOp> {
    let f = CpuFeatures::detect();
    PersistMode::ALL
        .into_iter()
        .filter(|m| m.check(&f).is_ok())
        .flat_map(|persist| [false, true].map(|sfence| AccessOp::Write { persist, sfence }))
        .collect()
}

/// Deterministic pseudo-random bytes.
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len / 8)
        .flat_map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_le_bytes()
        })
        .collect()
}

fn words(b: &[u8]) -> impl Iterator<Item = u64> + '_ {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
}

fn pattern_bytes(len: usize) -> Vec<u8> {
    (0..len / 8)
        .flat_map(|i| PATTERN[i % 8].to_le_bytes())
        .collect()
}

#[test]
fn isa_names_and_selection() {
    for i in Isa::ALL {
        assert_eq!(i.to_string().parse::<Isa>().unwrap(), i);
        assert_eq!(serde_json::to_string(&i).unwrap(), format!("\"{i}\""));
    }
    let none = CpuFeatures::default();
    assert_eq!(Isa::select("auto", &none).unwrap(), Isa::Portable);
    assert!(matches!(
        Isa::select("avx512", &none),
        Err(Error::MissingCpuFeature("avx512f"))
    ));
    assert!(matches!(
        Isa::select("avx2", &none),
        Err(Error::MissingCpuFeature("avx2"))
    ));
    let e = Isa::select("sse", &none).unwrap_err().to_string();
    assert!(
        e.contains("sse") && e.contains("avx512") && e.contains("portable") && !e.contains('\n')
    );
    let both = CpuFeatures {
        avx512f: true,
        avx2: true,
        ..none
    };
    assert_eq!(Isa::best(&both), Isa::Avx512);
    assert_eq!(Isa::best(&CpuFeatures { avx2: true, ..none }), Isa::Avx2);
    assert_eq!(Isa::select("avx2", &both).unwrap(), Isa::Avx2);
}

#[test]
fn bad_kernels_are_refused() {
    let f = CpuFeatures::detect();
    let none = CpuFeatures::default();
    assert!(matches!(
        Kernel::new(Isa::Avx512, AccessOp::Read, 64, &none),
        Err(Error::MissingCpuFeature("avx512f"))
    ));
    for size in [0, 32, 96, 100, 4095] {
        let e = Kernel::new(Isa::Portable, AccessOp::Read, size, &f)
            .unwrap_err()
            .to_string();
        assert!(e.contains(&size.to_string()), "{e}");
    }
    let w = AccessOp::Write {
        persist: PersistMode::Clwb,
        sfence: true,
    };
    assert!(matches!(
        Kernel::new(Isa::Portable, w, 64, &none),
        Err(Error::MissingCpuFeature("clwb"))
    ));
}

#[test]
fn names_say_what_runs() {
    let f = CpuFeatures::detect();
    let k = Kernel::new(Isa::Portable, AccessOp::Read, 4096, &f).unwrap();
    assert_eq!(k.name(), "portable read 4096B (unrolled x8)");
    let w = AccessOp::Write {
        persist: PersistMode::NtStore,
        sfence: true,
    };
    let k = Kernel::new(Isa::Portable, w, 64, &f).unwrap();
    assert_eq!(k.name(), "portable write nt-store+sfence 64B (1 line)");
    assert_eq!((k.isa(), k.access_size(), k.op()), (Isa::Portable, 64, w));
}

#[test]
fn writes_fill_exactly_the_targeted_chunks() {
    let f = CpuFeatures::detect();
    for size in SIZES {
        let (start, stride, count) = (192, 2 * size, 3);
        let len = start + 2 * stride + size + 4096;
        let mut r = region(len);
        let v = r.view();
        let background = vec![0xEEu8; len];
        for isa in isas() {
            for op in write_ops() {
                let k = Kernel::new(isa, op, size, &f).unwrap();
                v.copy_from(0, &background).unwrap();
                assert_eq!(k.run_strided(&v, start, stride, count).unwrap(), 0);
                let mut got = vec![0u8; len];
                v.copy_to(0, &mut got).unwrap();
                let mut want = background.clone();
                for i in 0..count {
                    let at = start + i * stride;
                    want[at..at + size].copy_from_slice(&pattern_bytes(size));
                }
                assert!(got == want, "{}: wrong bytes", k.name());

                // The same through offsets, out of order.
                v.copy_from(0, &background).unwrap();
                let offs = [start + 2 * stride, start];
                assert_eq!(k.run_offsets(&v, &offs).unwrap(), 0);
                v.copy_to(0, &mut got).unwrap();
                want.copy_from_slice(&background);
                for &at in &offs {
                    want[at..at + size].copy_from_slice(&pattern_bytes(size));
                }
                assert!(got == want, "{}: wrong bytes via offsets", k.name());
            }
        }
    }
}

#[test]
fn reads_fold_the_same_on_every_isa() {
    let f = CpuFeatures::detect();
    for size in SIZES {
        let (start, stride, count) = (64 * 5, 3 * size, 3);
        let len = start + 2 * stride + size + 4096;
        let mut r = region(len);
        let v = r.view();
        let data = noise(len, size as u64);
        v.copy_from(0, &data).unwrap();
        let chunk = |at: usize| words(&data[at..at + size]).fold(0, |a, b| a ^ b);
        let want = (0..count)
            .map(|i| chunk(start + i * stride))
            .fold(0, |a, b| a ^ b);
        assert_ne!(want, 0);
        for isa in isas() {
            let k = Kernel::new(isa, AccessOp::Read, size, &f).unwrap();
            assert_eq!(
                k.run_strided(&v, start, stride, count).unwrap(),
                want,
                "{}",
                k.name()
            );
            // stride 0: three reads of one chunk fold to that chunk.
            assert_eq!(
                k.run_strided(&v, start, 0, 3).unwrap(),
                chunk(start),
                "{}",
                k.name()
            );
            let offs = [start + stride, 0, start + stride];
            assert_eq!(k.run_offsets(&v, &offs).unwrap(), chunk(0), "{}", k.name());
            assert_eq!(k.run_strided(&v, start, stride, 0).unwrap(), 0);
            // Reads leave the data alone.
            let mut back = vec![0u8; len];
            v.copy_to(0, &mut back).unwrap();
            assert!(back == data);
        }
    }
}

#[test]
fn out_of_bounds_and_misaligned_runs_are_errors() {
    let f = CpuFeatures::detect();
    let mut r = region(64 * 1024);
    let v = r.view();
    let w = AccessOp::Write {
        persist: PersistMode::NtStore,
        sfence: false,
    };
    for isa in isas() {
        for op in [AccessOp::Read, w] {
            let k = Kernel::new(isa, op, 4096, &f).unwrap();
            assert!(k.run_strided(&v, 0, 4096, 16).is_ok());
            assert!(matches!(
                k.run_strided(&v, 0, 4096, 17),
                Err(Error::OutOfBounds { .. })
            ));
            assert!(matches!(
                k.run_strided(&v, 61440 + 64, 0, 1),
                Err(Error::OutOfBounds { .. })
            ));
            assert!(matches!(
                k.run_strided(&v, 1 << 20, 4096, 0),
                Err(Error::OutOfBounds { .. })
            ));
            assert!(k.run_strided(&v, 0, usize::MAX & !63, 3).is_err());
            assert!(k.run_strided(&v, 0, 4096, usize::MAX).is_err());
            assert!(matches!(
                k.run_strided(&v, 8, 4096, 1),
                Err(Error::Invalid(_))
            ));
            assert!(matches!(
                k.run_strided(&v, 0, 4096 + 8, 1),
                Err(Error::Invalid(_))
            ));
            assert!(matches!(
                k.run_strided(&v, 0, 2048, 2),
                Err(Error::Invalid(_))
            ));
            assert!(k.run_offsets(&v, &[0, 61440]).is_ok());
            assert!(matches!(
                k.run_offsets(&v, &[0, 61440 + 64]),
                Err(Error::OutOfBounds { .. })
            ));
            assert!(matches!(
                k.run_offsets(&v, &[usize::MAX]),
                Err(Error::OutOfBounds { .. })
            ));
            assert!(matches!(
                k.run_offsets(&v, &[4096, 100]),
                Err(Error::Invalid(_))
            ));
            assert_eq!(k.run_offsets(&v, &[]).unwrap(), 0);
        }
    }
    let mut small = region(64);
    let sv = small.view();
    let k = Kernel::new(Isa::Portable, AccessOp::Read, 128, &f).unwrap();
    assert!(k.run_offsets(&sv, &[0]).is_err());
    assert!(k.run_strided(&sv, 0, 0, 1).is_err());
}
