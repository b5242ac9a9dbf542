"""Flow statistics of a semi-TCP chain trace, as the authors computed them.

    python scripts/ns2/semitcp/chain_stats.py chain.tr --src 0 --dst 14 [--flow 0] [--pkt 512]

The semi-TCP authors' chain.sh scripts run `trace2stats_v05b/avgStatsForTcp.awk
src=0 dst=N-1 flow=0 pkt=512 chain.tr` (the awk file is not in the public
semitcp repository; the version read here is in GitHub feengg/mytcl,
trace2stats_v05b/). This is a re-implementation of the same rules on ns-2's
new trace format (`$ns_ use-newtrace`), with awk's field numbers:

* data packets: AGT lines of flow `flow` (-If, $39) of type tcp (-It, $35)
  with IP length (-Il, $37) >= pkt; sent = `s` at node src (-Hs, $5),
  received = `r` at node dst; a retransmission is a send whose TCP seqno
  (-Ps, $47) is not above the highest sent so far;
* goodput: pkt-sized payload (IP length minus IP length mod pkt) of each
  first reception of a seqno, over [first data send at src, last first
  reception at dst], in kbit/s (1 kbit = 1000 bit);
* mean delay: over the first receptions, reception time minus the send time
  of the same packet uid (-Ii, $41), counting only positive differences;
* ACKs: AGT `ack` lines, sent = `s` at dst, received = `r` at src;
* RTS(C) sent: MAC `s` lines whose -Mt ($29, semi-TCP's trace) is RTS or RTSC.
"""

from __future__ import annotations

import argparse
import json
import sys


def chain_stats(path: str, src: int, dst: int, flow: int = 0, pkt: int = 512) -> dict:
    start = 1e6
    stop = 0.0
    sent = retx = 0
    max_seq_sent = -1
    recvd_size = 0
    unique = 0
    fresh: set[int] = set()
    send_time: dict[str, float] = {}
    recv_time: dict[str, float] = {}
    recv_ids: set[str] = set()  # awk's recvTime[] also gets every uid it was looked up with
    acks_sent = acks_recvd = 0
    max_acked = -1
    num_acked = 0
    rts = 0
    with open(path, "r", encoding="latin-1") as fh:
        for line in fh:
            f = line.split()
            if len(f) < 3 or f[1] != "-t":
                continue
            # awk's $k is f[k-1]
            def fld(k: int) -> str:
                return f[k - 1] if len(f) >= k else ""

            event = f[0]
            level = fld(19)
            if level == "AGT":
                i_type = fld(35)
                if i_type in ("tcp", "pareto") and fld(39) == str(flow) and int(fld(37)) >= pkt:
                    time = float(f[2])
                    node = int(fld(5))
                    pkt_id = fld(41)
                    if fld(54) == "-NumAcked":
                        num_acked = int(fld(55))
                    seq = int(fld(47))
                    if node == src and event == "s":
                        start = min(start, time)
                        send_time[pkt_id] = time
                        sent += 1
                        if seq > max_seq_sent:
                            max_seq_sent = seq
                        else:
                            retx += 1
                    if node == dst and event == "r":
                        recv_ids.add(pkt_id)
                    if node == dst and event == "r" and pkt_id not in recv_time:
                        stop = max(stop, time)
                        if seq not in fresh:
                            fresh.add(seq)
                            unique += 1
                            size = int(fld(37))
                            recvd_size += size - size % pkt
                            recv_time[pkt_id] = time
                elif i_type == "ack":
                    node = int(fld(5))
                    seq = int(fld(47))
                    if event == "r" and node == src:
                        acks_recvd += 1
                        max_acked = max(max_acked, seq)
                    if event == "s" and node == dst:
                        acks_sent += 1
            elif level == "MAC" and event == "s" and fld(29) in ("RTS", "RTSC"):
                rts += 1
    delays = [recv_time[i] - send_time.get(i, 0.0) for i in recv_time]
    pos = [d for d in delays if d > 0.0]
    return {
        "start_s": start,
        "stop_s": stop,
        "sent_pkts": sent,
        "max_seqno_sent": max_seq_sent,
        "retransmitted": retx,
        "received_pkts": len(recv_ids),
        "received_unique": unique,
        "goodput_kbps": (recvd_size / (stop - start)) * 8 / 1000 if stop > start else 0.0,
        "mean_delay_ms": (sum(pos) / len(pos) * 1000) if pos else 0.0,
        "max_acked_seqno": max(max_acked, num_acked),
        "acks_sent": acks_sent,
        "acks_received": acks_recvd,
        "rts_sent": rts,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--src", type=int, default=0)
    ap.add_argument("--dst", type=int, required=True)
    ap.add_argument("--flow", type=int, default=0)
    ap.add_argument("--pkt", type=int, default=512)
    a = ap.parse_args(argv)
    json.dump(chain_stats(a.trace, a.src, a.dst, a.flow, a.pkt), sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
