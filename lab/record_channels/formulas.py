"""The record-channel figures' formulas: how each figure is computed from the summed counts of a group of seeds.

Layer: above runs.py (whose counts the formulas read: one seed's dict, summed over a group by
experiments.total_of) and scenario.py (R1's rows and R3's runs); below rerun.py, which measures every
formula over the main seeds and the range groups. A formula is a function of the summed counts `t`.
"""

from lab.experiments import Figures, percent
from lab.record_channels.runs import TARGET_FIELDS
from lab.record_channels.scenario import R1_ROWS, R3_RUNS


def r1_figures(row: str) -> Figures:
    """One R1 row: fields saved (count and share), left to a person, edit calls per item, and why."""
    r = lambda t: t["R1"][row]  # noqa: E731
    return {
        f"R1.{row}.saved": lambda t: r(t)["saved"],
        f"R1.{row}.saved_pct": lambda t: percent(r(t)["saved"], len(TARGET_FIELDS) * r(t)["items"]),
        f"R1.{row}.left": lambda t: r(t)["flagged"],
        f"R1.{row}.calls_per_item": lambda t: r(t)["edit_calls"] / r(t)["items"],
        f"R1.{row}.first_failed": lambda t: r(t)["first_failed"],
        f"R1.{row}.nothing_left": lambda t: r(t)["nothing_left"],
        f"R1.{row}.wrong": lambda t: r(t)["wrong"],
    }


def r1_gap_figures() -> Figures:
    """What reading the schema saves per item, with labels in the rejection: first edits refused, and edit calls."""
    per_item = lambda t, row, name: t["R1"][row][name] / t["R1"][row]["items"]  # noqa: E731
    return {
        "R1.gap.first_failed_per_item": lambda t: (per_item(t, "no.labels", "first_failed")
                                                   - per_item(t, "yes.labels", "first_failed")),
        "R1.gap.calls_per_item": lambda t: (per_item(t, "no.labels", "edit_calls")
                                            - per_item(t, "yes.labels", "edit_calls")),
    }


def all_figures() -> Figures:
    """Every figure of R1-R5 (R6 is timed apart: it is no count)."""
    figures: Figures = {"R1.twenty": lambda t: t["R1"]["yes.values"]["twenty"]}
    for row in R1_ROWS:
        figures.update(r1_figures(row))
    figures.update(r1_gap_figures())
    per_page = lambda t, name: t["R2"][name] / t["R2"]["pages"]  # noqa: E731
    figures.update({
        "R2.page_kib": lambda t: per_page(t, "page_bytes") / 1024,
        "R2.full_kib": lambda t: per_page(t, "full_bytes") / 1024,
        "R2.schema_bytes": lambda t: per_page(t, "schema_bytes"),
        "R2.schema_share_pct": lambda t: percent(t["R2"]["schema_bytes"], t["R2"]["page_bytes"]),
    })
    for run in R3_RUNS:
        figures.update(r3_figures(run))
    for strategy in ("relist", "poll"):
        figures.update(r4_figures(strategy))
    for strategy in ("from_read", "reread"):
        figures.update(r5_figures(strategy))
    figures["R5.moved"] = lambda t: t["R5"]["moved"]
    return figures


def r3_figures(run: str) -> Figures:
    """One R3 pass (a change and a pagination): pages, reads, items read twice, items never read."""
    return {
        f"R3.{run}.pages": lambda t: t["R3"][run]["pages"],
        f"R3.{run}.reads": lambda t: t["R3"][run]["reads"],
        f"R3.{run}.twice": lambda t: t["R3"][run]["twice"],
        f"R3.{run}.never": lambda t: t["R3"][run]["never"],
    }


def r4_figures(strategy: str) -> Figures:
    """One way to find R4's changes (re-listing or polling), per run: calls, KiB, changes found."""
    return {
        f"R4.{strategy}.calls": lambda t: t["R4"][strategy]["calls"] / t["R4"]["runs"],
        f"R4.{strategy}.kib": lambda t: t["R4"][strategy]["bytes"] / t["R4"]["runs"] / 1024,
        f"R4.{strategy}.found": lambda t: t["R4"][strategy]["found"] / t["R4"]["runs"],
    }


def r5_figures(strategy: str) -> Figures:
    """One way to get R5's version (from the read, or re-read before the edit): conflicts, people's changes lost."""
    return {
        f"R5.{strategy}.conflicts": lambda t: t["R5"][strategy]["conflicts"],
        f"R5.{strategy}.overwritten": lambda t: t["R5"][strategy]["overwritten"],
    }
