# Seed 004's MANET (examples/manet-20-tcp.toml, python/hoplab/papers/
# scalable_manet.py) in ns-2.35 (Debian's ns2 package): 20 static nodes in
# 500 x 500 m, AODV, 802.11 at 1 Mbps, one FTP flow 0 -> 19 over TCP-Linux
# with SACK, 1448-byte segments, 200 s. The reference runs of the TCP-Linux
# parity check (docs/tcp-linux-parity.md).
#
#   ns scripts/ns2/manet.tcl placement=FILE cc=scalable seed=1 [key=value ...]
#
# placement: a Tcl file of `set pos(I) {X Y}` lines, one per node, metres:
# the placement hoplab drew for the same seed (its report's nodes x_m, y_m;
# scripts/ns2/tcp_linux_parity.py writes it), so both simulators run on the
# same positions. Every other setting is explicit below; key=value overrides:
#   nodes, src, dst   node count, the flow's source and destination
#   width_m height_m  the area (the flat grid)
#   seed        the default RNG's seed (MAC backoff, routing jitter)
#   duration    simulated seconds; warmup: goodput counts from here
#   rate_mbps   data and basic rate (Mac/802_11 dataRate_ and basicRate_)
#   cc          newreno (Agent/TCP/Newreno) or a TCP-Linux module
#               (Agent/TCP/Linux with select_ca: scalable, bic, vegas, ...)
#   window      Agent/TCP window_ (segments; the paper's "window 30000")
#   packet_bytes  packetSize_ (payload: ns-2 adds its 40-byte header)
#   sack        1: Agent/TCPSink/Sack1 (TCP-Linux reads SACK blocks)
#   ifqlen      interface queue (Queue/DropTail/PriQueue), packets
#   sample_s    cwnd_ is read every sample_s from warmup on (hoplab's
#               stats.series_interval_s): its mean and std / mean
#   speed_mps   0: static. Above 0: random waypoint from move_start on,
#               every leg at this speed, no pause (seed 004's "20 m/s from
#               the 20th second", hoplab's MANET_MOBILE), destinations
#               uniform in the area from an RNG seeded with seed + 1000;
#               the paths are ns-2's own, not hoplab's (compare the mobile
#               case as distributions over seeds)
#
# Printed at the end, one line: `result {json}` as scripts/ns2/chain.tcl.

array set opt {
    placement "" nodes 20 src 0 dst 19 width_m 500.0 height_m 500.0
    routing AODV seed 1 duration 200.0 warmup 0.0 rate_mbps 1.0
    cc scalable window 30000 packet_bytes 1448 sack 1 trace ""
    ifqlen 50 start 0.0 sample_s 0.5 speed_mps 0.0 move_start 20.0
}
source [file join [file dirname [info script]] args.tcl]
read_args manet.tcl $argv
if {$opt(placement) eq ""} {
    puts stderr "manet.tcl: placement=FILE is required (set pos(I) {X Y} lines)"
    exit 2
}
source $opt(placement)

# --- PHY: ns-2's defaults for a 914 MHz WaveLAN with TwoRayGround: 250 m
# decoding (RXThresh_), 550 m carrier sense (CSThresh_), capture 10 dB.
Phy/WirelessPhy set Pt_ 0.28183815
Phy/WirelessPhy set freq_ 914e6
Phy/WirelessPhy set L_ 1.0
Phy/WirelessPhy set RXThresh_ 3.652e-10
Phy/WirelessPhy set CSThresh_ 1.559e-11
Phy/WirelessPhy set CPThresh_ 10.0
Phy/WirelessPhy set bandwidth_ [expr {$opt(rate_mbps) * 1e6}]

# --- MAC: RTS before every unicast DATA frame, the DSSS timings (ns-2's
# defaults), both rates as given.
Mac/802_11 set RTSThreshold_ 0
Mac/802_11 set dataRate_ [expr {$opt(rate_mbps) * 1e6}]
Mac/802_11 set basicRate_ [expr {$opt(rate_mbps) * 1e6}]
Mac/802_11 set ShortRetryLimit_ 7
Mac/802_11 set LongRetryLimit_ 4

# --- TCP: no delayed ACKs (TCPSink), ns-2's defaults otherwise
# (windowInit_ 2, minrto_ 0.2, tcpTick_ 0.01).
Agent/TCP set window_ $opt(window)
Agent/TCP set packetSize_ $opt(packet_bytes)

set ns_ [new Simulator]
$defaultRNG seed $opt(seed)

set nn $opt(nodes)
# ns-2's wireless nodes need a trace target even when nothing is traced.
$ns_ use-newtrace
set tracefd [open [expr {$opt(trace) ne "" ? $opt(trace) : "/dev/null"}] w]
$ns_ trace-all $tracefd
set topo [new Topography]
$topo load_flatgrid $opt(width_m) $opt(height_m)
create-god $nn
set chan [new Channel/WirelessChannel]

if {$opt(routing) eq "DSR"} {
    set ifq CMUPriQueue
} elseif {$opt(routing) eq "AODV"} {
    set ifq Queue/DropTail/PriQueue
} else {
    puts stderr "manet.tcl: routing must be AODV or DSR, not '$opt(routing)'"
    exit 2
}
set trace_on [expr {$opt(trace) ne "" ? "ON" : "OFF"}]
$ns_ node-config -adhocRouting $opt(routing) -llType LL -macType Mac/802_11 \
    -ifqType $ifq -ifqLen $opt(ifqlen) -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy \
    -channel $chan -topoInstance $topo \
    -agentTrace $trace_on -routerTrace $trace_on -macTrace $trace_on -movementTrace OFF

for {set i 0} {$i < $nn} {incr i} {
    set node_($i) [$ns_ node]
    $node_($i) random-motion 0
    # hoplab's placement; ns-2 wants positions inside the grid.
    $node_($i) set X_ [lindex $pos($i) 0]
    $node_($i) set Y_ [lindex $pos($i) 1]
    $node_($i) set Z_ 0.0
}

# Random waypoint (speed_mps > 0): each node leaves for a uniform point at
# move_start and, on arrival, for the next one (pause 0).
set moverng [new RNG]
$moverng seed [expr {$opt(seed) + 1000}]
proc waypoint {i from} {
    global ns_ node_ opt moverng
    set x [$moverng uniform 0.0 $opt(width_m)]
    set y [$moverng uniform 0.0 $opt(height_m)]
    set d [expr {hypot($x - [lindex $from 0], $y - [lindex $from 1])}]
    $node_($i) setdest $x $y $opt(speed_mps)
    $ns_ at [expr {[$ns_ now] + $d / $opt(speed_mps)}] [list waypoint $i [list $x $y]]
}
if {$opt(speed_mps) > 0} {
    for {set i 0} {$i < $nn} {incr i} {
        $ns_ at $opt(move_start) [list waypoint $i $pos($i)]
    }
}

set flow_src $opt(src)
set flow_dst $opt(dst)
source [file join [file dirname [info script]] tcp_flow.tcl]
