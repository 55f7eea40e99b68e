"""What an S1 sweep covers: the grids, the schemes, and each configuration
(``Point``) with the preset overrides that make it."""

from __future__ import annotations

from dataclasses import dataclass

PRESET = "jacob-mudge"
TLB_SCHEMES = ("ultrix", "mach", "intel", "parisc")
SWEPT_SCHEMES = ("ultrix", "mach", "intel", "parisc", "softvm", "spur")
ALL_SCHEMES = SWEPT_SCHEMES + ("notlb",)
K = 1024


@dataclass(frozen=True)
class Grid:
    """What a sweep covers. Line pairs are (L1 line, L2 line); the four
    standard pairs vary each line size with the other held, so finding 5
    (which line size a scheme's curves group by) can be measured."""

    l1_kb: tuple
    l2_kb: tuple
    lines: tuple
    traces: tuple
    size: str
    max_events: int
    batch: int = 24


GRIDS = {
    # Inside `make test`: one small real trace, a prefix of it, a few points.
    "test": Grid(l1_kb=(2, 16), l2_kb=(512, 1024), lines=((16, 16), (16, 64), (64, 64)),
                 traces=("database",), size="small", max_events=300_000),
    # `make reproduce`: every workload's small trace, up to 10 M references of each.
    # Sizes are per side (split I/D caches), as the paper's Table 5 gives them:
    # its "1, 2, 4 MB" L2 of Figures 13-15 are 512K/512K, 1M/1M and 2M/2M.
    "standard": Grid(l1_kb=(1, 4, 16, 128), l2_kb=(512, 1024, 2048),
                     lines=((16, 16), (16, 64), (64, 64), (64, 128)),
                     traces=("compiler", "database", "bigfoot", "sparse"), size="small", max_events=10_000_000),
    # The default: every workload's whole trace (100-200 M references, footprints
    # well past the largest L2), the paper's three L2 sizes, four line pairs, and
    # L1 sizes that judge findings 2 (1 -> 128 KB) and 5 (small L1: 1-4 KB).
    "whole": Grid(l1_kb=(1, 4, 16, 128), l2_kb=(512, 1024, 2048),
                  lines=((16, 16), (16, 64), (64, 64), (64, 128)),
                  traces=("compiler", "database", "bigfoot", "sparse"), size="full", max_events=0),
    # The paper's figures: L1 1-128 KB, L2 1-4 MB (512K/512K to 2M/2M), seven line pairs, whole traces.
    "paper": Grid(l1_kb=(1, 2, 4, 8, 16, 32, 64, 128), l2_kb=(512, 1024, 2048),
                  lines=((16, 16), (16, 32), (16, 64), (32, 32), (32, 64), (64, 64), (64, 128)),
                  traces=("compiler", "database", "bigfoot", "sparse"), size="full", max_events=0),
}


PROTECTION_RATES = (2.8, 11.3, 23.8, 0.0113)
#: (L1 line, L2 line) at which Table 4 is printed: the L2 line of Table 5's miss rates.
TABLE4_LINES = (16, 32)


@dataclass(frozen=True)
class Point:
    """One configuration of the sweep: its place in the grid (``key``) and
    the preset overrides that make it. What a stored run is keyed by is
    not this but what the overrides resolve to (``sweep``)."""

    trace: str
    scheme: str
    l1_kb: int
    l2_kb: int
    l1_line: int
    l2_line: int
    tlb: int = 128
    #: SOFTVM/SPUR translate write-backs again: the variant `softvm+wb`
    #: (section 5.5), off as the paper measured Table 4 and Figures 13-15.
    retranslate: bool = False
    role: str = "sweep"
    protect_per_million: float = 0.0

    def key(self) -> str:
        return (f"{self.trace}|{self.scheme}|{self.l1_kb}|{self.l2_kb}|{self.l1_line}|{self.l2_line}|"
                f"{self.tlb}|{int(self.retranslate)}|{self.role}|{self.protect_per_million}")

    def overrides(self) -> list[str]:
        o = [f"scheme={self.scheme}"]
        for c in ("l1i", "l1d"):
            o += [f"{c}.size={self.l1_kb}K", f"{c}.line={self.l1_line}"]
        for c in ("l2i", "l2d"):
            o += [f"{c}.size={self.l2_kb}K", f"{c}.line={self.l2_line}"]
        if self.tlb != 128:
            o += [f"itlb.entries={self.tlb}", f"dtlb.entries={self.tlb}"]
        if self.retranslate:
            o.append("retranslate_writebacks=true")
        if self.protect_per_million:
            o.append(f"protection_changes_per_million={self.protect_per_million}")
        return o


def points(grid: Grid) -> list[Point]:
    """Every configuration a grid asks for, in a fixed order."""
    out: list[Point] = []
    for t in grid.traces:
        for scheme in SWEPT_SCHEMES:
            for l2 in grid.l2_kb:
                for (a, b) in grid.lines:
                    for l1 in grid.l1_kb:
                        out.append(Point(t, scheme, l1, l2, a, b))
        # Finding 3: 64-entry TLBs per side at the middle of the grid.
        mid_l1 = grid.l1_kb[len(grid.l1_kb) // 2]
        for scheme in ("ultrix", "mach", "softvm"):
            for l2 in grid.l2_kb[:2]:
                out.append(Point(t, scheme, mid_l1, l2, *grid.lines[1], tlb=64, role="tlb64"))
        # Tables 1 and 4: the paper's base machine.
        for scheme in ALL_SCHEMES:
            out.append(Point(t, scheme, 8, 512, 16, 16, role="base"))
        # Table 4: its uhandler frequencies (0.0019 + 0.0021 per instruction) are
        # Table 5's misses at 32-byte L2 lines (2.10 + 1.94 per 1,000), so it is
        # printed at 32-byte L2 lines (L1 lines as Table 1's, 16 bytes).
        out.append(Point(t, "softvm", 8, 512, TABLE4_LINES[0], TABLE4_LINES[1], role="table4"))
        # Section 5.5: SOFTVM translating write-backs again (the variant softvm+wb).
        out.append(Point(t, "softvm", 8, 512, *TABLE4_LINES, retranslate=True, role="table4-wb"))
        # Table 6 / section 5.6: protection changes at Mach's rates (compress
        # 2.8, weighted mean 11.3, highest 23.8 per million) and Ultrix's.
        for rate in PROTECTION_RATES:
            out.append(Point(t, "softvm", 8, 512, 16, 16, role="protection", protect_per_million=rate))
        # Table 5: L2 misses per 1,000 instructions, 32-byte L2 lines.
        for l2 in (512, 1024, 2048):
            out.append(Point(t, "notlb", 8, l2, 16, 32, role="table5"))
    seen: set[str] = set()
    unique = []
    for p in out:
        if p.key() not in seen:
            seen.add(p.key())
            unique.append(p)
    return unique


def _size(kb: int) -> str:
    """An L2 size per side, written as the paper's Table 5 writes it."""
    return f"{kb}K/{kb}K"
