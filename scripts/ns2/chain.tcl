# One TCP flow over an 802.11 chain in ns-2.35 (Debian's ns2 package), the
# reference runs of hoplab's routing-parity checks (docs/fidelity.md).
#
#   ns scripts/ns2/chain.tcl hops=7 routing=AODV seed=1 [key=value ...]
#
# Every setting is explicit below; a key=value argument overrides one:
#   hops        links in the chain (nodes = hops + 1), 200 m apart
#   routing     AODV or DSR
#   seed        the default RNG's seed (MAC backoff, routing jitter)
#   duration    simulated seconds; warmup: goodput counts from here
#   rate_mbps   data and basic rate (Mac/802_11 dataRate_ and basicRate_)
#   cc          newreno (Agent/TCP/Newreno) or a TCP-Linux module
#               (Agent/TCP/Linux with select_ca: scalable, bic, cubic,
#               vegas, veno, westwood, highspeed, reno)
#   window      Agent/TCP window_ (segments); packet_bytes: packetSize_
#               (payload: ns-2 adds its 40-byte TCP/IP header on top)
#   sack        1: Agent/TCPSink/Sack1 (TCP-Linux reads SACK blocks)
#   trace       a file name: ns-2's new trace format, agent + router + MAC
#   sample_s    cwnd_ is read every sample_s from warmup on (hoplab's
#               stats.series_interval_s): its mean and std / mean
#   basic_mbps  Mac/802_11 basicRate_ (default: rate_mbps)
#   errors      none, or gilbert: a two-state (Gilbert-Elliott) frame error
#               model at every node's receiver (node-config
#               -IncomingErrProc: ErrorModel/TwoState, unit pkt), hoplab's
#               [errors] model = "gilbert_elliott" with good_state_error 0
#               and bad_state_error 1: `per` is the long-run share of
#               frames lost, `burst_frames` the mean run of lost frames.
#               The sojourns are drawn from discrete CDFs (written to a
#               temporary file) so that, with TwoStateErrorModel::corruptPkt's
#               rule (queue/errmodel.cc:408-429: the frame that ends a good
#               sojourn is already lost), the runs of lost frames are
#               geometric with mean burst_frames and those of good frames
#               geometric with mean burst_frames (1 - per) / per, as
#               hoplab's per-frame chain. Unlike hoplab (unicast DATA frames
#               per directed link), ns-2 exposes every frame the node's PHY
#               decodes: RTS, CTS, ACK, broadcasts and overheard frames too.
#
# Printed at the end, one line: `result {json}` with the goodput (payload
# bytes the sender saw acknowledged in [warmup, duration], x 8 / window),
# the sender's counters (nrexmit_: retransmission timeouts; nrexmitpack_:
# segments retransmitted; ncwndcuts_: window reductions, timeouts included)
# and cwnd_'s mean and coefficient of variation over the samples.

array set opt {
    hops 4 routing AODV seed 1 duration 100.0 warmup 10.0 rate_mbps 2.0
    cc newreno window 256 packet_bytes 512 sack 0 trace "" spacing_m 200.0
    ifqlen 50 start 0.0 sample_s 0.1
    basic_mbps "" errors none per 0.03 burst_frames 3.0
}
source [file join [file dirname [info script]] args.tcl]
read_args chain.tcl $argv

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
Mac/802_11 set basicRate_ [expr {($opt(basic_mbps) ne "" ? $opt(basic_mbps) : $opt(rate_mbps)) * 1e6}]
Mac/802_11 set ShortRetryLimit_ 7
Mac/802_11 set LongRetryLimit_ 4

# --- TCP: no delayed ACKs (TCPSink), ns-2's defaults otherwise
# (windowInit_ 2, minrto_ 0.2, tcpTick_ 0.01).
Agent/TCP set window_ $opt(window)
Agent/TCP set packetSize_ $opt(packet_bytes)

set ns_ [new Simulator]
$defaultRNG seed $opt(seed)

set nn [expr {$opt(hops) + 1}]
# ns-2's wireless nodes need a trace target even when nothing is traced.
$ns_ use-newtrace
set tracefd [open [expr {$opt(trace) ne "" ? $opt(trace) : "/dev/null"}] w]
$ns_ trace-all $tracefd
set topo [new Topography]
$topo load_flatgrid [expr {int($opt(spacing_m) * $nn + 100)}] 100
create-god $nn
set chan [new Channel/WirelessChannel]

if {$opt(routing) eq "DSR"} {
    set ifq CMUPriQueue
} elseif {$opt(routing) eq "AODV"} {
    set ifq Queue/DropTail/PriQueue
} else {
    puts stderr "chain.tcl: routing must be AODV or DSR, not '$opt(routing)'"
    exit 2
}
# --- Frame errors (errors=gilbert): the geometric sojourns as discrete
# CDFs, "value 0 cdf" per line (tools/ranvar.cc:496-524), interpolation off.
proc geometric_cdf {name first q} {
    # P(first + k) = (1 - q) q^k, k >= 0, until the tail is below 1e-12.
    set path [exec mktemp /tmp/chain-ge-XXXXXX]
    set f [open $path w]
    set cdf 0.0
    set k 0
    while {$cdf < 1.0 - 1e-12 && $k < 100000} {
        set cdf [expr {1.0 - pow($q, $k + 1)}]
        puts $f "[expr {$first + $k}] 0 $cdf"
        incr k
    }
    puts $f "[expr {$first + $k}] 0 1.0"
    close $f
    set rv [new RandomVariable/Empirical]
    $rv set interpolation_ 0
    $rv loadCDF $path
    file delete $path
    return $rv
}
proc gilbert_errors {} {
    global opt
    # Lost runs: 1 + the bad draw, mean burst_frames (bad draw from 0, P(stay
    # bad) = 1 - 1 / burst_frames); good runs: the good draw - 1, mean
    # burst_frames (1 - per) / per (good draw from 2).
    set stay_bad [expr {1.0 - 1.0 / $opt(burst_frames)}]
    set good_mean [expr {$opt(burst_frames) * (1.0 - $opt(per)) / $opt(per)}]
    set stay_good [expr {1.0 - 1.0 / $good_mean}]
    set em [new ErrorModel/TwoState [geometric_cdf good 2 $stay_good] [geometric_cdf bad 0 $stay_bad] pkt]
    $em drop-target [new Agent/Null]
    return $em
}
if {[lsearch {none gilbert} $opt(errors)] < 0} {
    puts stderr "chain.tcl: errors must be none or gilbert, not '$opt(errors)'"
    exit 2
}
set errproc [expr {$opt(errors) eq "gilbert" ? "gilbert_errors" : ""}]

set trace_on [expr {$opt(trace) ne "" ? "ON" : "OFF"}]
if {$errproc ne ""} {
    $ns_ node-config -IncomingErrProc $errproc
}
$ns_ node-config -adhocRouting $opt(routing) -llType LL -macType Mac/802_11 \
    -ifqType $ifq -ifqLen $opt(ifqlen) -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy \
    -channel $chan -topoInstance $topo \
    -agentTrace $trace_on -routerTrace $trace_on -macTrace $trace_on -movementTrace OFF

for {set i 0} {$i < $nn} {incr i} {
    set node_($i) [$ns_ node]
    $node_($i) random-motion 0
    $node_($i) set X_ [expr {10.0 + $i * $opt(spacing_m)}]
    $node_($i) set Y_ 50.0
    $node_($i) set Z_ 0.0
}

set flow_src 0
set flow_dst $opt(hops)
source [file join [file dirname [info script]] tcp_flow.tcl]
