"""The main job's chart, drawn with matplotlib: the training loss per step and the test accuracy per epoch."""

import matplotlib

matplotlib.use("Agg")  # no display: the chart is a file

import matplotlib.pyplot as plt  # noqa: E402


def write_chart(path, losses, accs, title):
    """Writes a PNG with the loss of every training step (left) and the test accuracy after each epoch (right)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
    left.plot(range(1, len(losses) + 1), losses, linewidth=0.8)
    left.set(title="Training loss", xlabel="step", ylabel="cross-entropy loss")
    left.grid(alpha=0.3)
    epochs = range(1, len(accs) + 1)
    right.plot(epochs, [100 * a for a in accs], marker="o")
    right.set(title="Test accuracy", xlabel="epoch", ylabel="accuracy (%)", xticks=list(epochs))
    right.grid(alpha=0.3)
    fig.suptitle(title)
    fig.savefig(path, dpi=100)
    plt.close(fig)
