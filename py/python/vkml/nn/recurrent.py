"""Recurrent layers with torch's parameter names, shapes and initialisation (weight_ih_l{k}[_reverse],
weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k}, and LSTM's weight_hr_l{k} with proj_size, all U(−1/√H, 1/√H)): RNN (tanh
or relu), LSTM and GRU. The recurrence is Rust (vkml_core::api::rnn)."""

import math

from .. import _vkml
from . import init
from .module import Module
from .parameter import Parameter


class _RNNBase(Module):
    _mode = "RNN_TANH"
    _gates = 1

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ):
        super().__init__()
        if not 0 <= dropout <= 1:
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an element being zeroed"
            )
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and self._mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout, self.bidirectional = bias, batch_first, float(dropout), bidirectional
        self.proj_size = proj_size
        dirs = 2 if bidirectional else 1
        gate = self._gates * hidden_size
        # h's width: the projection's where LSTM projects (weight_hr, after torch's four), else the hidden size.
        real = proj_size or hidden_size
        kw = {"device": device, "dtype": dtype}
        self._names = []
        for layer in range(num_layers):
            for d in range(dirs):
                suffix = f"_l{layer}" + ("_reverse" if d else "")
                width = input_size if layer == 0 else real * dirs
                shapes = {f"weight_ih{suffix}": (gate, width), f"weight_hh{suffix}": (gate, real)}
                if bias:
                    shapes |= {f"bias_ih{suffix}": (gate,), f"bias_hh{suffix}": (gate,)}
                if proj_size:
                    shapes[f"weight_hr{suffix}"] = (proj_size, hidden_size)
                for name, shape in shapes.items():
                    setattr(self, name, Parameter(_vkml.zeros(*shape, **kw)))
                self._names.append(list(shapes))
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for names in self._names:
            for n in names:
                init.uniform_(getattr(self, n), -bound, bound)

    def _weights(self):
        out = []
        for names in self._names:
            w = {n.split("_l")[0]: getattr(self, n) for n in names}
            out.append((w["weight_ih"], w["weight_hh"], w.get("bias_ih"), w.get("bias_hh")))
        return out

    def _run(self, input, h0, c0):
        return _vkml._rnn(
            self._mode,
            self.hidden_size,
            self.num_layers,
            self.bidirectional,
            self.batch_first,
            self.dropout,
            self.training,
            self._weights(),
            input,
            h0,
            c0,
            self.proj_size,
            [getattr(self, names[-1]) for names in self._names] if self.proj_size else [],
        )

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s


class RNN(_RNNBase):
    """Elman RNN, tanh or relu: h' = act(x·W_ihᵀ + b_ih + h·W_hhᵀ + b_hh)."""

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        nonlinearity="tanh",
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        device=None,
        dtype=None,
    ):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(
            input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, device=device, dtype=dtype
        )
        self.nonlinearity = nonlinearity
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"

    def forward(self, input, hx=None):
        out, h, _ = self._run(input, hx, None)
        return out, h


class LSTM(_RNNBase):
    """LSTM with torch's gate order (i, f, g, o); forward returns (output, (h_n, c_n))."""

    _mode = "LSTM"
    _gates = 4

    def forward(self, input, hx=None):
        h0, c0 = (None, None) if hx is None else hx
        out, h, c = self._run(input, h0, c0)
        return out, (h, c)


class GRU(_RNNBase):
    """GRU with torch's gate order (r, z, n) and n = tanh(W_in·x + b_in + r·(W_hn·h + b_hn))."""

    _mode = "GRU"
    _gates = 3

    def forward(self, input, hx=None):
        out, h, _ = self._run(input, hx, None)
        return out, h
