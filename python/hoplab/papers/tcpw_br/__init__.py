"""Tian, Li, Zhang, Sun, Yang: "TCPW BR: a wireless congestion control
scheme based on RTT" — seed 002.

TCPW BR is TCP Westwood whose reactions depend on a congestion level read
off the RTT (docs/tcpw-br.md; `cc = "westwood_br"` in hoplab's core, the
paper's constants as its `cc_params` defaults): at level 1 a loss is taken
for a wireless one (no reduction), from level 3 two duplicate ACKs trigger
a fast retransmit, and the window grows by P / cwnd, P = 1, 0.867, 0.5,
0.4 by level. TCPW is the original TCP Westwood (`westwood`, Mascolo et
al. 2001). The paper's path (its Figs. 1-2): a wired sender, a 100 Mb/s 30
ms link to a router, a 100 Mb/s 10 ms link to a base station, and a 5 Mb/s
0.01 ms "wireless" last hop losing packets at random (hoplab's
`wired_cum_wireless`, whose defaults are these); 1000-byte packets; ns-2.

- Table 1: TCPW's bandwidth utilisation at 0-3 % loss under DropTail, RED,
  REM and PI queues (every interface queue, ns-2's defaults;
  docs/queues.md; BLUE too).
- Fig. 3: average throughput at 3 % loss, TCPW BR / TCPW / NewReno.
- Fig. 5: utilisation against the loss rate.
- Table 4: packet loss rates at 1 % loss.
- Fig. 6: throughput against the one-way delay of the link to the base
  station, 10-200 ms, at 1 % loss.
- Fig. 7: Jain's fairness of three TCPW BR flows over a 5 Mb/s bottleneck
  against that delay.
- Fig. 8: TCP-friendliness, k TCPW BR and 5 - k NewReno flows over a 5
  Mb/s bottleneck.
- Fig. 9: the windows of two TCPW and two TCPW BR flows over a 10 Mb/s
  bottleneck.

Decisions (the paper does not say; each is also in the report's notes):

- Random loss on the last hop applies to each direction (data and ACKs),
  as `topology.last_hop_loss_rate` does.
- Receiver window 1000 segments: ns-2's default of 20 would cap a flow at
  2 Mb/s, and the paper's 95 % utilisation needs the path's 49-segment
  bandwidth-delay product; initial window 2, minimum RTO 200 ms, no
  delayed ACKs (hoplab's ns-2 defaults).
- Table 1 runs one TCPW flow per run (see its notes); utilisation is the
  flow's goodput over 5 Mb/s.
- Fig. 6's "bottleneck link" delay is the router - base station link's.
- Figs. 7-9: each flow from its own sender to its own receiver; the shared
  link (router to base station) at 5 Mb/s (Figs. 7-8) or 10 Mb/s (Fig. 9),
  every last hop 5 Mb/s with 1 % loss.
- Runs: 100 s with 10 s of warm-up, 30 runs per point; --quick: 60 s, 5
  runs, loss rates 0, 1, 3 % and delays 10, 100, 200 ms. Every case uses
  the same seeds, so comparisons are paired by run.

Findings of hoplab's reproduction, and why: docs/tcpw-br.md.

The package holds one module per concern: `experiments` (scenarios, cases,
runs), `throughput` (Tables 1 and 4, Figs. 3, 5, 6), `competition` (Figs.
7-9), `common` (helpers); here, the figures with the finding each judges,
and `PAPER`.
"""

from __future__ import annotations

from hoplab.papers import Figure, Paper
from hoplab.papers.tcpw_br.competition import fig7, fig8, fig9
from hoplab.papers.tcpw_br.experiments import EXPERIMENTS
from hoplab.papers.tcpw_br.throughput import fig3, fig5, fig6, table1, table4

__all__ = ["PAPER"]

FIGURES = [
    Figure("Table 1", "TCPW's bandwidth utilisation vs random loss, by queue discipline", ["queues"],
           "TCPW cannot tell wireless from congestion losses: above 90 % utilisation without loss, about 70 % at 1 %, "
           "45 % at 2 % and 33 % at 3 %, whatever the queue (DropTail, RED, REM, PI)", table1),
    Figure("Fig. 3", "Average throughput at 3 % loss: TCPW BR, TCPW, NewReno", ["loss"],
           "TCPW BR's average throughput is nearly 20 % higher than TCPW's and almost twice NewReno's", fig3),
    Figure("Fig. 5", "Bandwidth utilisation vs random loss: TCPW BR, NewReno (and TCPW)", ["loss"],
           "TCPW BR uses the bandwidth better than NewReno at every link error rate", fig5),
    Figure("Table 4", "Packet loss rate at 1 % loss: NewReno, TCPW, TCPW BR", ["loss"],
           "TCPW BR has the lowest packet loss rate (0.56 %, against TCPW's 0.77 % and NewReno's 1.14 %)", table4),
    Figure("Fig. 6", "Throughput vs delay to the base station (1 % loss)", ["delay"],
           "TCPW BR's throughput is the highest at every delay, 950 kbps at 100 ms (2.2x NewReno); its benefit grows "
           "with the delay", fig6),
    Figure("Fig. 7", "Fairness of three TCPW BR flows vs delay", ["fairness"],
           "TCPW BR's fairness index stays around 0.9 at every delay", fig7),
    Figure("Fig. 8", "TCP-friendliness: TCPW BR beside NewReno (5 flows)", ["friendliness"],
           "TCPW BR is friendly to NewReno", fig8),
    Figure("Fig. 9", "Congestion windows of 2 TCPW and 2 TCPW BR flows over a 10 Mb/s bottleneck", ["convergence"],
           "TCPW's two windows synchronise and converge poorly; TCPW BR's converge better", fig9),
]

PAPER = Paper(
    id="tcpw-br",
    title="TCPW BR: a wireless congestion control scheme based on RTT (Tian et al.)",
    citation="L. Tian, J. Li, L. Zhang, Y. Sun, L. Yang, \"TCPW BR: a wireless congestion control scheme based on "
             "RTT\", seed 002",
    source="shared/seeds/002_6be7146b1f88edc9.txt",
    experiments=EXPERIMENTS,
    figures=FIGURES,
    notes=[
        "Path (Figs. 1-2, section 4.1): a wired sender, 100 Mb/s 30 ms to a router, 100 Mb/s 10 ms to a base "
        "station, and a 5 Mb/s 0.01 ms last hop that loses packets at random (each direction: data and ACKs), "
        "drop-tail queues of 50 packets unless the figure says otherwise; 1000-byte segments, bulk (FTP) flows, "
        "hoplab's ns-2 TCP defaults (initial window 2, minimum RTO 200 ms, no delayed ACKs) with a 1000-segment "
        "receiver window (ns-2's 20 would cap a flow at 2 Mb/s).",
        "Schemes: TCPW BR (`westwood_br`: the paper's levels, growth factors and duplicate-ACK rules, SRTT for the "
        "RTT of eq. 2, RTT_max capped at the RTO, Westwood's per-ACK bandwidth estimate), TCPW (`westwood`, the "
        "original Westwood, Mascolo et al. 2001: Tustin filter with tau = 1 s), NewReno.",
        "Runs: 100 s with 10 s of warm-up, 30 runs per point; --quick: 60 s with 10 s of warm-up, 5 runs per point, "
        "loss rates 0, 1, 3 %, delays 10, 100, 200 ms. Every case uses the same seeds (run r has seed 1 + r), so "
        "comparisons are paired by run.",
    ],
    not_covered=[
        "Figs. 1-2 (the topology) hold no data; Table 2 (the levels) and Table 3 (the growth factors) are the "
        "scheme itself, unit-tested level by level in the core (`westwood_br.rs`).",
        "Fig. 4 (interval throughput of TCPW and TCPW BR at 3 %): the per-second goodput is in every run's series "
        "(`hoplab run --series`); the report judges the averages (Fig. 3).",
    ],
)
