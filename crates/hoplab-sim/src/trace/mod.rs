//! Packet traces: every frame put on the air, as a pcap file Wireshark,
//! tcpdump or dpkt read (link type 127: radiotap, then the 802.11 frame).
//! docs/traces.md says what is written and how.
//!
//! The wire encoders are apart from the writer, as in smoltcp: `radiotap`,
//! `ieee80211` (MAC headers, FCS, LLC/SNAP) and `inet` (IPv4, UDP, TCP)
//! turn typed headers into bytes; `encode` puts one frame's record
//! together; `pcap` is the file format. [`Tracer`] is the writer the world
//! calls: it picks the frames (`[trace]`: nodes, time window), streams the
//! records through buffered files, and makes the files appear only when
//! the run has succeeded (it writes to temporary files beside them and
//! renames them at the end; a failed or abandoned run leaves nothing).
//! Temporary files are created exclusively under unguessable names; a
//! target that is a FIFO or a device is written through, never replaced,
//! and a symbolic link is followed to the file it names.
//!
//! Tracing changes nothing simulated: the world calls the tracer after the
//! fact, and when a run is not traced the world only checks an `Option`.

pub mod config;
pub mod encode;
pub mod ieee80211;
pub mod inet;
pub mod pcap;
pub mod radiotap;

pub use config::TraceConfig;
pub use encode::EncodeParams;

use crate::time::SimTime;
use crate::wire::{Frame, NodeId};
use pcap::PcapWriter;
use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why a trace could not be written: the file concerned and the error.
#[derive(Debug)]
pub struct TraceError {
    pub path: PathBuf,
    pub error: io::Error,
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.error)
    }
}

/// The receive trace of `node` beside the trace `path`: `.rx<N>` before the
/// extension (`run.pcap` -> `run.rx3.pcap`).
pub fn receive_trace_path(path: &Path, node: NodeId) -> PathBuf {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let name = match path.extension() {
        Some(ext) => format!("{stem}.rx{}.{}", node.0, ext.to_string_lossy()),
        None => format!("{stem}.rx{}", node.0),
    };
    path.with_file_name(name)
}

/// One output file: written under a temporary name, renamed when done; or,
/// when the target is a FIFO or a device (`/dev/null`, `/dev/stdout`),
/// written through it (`temp` is None: nothing to rename or remove).
struct TraceFile {
    target: PathBuf,
    temp: Option<PathBuf>,
    writer: Option<PcapWriter<BufWriter<File>>>,
    /// Renamed to `target`: nothing to remove.
    renamed: bool,
}

/// Temporary names are unique within the process, too.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A name no one can guess: the process id (so a later run can tell a
/// leftover of a dead process), then 64 bits from the OS's randomness
/// (std seeds every `RandomState` from it) mixed with a counter and the clock.
fn temp_name(name: &std::ffi::OsStr) -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(TEMP_COUNTER.fetch_add(1, Ordering::Relaxed));
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    h.write_u128(nanos);
    format!(".{}.{}-{:016x}.partial", name.to_string_lossy(), std::process::id(), h.finish())
}

/// Where a trace path leads. A FIFO or a device (also through a link, as
/// `/dev/stdout`) is opened and written through; otherwise the regular file
/// (or the name) at the end of any symbolic links, which the run replaces
/// (the link stays); a dangling link or a directory is refused.
enum Destination {
    Through(File),
    Replace(PathBuf),
}

fn destination(target: &Path) -> io::Result<Destination> {
    // `/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N` name an open file: a
    // redirected stdout is a regular file the shell holds, written through
    // (replacing it would leave the shell writing to a file no longer there).
    if target.starts_with("/dev") || target.starts_with("/proc") {
        return Ok(Destination::Through(std::fs::OpenOptions::new().write(true).open(target)?));
    }
    match std::fs::metadata(target) {
        Ok(m) if m.is_dir() => Err(io::Error::new(io::ErrorKind::InvalidInput, "is a directory, not a file")),
        Ok(m) if !m.is_file() => Ok(Destination::Through(std::fs::OpenOptions::new().write(true).open(target)?)),
        Ok(_) if target.is_symlink() => Ok(Destination::Replace(std::fs::canonicalize(target)?)),
        Err(e) if e.kind() == io::ErrorKind::NotFound && target.is_symlink() => {
            let to = std::fs::read_link(target).map(|p| p.display().to_string()).unwrap_or_default();
            Err(io::Error::new(io::ErrorKind::NotFound, format!("is a dangling symbolic link (to {to:?})")))
        }
        Ok(_) | Err(_) => Ok(Destination::Replace(target.to_path_buf())),
    }
}

impl TraceFile {
    fn create(target: PathBuf) -> Result<TraceFile, TraceError> {
        let fail = |error: io::Error| TraceError { path: target.clone(), error };
        let real = match destination(&target).map_err(fail)? {
            Destination::Through(file) => {
                let writer = Some(PcapWriter::new(BufWriter::with_capacity(1 << 16, file)).map_err(fail)?);
                return Ok(TraceFile { target, temp: None, writer, renamed: false });
            }
            Destination::Replace(real) => real,
        };
        let Some(name) = real.file_name() else {
            return Err(fail(io::Error::new(io::ErrorKind::InvalidInput, "names no file")));
        };
        let dir = match real.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !dir.is_dir() {
            return Err(fail(io::Error::new(io::ErrorKind::NotFound, format!("directory {} does not exist", dir.display()))));
        }
        // Created exclusively (O_CREAT | O_EXCL: an existing file or a
        // planted symbolic link at that name is an error, never followed).
        let (temp, file) = loop {
            let temp = dir.join(temp_name(name));
            match std::fs::OpenOptions::new().write(true).create_new(true).open(&temp) {
                Ok(file) => break (temp, file),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(fail(e)),
            }
        };
        let mut trace = TraceFile { target: real, temp: Some(temp), writer: None, renamed: false };
        // From here on, dropping `trace` removes the temporary file.
        trace.writer = Some(PcapWriter::new(BufWriter::with_capacity(1 << 16, file)).map_err(fail)?);
        Ok(trace)
    }

    fn write(&mut self, time: SimTime, data: &[u8], original: u32) -> io::Result<()> {
        match &mut self.writer {
            Some(w) => w.write(time.as_nanos(), data, original),
            None => Ok(()),
        }
    }

    /// Flush and close the temporary file.
    fn close(&mut self) -> Result<(), TraceError> {
        if let Some(w) = self.writer.take() {
            let fail = |error: io::Error| TraceError { path: self.target.clone(), error };
            let out = w.finish().map_err(fail)?;
            out.into_inner().map_err(|e| fail(e.into_error()))?;
        }
        Ok(())
    }
}

impl Drop for TraceFile {
    fn drop(&mut self) {
        // Not renamed: a failed or abandoned run leaves nothing behind.
        self.writer = None;
        if let (false, Some(temp)) = (self.renamed, &self.temp) {
            let _ = std::fs::remove_file(temp);
        }
    }
}

/// The packet trace of a run: the frames put on the air by the traced
/// nodes, and with `receptions`, what each traced node received.
pub struct Tracer {
    main: TraceFile,
    /// Per node, its receive trace (empty without `receptions`).
    rx: Vec<Option<TraceFile>>,
    traced: Vec<bool>,
    start: SimTime,
    stop: SimTime,
    params: EncodeParams,
    buf: Vec<u8>,
    /// The first write error; nothing is written after it and the run fails.
    error: Option<TraceError>,
}

impl Tracer {
    /// Create the trace `path` (and the receive traces) for a run of
    /// `nodes` nodes, as `[trace]` says. The files are made under
    /// temporary names; [`Tracer::finish`] gives them their names.
    pub fn create(path: &Path, config: &TraceConfig, nodes: usize, params: EncodeParams) -> Result<Tracer, TraceError> {
        let mut traced = vec![config.nodes.is_empty(); nodes];
        for &n in &config.nodes {
            if let Some(t) = traced.get_mut(n as usize) {
                *t = true;
            }
        }
        let main = TraceFile::create(path.to_path_buf())?;
        let mut rx = Vec::new();
        if config.receptions {
            for (node, &on) in traced.iter().enumerate() {
                let file = if on { Some(TraceFile::create(receive_trace_path(path, NodeId(node as u32)))?) } else { None };
                rx.push(file);
            }
        }
        Ok(Tracer {
            main,
            rx,
            traced,
            start: SimTime::from_secs_f64(config.start_s),
            stop: config.stop_s.map_or(SimTime::MAX, SimTime::from_secs_f64),
            params,
            buf: Vec::with_capacity(256),
            error: None,
        })
    }

    /// Radiotap's TSFT of a frame whose first bit (the PLCP preamble's)
    /// left or reached the node at `first_bit_ns`: microseconds since the
    /// run's start when the MPDU's first bit did.
    fn tsft_us(&self, first_bit_ns: u64) -> u64 {
        (first_bit_ns + self.params.plcp.as_nanos()) / 1000
    }

    fn in_window(&self, now: SimTime) -> bool {
        self.error.is_none() && now >= self.start && now < self.stop
    }

    /// `node` starts transmitting `frame` at `now`. Cold and out of line:
    /// the simulator's hot path only tests the `Option` it is held in.
    #[cold]
    #[inline(never)]
    pub fn transmitted(&mut self, now: SimTime, node: NodeId, frame: &Frame) {
        if !self.in_window(now) || !self.traced[node.index()] {
            return;
        }
        let e = encode::encode(frame, self.tsft_us(now.as_nanos()), false, &self.params, &mut self.buf);
        if let Err(error) = self.main.write(now, &self.buf, e.original_len) {
            self.error = Some(TraceError { path: self.main.target.clone(), error });
        }
    }

    /// `node`'s PHY finished receiving `frame` at `now`, decoded or not.
    #[cold]
    #[inline(never)]
    pub fn received(&mut self, now: SimTime, node: NodeId, frame: &Frame, decoded: bool) {
        if self.rx.is_empty() || !self.in_window(now) {
            return;
        }
        let tsft = self.tsft_us(now.as_nanos().saturating_sub(frame.airtime.as_nanos()));
        let Some(file) = &mut self.rx[node.index()] else { return };
        let e = encode::encode(frame, tsft, !decoded, &self.params, &mut self.buf);
        if let Err(error) = file.write(now, &self.buf, e.original_len) {
            self.error = Some(TraceError { path: file.target.clone(), error });
        }
    }

    /// Close every file and give it its name; the paths written, the trace
    /// first. On an error nothing is left (files already renamed are removed).
    pub fn finish(mut self) -> Result<Vec<PathBuf>, TraceError> {
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        let mut files: Vec<TraceFile> = std::iter::once(self.main).chain(self.rx.into_iter().flatten()).collect();
        for file in &mut files {
            file.close()?;
        }
        let mut done = Vec::new();
        let mut renamed = Vec::new();
        for file in &mut files {
            if let Some(temp) = &file.temp {
                if let Err(error) = std::fs::rename(temp, &file.target) {
                    // Only files this run gave a name; never a FIFO or device written through.
                    for path in &renamed {
                        let _ = std::fs::remove_file(path);
                    }
                    return Err(TraceError { path: file.target.clone(), error });
                }
                file.renamed = true;
                renamed.push(file.target.clone());
            }
            done.push(file.target.clone());
        }
        Ok(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hoplab-trace-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_followed_a_dangling_one_refused_and_temporaries_are_fresh() {
        let dir = scratch("links");
        let real = dir.join("real.pcap");
        std::fs::write(&real, b"old").unwrap();
        std::os::unix::fs::symlink(&real, dir.join("link.pcap")).unwrap();
        let mut file = TraceFile::create(dir.join("link.pcap")).unwrap();
        let temp = file.temp.clone().unwrap();
        assert!(temp.file_name().unwrap().to_string_lossy().starts_with(".real.pcap."));
        file.close().unwrap();
        std::fs::rename(&temp, &file.target).unwrap();
        file.renamed = true;
        assert!(std::fs::symlink_metadata(dir.join("link.pcap")).unwrap().file_type().is_symlink());
        assert_eq!(&std::fs::read(&real).unwrap()[..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        std::os::unix::fs::symlink(dir.join("nowhere"), dir.join("dangling.pcap")).unwrap();
        let error = TraceFile::create(dir.join("dangling.pcap")).err().unwrap();
        assert!(error.to_string().contains("dangling symbolic link"), "{error}");
        assert!(!dir.join("nowhere").exists());
        // Two files for one target never share a temporary name.
        let a = TraceFile::create(dir.join("x.pcap")).unwrap();
        let b = TraceFile::create(dir.join("x.pcap")).unwrap();
        assert_ne!(a.temp, b.temp);
        drop((a, b));
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left.len(), 3, "{left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn receive_traces_sit_beside_the_trace() {
        assert_eq!(receive_trace_path(Path::new("out/run.pcap"), NodeId(3)), PathBuf::from("out/run.rx3.pcap"));
        assert_eq!(receive_trace_path(Path::new("run"), NodeId(12)), PathBuf::from("run.rx12"));
    }
}
