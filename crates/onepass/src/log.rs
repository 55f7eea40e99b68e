//! A deep set count's stacks as append-only stamp logs (Bennett and
//! Kruskal 1975's stack distance by counting): per set, every reference's
//! stamp in order, each marked dead once a later reference to the same line
//! supersedes it, and a Fenwick tree (binary indexed tree) of the dead
//! marks. A line's depth is the live entries after its latest stamp: one
//! binary search for the stamp and one prefix count, O(log n), where an
//! array stack moves every entry above the line (a whole stack on a miss).
//! A log that fills is compacted to its `depth` most recent live entries;
//! the entries dropped are those that fell out of every configuration.

/// One entry of a log.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Logged {
    pub(crate) stamp: u64,
    pub(crate) dirty_from: u32,
    dead: bool,
}

/// A line's entry found in its set's log.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Found {
    pub(crate) at: usize,
    /// Live entries after it (0 = most recent).
    pub(crate) depth: usize,
    pub(crate) dirty_from: u32,
}

/// The logs of every set of one set count.
#[derive(Debug)]
pub(crate) struct StampLogs {
    /// Entries per set before a compaction.
    capacity: usize,
    entries: Vec<Logged>,
    /// Per set, its Fenwick tree of dead marks (`capacity` nodes, node
    /// `j - 1` holding the marks of positions `j - lowbit(j)..j`).
    dead: Vec<u32>,
    len: Vec<u32>,
    dead_total: Vec<u32>,
    /// Compactions so far.
    pub(crate) compactions: u64,
}

impl StampLogs {
    /// Logs for `sets` sets of stacks `depth` deep.
    pub(crate) fn new(sets: usize, depth: usize) -> Self {
        // Room for as many references again as the stack holds: a
        // compaction, O(capacity), comes at most once per `depth` appends.
        let capacity = 2 * depth;
        Self {
            capacity,
            entries: vec![Logged { stamp: 0, dirty_from: 0, dead: false }; sets * capacity],
            dead: vec![0; sets * capacity],
            len: vec![0; sets],
            dead_total: vec![0; sets],
            compactions: 0,
        }
    }

    /// Dead marks of the set's positions before `end`.
    #[inline(always)]
    fn dead_before(&self, set: usize, end: usize) -> u32 {
        let tree = &self.dead[set * self.capacity..(set + 1) * self.capacity];
        let (mut j, mut sum) = (end, 0);
        while j > 0 {
            sum += tree[j - 1];
            j &= j - 1;
        }
        sum
    }

    /// The entry of the line whose latest stamp is `t`, if the log still
    /// holds it (a stamp older than the log's first entry was dropped).
    #[inline(always)]
    pub(crate) fn find(&self, set: usize, t: u64) -> Option<Found> {
        let n = self.len[set] as usize;
        let log = &self.entries[set * self.capacity..set * self.capacity + n];
        let last = log.last()?;
        if last.stamp == t {
            return Some(Found { at: n - 1, depth: 0, dirty_from: last.dirty_from });
        }
        if log[0].stamp > t {
            return None;
        }
        let at = log.partition_point(|e| e.stamp < t);
        debug_assert!(log[at].stamp == t && !log[at].dead);
        let dead_after = self.dead_total[set] - self.dead_before(set, at + 1);
        let depth = n - 1 - at - dead_after as usize;
        Some(Found { at, depth, dirty_from: log[at].dirty_from })
    }

    /// Marks the entry at `at` superseded.
    #[inline(always)]
    pub(crate) fn kill(&mut self, set: usize, at: usize) {
        let base = set * self.capacity;
        self.entries[base + at].dead = true;
        self.dead_total[set] += 1;
        let tree = &mut self.dead[base..base + self.capacity];
        let mut j = at + 1;
        while j <= tree.len() {
            tree[j - 1] += 1;
            j += j & j.wrapping_neg();
        }
    }

    /// The most recent entry of the set (it must have one).
    #[inline(always)]
    pub(crate) fn top_mut(&mut self, set: usize) -> &mut Logged {
        let n = self.len[set] as usize;
        debug_assert!(n > 0);
        &mut self.entries[set * self.capacity + n - 1]
    }

    /// Appends a reference as the set's most recent entry; if the log is
    /// full it is first compacted, `evicted(dirty_from)` called for every
    /// live entry it drops (one `depth` or more deep: in no configuration).
    #[inline(always)]
    pub(crate) fn push(&mut self, set: usize, stamp: u64, dirty_from: u32, depth: usize, evicted: impl FnMut(u32)) {
        if self.len[set] as usize == self.capacity {
            self.compact(set, depth, evicted);
        }
        let n = self.len[set] as usize;
        self.entries[set * self.capacity + n] = Logged { stamp, dirty_from, dead: false };
        self.len[set] += 1;
    }

    #[cold]
    fn compact(&mut self, set: usize, depth: usize, mut evicted: impl FnMut(u32)) {
        let base = set * self.capacity;
        let n = self.len[set] as usize;
        let log = &mut self.entries[base..base + n];
        // Keep the `depth` most recent live entries, in order.
        let mut kept = 0;
        let mut write = n;
        for i in (0..n).rev() {
            let e = log[i];
            if e.dead {
                continue;
            }
            if kept < depth {
                write -= 1;
                log[write] = e;
                kept += 1;
            } else {
                evicted(e.dirty_from);
            }
        }
        log.copy_within(write..n, 0);
        self.len[set] = kept as u32;
        self.dead_total[set] = 0;
        self.dead[base..base + self.capacity].fill(0);
        self.compactions += 1;
    }

    /// Calls `f(depth, dirty_from)` for every live entry of every set.
    pub(crate) fn each_entry(&self, mut f: impl FnMut(usize, u32)) {
        for set in 0..self.len.len() {
            let n = self.len[set] as usize;
            let log = &self.entries[set * self.capacity..set * self.capacity + n];
            let mut depth = 0;
            for e in log.iter().rev().filter(|e| !e.dead) {
                f(depth, e.dirty_from);
                depth += 1;
            }
        }
    }

    /// The oldest stamp the set's log holds, if any: a line whose latest
    /// stamp is older is in no stack of this set count.
    pub(crate) fn oldest(&self, set: usize) -> Option<u64> {
        (self.len[set] > 0).then(|| self.entries[set * self.capacity].stamp)
    }

    /// Empties every log.
    pub(crate) fn clear(&mut self) {
        self.len.fill(0);
        self.dead_total.fill(0);
        self.dead.fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plain LRU stack of line numbers, most recent first.
    fn naive_depth(stack: &mut Vec<u64>, line: u64) -> Option<usize> {
        let p = stack.iter().position(|&l| l == line);
        if let Some(p) = p {
            stack.remove(p);
        }
        stack.insert(0, line);
        p
    }

    /// Every reference of a pseudo-random stream over one set: the log's
    /// depth equals a plain stack's, as deep as `depth`, across many
    /// compactions, and the entries dropped are exactly those that went
    /// `depth` deep.
    #[test]
    fn depths_equal_a_plain_stack_across_compactions() {
        let depth = 8;
        let mut logs = StampLogs::new(1, depth);
        let mut latest = std::collections::HashMap::new();
        let mut stack = Vec::new();
        let mut x: u64 = 12345;
        let mut dropped = 0;
        let mut fell_out = 0;
        for now in 1..20_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let line = (x >> 33) % 13;
            let expected = naive_depth(&mut stack, line);
            if stack.len() > depth {
                stack.pop();
                fell_out += 1;
            }
            let found = latest.get(&line).and_then(|&t| logs.find(0, t));
            let got = found.map(|f| f.depth).filter(|&d| d < depth);
            assert_eq!(got, expected.filter(|&d| d < depth), "reference {now} to line {line}");
            match found {
                Some(f) if f.depth == 0 => logs.top_mut(0).stamp = now,
                Some(f) => {
                    logs.kill(0, f.at);
                    if f.depth >= depth {
                        dropped += 1;
                    }
                    logs.push(0, now, 0, depth, |_| dropped += 1);
                }
                None => logs.push(0, now, 0, depth, |_| dropped += 1),
            }
            latest.insert(line, now);
        }
        let mut live = 0;
        logs.each_entry(|d, _| live += usize::from(d >= depth));
        assert_eq!(dropped + live, fell_out);
    }
}
