//! Attention, written once over matmul, softmax and where: `scaled_dot_product_attention` (torch's functional form,
//! boolean masks keep what is True) and the forward of `nn.MultiheadAttention` with torch's parameter layout (packed
//! or separate in_proj, bias_k/bias_v, out_proj; boolean masks there hide what is True), shared by the Python and
//! JavaScript modules.

use crate::api::elementwise::{binary, scale, t, where_};
use crate::api::join::cat;
use crate::base::dtype::{opmath, DType};
use crate::base::scalar::Scalar;
use crate::graph::op::BinaryOp;
use crate::nn::functional::{dropout, linear, softmax};
use crate::tensor::promote::Operand;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

fn neg_inf() -> Operand {
    Operand::Scalar(Scalar::Float(f64::NEG_INFINITY))
}

/// Scores with a mask applied: a bool mask keeps the scores where it equals `keep`, −inf elsewhere; a float mask is
/// added.
fn masked(scores: Tensor, mask: &Tensor, keep: bool) -> Result<Tensor> {
    if mask.dtype() == DType::Bool {
        let m = if keep { mask.clone() } else { mask.logical_not()? };
        where_(&m, &t(&scores), &neg_inf())
    } else {
        binary(&t(&scores), &t(&mask.to_dtype(scores.dtype())?), BinaryOp::Add)
    }
}

/// The causal mask of `l` queries and `s` keys: query i sees keys 0..=i (torch's tril of ones).
fn causal(l: usize, s: usize, device: crate::base::buffer::DeviceId) -> Result<Tensor> {
    Tensor::full(&[l, s], Scalar::Bool(true), DType::Bool, device)?.tril(0)
}

/// `F.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa)`:
/// softmax(q·kᵀ·scale + mask)·v over the last two dims, any leading (batch, head) dims broadcast. Grouped-query
/// attention (`enable_gqa`, fewer key/value heads than query heads) is refused.
#[allow(clippy::too_many_arguments)]
pub fn scaled_dot_product_attention(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    attn_mask: Option<&Tensor>,
    dropout_p: f64,
    is_causal: bool,
    scale_factor: Option<f64>,
    enable_gqa: bool,
) -> Result<Tensor> {
    if enable_gqa {
        return Err(Error::Value(
            "scaled_dot_product_attention: enable_gqa=True is not supported (repeat the key/value heads instead)"
                .into(),
        ));
    }
    if q.ndim() < 2 || k.ndim() < 2 || v.ndim() < 2 {
        return Err(Error::Runtime("scaled_dot_product_attention: q, k and v need at least 2 dims".into()));
    }
    crate::tensor::check::declared("scaled_dot_product_attention", q)?;
    // torch refuses a mask with is_causal for 3-d inputs and applies both for 4-d ones (its batched kernel).
    if is_causal && attn_mask.is_some() && q.ndim() < 4 {
        return Err(Error::Runtime(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True".into(),
        ));
    }
    if k.dtype() != q.dtype() || v.dtype() != q.dtype() {
        return Err(Error::Runtime(format!(
            "Expected query, key, and value to have the same dtype, but got query.dtype: {} key.dtype: {} and \
             value.dtype: {} instead.",
            q.dtype().name(),
            k.dtype().name(),
            v.dtype().name()
        )));
    }
    // 16-bit inputs compute in f32 and round once at the end.
    let dt = q.dtype();
    if !dt.is_float() {
        let mut shape = q.shape().to_vec();
        if let (Some(last), Some(&ev)) = (shape.last_mut(), v.shape().last()) {
            *last = ev;
        }
        if crate::base::view::numel(&shape) == 0 {
            return Tensor::zeros(&shape, dt, q.device());
        }
        return Err(Error::Runtime(format!("scaled_dot_product_attention: expected a float dtype, got {}", dt.name())));
    }
    let (q, k, v) = (q.to_dtype(opmath(dt))?, k.to_dtype(opmath(dt))?, v.to_dtype(opmath(dt))?);
    let e = *q.shape().last().unwrap_or(&1);
    let sf = scale_factor.unwrap_or(1.0 / (e as f64).sqrt());
    let scores = scale(&q.matmul(&k.transpose(-2, -1)?)?, sf)?;
    let (l, s) = (scores.shape()[scores.ndim() - 2], scores.shape()[scores.ndim() - 1]);
    let scores = if is_causal { masked(scores, &causal(l, s, q.device())?, true)? } else { scores };
    let scores = match attn_mask {
        Some(m) => masked(scores, m, true)?,
        None => scores,
    };
    // torch's safe softmax: a row whose scores are all −inf (every key masked) attends to nothing and gives 0, not
    // NaN.
    let p = softmax(&scores, -1)?;
    let none = binary(&t(&scores.amax(Some(&[-1]), true)?), &neg_inf(), BinaryOp::Eq)?;
    let p = where_(&none, &Operand::Scalar(Scalar::Int(0)), &t(&p))?;
    let p = if dropout_p > 0.0 { dropout(&p, dropout_p, true)? } else { p };
    p.matmul(&v)?.to_dtype(dt)
}

/// How the query, key and value are projected: torch's packed (3E, E) `in_proj_weight`, or a weight each
/// (`q_proj_weight` (E, E), `k_proj_weight` (E, kdim), `v_proj_weight` (E, vdim)) when the key and value have sizes
/// of their own.
pub enum InProj<'a> {
    Packed(&'a Tensor),
    Separate { q: &'a Tensor, k: &'a Tensor, v: &'a Tensor },
}

/// The parameters and options of `nn.MultiheadAttention`'s forward.
pub struct Mha<'a> {
    pub num_heads: usize,
    pub in_proj: InProj<'a>,
    /// Packed (3E) in both layouts, as torch keeps it.
    pub in_proj_bias: Option<&'a Tensor>,
    /// `add_bias_kv`: (1, 1, E) rows appended to the projected keys and values (both or neither).
    pub bias_k: Option<&'a Tensor>,
    pub bias_v: Option<&'a Tensor>,
    /// `add_zero_attn`: a zero key and value appended to every head after the projection.
    pub add_zero_attn: bool,
    pub out_proj_weight: &'a Tensor,
    pub out_proj_bias: Option<&'a Tensor>,
    pub dropout_p: f64,
    pub training: bool,
    pub batch_first: bool,
}

/// The masks and flags of one call.
pub struct MhaCall<'a> {
    pub key_padding_mask: Option<&'a Tensor>,
    pub attn_mask: Option<&'a Tensor>,
    pub need_weights: bool,
    pub average_attn_weights: bool,
    pub is_causal: bool,
}

/// A mask over keys widened by `extra` keys that every query sees (False or 0.0 columns), as torch pads its masks
/// for `bias_k`/`bias_v` and `add_zero_attn`.
fn pad_keys(mask: &Tensor, extra: usize) -> Result<Tensor> {
    if extra == 0 {
        return Ok(mask.clone());
    }
    let mut shape = mask.shape().to_vec();
    let last = shape.len().saturating_sub(1);
    shape[last] = extra;
    cat(&[mask.clone(), Tensor::zeros(&shape, mask.dtype(), mask.device())?], -1)
}

/// `nn.MultiheadAttention.forward`: (output, weights if asked). Inputs are (L, N, E) — (N, L, E) with batch_first —
/// or unbatched (L, E); the key and value may have their own length S and, with separate projections, their own
/// sizes kdim and vdim.
pub fn multi_head_attention(
    m: &Mha,
    query: &Tensor,
    key: &Tensor,
    value: &Tensor,
    call: &MhaCall,
) -> Result<(Tensor, Option<Tensor>)> {
    crate::tensor::check::declared("multi_head_attention", query)?;
    let unbatched = query.ndim() == 2;
    let lift = |x: &Tensor| -> Result<Tensor> {
        match (unbatched, m.batch_first) {
            (true, _) => x.unsqueeze(1),
            (false, true) => x.transpose(0, 1),
            (false, false) => Ok(x.clone()),
        }
    };
    let dt = query.dtype();
    let wide = |x: &Tensor| x.to_dtype(opmath(dt));
    let (q, k, v) = (wide(&lift(query)?)?, wide(&lift(key)?)?, wide(&lift(value)?)?);
    if q.ndim() != 3 || k.ndim() != 3 || v.ndim() != 3 {
        return Err(Error::Runtime(format!(
            "MultiheadAttention: query, key and value must all be 2-d (unbatched) or 3-d, got {:?}, {:?}, {:?}",
            query.shape(),
            key.shape(),
            value.shape()
        )));
    }
    let (l, n, e) = (q.shape()[0], q.shape()[1], q.shape()[2]);
    let s = k.shape()[0];
    let h = m.num_heads;
    if h == 0 || e % h != 0 {
        return Err(Error::Value(format!("embed_dim {e} must be divisible by num_heads {h}")));
    }
    let dh = e / h;
    let weight = |i: i64| match m.in_proj {
        InProj::Packed(w) => wide(&w.narrow(0, i * e as i64, e as i64)?),
        InProj::Separate { q, k, v } => wide([q, k, v][i as usize]),
    };
    let bias = |i: i64| m.in_proj_bias.map(|b| wide(&b.narrow(0, i * e as i64, e as i64)?)).transpose();
    let qp = linear(&q, &weight(0)?, bias(0)?.as_ref())?;
    let mut kp = linear(&k, &weight(1)?, bias(1)?.as_ref())?;
    let mut vp = linear(&v, &weight(2)?, bias(2)?.as_ref())?;
    let mut s = s;
    match (m.bias_k, m.bias_v) {
        (Some(bk), Some(bv)) => {
            // One more key and value, the same for every batch entry.
            let row = |b: &Tensor| wide(&b.reshape(&[1, 1, e as i64])?.expand(&[1, n, e])?);
            kp = cat(&[kp, row(bk)?], 0)?;
            vp = cat(&[vp, row(bv)?], 0)?;
            s += 1;
        }
        (None, None) => {}
        _ => return Err(Error::Value("MultiheadAttention: bias_k and bias_v must be given together".into())),
    }
    // (len, N, E) → (N·H, len, Dh): heads become batch entries.
    let heads = |x: &Tensor, len: usize| x.reshape(&[len as i64, (n * h) as i64, dh as i64])?.transpose(0, 1);
    let (qh, mut kh, mut vh) = (heads(&qp, l)?, heads(&kp, s)?, heads(&vp, s)?);
    if m.add_zero_attn {
        let zero = Tensor::zeros(&[n * h, 1, dh], kh.dtype(), kh.device())?;
        kh = cat(&[kh, zero.clone()], 1)?;
        vh = cat(&[vh, zero], 1)?;
        s += 1;
    }
    // Masks were given over the caller's keys; the appended ones are seen by every query.
    let extra = usize::from(m.bias_k.is_some()) + usize::from(m.add_zero_attn);
    let scores = scale(&qh.matmul(&kh.transpose(-2, -1)?)?, 1.0 / (dh as f64).sqrt())?;
    // Masks hide what is True here (torch's MultiheadAttention convention); a float mask is added.
    let mut scores = scores.reshape(&[n as i64, h as i64, l as i64, s as i64])?;
    // As torch: is_causal is only a hint that attn_mask is the causal mask, and it needs the mask.
    if call.is_causal && call.attn_mask.is_none() {
        return Err(Error::Runtime(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method \
             `generate_square_subsequent_mask` to create this mask."
                .into(),
        ));
    }
    if let Some(am) = call.attn_mask {
        let am = &pad_keys(am, extra)?;
        let am = match am.ndim() {
            2 => am.clone(),
            3 => am.reshape(&[n as i64, h as i64, l as i64, s as i64])?,
            _ => return Err(Error::Runtime(format!("attn_mask must be 2-d or 3-d, got {:?}", am.shape()))),
        };
        scores = masked(scores, &am, false)?;
    }
    if let Some(kpm) = call.key_padding_mask {
        let kpm = pad_keys(&if unbatched { kpm.unsqueeze(0)? } else { kpm.clone() }, extra)?;
        scores = masked(scores, &kpm.reshape(&[n as i64, 1, 1, s as i64])?, false)?;
    }
    let weights = softmax(&scores, -1)?;
    let dropped = if m.dropout_p > 0.0 { dropout(&weights, m.dropout_p, m.training)? } else { weights };
    let ctx = dropped.reshape(&[(n * h) as i64, l as i64, s as i64])?.matmul(&vh)?;
    let ctx = ctx.transpose(0, 1)?.reshape(&[l as i64, n as i64, e as i64])?;
    let ob = m.out_proj_bias.map(wide).transpose()?;
    let out = linear(&ctx, &wide(m.out_proj_weight)?, ob.as_ref())?.to_dtype(dt)?;
    let out = match (unbatched, m.batch_first) {
        (true, _) => out.squeeze(Some(&[1]))?,
        (false, true) => out.transpose(0, 1)?,
        (false, false) => out,
    };
    // torch returns the weights after dropout, as they were applied.
    let w = if call.need_weights {
        let w = if call.average_attn_weights { dropped.mean(Some(&[1]), false)? } else { dropped };
        Some(if unbatched { w.squeeze(Some(&[0]))? } else { w }.to_dtype(dt)?)
    } else {
        None
    };
    Ok((out, w))
}
