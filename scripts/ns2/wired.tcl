# TCP over a wired bottleneck in ns-2.35 (Debian's ns2 package), the
# reference runs of hoplab's wired checks (hoplab/fidelity/family_ns2_wired.py,
# docs/fidelity.md). The layout is seed 002's (docs/tcpw-br.md), the one
# hoplab's `wired_cum_wireless` topology builds:
#
#   S0..S(n-1) --100 Mb/s, 30 ms--> R1 --100 Mb/s, 10 ms--> R2 --5 Mb/s, 0.01 ms--> D
#   (access links)                   (core link)             (last hop: the bottleneck)
#
#   ns scripts/ns2/wired.tcl cc=cubic sack=1 loss=0.01 seed=1 [key=value ...]
#   ns scripts/ns2/wired.tcl flows=3 queue=RED duration=60 seed=1
#
# Every setting is explicit below; a key=value argument overrides one:
#   flows         bulk TCP flows, one per sender S_i, all to D, all from `start`
#   cc            newreno (Agent/TCP/Newreno) or a TCP-Linux module
#                 (Agent/TCP/Linux + select_ca: scalable, bic, cubic, vegas,
#                 veno, westwood, reno, highspeed)
#   sack          1: the sink is Agent/TCPSink/Sack1 (TCP-Linux reads its SACK
#                 blocks), 0: Agent/TCPSink (no SACK); both ACK every segment
#   loss          probability that a packet crossing the last hop is lost, in
#                 EACH direction (data and ACKs): an ErrorModel with unit pkt
#                 and a uniform random variable on R2->D and on D->R2, as
#                 hoplab's link `loss_rate`
#   queue         the last hop's queue (both directions): DropTail, RED, REM, PI;
#                 every other link is DropTail
#   qref          PI's qref_ (packets), used with queue=PI
#   limit         every queue's limit_ (packets), hoplab's `queue_packets`
#   window        Agent/TCP window_ (hoplab's tcp.rwnd_segments)
#   packet_bytes  Agent/TCP packetSize_: the payload; ns-2 adds its 40-byte
#                 TCP/IP header on top (1040 B on the wire, as hoplab)
#   duration      simulated seconds; warmup: goodput counts from here
#   seed          the default RNG's seed (ErrorModel, RED/REM/PI draws)
#
# Printed at the end, one line: `result {json}` with
#   goodput_kbps  payload bytes the senders saw acknowledged in [warmup,
#                 duration] (ack_ x packet_bytes), x 8 / (duration - warmup),
#                 summed over the flows
#   sent          data segments sent by all senders over the whole run
#                 (ndatapack_, retransmissions included; hoplab's flows' `sent`)
#   retransmitted nrexmitpack_, summed; timeouts: nrexmit_, summed
#   queue_mean    time-averaged packets in the R2->D queue over the whole run
#                 (a QueueMonitor's packet integrator: the packet being sent is
#                 not in the queue, as hoplab's queues[].mean_packets)
#   drops         packets the R2->D queue dropped, whole run
#   early_drops   of those, the early (AQM) drops: RED and PI hand them to
#                 their early-drop-target (red.cc:733-746, pi.cc:140-147),
#                 here a snoop counting them before the link's drop head; REM has none, and a REM drop is early unless
#                 the queue with the arrival reached its limit (rem.cc:250-266),
#                 which the queue trace of that link shows
#   overflow_drops drops - early_drops

array set opt {
    flows 1 cc newreno sack 0 loss 0.0 queue DropTail qref 50 limit 50
    window 1000 packet_bytes 1000 duration 100.0 warmup 10.0 start 0.0 seed 1
    access_mbps 100 access_ms 30 core_mbps 100 core_ms 10 last_mbps 5 last_ms 0.01
}
source [file join [file dirname [info script]] args.tcl]
read_args wired.tcl $argv

# --- TCP: ns-2's defaults, set explicitly. No delayed ACKs (TCPSink and
# Sack1 acknowledge every segment; the ACK is 40 bytes); windowInit_ 2;
# minrto_ 0.2 s; tcpTick_ 10 ms; maxburst_ 0 (no limit); no timestamps.
Agent/TCP set window_ $opt(window)
Agent/TCP set packetSize_ $opt(packet_bytes)
Agent/TCP set windowInit_ 2
Agent/TCP set minrto_ 0.2
Agent/TCP set tcpTick_ 0.01
Agent/TCP set maxburst_ 0
Agent/TCP set timestamps_ false
Agent/TCPSink set packetSize_ 40
# ns-2's initial RTO, before the first RTT sample (hoplab's
# tcp.initial_rto_ms is set to the same 3 s).
Agent/TCP set rtxcur_init_ 3.0
Agent/TCP/Linux set rtxcur_init_ 3.0
Agent/TCP/Linux set minrto_ 0.2

# --- Queues: the limit of every queue, and the AQM parameters at ns-2.35's
# defaults (tcl/lib/ns-default.tcl:122-249), each written out.
Queue set limit_ $opt(limit)
# RED: gentle, byte mode, automatic thresholds (thresh_ 0, maxthresh_ 0:
# red.cc:200-215 from targetdelay_) and weight (q_weight_ -1: red.cc:189-194
# from the link's delay and rate), linterm_ 10, wait_, no ECN, tail drop.
Queue/RED set bytes_ true
Queue/RED set queue_in_bytes_ true
Queue/RED set thresh_ 0
Queue/RED set maxthresh_ 0
Queue/RED set mean_pktsize_ 500
Queue/RED set idle_pktsize_ 100
Queue/RED set q_weight_ -1
Queue/RED set wait_ true
Queue/RED set linterm_ 10
Queue/RED set mark_p_ 0.1
Queue/RED set use_mark_p_ true
Queue/RED set setbit_ false
Queue/RED set gentle_ true
Queue/RED set drop_tail_ true
Queue/RED set drop_front_ false
Queue/RED set drop_rand_ false
Queue/RED set adaptive_ 0
Queue/RED set targetdelay_ 0.005
# REM: gamma 0.001, phi 1.001, no input filtering, 1000-byte mean packet,
# price update every 2 ms, target backlog 20 packets, drop (no marking),
# in packets.
Queue/REM set gamma_ 0.001
Queue/REM set phi_ 1.001
Queue/REM set inw_ 1
Queue/REM set mean_pktsize_ 1000
Queue/REM set pupdtime_ 0.002
Queue/REM set pbo_ 20.0
Queue/REM set markpkts_ false
Queue/REM set qib_ false
# PI: a, b, 170 Hz, in packets, no byte scaling, drop (no marking).
Queue/PI set bytes_ false
Queue/PI set queue_in_bytes_ false
Queue/PI set a_ 0.00001822
Queue/PI set b_ 0.00001816
Queue/PI set w_ 170
Queue/PI set qref_ $opt(qref)
Queue/PI set mean_pktsize_ 500
Queue/PI set setbit_ false

set ns_ [new Simulator]
$defaultRNG seed $opt(seed)

set r1 [$ns_ node]
set r2 [$ns_ node]
set dst [$ns_ node]
for {set i 0} {$i < $opt(flows)} {incr i} {
    set src($i) [$ns_ node]
    $ns_ duplex-link $src($i) $r1 [expr {$opt(access_mbps) * 1e6}] [expr {$opt(access_ms) * 1e-3}] DropTail
}
$ns_ duplex-link $r1 $r2 [expr {$opt(core_mbps) * 1e6}] [expr {$opt(core_ms) * 1e-3}] DropTail
if {[lsearch {DropTail RED REM PI} $opt(queue)] < 0} {
    puts stderr "wired.tcl: queue must be DropTail, RED, REM or PI, not '$opt(queue)'"
    exit 2
}
$ns_ duplex-link $r2 $dst [expr {$opt(last_mbps) * 1e6}] [expr {$opt(last_ms) * 1e-3}] $opt(queue)

# Random loss on the last hop, each direction: unit pkt, uniform draws from
# the default RNG; placed after the queue (Simulator lossmodel), so a lost
# packet has been queued and sent, as on hoplab's links.
if {$opt(loss) > 0} {
    foreach {a b} [list $r2 $dst $dst $r2] {
        set em [new ErrorModel]
        $em unit pkt
        $em set rate_ $opt(loss)
        $em ranvar [new RandomVariable/Uniform]
        $em drop-target [new Agent/Null]
        $ns_ lossmodel $em $a $b
    }
}

# The bottleneck queue R2 -> D: occupancy, drops, and (RED, PI) early drops.
set qmon [$ns_ monitor-queue $r2 $dst ""]
set bottleneck [[$ns_ link $r2 $dst] queue]
set early_qmon ""
if {$opt(queue) eq "RED" || $opt(queue) eq "PI"} {
    # Early drops pass a snoop of their own (counted by early_qmon), then
    # the link's drop head, where the main monitor counts them as drops.
    set early_qmon [new QueueMonitor]
    set early_snoop [new SnoopQueue/Drop]
    $early_snoop set-monitor $early_qmon
    $early_snoop target [[$ns_ link $r2 $dst] set drophead_]
    $bottleneck early-drop-target $early_snoop
}
set qtrace_name ""
if {$opt(queue) eq "REM"} {
    set qtrace_name [exec mktemp /tmp/wired-rem-XXXXXX]
    set qtrace [open $qtrace_name w]
    $ns_ trace-queue $r2 $dst $qtrace
}

for {set i 0} {$i < $opt(flows)} {incr i} {
    if {$opt(cc) eq "newreno"} {
        set tcp($i) [new Agent/TCP/Newreno]
    } else {
        set tcp($i) [new Agent/TCP/Linux]
        $ns_ at 0.0 "$tcp($i) select_ca $opt(cc)"
    }
    if {$opt(sack)} {
        set sink($i) [new Agent/TCPSink/Sack1]
    } else {
        set sink($i) [new Agent/TCPSink]
    }
    $ns_ attach-agent $src($i) $tcp($i)
    $ns_ attach-agent $dst $sink($i)
    $ns_ connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns_ at $opt(start) "$ftp($i) start"
}

proc at_warmup {} {
    global tcp opt ack_at_warmup
    for {set i 0} {$i < $opt(flows)} {incr i} {
        set ack_at_warmup($i) [$tcp($i) set ack_]
    }
}
$ns_ at $opt(warmup) "at_warmup"

# REM's drops from the queue trace: the queue length with the arrival is
# the +'s less the -'s and d's before it; a drop at the limit is forced.
proc rem_early_drops {name} {
    global opt
    set f [open $name r]
    set len 0
    set early 0
    while {[gets $f line] >= 0} {
        switch -- [string index $line 0] {
            + { incr len }
            - { incr len -1 }
            d {
                if {$len < $opt(limit)} { incr early }
                incr len -1
            }
        }
    }
    close $f
    return $early
}

proc finish {} {
    global ns_ tcp opt ack_at_warmup qmon early_qmon qtrace_name qtrace
    set acked 0
    set sent 0
    set rexmit 0
    set timeouts 0
    for {set i 0} {$i < $opt(flows)} {incr i} {
        incr acked [expr {[$tcp($i) set ack_] - $ack_at_warmup($i)}]
        incr sent [$tcp($i) set ndatapack_]
        incr rexmit [$tcp($i) set nrexmitpack_]
        incr timeouts [$tcp($i) set nrexmit_]
    }
    set window_s [expr {$opt(duration) - $opt(warmup)}]
    set goodput [expr {$acked * $opt(packet_bytes) * 8.0 / $window_s / 1000.0}]
    set integ [$qmon get-pkts-integrator]
    $integ newpoint [$ns_ now] [$qmon set pkts_]
    set queue_mean [expr {[$integ set sum_] / [$ns_ now]}]
    set drops [$qmon set pdrops_]
    if {$early_qmon ne ""} {
        set early [$early_qmon set pdrops_]
    } elseif {$qtrace_name ne ""} {
        $ns_ flush-trace
        close $qtrace
        set early [rem_early_drops $qtrace_name]
        file delete $qtrace_name
    } else {
        set early 0
    }
    puts [format {result {"goodput_kbps": %.3f, "sent": %d, "retransmitted": %d, "timeouts": %d, "queue_mean": %.4f, "drops": %d, "early_drops": %d, "overflow_drops": %d}} \
        $goodput $sent $rexmit $timeouts $queue_mean $drops $early [expr {$drops - $early}]]
    exit 0
}
$ns_ at $opt(duration) "finish"
$ns_ run
