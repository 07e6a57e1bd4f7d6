"""lab/sim_chart.py: the hand-built SVG chart of results/knowledge_base.md, from the default model's main seeds.

Layer: below sim_report.py. Three small line charts: the stale share by hour with popular
and uniform saves, and the cumulative calls and KiB of the three hourly checks. No
plotting library: a few SVG elements, with colours for light and dark pages.
"""

from typing import Any, Dict, List, Sequence

from lab import sim_day
from lab.experiments import seeds_text

SVG_STYLE = """
  .bg { fill: #ffffff; } .ink { fill: #1f2328; font: 13px sans-serif; } .small { font-size: 11px; }
  .axis { stroke: #8c959f; stroke-width: 1; fill: none; } .grid { stroke: #d0d7de; stroke-width: 0.5; }
  .zipf { stroke: #cf222e; fill: #cf222e; } .uniform { stroke: #0969da; fill: #0969da; }
  .title { stroke: #8250df; fill: #8250df; } .reread { stroke: #bc4c00; fill: #bc4c00; }
  .poll { stroke: #1a7f37; fill: #1a7f37; } .line { fill: none; stroke-width: 2; }
  @media (prefers-color-scheme: dark) {
    .bg { fill: #0d1117; } .ink { fill: #e6edf3; } .axis { stroke: #7d8590; } .grid { stroke: #30363d; }
    .zipf { stroke: #ff7b72; fill: #ff7b72; } .uniform { stroke: #58a6ff; fill: #58a6ff; }
    .title { stroke: #d2a8ff; fill: #d2a8ff; } .reread { stroke: #ffa657; fill: #ffa657; }
    .poll { stroke: #3fb950; fill: #3fb950; }
  }
"""
PANEL_WIDTH, PANEL_HEIGHT, MARGIN = 300, 190, 56


def chart(report: Any) -> str:
    """Hand-built SVG: stale share by hour (popular vs uniform saves), and the checks' cumulative cost."""
    m = report.models[report.default].main
    hours = list(range(1, len(m["zipf"]["hours"]) + 1))
    stale = {run: [100 * h["stale"] / h["citations"] if h["citations"] else 0.0 for h in m[run]["hours"]]
             for run in ("zipf", "uniform")}
    costs = {s: [h["costs"][s] for h in m["zipf"]["hours"]] for s in sim_day.STRATEGIES}
    panels = [
        panel(0, 0, "Stale citations, % of citations so far", hours,
              {"zipf": stale["zipf"], "uniform": stale["uniform"]},
              {"zipf": "saves on popular articles", "uniform": "saves uniform (control)"}),
        panel(1, 0, "Calls of the hourly checks, cumulative", hours,
              {s: [c[0] for c in costs[s]] for s in sim_day.STRATEGIES}, LEGEND),
        panel(0, 1, "KiB returned by the hourly checks, cumulative", hours,
              {s: [c[1] / 1024 for c in costs[s]] for s in sim_day.STRATEGIES}, LEGEND),
    ]
    width, height = 2 * (PANEL_WIDTH + 2 * MARGIN), 2 * (PANEL_HEIGHT + 2 * MARGIN)
    caption = (f"Seeds {seeds_text(report.seeds)} summed, {report.title(report.default)} model; the agent checks "
               "at the end of each hour. Checking strategies: re-search titles, re-read articles, poll events.")
    return "\n".join([
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
        f"viewBox='0 0 {width} {height}' role='img'>",
        f"<title>{caption}</title>",
        f"<style>{SVG_STYLE}</style>",
        f"<rect class='bg' width='{width}' height='{height}'/>",
        *[line for p in panels for line in p],
        f"<text class='ink small' x='{PANEL_WIDTH + 2 * MARGIN + MARGIN}' y='{PANEL_HEIGHT + 2 * MARGIN + 40}'>"
        "Checking strategies</text>",
        *[f"<text class='ink small' x='{PANEL_WIDTH + 3 * MARGIN}' y='{PANEL_HEIGHT + 2 * MARGIN + 64 + 20 * i}'>"
          f"<tspan class='{s}'>■</tspan> {LEGEND[s]}</text>" for i, s in enumerate(sim_day.STRATEGIES)],
        f"<text class='ink small' x='{PANEL_WIDTH + 3 * MARGIN}' y='{PANEL_HEIGHT + 2 * MARGIN + 140}'>"
        f"Seeds {seeds_text(report.seeds)}, summed; {report.title(report.default)} model.</text>",
        "</svg>",
    ]) + "\n"


LEGEND = {"title": "re-search each cited title", "reread": "re-read each cited article",
          "poll": "poll_resource_events from a cursor"}


def panel(column: int, row: int, title: str, hours: Sequence[int], series: Dict[str, List[float]],
          names: Dict[str, str]) -> List[str]:
    """One line chart: hours on x, series (keyed by CSS class) on y from 0 to a round maximum."""
    left = column * (PANEL_WIDTH + 2 * MARGIN) + MARGIN
    top = row * (PANEL_HEIGHT + 2 * MARGIN) + MARGIN
    top_value = nice_ceiling(max([v for values in series.values() for v in values] + [1.0]))
    x = lambda h: left + PANEL_WIDTH * h / max(hours)  # noqa: E731
    y = lambda v: top + PANEL_HEIGHT * (1 - v / top_value)  # noqa: E731
    lines = [f"<text class='ink' x='{left}' y='{top - 18}'>{title}</text>"]
    for step in range(5):
        value = top_value * step / 4
        lines += [f"<line class='grid' x1='{left}' y1='{y(value):.1f}' x2='{left + PANEL_WIDTH}' y2='{y(value):.1f}'/>",
                  f"<text class='ink small' x='{left - 6}' y='{y(value) + 4:.1f}' text-anchor='end'>"
                  f"{value:,.0f}</text>"]
    lines.append(f"<path class='axis' d='M{left},{top} V{top + PANEL_HEIGHT} H{left + PANEL_WIDTH}'/>")
    lines += [f"<text class='ink small' x='{x(h):.1f}' y='{top + PANEL_HEIGHT + 16}' text-anchor='middle'>{h}</text>"
              for h in hours]
    lines.append(f"<text class='ink small' x='{left + PANEL_WIDTH / 2}' y='{top + PANEL_HEIGHT + 34}' "
                 "text-anchor='middle'>hour of the day</text>")
    for i, (name, values) in enumerate(series.items()):
        points = " ".join(f"{x(h):.1f},{y(v):.1f}" for h, v in zip(hours, values))
        lines.append(f"<polyline class='{name} line' points='{points}'><title>{names[name]}</title></polyline>")
        lines += [f"<circle class='{name}' cx='{x(h):.1f}' cy='{y(v):.1f}' r='3'/>" for h, v in zip(hours, values)]
        if row == 0 and column == 0:
            lines.append(f"<text class='ink small' x='{left + 10}' y='{top + 14 + 16 * i}'>"
                         f"<tspan class='{name}'>■</tspan> {names[name]}</text>")
    return lines


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten that is at least `value`."""
    power = 10 ** (len(str(int(value))) - 1) if value >= 1 else 1
    for step in (1, 2, 2.5, 5, 10):
        if step * power >= value:
            return step * power
    return 10 * power
