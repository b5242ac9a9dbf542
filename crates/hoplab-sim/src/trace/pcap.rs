//! The pcap file format (libpcap's, as Wireshark, tcpdump and dpkt read
//! it): a 24-byte file header, then per record a 16-byte header and the
//! captured bytes. Little-endian, nanosecond timestamps (magic
//! `a1b23c4d`): simulated time is integer nanoseconds, and frames at
//! different receivers can be well under a microsecond apart.
//!
//! The writer streams into any `Write` (a `BufWriter<File>` for traces):
//! nothing is held beyond the writer's buffer.

use std::io::{self, Write};

/// The nanosecond-resolution pcap magic number.
pub const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_IEEE802_11_RADIOTAP: radiotap, then the 802.11 frame.
pub const LINKTYPE_IEEE802_11_RADIOTAP: u32 = 127;
/// The largest captured length of a record (libpcap's maximum snapshot length).
pub const SNAPLEN: u32 = 262_144;

/// The file header: magic, version 2.4, GMT offset 0, accuracy 0, snapshot
/// length, link type.
pub fn file_header() -> [u8; 24] {
    let mut h = [0u8; 24];
    h[0..4].copy_from_slice(&MAGIC_NANOS.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    h[16..20].copy_from_slice(&SNAPLEN.to_le_bytes());
    h[20..24].copy_from_slice(&LINKTYPE_IEEE802_11_RADIOTAP.to_le_bytes());
    h
}

/// A record header: seconds and nanoseconds of `time_ns`, the captured
/// and the original length.
pub fn record_header(time_ns: u64, captured: u32, original: u32) -> [u8; 16] {
    let mut h = [0u8; 16];
    h[0..4].copy_from_slice(&((time_ns / 1_000_000_000) as u32).to_le_bytes());
    h[4..8].copy_from_slice(&((time_ns % 1_000_000_000) as u32).to_le_bytes());
    h[8..12].copy_from_slice(&captured.to_le_bytes());
    h[12..16].copy_from_slice(&original.to_le_bytes());
    h
}

/// A pcap stream.
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    out: W,
}

impl<W: Write> PcapWriter<W> {
    /// Start a stream: write the file header.
    pub fn new(mut out: W) -> io::Result<PcapWriter<W>> {
        out.write_all(&file_header())?;
        Ok(PcapWriter { out })
    }

    /// Write one record: `data` as captured (cut to [`SNAPLEN`]), of a
    /// packet `original` bytes long.
    pub fn write(&mut self, time_ns: u64, data: &[u8], original: u32) -> io::Result<()> {
        let data = &data[..data.len().min(SNAPLEN as usize)];
        self.out.write_all(&record_header(time_ns, data.len() as u32, original.max(data.len() as u32)))?;
        self.out.write_all(data)
    }

    /// Flush and hand the stream back.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_and_record_headers_are_byte_exact() {
        #[rustfmt::skip]
        let expected = [
            0x4d, 0x3c, 0xb2, 0xa1, // magic (nanoseconds), little-endian
            0x02, 0x00, 0x04, 0x00, // version 2.4
            0, 0, 0, 0, 0, 0, 0, 0, // GMT offset, accuracy
            0x00, 0x00, 0x04, 0x00, // snapshot length 262144
            0x7f, 0x00, 0x00, 0x00, // link type 127
        ];
        assert_eq!(file_header(), expected);
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        w.write(3_000_000_007, &[0xaa, 0xbb], 60).unwrap();
        let bytes = w.finish().unwrap();
        assert_eq!(bytes[24..], [3, 0, 0, 0, 7, 0, 0, 0, 2, 0, 0, 0, 60, 0, 0, 0, 0xaa, 0xbb]);
    }
}
