//! `nn.MultiheadAttention`'s layout: which parameters it holds (torch's names, shapes and order), how torch starts
//! them, and the forward over them, so that the Python and JavaScript modules only hold what this names.

use crate::nn::attention::{multi_head_attention, InProj, Mha as Forward, MhaCall};
use crate::nn::functional::{normal_, uniform_};
use crate::tensor::grad::no_grad;
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// torch's constructor arguments that decide the parameters. The module's `bias` sets both bias flags; the
/// functional form (`F.multi_head_attention_forward`) may give one bias without the other, and separate
/// projections of equal sizes.
#[derive(Clone, Debug)]
pub struct Mha {
    pub embed_dim: usize,
    pub num_heads: usize,
    pub kdim: usize,
    pub vdim: usize,
    /// One packed `in_proj_weight` (torch's module: when kdim and vdim equal embed_dim), else one weight each.
    pub packed: bool,
    pub in_proj_bias: bool,
    pub out_proj_bias: bool,
    pub add_bias_kv: bool,
    pub add_zero_attn: bool,
}

/// What a forward call reads from the module's attributes.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    pub dropout: f64,
    pub training: bool,
    pub batch_first: bool,
}

/// (fan_in, fan_out) as torch's `_calculate_fan_in_and_fan_out`.
fn fans(shape: &[usize]) -> (f64, f64) {
    let field: usize = shape.iter().skip(2).product();
    let at = |i: usize| shape.get(i).copied().unwrap_or(1) * field;
    (at(1) as f64, at(0) as f64)
}

impl Mha {
    /// The layout after torch's constructor checks, with its messages; kdim and vdim default to embed_dim.
    pub fn new(embed_dim: i64, num_heads: i64, kdim: Option<i64>, vdim: Option<i64>, flags: [bool; 3]) -> Result<Self> {
        let [bias, add_bias_kv, add_zero_attn] = flags;
        let positive = |v: i64| usize::try_from(v).ok().filter(|&n| n > 0);
        let (Some(e), Some(h)) = (positive(embed_dim), positive(num_heads)) else {
            return Err(Error::Value(format!(
                "embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and \
                 num_heads={num_heads} instead"
            )));
        };
        if e % h != 0 {
            return Err(Error::Value("embed_dim must be divisible by num_heads".into()));
        }
        let size = |d: Option<i64>, name: &str| {
            d.map_or(Some(e), positive).ok_or_else(|| Error::Value(format!("{name} must be greater than 0")))
        };
        let (kdim, vdim) = (size(kdim, "kdim")?, size(vdim, "vdim")?);
        let packed = kdim == e && vdim == e;
        Ok(Mha {
            embed_dim: e,
            num_heads: h,
            kdim,
            vdim,
            packed,
            in_proj_bias: bias,
            out_proj_bias: bias,
            add_bias_kv,
            add_zero_attn,
        })
    }

    /// (name, shape) of every parameter in torch's state_dict order: the projections, in_proj_bias, bias_k and
    /// bias_v, then the `out_proj` Linear's weight and bias.
    pub fn parameters(&self) -> Vec<(String, Vec<usize>)> {
        let e = self.embed_dim;
        let mut out: Vec<(&str, Vec<usize>)> = if self.packed {
            vec![("in_proj_weight", vec![3 * e, e])]
        } else {
            vec![
                ("q_proj_weight", vec![e, e]),
                ("k_proj_weight", vec![e, self.kdim]),
                ("v_proj_weight", vec![e, self.vdim]),
            ]
        };
        if self.in_proj_bias {
            out.push(("in_proj_bias", vec![3 * e]));
        }
        if self.add_bias_kv {
            out.extend([("bias_k", vec![1, 1, e]), ("bias_v", vec![1, 1, e])]);
        }
        out.push(("out_proj.weight", vec![e, e]));
        if self.out_proj_bias {
            out.push(("out_proj.bias", vec![e]));
        }
        out.into_iter().map(|(n, s)| (n.to_string(), s)).collect()
    }

    /// torch's initialisation, in place over `params` in [`Mha::parameters`]' order: xavier_uniform_ on the
    /// projections, Linear's U(±1/√E) on out_proj.weight, zero biases and xavier_normal_ on bias_k and bias_v.
    pub fn reset(&self, params: &[Tensor]) -> Result<()> {
        self.check(params)?;
        for ((name, shape), p) in self.parameters().iter().zip(params) {
            let (fan_in, fan_out) = fans(shape);
            match name.as_str() {
                "in_proj_bias" | "out_proj.bias" => {
                    let zero = Tensor::zeros(p.shape(), p.dtype(), p.device())?;
                    no_grad(|| p.assign(&zero))?
                }
                "bias_k" | "bias_v" => normal_(p, 0.0, (2.0 / (fan_in + fan_out)).sqrt())?,
                "out_proj.weight" => {
                    let bound = 1.0 / fan_in.sqrt();
                    uniform_(p, -bound, bound)?
                }
                _ => {
                    let bound = (6.0 / (fan_in + fan_out)).sqrt();
                    uniform_(p, -bound, bound)?
                }
            }
        }
        Ok(())
    }

    fn check(&self, params: &[Tensor]) -> Result<()> {
        let want = self.parameters().len();
        if params.len() == want {
            Ok(())
        } else {
            Err(Error::Value(format!("MultiheadAttention: expected {want} parameters, got {}", params.len())))
        }
    }

    /// The forward over `params` in [`Mha::parameters`]' order: (output, weights if asked).
    pub fn forward(
        &self,
        params: &[Tensor],
        query: &Tensor,
        key: &Tensor,
        value: &Tensor,
        call: &MhaCall,
        run: Run,
    ) -> Result<(Tensor, Option<Tensor>)> {
        self.check(params)?;
        let (proj, rest) = params.split_at(if self.packed { 1 } else { 3 });
        let in_proj = match proj {
            [w] => InProj::Packed(w),
            [q, k, v] => InProj::Separate { q, k, v },
            _ => return Err(Error::Runtime("MultiheadAttention: the projections are one or three".into())),
        };
        let mut rest = rest.iter();
        let in_proj_bias = if self.in_proj_bias { rest.next() } else { None };
        let (bias_k, bias_v) = if self.add_bias_kv { (rest.next(), rest.next()) } else { (None, None) };
        let out_proj_weight =
            rest.next().ok_or_else(|| Error::Runtime("MultiheadAttention: no out_proj.weight".into()))?;
        let out_proj_bias = if self.out_proj_bias { rest.next() } else { None };
        let m = Forward {
            num_heads: self.num_heads,
            in_proj,
            in_proj_bias,
            bias_k,
            bias_v,
            add_zero_attn: self.add_zero_attn,
            out_proj_weight,
            out_proj_bias,
            dropout_p: run.dropout,
            training: run.training,
            batch_first: run.batch_first,
        };
        multi_head_attention(&m, query, key, value, call)
    }
}
