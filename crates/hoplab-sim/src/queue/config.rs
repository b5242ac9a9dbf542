//! `[queue]`: the discipline of every interface queue (each node's 802.11
//! interface and each direction of each wired link), and per link
//! `topology.links[].queue`. The capacity stays the interface's own
//! (`mac.queue_packets`, a link's `queue_packets`).

use super::{blue, drop_tail, pi, red, rem, Blue, DropTail, Interface, Pi, QueueDiscipline, Red, Rem};
use crate::config::{nested, parse_at, parse_tagged, ConfigError};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// `[queue]`: the discipline of every interface queue (802.11 interfaces
/// and both directions of every wired link; a link's own `queue` table
/// overrides it). `discipline` picks it and its keys; the capacity is the
/// interface's (`mac.queue_packets`, a link's `queue_packets`). Early drops
/// of active queue management count as `aqm_drop`, arrivals at a full
/// queue as `queue_overflow`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema, Default)]
#[serde(tag = "discipline", rename_all = "snake_case")]
#[schemars(deny_unknown_fields, transform = drop_tail_by_default)]
pub enum QueueConfig {
    /// Drop-tail (ns-2 `Queue/DropTail`; on 802.11 interfaces
    /// `Queue/DropTail/PriQueue`, routing packets first). No keys.
    #[default]
    DropTail,
    /// Random Early Detection (Floyd & Jacobson 1993) with ns-2's defaults:
    /// gentle, byte mode, automatic thresholds and weight.
    Red(red::Config),
    /// Random Exponential Marking (Athuraliya, Li, Low, Yin 2001), ns-2's
    /// defaults.
    Rem(rem::Config),
    /// The PI controller (Hollot, Misra, Towsley, Gong 2001), ns-2's
    /// defaults (q_ref 50 packets: set it below the queue's capacity).
    Pi(pi::Config),
    /// BLUE (Feng, Shin, Kandlur, Saha 2002).
    Blue(blue::Config),
}

/// The disciplines' names, as `discipline` takes them.
pub const DISCIPLINES: &[&str] = &["drop_tail", "red", "rem", "pi", "blue"];

fn drop_tail_by_default(schema: &mut schemars::Schema) {
    crate::config::optional_tag(schema, "discipline", "drop_tail");
}

impl<'de> Deserialize<'de> for QueueConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        parse_tagged(value, "discipline", Some("drop_tail"), DISCIPLINES, |name, rest| match name {
            "drop_tail" => parse_at::<drop_tail::Config>(rest, "").map(|_| QueueConfig::DropTail),
            "red" => parse_at(rest, "").map(QueueConfig::Red),
            "rem" => parse_at(rest, "").map(QueueConfig::Rem),
            "pi" => parse_at(rest, "").map(QueueConfig::Pi),
            _ => parse_at(rest, "").map(QueueConfig::Blue),
        })
        .map_err(nested)
    }
}

impl QueueConfig {
    pub fn name(&self) -> &'static str {
        match self {
            QueueConfig::DropTail => "drop_tail",
            QueueConfig::Red(_) => "red",
            QueueConfig::Rem(_) => "rem",
            QueueConfig::Pi(_) => "pi",
            QueueConfig::Blue(_) => "blue",
        }
    }

    /// Drop-tail, the default (left out of a normalised scenario, so that
    /// scenarios without `[queue]` keep their `config_hash`).
    pub fn is_drop_tail(&self) -> bool {
        matches!(self, QueueConfig::DropTail)
    }

    /// Range checks; `at` is the table's key (`queue`,
    /// `topology.links[2].queue`).
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        match self {
            QueueConfig::DropTail => Ok(()),
            QueueConfig::Red(c) => c.validate(at),
            QueueConfig::Rem(c) => c.validate(at),
            QueueConfig::Pi(c) => c.validate(at),
            QueueConfig::Blue(c) => c.validate(at),
        }
    }

    /// The discipline for `interface`, in its initial state.
    pub fn build(&self, interface: &Interface) -> QueueDiscipline {
        match self {
            QueueConfig::DropTail => QueueDiscipline::DropTail(DropTail::new(interface.capacity_packets, interface.priority_control)),
            QueueConfig::Red(c) => QueueDiscipline::Red(Red::new(c, interface)),
            QueueConfig::Rem(c) => QueueDiscipline::Rem(Rem::new(c, interface)),
            QueueConfig::Pi(c) => QueueDiscipline::Pi(Pi::new(c, interface)),
            QueueConfig::Blue(c) => QueueDiscipline::Blue(Blue::new(c, interface)),
        }
    }

    /// Something about the discipline on `interface` worth a warning: PI's
    /// reference queue at or above the capacity (only its proportional
    /// part, on the queue's growth, can ever raise the probability).
    pub fn warning(&self, interface: &Interface, at: &str) -> Option<String> {
        match self {
            QueueConfig::Pi(c) if c.qref_packets >= interface.capacity_packets as f64 => Some(format!(
                "{at}.qref_packets = {} is not below the queue's capacity ({} packets): PI's integral action never sees the \
                 queue above its reference, so it cannot hold the queue there and drops few packets early (almost drop-tail); \
                 set qref_packets below the capacity",
                c.qref_packets, interface.capacity_packets
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::QueueDisc;
    use crate::time::SimDuration;

    fn parse(json: &str) -> Result<QueueConfig, ConfigError> {
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        QueueConfig::deserialize(value).map_err(|e| crate::config::unnest("queue".to_string(), &e.to_string()))
    }

    #[test]
    fn each_discipline_parses_with_its_defaults_and_builds() {
        let interface = Interface { capacity_packets: 50, priority_control: true, rate_bps: 2e6, delay: SimDuration::ZERO };
        for name in DISCIPLINES {
            let config = parse(&format!(r#"{{"discipline": "{name}"}}"#)).unwrap();
            assert_eq!(config.name(), *name);
            assert!(config.validate("queue").is_ok());
            assert_eq!(config.build(&interface).name(), *name);
            // The normalised form reads back the same.
            assert_eq!(parse(&serde_json::to_string(&config).unwrap()).unwrap(), config);
        }
        assert_eq!(parse("{}").unwrap(), QueueConfig::DropTail, "discipline defaults to drop_tail");
    }

    #[test]
    fn unknown_keys_and_disciplines_are_errors_naming_the_key() {
        let err = parse(r#"{"discipline": "codel"}"#).unwrap_err();
        assert_eq!(err.key, "queue.discipline");
        assert!(err.message.contains("red") && err.message.contains("blue"), "{}", err.message);
        let err = parse(r#"{"discipline": "red", "gamma": 0.1}"#).unwrap_err();
        assert_eq!(err.key, "queue.gamma");
        assert!(err.message.contains("discipline = \"red\""), "{}", err.message);
        let err = parse(r#"{"discipline": "drop_tail", "linterm": 3}"#).unwrap_err();
        assert_eq!(err.key, "queue.linterm");
        let err = parse(r#"{"discipline": "rem", "phi": "big"}"#).unwrap_err();
        assert_eq!(err.key, "queue.phi");
    }

    #[test]
    fn pi_reference_at_capacity_is_warned_of() {
        let interface = Interface { capacity_packets: 50, priority_control: false, rate_bps: 5e6, delay: SimDuration::ZERO };
        let pi = QueueConfig::Pi(pi::Config::default());
        assert!(pi.warning(&interface, "queue").is_some_and(|w| w.contains("queue.qref_packets")));
        let pi = QueueConfig::Pi(pi::Config { qref_packets: 20.0, ..pi::Config::default() });
        assert_eq!(pi.warning(&interface, "queue"), None);
    }
}
