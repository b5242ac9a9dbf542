//! Building a world from a validated scenario: place the nodes, attach the
//! mobility model, compute static routes, and give every node its PHY,
//! MAC, queue, hop control and routing protocol, and every flow its
//! transport and application.

use super::{Event, Flow, Layer, Node, World, NODE_TIMERS};
use crate::engine::{EventQueue, RngStreams, StreamPurpose, Timer};
use crate::error::ApiError;
use crate::link::Link;
use crate::mac::hop_control::HopControlKind;
use crate::mac::{Mac, MacTiming};
use crate::mobility::{RandomWaypoint, WaypointParams};
use crate::net::routing::RoutingProtocol;
use crate::net::StaticRoutes;
use crate::phy::air::OnAir;
use crate::phy::reception::ReceptionBuilder;
use crate::phy::{Channel, Phy, RadioModel};
use crate::queue::Interface;
use crate::scenario::{ConfigError, MobilityConfig, RateControlKind, Scenario, Transport};
use crate::stats::FlowStats;
use crate::time::{SimDuration, SimTime};
use crate::topology::Layout;
use crate::transport::semitcp::connection::{Pacing, SemiTcpConnection};
use crate::transport::semitcp::matcp::MatcpRateControl;
use crate::transport::semitcp::rate_control::{BinarySearchRateControl, RateControlAlgorithm};
use crate::transport::semitcp::sender::SemiTcpSender;
use crate::transport::semitcp::sink::AckQueue;
use crate::transport::tcp::connection::TcpConnection;
use crate::transport::tcp::receiver::Receiver as TcpReceiver;
use crate::transport::tcp::sender::Sender as TcpSender;
use crate::wire::NodeId;
use std::collections::{BTreeMap, BTreeSet};

impl World {
    /// Build the world of a validated scenario. Fails (naming the key) if a
    /// flow's endpoints cannot reach each other.
    pub fn build(scenario: &Scenario, seed: u64) -> Result<World, ApiError> {
        let streams = RngStreams::new(seed);
        let radio = RadioModel::from_config(&scenario.radio);
        let moving = !scenario.mobility.is_static();
        let layout = crate::topology::place(&scenario.topology, &radio, &streams, !moving)?;
        let mut warnings = Vec::new();
        let motion = mobility(scenario, &layout, &streams, &mut warnings)?;
        let mut channel = match &motion {
            // The positions at time 0 come from the model (a steady-state
            // start replaces the topology's placement).
            Some(model) => {
                let mut model = model.clone();
                let positions = (0..layout.positions.len()).map(|i| model.position(i, SimTime::ZERO)).collect();
                Channel::new(positions, layout.has_radio.clone(), radio)
            }
            None => Channel::new(layout.positions, layout.has_radio.clone(), radio),
        };
        if let Some(model) = motion {
            channel.set_motion(model);
        }
        let mut queue_warnings = BTreeSet::new();
        let links: Vec<Link> = layout
            .links
            .iter()
            .enumerate()
            .map(|(i, config)| {
                // Queue streams after the nodes' (index = node count + 2 x link + direction).
                let queue = |d: u64| streams.stream(StreamPurpose::Queue, channel.node_count() as u64 + 2 * i as u64 + d);
                let (discipline, key) = match &config.queue {
                    Some(own) => (own, format!("topology.links[{i}].queue")),
                    None => (&scenario.queue, "queue".to_string()),
                };
                queue_warnings.extend(discipline.warning(&Link::interface(config), &key));
                Link::new(config, discipline, streams.stream(StreamPurpose::LinkLoss, i as u64), [queue(0), queue(1)])
            })
            .collect();
        let mut wired_interfaces = BTreeMap::new();
        let mut adjacency = channel.decodable_adjacency();
        for (i, link) in links.iter().enumerate() {
            // A wired link wins over a radio link between the same nodes.
            wired_interfaces.insert((link.a, link.b), (i as u32, 0u8));
            wired_interfaces.insert((link.b, link.a), (i as u32, 1u8));
            adjacency[link.a.index()].push(link.b);
            adjacency[link.b.index()].push(link.a);
        }
        for list in &mut adjacency {
            list.sort();
            list.dedup();
        }
        let timing = MacTiming::new(&scenario.mac, &scenario.radio, channel.radio.tx_range_m());
        // Routes toward every destination, and back to TCP sources for ACKs.
        let destinations: BTreeSet<NodeId> = scenario
            .flows
            .iter()
            .flat_map(|f| {
                let reverse = (f.transport != Transport::Udp).then_some(NodeId(f.src));
                std::iter::once(NodeId(f.dst)).chain(reverse)
            })
            .collect();

        let routes = StaticRoutes::compute(&adjacency, destinations);

        let end = SimTime::from_secs_f64(scenario.duration_s);
        let mut flows = Vec::with_capacity(scenario.flows.len());
        let mobile = channel.is_mobile();
        for (i, f) in scenario.flows.iter().enumerate() {
            // Moving nodes may meet later: only fixed ones must be connected.
            let hops = routes.hops(NodeId(f.src), NodeId(f.dst)).or(mobile.then_some(0)).ok_or_else(|| {
                ConfigError::new(
                    format!("flows[{i}].dst"),
                    format!(
                        "node {} cannot reach node {} over wired links and radio links of the {:.0} m decoding range",
                        f.src,
                        f.dst,
                        channel.radio.tx_range_m()
                    ),
                )
            })?;
            let interval = match f.rate_kbps {
                Some(rate_kbps) => SimDuration::from_secs_f64(f.packet_bytes as f64 * 8.0 / (rate_kbps * 1e3)),
                None => SimDuration::ZERO,
            };
            let semitcp = (f.transport == Transport::Semitcp).then(|| {
                let total_segments = f.file_bytes.map(|b| b.div_ceil(f.packet_bytes as u64));
                let sender = SemiTcpSender::new(&scenario.tcp, total_segments)
                    .with_recovery(scenario.semitcp.loss_recovery, scenario.semitcp.rto_backoff);
                // Every segment is acknowledged at once, on its own if out of order.
                let receiver = TcpReceiver::new(false, 1, scenario.tcp.delayed_ack_ms);
                let pacing = match f.rate_control.unwrap_or_default() {
                    RateControlKind::None => Pacing::Buffer,
                    RateControlKind::Fixed => Pacing::Fixed {
                        interval: SimDuration::from_secs_f64(f.packet_bytes as f64 * 8.0 / (f.rate_kbps.unwrap_or(1.0) * 1e3)),
                    },
                    RateControlKind::BinarySearch => match scenario.semitcp.rate_control.algorithm {
                        RateControlAlgorithm::Paper => {
                            let mut rc = BinarySearchRateControl::new(scenario.semitcp.rate_control.clone(), f.packet_bytes);
                            rc.max_rate_kbps = scenario.radio.data_rate_mbps * 1e3;
                            Pacing::BinarySearch(Box::new(rc))
                        }
                        RateControlAlgorithm::Matcp => {
                            Pacing::Matcp(Box::new(MatcpRateControl::new(scenario.semitcp.rate_control.matcp.clone(), f.packet_bytes)))
                        }
                    },
                };
                SemiTcpConnection::new(sender, receiver, pacing, scenario.semitcp.reserved_packets as usize)
                    .with_source_pull(scenario.semitcp.source_pull)
            });
            let tcp = match f.transport {
                Transport::Udp | Transport::Semitcp => None,
                Transport::Tcp => {
                    let cc_config = f.cc.clone().unwrap_or_default();
                    let cc = cc_config.build();
                    let total_segments = f.file_bytes.map(|b| b.div_ceil(f.packet_bytes as u64));
                    let mss_bytes = f.packet_bytes;
                    let sender = TcpSender::new(cc, scenario.tcp.clone(), mss_bytes, total_segments);
                    let tcp = &scenario.tcp;
                    let mut receiver = TcpReceiver::new(tcp.delayed_ack, tcp.delayed_ack_segments, tcp.delayed_ack_ms).with_sack(tcp.sack);
                    if let Some(aid) = cc_config.receiver_aid() {
                        receiver = receiver.with_aid(aid);
                    }
                    Some(TcpConnection::new(sender, receiver))
                }
            };
            flows.push(Flow {
                id: i as u32,
                src: NodeId(f.src),
                dst: NodeId(f.dst),
                transport: f.transport,
                app: f.app,
                packet_bytes: f.packet_bytes,
                interval: interval.max(SimDuration::from_nanos(1)),
                start: SimTime::from_secs_f64(f.start_s),
                stop: f.stop_s.map_or(end, SimTime::from_secs_f64).min(end),
                next_sequence: 0,
                hops,
                stats: FlowStats {
                    loss_classification: tcp.as_ref().filter(|c| c.receiver.has_aid()).map(|_| Box::default()),
                    ..FlowStats::default()
                },
                tcp,
                semitcp,
                timers: [Timer::default(); 2],
                held_acks: (f.transport == Transport::Semitcp && scenario.semitcp.sink_holds_acks)
                    .then(|| AckQueue::new(scenario.semitcp.sink_ack_queue_packets as usize)),
            });
        }

        let routing: Vec<RoutingProtocol> = (0..channel.node_count() as u32)
            .map(|i| RoutingProtocol::build(&scenario.routing, NodeId(i), streams.stream(StreamPurpose::Routing, i as u64), &routes))
            .collect();
        let nodes = build_nodes(scenario, &channel, &streams, &mut queue_warnings);
        warnings.extend(queue_warnings);

        let mut world = World {
            queue: EventQueue::new(),
            timing,
            channel,
            nodes,
            flows,
            routing,
            links,
            wired_interfaces,
            on_air: OnAir::default(),
            next_uid: 0,
            end,
            warmup: SimTime::from_secs_f64(scenario.warmup_s),
            series_interval: SimDuration::from_secs_f64(scenario.stats.series_interval_s),
            series: Vec::new(),
            sampling_ticks: 0,
            trace: None,
            pcap: None,
            hop_dirty: Vec::new(),
            link_failure_by_channel_error: false,
            ll_transit: Default::default(),
            pulls: scenario.flows.iter().any(|f| f.transport == Transport::Semitcp)
                && (scenario.semitcp.sink_holds_acks || scenario.semitcp.source_pull),
            pull_turn: 0,
            room_threshold: scenario.semitcp.mac.congestion_threshold as usize,
            config_hash: scenario.config_hash(),
            name: scenario.name.clone(),
            seed,
            warnings,
            profile: None,
        };
        world.routing_start();
        for i in 0..world.flows.len() {
            let start = world.flows[i].start;
            world.queue.schedule(start, Event::new(i as u32, Layer::App, 0));
        }
        if world.series_interval > SimDuration::ZERO {
            let first = SimTime::ZERO + world.series_interval;
            world.queue.schedule(first, Event::new(0, Layer::Stats, 0));
        }
        Ok(world)
    }
}

/// Every node's PHY (its reception and error models) and MAC (its
/// interface queue, hop-by-hop control and the routing protocol's MAC
/// hooks); a warning for each queue rule the scenario cannot have.
fn build_nodes(scenario: &Scenario, channel: &Channel, streams: &RngStreams, warnings: &mut BTreeSet<String>) -> Vec<Node> {
    // Every 802.11 interface queue: routing packets first (PriQueue);
    // AQM's packet time is the data rate's.
    let mac_interface = Interface {
        capacity_packets: scenario.mac.queue_packets as usize,
        priority_control: true,
        rate_bps: scenario.radio.data_rate_mbps * 1e6,
        delay: SimDuration::ZERO,
    };
    let radios = (0..channel.node_count() as u32).any(|i| channel.has_radio(NodeId(i)));
    if radios {
        warnings.extend(scenario.queue.warning(&mac_interface, "queue"));
    }
    // The routing protocol's interface queue classes (drop-tail only).
    let acks_first = scenario.routing.acks_first_queue().is_some_and(|key| {
        let drop_tail = matches!(scenario.queue, crate::queue::QueueConfig::DropTail);
        if !drop_tail && radios {
            warnings.insert(format!("{key} needs [queue] discipline = \"drop_tail\": the interface queues keep PriQueue's order"));
        }
        drop_tail
    });
    let promiscuous = scenario.routing.promiscuous();
    let reception = ReceptionBuilder::new(&scenario.radio, &channel.radio);
    (0..channel.node_count() as u32)
        .map(|i| {
            let id = NodeId(i);
            let errors = scenario.errors.build(streams.stream(StreamPurpose::ErrorModel, i as u64));
            let mut queue = scenario.queue.build(&mac_interface);
            if acks_first {
                queue.use_cmu_classes();
            }
            let mut mac = Mac::new(
                id,
                queue,
                scenario.mac.cw_min,
                HopControlKind::build(scenario.hop_control()),
                streams.stream(StreamPurpose::Backoff, i as u64),
                streams.stream(StreamPurpose::Queue, i as u64),
            );
            mac.promiscuous = promiscuous;
            let phy = Phy::new(id, reception.build(streams.stream(StreamPurpose::Reception, i as u64)), errors);
            Node { id, phy, mac, timers: [Timer::default(); NODE_TIMERS], drops: BTreeMap::new() }
        })
        .collect()
}

/// The scenario's mobility model for the placed nodes (None: static).
/// Nodes must start inside the area (unless a steady-state start replaces
/// their placement); a zero minimum speed adds a warning (speed decay).
fn mobility(
    scenario: &Scenario,
    layout: &Layout,
    streams: &RngStreams,
    warnings: &mut Vec<String>,
) -> Result<Option<RandomWaypoint>, ConfigError> {
    let MobilityConfig::RandomWaypoint(m) = &scenario.mobility else { return Ok(None) };
    let (width_m, height_m) = scenario.mobility.area_m(scenario.topology.random_area_m());
    let params = WaypointParams {
        min_speed_mps: m.min_speed_mps,
        max_speed_mps: m.max_speed_mps,
        pause: SimDuration::from_secs_f64(m.pause_s),
        start: SimTime::from_secs_f64(m.start_s),
        width_m,
        height_m,
        steady_state: m.steady_state,
    };
    if !params.steady_state {
        for (i, p) in layout.positions.iter().enumerate() {
            let inside = (0.0..=width_m).contains(&p[0]) && (0.0..=height_m).contains(&p[1]);
            if layout.has_radio[i] && !inside {
                return Err(ConfigError::new(
                    "mobility.width_m",
                    format!("node {i} starts at ({}, {}), outside the {width_m} x {height_m} m area nodes move in", p[0], p[1]),
                ));
            }
        }
    }
    if params.min_speed_mps <= 0.0 {
        warnings.push(
            "mobility.min_speed_mps = 0: random waypoint's average speed decays toward zero over the run \
             (Yoon, Liu & Noble 2003); set a positive minimum (and steady_state = true) for a stationary regime"
                .to_string(),
        );
    }
    Ok(Some(RandomWaypoint::new(params, &layout.positions, &layout.has_radio, streams)))
}
