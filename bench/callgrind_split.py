#!/usr/bin/env python3
"""A SOFTVM/SPUR filter batch's instructions by part (docs/performance.md, session 26).

Usage: python3 bench/callgrind_split.py PROFILE BINARY, where PROFILE comes from
  valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*OnePass*feed_packed*' \
    --dump-instr=yes --dump-line=no --compress-strings=no --compress-pos=no \
    --callgrind-out-file=PROFILE BINARY TRACE 2000000 1 --onepass --schemes=softvm,spur --l1=1 --l1-line=16
Each instruction goes to the part of the innermost frame of its inline stack
(addr2line -i) that RULES names; a call's inclusive cost goes by its callee's own
split (scaled), a handler's whole subtree to "handler". Line attribution of
optimised code is approximate; the total is exact."""
import sys, subprocess, collections, re
cg, binary = sys.argv[1], sys.argv[2]
self_cost = collections.defaultdict(lambda: collections.Counter())  # fn -> addr -> Ir
calls = collections.defaultdict(list)  # fn -> [(site addr, callee, inclusive)]
fn = cfn = None; pending_call = False
for line in open(cg):
    line = line.rstrip('\n')
    if line.startswith('fn='): fn = line[3:]; continue
    if line.startswith('cfn='): cfn = line[4:]; continue
    if line.startswith('calls='): pending_call = True; continue
    if line.startswith('0x'):
        a, c = line.split()[:2]
        if pending_call:
            calls[fn].append((int(a, 16), cfn, int(c))); pending_call = False
        else:
            self_cost[fn][int(a, 16)] += int(c)
addrs = sorted({a for f in self_cost.values() for a in f} | {s for l in calls.values() for s, _, _ in l})
out = subprocess.run(['addr2line', '-e', binary, '-f', '-i', '-C', '-a'] + [hex(a) for a in addrs],
                     capture_output=True, text=True).stdout.splitlines()
stacks = {}; cur = None; i = 0
while i < len(out):
    l = out[i]
    if re.fullmatch(r'0x[0-9a-f]+', l): cur = int(l, 16); stacks[cur] = []; i += 1; continue
    stacks[cur].append(l); i += 2  # function, then file:line
RULES = [  # (category, substrings of a frame's function), innermost frame first
    ('handler', ['translate_at_memory', 'translate_transfers', 'walk_and_load', 'run_handler', 'kernel_access', 'load_pte']),
    ('skip', ['Member::skip', 'Member::written', 'filtered_write', 'filtered_run', 'count_filtered']),
    ('filter tag check', ['VmSim<S>::l1_holds', 'MemSys<S>::l1_holds']),
    ('L2/memory', ['l2_holds', 'below_l1_known_hit', 'Tail::below_l1', 'l2_request', 'l2_line', 'Hierarchy', 'MemSys<S>::below_l1']),
    ('L1', ['l1_known_miss', 'l1_lookup', 'fill_or_access_missed', 'access_missed', 'MemSys<S>::l1_missed', 'MemSys<S>::access_fast', 'MemSys<S>::access']),
    ('general path steps', ['feed_word', 'user_access', 'VmSim<S>::reference', 'user_piece', 'finish_piece_at_memory', 'after_access', 'VmSim<S>::access', 'VmSim<S>::step', 'count_side', 'remember_page', 'filter_miss', 'l1_miss_at_memory', 'l1_known_miss']),
    ('filter pass', ['Shared::pass']),
    ('filter bookkeeping', ['Member::run', 'Member::schedule', 'take_marks', 'has_marks', 'next_hit', 'FilterGroup']),
]
def cat_of(names):
    for n in names:
        for c, keys in RULES:
            if any(k in n for k in keys): return c
    return None
def frames(a): return stacks.get(a, [])
memo = {}
def dist(f, depth=0):
    if f in memo: return memo[f]
    memo[f] = collections.Counter({'other': 1})  # cycle guard
    own = cat_of([f])
    d = collections.Counter()
    for a, c in self_cost[f].items():
        d[cat_of(frames(a)) or own or 'other'] += c
    for site, g, c in calls[f]:
        sc = cat_of(frames(site))
        if sc == 'handler' or cat_of([g]) == 'handler':
            d['handler'] += c; continue
        gd = dist(g, depth + 1); tot = sum(gd.values()) or 1
        for k, v in gd.items():
            # a callee with no category of its own takes the call site's
            d[(sc or 'other') if k == 'other' else k] += c * v / tot
    memo[f] = d
    return d
root = [f for f in self_cost if f.endswith('OnePass::feed_packed')] or [f for f in calls if f.endswith('OnePass::feed_packed')]
total = collections.Counter()
for r in set(root): total += dist(r)
s = sum(total.values())
for k, v in total.most_common():
    print(f'{k:24s} {v:16,.0f} {100*v/s:6.1f} %')
print(f'{"total":24s} {s:16,.0f}')
