"""The hand-built SVG chart of results/knowledge_base.md, from the default model's main seeds.

Layer: below report.py, which re-exports `chart`, on measured.Report. Three small line charts and a key: the stale share
by hour with popular and uniform saves, and the cumulative calls and KiB of the three hourly checks, each
with the published figures marked beside ours where the articles give them (a hollow diamond in the
series' colour). No plotting library: a few SVG elements, with colours for light and dark pages.

What keeps it legible: a linear axis steps by 1, 2 or 5 × 10^k up to a multiple of its step; the two cost
panels are logarithmic, ticks at powers of ten, so that polling (some sixty times fewer calls) reads on
the same axis as the other two checks and the gap between them reads as a ratio; each series has its own
colour, dash and marker, and the two checks that cost nearly the same are drawn so that neither hides the
other (a solid line under a dashed one, a filled dot inside a hollow square); every series is named at
its end by a label pushed clear of the others.

Glossary:
    series    -- one line of a panel: its key (the CSS class that colours it) and its values by hour.
    axis      -- the y scale of a panel: its ticks, bottom to top, and whether it is logarithmic.
    look      -- how a series is drawn apart from its colour: dash pattern, marker shape, hollow or filled.
    end label -- a series' short name and last value, right of the plot, joined to its last point.
    published -- the articles' figure for a series at an hour they give it: the K2 stale share by hour and the
                 control run's at the day's end; the checks' calls and KiB for the whole day only.
    cell      -- one quarter of the picture: a panel (title, ticks, plot, end labels) or the key.
"""

import math
from typing import Any, Dict, Iterable, List, NamedTuple, Sequence, Tuple

from lab.knowledge_base import day
from lab.experiments import seeds_text

SVG_STYLE = """
  .bg { fill: #ffffff; } .ink { fill: #1f2328; font: 13px sans-serif; } .small { font: 11px sans-serif; }
  .axis { stroke: #8c959f; stroke-width: 1; fill: none; } .grid { stroke: #d0d7de; stroke-width: 0.6; }
  .minor { stroke: #eaeef2; stroke-width: 0.5; }
  .zipf { color: #cf222e; } .uniform { color: #0969da; }
  .title { color: #8250df; } .reread { color: #bc4c00; } .poll { color: #1a7f37; } .neutral { color: #1f2328; }
  .line { fill: none; stroke-width: 2; } .solid { stroke-width: 2.8; } .leader { fill: none; stroke-width: 0.8; }
  .halo { stroke: #ffffff; stroke-width: 1; } .hollow { fill: #ffffff; stroke-width: 1.6; }
  @media (prefers-color-scheme: dark) {
    .bg { fill: #0d1117; } .ink { fill: #e6edf3; } .axis { stroke: #7d8590; } .grid { stroke: #30363d; }
    .minor { stroke: #1c2128; }
    .zipf { color: #ff7b72; } .uniform { color: #58a6ff; }
    .title { color: #d2a8ff; } .reread { color: #ffa657; } .poll { color: #3fb950; } .neutral { color: #e6edf3; }
    .halo { stroke: #0d1117; } .hollow { fill: #0d1117; }
  }
"""

PLOT_WIDTH, PLOT_HEIGHT = 300, 200  # px: the plotting area of a panel
LEFT, RIGHT, TOP, BOTTOM = 60, 170, 52, 64  # px around it: y ticks, end labels, panel title, hours
CELL_WIDTH, CELL_HEIGHT = LEFT + PLOT_WIDTH + RIGHT, TOP + PLOT_HEIGHT + BOTTOM
X_INSET = 14  # px from the plot's edges to the first and the last hour
LINEAR_INTERVALS = 5  # a linear axis takes the round step at or above a fifth of its largest value
ROUND_MANTISSAS = (1, 2, 5)  # a linear tick step is one of these times a power of ten
LABEL_SPACING = 15  # px between the middles of two end labels: the small font and 4 px
LABEL_OFFSET = 12  # px from the plot's right edge to an end label
TEXT_MIDDLE = 4  # px from the middle of a small text down to its baseline
MARK_RADIUS = 3.5  # px: half the width of a filled marker
HOLLOW_RADIUS = 5  # px: half the width of a hollow one, so that its rim shows around a filled one inside
SWATCH_WIDTH = 30  # px: the line sample of the key
DIAMOND_RADIUS = 7  # px: half the height of a published figure's diamond, around our marker at the same hour


class Look(NamedTuple):
    """How a series is drawn apart from its colour."""
    dash: str  # the stroke-dasharray, '' for a solid line
    marker: str  # 'circle', 'square' or 'triangle'
    hollow: bool  # a coloured rim around the background colour, drawn below the filled markers


# Series that may run together get different dashes and markers: a solid line with filled dots, drawn
# first, and a dashed line with hollow squares on top of it, so each shows through the other.
LOOKS = {"zipf": Look("", "circle", False), "uniform": Look("7 4", "square", True),
         "title": Look("", "circle", False), "reread": Look("7 4", "square", True),
         "poll": Look("2 3", "triangle", False)}
SHORT = {"zipf": "popular saves", "uniform": "uniform saves", "title": "re-search titles",
         "reread": "re-read articles", "poll": "poll events"}
LEGEND = {"zipf": "saves on popular articles", "uniform": "saves uniform (control)",
          "title": "re-search each cited title", "reread": "re-read each cited article",
          "poll": "poll_resource_events from a cursor"}


class Axis(NamedTuple):
    """A y scale: its tick values, bottom to top, and whether it is logarithmic."""
    ticks: Tuple[float, ...]
    log: bool

    def fraction(self, value: float) -> float:
        """How far up the axis `value` sits: 0 at the bottom tick, 1 at the top (a log axis's floor takes
        the values under it)."""
        low, high = self.ticks[0], self.ticks[-1]
        if self.log:
            return math.log10(max(value, low) / low) / math.log10(high / low)
        return (value - low) / (high - low)


class Panel(NamedTuple):
    """One line chart: its cell, title, y axis, series by key, and how an end label writes its value."""
    column: int
    row: int
    title: str
    axis: Axis
    series: Dict[str, List[float]]
    value_format: str  # a format spec for the end labels, e.g. ',.0f' or '.1f'
    unit: str  # after an end label's value
    published: Dict[str, List[Tuple[int, float]]]  # series key -> (hour, the articles' figure) where published


STALE = "stale_distinct"  # the page's leading reading: a stale (article_id, updated_at) counted once, however
#                           often it was cited


def chart(report: Any) -> str:
    """Hand-built SVG: stale share by hour (popular vs uniform saves), and the checks' cumulative cost, each with
    the published figures beside ours."""
    m = report.models[report.default].main
    hours = list(range(1, len(m["zipf"]["hours"]) + 1))
    panels = chart_panels(m, published_points(report.published, [h for h in report.published_hours if h in hours]))
    width, height = 2 * CELL_WIDTH, 2 * CELL_HEIGHT
    return "\n".join([
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
        f"viewBox='0 0 {width} {height}' role='img'>",
        f"<title>{caption(report)}</title>",
        f"<style>{SVG_STYLE}</style>",
        f"<rect class='bg' width='{width}' height='{height}'/>",
        *[line for p in panels for line in panel(p, hours)],
        *key_cell(1, 1, report),
        "</svg>",
    ]) + "\n"


def caption(report: Any) -> str:
    """The chart's accessible title: what it shows, over which seeds and model."""
    return (f"Seeds {seeds_text(report.seeds)} summed, {report.title(report.default)} model; the agent checks "
            "at the end of each hour. Top left: stale citations, each distinct version counted once (the reading "
            "the page leads with), % of citations so far, with saves on popular "
            "articles or uniform. Calls and KiB of the checking strategies, cumulative, on log scales: "
            "re-search titles, re-read articles, poll events. Hollow diamonds: the published figures, at the hours "
            "the articles give them.")


def published_points(published: Dict[str, float], hours: Sequence[int]) -> List[Dict[str, List[Tuple[int, float]]]]:
    """The articles' figures for each panel's series, as (hour, value): the stale share at each published hour
    and the control run's at the last one; the checks' calls and KiB over the whole day, at the last hour."""
    if not hours:
        return [{}, {}, {}]
    end = hours[-1]
    stale = {"zipf": [(h, published[f"K2.h{h}.stale_pct"]) for h in hours],
             "uniform": [(end, published["control.stale_pct"])]}
    totals = [{s: [(end, published[f"K3.{s}.{what}"])] for s in day.STRATEGIES} for what in ("calls", "kib")]
    return [stale, *totals]


def chart_panels(m: Dict[str, Any], published: Sequence[Dict[str, List[Tuple[int, float]]]]) -> List[Panel]:
    """The three panels of the main seeds' sums `m`, with the published points of each: stale share, calls, KiB."""
    stale = {run: [100 * h[STALE] / h["citations"] if h["citations"] else 0.0 for h in m[run]["hours"]]
             for run in ("zipf", "uniform")}
    costs = {s: [h["costs"][s] for h in m["zipf"]["hours"]] for s in day.STRATEGIES}
    calls = {s: [float(c[0]) for c in costs[s]] for s in day.STRATEGIES}
    kib = {s: [c[1] / 1024 for c in costs[s]] for s in day.STRATEGIES}
    shown = [values + [v for points in marks.values() for _, v in points]
             for values, marks in zip((all_values(stale), all_values(calls), all_values(kib)), published)]
    return [
        Panel(0, 0, "Stale citations (each version once), % of citations", linear_axis(shown[0]), stale,
              ".1f", "%", published[0]),
        Panel(1, 0, "Calls of the hourly checks, cumulative (log scale)", log_axis(shown[1]), calls,
              ",.0f", "", published[1]),
        Panel(0, 1, "KiB returned by the hourly checks, cumulative (log scale)", log_axis(shown[2]), kib,
              ",.0f", " KiB", published[2]),
    ]


def all_values(series: Dict[str, List[float]]) -> List[float]:
    """Every value of every series."""
    return [v for values in series.values() for v in values]


def round_step(span: float) -> float:
    """The smallest of 1, 2 or 5 times a power of ten that is at least `span` (above 0).

    >>> [round_step(v) for v in (0.3, 1, 11.16, 508.6, 2000)]
    [0.5, 1, 20, 1000, 2000]
    """
    exponent = math.floor(math.log10(span))
    for mantissa in ROUND_MANTISSAS + (10,):
        step = mantissa * 10 ** exponent if exponent >= 0 else mantissa / 10 ** -exponent
        if step >= span * (1 - 1e-9):
            return step
    return 10 ** (exponent + 1)


def linear_axis(values: Iterable[float]) -> Axis:
    """From 0 by a round step up to the first multiple of the step at or above every value (all 0 or more).

    >>> linear_axis([0, 25.0, 55.8]).ticks
    (0, 20, 40, 60)
    """
    high = max(list(values) + [0]) or 1
    step = round_step(high / LINEAR_INTERVALS)
    count = math.ceil(high / step - 1e-9)
    return Axis(tuple(round(i * step, 12) for i in range(count + 1)), log=False)


def log_axis(values: Iterable[float]) -> Axis:
    """Powers of ten, from the one at or below the smallest value above 0 to the one at or above the largest.

    >>> log_axis([5, 40, 2543]).ticks
    (1, 10, 100, 1000, 10000)
    """
    positive = [v for v in values if v > 0] or [1]
    low = math.floor(math.log10(min(positive)))
    high = max(math.ceil(math.log10(max(positive))), low + 1)
    return Axis(tuple(10 ** k if k >= 0 else 1 / 10 ** -k for k in range(low, high + 1)), log=True)


def minor_ticks(axis: Axis) -> List[float]:
    """The unlabelled gridlines of a log axis: 2 to 9 times each power of ten below the top.

    >>> minor_ticks(Axis((1, 10), log=True))
    [2, 3, 4, 5, 6, 7, 8, 9]
    """
    return [k * power for power in axis.ticks[:-1] for k in range(2, 10)] if axis.log else []


def tick_text(value: float, axis: Axis) -> str:
    """A tick value with thousands separated and the decimals its step needs: '1,000', '0.2'."""
    step = value if axis.log else axis.ticks[1] - axis.ticks[0]
    return f"{value:,.{max(0, -math.floor(math.log10(step) + 1e-9))}f}"


def x_of(hour: int, hours: Sequence[int], left: float) -> float:
    """The x of an hour: the first and the last hour X_INSET inside the plot's edges."""
    span = max(hours) - min(hours)
    share = (hour - min(hours)) / span if span else 0.5
    return left + X_INSET + (PLOT_WIDTH - 2 * X_INSET) * share


def y_of(value: float, axis: Axis, top: float) -> float:
    """The y of a value on the axis."""
    return top + PLOT_HEIGHT * (1 - axis.fraction(value))


def panel(p: Panel, hours: Sequence[int]) -> List[str]:
    """One line chart in its cell: title, grid and ticks, axes, hours, lines, markers, end labels."""
    left, top = p.column * CELL_WIDTH + LEFT, p.row * CELL_HEIGHT + TOP
    return [f"<g class='panel {'log' if p.axis.log else 'linear'}'>",
            f"<text class='ink' x='{left - LEFT + 12}' y='{top - 24}'>{p.title}</text>",
            *grid(p.axis, left, top), *hour_ticks(hours, left, top),
            *lines(p, hours, left, top), *markers(p, hours, left, top), *published_marks(p, hours, left, top),
            *end_labels(p, hours, left, top), "</g>"]


def grid(axis: Axis, left: float, top: float) -> List[str]:
    """The gridlines (minor ones unlabelled), the tick values and the two axes."""
    out = [f"<line class='minor' x1='{left}' y1='{y:.1f}' x2='{left + PLOT_WIDTH}' y2='{y:.1f}'/>"
           for y in (y_of(v, axis, top) for v in minor_ticks(axis))]
    for value in axis.ticks:
        y = y_of(value, axis, top)
        out += [f"<line class='grid' x1='{left}' y1='{y:.1f}' x2='{left + PLOT_WIDTH}' y2='{y:.1f}'/>",
                f"<text class='ink small tick' x='{left - 6}' y='{y + TEXT_MIDDLE:.1f}' text-anchor='end'>"
                f"{tick_text(value, axis)}</text>"]
    return out + [f"<path class='axis' d='M{left},{top} V{top + PLOT_HEIGHT} H{left + PLOT_WIDTH}'/>"]


def hour_ticks(hours: Sequence[int], left: float, top: float) -> List[str]:
    """The hours under the plot and the x axis's name."""
    bottom = top + PLOT_HEIGHT
    return [*[f"<text class='ink small' x='{x_of(h, hours, left):.1f}' y='{bottom + 16}' text-anchor='middle'>"
              f"{h}</text>" for h in hours],
            f"<text class='ink small' x='{left + PLOT_WIDTH / 2}' y='{bottom + 34}' text-anchor='middle'>"
            "hour of the day</text>"]


def lines(p: Panel, hours: Sequence[int], left: float, top: float) -> List[str]:
    """One polyline a series, in the panel's order (a later one lies on top), with its name as tooltip."""
    out = []
    for key, values in p.series.items():
        points = " ".join(f"{x_of(h, hours, left):.1f},{y_of(v, p.axis, top):.1f}" for h, v in zip(hours, values))
        out.append(f"<polyline {stroke(key)} points='{points}'>"
                   f"<title>{LEGEND[key]}</title></polyline>")
    return out


def stroke(key: str) -> str:
    """The attributes of a series' line: its colour and dashes, or, if solid, a width that shows on both
    sides of a dashed line on top of it."""
    look = LOOKS[key]
    if look.dash:
        return f"class='{key} line' stroke='currentColor' stroke-dasharray='{look.dash}'"
    return f"class='{key} line solid' stroke='currentColor'"


def markers(p: Panel, hours: Sequence[int], left: float, top: float) -> List[str]:
    """A marker at every hour of every series: hollow ones first, so that a filled one shows inside."""
    keys = sorted(p.series, key=lambda k: not LOOKS[k].hollow)
    return [marker(k, x_of(h, hours, left), y_of(v, p.axis, top)) for k in keys for h, v in zip(hours, p.series[k])]


def marker(key: str, x: float, y: float) -> str:
    """The marker of a series centred on (x, y): filled with a halo, or a hollow rim."""
    look = LOOKS[key]
    r = HOLLOW_RADIUS if look.hollow else MARK_RADIUS
    paint = f"class='{key} mark hollow' stroke='currentColor'" if look.hollow else \
        f"class='{key} mark halo' fill='currentColor'"
    if look.marker == "circle":
        return f"<circle {paint} cx='{x:.1f}' cy='{y:.1f}' r='{r}'/>"
    if look.marker == "square":
        return f"<rect {paint} x='{x - r:.1f}' y='{y - r:.1f}' width='{2 * r}' height='{2 * r}'/>"
    return (f"<path {paint} d='M{x:.1f},{y - 1.2 * r:.1f} L{x + 1.15 * r:.1f},{y + 0.8 * r:.1f} "
            f"L{x - 1.15 * r:.1f},{y + 0.8 * r:.1f} Z'/>")


def published_marks(p: Panel, hours: Sequence[int], left: float, top: float) -> List[str]:
    """A hollow diamond in the series' colour at each published figure, named in its tooltip."""
    return [diamond(key, x_of(h, hours, left), y_of(v, p.axis, top), f"published: {v:{p.value_format}}{p.unit}")
            for key, points in p.published.items() for h, v in points]


def diamond(key: str, x: float, y: float, tooltip: str = "") -> str:
    """The mark of a published figure: a hollow diamond, larger than the markers of ours, so both show."""
    r = DIAMOND_RADIUS
    title = f"<title>{tooltip}</title>" if tooltip else ""
    return (f"<path class='{key} published' stroke='currentColor' fill='none' stroke-width='1.8' "
            f"d='M{x:.1f},{y - r:.1f} L{x + r:.1f},{y:.1f} L{x:.1f},{y + r:.1f} L{x - r:.1f},{y:.1f} Z'>{title}"
            "</path>")


def end_labels(p: Panel, hours: Sequence[int], left: float, top: float) -> List[str]:
    """Each series' short name and last value right of the plot, spread apart, with a leader to its last point."""
    ends = [y_of(values[-1], p.axis, top) for values in p.series.values()]
    places = spread(ends, LABEL_SPACING, top, top + PLOT_HEIGHT)
    x_end, x_label = x_of(hours[-1], hours, left), left + PLOT_WIDTH + LABEL_OFFSET
    out = []
    for (key, values), y_end, y_label in zip(p.series.items(), ends, places):
        out += [f"<path class='{key} leader' stroke='currentColor' "
                f"d='M{x_end + HOLLOW_RADIUS + 2:.1f},{y_end:.1f} L{x_label - 3:.1f},{y_label:.1f}'/>",
                f"<text class='{key} small label' fill='currentColor' x='{x_label}' "
                f"y='{y_label + TEXT_MIDDLE:.1f}'>{SHORT[key]}: {values[-1]:{p.value_format}}{p.unit}</text>"]
    return out


def spread(wanted: Sequence[float], spacing: float, low: float, high: float) -> List[float]:
    """Positions as near `wanted` as they can be with `spacing` between neighbours, inside [low, high], in the
    same order: labels that would touch are gathered and centred on where they wanted to be.

    >>> spread([100, 101, 150], 14, 0, 200)
    [93.5, 107.5, 150.0]
    >>> spread([195, 198], 14, 0, 200)
    [186, 200]
    """
    clusters: List[Tuple[float, List[int]]] = []  # (first position, members from the top down)
    for i in sorted(range(len(wanted)), key=lambda i: wanted[i]):
        clusters.append(cluster_start([i], wanted, spacing, low, high))
        while len(clusters) > 1 and clusters[-2][0] + spacing * len(clusters[-2][1]) > clusters[-1][0]:
            members = clusters[-2][1] + clusters[-1][1]
            clusters[-2:] = [cluster_start(members, wanted, spacing, low, high)]
    places = [0.0] * len(wanted)
    for start, members in clusters:
        for k, i in enumerate(members):
            places[i] = start + k * spacing
    return places


def cluster_start(members: List[int], wanted: Sequence[float], spacing: float, low: float,
                  high: float) -> Tuple[float, List[int]]:
    """Where a run of labels `spacing` apart starts so that they sit on average where they wanted, kept
    inside [low, high]."""
    start = sum(wanted[i] - k * spacing for k, i in enumerate(members)) / len(members)
    return max(low, min(start, high - spacing * (len(members) - 1))), members


def key_cell(column: int, row: int, report: Any) -> List[str]:
    """The key in its cell: a line sample and the long name of every series, the scales and the seeds."""
    left, y = column * CELL_WIDTH + LEFT, row * CELL_HEIGHT + TOP
    out = ["<g class='key'>", f"<text class='ink' x='{left}' y='{y - 24}'>Key</text>"]
    for heading, keys in (("Stale share (top left)", ("zipf", "uniform")),
                          ("Checking strategies (calls, KiB)", day.STRATEGIES)):
        out.append(f"<text class='ink small' x='{left}' y='{y}'>{heading}</text>")
        for name in keys:
            y += 20
            out += swatch(name, left, y)
        y += 30
    out += [diamond("neutral", left + SWATCH_WIDTH / 2, y),
            f"<text class='ink small' x='{left + SWATCH_WIDTH + 10}' y='{y + TEXT_MIDDLE}'>published figure (the "
            "articles), in the series' colour</text>"]
    y += 30
    notes = ("Calls and KiB on log scales: each labelled gridline",
             "is ten times the one below it. The articles give the",
             "checks' calls and KiB for the whole day only.",
             f"Seeds {seeds_text(report.seeds)}, summed; {report.title(report.default)} model.")
    out += [f"<text class='ink small' x='{left}' y='{y + 18 * i}'>{note}</text>" for i, note in enumerate(notes)]
    return out + ["</g>"]


def swatch(name: str, left: float, y: float) -> List[str]:
    """A line sample of the series `name` with its marker, and its long name."""
    return [f"<path {stroke(name)} d='M{left},{y} h{SWATCH_WIDTH}'/>",
            marker(name, left + SWATCH_WIDTH / 2, y),
            f"<text class='ink small' x='{left + SWATCH_WIDTH + 10}' y='{y + TEXT_MIDDLE}'>{LEGEND[name]}</text>"]
