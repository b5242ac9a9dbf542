# Seed 000's mobile scenario (examples/semitcp-mobile-48.toml; the paper's
# Figs. 11-12) in ns-semitcp (ns-2.35 + the public semi-TCP code, build.sh):
# N nodes moving in W x H m, AODV, 802.11 at 2 Mbit/s, plain semi-TCP
# (Agent/TCP/Semi, TCPSink) on flows 2i -> 2i+1 with 512-byte segments, FTP.
#
#   ns-semitcp mobile.tcl movement=FILE [key=value ...]
#
# movement: a Tcl file that places and moves the nodes (`$node_(I) set X_
# ...` and `$ns_ at T "$node_(I) setdest X Y SPEED"` lines), written by
# scripts/ns2/semitcp/run_mobile.py from hoplab's recorded positions of the
# same run, so both simulators move the nodes the same way.
#
# The semi-TCP settings are those of the authors' chain scripts
# (chain/rt-fail/semi-dupack/chain.tcl = rt_fail.tcl here, run as `rt_fail.tcl
# 1 N 100 7 1 0 1 1`): RTT_ 0.006, ShortRetryLimit_ 7, CALLRT_ (link-failure
# reports to AODV) 1, no_dupack_ 0, CongestionThreshold_ 1, K_ 1; the MAC's
# and AODV's hooks attached as there (mac-get-ifq, mac-get-aodv,
# ifq-get-aodv, aodv-get-semitcp, aodv-get-tcpsink, semitcp-get-mac,
# tcpsink-get-mac). Radio as the paper and hoplab's example: 2 Mbit/s data
# and basic rate, TwoRayGround at 2.4 GHz (the authors'), 250 m decoding
# (RXThresh_ 3.65262e-10, the authors'), carrier sense at cs_m (CSThresh_
# = the two-ray power at cs_m: 2.28289e-11 at 500 m, the paper's
# interference range; the authors' chain used 550 m).
#
# key=value: nodes flows (count, flows 2i -> 2i+1) width_m height_m
#   duration start (FTP start, s) seed (the default RNG: MAC backoff, AODV
#   jitter) cs_m callrt trace (file; default mobile.tr) mac_trace (1: also
#   the MAC level, ARP included, for diagnosis; the agent and routing lines
#   stay the same)
# Writes the trace (agent and routing levels; MAC off) for mobile_stats.py.

array set opt {
    movement "" nodes 48 flows 10 width_m 1500.0 height_m 3000.0
    duration 100.0 start 0.0 seed 1 cs_m 500.0 callrt 1 trace mobile.tr
    mac_trace 0
}
foreach arg $argv {
    set kv [split $arg =]
    if {[llength $kv] != 2 || ![info exists opt([lindex $kv 0])]} {
        puts stderr "mobile.tcl: bad argument '$arg' (known: [lsort [array names opt]])"
        exit 2
    }
    set opt([lindex $kv 0]) [lindex $kv 1]
}
if {$opt(movement) eq ""} {
    puts stderr "mobile.tcl: movement=FILE is required"
    exit 2
}

# --- semi-TCP: the authors' chain settings (rt_fail.tcl 1 N 100 7 1 0 1 1)
Mac/802_11 set RTT_ 0.006
Mac/802_11 set ShortRetryLimit_ 7
Mac/802_11 set CALLRT_ $opt(callrt)
Agent/TCPSink set no_dupack_ 0
Queue/DropTail/PriQueue set CongestionThreshold_ 1
Mac/802_11 set K_ 1

# --- radio: the authors' PHY at 2 Mbit/s, carrier sense at cs_m
Mac/802_11 set dataRate_ 2e6
Mac/802_11 set basicRate_ 2e6
Phy/WirelessPhy set CPThresh_ 10.0
Phy/WirelessPhy set RXThresh_ 3.65262e-10
Phy/WirelessPhy set bandwidth_ 2e6
Phy/WirelessPhy set Pt_ 0.28183815
Phy/WirelessPhy set freq_ 2.4e+9
Phy/WirelessPhy set L_ 1.0
# Two-ray ground beyond the crossover (226 m at 2.4 GHz): Pt h^4 / d^4, h = 1.5 m.
Phy/WirelessPhy set CSThresh_ [expr {0.28183815 * pow(1.5, 4) / pow($opt(cs_m), 4)}]

set ns_ [new Simulator]
if {$opt(seed) > 0} { $defaultRNG seed $opt(seed) }
set nn $opt(nodes)
$ns_ use-newtrace
set tracefd [open $opt(trace) w]
$ns_ trace-all $tracefd
set topo [new Topography]
$topo load_flatgrid $opt(width_m) $opt(height_m)
set god_ [create-god $nn]
set chan [new Channel/WirelessChannel]
$ns_ node-config -adhocRouting AODV -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy \
    -topoInstance $topo -channel $chan \
    -agentTrace ON -routerTrace ON -macTrace [expr {$opt(mac_trace) ? "ON" : "OFF"}] \
    -movementTrace OFF

for {set i 0} {$i < $nn} {incr i} {
    set node_($i) [$ns_ node]
    $node_($i) random-motion 0
    set mymac($i) [$node_($i) set mac_(0)]
    $mymac($i) mac-get-ifq [$node_($i) set ifq_(0)]
    set rt($i) [$node_($i) agent 255]
    $mymac($i) mac-get-aodv $rt($i)
    [$node_($i) set ifq_(0)] ifq-get-aodv $rt($i)
}
source $opt(movement)

# rt_fail.tcl's create_tcp_connection, semi-TCP branch.
proc create_tcp_connection {id src dst} {
    global ns_ node_ rt mymac opt
    set tcp [new Agent/TCP/Semi]
    set sink [new Agent/TCPSink]
    $ns_ attach-agent $node_($src) $tcp
    $ns_ attach-agent $node_($dst) $sink
    $ns_ connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    $tcp set packetSize_ 512
    $tcp set fid_ $id
    $ns_ at $opt(start) "$ftp start"
    $rt($src) aodv-get-semitcp $tcp
    $rt($dst) aodv-get-tcpsink $sink
    $tcp semitcp-get-mac $mymac($src)
    $sink tcpsink-get-mac $mymac($dst)
}
for {set f 0} {$f < $opt(flows)} {incr f} {
    create_tcp_connection $f [expr {2 * $f}] [expr {2 * $f + 1}]
}

proc finish {} {
    global ns_ tracefd
    $ns_ flush-trace
    close $tracefd
    exit 0
}
for {set i 0} {$i < $nn} {incr i} {
    $ns_ at $opt(duration) "$node_($i) reset"
}
$ns_ at [expr {$opt(duration) + 0.002}] "finish"
$ns_ run
