"""Adaptive fractional window increment (AFW) against FeW (Nahm et al.
2005) over DSR — seed 003.

FeW grows TCP's window in congestion avoidance by alpha / cwnd per new
ACK, alpha = 0.01 (`cc = "few"`). AFW keeps a step S_W for every integer
window W, all starting at Smax = 0.1, and grows by S_floor(cwnd) / cwnd;
a timeout at window W_t multiplies the steps of the smaller windows by
alpha = 4 (at most Smax) and divides those of the larger by beta = 8 (at
least Smin = 0.001) (`cc = "afw"`; docs/few-afw.md). The paper's
setting: ns-2, DSR, IEEE 802.11 with 2 Mb/s data and basic rates, 250 m
decoding and 500 m carrier-sense ranges, two-ray ground, 1024-byte
packets, FTP of 100 MB (a flow that never runs out).

- Fig. 4: total throughput over chains of 4-14 hops, (a) one flow, (b)
  four flows, from node 0 to node N.
- Fig. 5: Jain's fairness index of the four flows.
- Fig. 7: the 9-hop chain with flows 0 -> 9, 2 -> 8 and 7 -> 1.
- Fig. 9: the 7 x 7 grid (1, 2, 4, 6, 8, 14 flows) and the 13 x 13 grid
  (1, 2, 4, 6, 12, 26 flows), 200 m apart.
- Fig. 10: 150 nodes at random in 2000 x 2000 m, 8, 16, 32, 50 flows.
- Fig. 11: a TCP flow and a UDP CBR flow (100, 200, 300 kb/s) from node 0
  to node N of the chain.
- The abstract: FeW's throughput "significantly higher than that of
  TCP-NewReno".

Decisions (the paper does not say; each is also in the report's notes):

- Chains are 200 m apart (the grids' spacing; one hop per neighbour at a
  250 m range); a chain of N hops has N + 1 nodes (Fig. 1).
- ns-2's behaviour where it differs from the standard (`preset = "ns2"`);
  TCP as ns-2's Agent/TCP/Newreno: initial window 2, receiver window 20
  segments, no delayed ACKs, minimum RTO 200 ms.
- Grids: one flow along the middle row, left to right; otherwise half the
  flows along rows (left to right) and half along columns (top to
  bottom), on lines spread evenly and symmetrically (e.g. 4 flows on the
  7 x 7 grid: rows 1 and 5, columns 1 and 5; 14 flows: every row and
  column).
- The random topology is static (the paper studies static networks),
  redrawn per run until connected; the flows' sources and sinks are
  distinct nodes drawn once (the same pairs in every run and scheme).
- Fig. 11's UDP flow sends 1024-byte packets; "throughput" is the TCP
  flow's.
- Throughput is goodput: payload delivered in order after the warm-up.
- Runs: 110 s with 10 s of warm-up, 30 runs per point (the paper's 95 %
  intervals); --quick: 40 s with 10 s of warm-up, 5 runs, 4, 7, 10, 14
  hops and fewer flow counts. Every case uses the same seeds, so
  comparisons are paired by run.

The package holds one module per concern: `experiments` (scenarios,
cases, runs), `chain` (Figs. 4, 5, 7, 11 and the abstract's claim),
`topologies` (Figs. 9 and 10), `common` (helpers); here, the figures with
the finding each judges, and `PAPER`.
"""

from __future__ import annotations

from hoplab.papers import Figure, Paper
from hoplab.papers.few_afw.chain import abstract, fig4a, fig4b, fig5, fig7, fig11
from hoplab.papers.few_afw.experiments import EXPERIMENTS
from hoplab.papers.few_afw.topologies import fig9a, fig9b, fig10

__all__ = ["PAPER"]

FIGURES = [
    Figure("Fig. 4a", "Total throughput over the chain, one flow", ["chain1"],
           "AFW's throughput is 6.5 % higher than FeW's with one flow, and the gap grows with the number of hops",
           fig4a),
    Figure("Fig. 4b", "Total throughput over the chain, four flows", ["chain4"],
           "AFW's throughput is 3.7 % higher than FeW's with four flows, at every number of hops", fig4b),
    Figure("Fig. 5", "Jain's fairness index of four flows over the chain", ["chain4"],
           "The fairness of AFW is a little worse than that of FeW", fig5),
    Figure("Fig. 7", "The 9-hop chain with flows 0 -> 9, 2 -> 8, 7 -> 1", ["three_flows"],
           "AFW's throughput is below FeW's for the longest flow and above it for the two shorter ones; the total is "
           "about 4 % higher", fig7),
    Figure("Fig. 9a", "Total throughput over the 7 x 7 grid", ["grid7"],
           "AFW obtains 5 % higher throughput than FeW; the gain shrinks as flows are added", fig9a),
    Figure("Fig. 9b", "Total throughput over the 13 x 13 grid", ["grid13"],
           "AFW obtains 5 % higher throughput than FeW; the gain shrinks as flows are added", fig9b),
    Figure("Fig. 10", "Total throughput, 150 random nodes", ["random"],
           "AFW obtains about 5 % higher throughput than FeW; the gap shrinks as flows are added", fig10),
    Figure("Fig. 11", "TCP throughput beside a UDP CBR flow", ["hybrid"],
           "Beside 100 kb/s of UDP, AFW's throughput is about 4.7 % higher than FeW's; beside 200 and 300 kb/s the "
           "two are almost the same", fig11),
    Figure("Abstract", "FeW against NewReno over the chains", ["chain1", "chain4"],
           "FeW's throughput is significantly higher than that of TCP-NewReno", abstract),
]

PAPER = Paper(
    id="few-afw",
    title="Adaptive fractional window increment (AFW) vs FeW over DSR",
    citation="\"Adaptive fractional window increment\" (AFW) vs FeW (Nahm, Helmy, Kuo 2005), seed 003",
    source="shared/seeds/003_762b6dab6bb112c3.txt",
    experiments=EXPERIMENTS,
    figures=FIGURES,
    notes=[
        "Setting (section 4.1): DSR (`routing.protocol = \"dsr\"`, ns-2's CMU DSR defaults; docs/dsr.md), IEEE "
        "802.11 with RTS/CTS, 2 Mb/s data and basic rates, 250 m decoding and 500 m carrier-sense ranges, two-ray "
        "ground, 1024-byte packets, FTP flows that never run out (the paper's 100 MB file), ns-2's behaviour "
        "(`preset = \"ns2\"`) and TCP defaults (initial window 2, receiver window 20, no delayed ACKs).",
        "Schemes: FeW (`few`, alpha = 0.01), AFW (`afw`, alpha = 4, beta = 8, Smax = 0.1, Smin = 0.001; a timeout "
        "at W_t shrinks S_{W_t} too, the paper leaving W = W_t open), NewReno for reference.",
        "Chains 200 m apart, N + 1 nodes for N hops; grids 200 m apart, flows along evenly spread rows and columns; "
        "150 static random nodes in 2000 x 2000 m, redrawn per run until connected, fixed random flow pairs; "
        "Fig. 11's UDP flow 1024-byte CBR.",
        "Runs: 110 s with 10 s of warm-up, 30 runs per point; --quick: 40 s with 10 s of warm-up, 5 runs, 4, 7, "
        "10 and 14 hops, fewer flow counts. Every case uses the same seeds (run r has seed 1 + r), so comparisons "
        "are paired by run. Throughput is goodput (in-order payload after the warm-up).",
    ],
    not_covered=[
        "Figs. 1, 3, 6 and 8 (the topologies and the algorithm) hold no data; Fig. 2 (the windows of AFW and FeW "
        "over the 7-hop chain) is in every run's series (`hoplab run --series`, `cwnd_segments`); the section "
        "\"Parameter tuning\" (alpha, beta, Smax, Smin) is not swept (each is a `cc_params` key of `afw`).",
    ],
)
