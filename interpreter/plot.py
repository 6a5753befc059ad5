"""``rulerun simulate --plot FILE.png``: simulate's figures drawn on one page.

Four panels: the win share of each seat with its 95% interval (the line
marks an even share), the score distribution of each seat, the game
length, and how often each action was played per game.  Drawn with
matplotlib (the optional extra ``plot``: ``pip install 'rulelang[plot]'``),
without a display.
"""

from __future__ import annotations

PLOT_EXTRA = "pip install 'rulelang[plot]' (or pip install matplotlib)"


class PlotUnavailable(Exception):
    """matplotlib is not installed."""


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise PlotUnavailable(f"--plot needs matplotlib: {PLOT_EXTRA}") from None
    matplotlib.use("Agg")  # files only: no window, no display needed
    import matplotlib.pyplot as plt
    return plt


def plot_simulation(path, title: str, summary: dict, scores: list, lengths: list) -> None:
    """Draw simulate's ``summary`` (stats.Tally.summary()) with the per-game
    ``scores`` ([game][seat]) and ``lengths`` into ``path`` (its suffix says
    the format: .png, .svg, .pdf)."""
    plt = _pyplot()
    seats = summary["seats"]
    n = len(seats)
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    fig.suptitle(f"{title}: {len(lengths)} games, {n} players")

    ax = axes[0][0]
    shares = [100 * s["win_share"] for s in seats]
    errors = [[100 * (s["win_share"] - s["win_share_ci"][0]) for s in seats],
              [100 * (s["win_share_ci"][1] - s["win_share"]) for s in seats]]
    labels = [f"P{s['seat']}" for s in seats]
    ax.bar(labels, shares, yerr=errors, capsize=4, color="tab:blue")
    ax.axhline(100 / n, color="grey", linestyle="--", linewidth=1)
    ax.set_title("win share per seat (95% interval; dashed: even)")
    ax.set_ylabel("% of finished games")

    ax = axes[0][1]
    if scores:
        columns = [[game[p] for game in scores] for p in range(n)]
        ax.boxplot(columns)
        ax.set_xticks(range(1, n + 1), labels)
    ax.set_title("score per seat")

    ax = axes[1][0]
    if lengths:
        lo, hi = min(lengths), max(lengths)
        # one bar per length when they are few, else 40 bars
        ax.hist(lengths, bins=range(lo, hi + 2) if hi - lo <= 60 else 40, align="left", color="tab:green")
        ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_title("game length")
    ax.set_xlabel("actions")
    ax.set_ylabel("games")

    ax = axes[1][1]
    used = summary.get("actions_used") or {}
    ended = max(1, summary.get("ended") or len(lengths))
    if used:
        names = list(used)[::-1]
        ax.barh(names, [used[k] / ended for k in names], color="tab:orange")
    ax.set_title("actions per game")

    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


__all__ = ["plot_simulation", "PlotUnavailable", "PLOT_EXTRA"]
