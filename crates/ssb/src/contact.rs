//! Columns suppliers and customers share: the random address, the nation (and region),
//! the city (nation prefix + digit) and the phone number, drawn as dbgen draws them.

use crate::dists::NATIONS;
use crate::rng::{small_skips, Stream};
use crate::text::InlineStr;

/// Characters of dbgen's random strings (`alpha_num` in `bm_utils.c`), 6 bits each.
const ALPHA_NUM: &[u8; 64] = b"0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,";
/// Address length bounds: `(int)(15 × 0.4)` ..= `(int)(15 × 1.6)`.
const ADDRESS_MIN: i64 = 6;
const ADDRESS_MAX: i64 = 24;
/// The address stream is advanced by exactly this many draws per row.
const ADDRESS_DRAWS: usize = 9;
/// The phone stream's draws per row (area code, exchange, number).
pub(crate) const PHONE_DRAWS: u64 = 3;
/// Cities are the nation name cut or space-padded to this width, then one digit.
const CITY_PREFIX: usize = 9;

const ADDRESS_SKIPS: [u64; ADDRESS_DRAWS + 1] = small_skips();

/// A random address of 6 to 24 characters; the stream then moves on to the next row's
/// position.
pub(crate) fn address(stream: &mut Stream) -> InlineStr<25> {
    let len = stream.uniform(ADDRESS_MIN, ADDRESS_MAX) as usize;
    let mut out = InlineStr::new();
    let mut bits = 0i64;
    let mut draws = 1;
    for i in 0..len {
        if i % 5 == 0 {
            bits = stream.uniform(0, 0x7FFF_FFFF);
            draws += 1;
        }
        out.push(ALPHA_NUM[(bits & 0o77) as usize]);
        bits >>= 6;
    }
    stream.skip_by_multiplier(ADDRESS_SKIPS[ADDRESS_DRAWS - draws]);
    out
}

/// A nation index, uniform over the 25 nations.
pub(crate) fn nation(stream: &mut Stream) -> u8 {
    stream.uniform(0, NATIONS.len() as i64 - 1) as u8
}

/// The city: nation name cut or padded to 9 characters, then a digit 0..=9 drawn from
/// `shared` (dbgen's stream "98", which is out of range and so falls back to stream 0).
pub(crate) fn city(nation: u8, shared: &mut Stream) -> InlineStr<10> {
    let name = NATIONS[usize::from(nation)].0.as_bytes();
    let mut out = InlineStr::new();
    let keep = name.len().min(CITY_PREFIX);
    out.push_bytes(&name[..keep]);
    for _ in keep..CITY_PREFIX {
        out.push(b' ');
    }
    out.push(b'0' + shared.uniform(0, 9) as u8);
    out
}

/// The phone number "CC-AAA-EEE-NNNN" with country code 10 + nation.
pub(crate) fn phone(nation: u8, stream: &mut Stream) -> InlineStr<15> {
    let area = stream.uniform(100, 999) as u64;
    let exchange = stream.uniform(100, 999) as u64;
    let number = stream.uniform(1000, 9999) as u64;
    let mut out = InlineStr::new();
    out.push_padded(10 + u64::from(nation), 2);
    out.push(b'-');
    out.push_padded(area, 3);
    out.push(b'-');
    out.push_padded(exchange, 3);
    out.push(b'-');
    out.push_padded(number, 4);
    out
}
