"""The paper's own numbers (Jacob & Mudge 2001), printed beside vmlab's."""

# The paper's own numbers, for printing beside ours.
PAPER_TABLE1 = [  # event, I-side %, D-side % (Table 1, SPECint95 on PowerPC, 8K/8K L1, 512K/512K L2, 16 B lines)
    ("L1 hit, TLB hit", 96.7, 95.8),
    ("L1 hit, TLB miss", 0.01, 0.06),
    ("L1 miss, L2 hit, TLB hit", 3.2, 3.9),
    ("L1 miss, L2 hit, TLB miss", 0.03, 0.09),
    ("L1 miss, L2 miss, TLB hit", 0.008, 0.12),
    ("L1 miss, L2 miss, TLB miss", 0.0001, 0.0009),
]
PAPER_TABLE4 = {  # component: (frequency, CPI) for SOFTVM on GCC, 8K/8K + 512K/512K (Table 4)
    "uhandler": (0.0040, 0.0404), "upte-L2": (0.0006, 0.0126), "upte-MEM": (0.0001, 0.0427),
    "handler-L2": (0.0007, 0.0145), "handler-MEM": (0.0000, 0.0085), "rhandler": (0.0001, 0.0017),
    "rpte-L2": (0.0001, 0.0014), "rpte-MEM": (0.0000, 0.0004),
}
PAPER_TABLE4_TOTAL = 0.1222
PAPER_TABLE5 = {  # L2 size KB: (GCC I, GCC D) misses per 1000 instructions (Table 5, 32 B L2 lines)
    512: (2.10, 1.94), 1024: (1.37, 1.88), 2048: (1.18, 1.85),
}
# Finding 1's "once L2 >= 1-2 MB": the paper's sizes are totals of a split L2,
# so 1M/1M (2 MB) per side and up.
FINDING1_MIN_L2_KB = 1024

PAPER_PROTECTION_CPI = {2.8: 0.019, 23.8: 0.164, 0.0113: 0.0001}  # section 5.6 (11.3 x 6,908e-6 = 0.078)
