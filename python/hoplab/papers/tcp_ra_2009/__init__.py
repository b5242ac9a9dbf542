"""Chen, Wang, Wang, Li, Lim: "A novel receiver-aided scheme for improving
TCP performance in multihop wireless networks", CMC 2009 — seed 001.

TCP-RA: the receiver tracks each segment's end-to-end delay (EED), grades
congestion (slight / middle / heavy) and its trend (the contention
indicator CI), and on a gap tells the sender whether the loss was
congestion, wireless or dubious (Table 2); the sender halves the window on
congestion, multiplies it by 0.8 on dubious and keeps it on wireless
(`cc = "tcp_ra"` in hoplab's core, with the paper's constants as its
`cc_params` defaults). Section 3 of the paper, as hoplab runs it:

- Network (section 3.1, Table 3): an 11 x 7 grid, IEEE 802.11b at 11 Mbps
  (control frames at 1 Mbps), 250 m transmission and 550 m carrier-sense
  range (the paper's RXThresh 3.652e-10 W and CSThresh 1.559e-11 W, which
  are these ranges with ns-2's radio), 800-byte segments, AODV, ns-2's
  behaviour (`preset = "ns2"`: the paper ran ns-2), a Gilbert two-state
  error model on every link, a 30 s warm-up.
- Tables 1 and 4 and Fig. 3 (sections 2.1 and 3.2): the congestion grade
  the receiver found each lost segment at, and its verdict, against the
  segment's true cause (hoplab knows why every segment was lost: queue
  overflow, MAC retry limit, no route = congestion; channel error, and the
  route break it caused, = wireless), with 8, 12 and 16 TCP-RA flows on
  the grid, half along rows, half along columns. A_c (A_w) = the share of
  congestion (wireless) losses judged exactly so; dubious counts as wrong,
  as in the paper.
- Fig. 4 (section 3.3): goodput against the number of hops, 1 to 10, for
  TCP-RA, Veno, Westwood+ and NewReno.
- Fig. 5: goodput against the packet error rate at 3 hops, the same four.

Decisions (the paper does not say; each is also in the report's notes):

- Grid spacing 200 m: each node's one-hop neighbours are the four next to
  it (200 m < 250 m); the diagonal (283 m) and the node two away (400 m)
  are out of range but within carrier sense, as "the neighbor nodes can
  exchange messages with each other directly" and the paper's hidden and
  exposed nodes need. Any spacing in (177, 250) m gives the same
  neighbours; 200 m is ns-2's customary one (and the chain of seed 000).
- Flows on the grid: full rows (10 hops, west to east) and full columns
  (6 hops, north to south), spread evenly: k horizontal flows on rows
  3 + (i - (k-1)/2) * min(2, 6/(k-1)) (8 flows: rows 0, 2, 4, 6; 12: 0, 1,
  2, 4, 5, 6; 16: every row, and row 3 twice, the second east to west),
  k vertical flows on columns 5 + (i - (k-1)/2) * min(2, 8/(k-1)), rounded
  (8 flows: columns 2, 4, 6, 8, as `examples/aodv-grid-11x7.toml`; 12: 1,
  3, 4, 6, 7, 9; 16: 1-4 and 6-9). Columns keep off the edges so that no
  node is the source of two flows, nor the destination of two.
- Fig. 3's axis: the text says "the increasing of hop count and TCP
  flows ... degrades the differentiation accuracy" and section 3.1 runs
  8, 12 and 16 flows; Fig. 3 plots A_c and A_w against the number of
  flows on the grid (the finding judged: lower with 16 flows than with 8),
  and the report adds the accuracy by hop count from Fig. 4's runs (not
  judged: a lone flow on a row loses few segments to congestion).
- Fig. 4: one flow along the grid's middle row (row 3), from its west end
  to the node h hops east (h = 1..10: a row of 11 nodes has exactly the
  paper's 10 hops); the rest of the grid is idle but present (it relays
  AODV's floods and senses the carrier). The paper does not say whether
  other flows ran.
- Errors: Gilbert-Elliott (`[errors] model = "gilbert_elliott"`), one
  chain per directed link, frame error 0 in the good state and 1 in the
  bad; for Tables 1 and 4 and Figs. 3-4 a long-run frame error rate of 3 % with
  bursts of 3 frames on average (as the issue's acceptance runs). A frame
  lost to the channel is retried by the MAC; a segment is lost to the
  channel only when the last retry fails so. Fig. 5 sweeps the rate over
  0, 1, 2, 5, 10, 15 and 20 % (bursts of 3 frames), --quick 0, 5, 20 %.
- Runs: 130 s with a 30 s warm-up (100 s measured), 30 runs per point, 95 %
  intervals; --quick: 40 s with 10 s warm-up, 5 runs per point, hops 1, 2,
  3, 6, 10.
- Veno: the paper's "alpha and beta 1 and 3" are Vegas-style thresholds;
  hoplab's Veno (Linux `tcp_veno.c`) has only beta, 3 by default. TCPW
  (the paper's [7]) is run as Westwood+ (`westwood_plus`).

The package holds one module per concern: `experiments` (the scenarios,
cases and runs), `classification` (Tables 1 and 4, Fig. 3), `goodput`
(Figs. 4-5), `common` (helpers); here, the figures with the finding each
judges, and `PAPER`.
"""

from __future__ import annotations

from hoplab.papers import Figure, Paper
from hoplab.papers.tcp_ra_2009.classification import GRADES as GRADES
from hoplab.papers.tcp_ra_2009.classification import TABLE1 as TABLE1
from hoplab.papers.tcp_ra_2009.classification import TABLE4 as TABLE4
from hoplab.papers.tcp_ra_2009.classification import TRUTHS as TRUTHS
from hoplab.papers.tcp_ra_2009.classification import VERDICTS as VERDICTS
from hoplab.papers.tcp_ra_2009.classification import fig3 as fig3
from hoplab.papers.tcp_ra_2009.classification import grade_name as grade_name
from hoplab.papers.tcp_ra_2009.classification import metric_name as metric_name
from hoplab.papers.tcp_ra_2009.classification import table1 as table1
from hoplab.papers.tcp_ra_2009.classification import table4 as table4
from hoplab.papers.tcp_ra_2009.experiments import BURST_FRAMES as BURST_FRAMES
from hoplab.papers.tcp_ra_2009.experiments import CC_CASES as CC_CASES
from hoplab.papers.tcp_ra_2009.experiments import COLS as COLS
from hoplab.papers.tcp_ra_2009.experiments import C_NEWRENO as C_NEWRENO
from hoplab.papers.tcp_ra_2009.experiments import C_RA as C_RA
from hoplab.papers.tcp_ra_2009.experiments import C_VENO as C_VENO
from hoplab.papers.tcp_ra_2009.experiments import C_WESTWOOD as C_WESTWOOD
from hoplab.papers.tcp_ra_2009.experiments import DST as DST
from hoplab.papers.tcp_ra_2009.experiments import ERRORS as ERRORS
from hoplab.papers.tcp_ra_2009.experiments import EXPERIMENTS as EXPERIMENTS
from hoplab.papers.tcp_ra_2009.experiments import FLOW_COUNTS as FLOW_COUNTS
from hoplab.papers.tcp_ra_2009.experiments import GRID as GRID
from hoplab.papers.tcp_ra_2009.experiments import GRID_CASES as GRID_CASES
from hoplab.papers.tcp_ra_2009.experiments import HOPS as HOPS
from hoplab.papers.tcp_ra_2009.experiments import MIDDLE_ROW as MIDDLE_ROW
from hoplab.papers.tcp_ra_2009.experiments import PACKET_BYTES as PACKET_BYTES
from hoplab.papers.tcp_ra_2009.experiments import PER as PER
from hoplab.papers.tcp_ra_2009.experiments import PER_HOPS as PER_HOPS
from hoplab.papers.tcp_ra_2009.experiments import PER_PERCENT as PER_PERCENT
from hoplab.papers.tcp_ra_2009.experiments import PER_VALUES as PER_VALUES
from hoplab.papers.tcp_ra_2009.experiments import QUICK_HOPS as QUICK_HOPS
from hoplab.papers.tcp_ra_2009.experiments import QUICK_PER_VALUES as QUICK_PER_VALUES
from hoplab.papers.tcp_ra_2009.experiments import RIVALS as RIVALS
from hoplab.papers.tcp_ra_2009.experiments import ROW as ROW
from hoplab.papers.tcp_ra_2009.experiments import ROWS as ROWS
from hoplab.papers.tcp_ra_2009.experiments import ROW_START as ROW_START
from hoplab.papers.tcp_ra_2009.experiments import SCHEMES as SCHEMES
from hoplab.papers.tcp_ra_2009.experiments import SPACING_M as SPACING_M
from hoplab.papers.tcp_ra_2009.experiments import flows_case as flows_case
from hoplab.papers.tcp_ra_2009.experiments import grid_flows as grid_flows
from hoplab.papers.tcp_ra_2009.experiments import hops_of as hops_of
from hoplab.papers.tcp_ra_2009.experiments import node as node
from hoplab.papers.tcp_ra_2009.goodput import fig4 as fig4
from hoplab.papers.tcp_ra_2009.goodput import fig5 as fig5

# The figure functions, case names, parameter keys and scenarios stay
# importable from here (`tcp_ra_2009.fig4`, `tcp_ra_2009.C_RA`, ...).
__all__ = ["PAPER"]

FIGURES = [
    Figure("Table 1", "Ratio of loss distribution: the congestion grade at each loss, by true cause", ["grid"],
           "congestion losses happen mostly in heavy congestion (76 %; 23 % middle, 1 % slight), wireless losses in "
           "slight or middle congestion (47 % and 44 %; 9 % heavy)", table1),
    Figure("Table 4", "Accuracy of loss classification: the receiver's verdicts by true cause", ["grid"],
           "80 % of congestion losses are judged congestion (15 % dubious, 5 % wireless) and 76 % of wireless losses "
           "wireless (18 % dubious, 6 % congestion)", table4),
    Figure("Fig. 3", "Accuracy of the differentiation (A_c, A_w) vs number of flows", ["grid", "hops"],
           "the average accuracies are 80 % (congestion) and 76 % (wireless); more flows (and hops) degrade them",
           fig3),
    Figure("Fig. 4", "Goodput vs number of hops: TCP-RA, Veno, Westwood+, NewReno", ["hops"],
           "TCP-RA achieves better goodput than the others regardless of the hop count, 40 % over NewReno on "
           "average; when the hop count is small all are similarly effective", fig4),
    Figure("Fig. 5", "Goodput vs packet error rate at 3 hops: TCP-RA, Veno, Westwood+, NewReno", ["per"],
           "TCP-RA handles high packet error rates better than the others", fig5),
]

PAPER = Paper(
    id="tcp-ra-2009",
    title="A novel receiver-aided scheme for improving TCP performance in multihop wireless networks (Chen et al., "
          "2009)",
    citation="C. Chen, H. Wang, X. Wang, M. Li, A. O. Lim, \"A novel receiver-aided scheme for improving TCP "
             "performance in multihop wireless networks\", CMC 2009, pp. 272-277, seed 001",
    source="shared/seeds/001_15641bb9ee5c9c43.txt",
    experiments=EXPERIMENTS,
    figures=FIGURES,
    notes=[
        "Network of section 3.1 and Table 3: an 11 x 7 grid, 200 m spacing (each node reaches the four next to it), "
        "IEEE 802.11b with RTS/CTS, 11 Mbps data and 1 Mbps control frames (802.11b's mandatory rate: the paper "
        "gives only the data rate), 250 m transmission and 550 m carrier-sense range (the paper's RXThresh and "
        "CSThresh), drop-tail interface queues of 50, AODV, bulk (FTP) TCP flows with 800-byte segments, ns-2's "
        "behaviour throughout (`preset = \"ns2\"`; the paper ran ns-2), 30 s of warm-up before measuring.",
        "Errors: the paper's Gilbert two-state model as a Gilbert-Elliott chain per directed link (frame error 0 "
        "in the good state, 1 in the bad), applied to unicast DATA frames their receiver would decode; the MAC "
        "retries a frame lost so, and a segment is lost to the channel only when its last retry fails. The paper "
        "gives no rates: 3 % of frames in bursts of 3 on average for Tables 1 and 4 and Figs. 3-4; Fig. 5 sweeps the "
        "rate.",
        "Flows on the grid (Tables 1 and 4, Fig. 3): 8, 12 or 16 TCP-RA flows, half along full rows (10 hops, west to "
        "east), half along full columns (6 hops, north to south), spread evenly: rows 0, 2, 4, 6 and columns 2, 4, "
        "6, 8 for 8 flows; rows 0-2, 4-6 and columns 1, 3, 4, 6, 7, 9 for 12; every row (row 3 twice, the second "
        "east to west) and columns 1-4, 6-9 for 16. Columns keep off the grid's edges so that no node is the "
        "source or destination of two flows.",
        "Hop counts (Fig. 4) and error rates (Fig. 5): one flow along the grid's middle row from its west end, h "
        "hops long (1-10; 3 for Fig. 5), the rest of the grid idle but present. Schemes: TCP-RA (`tcp_ra`, the "
        "paper's constants: beta 0.8 on dubious, 0.5 on congestion), Veno (beta 3: the paper's \"alpha and beta 1 "
        "and 3\"; Linux Veno has no alpha), Westwood+ (the paper's TCPW) and NewReno.",
        "Runs: 130 s with 30 s of warm-up, 30 runs per point, as the paper (\"30 times\"); --quick: 40 s with 10 s "
        "of warm-up, 5 runs per point, hops 1, 2, 3, 6, 10 and error rates 0, 5, 20 %. Every scheme and every "
        "number of flows uses the same seeds (run r has seed 1 + r), so comparisons are paired by run.",
    ],
    not_covered=[
        "Fig. 1 (arrival patterns) and Fig. 2 (the grid) hold no data.",
        "Table 2 (the verdict by grade and trend) is the receiver's rule itself: built into `cc = \"tcp_ra\"` and "
        "unit-tested cell by cell in the core. Table 3 (the simulation parameters) is the scenario.",
    ],
)
