"""The ns-3 static chain that hoplab's SINR receiver is compared with
(issue 17; docs/sinr.md): one TCP NewReno bulk transfer over a chain of
802.11b nodes 200 m apart, for each hop count and seed, printing the
goodput.

ns-3 is not a hoplab dependency: install it in a virtualenv of its own and
run this script with that interpreter:

    python3 -m venv /work/ns3venv && /work/ns3venv/bin/pip install ns3==3.44.post0
    /work/ns3venv/bin/python scripts/ns3_chain.py --hops 1 4 7 14 --seeds 1 2 3 > ns3.csv

Its counterpart in hoplab is examples/sinr-chain-ns3.toml (with
`--set topology.nodes=H+1 --set flows.0.dst=H`); the results measured with
this script are in python/hoplab/data/ns3_chain.json, which the tests
compare hoplab's SINR runs with.

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
  no traffic-control queue disc (hoplab has none above the MAC)
  ARP caches filled before the start (NeighborCacheHelper)
IP: static host routes along the chain (Ipv4StaticRoutingHelper)
TCP (ns-3's defaults but the congestion control and the segment size):
  TcpL4Protocol SocketType TcpNewReno (ns-3's default is CUBIC)
  TcpSocket SegmentSize 512 (hoplab's packet_bytes)
  defaults: DelAckCount 2, DelAckTimeout 200 ms, Sack on, Timestamp on,
    WindowScaling on, SndBufSize = RcvBufSize 131072 B (256 segments of
    512 B), InitialCwnd 10, MinRto 1 s, ClockGranularity 1 ms,
    LimitedTransmit on, RecoveryType TcpPrrRecovery, handshake (SYN)
Application: BulkSendApplication (MaxBytes 0) from node 0 to a PacketSink
  at node H; goodput = bytes received by the sink between warmup and the
  end, over that time.
"""

from __future__ import annotations

import argparse
import sys

POWER_250M_DBM = -64.374  # 10 log10(3.652e-10 W / 1 mW)
POWER_550M_DBM = -78.072  # 10 log10(1.559e-11 W / 1 mW)


def run(hops: int, seed: int, duration_s: float, warmup_s: float, packet_bytes: int) -> float:
    from ns import ns  # noqa: PLC0415 (ns-3 is imported only where it runs)

    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(seed)
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(packet_bytes))
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
    internet.Install(nodes)
    address = ns.Ipv4AddressHelper()
    address.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    interfaces = address.Assign(devices)
    ns.TrafficControlHelper().Uninstall(devices)
    ns.NeighborCacheHelper().PopulateNeighborCache()

    routing = ns.Ipv4StaticRoutingHelper()
    for i in range(hops + 1):
        table = routing.GetStaticRouting(nodes.Get(i).GetObject[ns.Ipv4]())
        for j in range(hops + 1):
            if abs(j - i) > 1:
                via = i + 1 if j > i else i - 1
                table.AddHostRouteTo(interfaces.GetAddress(j), interfaces.GetAddress(via), 1)

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
    return received * 8 / (duration_s - warmup_s) / 1e3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hops", type=int, nargs="+", default=[1, 4, 7, 14])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--duration", type=float, default=100.0, help="simulated seconds per run")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before goodput is counted")
    parser.add_argument("--packet-bytes", type=int, default=512)
    parser.add_argument("--one", nargs=2, type=int, metavar=("HOPS", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        # One run per process: ns-3's global state starts fresh each time.
        hops, seed = args.one
        print(f"{hops},{seed},{run(hops, seed, args.duration, args.warmup, args.packet_bytes):.3f}", flush=True)
        return 0
    import subprocess  # noqa: PLC0415

    print("hops,seed,goodput_kbps", flush=True)
    for hops in args.hops:
        for seed in args.seeds:
            cmd = [sys.executable, __file__, "--one", str(hops), str(seed), "--duration", str(args.duration),
                   "--warmup", str(args.warmup), "--packet-bytes", str(args.packet_bytes)]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()
            print(out[-1], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
