//! Why packets are lost: the vocabulary in which every layer reports a
//! drop. The cause is ground truth (docs/metrics.md, "Loss causes"),
//! what loss-differentiation schemes are scored against; it sits at the
//! bottom of the stack so that each layer can name its own drops.

/// Why a packet was lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DropCause {
    /// The interface queue was full (drop-tail, and any discipline's hard
    /// limit), or a routing packet pushed the last data packet out.
    QueueOverflow,
    /// The MAC gave up after its retry limit (collisions, hidden terminals).
    RetryLimit,
    /// The MAC gave up after its retry limit and the last attempt was lost
    /// to the frame error model (a wireless, not a congestion, loss); or a
    /// wired link's random loss.
    ChannelError,
    /// No route to the destination: no static route, or (AODV) the route
    /// discovery failed or the request queue overflowed or timed out.
    NoRoute,
    /// The packet's route broke under it (AODV): its next hop failed or
    /// moved out of range and there was no other way (dropped where the
    /// break was found, or after a failed local repair).
    RouteBreak,
    /// Time to live exhausted.
    Ttl,
    /// A semi-TCP sink holding its ACKs (`[semitcp] sink_holds_acks`, as
    /// ns-2's `TcpSink`) had its ACK queue full: the oldest held ACK is
    /// dropped (ns-2: "ACK_Q_FULL").
    AckQueueOverflow,
    /// Active queue management (RED, REM, PI, BLUE) dropped the packet
    /// early, before the queue was full: a congestion signal.
    AqmDrop,
    /// ARP (`mac.arp = "ns2"`) had not resolved the next hop: the packet
    /// it held for that hop was replaced by a newer one (mac/arp.cc:185-186),
    /// or it gave up after `ARP_MAX_REQUEST_COUNT` requests and the packet
    /// had no transmit-failure callback (mac/arp.cc:145-181). ns-2's
    /// `DROP_IFQ_ARP_FULL` ("ARP").
    ArpUnresolved,
}

impl DropCause {
    /// Every cause, in report order.
    pub const ALL: [DropCause; 9] = [
        DropCause::QueueOverflow,
        DropCause::RetryLimit,
        DropCause::ChannelError,
        DropCause::NoRoute,
        DropCause::RouteBreak,
        DropCause::Ttl,
        DropCause::AckQueueOverflow,
        DropCause::AqmDrop,
        DropCause::ArpUnresolved,
    ];

    /// The name in reports (`losses`, `drops`).
    pub fn name(self) -> &'static str {
        match self {
            DropCause::QueueOverflow => "queue_overflow",
            DropCause::RetryLimit => "retry_limit",
            DropCause::ChannelError => "channel_error",
            DropCause::NoRoute => "no_route",
            DropCause::RouteBreak => "route_break",
            DropCause::Ttl => "ttl",
            DropCause::AckQueueOverflow => "ack_queue_overflow",
            DropCause::AqmDrop => "aqm_drop",
            DropCause::ArpUnresolved => "arp_unresolved",
        }
    }
}
