"""A deliberately simple Python count of what a trace prefix touches: the
reference the engine's ``vmlab_trace::footprint`` (``s1.footprint``) is
compared with. It reads the trace as lackey text through a pipe and counts
in Python sets and an LRU list, so it is slow; tests only."""
import os
from typing import Any, Sequence

from vmlab import _engine
from vmlab.studies.s1 import FOOTPRINT_LINES


def footprint_reference(trace_path: str, max_events: int, line_sizes: Sequence[int] = FOOTPRINT_LINES,
              page_bytes: int = 4096, tlb_user_slots: Sequence[int] = (48, 112)) -> dict:
    """What the first ``max_events`` events of a trace (0 = all) touch: the
    distinct lines per side (I = instruction fetches, D = loads, stores and
    modifies) at each line size, distinct pages per side, distinct PTE lines
    of a linear 4-byte-PTE table at each line size, distinct 4 MB regions,
    and how often a fully associative LRU TLB of each size in
    ``tlb_user_slots`` would miss per side. These are floors no cache size
    removes: every distinct line misses its L2 at least once, every distinct
    page misses its TLB once. An access is split into the lines and pages it
    spans, as the simulator splits it.

    The engine decodes the trace (``trace_convert`` to lackey text into a
    pipe, so nothing large lands on disk); the counting is here."""
    if any(n <= 0 or n & (n - 1) for n in (*line_sizes, page_bytes)) or min(line_sizes) < 4:
        raise ValueError(f"line sizes {tuple(line_sizes)} and page size {page_bytes} must be powers of two >= 4")
    small = min(line_sizes)
    lshift, pshift = small.bit_length() - 1, page_bytes.bit_length() - 1
    slots = sorted(tlb_user_slots)
    depth = max(slots)
    lines: tuple[set, set] = (set(), set())
    # Lines whose first touch is a read (fetch, load or modify), per size: each
    # must come from memory through L2 on that read, whatever the caches (a
    # line first written may be allocated in L2 by a write-back, no fetch).
    shifts = {size: size.bit_length() - 1 - lshift for size in line_sizes}
    read_first: dict[int, tuple[set, set]] = {size: (set(), set()) for size in line_sizes}
    touched: dict[int, tuple[set, set]] = {size: (set(), set()) for size in line_sizes}
    pages: tuple[set, set] = (set(), set())
    stacks: tuple[list, list] = ([], [])  # LRU page stacks, most recent first, cut at `depth`
    lru = ({n: 0 for n in slots}, {n: 0 for n in slots})
    instructions = events = 0
    import tempfile
    import threading

    failure: list[Exception] = []
    with tempfile.TemporaryDirectory(prefix="vmlab-footprint-") as tmp:
        fifo = os.path.join(tmp, "prefix.lackey")
        os.mkfifo(fifo)

        done = threading.Event()

        def convert() -> None:
            try:
                _engine.trace_convert(os.fspath(trace_path), fifo, "lackey", None)
            except _engine.VmlabError as e:  # a broken pipe once we stop reading is expected
                failure.append(e)
                # A trace that cannot be opened fails before the pipe is opened
                # for writing: open and close it, so the reader sees the end
                # instead of waiting for ever.
                while not done.is_set():
                    try:
                        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
                        break
                    except OSError:
                        done.wait(0.01)

        writer = threading.Thread(target=convert, daemon=True)
        writer.start()
        with open(fifo, encoding="ascii") as f:
            for text in f:
                if max_events and events >= max_events:
                    break
                tag = text[:2]
                if tag == "I ":
                    side = 0
                    instructions += 1
                elif tag in (" L", " S", " M"):
                    side = 1
                else:
                    raise ValueError(f"{trace_path}: event {events + 1}: expected an access (I, L, S or M) "
                                     f"in the decoded trace, got {text.strip()!r}")
                events += 1
                addr, size = text[3:].split(",")
                first = int(addr, 16)
                last = first + max(int(size), 1) - 1
                ls = lines[side]
                for x in range(first >> lshift, (last >> lshift) + 1):
                    if x in ls:
                        continue
                    ls.add(x)  # a new smallest line: perhaps a new line of each size
                    for size, shift in shifts.items():
                        y = x >> shift
                        if y not in touched[size][side]:
                            touched[size][side].add(y)
                            if tag != " S":
                                read_first[size][side].add(y)
                st = stacks[side]
                for p in range(first >> pshift, (last >> pshift) + 1):
                    if st and st[0] == p:
                        continue
                    pages[side].add(p)
                    try:
                        dist = st.index(p)
                        del st[dist]
                    except ValueError:
                        dist = depth
                        if len(st) >= depth:
                            st.pop()
                    st.insert(0, p)
                    for n in slots:
                        if dist >= n:
                            lru[side][n] += 1
        done.set()
        writer.join()
    if failure and (not max_events or events < max_events):
        raise failure[0]
    every_page = pages[0] | pages[1]
    out: dict[str, Any] = {
        "trace": os.fspath(trace_path), "max_events": max_events, "events": events, "instructions": instructions,
        "lines": {}, "read_first_lines": {}, "pte_lines": {},
        "pages": {"i": len(pages[0]), "d": len(pages[1]), "all": len(every_page)},
        "regions_4m": len({p >> (22 - pshift) for p in every_page}),
        "lru_tlb_misses": {side: {str(n): lru[k][n] for n in slots} for k, side in enumerate(("i", "d"))},
    }
    for size in line_sizes:
        out["lines"][str(size)] = {"i": len(touched[size][0]), "d": len(touched[size][1])}
        out["read_first_lines"][str(size)] = {"i": len(read_first[size][0]), "d": len(read_first[size][1])}
        # A linear table holds size/4 PTEs per line: pages p and q share a PTE
        # line iff p // (size/4) == q // (size/4) (folding keeps bits < 22).
        per = (size // 4).bit_length() - 1
        out["pte_lines"][str(size)] = len({p >> per for p in every_page})
    return out
