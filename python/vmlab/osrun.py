"""Traces through the OS model: ``vmlab os-run``.

Runs a trace's data references as user accesses of the simulated OS
(``vmlab-os``): each trace ASID gets an address space, the first touch of a
page is a zero-fill fault on anonymous memory, and every reference goes
through the TLB and the caches under a virtual-cache consistency policy,
with the consistency oracle on or off. See docs/os.md, "Traces through the
OS model".
"""

from __future__ import annotations

import json

import click

from vmlab import _engine

__all__ = ["os_run", "command"]

POLICIES = ("none", "flush-on-unmap", "pseudo-alias", "read-only-alias", "cache-aligned", "global-shared",
            "uncached-shared")


def os_run(trace: str, machine: str = "hp9000-834", policy: str = "flush-on-unmap", cost: str = "hp9000-834",
           oracle: bool = True) -> dict:
    """The outcome of one run (counters, faults, violations) as a dict."""
    return json.loads(_engine.os_trace(trace, machine, policy, cost, oracle))


@click.command("os-run")
@click.option("--trace", "-t", "trace", required=True, metavar="FILE", help="The trace to run.")
@click.option("--machine", "-m", default="hp9000-834", show_default=True, help="Machine preset.")
@click.option("--policy", "-p", default="flush-on-unmap", show_default=True, type=click.Choice(POLICIES),
              help="Virtual-cache consistency policy.")
@click.option("--cost", default="hp9000-834", show_default=True, help="OS cost preset (name or .toml path).")
@click.option("--oracle/--no-oracle", default=True, show_default=True, help="Run the consistency oracle.")
@click.option("--json", "as_json", is_flag=True, help="Print the whole outcome as JSON.")
def command(trace: str, machine: str, policy: str, cost: str, oracle: bool, as_json: bool) -> None:
    """Run a trace through the OS model (faults, hat, TLB, caches, oracle)."""
    out = os_run(trace, machine, policy, cost, oracle)
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    c, f = out["counters"], out["faults"]
    click.echo(f"machine {out['machine']}  policy {out['policy']}  oracle {'on' if oracle else 'off'}")
    click.echo(f"events {out['events']}  data accesses {out['accesses']}  ifetches skipped {out['ifetches_skipped']}"
               f"  spaces {len(out['spaces'])}  folded pages {out['folded_pages']}")
    click.echo("faults " + "  ".join(f"{k} {v}" for k, v in f.items()))
    click.echo(f"misses {c['misses']}  writebacks {c['writebacks']}  cache ops {c['cache_ops']}"
               f"  tlb hits {c['tlb_hits']}  tlb misses {c['tlb_misses']}"
               f"  tlb purges {c['tlb_purges']} (found {c['tlb_purge_hits']})")
    click.echo(f"oracle violations {out['violation_count']}" + (f"  checks {out['oracle_checks']}" if oracle else ""))
