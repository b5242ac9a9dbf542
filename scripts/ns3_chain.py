"""The ns-3 802.11b chain that hoplab's SINR receiver, AODV and congestion
controllers are compared with (issues 17 and 29; docs/sinr.md,
docs/fidelity.md): one TCP bulk transfer over a chain of 802.11b nodes
200 m apart, for each hop count and seed, printing the goodput.

ns-3 is not a hoplab dependency: install it in a virtualenv of its own and
run this script with that interpreter:

    python3 -m venv /work/ns3venv && /work/ns3venv/bin/pip install ns3==3.44.post0
    /work/ns3venv/bin/python scripts/ns3_chain.py --hops 1 4 7 14 --seeds 1 2 3 > ns3.csv
    /work/ns3venv/bin/python scripts/ns3_chain.py --routing aodv --hops 1 4 7 14 --seeds 1 2 3 4 5 --json > aodv.json
    /work/ns3venv/bin/python scripts/ns3_chain.py --cc TcpVegas --hops 4 7 --json

Each run is a process of its own (ns-3's global state starts fresh); `-j N`
runs N at once. `--json` prints the reference document (command, ns-3
version, settings, seeds, runs) that `hoplab fidelity` reads from
python/hoplab/data/ (ns3_chain.json: the static NewReno chain;
references/ns3-aodv-chain.json, references/ns3-controllers.json).

Hoplab's counterparts: examples/sinr-chain-ns3.toml (with `--set
topology.nodes=H+1 --set flows.0.dst=H`) and hoplab.fidelity.checks.ns3_chain
/ hoplab.fidelity.family_ns3 (AODV, controllers), which map every setting
below to a hoplab key.

Settings (ns-3 3.44 attribute -> value; "default" where ns-3's own is kept):

PHY (YansWifiPhy, 802.11b DSSS, long preamble):
  TwoRayGroundPropagationLossModel Frequency 914e6, HeightAboveZ 1.5,
    SystemLoss 1, nodes at z = 0 (ns-2's radio: Friis below 86 m)
  ConstantSpeedPropagationDelayModel (default)
  TxPowerStart = TxPowerEnd = 24.5 dBm (0.2818 W, ns-2's Pt_), gains 0 dB
  ThresholdPreambleDetectionModel MinimumRssi -64.37 dBm (the power at
    250 m), Threshold 4 dB (default)
  CcaSensitivity -78.07 dBm (the power at 550 m)
  CcaEdThreshold -62 dBm, RxSensitivity -101 dBm, RxNoiseFigure 7 dB,
    PreambleDetectionDuration 4 us (defaults); no frame capture model
    (default); error rate model: the helper's default (DSSS curves)
MAC (AdhocWifiMac, no QoS: DCF):
  ConstantRateWifiManager DataMode = ControlMode = DsssRate2Mbps
  RtsCtsThreshold 0 (RTS/CTS before every unicast DATA)
  WifiMacQueue MaxSize 50p (hoplab's mac.queue_packets), MaxDelay 100 s
    (hoplab has no sojourn limit; ns-3's default is 500 ms)
Queue disc (--queue-disc): "none" (default): no traffic-control queue disc
  (TrafficControlHelper::Uninstall; hoplab has none above the MAC); "red":
  RedQueueDisc on every device (MaxSize 50p, ns-3's defaults otherwise:
  MinTh 5, MaxTh 15, QW 0.002, LInterm 50, Gentle on, MeanPktSize 500,
  UseEcn off; option only, no hoplab reference row uses it yet)
ARP (--arp): "prefilled": the ARP caches filled before the start
  (NeighborCacheHelper::PopulateNeighborCache); "normal": ns-3's ARP
  (ArpCache defaults: AliveTimeout 120 s, WaitReplyTimeout 1 s,
  MaxRetries 3, PendingQueueSize 3). Default ("auto"): prefilled with
  static routing (the stored static results were measured so and depend
  on it: the 7-hop chain, seed 1, gives 219.227 kbit/s prefilled, as
  stored, and 216.997 with normal ARP), normal with AODV. The prefilled entries are a
  trap for AODV: ns-3's AODV learns of a broken link from the MAC's
  retry-limit drop (WifiMac DroppedMpdu -> RoutingProtocol::NotifyTxError
  -> Neighbors::ProcessTxError), which finds the neighbour by the MAC
  address it resolved through the ARP caches; with the prefilled entries
  none matches and no route ever breaks (7 hops, seeds 1-3: 0 RERR in
  100 s; 334-677 with normal ARP; docs/fidelity.md).
Routing (--routing):
  "static": host routes along the chain (Ipv4StaticRoutingHelper)
  "aodv": AodvHelper with every attribute at ns-3 3.44's default (RFC 3561
    values; the script prints them with --aodv-defaults): EnableHello true,
    HelloInterval 1 s, AllowedHelloLoss 2, ActiveRouteTimeout 3 s,
    NodeTraversalTime 40 ms, NetDiameter 35, NetTraversalTime 2.8 s,
    PathDiscoveryTime 5.6 s, MyRouteTimeout 11.2 s, DeletePeriod 15 s,
    BlackListTimeout 5.6 s, RreqRetries 2, RreqRateLimit 10,
    RerrRateLimit 10, TtlStart 1, TtlIncrement 2, TtlThreshold 7,
    TimeoutBuffer 2, NextHopWait 50 ms, MaxQueueLen 64, MaxQueueTime 30 s,
    GratuitousReply true, DestinationOnly false, EnableBroadcast true
    (broadcast data only; none here); no local repair (ns-3 has none).
    Link breaks from the MAC's retry-limit drops (see ARP) and HELLO loss.
TCP (ns-3's defaults but the congestion control and the segment size):
  TcpL4Protocol SocketType (--cc): TcpNewReno (default; ns-3's default is
    TcpCubic), TcpWestwoodPlus, TcpVegas, TcpVeno, TcpBic, TcpScalable,
    TcpCubic, each with its attributes at ns-3's defaults except
    TcpCubic::HyStart, off (hoplab's CUBIC has no HyStart; --cubic-hystart
    turns it on): TcpWestwoodPlus FilterType Tustin; TcpVegas Alpha 2,
    Beta 4, Gamma 1; TcpVeno Beta 3; TcpBic Beta 0.8, MaxIncr 16, LowWnd 14,
    SmoothPart 5 (Linux: 20), BinarySearchCoefficient 4, FastConvergence on;
    TcpScalable AIFactor 50, MDFactor 0.125; TcpCubic C 0.4, Beta 0.7,
    FastConvergence on, TcpFriendliness on (printed by --cc-defaults)
  TcpSocket SegmentSize 512 (hoplab's packet_bytes)
  defaults: DelAckCount 2, DelAckTimeout 200 ms, Sack on, Timestamp on,
    WindowScaling on, SndBufSize = RcvBufSize 131072 B (256 segments of
    512 B), InitialCwnd 10, MinRto 1 s, ClockGranularity 1 ms,
    LimitedTransmit on, RecoveryType TcpPrrRecovery, handshake (SYN)
Application: BulkSendApplication (MaxBytes 0) from node 0 to a PacketSink
  at node H, both from 0 s; goodput = bytes received by the sink between
  warmup and the end, over that time. Also counted: the AODV messages each
  node's IP layer sends (Ipv4L3Protocol Tx, UDP port 654: RREQ, RREP with
  HELLOs, RERR), per run.
RNG: RngSeedManager seed 1, run = the seed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

POWER_250M_DBM = -64.374  # 10 log10(3.652e-10 W / 1 mW)
POWER_550M_DBM = -78.072  # 10 log10(1.559e-11 W / 1 mW)
NS3_VERSION = "ns-3 3.44 (PyPI ns3==3.44.post0)"
CONTROLLERS = ("TcpNewReno", "TcpWestwoodPlus", "TcpVegas", "TcpVeno", "TcpBic", "TcpScalable", "TcpCubic")
AODV_TYPES = {1: "rreq", 2: "rrep", 3: "rerr", 4: "rrep_ack"}

# A C++ probe (compiled by cppyy at run time): counts the AODV messages
# each IP layer sends, by type.
_PROBE = r"""
#include "ns3/aodv-packet.h"
#include "ns3/ipv4-header.h"
#include "ns3/udp-header.h"
#include "ns3/config.h"
#include "ns3/callback.h"
#include "ns3/ipv4.h"
namespace hoplab_probe {
  uint64_t aodv_tx[5] = {0, 0, 0, 0, 0};
  void IpTx(ns3::Ptr<const ns3::Packet> p, ns3::Ptr<ns3::Ipv4>, uint32_t) {
    ns3::Ptr<ns3::Packet> q = p->Copy();
    ns3::Ipv4Header ip;
    q->RemoveHeader(ip);
    if (ip.GetProtocol() != 17) return;
    ns3::UdpHeader udp;
    q->RemoveHeader(udp);
    if (udp.GetDestinationPort() != 654) return;
    ns3::aodv::TypeHeader t;
    q->RemoveHeader(t);
    if (!t.IsValid()) return;
    aodv_tx[static_cast<int>(t.Get()) % 5]++;
  }
  void Connect() {
    ns3::Config::ConnectWithoutContext("/NodeList/*/$ns3::Ipv4L3Protocol/Tx", ns3::MakeCallback(&IpTx));
  }
}
"""


def attribute_defaults(type_name: str) -> dict[str, str]:
    """Every attribute of an ns-3 TypeId with its initial value, as ns-3
    prints it (TypeId::GetAttribute(i).initialValue)."""
    from ns import ns  # noqa: PLC0415

    tid = ns.TypeId.LookupByName(type_name)
    out = {}
    for i in range(tid.GetAttributeN()):
        info = tid.GetAttribute(i)
        checker = info.checker
        out[str(info.name)] = str(info.initialValue.SerializeToString(checker))
    return out


def run(hops: int, seed: int, duration_s: float, warmup_s: float, packet_bytes: int, routing: str = "static",
        cc: str = "TcpNewReno", arp: str = "auto", queue_disc: str = "none", cubic_hystart: bool = False) -> dict[str, Any]:
    from ns import ns  # noqa: PLC0415 (ns-3 is imported only where it runs)

    if arp == "auto":
        arp = "prefilled" if routing == "static" else "normal"
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(seed)
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue(f"ns3::{cc}"))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(packet_bytes))
    ns.Config.SetDefault("ns3::TcpCubic::HyStart", ns.BooleanValue(cubic_hystart))
    ns.Config.SetDefault("ns3::WifiMacQueue::MaxSize", ns.StringValue("50p"))
    ns.Config.SetDefault("ns3::WifiMacQueue::MaxDelay", ns.TimeValue(ns.Seconds(100.0)))

    nodes = ns.NodeContainer()
    nodes.Create(hops + 1)
    positions = ns.CreateObject[ns.ListPositionAllocator]()
    for i in range(hops + 1):
        positions.Add(ns.Vector(200.0 * i, 0.0, 0.0))
    mobility = ns.MobilityHelper()
    mobility.SetPositionAllocator(positions)
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel")
    mobility.Install(nodes)

    channel = ns.YansWifiChannelHelper()
    channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel")
    channel.AddPropagationLoss(
        "ns3::TwoRayGroundPropagationLossModel",
        "Frequency", ns.DoubleValue(914e6),
        "SystemLoss", ns.DoubleValue(1.0),
        "HeightAboveZ", ns.DoubleValue(1.5),
    )
    phy = ns.YansWifiPhyHelper()
    phy.SetChannel(channel.Create())
    phy.Set("TxPowerStart", ns.DoubleValue(24.5))
    phy.Set("TxPowerEnd", ns.DoubleValue(24.5))
    phy.Set("TxPowerLevels", ns.UintegerValue(1))
    phy.Set("CcaSensitivity", ns.DoubleValue(POWER_550M_DBM))
    phy.SetPreambleDetectionModel(
        "ns3::ThresholdPreambleDetectionModel",
        "MinimumRssi", ns.DoubleValue(POWER_250M_DBM),
        "Threshold", ns.DoubleValue(4.0),
    )
    wifi = ns.WifiHelper()
    wifi.SetStandard(ns.WIFI_STANDARD_80211b)
    wifi.SetRemoteStationManager(
        "ns3::ConstantRateWifiManager",
        "DataMode", ns.StringValue("DsssRate2Mbps"),
        "ControlMode", ns.StringValue("DsssRate2Mbps"),
        "RtsCtsThreshold", ns.UintegerValue(0),
    )
    mac = ns.WifiMacHelper()
    mac.SetType("ns3::AdhocWifiMac")
    devices = wifi.Install(phy, mac, nodes)

    internet = ns.InternetStackHelper()
    if routing == "aodv":
        aodv = ns.AodvHelper()  # every attribute at its default (module doc)
        internet.SetRoutingHelper(aodv)
    internet.Install(nodes)
    address = ns.Ipv4AddressHelper()
    address.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    interfaces = address.Assign(devices)
    ns.TrafficControlHelper().Uninstall(devices)
    if queue_disc == "red":
        tch = ns.TrafficControlHelper()
        tch.SetRootQueueDisc("ns3::RedQueueDisc", "MaxSize", ns.QueueSizeValue(ns.QueueSize("50p")))
        tch.Install(devices)
    if arp == "prefilled":
        ns.NeighborCacheHelper().PopulateNeighborCache()

    if routing == "static":
        static = ns.Ipv4StaticRoutingHelper()
        for i in range(hops + 1):
            table = static.GetStaticRouting(nodes.Get(i).GetObject[ns.Ipv4]())
            for j in range(hops + 1):
                if abs(j - i) > 1:
                    via = i + 1 if j > i else i - 1
                    table.AddHostRouteTo(interfaces.GetAddress(j), interfaces.GetAddress(via), 1)

    if routing == "aodv":
        ns.cppyy.cppdef(_PROBE)
        probe = ns.cppyy.gbl.hoplab_probe
        probe.Connect()

    port = 9
    sink_helper = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
    sink_apps = sink_helper.Install(nodes.Get(hops))
    sink_apps.Start(ns.Seconds(0.0))
    bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(interfaces.GetAddress(hops), port).ConvertTo())
    bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
    bulk.SetAttribute("SendSize", ns.UintegerValue(packet_bytes))
    source_apps = bulk.Install(nodes.Get(0))
    source_apps.Start(ns.Seconds(0.0))

    sink = sink_apps.Get(0).GetObject[ns.PacketSink]()
    ns.Simulator.Stop(ns.Seconds(warmup_s))
    ns.Simulator.Run()
    at_warmup = sink.GetTotalRx()
    ns.Simulator.Stop(ns.Seconds(duration_s - warmup_s))
    ns.Simulator.Run()
    received = sink.GetTotalRx() - at_warmup
    ns.Simulator.Destroy()
    result: dict[str, Any] = {"hops": hops, "seed": seed, "goodput_kbps": round(received * 8 / (duration_s - warmup_s) / 1e3, 3)}
    if routing == "aodv":
        result.update({f"{name}_sent": int(probe.aodv_tx[t]) for t, name in AODV_TYPES.items()})
    return result


def _one(args: argparse.Namespace, cc: str, hops: int, seed: int) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--one", str(hops), str(seed)] + _common(args, [cc])
    cached = Path(args.cache) / (hashlib.sha256(" ".join(cmd[2:]).encode()).hexdigest()[:16] + ".json") if args.cache else None
    if cached is not None and cached.is_file():
        done: dict[str, Any] = json.loads(cached.read_text())
        return done
    out = subprocess.run(["nice", "-n", "10", *cmd], check=True, capture_output=True, text=True).stdout.strip().splitlines()
    run_result: dict[str, Any] = json.loads(out[-1])
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps(run_result))
    return run_result


def _common(args: argparse.Namespace, ccs: list[str]) -> list[str]:
    out = ["--duration", str(args.duration), "--warmup", str(args.warmup), "--packet-bytes", str(args.packet_bytes),
           "--routing", args.routing, "--cc", *ccs, "--arp", args.arp, "--queue-disc", args.queue_disc]
    return out + (["--cubic-hystart"] if args.cubic_hystart else [])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hops", type=int, nargs="+", default=[1, 4, 7, 14])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--duration", type=float, default=100.0, help="simulated seconds per run")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before goodput is counted")
    parser.add_argument("--packet-bytes", type=int, default=512)
    parser.add_argument("--routing", choices=["static", "aodv"], default="static")
    parser.add_argument("--cc", choices=CONTROLLERS, nargs="+", default=["TcpNewReno"],
                        help="ns-3 congestion control (TcpL4Protocol::SocketType); several: one case each")
    parser.add_argument("--arp", choices=["auto", "prefilled", "normal"], default="auto",
                        help="auto: prefilled with static routing, normal ARP with AODV (module doc)")
    parser.add_argument("--queue-disc", choices=["none", "red"], default="none")
    parser.add_argument("--cubic-hystart", action="store_true", help="TcpCubic::HyStart on (ns-3's default; off here)")
    parser.add_argument("--json", action="store_true", help="print the reference document instead of CSV")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="runs at once (each a process, under nice -n 10)")
    parser.add_argument("--cache", help="keep each run's result in this folder and reuse it (resuming a long set)")
    parser.add_argument("--aodv-defaults", action="store_true", help="print ns3::aodv::RoutingProtocol's attribute defaults")
    parser.add_argument("--cc-defaults", action="store_true", help="print the controllers' attribute defaults")
    parser.add_argument("--one", nargs=2, type=int, metavar=("HOPS", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.aodv_defaults or args.cc_defaults:
        names = ["ns3::aodv::RoutingProtocol"] if args.aodv_defaults else [f"ns3::{c}" for c in CONTROLLERS]
        print(json.dumps({n: attribute_defaults(n) for n in names}, indent=1))
        return 0
    if args.one:
        # One run per process: ns-3's global state starts fresh each time.
        hops, seed = args.one
        result = run(hops, seed, args.duration, args.warmup, args.packet_bytes, args.routing, args.cc[0], args.arp,
                     args.queue_disc, args.cubic_hystart)
        print(json.dumps(result), flush=True)
        return 0

    points = [(c, h, s) for c in args.cc for h in args.hops for s in args.seeds]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(_one, args, c, h, s) for c, h, s in points]
        if not args.json:
            print("cc,hops,seed,goodput_kbps", flush=True)
            for (c, _, _), f in zip(points, futures, strict=True):
                r = f.result()
                print(f"{c},{r['hops']},{r['seed']},{r['goodput_kbps']:.3f}", flush=True)
            return 0
        results = [f.result() for f in futures]
    seeds = " ".join(map(str, args.seeds))
    command = (f"/work/ns3venv/bin/python scripts/ns3_chain.py --hops {' '.join(map(str, args.hops))} --seeds {seeds} "
               + " ".join(_common(args, args.cc)) + f" -j {args.jobs} --json")
    cases = []
    for cc in args.cc:
        for hops in args.hops:
            runs = [r for (c, h, _), r in zip(points, results, strict=True) if c == cc and h == hops]
            one = f"/work/ns3venv/bin/python scripts/ns3_chain.py --one {hops} SEED " + " ".join(_common(args, [cc]))
            cases.append({"params": {"routing": args.routing, "cc": cc, "hops": hops}, "command": one,
                          "seeds": args.seeds, "runs": runs})
    doc = {
        "what": "TCP bulk transfer over the 802.11b chain (200 m, 2 Mb/s, RTS/CTS, SINR receiver), goodput at the last node (kbit/s)",
        "script": "scripts/ns3_chain.py",
        "command": command,
        "version": NS3_VERSION,
        "settings": {
            "routing": args.routing,
            "arp": ("prefilled" if args.routing == "static" else "normal") if args.arp == "auto" else args.arp,
            "queue_disc": args.queue_disc,
            "cubic_hystart": args.cubic_hystart,
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "packet_bytes": args.packet_bytes,
            "spacing_m": 200.0,
        },
        "seeds": args.seeds,
        "cases": cases,
    }
    print(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
