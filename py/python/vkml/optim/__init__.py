"""`vkml.optim`: optimizers (update rules in Rust) and learning-rate schedules, shaped like torch.optim."""

from . import lr_scheduler
from .optimizer import Optimizer
from .rules import SGD, Adagrad, Adam, AdamW, RMSprop

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "lr_scheduler"]
