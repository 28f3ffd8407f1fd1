"""`vkml.nn`: modules, parameters, initialisers and the functional forms, shaped like torch.nn."""

from . import functional, init
from .functional import cross_entropy
from .layers import (
    AdaptiveAvgPool2d,
    AvgPool2d,
    Conv1d,
    Conv2d,
    CrossEntropyLoss,
    Dropout,
    Flatten,
    Identity,
    Linear,
    LogSoftmax,
    MaxPool2d,
    ModuleDict,
    ModuleList,
    MSELoss,
    NLLLoss,
    ReLU,
    Sequential,
    Sigmoid,
    Softmax,
    Unflatten,
)
from .module import Module
from .norm import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm
from .parameter import Parameter

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "GroupNorm",
    "LayerNorm",
    "AdaptiveAvgPool2d",
    "AvgPool2d",
    "Conv1d",
    "Conv2d",
    "MaxPool2d",
    "CrossEntropyLoss",
    "Dropout",
    "Flatten",
    "Identity",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "Parameter",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Unflatten",
    "cross_entropy",
    "functional",
    "init",
]
