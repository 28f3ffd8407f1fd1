//! f32 → f16/bf16 narrowing is bit-exact with the `half` crate (round to nearest even) over every interesting bit
//! pattern, on the CPU oracle and on every Vulkan device.

use vkml_core::api::Tensor;
use vkml_core::base::dtype::DType;
use vkml_core::util::narrow::{f32_to_bf16_bits, f32_to_f16_bits};
use vkml_tests::{bytes, devices};

/// Every sign/exponent/top-mantissa combination (the upper 16 bits) with low bits at and around each rounding
/// boundary of both formats: ties, just below and above ties, zero and all-ones tails.
fn patterns() -> Vec<u32> {
    let lows = [0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x7fff, 0x8000, 0x8001, 0xefff, 0xf000, 0xffff];
    (0u32..=0xffff).flat_map(|hi| lows.iter().map(move |&lo| (hi << 16) | lo)).collect()
}

fn same(a: u16, b: u16, nan: impl Fn(u16) -> bool) -> bool {
    a == b || (nan(a) && nan(b))
}

#[test]
fn software_narrowing_matches_half() {
    let f16_nan = |h: u16| (h & 0x7c00) == 0x7c00 && (h & 0x03ff) != 0;
    let bf16_nan = |h: u16| (h & 0x7f80) == 0x7f80 && (h & 0x007f) != 0;
    let mut bad = 0;
    for bits in patterns() {
        let x = f32::from_bits(bits);
        if !same(f32_to_f16_bits(x), half::f16::from_f32(x).to_bits(), f16_nan) {
            bad += 1;
        }
        if !same(f32_to_bf16_bits(x), half::bf16::from_f32(x).to_bits(), bf16_nan) {
            bad += 1;
        }
    }
    assert_eq!(bad, 0, "{bad} narrowing results differ from the half crate");
}

#[test]
fn gpu_narrowing_is_bit_exact_with_the_oracle() -> vkml_core::Result<()> {
    let d = devices();
    let pats = patterns();
    let raw: Vec<u8> = pats.iter().flat_map(|b| b.to_le_bytes()).collect();
    for target in [DType::F16, DType::BF16] {
        let want = bytes(&Tensor::from_bytes(raw.clone(), &[pats.len()], DType::F32, d.cpu)?.to_dtype(target)?)?;
        for (id, _) in &d.gpus {
            let got = bytes(&Tensor::from_bytes(raw.clone(), &[pats.len()], DType::F32, *id)?.to_dtype(target)?)?;
            let diff = want.chunks(2).zip(got.chunks(2)).filter(|(a, b)| a != b).count();
            assert_eq!(diff, 0, "{} narrowing on {:?}: {diff} elements differ", target.name(), id);
        }
    }
    Ok(())
}
