//! Building a world from a validated scenario: place the nodes, attach the
//! mobility model, compute static routes, and give every node its PHY,
//! MAC, queue, hop control and routing protocol, and every flow its
//! transport and application.

use super::{Event, Layer, Node, World, NODE_TIMERS};
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
use crate::scenario::{ConfigError, MobilityConfig, Scenario, Transport};
use crate::time::{SimDuration, SimTime};
use crate::topology::Layout;
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
        let (links, wired_interfaces, adjacency) = wired_links(scenario, &layout.links, &channel, &streams, &mut queue_warnings);
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
        let flows = crate::stack::build::flows(scenario, &routes, channel.is_mobile(), channel.radio.tx_range_m(), end)?;

        let routing: Vec<RoutingProtocol> = (0..channel.node_count() as u32)
            .map(|i| RoutingProtocol::build(&scenario.routing, NodeId(i), streams.stream(StreamPurpose::Routing, i as u64), &routes))
            .collect();
        let reception = ReceptionBuilder::new(&scenario.radio, &channel.radio);
        channel.set_weak_signal_below_w(reception.weak_signal_below_w());
        let nodes = build_nodes(scenario, &channel, &reception, &streams, &mut queue_warnings);
        warnings.extend(queue_warnings);

        let node_count = channel.node_count();
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
            ll_transit: Default::default(),
            arp: match scenario.mac.arp {
                crate::mac::config::ArpMode::Off => Vec::new(),
                crate::mac::config::ArpMode::Ns2 => (0..node_count).map(|i| crate::net::arp::ArpTable::new(NodeId(i as u32))).collect(),
            },
            arp_transit: Default::default(),
            arp_packets_lost: 0,
            node_stack: crate::stack::build::node_stack(scenario),
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

/// The wired links, each node's wired interfaces ((node, next hop) ->
/// (link, direction)), and every node's neighbours over radio and wire
/// (for the static routes); a warning for each queue rule a link cannot
/// have.
fn wired_links(
    scenario: &Scenario,
    configs: &[crate::link::LinkConfig],
    channel: &Channel,
    streams: &RngStreams,
    warnings: &mut BTreeSet<String>,
) -> (Vec<Link>, BTreeMap<(NodeId, NodeId), (u32, u8)>, Vec<Vec<NodeId>>) {
    let links: Vec<Link> = configs
        .iter()
        .enumerate()
        .map(|(i, config)| {
            // Queue streams after the nodes' (index = node count + 2 x link + direction).
            let queue = |d: u64| streams.stream(StreamPurpose::Queue, channel.node_count() as u64 + 2 * i as u64 + d);
            let (discipline, key) = match &config.queue {
                Some(own) => (own, format!("topology.links[{i}].queue")),
                None => (&scenario.queue, "queue".to_string()),
            };
            warnings.extend(discipline.warning(&Link::interface(config), &key));
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
    (links, wired_interfaces, adjacency)
}

/// Every node's PHY (its reception and error models) and MAC (its
/// interface queue, hop-by-hop control and the routing protocol's MAC
/// hooks); a warning for each queue rule the scenario cannot have.
fn build_nodes(
    scenario: &Scenario,
    channel: &Channel,
    reception: &ReceptionBuilder,
    streams: &RngStreams,
    warnings: &mut BTreeSet<String>,
) -> Vec<Node> {
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
            mac.set_promiscuous(promiscuous);
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
