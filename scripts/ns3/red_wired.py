"""ns-3 3.44's RedQueueDisc at a wired bottleneck: the reference of
hoplab's `ns3-red-*` fidelity rows (issue 29; docs/fidelity.md,
python/hoplab/fidelity/family_ns3_red.py).

ns-3 is not a hoplab dependency: run this with the interpreter of a
virtualenv that has it (as scripts/ns3_chain.py):

    /work/ns3venv/bin/python scripts/ns3/red_wired.py --seeds 1 2 3 4 5 --json \
        > python/hoplab/data/references/ns3-red.json

Each run is a process of its own (ns-3's global state starts fresh).

The path is seed 002's, as scripts/ns2/wired.tcl builds it for the ns-2
AQM rows (hoplab: hoplab.fidelity.family_ns2_wired.wired):

    S0..S2 --100 Mb/s, 30 ms-- R1 --100 Mb/s, 10 ms-- R2 --5 Mb/s, 0.01 ms-- D

Settings (ns-3 3.44 attribute -> value; "default" where ns-3's own is kept):

Links: PointToPointHelper DataRate / Delay as above; every device's
  TxQueue DropTailQueue MaxSize 1p (the device holds one packet waiting
  besides the one on the wire, so the queue disc is the queue: ns-3's RED
  examples do this).
Queue discs: RedQueueDisc on R2's device toward D (the bottleneck), ns-3's
  defaults but MaxSize 50p and LinkBandwidth 5Mbps / LinkDelay 0.01ms (the
  link's): MinTh 5, MaxTh 15, QW 0.002, LInterm 50, Gentle on, Wait on,
  MeanPktSize 500 (idle decay: LinkBandwidth / (8 MeanPktSize) packets per
  second), UseEcn off, UseHardDrop on, ARED / AdaptMaxP / FengAdaptive /
  NLRED off, mode packets; every other device: FifoQueueDisc MaxSize 50p
  (hoplab's drop-tail 50-packet queues).
TCP: TcpNewReno, SegmentSize 1000; ns-3's defaults otherwise (the ones
  hoplab.fidelity.checks.ns3_chain maps): DelAckCount 2, DelAckTimeout 200
  ms, Sack on, Timestamp on, WindowScaling on, SndBufSize = RcvBufSize
  131072 B, InitialCwnd 10, MinRto 1 s, ClockGranularity 1 ms,
  LimitedTransmit on, RecoveryType TcpPrrRecovery, handshake.
Application: one BulkSendApplication (MaxBytes 0) per sender S_i to a
  PacketSink at D, all from 0 s; 60 s; goodput = bytes the sink received
  over 10-60 s (payload), summed.
Measured at the bottleneck over the whole run: the mean number of packets
  waiting (time average of the queue disc's PacketsInQueue plus the
  device queue's: the packets not yet on the wire, as hoplab's
  queues[].mean_packets); early drops (RedQueueDisc's "Unforced drop")
  and all drops (QueueDisc::Stats nTotalDroppedPackets).
RNG: RngSeedManager seed 1, run = the seed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

NS3_VERSION = "ns-3 3.44 (PyPI ns3==3.44.post0)"
FLOWS = 3
PAYLOAD_BYTES = 1000
DURATION_S = 60.0
WARMUP_S = 10.0

# Time-weighted occupancy of the bottleneck's queue disc and device queue,
# from their PacketsInQueue traces.
_PROBE = r"""
#include "ns3/queue-disc.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/callback.h"
namespace hoplab_red {
  double area = 0.0;
  double last = 0.0;
  uint32_t waiting[2] = {0, 0};
  void Change(int which, uint32_t, uint32_t now_packets) {
    double now = ns3::Simulator::Now().GetSeconds();
    area += (now - last) * (waiting[0] + waiting[1]);
    last = now;
    waiting[which] = now_packets;
  }
  void Disc(uint32_t before, uint32_t after) { Change(0, before, after); }
  void Device(uint32_t before, uint32_t after) { Change(1, before, after); }
  void Connect(ns3::Ptr<ns3::QueueDisc> qd, ns3::Ptr<ns3::Queue<ns3::Packet>> dq) {
    qd->TraceConnectWithoutContext("PacketsInQueue", ns3::MakeCallback(&Disc));
    dq->TraceConnectWithoutContext("PacketsInQueue", ns3::MakeCallback(&Device));
  }
  double Mean(double until) {
    return (area + (until - last) * (waiting[0] + waiting[1])) / until;
  }
}
"""


def run(seed: int) -> dict[str, Any]:
    from ns import ns  # noqa: PLC0415 (ns-3 is imported only where it runs)

    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(seed)
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(PAYLOAD_BYTES))

    nodes = ns.NodeContainer()
    nodes.Create(FLOWS + 3)  # senders 0..2, R1 = 3, R2 = 4, D = 5
    r1, r2, dst = FLOWS, FLOWS + 1, FLOWS + 2
    internet = ns.InternetStackHelper()
    internet.Install(nodes)

    def link(a: int, b: int, rate: str, delay: str) -> Any:
        p2p = ns.PointToPointHelper()
        p2p.SetDeviceAttribute("DataRate", ns.StringValue(rate))
        p2p.SetChannelAttribute("Delay", ns.StringValue(delay))
        p2p.SetQueue("ns3::DropTailQueue", "MaxSize", ns.StringValue("1p"))
        return p2p.Install(nodes.Get(a), nodes.Get(b))

    links = [link(i, r1, "100Mbps", "30ms") for i in range(FLOWS)]
    links.append(link(r1, r2, "100Mbps", "10ms"))
    last = link(r2, dst, "5Mbps", "0.01ms")
    links.append(last)

    fifo = ns.TrafficControlHelper()
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", ns.QueueSizeValue(ns.QueueSize("50p")))
    red = ns.TrafficControlHelper()
    red.SetRootQueueDisc(
        "ns3::RedQueueDisc",
        "MaxSize", ns.QueueSizeValue(ns.QueueSize("50p")),
        "LinkBandwidth", ns.DataRateValue(ns.DataRate("5Mbps")),
        "LinkDelay", ns.TimeValue(ns.MilliSeconds(0.01)),
    )
    address = ns.Ipv4AddressHelper()
    bottleneck = None
    for i, devices in enumerate(links):
        if devices is last:
            qdiscs = red.Install(devices.Get(0))
            bottleneck = qdiscs.Get(0)
            fifo.Install(devices.Get(1))
        else:
            fifo.Install(devices)
        address.SetBase(ns.Ipv4Address(f"10.1.{i}.0"), ns.Ipv4Mask("255.255.255.0"))
        interfaces = address.Assign(devices)
        if devices is last:
            dst_address = interfaces.GetAddress(1)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    ns.cppyy.cppdef(_PROBE)
    probe = ns.cppyy.gbl.hoplab_red
    device = last.Get(0).GetObject[ns.PointToPointNetDevice]()
    probe.Connect(bottleneck, device.GetQueue())

    port = 9
    sink_helper = ns.PacketSinkHelper("ns3::TcpSocketFactory",
                                      ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
    sink_apps = sink_helper.Install(nodes.Get(dst))
    sink_apps.Start(ns.Seconds(0.0))
    for i in range(FLOWS):
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(dst_address, port).ConvertTo())
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(PAYLOAD_BYTES))
        bulk.Install(nodes.Get(i)).Start(ns.Seconds(0.0))

    sink = sink_apps.Get(0).GetObject[ns.PacketSink]()
    ns.Simulator.Stop(ns.Seconds(WARMUP_S))
    ns.Simulator.Run()
    at_warmup = sink.GetTotalRx()
    ns.Simulator.Stop(ns.Seconds(DURATION_S - WARMUP_S))
    ns.Simulator.Run()
    received = sink.GetTotalRx() - at_warmup
    stats = bottleneck.GetStats()
    early = int(stats.GetNDroppedPackets("Unforced drop"))
    drops = int(stats.nTotalDroppedPackets)
    out = {"seed": seed, "goodput_kbps": received * 8 / (DURATION_S - WARMUP_S) / 1000.0,
           "queue_mean": float(probe.Mean(DURATION_S)), "drops": drops, "early_drops": early,
           "early_fraction": 100.0 * early / drops if drops else 0.0}
    ns.Simulator.Destroy()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument("--json", action="store_true", help="print the reference document")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child run
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(run(args.one)))
        return 0
    runs = []
    for seed in args.seeds:
        out = subprocess.run([sys.executable, __file__, "--one", str(seed)], capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        if not args.json:
            print(json.dumps(runs[-1]), flush=True)
    if args.json:
        doc = {"set": "ns3-red", "version": NS3_VERSION, "script": "scripts/ns3/red_wired.py",
               "command": "/work/ns3venv/bin/python scripts/ns3/red_wired.py --seeds "
                          + " ".join(map(str, args.seeds)) + " --json",
               "what": "three NewReno flows over seed 002's wired path, RedQueueDisc (ns-3's defaults, 50p) on the "
                       "5 Mb/s last hop, device queues 1p, 60 s; goodput over 10-60 s, queue statistics over the run",
               "seeds": args.seeds, "runs": runs}
        print(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
