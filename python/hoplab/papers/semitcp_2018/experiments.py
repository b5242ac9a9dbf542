"""The experiments behind semitcp-2018's figures: the paper's 14-hop chain
(section 3.1) and mobile random topology (section 5.1) as scenarios, the
cases compared (plain semi-TCP, semi-TCP with Algorithm 1, semi-TCP at a
fixed rate, and the reference curves TCP NewReno and UDP CBR), the
parameters varied (source rate, path length, maximum speed) and the runs,
durations and `--quick` variants of each experiment.

The case names and parameter keys here are the labels the figure modules
select data by.
"""

from __future__ import annotations

from typing import Any

from hoplab.papers import Experiment

__all__ = [
    "CHAIN",
    "C_ALG1",
    "C_FIXED",
    "C_NEWRENO",
    "C_SEMI",
    "C_UDP",
    "DST",
    "EXPERIMENTS",
    "HOPS",
    "MOBILE",
    "MOBILE_ALG1",
    "MOBILE_FLOWS",
    "MOBILE_QUICK_SPEEDS",
    "MOBILE_SEMI",
    "MOBILE_SPEEDS",
    "NEWRENO",
    "RATE",
    "SEMITCP",
    "SEMITCP_ALG1",
    "SPEED",
]

HOPS = 14

#: The chain of section 3.1 (docs/semitcp-2018.md), routed by AODV as in the
#: paper (section 3.1): an RTS dropped at the retry limit breaks the route
#: and triggers a rediscovery (section 3.2). The paper simulated in ns-2:
#: `preset = "ns2"` (docs/scenario-reference.md, "Presets").
CHAIN: dict[str, Any] = {
    "name": "semitcp-2018-chain",
    "preset": "ns2",
    "duration_s": 100.0,
    "warmup_s": 10.0,
    "seed": 1,
    "radio": {"data_rate_mbps": 2.0, "basic_rate_mbps": 2.0, "tx_range_m": 250.0, "cs_range_m": 500.0},
    "mac": {"rts_threshold_bytes": 0, "short_retry_limit": 7, "long_retry_limit": 4, "queue_packets": 50},
    "topology": {"kind": "chain", "nodes": HOPS + 1, "spacing_m": 200.0},
    "routing": {"protocol": "aodv"},
    "flows": [{"src": 0, "dst": HOPS, "app": "bulk", "packet_bytes": 512}],
}

SEMITCP = {"flows.0.transport": "semitcp", "flows.0.rate_control": "none"}
SEMITCP_ALG1 = {"flows.0.transport": "semitcp", "flows.0.rate_control": "binary_search"}
NEWRENO = {"flows.0.transport": "tcp", "flows.0.cc": "newreno"}

C_SEMI = "semi-TCP"
C_ALG1 = "semi-TCP + Algorithm 1"
C_NEWRENO = "TCP NewReno (reference)"
C_FIXED = "semi-TCP, fixed rate"
C_UDP = "UDP CBR (reference)"

RATE = "flows.0.rate_kbps"
DST = "flows.0.dst"
SPEED = "mobility.max_speed_mps"

#: Seed 000's mobile random topology (section 5.1; examples/semitcp-mobile-48.toml
#: with its decisions): 48 nodes, 1500 x 3000 m, random waypoint from t = 0
#: with a minimum speed of 1 m/s (a zero minimum makes the speed decay,
#: Yoon et al. 2003) and no pause, the chain's radio and MAC, AODV, and
#: FTP over semi-TCP on 10 flows between nodes 2i and 2i+1 (the placement
#: is random, so any fixed pairs are random pairs).
MOBILE_FLOWS = 10
MOBILE: dict[str, Any] = {
    "name": "semitcp-2018-mobile",
    "preset": "ns2",
    "duration_s": 100.0,
    "warmup_s": 10.0,
    "seed": 1,
    "radio": dict(CHAIN["radio"]),
    "mac": dict(CHAIN["mac"]),
    "topology": {"kind": "random", "nodes": 48, "width_m": 1500.0, "height_m": 3000.0},
    "routing": {"protocol": "aodv"},
    "mobility": {"model": "random_waypoint", "min_speed_mps": 1.0, "max_speed_mps": 20.0, "pause_s": 0.0,
                 "start_s": 0.0},
    "semitcp": {"reserved_packets": 1},
    "flows": [{"src": 2 * i, "dst": 2 * i + 1, "transport": "semitcp", "app": "bulk", "packet_bytes": 512}
              for i in range(MOBILE_FLOWS)],
}
MOBILE_SEMI = {f"flows.{i}.rate_control": "none" for i in range(MOBILE_FLOWS)}
MOBILE_ALG1 = {f"flows.{i}.rate_control": "binary_search" for i in range(MOBILE_FLOWS)}
#: The paper does not give its speeds (its Figs. 11-12 are not in the text):
#: maximum speeds 1-20 m/s, 1 m/s (the minimum speed) standing for almost static.
MOBILE_SPEEDS = [1.0, 5.0, 10.0, 15.0, 20.0]
MOBILE_QUICK_SPEEDS = [1.0, 10.0, 20.0]

EXPERIMENTS = [
    Experiment(
        name="chain",
        description="14-hop chain, one FTP flow end to end: plain semi-TCP (TCP NewReno for reference)",
        scenario=CHAIN,
        cases={C_SEMI: SEMITCP, C_NEWRENO: NEWRENO},
        runs=10, quick_runs=5,
    ),
    Experiment(
        name="fixed-rate",
        description="14-hop chain, semi-TCP source at a fixed rate (UDP CBR at the same rate for reference)",
        scenario=CHAIN,
        cases={C_FIXED: {"flows.0.transport": "semitcp", "flows.0.rate_control": "fixed"},
               C_UDP: {"flows.0.transport": "udp", "flows.0.app": "cbr"}},
        vary={RATE: list(range(20, 301, 20))},
        runs=10, quick_runs=5,
    ),
    Experiment(
        name="path-length",
        description="chain, path lengths 1-14 hops: semi-TCP with and without Algorithm 1 (TCP NewReno for reference)",
        scenario=CHAIN,
        cases={C_SEMI: SEMITCP, C_ALG1: SEMITCP_ALG1, C_NEWRENO: NEWRENO},
        vary={DST: list(range(1, HOPS + 1))},
        runs=10, quick_runs=5,
    ),
    Experiment(
        name="rate-control",
        description="14-hop chain, semi-TCP with Algorithm 1, source rate sampled every 0.1 s",
        scenario={**CHAIN, "stats": {"series_interval_s": 0.1}},
        cases={C_ALG1: SEMITCP_ALG1},
        # Enough runs for a verdict (verdicts.MIN_RUNS); quick runs long
        # enough for the search to stop and be seen holding its rate.
        runs=10, quick_runs=5, quick_duration_s=60.0, series=True,
    ),
    Experiment(
        name="mobile",
        description="48 nodes moving by random waypoint in 1500 x 3000 m, 10 FTP flows over semi-TCP, with and "
                    "without Algorithm 1 on every flow, maximum speed swept",
        scenario=MOBILE,
        cases={C_SEMI: MOBILE_SEMI, C_ALG1: MOBILE_ALG1},
        vary={SPEED: MOBILE_SPEEDS}, quick_vary={SPEED: MOBILE_QUICK_SPEEDS},
        runs=20, duration_s=100.0, warmup_s=10.0,
        quick_runs=5, quick_duration_s=60.0, quick_warmup_s=10.0,
    ),
]
