"""S3's operation mix from a real capture (issue 21): how often a command of
a multi-user mix forks, vforks, execs, grows its heap and faults, counted
from the system-call markers of a trace captured with every process traced
(``docs/syscall-markers.md``) and from the OS replay of that trace
(``vmlab_os::replay_trace``: the same calls replayed as mappings, every data
reference through the page tables, each fault classified).

A transaction is one command: one successful ``execve``. Per command:

* ``fork``: ``fork``, or ``clone`` without ``CLONE_VM``; ``vfork``:
  ``vfork``, or ``clone`` with ``CLONE_VFORK`` (glibc's ``posix_spawn``);
  a ``clone`` with ``CLONE_VM`` alone is a thread and is not counted.
* ``exec``: one by definition; its bytes are the private pages the trace's
  processes first touched (the replay's zero-fill faults: data, bss, heap
  and stack, which S3's exec loads with the image), per command.
* ``brk``: the calls that raised a process's break (a child starts from its
  parent's break, an exec'd image from none); its bytes are their mean
  growth, rounded up to whole 4 KB pages.
* ``minor-fault``: the replay's minor and file faults (a page of a file or
  of shared memory; a repeated command finds its files in the page cache);
  ``cow-fault``: its copy-on-write faults.
* user work: the instructions the trace executed (its instruction fetches),
  per command, taken as cycles at the preset's CPI of 1.

Failed calls (``ret < 0``, such as a shell's ``execve`` probes along
``PATH``) count for nothing. ``exit_group`` is counted and reported; S3
prices a process's exit inside its fork, so it is no operation of its own.
Nothing here is fitted: the counts are the trace's.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Union

from vmlab import _engine

#: Linux clone(2) flags (include/uapi/linux/sched.h).
CLONE_VM = 0x100
CLONE_VFORK = 0x4000

PAGE_BYTES = 4096

#: The machine the replay runs on: 4 KB pages, as the SRMMU's; the fault
#: counts do not depend on the cost preset, which only prices them.
REPLAY_MACHINE = "sparccenter-2000"
REPLAY_COST = "hp9000-834"


class MixError(ValueError):
    """A trace from which no command mix can be derived."""


def count_calls(calls: Sequence[dict]) -> Dict[str, Union[int, List[int]]]:
    """Counts of the calls S3 prices, from ``vmlab.trace_syscalls`` dicts
    (``asid``, ``name``, ``ret``, ``args``), and each heap growth in bytes."""
    forks = vforks = execs = exits = threads = 0
    growths: List[int] = []
    brk: Dict[int, int] = {}
    for c in calls:
        name, asid, ret = c["name"], c["asid"], c["ret"]
        if ret < 0:
            continue
        if name in ("clone", "fork", "vfork"):
            flags = c["args"][0] if name == "clone" and c["args"] else 0
            if name == "vfork" or flags & CLONE_VFORK:
                vforks += 1
            elif flags & CLONE_VM:
                threads += 1
                continue
            else:
                forks += 1
            if asid in brk:
                brk[ret] = brk[asid]
        elif name == "execve":
            execs += 1
            brk.pop(asid, None)
        elif name == "exit_group":
            exits += 1
        elif name == "brk":
            prev = brk.get(asid)
            if prev is not None and ret > prev:
                growths.append(ret - prev)
            brk[asid] = ret
    return dict(fork=forks, vfork=vforks, exec=execs, exit_group=exits, threads=threads, brk_growths=growths)


def derive(calls: Sequence[dict], replay: dict) -> dict:
    """The per-command mix from a trace's calls and its OS replay (the dict
    ``_engine.os_replay`` returns)."""
    n = count_calls(calls)
    commands = n["exec"]
    if commands == 0:
        raise MixError("the trace has no successful execve: a command mix needs commands (capture with --children "
                       "a workload that runs programs)")
    f = replay["faults"]
    growths = n["brk_growths"]
    per = lambda x: x / commands  # noqa: E731
    brk_bytes = math.ceil(sum(growths) / len(growths) / PAGE_BYTES) * PAGE_BYTES if growths else 0
    return dict(
        commands=commands,
        calls={k: v for k, v in n.items() if k != "brk_growths"} | {"brk_growths": len(growths)},
        faults={k: f[k] for k in ("minor", "file_read", "zero_fill", "copy_on_write")},
        instructions=replay["ifetches_skipped"],
        per_command=dict(
            fork=per(n["fork"]), vfork=per(n["vfork"]), exec=1.0, exit=per(n["exit_group"]),
            exec_bytes=round(per(f["zero_fill"])) * PAGE_BYTES,
            brk=per(len(growths)), brk_bytes=brk_bytes,
            minor_fault=per(f["minor"] + f["file_read"]), cow_fault=per(f["copy_on_write"]),
            user_cycles=round(per(replay["ifetches_skipped"])),
        ),
    )


def from_trace(path: Union[str, Path]) -> dict:
    """:func:`derive` on a captured trace file."""
    from vmlab.traces import trace_syscalls

    replay = json.loads(_engine.os_replay(str(path), REPLAY_MACHINE, "none", REPLAY_COST, False, [], None))
    return derive(trace_syscalls(path), replay)


def ops(mix: dict, fork_bytes: int, what: str) -> List[dict]:
    """The ``[[op]]`` entries of a workload file, each naming its count's
    origin in ``what`` (the trace)."""
    p, c = mix["per_command"], mix["calls"]
    k = mix["commands"]
    out = []
    if p["vfork"]:
        out.append(dict(kind="vfork", bytes=0, per_transaction=p["vfork"],
                        source=f"{what}: {c['vfork']} vfork per {k} commands"))
    if p["fork"]:
        out.append(dict(kind="fork", bytes=fork_bytes, per_transaction=p["fork"],
                        source=f"{what}: {c['fork']} fork (clone without CLONE_VM) per {k} commands; "
                               f"{fork_bytes // 1024} KB copied assumed"))
    out.append(dict(kind="exec", bytes=p["exec_bytes"], per_transaction=1.0,
                    source=f"{what}: {k} successful execve; {mix['faults']['zero_fill']} private pages first touched "
                           f"(zero-fill faults of the replay) per {k} commands"))
    if p["brk"]:
        out.append(dict(kind="brk", bytes=p["brk_bytes"], per_transaction=p["brk"],
                        source=f"{what}: {c['brk_growths']} brk calls raising the break per {k} commands, "
                               f"mean growth rounded up to pages"))
    out.append(dict(kind="minor-fault", per_transaction=p["minor_fault"],
                    source=f"{what}: {mix['faults']['minor']} minor and {mix['faults']['file_read']} file faults of "
                           f"the replay per {k} commands"))
    if p["cow_fault"]:
        out.append(dict(kind="cow-fault", per_transaction=p["cow_fault"],
                        source=f"{what}: {mix['faults']['copy_on_write']} copy-on-write faults of the replay per {k} "
                               f"commands"))
    return out


def ops_toml(entries: Sequence[dict]) -> str:
    """``[[op]]`` tables for a workload file (numbers as ``repr`` writes them,
    so that the file reads back to the same values)."""
    lines = []
    for e in entries:
        lines.append("[[op]]")
        for key in ("kind", "bytes", "per_transaction", "source"):
            if key in e:
                v = e[key]
                lines.append(f"{key} = {json.dumps(v) if isinstance(v, str) else repr(v)}")
    return "\n".join(lines) + "\n"


def describe(mix: dict, trace: Optional[str] = None) -> str:
    p = mix["per_command"]
    head = f"{trace}: " if trace else ""
    return (f"{head}{mix['commands']} commands; per command: fork {p['fork']:.3g}, vfork {p['vfork']:.3g}, "
            f"exec 1 ({p['exec_bytes'] // 1024} KB private), brk {p['brk']:.3g} ({p['brk_bytes'] // 1024} KB), "
            f"minor faults {p['minor_fault']:.3g}, copy-on-write faults {p['cow_fault']:.3g}, exits {p['exit']:.3g}, "
            f"user instructions {p['user_cycles']:,}")


#: The capture Kenbus1's mix is derived from, its sha256, the versions of
#: what it depends on (its sidecar's ``depends_on``), and what the op
#: sources call it. On a machine with these versions the capture is this
#: file, whoever starts it (docs/workloads.md, "Determinism"), and
#: tests/python/test_s3_mix.py derives the mix from it again.
KENBUS1_TRACE = "pipeline"
KENBUS1_SHA256 = "5a66860682a5db7734df5472f9b2a464c1cafd59e963ebfcc334614600e446df"
KENBUS1_DEPENDS_ON = {
    "valgrind": "valgrind-3.19.0",
    "libc": "ldd (Debian GLIBC 2.36-9+deb12u14) 2.36",
    "cc": "cc (Debian 12.2.0-14+deb12u1) 12.2.0",
    "cpu_flags": "pni ssse3 cx16 abm avx rdtscp bmi1 bmi2 avx2 f16c rdrand rdseed",
    "system": "Debian GNU/Linux 12 (bookworm) (x86_64)",
    "ld_so_cache": "sha256 ae89f91c03eb0a58, 37911 bytes",
    "coreutils": "ls (GNU coreutils) 9.1",
    "gzip": "gzip 1.12",
}
KENBUS1_WHAT = f"S2 capture pipeline.vmt (sha256 {KENBUS1_SHA256[:12]}...)"
KENBUS1_FORK_BYTES = 64 << 10


def main(argv: Sequence[str]) -> int:
    """``python -m vmlab.studies.s3_mix TRACE``: the mix of a captured trace
    and Kenbus1's ``[[op]]`` tables derived from it, on stdout."""
    import sys

    if len(argv) != 1:
        print("usage: python -m vmlab.studies.s3_mix TRACE.vmt", file=sys.stderr)
        return 2
    try:
        mix = from_trace(argv[0])
    except MixError as e:
        print(f"vmlab: error: {argv[0]}: {e}", file=sys.stderr)
        return 2
    except _engine.VmlabError as e:
        print(f"vmlab: error: {e}", file=sys.stderr)
        return 2
    print(f"# {describe(mix, argv[0])}")
    print(ops_toml(ops(mix, KENBUS1_FORK_BYTES, KENBUS1_WHAT)), end="")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
