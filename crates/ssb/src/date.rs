//! The `date` dimension (`DateGenerator` → [`Date`] rows) and the day calendar that the
//! lineorder dates are taken from.

use std::fmt;

use crate::partition::{partition_range, PartitionIter};
use crate::scale::Scale;
use crate::text::{display_via, push_u64, InlineStr};
use crate::Result;

/// Days in dbgen's calendar (`TOTDATE`): 1992-01-01 ..= 1998-12-31.
pub(crate) const CALENDAR_DAYS: usize = 2557;
/// 1992-01-01 was a Wednesday (`tm_wday` 3).
const FIRST_WDAY: u32 = 3;

const fn is_leap(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

const fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// (year, month 1..=12, day 1..=31, day of year 1..=366) of the day `offset` days after
/// 1992-01-01.
const fn civil(offset: u32) -> (u32, u32, u32, u32) {
    let mut year = 1992;
    let mut rest = offset;
    loop {
        let len = if is_leap(year) { 366 } else { 365 };
        if rest < len {
            break;
        }
        rest -= len;
        year += 1;
    }
    let yday = rest + 1;
    let mut month = 1;
    loop {
        let len = days_in_month(year, month);
        if rest < len {
            break;
        }
        rest -= len;
        month += 1;
    }
    (year, month, rest + 1, yday)
}

const fn build_calendar() -> [u32; CALENDAR_DAYS] {
    let mut out = [0u32; CALENDAR_DAYS];
    let mut i = 0;
    while i < CALENDAR_DAYS {
        let (y, m, d, _) = civil(i as u32);
        out[i] = y * 10_000 + m * 100 + d;
        i += 1;
    }
    out
}

/// `yyyymmdd` of 1992-01-01 + index (dbgen's `asc_date` table).
pub(crate) static CALENDAR: [u32; CALENDAR_DAYS] = build_calendar();

/// dbgen's month names, misspellings included.
const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "Augest",
    "September",
    "Octorber",
    "November",
    "December",
];

const WEEKDAY_NAMES: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// (month, day) of dbgen's ten holidays.
const HOLIDAYS: [(u32, u32); 10] = [
    (12, 24),
    (1, 1),
    (2, 20),
    (4, 20),
    (5, 20),
    (7, 20),
    (8, 20),
    (9, 20),
    (10, 20),
    (11, 20),
];

/// Selling season by month (dbgen's season table, first match: Christmas covers November
/// and December, Spring is April, Summer May–August, Fall September–October, Winter
/// January–March).
fn selling_season(month: u32) -> &'static str {
    match month {
        11 | 12 => "Christmas",
        5..=8 => "Summer",
        1..=3 => "Winter",
        4 => "Spring",
        _ => "Fall",
    }
}

/// One row of the `date` table. Field values are exactly what dbgen prints, quirks
/// included (see the crate documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Date {
    /// `d_datekey`, yyyymmdd.
    pub datekey: u32,
    /// `d_date`, e.g. "Augest 3, 1995".
    pub date: InlineStr<18>,
    /// `d_dayofweek`: the name of the *following* day (dbgen's off-by-one).
    pub day_of_week: &'static str,
    /// `d_month` (dbgen's spelling).
    pub month: &'static str,
    /// `d_year`.
    pub year: u16,
    /// `d_yearmonthnum`, yyyymm.
    pub year_month_num: u32,
    /// `d_yearmonth`, e.g. "Aug1995".
    pub year_month: InlineStr<7>,
    /// `d_daynuminweek`, 1..=7 (consistent with `day_of_week`: 1 = Sunday).
    pub day_num_in_week: u8,
    /// `d_daynuminmonth`.
    pub day_num_in_month: u8,
    /// `d_daynuminyear`.
    pub day_num_in_year: u16,
    /// `d_monthnuminyear`.
    pub month_num_in_year: u8,
    /// `d_weeknuminyear`: day-of-year / 7 + 1.
    pub week_num_in_year: u8,
    /// `d_sellingseason`.
    pub selling_season: &'static str,
    /// `d_lastdayinweekfl` (1 when `day_num_in_week` is 7).
    pub last_day_in_week_fl: u8,
    /// `d_lastdayinmonthfl` as dbgen prints it: **0** on the last day of a month, 1 otherwise.
    pub last_day_in_month_fl: u8,
    /// `d_holidayfl`.
    pub holiday_fl: u8,
    /// `d_weekdayfl` (0 when `day_num_in_week` is 1 or 7).
    pub weekday_fl: u8,
}

impl Date {
    /// The date row for dbgen's row index `index` (1-based): the day `index − 1` days after
    /// 1992-01-01.
    fn from_index(index: u64) -> Self {
        let offset = (index - 1) as u32;
        let (year, month, day, yday) = civil(offset);
        let wday = (FIRST_WDAY + offset) % 7;
        let day_num_in_week = (wday + 1) % 7 + 1;
        let month_name = MONTH_NAMES[(month - 1) as usize];
        let mut date = InlineStr::new();
        date.push_bytes(month_name.as_bytes());
        date.push(b' ');
        date.push_decimal(u64::from(day));
        date.push_bytes(b", ");
        date.push_decimal(u64::from(year));
        let mut year_month = InlineStr::new();
        year_month.push_bytes(&month_name.as_bytes()[..3]);
        year_month.push_decimal(u64::from(year));
        Self {
            datekey: year * 10_000 + month * 100 + day,
            date,
            day_of_week: WEEKDAY_NAMES[(day_num_in_week - 1) as usize],
            month: month_name,
            year: year as u16,
            year_month_num: year * 100 + month,
            year_month,
            day_num_in_week: day_num_in_week as u8,
            day_num_in_month: day as u8,
            day_num_in_year: yday as u16,
            month_num_in_year: month as u8,
            week_num_in_year: (yday / 7 + 1) as u8,
            selling_season: selling_season(month),
            last_day_in_week_fl: u8::from(day_num_in_week == 7),
            last_day_in_month_fl: u8::from(day != days_in_month(year, month)),
            holiday_fl: u8::from(HOLIDAYS.contains(&(month, day))),
            weekday_fl: u8::from(day_num_in_week != 1 && day_num_in_week != 7),
        }
    }

    /// Appends the `.tbl` line, newline included.
    pub fn write_tbl(&self, out: &mut Vec<u8>) {
        push_u64(out, u64::from(self.datekey));
        out.push(b'|');
        for s in [self.date.as_str(), self.day_of_week, self.month] {
            out.extend_from_slice(s.as_bytes());
            out.push(b'|');
        }
        push_u64(out, u64::from(self.year));
        out.push(b'|');
        push_u64(out, u64::from(self.year_month_num));
        out.push(b'|');
        out.extend_from_slice(self.year_month.as_bytes());
        out.push(b'|');
        for v in [
            u64::from(self.day_num_in_week),
            u64::from(self.day_num_in_month),
            u64::from(self.day_num_in_year),
            u64::from(self.month_num_in_year),
            u64::from(self.week_num_in_year),
        ] {
            push_u64(out, v);
            out.push(b'|');
        }
        out.extend_from_slice(self.selling_season.as_bytes());
        out.push(b'|');
        for v in [
            self.last_day_in_week_fl,
            self.last_day_in_month_fl,
            self.holiday_fl,
            self.weekday_fl,
        ] {
            out.push(b'0' + v);
            out.push(b'|');
        }
        out.push(b'\n');
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display_via(f, |b| self.write_tbl(b))
    }
}

/// Generates the `date` table, or one partition of it.
#[derive(Debug, Clone)]
pub struct DateGenerator {
    start: u64,
    end: u64,
}

impl DateGenerator {
    /// Partition `part` (1-based) of `part_count` of the date table at scale factor `sf`.
    pub fn new(sf: f64, part: usize, part_count: usize) -> Result<Self> {
        Self::with_scale(&Scale::new(sf)?, part, part_count)
    }

    pub(crate) fn with_scale(scale: &Scale, part: usize, part_count: usize) -> Result<Self> {
        let (start, end) = partition_range(scale.date_rows(), part, part_count)?;
        Ok(Self { start, end })
    }

    /// The rows of this partition.
    pub fn iter(&self) -> DateIter {
        PartitionIter::new(self.start, self.end, Date::from_index)
    }
}

impl IntoIterator for &DateGenerator {
    type Item = Date;
    type IntoIter = DateIter;
    fn into_iter(self) -> DateIter {
        self.iter()
    }
}

impl IntoIterator for DateGenerator {
    type Item = Date;
    type IntoIter = DateIter;
    fn into_iter(self) -> DateIter {
        self.iter()
    }
}

/// Iterator over [`Date`] rows.
pub type DateIter = PartitionIter<Date, fn(u64) -> Date>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar_bounds() {
        assert_eq!(CALENDAR[0], 19_920_101);
        assert_eq!(CALENDAR[59], 19_920_229);
        assert_eq!(CALENDAR[CALENDAR_DAYS - 1], 19_981_231);
    }

    #[test]
    fn first_row() {
        let d = Date::from_index(1);
        assert_eq!(
            d.to_string(),
            "19920101|January 1, 1992|Thursday|January|1992|199201|Jan1992|5|1|1|1|1|Winter|0|1|1|1|"
        );
    }
}
