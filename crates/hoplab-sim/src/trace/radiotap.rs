//! The radiotap header (<https://www.radiotap.org>) that leads every record
//! of a link-type-127 capture: the fields hoplab knows of a frame on the
//! air, little-endian, each aligned to its own size from the header's start.
//!
//! Layout (22 bytes):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 1 | version (0) |
//! | 1 | 1 | pad |
//! | 2 | 2 | header length (22) |
//! | 4 | 4 | present: TSFT, Flags, Rate, Channel (bits 0-3: 0x0000000f) |
//! | 8 | 8 | TSFT: microseconds, first bit of the MPDU (8-aligned) |
//! | 16 | 1 | Flags: 0x10 FCS at end, 0x40 bad FCS |
//! | 17 | 1 | Rate: 500 kbit/s units |
//! | 18 | 2 | Channel frequency, MHz |
//! | 20 | 2 | Channel flags |

/// Header length in bytes.
pub const LEN: usize = 22;

/// Present-word bits.
pub const PRESENT_TSFT: u32 = 1 << 0;
pub const PRESENT_FLAGS: u32 = 1 << 1;
pub const PRESENT_RATE: u32 = 1 << 2;
pub const PRESENT_CHANNEL: u32 = 1 << 3;

/// Flags: the frame ends with its 4-byte FCS.
pub const FLAG_FCS: u8 = 0x10;
/// Flags: the frame failed its FCS check (a reception in error).
pub const FLAG_BAD_FCS: u8 = 0x40;

/// Channel flags.
pub const CHANNEL_CCK: u16 = 0x0020;
pub const CHANNEL_OFDM: u16 = 0x0040;
pub const CHANNEL_2GHZ: u16 = 0x0080;
pub const CHANNEL_5GHZ: u16 = 0x0100;
/// The 900 MHz band (radiotap's "GSM" flag), where ns-2's 914 MHz WaveLAN is.
pub const CHANNEL_900MHZ: u16 = 0x1000;

/// What a radiotap header says of one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Radiotap {
    /// TSFT: microseconds since the run's start when the MPDU's first bit
    /// (after the PLCP preamble and header) left (or reached) the node.
    pub tsft_us: u64,
    pub flags: u8,
    /// Rate in 500 kbit/s units.
    pub rate: u8,
    pub channel_mhz: u16,
    pub channel_flags: u16,
}

impl Radiotap {
    /// Append the header to `buf`.
    pub fn emit(&self, buf: &mut Vec<u8>) {
        buf.extend_from_slice(&[0, 0]);
        buf.extend_from_slice(&(LEN as u16).to_le_bytes());
        buf.extend_from_slice(&(PRESENT_TSFT | PRESENT_FLAGS | PRESENT_RATE | PRESENT_CHANNEL).to_le_bytes());
        buf.extend_from_slice(&self.tsft_us.to_le_bytes());
        buf.push(self.flags);
        buf.push(self.rate);
        buf.extend_from_slice(&self.channel_mhz.to_le_bytes());
        buf.extend_from_slice(&self.channel_flags.to_le_bytes());
    }
}

/// A rate in Mbit/s as radiotap's 500 kbit/s units (rounded, 1..=255).
pub fn rate_units(mbps: f64) -> u8 {
    (mbps * 2.0).round().clamp(1.0, 255.0) as u8
}

/// The channel field of a carrier frequency in Hz at a data rate: the
/// frequency in MHz (rounded, at most 65535), its band flag, and the
/// modulation (CCK for the DSSS / HR-DSSS rates 1, 2, 5.5 and 11 Mbit/s,
/// OFDM for any other).
pub fn channel(frequency_hz: f64, data_rate_mbps: f64) -> (u16, u16) {
    let mhz = (frequency_hz / 1e6).round().clamp(0.0, 65535.0) as u16;
    let band = match mhz {
        2400..=2500 => CHANNEL_2GHZ,
        4900..=5925 => CHANNEL_5GHZ,
        800..=1000 => CHANNEL_900MHZ,
        _ => 0,
    };
    let dsss = [1.0, 2.0, 5.5, 11.0].contains(&data_rate_mbps);
    (mhz, band | if dsss { CHANNEL_CCK } else { CHANNEL_OFDM })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_byte_exact_with_every_field_aligned() {
        let mut buf = Vec::new();
        Radiotap { tsft_us: 0x0102_0304_0506_0708, flags: FLAG_FCS, rate: 4, channel_mhz: 2412, channel_flags: CHANNEL_2GHZ | CHANNEL_CCK }
            .emit(&mut buf);
        assert_eq!(buf.len(), LEN);
        #[rustfmt::skip]
        let expected = [
            0x00, 0x00, 0x16, 0x00,                         // version, pad, length 22
            0x0f, 0x00, 0x00, 0x00,                         // present: TSFT, Flags, Rate, Channel
            0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, // TSFT at 8 (8-aligned), LE
            0x10,                                           // Flags: FCS at end
            0x04,                                           // Rate: 2 Mbit/s
            0x6c, 0x09,                                     // 2412 MHz at 18 (2-aligned)
            0xa0, 0x00,                                     // 2 GHz | CCK
        ];
        assert_eq!(buf, expected);
    }

    #[test]
    fn rates_and_channels() {
        assert_eq!(rate_units(2.0), 4);
        assert_eq!(rate_units(5.5), 11);
        assert_eq!(rate_units(54.0), 108);
        assert_eq!(rate_units(1000.0), 255);
        assert_eq!(channel(914e6, 2.0), (914, CHANNEL_900MHZ | CHANNEL_CCK));
        assert_eq!(channel(2.412e9, 11.0), (2412, CHANNEL_2GHZ | CHANNEL_CCK));
        assert_eq!(channel(5.18e9, 6.0), (5180, CHANNEL_5GHZ | CHANNEL_OFDM));
    }
}
