"""Chen, Yu, Guan, Wang, Jiang: "Rate control for semi-TCP in multihop
wireless networks", EURASIP J. Wireless Commun. Netw. (2018) — seed 000.

Figures 2-10 and Table 1 on the paper's chain (section 3.1,
docs/semitcp-2018.md): 15 nodes 200 m apart, IEEE 802.11 with RTS/CTS, 2 Mbps data and
basic rate, 512-byte packets, 250 m transmission and 500 m interference
(carrier-sense) range, one FTP flow from node 1 to node 15 (ids 0 and 14
here), semi-TCP with a reserved buffer of one packet.

- Figs. 2-4: per-node MAC metrics along the 14-hop chain, plain semi-TCP.
- Figs. 5-6: fixed source rates 20-300 kbps: end-to-end throughput, APR and
  MST at the source.
- Figs. 8-10: path lengths 1-14 hops: throughput, delay and contention of
  semi-TCP with and without Algorithm 1 (binary-search rate control).
- Table 1: the iterations of Algorithm 1, here read from the source-rate
  time series of a rate-controlled run.
- Figs. 11-12: the mobile random topology (section 5.1): 48 nodes moving by
  random waypoint in 1500 x 3000 m, FTP over semi-TCP on 10 flows, goodput
  and delay of semi-TCP with and without Algorithm 1 against the maximum
  speed (`examples/semitcp-mobile-48.toml`).

Reference curves not in the paper are drawn dashed and labelled
"(reference)": TCP NewReno for the chain and path-length figures, UDP CBR
at the same source rates for Figs. 5-6. They run today; the paper's own
curves need `transport = "semitcp"` (issue 4), and until the core has it
their figures say "not reproduced: <the simulator's error>".

The package holds one module per concern:

- `experiments`: the scenarios (chain, mobile topology), the cases and
  parameters, and the experiments run;
- `common`: helpers shared by the figure modules;
- `chain`: Figs. 2-4; `fixed_rate`: Figs. 5-6; `path_length`: Figs. 8-10
  and Table 1; `mobile`: Figs. 11-12;
- here: the figures, with the finding each judges, and `PAPER`.
"""

from __future__ import annotations

from hoplab.papers import Figure, Paper
from hoplab.papers.semitcp_2018.chain import fig2 as fig2
from hoplab.papers.semitcp_2018.chain import fig3 as fig3
from hoplab.papers.semitcp_2018.chain import fig4 as fig4
from hoplab.papers.semitcp_2018.experiments import C_ALG1 as C_ALG1
from hoplab.papers.semitcp_2018.experiments import C_FIXED as C_FIXED
from hoplab.papers.semitcp_2018.experiments import C_NEWRENO as C_NEWRENO
from hoplab.papers.semitcp_2018.experiments import C_SEMI as C_SEMI
from hoplab.papers.semitcp_2018.experiments import C_UDP as C_UDP
from hoplab.papers.semitcp_2018.experiments import DST as DST
from hoplab.papers.semitcp_2018.experiments import EXPERIMENTS as EXPERIMENTS
from hoplab.papers.semitcp_2018.experiments import HOPS as HOPS
from hoplab.papers.semitcp_2018.experiments import RATE as RATE
from hoplab.papers.semitcp_2018.experiments import SPEED as SPEED
from hoplab.papers.semitcp_2018.fixed_rate import fig5 as fig5
from hoplab.papers.semitcp_2018.fixed_rate import fig6 as fig6
from hoplab.papers.semitcp_2018.mobile import fig11 as fig11
from hoplab.papers.semitcp_2018.mobile import fig12 as fig12
from hoplab.papers.semitcp_2018.path_length import fig8 as fig8
from hoplab.papers.semitcp_2018.path_length import fig9 as fig9
from hoplab.papers.semitcp_2018.path_length import fig10 as fig10
from hoplab.papers.semitcp_2018.path_length import table1 as table1

# The figure functions, case names and parameter keys stay importable from
# here (`semitcp_2018.fig8`, `semitcp_2018.C_SEMI`, ...), as before the split.
__all__ = ["PAPER"]

FIGURES = [
    Figure("Fig. 2", "Attempts per RTS and per DATA frame at each node, 14-hop chain, semi-TCP", ["chain"],
           "attempts per RTS are highest at the source and fall along the path to almost one; attempts per DATA "
           "are much smaller and decline slightly", fig2),
    Figure("Fig. 3", "Average MAC sending time and queue length at each node, semi-TCP", ["chain"],
           "the MAC sending time is longest at the source (repeated RTSs) and shorter downstream; the second node, "
           "under the most severe interference, has its buffer quickly filled by the source", fig3),
    Figure("Fig. 4", "RTSC transmissions, RTS drop ratio and RTSC ratio at each node, semi-TCP", ["chain"],
           "the source sends the most RTSCs; RTS drops concentrate in the first hops", fig4),
    Figure("Fig. 5", "End-to-end throughput and APR at the source vs fixed source rate, 14 hops", ["fixed-rate"],
           "throughput rises almost linearly up to about 140 kbps, then falls sharply, while APR jumps from a low "
           "to a high level", fig5),
    Figure("Fig. 6", "End-to-end throughput and MST at the source vs fixed source rate, 14 hops", ["fixed-rate"],
           "the MST switches from a low level to a high level (about 14 ms) where throughput collapses "
           "(about 20 kbps at 180 kbps)", fig6),
    Figure("Fig. 8", "End-to-end throughput vs path length", ["path-length", "fixed-rate"],
           "Algorithm 1 gives higher throughput than plain semi-TCP, more so on longer paths; near-optimal, about "
           "140 kbps at 14 hops, consistent with the peak of Fig. 5", fig8),
    Figure("Fig. 9", "End-to-end delay vs path length", ["path-length"],
           "Algorithm 1 lowers the delay, by almost 60 % at 4 hops (60 ms to 20 ms)", fig9),
    Figure("Fig. 10", "Medium contention vs path length", ["path-length"],
           "Algorithm 1 wastes fewer resources in RTS/CTS and DATA retransmissions", fig10),
    Figure("Table 1", "Iterations of Algorithm 1", ["rate-control", "fixed-rate"],
           "the binary search visits 240, 120, 180, 150, 135, 143 kbps and stops in the sixth iteration, near "
           "the throughput peak", table1),
    Figure("Fig. 11", "Goodput vs maximum speed, 48 mobile nodes, 10 flows", ["mobile"],
           "Algorithm 1 improves the throughput at every mobility speed", fig11),
    Figure("Fig. 12", "End-to-end delay vs maximum speed, 48 mobile nodes, 10 flows", ["mobile"],
           "Algorithm 1 lowers the end-to-end delay at every mobility speed", fig12),
]

PAPER = Paper(
    id="semitcp-2018",
    title="Rate control for semi-TCP in multihop wireless networks (Chen et al., 2018)",
    citation="W. Chen, H. Yu, Q. Guan, Y. Wang, S. Jiang, \"Rate control for semi-TCP in multihop wireless "
             "networks\", EURASIP J. Wireless Commun. Netw. (2018), seed 000",
    source="shared/seeds/000_25a2274fe5f40302.txt",
    experiments=EXPERIMENTS,
    figures=FIGURES,
    notes=[
        "Network of section 3.1 (docs/semitcp-2018.md): 15-node chain, 200 m spacing, 802.11 RTS/CTS, 2 Mbps data and basic "
        "rate, 512 B packets, 250 m transmission and 500 m carrier-sense range, drop-tail 50, one bulk (FTP) flow "
        "from node 1 to node 15 (ids 0 and 14 here); nodes are numbered from 1 in the figures, as in the paper.",
        "Routing is AODV (RFC 3561) with link-layer feedback, as the paper's: an RTS dropped at the retry limit "
        "breaks the route and triggers the rediscovery the paper describes under Fig. 4. With static routing "
        "(`--set routing.protocol=static` on the examples) the goodput collapse past the peak rate does not occur.",
        "The paper gives no run length or number of runs; full mode uses 100 s runs (10 s warm-up) and 10 runs "
        "per point; --quick uses 30 s runs (5 s warm-up; 60 s for the rate-control trace, so that the search can be "
        "seen to stop) and 5 runs per point.",
        "Path lengths (Figs. 8-10) move the destination along the same 15-node chain; nodes past the destination "
        "send nothing, so this is the same as a shorter chain.",
        "Curves marked (reference) are not in the paper: TCP NewReno on the same chain, and UDP CBR at the same "
        "source rates; they show what the substrate does and are not judged.",
        "Figs. 11-12 (section 5.1, `examples/semitcp-mobile-48.toml`): 48 nodes placed at random in 1500 x 3000 m, "
        "moving by random waypoint from t = 0 (minimum speed 1 m/s, no pause: decisions, the paper gives neither), "
        "the chain's radio and MAC, AODV, FTP over semi-TCP on 10 flows between nodes 2i and 2i+1, Algorithm 1 on "
        "every flow or on none. The paper does not give its speeds: maximum speeds 1, 5, 10, 15 and 20 m/s "
        "(--quick: 1, 10, 20), 100 s runs with 10 s warm-up and 20 runs per point (--quick: 60 s, 5 runs); each "
        "run's placement and paths depend only on its run number, so both cases meet the same networks.",
    ],
    not_covered=[
        "Fig. 1 (the topology) and Fig. 7 (Algorithm 1's state diagram) hold no data.",
    ],
)
