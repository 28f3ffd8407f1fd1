//! Random ops over the Philox stream that rand and randn draw from (so a seed gives the same bits on every device):
//! randint, normal, bernoulli, randperm and multinomial, with torch's signatures and checks; and empty.

use crate::api::elementwise::{binary, s, t};
use crate::base::buffer::DeviceId;
use crate::base::dtype::DType;
use crate::base::scalar::Scalar;
use crate::graph::op::{BinaryOp, UnaryOp};
use crate::tensor::promote::Operand;
use crate::tensor::realize::read_bytes;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// The widest range randint draws exactly: each value is floor(u·range) of one 24-bit uniform u.
const RANDINT_RANGE: i64 = 1 << 24;

/// `torch.randint(low, high, size)`: integers uniform in [low, high), as `dtype` (int64 by default in torch).
pub fn randint(low: i64, high: i64, shape: &[usize], dtype: DType, device: DeviceId) -> Result<Tensor> {
    if high <= low {
        return Err(Error::Runtime(format!(
            "random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )));
    }
    let (lo, hi) = match dtype {
        DType::Bool => (0, 2),
        DType::I32 => (i64::from(i32::MIN), i64::from(i32::MAX) + 1),
        _ => (i64::MIN, i64::MAX),
    };
    if low < lo {
        return Err(Error::Runtime(format!("from is out of bounds for {}", dtype.name())));
    }
    if high > hi {
        return Err(Error::Runtime(format!("to - 1 is out of bounds for {}", dtype.name())));
    }
    let range = high - low;
    if range > RANDINT_RANGE {
        return Err(Error::Unsupported(format!(
            "randint: a range of {range} values exceeds 2^24, the most one 24-bit uniform draw spreads evenly"
        )));
    }
    let u = Tensor::rand(shape, DType::F32, device)?;
    // u·range < range for u ≤ 1 − 2⁻²⁴ unless it rounds up; the clamp keeps that rare case in range.
    let v = binary(&t(&u), &s(range as f64), BinaryOp::Mul)?.unary(UnaryOp::Floor)?;
    let v = binary(&t(&v), &s((range - 1) as f64), BinaryOp::Minimum)?.to_dtype(DType::I64)?;
    binary(&t(&v), &Operand::Scalar(Scalar::Int(low)), BinaryOp::Add)?.to_dtype(dtype)
}

/// `torch.normal(mean, std)` for tensors or numbers (broadcast together; `shape` when both are numbers):
/// mean + std·N(0, 1). torch refuses a negative std; a tensor std is read back to check it, as torch's CPU does.
pub fn normal(
    mean: &Operand,
    std: &Operand,
    shape: Option<&[usize]>,
    dtype: DType,
    device: DeviceId,
) -> Result<Tensor> {
    match std {
        Operand::Scalar(v) if v.as_f64() < 0.0 => {
            return Err(Error::Runtime(format!("normal expects std >= 0.0, but found std {}", v.as_f64())));
        }
        Operand::Tensor(sd) if sd.numel() > 0 => {
            let lo = sd.to_dtype(DType::F32)?.amin(None, false)?;
            let b = read_bytes(&lo)?;
            if b.len() == 4 && f32::from_le_bytes([b[0], b[1], b[2], b[3]]) < 0.0 {
                return Err(Error::Runtime("normal expects all elements of std >= 0.0".into()));
            }
        }
        _ => {}
    }
    let out = match (mean, std, shape) {
        (Operand::Scalar(_), Operand::Scalar(_), Some(sh)) => sh.to_vec(),
        _ => {
            let shapes: Vec<&[usize]> = [mean, std]
                .iter()
                .filter_map(|o| if let Operand::Tensor(x) = o { Some(x.shape()) } else { None })
                .collect();
            shapes.iter().try_fold(Vec::new(), |acc, sh| crate::base::view::broadcast_shapes(&acc, sh))?
        }
    };
    let dt = [mean, std].iter().find_map(|o| if let Operand::Tensor(x) = o { Some(x.dtype()) } else { None });
    let dt = dt.unwrap_or(dtype);
    // torch checks the dtype only when there is something to draw.
    if !dt.is_float() && crate::base::view::numel(&out) == 0 {
        return Tensor::zeros(&out, dt, device);
    }
    if !dt.is_float() {
        return Err(Error::Unsupported(format!("\"normal_kernel_cpu\" not implemented for '{}'", dt.name())));
    }
    let z = Tensor::randn(&out, dt, device)?;
    let scaled = binary(&t(&z), std, BinaryOp::Mul)?;
    binary(&t(&scaled), mean, BinaryOp::Add)
}

/// `torch.bernoulli(p)`: 1 with probability p (each element), in p's dtype. torch's CPU refuses p outside [0, 1]
/// by reading it; so does this.
pub fn bernoulli(p: &Tensor) -> Result<Tensor> {
    if !p.dtype().is_float() && p.numel() == 0 {
        return Tensor::zeros(p.shape(), p.dtype(), p.device());
    }
    if !p.dtype().is_float() {
        return Err(Error::Unsupported(format!(
            "\"bernoulli_tensor_cpu_p_\" not implemented for '{}'",
            p.dtype().name()
        )));
    }
    if p.numel() > 0 {
        let f = p.to_dtype(DType::F32)?;
        let bad = binary(
            &t(&binary(&t(&f), &s(0.0), BinaryOp::Lt)?),
            &t(&binary(&t(&f), &s(1.0), BinaryOp::Gt)?),
            BinaryOp::BitOr,
        )?;
        let bad = binary(&t(&bad), &t(&f.isnan()?), BinaryOp::BitOr)?.any(None, false)?;
        if read_bytes(&bad)?.first().copied().unwrap_or(0) != 0 {
            return Err(Error::Runtime("Expected p_in >= 0 && p_in <= 1 to be true, but got false.".into()));
        }
    }
    let u = Tensor::rand(p.shape(), DType::F32, p.device())?;
    binary(&t(&u), &t(&p.to_dtype(DType::F32)?), BinaryOp::Lt)?.to_dtype(p.dtype())
}

/// `torch.randperm(n)`: the positions that sort n uniform draws (a stable sort, so a tie — two equal 24-bit draws
/// — keeps index order: a bias of at most n²·2⁻²⁵ in probability).
pub fn randperm(n: i64, dtype: DType, device: DeviceId) -> Result<Tensor> {
    if n < 0 {
        return Err(Error::Runtime(format!("n must be non-negative, got{n}")));
    }
    if dtype == DType::Bool {
        return Err(Error::Unsupported("\"randperm\" not implemented for 'Bool'".into()));
    }
    let u = Tensor::rand(&[n as usize], DType::F32, device)?;
    crate::api::sort::argsort(&u, 0, false)?.to_dtype(dtype)
}

/// `torch.multinomial(probs, num_samples, replacement)`: category indices (int64) drawn with weights `probs` (1-d, or
/// 2-d with one distribution per row) by inverting the cumulative weights: a draw u picks the first category whose
/// running total exceeds u·total. Every step is exact or correctly rounded (a scan in one fixed order, one product,
/// comparisons, a count), so a seed gives the same samples on every device. Without replacement, each pick's weight
/// is set to zero before the next draw. The weights are read back to check them, as torch's CPU kernel does.
pub fn multinomial(probs: &Tensor, num_samples: i64, replacement: bool) -> Result<Tensor> {
    if !(1..=2).contains(&probs.ndim()) {
        return Err(Error::Runtime("prob_dist must be 1 or 2 dim".into()));
    }
    if !probs.dtype().is_float() {
        return Err(Error::Runtime(format!(
            "multinomial only supports floating-point dtypes for input, got: {}",
            probs.dtype().name()
        )));
    }
    if num_samples <= 0 {
        return Err(Error::Runtime("cannot sample n_sample <= 0 samples".into()));
    }
    let c = *probs.shape().last().unwrap_or(&0);
    if !replacement && num_samples as usize > c {
        return Err(Error::Runtime("cannot sample n_sample > prob_dist.size(-1) samples without replacement".into()));
    }
    let mut p = probs.to_dtype(DType::F32)?;
    if p.ndim() == 1 {
        p = p.unsqueeze(0)?;
    }
    check_weights(&p, num_samples, replacement)?;
    let rows = p.shape()[0];
    let k = num_samples as usize;
    let picks = if replacement {
        draw(&p, k)?
    } else {
        let mut got = Vec::with_capacity(k);
        for _ in 0..k {
            let one = draw(&p, 1)?;
            // The picked category's weight becomes 0 for the next draws.
            let zero = Tensor::zeros(&[rows, 1], DType::F32, p.device())?;
            p = crate::api::gather::scatter_unchecked(&p, 1, &one, &zero, false)?;
            got.push(one);
        }
        crate::api::join::cat(&got, 1)?
    };
    if probs.ndim() == 1 {
        picks.squeeze(Some(&[0]))
    } else {
        Ok(picks)
    }
}

/// `k` draws with replacement from each row of the (rows, C) weights: the count of running totals ≤ u·total among
/// the first C − 1 categories.
fn draw(p: &Tensor, k: usize) -> Result<Tensor> {
    let (rows, c) = (p.shape()[0], p.shape()[1]);
    let cdf = crate::api::scan::cumsum(p, 1, None)?;
    let total = cdf.narrow(1, c as i64 - 1, 1)?;
    let u = Tensor::rand(&[rows, k], DType::F32, p.device())?;
    let target = binary(&t(&u), &t(&total), BinaryOp::Mul)?.unsqueeze(-1)?;
    let below = cdf.narrow(1, 0, c as i64 - 1)?.unsqueeze(1)?;
    let passed = binary(&t(&below), &t(&target), BinaryOp::Le)?;
    passed.to_dtype(DType::I64)?.sum(Some(&[-1]), false)
}

/// torch's checks of multinomial weights: finite, non-negative, a positive sum per row, and enough nonzero ones
/// to draw without replacement.
fn check_weights(p: &Tensor, n: i64, replacement: bool) -> Result<()> {
    if p.numel() == 0 {
        return Err(Error::Runtime("multinomial: the weights are empty".into()));
    }
    let zero = Operand::Scalar(Scalar::Int(0));
    let bad = binary(&t(&p.isfinite()?.logical_not()?), &t(&binary(&t(p), &zero, BinaryOp::Lt)?), BinaryOp::BitOr)?;
    let bad = bad.any(None, false)?.to_dtype(DType::I64)?.reshape(&[1])?;
    let positive = binary(&t(p), &zero, BinaryOp::Gt)?.to_dtype(DType::I64)?.sum(Some(&[-1]), false)?;
    let fewest = positive.amin(None, false)?.reshape(&[1])?;
    let b = read_bytes(&crate::api::join::cat(&[bad, fewest], 0)?)?;
    let words: Vec<i64> =
        b.chunks_exact(8).map(|w| i64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]])).collect();
    if words.first() != Some(&0) {
        return Err(Error::Runtime("probability tensor contains either `inf`, `nan` or element < 0".into()));
    }
    let fewest = words.get(1).copied().unwrap_or(0);
    if fewest == 0 {
        return Err(Error::Runtime("invalid multinomial distribution (sum of probabilities <= 0)".into()));
    }
    if !replacement && fewest < n {
        return Err(Error::Runtime(
            "invalid multinomial distribution (with replacement=False, not enough non-negative category to sample)"
                .into(),
        ));
    }
    Ok(())
}

/// `torch.empty(size)`: vkml fills it with zeros (torch leaves it undefined), so no stale data is ever read.
pub fn empty(shape: &[usize], dtype: DType, device: DeviceId) -> Result<Tensor> {
    Tensor::zeros(shape, dtype, device)
}
