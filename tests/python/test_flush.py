"""Flush and purge through a live machine, by virtual range, by physical range
and whole, with counts worked out by hand (the working is in the comments)."""

from __future__ import annotations

import pickle

import pytest

import vmlab

# Two levels of different line sizes. L1: 256 B direct-mapped of 16-byte
# lines (16 sets); L2: 1 KB direct-mapped PIPT of 64-byte lines (16 sets).
# The first page touched maps to frame 0.
TWO_LEVELS = """\
name = "two-levels"
source = "tests/python/test_flush.py"

[memory]
page_size = "4K"
size = "16M"

[l1]
size = 256
line = 16
assoc = 1
indexing = "{l1_indexing}"
asid_tags = {asid_tags}

[l2]
size = "1K"
line = 64
assoc = 1
"""


def machine(tmp_path, l1_indexing="pipt", asid_tags=False, l1_assoc=1):
    p = tmp_path / "two-levels.toml"
    p.write_text(TWO_LEVELS.format(l1_indexing=l1_indexing, asid_tags=str(asid_tags).lower()))
    return vmlab.Machine.from_file(p, l1_assoc=l1_assoc)


def level_counts(live, what="flushed"):
    """Per cache, top first: (empty, clean, dirty) of its flushes or purges."""
    return [tuple(c["stats"][what][k] for k in ("empty", "clean", "dirty")) for c in live.result().caches.values()]


def memory_writes(live):
    m = live.result().memory
    return m["writes"], m["bytes_written"]


def test_each_level_counts_its_own_lines_once(tmp_path):
    # One load at 0, then [0x00, 0x40) flushed: L1's four 16-byte lines
    # there are 0x00 (clean) and three empty; L2's one 64-byte line is clean.
    live = machine(tmp_path).live()
    live.feed([("load", 0x00, 4)])
    f = live.flush_virtual(0x00, 0x40)
    assert f == vmlab.FlushCounts(empty=3, clean=2, dirty=0)
    assert f._asdict() == {"empty": 3, "clean": 2, "dirty": 0}
    assert level_counts(live) == [(3, 1, 0), (0, 1, 0)]


def dirty_state(tmp_path):
    # L1: 0x00 dirty, 0x20 dirty, 0x40 clean; L2: 0x00 and 0x40 clean.
    live = machine(tmp_path).live()
    live.feed([("store", 0x04, 4), ("store", 0x24, 4), ("load", 0x48, 4)])
    return live


def test_whole_flush_writes_back_and_purge_drops(tmp_path):
    # L1's 16 frames: 13 empty, 0x40 clean, 0x00 and 0x20 dirty. Flushed,
    # the two dirty lines hit L2's line 0x00, which is then dirty: L2's 16
    # frames are 14 empty, 0x40 clean, 0x00 dirty; one 64-byte memory write.
    live = dirty_state(tmp_path)
    assert live.flush_all() == (27, 2, 3)
    assert level_counts(live) == [(13, 1, 2), (14, 1, 1)]
    assert memory_writes(live) == (1, 64)
    assert live.result().events["flush_all"] == 0
    # Purged, nothing is written: L2's 0x00 stays clean.
    live = dirty_state(tmp_path)
    assert live.purge_all() == (27, 3, 2)
    assert level_counts(live, "purged") == [(13, 1, 2), (14, 2, 0)]
    assert memory_writes(live) == (0, 0)
    assert live.result().caches["l1"]["stats"]["writebacks"] == 0


def test_virtual_purge_of_an_unaligned_range(tmp_path):
    # [0x08, 0x48): L1 lines 0x00 (dirty), 0x10 (empty), 0x20 (dirty), 0x30
    # (empty), 0x40 (clean); L2 lines 0x00 and 0x40, both clean (a purge
    # writes nothing down).
    live = dirty_state(tmp_path)
    assert live.purge_virtual(0x08, 0x40) == (2, 3, 2)
    assert level_counts(live, "purged") == [(2, 1, 2), (0, 2, 0)]
    assert memory_writes(live) == (0, 0)


def synonyms(tmp_path):
    # L1 VIVT with ASID tags, 2 ways (8 sets: virtual bits 4..6). Page
    # 0x1000 of space 1 and page 0x5000 of space 2 share frame 0, so the
    # stores at 0x1004 (space 1) and 0x5008 (space 2) are two dirty copies
    # of physical line 0x00 in set 0's two ways (the first fills L2's line
    # 0x00 from memory, the second hits it). Then space 1 loads 0x1030
    # (physical 0x30, clean in L1, an L2 hit) and 0x1040 (physical 0x40,
    # clean in L1 and in L2's line 0x40). Memory reads: 2.
    live = machine(tmp_path, "vivt", True, l1_assoc=2).live()
    live.share_page(0x1000, 0x5000, owner_asid=1, alias_asid=2)
    live.feed([("store", 0x1004, 4, 1), ("store", 0x5008, 4, 2), ("load", 0x1030, 4, 1), ("load", 0x1040, 4, 1)])
    assert live.translate(0x5008, asid=2) == 0x08
    return live


def test_physical_flush_writes_back_both_aliases(tmp_path):
    # [0x00, 0x40): L1 physical lines 0x00 (two dirty copies), 0x10 and
    # 0x20 (none: empty), 0x30 (clean). Both copies written back to L2's
    # line 0x00 (hits), which is then dirty and written to memory.
    live = synonyms(tmp_path)
    assert live.flush_physical(0x00, 0x40) == (2, 1, 3)
    assert level_counts(live) == [(2, 1, 2), (0, 0, 1)]
    r = live.result()
    assert r.caches["l1"]["stats"]["writebacks"] == 2
    assert r.caches["l2"]["stats"]["write"]["accesses"] == 2
    assert memory_writes(live) == (1, 64)


def test_physical_purge_drops_both_aliases(tmp_path):
    live = synonyms(tmp_path)
    assert live.purge_physical(0x00, 0x40) == (2, 2, 2)
    assert level_counts(live, "purged") == [(2, 1, 2), (0, 1, 0)]
    assert memory_writes(live) == (0, 0)


def test_virtual_flush_of_one_alias_then_physical_flush_of_the_rest(tmp_path):
    live = synonyms(tmp_path)
    # [0x5000, 0x5040) of space 2: L1 line 0x5000 dirty, 0x5010..0x5030
    # empty (0x30 is cached under space 1's 0x1030, and the tags carry
    # ASIDs); its write-back dirties L2's line 0x00 (physical, via frame
    # 0), flushed to memory.
    assert live.flush_virtual(0x5000, 0x40, asid=2) == (3, 0, 2)
    assert memory_writes(live) == (1, 64)
    # Space 1's copy is still dirty. [0x00, 0x40) physical: L1 0x00 (one
    # dirty copy), 0x30 clean, two empty. Its write-back misses in L2 (line
    # 0x00 was flushed), so L2 fetches the line (a third memory read) and
    # holds it dirty: flushed to memory again.
    assert live.flush_physical(0x00, 0x40) == (2, 1, 2)
    assert memory_writes(live) == (2, 128)
    assert live.result().memory["reads"] == 3


def test_empty_ranges_and_bad_arguments(tmp_path):
    live = machine(tmp_path).live()
    live.feed([("load", 0x00, 4)])
    assert live.flush_virtual(0x40, 0) == (0, 0, 0)
    assert live.purge_physical(0x00, 0) == (0, 0, 0)
    # Ending at the last address is fine: one untouched line per level.
    assert live.flush_virtual(2**64 - 16, 16) == (2, 0, 0)
    with pytest.raises(vmlab.VmlabError, match="passes the last address"):
        live.flush_virtual(2**64 - 16, 17)
    with pytest.raises(vmlab.VmlabError, match="passes the last address"):
        live.flush_physical(2**64 - 1, 2)
    with pytest.raises(vmlab.VmlabError, match=r"addr -1 is not an integer in \[0, 2\*\*64\)"):
        live.flush_virtual(-1, 16)
    with pytest.raises(vmlab.VmlabError, match=r"asid 4294967296"):
        live.purge_virtual(0, 16, asid=2**32)
    with pytest.raises(vmlab.VmlabError, match="events\\[0\\]"):
        live.feed([("load",)])
    # Nothing above changed the load's lines: each level still has one.
    assert live.flush_all() == (30, 2, 0)


def test_live_machine_keeps_its_state_and_its_machine(tmp_path):
    m = machine(tmp_path)
    live = m.live()
    assert live.machine == m
    assert repr(live) == "LiveMachine('two-levels')"
    # Fed in two pieces, the counts are those of one run of both.
    events = [("store", 0x04, 4), ("store", 0x24, 4), ("load", 0x48, 4)]
    live.feed(events[:1])
    live.feed(events[1:])
    assert live.result() == m.run_events(events)
    # The configuration still pickles; the live state is not meant to.
    assert pickle.loads(pickle.dumps(m)) == m
