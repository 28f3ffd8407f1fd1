"""Recurrent layers with torch's parameter names, shapes and initialisation (weight_ih_l{k}[_reverse],
weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k}, and LSTM's weight_hr_l{k} with proj_size, all U(−1/√H, 1/√H)): RNN (tanh
or relu), LSTM and GRU. Their layout, initialisation and recurrence are Rust's (vkml_core::nn::rnn)."""

from .. import _vkml
from . import layout
from .module import Module


class _RNNBase(Module):
    _mode = "RNN_TANH"

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):  # fmt: skip
        super().__init__()
        # The layout, its checks and the forward are Rust's (vkml_core::nn::rnn), shared with JavaScript.
        self._layout = _vkml._Rnn(
            self._mode, input_size, hidden_size, num_layers, bias, bidirectional, proj_size, float(dropout)
        )
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout, self.bidirectional = bias, batch_first, float(dropout), bidirectional
        self.proj_size = proj_size
        layout.hold(self, self._layout, device, dtype)

    reset_parameters = layout.reset

    def _run(self, input, h0, c0):
        return self._layout.forward(
            layout.params(self), input, h0, c0, self.batch_first, float(self.dropout), self.training
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

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):  # fmt: skip
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        # Set first: _RNNBase.__init__ builds the layout from it.
        object.__setattr__(self, "_mode", "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU")
        super().__init__(
            input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, device=device, dtype=dtype
        )
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        out, h, _ = self._run(input, hx, None)
        return out, h


class LSTM(_RNNBase):
    """LSTM with torch's gate order (i, f, g, o); forward returns (output, (h_n, c_n))."""

    _mode = "LSTM"

    def forward(self, input, hx=None):
        h0, c0 = (None, None) if hx is None else hx
        out, h, c = self._run(input, h0, c0)
        return out, (h, c)


class GRU(_RNNBase):
    """GRU with torch's gate order (r, z, n) and n = tanh(W_in·x + b_in + r·(W_hn·h + b_hn))."""

    _mode = "GRU"

    def forward(self, input, hx=None):
        out, h, _ = self._run(input, hx, None)
        return out, h
