"""Bianchi's saturation throughput of the 802.11 DCF (G. Bianchi, "Performance
analysis of the IEEE 802.11 distributed coordination function", IEEE JSAC
18(3), 2000), with the finite retry limit and the collision cost of
hoplab's threshold receiver: the model crates/hoplab-sim/tests/bianchi.rs
checks the MAC against, here for `hoplab fidelity`.

n saturated stations on a circle of 10 m around one receiver send 512-byte
UDP payloads at 2 Mb/s (data and basic rate), DSSS timing. A collision
costs the colliding frame plus EIFS: every bystander fails to decode the
colliding frames and waits EIFS (IEEE 802.11-2016 10.3.2.3.7); the
colliding stations wait their CTS/ACK timeout plus DIFS, which is the same
up to a few microseconds. Capture is off (the model assumes a collision
destroys every frame).
"""

from __future__ import annotations

import math
from typing import Any

SLOT_US = 20.0
SIFS_US = 10.0
DIFS_US = SIFS_US + 2 * SLOT_US
PLCP_US = 192.0
RATE_MBPS = 2.0
CW_MIN, CW_MAX, RETRY_LIMIT = 31, 1023, 7
PAYLOAD_BYTES = 512.0
OVERHEAD_BYTES = 8.0 + 20.0 + 28.0  # UDP, IP, MAC header and FCS
RADIUS_M = 10.0


def _airtime_us(size_bytes: float) -> float:
    return PLCP_US + size_bytes * 8.0 / RATE_MBPS


def throughput_kbps(n: int, rts_cts: bool) -> float:
    """The model's aggregate payload throughput of `n` stations, kbit/s."""
    delta_us = RADIUS_M / 299.792458
    eifs = SIFS_US + _airtime_us(14.0) + DIFS_US
    rts, cts, ack, data = _airtime_us(20.0), _airtime_us(14.0), _airtime_us(14.0), _airtime_us(PAYLOAD_BYTES + OVERHEAD_BYTES)
    if rts_cts:
        ts = rts + SIFS_US + cts + SIFS_US + data + SIFS_US + ack + DIFS_US + 4 * delta_us
        tc = rts + eifs + delta_us
    else:
        ts = data + SIFS_US + ack + DIFS_US + 2 * delta_us
        tc = data + eifs + delta_us
    stages = [min((CW_MIN + 1) * 2.0**i, CW_MAX + 1.0) for i in range(RETRY_LIMIT)]

    def tau_of(p: float) -> float:
        attempts = sum(p**i for i in range(len(stages)))
        slots = sum(p**i * (w + 1.0) / 2.0 for i, w in enumerate(stages))
        return attempts / slots

    lo, hi = 0.0, 1.0  # p = 1 - (1 - tau(p))^(n-1), by bisection
    for _ in range(200):
        p = 0.5 * (lo + hi)
        if p > 1.0 - (1.0 - tau_of(p)) ** (n - 1):
            hi = p
        else:
            lo = p
    tau = tau_of(0.5 * (lo + hi))
    p_tr = 1.0 - (1.0 - tau) ** n
    p_s = n * tau * (1.0 - tau) ** (n - 1) / p_tr
    slot_us = (1.0 - p_tr) * SLOT_US + p_tr * p_s * ts + p_tr * (1.0 - p_s) * tc
    return p_s * p_tr * PAYLOAD_BYTES * 8.0 / slot_us * 1e3


def scenario(n: int, rts_cts: bool, duration_s: float) -> dict[str, Any]:
    """The model's network as a hoplab scenario."""
    positions = [[0.0, 0.0]] + [
        [RADIUS_M * math.cos(2 * math.pi * i / n), RADIUS_M * math.sin(2 * math.pi * i / n)] for i in range(n)
    ]
    return {
        "name": f"bianchi-n{n}-{'rtscts' if rts_cts else 'basic'}",
        "duration_s": duration_s,
        "warmup_s": 2.0,
        "radio": {"capture_threshold_db": 100.0},
        "mac": {"rts_threshold_bytes": 0 if rts_cts else 3000},
        "topology": {"kind": "explicit", "positions": positions},
        "stats": {"series_interval_s": 0.0},
        "flows": [{"src": i, "dst": 0, "app": "bulk", "packet_bytes": 512} for i in range(1, n + 1)],
    }
