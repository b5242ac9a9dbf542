# The TCP flow of the ns-2.35 reference scripts (chain.tcl, manet.tcl) and
# what they print: sourced after the nodes exist, with `opt` (cc, sack,
# start, warmup, duration, sample_s, packet_bytes), `ns_`, `node_`,
# `tracefd`, and `flow_src` / `flow_dst`, the two end nodes' indices.
# Runs the simulation; prints one line `result {json}` at the end: goodput
# (payload bytes the sender saw acknowledged in [warmup, duration], x 8 /
# window) and the sender's counters.

if {$opt(cc) eq "newreno"} {
    set tcp [new Agent/TCP/Newreno]
} else {
    set tcp [new Agent/TCP/Linux]
    $ns_ at 0.0 "$tcp select_ca $opt(cc)"
}
if {$opt(sack)} {
    set sink [new Agent/TCPSink/Sack1]
} else {
    set sink [new Agent/TCPSink]
}
$ns_ attach-agent $node_($flow_src) $tcp
$ns_ attach-agent $node_($flow_dst) $sink
$ns_ connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns_ at $opt(start) "$ftp start"

set ack_at_warmup 0
proc at_warmup {} {
    global tcp ack_at_warmup
    set ack_at_warmup [$tcp set ack_]
}
$ns_ at $opt(warmup) "at_warmup"

# cwnd_ samples (TCP-Linux's cwnd_ is save_from_linux's: snd_cwnd, or the
# rate-halving bound next_pkts_in_flight_ when that is larger).
set cwnd_n 0
set cwnd_sum 0.0
set cwnd_sumsq 0.0
proc sample_cwnd {} {
    global ns_ tcp opt cwnd_n cwnd_sum cwnd_sumsq
    set w [$tcp set cwnd_]
    incr cwnd_n
    set cwnd_sum [expr {$cwnd_sum + $w}]
    set cwnd_sumsq [expr {$cwnd_sumsq + $w * $w}]
    set next [expr {[$ns_ now] + $opt(sample_s)}]
    if {$next <= $opt(duration) + 1e-9} { $ns_ at $next "sample_cwnd" }
}
$ns_ at [expr {$opt(warmup) + $opt(sample_s)}] "sample_cwnd"

proc finish {} {
    global ns_ tcp opt ack_at_warmup tracefd cwnd_n cwnd_sum cwnd_sumsq
    set ack [$tcp set ack_]
    set cwnd_mean [expr {$cwnd_n ? $cwnd_sum / $cwnd_n : 0.0}]
    set cwnd_var [expr {$cwnd_n ? max(0.0, $cwnd_sumsq / $cwnd_n - $cwnd_mean * $cwnd_mean) : 0.0}]
    set cwnd_cv [expr {$cwnd_mean > 0 ? sqrt($cwnd_var) / $cwnd_mean : 0.0}]
    set window_s [expr {$opt(duration) - $opt(warmup)}]
    set goodput [expr {($ack - $ack_at_warmup) * $opt(packet_bytes) * 8.0 / $window_s / 1000.0}]
    puts [format {result {"goodput_kbps": %.3f, "ack": %d, "ack_at_warmup": %d, "retransmitted": %d, "timeouts": %d, "cwnd_cuts": %d, "cwnd": %.3f, "cwnd_mean": %.4f, "cwnd_cv": %.4f}} \
        $goodput $ack $ack_at_warmup [$tcp set nrexmitpack_] [$tcp set nrexmit_] [$tcp set ncwndcuts_] [$tcp set cwnd_] $cwnd_mean $cwnd_cv]
    $ns_ flush-trace
    close $tracefd
    exit 0
}
$ns_ at $opt(duration) "finish"
$ns_ run
