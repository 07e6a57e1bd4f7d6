"""What every command shares: the one-line argument parser, the option types, the exit codes, output files.

Layer: the bottom of the commands, beside the stores: sim.py, triage.py, bench.py,
mcp_server.py and the benchmark's scripts take their parser from here, and it
imports nothing of the project. A bad option costs one line on stderr and exit
status 2, whatever the command.

Glossary:
  option type   a function from the option's text to its value, raising argparse.ArgumentTypeError
                with a sentence that names what was wrong
  exit code     EXIT_OK, EXIT_FAILED (the work ran and found a failure), EXIT_USAGE (a bad option,
                nothing done), EXIT_INTERRUPTED (Ctrl-C: 128 + SIGINT, as shells report it)
"""

import argparse
import re
from typing import Any, List

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad option costs one line of stderr (and exit status 2), not the whole usage.

    prog is a script ("sim.py") or a module run with -m ("benchmark.growth"); the line names the command
    that explains every option.
    """

    def error(self, message: str) -> None:  # type: ignore[override]
        command = self.prog if self.prog.endswith(".py") else f"-m {self.prog}"
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (python3 {command} --help explains every option)\n")


def parse_seeds(text: str) -> List[int]:
    """'1-5' or '1,3,8-10' as a sorted list of distinct positive seeds.

    >>> parse_seeds("1,3,8-10"), parse_seeds("2-4,3")
    ([1, 3, 8, 9, 10], [2, 3, 4])
    """
    seeds = set()
    for part in text.split(","):
        match = re.fullmatch(r"\s*(\d+)(?:\s*-\s*(\d+))?\s*", part)
        if not match:
            raise argparse.ArgumentTypeError(f"{text!r} is not a seed list such as 1-5 or 1,3,8-10")
        low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        if low < 1 or high < low:
            raise argparse.ArgumentTypeError(f"{part.strip()!r} is not a range of seeds from 1 upwards")
        seeds.update(range(low, high + 1))
    return sorted(seeds)


def bounded(kind: type, text: str, low: Any, high: Any) -> Any:
    """text as a `kind` from low to high (high None: no upper bound), or an argparse error saying so."""
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value < low or (high is not None and value > high) or value != value:
        bounds = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise argparse.ArgumentTypeError(f"{text!r} is not a number {bounds}")
    return value


def positive(text: str) -> int:
    """An integer of at least 1."""
    return bounded(int, text, 1, None)


def non_negative(text: str) -> int:
    """An integer of at least 0."""
    return bounded(int, text, 0, None)


def share(text: str) -> float:
    """A number from 0 to 1."""
    return bounded(float, text, 0.0, 1.0)


def exponent(text: str) -> float:
    """A number of at least 0."""
    return bounded(float, text, 0.0, None)


def write_text(path: str, text: str) -> None:
    """Write a results file with "\\n" line ends on every platform."""
    with open(path, "w", encoding="utf-8", newline="\n") as file:
        file.write(text)
