"""Reads the timings the linear comparison scripts print ("LABEL ... W s (cpu C
s)", from bench/common/bench_timing.hpp's format_timing and the references' scripts)."""
import re


def times(text, label, threads=None):
    """(wall, cpu) seconds of the first line holding `label` (after "threads N: "
    when `threads` is given)."""
    prefix = f"threads {threads}: " if threads else ""
    m = re.search(re.escape(prefix + label) + r"[^\n]*? ([0-9.]+) s \(cpu ([0-9.]+) s\)", text)
    if m is None:
        raise SystemExit(f"no timing for '{prefix + label}' in the output above")
    return float(m.group(1)), float(m.group(2))
