//! The discrete-event engine: a time-ordered event queue, cancellable timers
//! and named random streams.
//!
//! Ordering guarantee: events pop in increasing time; events scheduled for the
//! same instant pop in the order they were scheduled (a global insertion
//! sequence breaks ties). Together with integer time and per-purpose RNG
//! streams this makes a run a pure function of (scenario, seed).
//!
//! The engine knows nothing of networks: the event type is a parameter.

pub mod bench;
pub mod memory;
mod pending;
pub mod queue;
pub mod rng;
pub mod section;

pub use memory::Holding;
pub use queue::{EventQueue, Timer};
pub use rng::{RngStreams, Stream, StreamPurpose};
pub use section::Section;

/// Where a layer's state machine requests its timers. A request is carried
/// out at once (a layer's outputs are carried out in the order it wrote
/// them, and nothing it writes before a timer request can cause anything
/// before the layer's step ends): re-arming replaces the timer, and an
/// armed timer fires at most once.
pub trait TimerRequests<T> {
    fn arm(&mut self, timer: T, at: crate::time::SimTime);
    fn cancel(&mut self, timer: T);
    /// Arm `timer` for `at` with its event deferred: it takes its place
    /// among simultaneous events now, but gets a queue entry only at
    /// [`TimerRequests::queue_deferred`], which the layer requests as soon
    /// as the timer's end may matter; one never queued does not fire (the
    /// layer knows it would have changed nothing). By default an ordinary
    /// arming.
    fn arm_deferred(&mut self, timer: T, at: crate::time::SimTime) {
        self.arm(timer, at);
    }
    /// Give the deferred `timer` (still armed) its queue entry.
    fn queue_deferred(&mut self, _timer: T) {}
}

/// Timer requests written down in order (tests of a single layer): every
/// arming and cancelling (a deferred arming as an arming, so a test fires
/// every timer as a world that queued each one would), and apart the
/// deferred timers the layer asked to be queued.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedTimers<T> {
    /// (timer, Some(deadline)) for an arming, (timer, None) for a cancel.
    pub requests: Vec<(T, Option<crate::time::SimTime>)>,
    /// The deferred timers given their queue entry, in order.
    pub queued: Vec<T>,
}

impl<T> Default for RecordedTimers<T> {
    fn default() -> Self {
        RecordedTimers { requests: Vec::new(), queued: Vec::new() }
    }
}

impl<T> TimerRequests<T> for RecordedTimers<T> {
    fn arm(&mut self, timer: T, at: crate::time::SimTime) {
        self.requests.push((timer, Some(at)));
    }
    fn cancel(&mut self, timer: T) {
        self.requests.push((timer, None));
    }
    fn queue_deferred(&mut self, timer: T) {
        self.queued.push(timer);
    }
}

/// Where a layer's state machine writes what it wants done (frames to send,
/// timers to arm, indications for the layers above or below), in order.
/// Up to 4 entries (what one input causes, but for rare bursts) live
/// inline, so handling an event does not allocate.
pub type Outputs<T> = smallvec::SmallVec<[T; 4]>;
