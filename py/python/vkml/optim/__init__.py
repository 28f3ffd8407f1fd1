"""`vkml.optim`: optimizers (update rules in Rust) and learning-rate schedules, shaped like torch.optim."""

from . import lr_scheduler
from .optimizer import Optimizer
from .rules import SGD, Adam, AdamW

__all__ = ["SGD", "Adam", "AdamW", "Optimizer", "lr_scheduler"]
