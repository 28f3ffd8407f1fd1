//! Recurrent layers (torch's RNN with tanh or relu, LSTM and GRU), written once over linear, the activations and
//! elementwise ops: the input projection of every step at once, then a loop over time per layer and direction.
//! Gates follow torch's order (LSTM i, f, g, o; GRU r, z, n) so a torch state_dict loads unchanged.

use crate::api::elementwise::{binary, mul, plus, t};
use crate::api::index::IndexItem;
use crate::api::join::{cat, stack};
use crate::base::dtype::opmath;
use crate::graph::op::{BinaryOp, UnaryOp};
use crate::nn::functional::{dropout, linear, sigmoid, uniform_};
use crate::tensor::Tensor;
use crate::util::error::{Error, Result};

/// Which recurrence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    Tanh,
    Relu,
    Lstm,
    Gru,
}

impl Cell {
    /// Rows of the stacked gate weights per hidden unit.
    pub fn gates(self) -> usize {
        match self {
            Cell::Tanh | Cell::Relu => 1,
            Cell::Lstm => 4,
            Cell::Gru => 3,
        }
    }
}

impl Cell {
    /// torch's mode names: "RNN_TANH", "RNN_RELU", "LSTM", "GRU".
    pub fn parse(mode: &str) -> Result<Self> {
        match mode {
            "RNN_TANH" => Ok(Cell::Tanh),
            "RNN_RELU" => Ok(Cell::Relu),
            "LSTM" => Ok(Cell::Lstm),
            "GRU" => Ok(Cell::Gru),
            m => Err(Error::Value(format!("Unknown mode '{m}': expected RNN_TANH, RNN_RELU, LSTM or GRU"))),
        }
    }
}

/// One layer and direction's weights: (w_ih, w_hh, b_ih, b_hh).
type Weights<'a> = (&'a Tensor, &'a Tensor, Option<&'a Tensor>, Option<&'a Tensor>);

/// A recurrent layer stack as torch's constructor describes it: which parameters it has (names and shapes in
/// torch's order), how they start, and the forward over them. Both front ends keep the parameters under these names
/// and hand them back in this order.
#[derive(Clone, Debug)]
pub struct Rnn {
    pub cell: Cell,
    pub input_size: usize,
    pub hidden: usize,
    pub layers: usize,
    pub bias: bool,
    pub bidirectional: bool,
    /// LSTM's `proj_size`: 0, or the size each hidden state is projected to (by `weight_hr`, (proj, hidden)).
    pub proj: usize,
}

/// What a forward call may change after construction, as torch reads these attributes at each call.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    pub batch_first: bool,
    pub dropout: f64,
    pub training: bool,
}

fn check_dropout(p: f64) -> Result<()> {
    if (0.0..=1.0).contains(&p) {
        Ok(())
    } else {
        Err(Error::Value(
            "dropout should be a number in range [0, 1] representing the probability of an element being zeroed".into(),
        ))
    }
}

/// torch's constructor arguments: the sizes as given (so that a negative one is refused with torch's message).
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    pub input_size: i64,
    pub hidden_size: i64,
    pub num_layers: i64,
    pub proj_size: i64,
}

impl Rnn {
    /// The layout, after torch's constructor checks, with its messages.
    pub fn new(cell: Cell, sizes: Sizes, bias: bool, bidirectional: bool, dropout: f64) -> Result<Self> {
        check_dropout(dropout)?;
        let positive = |v: i64, name: &str| {
            usize::try_from(v)
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| Error::Value(format!("{name} must be greater than zero")))
        };
        let (input_size, hidden) =
            (positive(sizes.input_size, "input_size")?, positive(sizes.hidden_size, "hidden_size")?);
        let layers = positive(sizes.num_layers, "num_layers")?;
        let proj = usize::try_from(sizes.proj_size).map_err(|_| {
            Error::Value("proj_size should be a positive integer or zero to disable projections".into())
        })?;
        if proj > 0 && proj >= hidden {
            return Err(Error::Value("proj_size has to be smaller than hidden_size".into()));
        }
        if proj > 0 && cell != Cell::Lstm {
            return Err(Error::Value("proj_size argument is only supported for LSTM, not RNN or GRU".into()));
        }
        Ok(Rnn { cell, input_size, hidden, layers, bias, bidirectional, proj })
    }

    fn directions(&self) -> usize {
        if self.bidirectional {
            2
        } else {
            1
        }
    }

    /// (name, shape) of every parameter in torch's order: per layer and direction weight_ih, weight_hh, then
    /// bias_ih, bias_hh where there are biases, then weight_hr where LSTM projects.
    pub fn parameters(&self) -> Vec<(String, Vec<usize>)> {
        let dirs = self.directions();
        let gate = self.cell.gates() * self.hidden;
        // h's width: the projection's where LSTM projects, else the hidden size.
        let real = if self.proj > 0 { self.proj } else { self.hidden };
        let mut out = Vec::new();
        for layer in 0..self.layers {
            for d in 0..dirs {
                let suffix = format!("_l{layer}{}", if d == 1 { "_reverse" } else { "" });
                let width = if layer == 0 { self.input_size } else { real * dirs };
                out.push((format!("weight_ih{suffix}"), vec![gate, width]));
                out.push((format!("weight_hh{suffix}"), vec![gate, real]));
                if self.bias {
                    out.push((format!("bias_ih{suffix}"), vec![gate]));
                    out.push((format!("bias_hh{suffix}"), vec![gate]));
                }
                if self.proj > 0 {
                    out.push((format!("weight_hr{suffix}"), vec![self.proj, self.hidden]));
                }
            }
        }
        out
    }

    /// torch's `reset_parameters`: every parameter from U(−1/√H, 1/√H).
    pub fn reset(&self, params: &[Tensor]) -> Result<()> {
        let bound = if self.hidden > 0 { 1.0 / (self.hidden as f64).sqrt() } else { 0.0 };
        params.iter().try_for_each(|p| uniform_(p, -bound, bound))
    }

    /// The forward over `params` in [`Rnn::parameters`]' order: (output, h_n, c_n for LSTM). `x` is (L, N, Hin) —
    /// (N, L, Hin) with batch_first — or unbatched (L, Hin); h0 and c0 are (layers·directions, N, H) or
    /// (layers·directions, H), h0's last dim the projection's size where LSTM projects.
    pub fn forward(
        &self,
        params: &[Tensor],
        x: &Tensor,
        h0: Option<&Tensor>,
        c0: Option<&Tensor>,
        run: Run,
    ) -> Result<(Tensor, Tensor, Option<Tensor>)> {
        check_dropout(run.dropout)?;
        let per = 2 + 2 * usize::from(self.bias) + usize::from(self.proj > 0);
        let want = self.layers * self.directions() * per;
        if params.len() != want {
            return Err(Error::Value(format!("rnn: expected {want} parameters, got {}", params.len())));
        }
        let sets: Vec<(Weights, Option<&Tensor>)> = params
            .chunks(per)
            .map(|p| {
                let (b_ih, b_hh) = if self.bias { (Some(&p[2]), Some(&p[3])) } else { (None, None) };
                ((&p[0], &p[1], b_ih, b_hh), if self.proj > 0 { p.last() } else { None })
            })
            .collect();
        rnn(self, &sets, x, h0, c0, run)
    }
}

fn add(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(&t(a), &t(b), BinaryOp::Add)
}

fn chunk(x: &Tensor, i: usize, h: usize) -> Result<Tensor> {
    x.narrow(-1, (i * h) as i64, h as i64)
}

/// One step: the new (h, c) from the step's projected input `xi` and the previous state; an LSTM's new h is
/// projected by `hr` where given.
fn step(
    cell: Cell,
    xi: &Tensor,
    h: &Tensor,
    c: Option<&Tensor>,
    w: &Weights,
    hr: Option<&Tensor>,
    n: usize,
) -> Result<(Tensor, Option<Tensor>)> {
    let hh = linear(h, w.1, w.3)?;
    match cell {
        Cell::Tanh => Ok((add(xi, &hh)?.unary(UnaryOp::Tanh)?, None)),
        Cell::Relu => Ok((add(xi, &hh)?.relu()?, None)),
        Cell::Lstm => {
            let g = add(xi, &hh)?;
            let (i, f) = (sigmoid(&chunk(&g, 0, n)?)?, sigmoid(&chunk(&g, 1, n)?)?);
            let (gg, o) = (chunk(&g, 2, n)?.unary(UnaryOp::Tanh)?, sigmoid(&chunk(&g, 3, n)?)?);
            let c0 = c.ok_or_else(|| Error::Runtime("LSTM step without a cell state".into()))?;
            let c1 = add(&mul(&f, c0)?, &mul(&i, &gg)?)?;
            let h1 = mul(&o, &c1.unary(UnaryOp::Tanh)?)?;
            Ok((if let Some(hr) = hr { linear(&h1, hr, None)? } else { h1 }, Some(c1)))
        }
        Cell::Gru => {
            let r = sigmoid(&add(&chunk(xi, 0, n)?, &chunk(&hh, 0, n)?)?)?;
            let z = sigmoid(&add(&chunk(xi, 1, n)?, &chunk(&hh, 1, n)?)?)?;
            let nn = add(&chunk(xi, 2, n)?, &mul(&r, &chunk(&hh, 2, n)?)?)?.unary(UnaryOp::Tanh)?;
            // (1 − z)·n + z·h
            let keep = mul(&plus(&z.neg()?, 1.0)?, &nn)?;
            Ok((add(&keep, &mul(&z, h)?)?, None))
        }
    }
}

/// The loop over layers, directions and time, over one weight set (and projection) per layer and direction.
fn rnn(
    m: &Rnn,
    sets: &[(Weights, Option<&Tensor>)],
    x: &Tensor,
    h0: Option<&Tensor>,
    c0: Option<&Tensor>,
    run: Run,
) -> Result<(Tensor, Tensor, Option<Tensor>)> {
    let dirs = m.directions();
    let unbatched = x.ndim() == 2;
    if !matches!(x.ndim(), 2 | 3) {
        return Err(Error::Runtime(format!("rnn: Expected input to be 2D or 3D, got {}D instead", x.ndim())));
    }
    let dt = x.dtype();
    let wide = |t: &Tensor| t.to_dtype(opmath(dt));
    let mut seq = match (unbatched, run.batch_first) {
        (true, _) => wide(&x.unsqueeze(1)?)?,
        (false, true) => wide(&x.transpose(0, 1)?)?,
        (false, false) => wide(x)?,
    };
    let (steps, n) = (seq.shape()[0], seq.shape()[1]);
    let h = m.hidden;
    // The width of h: the projection's where there is one (c keeps the hidden size).
    let ho = if m.proj > 0 { m.proj } else { h };
    let state = |s: Option<&Tensor>| -> Result<Option<Tensor>> {
        s.map(|s| wide(&if unbatched { s.unsqueeze(1)? } else { s.clone() })).transpose()
    };
    let (h0, c0) = (state(h0)?, state(c0)?);
    let zeros = |width: usize| Tensor::zeros(&[n, width], opmath(dt), x.device());
    let (mut hn, mut cn) = (Vec::new(), Vec::new());
    for layer in 0..m.layers {
        let mut outs = Vec::new();
        for d in 0..dirs {
            let k = layer * dirs + d;
            let (w, hr) = &sets[k];
            let wide_w: (Tensor, Tensor, Option<Tensor>, Option<Tensor>) =
                (wide(w.0)?, wide(w.1)?, w.2.map(wide).transpose()?, w.3.map(wide).transpose()?);
            let w = (&wide_w.0, &wide_w.1, wide_w.2.as_ref(), wide_w.3.as_ref());
            let proj = linear(&seq, w.0, w.2)?;
            let mut hs = match &h0 {
                Some(s) => s.index(&[IndexItem::Int(k as i64)])?,
                None => zeros(ho)?,
            };
            let mut cs = match (m.cell, &c0) {
                (Cell::Lstm, Some(s)) => Some(s.index(&[IndexItem::Int(k as i64)])?),
                (Cell::Lstm, None) => Some(zeros(h)?),
                _ => None,
            };
            let hr = hr.map(wide).transpose()?;
            let mut out = vec![None; steps];
            for s in 0..steps {
                let at = if d == 0 { s } else { steps - 1 - s };
                let (h1, c1) =
                    step(m.cell, &proj.index(&[IndexItem::Int(at as i64)])?, &hs, cs.as_ref(), &w, hr.as_ref(), h)?;
                out[at] = Some(h1.clone());
                hs = h1;
                cs = c1;
            }
            let out: Vec<Tensor> = out.into_iter().flatten().collect();
            outs.push(if out.is_empty() {
                Tensor::zeros(&[0, n, ho], opmath(dt), x.device())?
            } else {
                stack(&out, 0)?
            });
            hn.push(hs);
            if let Some(c) = cs {
                cn.push(c);
            }
        }
        seq = if dirs == 1 { outs.remove(0) } else { cat(&outs, 2)? };
        if run.dropout > 0.0 && run.training && layer + 1 < m.layers {
            seq = dropout(&seq, run.dropout, true)?;
        }
    }
    let finish = |t: Tensor, batched_seq: bool| -> Result<Tensor> {
        let t = match (unbatched, run.batch_first && batched_seq) {
            (true, _) => t.squeeze(Some(&[1]))?,
            (false, true) => t.transpose(0, 1)?,
            (false, false) => t,
        };
        t.to_dtype(dt)
    };
    let output = finish(seq, true)?;
    let h_n = finish(stack(&hn, 0)?, false)?;
    let c_n = if cn.is_empty() { None } else { Some(finish(stack(&cn, 0)?, false)?) };
    Ok((output, h_n, c_n))
}
