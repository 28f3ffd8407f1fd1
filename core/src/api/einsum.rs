//! `torch.einsum` for one or two operands, written over views, sums and one batched matmul: repeated letters in an
//! operand take its diagonal, letters only one operand has and the output lacks are summed first, and the rest is
//! arranged as [batch, free, contracted] × [batch, contracted, free] for matmul. `...` stands for leading dims.

use crate::base::dtype::DType;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// One operand's letters, with `...` expanded to upper-case stand-ins (einsum letters are lower- or upper-case
/// ASCII; the stand-ins are chosen from those the equation leaves unused).
fn letters(spec: &str, ndim: usize, dots: &[char]) -> Result<Vec<char>> {
    let plain = spec.replace("...", "");
    if let Some(c) = plain.chars().find(|c| !c.is_ascii_alphabetic()) {
        return Err(Error::Value(format!("einsum(): invalid subscript given at index of '{c}'")));
    }
    let named = plain.chars().count();
    let out: Vec<char> = if spec.contains("...") {
        if ndim < named {
            return Err(Error::Runtime(format!(
                "einsum(): the number of subscripts in the equation ({named}) is more than the number of dimensions \
                 ({ndim}) for operand"
            )));
        }
        let k = ndim - named;
        let (head, tail) = spec.split_once("...").unwrap_or((spec, ""));
        let lead = &dots[dots.len() - k..];
        head.chars().chain(lead.iter().copied()).chain(tail.chars()).collect()
    } else {
        plain.chars().collect()
    };
    if out.len() != ndim {
        return Err(Error::Runtime(format!(
            "einsum(): the number of subscripts in the equation ({}) does not match the number of dimensions ({ndim}) \
             for operand and no ellipsis was given",
            out.len()
        )));
    }
    Ok(out)
}

/// `x` with repeated letters reduced to their diagonal: each letter appears once.
fn distinct(x: &Tensor, mut ls: Vec<char>) -> Result<(Tensor, Vec<char>)> {
    let mut x = x.clone();
    while let Some((i, j)) = (0..ls.len()).find_map(|i| (i + 1..ls.len()).find(|&j| ls[j] == ls[i]).map(|j| (i, j))) {
        if x.shape()[i] != x.shape()[j] {
            return Err(Error::Runtime(format!(
                "einsum(): subscript {} is repeated for operand but the sizes don't match, {} != {}",
                ls[i],
                x.shape()[i],
                x.shape()[j]
            )));
        }
        // diagonal moves the pair's dim last.
        x = x.diagonal(0, i as i64, j as i64)?;
        let c = ls[i];
        ls.remove(j);
        ls.remove(i);
        ls.push(c);
    }
    Ok((x, ls))
}

/// Sum out the letters of `x` that appear in neither `keep` list.
fn sum_unused(x: Tensor, ls: Vec<char>, keep: &[&[char]]) -> Result<(Tensor, Vec<char>)> {
    let gone: Vec<i64> =
        (0..ls.len()).filter(|&d| !keep.iter().any(|k| k.contains(&ls[d]))).map(|d| d as i64).collect();
    if gone.is_empty() {
        return Ok((x, ls));
    }
    let rest = ls.iter().enumerate().filter(|(d, _)| !gone.contains(&(*d as i64))).map(|(_, c)| *c).collect();
    Ok((x.sum(Some(&gone), false)?, rest))
}

/// `x` permuted to `order` (a subset arrangement of its letters), each letter's size taken from `size`.
fn arranged(x: &Tensor, ls: &[char], order: &[char], size: &dyn Fn(char) -> usize) -> Result<Tensor> {
    let perm: Vec<i64> = order.iter().map(|c| ls.iter().position(|l| l == c).unwrap_or(0) as i64).collect();
    let shape: Vec<usize> = order.iter().map(|&c| size(c)).collect();
    x.permute(&perm)?.expand(&shape)
}

pub fn einsum(equation: &str, operands: &[Tensor]) -> Result<Tensor> {
    let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (eq.clone(), None),
    };
    let specs: Vec<&str> = lhs.split(',').collect();
    if specs.len() != operands.len() {
        return Err(Error::Value(format!(
            "einsum(): more operands were provided than specified in the equation ({} vs {})",
            operands.len(),
            specs.len()
        )));
    }
    if !(1..=2).contains(&operands.len()) {
        return Err(Error::Unsupported("einsum(): one or two operands are supported".into()));
    }
    crate::tensor::check::declared("einsum", &operands[0])?;
    if operands[0].dtype() == DType::Bool && operands.iter().all(|t| t.numel() > 0) {
        // torch's product kernel refuses bool (before any dtype comparison) where it has elements to multiply.
        return Err(Error::Unsupported("\"bmm\" not implemented for 'Bool'".into()));
    }
    // torch's einsum does not promote: every operand has the first one's dtype.
    if let Some(t) = operands.iter().find(|t| t.dtype() != operands[0].dtype()) {
        return Err(Error::Runtime(format!(
            "einsum(): expected scalar type {} but found {}",
            operands[0].dtype().name(),
            t.dtype().name()
        )));
    }
    let used: Vec<char> = eq.chars().filter(char::is_ascii_alphabetic).collect();
    let dots: Vec<char> = ('A'..='Z').rev().filter(|c| !used.contains(c)).collect();
    let raw: Vec<Vec<char>> =
        specs.iter().zip(operands).map(|(spec, x)| letters(spec, x.ndim(), &dots)).collect::<Result<_>>()?;
    // The output: as given, or (implicit) the ellipsis dims then the letters seen once, sorted.
    let out: Vec<char> = match &rhs {
        Some(r) => {
            let k = raw.iter().map(|ls| ls.iter().filter(|c| dots.contains(c)).count()).max().unwrap_or(0);
            let lead: Vec<char> = dots[dots.len() - k..].to_vec();
            let (head, tail) = r.split_once("...").unwrap_or((r.as_str(), ""));
            head.chars().chain(lead).chain(tail.chars()).collect()
        }
        None => {
            // Counted before diagonals are taken: "ii" repeats i, so its implicit output is the trace.
            let all: Vec<char> = raw.iter().flatten().copied().collect();
            let lead: Vec<char> = dots.iter().filter(|c| all.contains(c)).copied().collect();
            let mut once: Vec<char> = all
                .iter()
                .filter(|c| !dots.contains(c) && all.iter().filter(|d| d == c).count() == 1)
                .copied()
                .collect();
            once.sort_unstable();
            lead.into_iter().chain(once).collect()
        }
    };
    let mut ops = Vec::new();
    for (x, ls) in operands.iter().zip(raw) {
        ops.push(distinct(x, ls)?);
    }
    for c in &out {
        if !ops.iter().any(|(_, ls)| ls.contains(c)) {
            return Err(Error::Value(format!(
                "einsum(): output subscript {c} does not appear in the equation for any input operand"
            )));
        }
    }
    // Every letter's size (1 broadcasts against any other size).
    let mut sizes: Vec<(char, usize)> = Vec::new();
    for (x, ls) in &ops {
        for (d, &c) in ls.iter().enumerate() {
            let n = x.shape()[d];
            match sizes.iter_mut().find(|(l, _)| *l == c) {
                Some((_, m)) if *m == 1 => *m = n,
                Some((_, m)) if *m != n && n != 1 => {
                    return Err(Error::Runtime(format!(
                        "einsum(): operands do not broadcast with remapped shapes (original->remapped): size {m} vs {n} \
                         for subscript {c}"
                    )));
                }
                Some(_) => {}
                None => sizes.push((c, n)),
            }
        }
    }
    let size = |c: char| sizes.iter().find(|(l, _)| *l == c).map_or(1, |(_, n)| *n);
    let dtype = operands[0].dtype();
    let out_shape: Vec<usize> = out.iter().map(|&c| size(c)).collect();
    if crate::base::view::numel(&out_shape) == 0 {
        // Nothing to compute (and torch returns it even where its matmul would refuse the dtype).
        return Tensor::zeros(&out_shape, dtype, operands[0].device());
    }
    if ops.len() == 1 {
        let (x, ls) = ops.remove(0);
        let (x, ls) = sum_unused(x.to_dtype(dtype)?, ls, &[&out])?;
        return arranged(&x, &ls, &out, &size);
    }
    let (b, lb) = ops.remove(1);
    let (a, la) = ops.remove(0);
    let (a, la) = sum_unused(a.to_dtype(dtype)?, la, &[&out, &lb])?;
    let (b, lb) = sum_unused(b.to_dtype(dtype)?, lb, &[&out, &la])?;
    let batch: Vec<char> = out.iter().filter(|c| la.contains(c) && lb.contains(c)).copied().collect();
    let free_a: Vec<char> = la.iter().filter(|c| !lb.contains(c)).copied().collect();
    let free_b: Vec<char> = lb.iter().filter(|c| !la.contains(c)).copied().collect();
    let contract: Vec<char> = la.iter().filter(|c| lb.contains(c) && !out.contains(c)).copied().collect();
    let n = |cs: &[char]| cs.iter().map(|&c| size(c)).product::<usize>() as i64;
    let a_order: Vec<char> = batch.iter().chain(&free_a).chain(&contract).copied().collect();
    let b_order: Vec<char> = batch.iter().chain(&contract).chain(&free_b).copied().collect();
    let a3 = arranged(&a, &la, &a_order, &size)?.reshape(&[n(&batch), n(&free_a), n(&contract)])?;
    let b3 = arranged(&b, &lb, &b_order, &size)?.reshape(&[n(&batch), n(&contract), n(&free_b)])?;
    let c = a3.matmul(&b3)?;
    let got: Vec<char> = batch.iter().chain(&free_a).chain(&free_b).copied().collect();
    let shape: Vec<i64> = got.iter().map(|&c| size(c) as i64).collect();
    let c = c.reshape(&shape)?;
    let perm: Vec<i64> = out.iter().map(|ch| got.iter().position(|g| g == ch).unwrap_or(0) as i64).collect();
    c.permute(&perm)
}
