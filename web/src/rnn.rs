//! `nn.RNN`, `nn.LSTM` and `nn.GRU` for JavaScript: the layout, initialisation and forward of
//! `vkml_core::nn::rnn`; the classes in the package's `nn.js` hold the parameters under the names it gives.

use wasm_bindgen::prelude::*;

use vkml_core::nn::rnn::{Cell, Rnn as Layout, Run, Sizes};

use crate::convert::{cores, named_shapes, opt_bool, opt_f64};
use crate::ops::int;
use crate::tensor::Tensor;
use crate::{JsResult, OrJs};

/// A recurrent layer stack's layout (torch's constructor arguments, checked with torch's messages).
#[wasm_bindgen(js_name = "_Rnn")]
pub struct Rnn(Layout);

#[wasm_bindgen(js_class = "_Rnn")]
impl Rnn {
    /// `new _Rnn(mode, input_size, hidden_size, {num_layers, bias, bidirectional, proj_size, dropout})`.
    #[wasm_bindgen(constructor)]
    pub fn new(mode: &str, input_size: f64, hidden_size: f64, options: JsValue) -> JsResult<Rnn> {
        let size = |key: &str, default: f64| -> JsResult<i64> { int(opt_f64(&options, key)?.unwrap_or(default), key) };
        let sizes = Sizes {
            input_size: int(input_size, "input_size")?,
            hidden_size: int(hidden_size, "hidden_size")?,
            num_layers: size("num_layers", 1.0)?,
            proj_size: size("proj_size", 0.0)?,
        };
        let bias = opt_bool(&options, "bias")?.unwrap_or(true);
        let bidirectional = opt_bool(&options, "bidirectional")?.unwrap_or(false);
        let dropout = opt_f64(&options, "dropout")?.unwrap_or(0.0);
        Ok(Rnn(Layout::new(Cell::parse(mode).js()?, sizes, bias, bidirectional, dropout).js()?))
    }

    /// `[name, shape]` of every parameter, in torch's order.
    pub fn parameters(&self) -> js_sys::Array {
        named_shapes(self.0.parameters())
    }

    /// torch's initialisation of `params` (in `parameters()` order), in place.
    pub fn reset(&self, params: Vec<Tensor>) -> JsResult<()> {
        self.0.reset(&cores(&params)?).js()
    }

    /// `[output, h_n, c_n]` (c_n undefined but for LSTM) over `params` in `parameters()` order;
    /// options {batch_first, dropout, training}.
    pub fn forward(
        &self,
        params: Vec<Tensor>,
        x: &Tensor,
        h0: Option<Tensor>,
        c0: Option<Tensor>,
        options: JsValue,
    ) -> JsResult<js_sys::Array> {
        let run = Run {
            batch_first: opt_bool(&options, "batch_first")?.unwrap_or(false),
            dropout: opt_f64(&options, "dropout")?.unwrap_or(0.0),
            training: opt_bool(&options, "training")?.unwrap_or(false),
        };
        let (h0, c0) = (h0.as_ref().map(Tensor::core).transpose()?, c0.as_ref().map(Tensor::core).transpose()?);
        let (out, h, c) = self.0.forward(&cores(&params)?, x.core()?, h0, c0, run).js()?;
        let c = c.map_or(JsValue::UNDEFINED, |c| Tensor::wrap(c).into());
        Ok(js_sys::Array::of3(&Tensor::wrap(out).into(), &Tensor::wrap(h).into(), &c))
    }
}
