//! `new Date(s).getTime()` and `Date.prototype.toISOString()` for the ISO-8601
//! forms pi writes.

const MS_PER_DAY: i64 = 86_400_000;
/// ECMAScript time values are limited to ±8.64e15 ms (TimeClip).
const MAX_TIME_MS: i64 = 8_640_000_000_000_000;

/// Days since 1970-01-01 of the proleptic Gregorian date (Hinnant's algorithm).
/// `day` may exceed the month length; the excess rolls into the next month.
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400; // [0, 399]
    let mp = i64::from((month + 9) % 12); // March = 0
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Inverse of [`days_from_civil`]: (year, month 1–12, day 1–31).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097; // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Exactly `n` ASCII digits as a number.
    fn digits(&mut self, n: usize) -> Option<u32> {
        let mut v = 0u32;
        for _ in 0..n {
            let d = char::from(self.peek()?).to_digit(10)?;
            v = v * 10 + d;
            self.pos += 1;
        }
        Some(v)
    }
}

/// `new Date(s).getTime()` for ISO-8601 strings with an explicit UTC designator
/// or offset, as pi writes them (`2026-03-01T09:15:02.004Z`). `None` where JS
/// gives `NaN`, or for forms outside the supported subset.
///
/// Supported: `YYYY-MM-DD`, optionally followed by `T` (or `t`) and `HH:MM`,
/// `HH:MM:SS` or `HH:MM:SS.f…` (any number of fraction digits, truncated to
/// milliseconds like V8), then `Z`/`z`, `±HH:MM` or `±HHMM`; also date-only
/// `YYYY`, `YYYY-MM`, `YYYY-MM-DD` (UTC in JS) and expanded years `±YYYYYY`
/// (`-000000` is invalid). Like V8, days 1–31 are accepted for every month and
/// roll over (`2026-02-30` is March 2), `24:00:00` means the next midnight, and
/// results beyond ±8.64e15 ms are invalid. A date-time *without* an offset is
/// local time in JS and gives `None` here.
pub fn iso_millis_to_epoch_ms(s: &str) -> Option<i64> {
    let mut c = Cursor {
        bytes: s.as_bytes(),
        pos: 0,
    };
    let year = match c.peek()? {
        sign @ (b'+' | b'-') => {
            c.pos += 1;
            let y = i64::from(c.digits(6)?);
            if sign == b'-' {
                if y == 0 {
                    return None;
                }
                -y
            } else {
                y
            }
        }
        _ => i64::from(c.digits(4)?),
    };
    let mut month = 1;
    let mut day = 1;
    let mut full_date = false;
    if c.eat(b'-') {
        month = c.digits(2)?;
        if c.eat(b'-') {
            day = c.digits(2)?;
            full_date = true;
        }
    }
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let mut time_ms: i64 = 0;
    let mut offset_ms: i64 = 0;
    if c.peek().is_some() {
        if !full_date || !(c.eat(b'T') || c.eat(b't')) {
            return None;
        }
        let hour = c.digits(2)?;
        if !c.eat(b':') {
            return None;
        }
        let minute = c.digits(2)?;
        let mut second = 0;
        let mut millis = 0u32;
        let mut fraction_nonzero = false;
        if c.eat(b':') {
            second = c.digits(2)?;
            if c.eat(b'.') {
                let start = c.pos;
                while let Some(d) = c.peek().and_then(|b| char::from(b).to_digit(10)) {
                    let k = c.pos - start;
                    if k < 3 {
                        millis = millis * 10 + d;
                    }
                    fraction_nonzero |= d != 0;
                    c.pos += 1;
                }
                let n = c.pos - start;
                if n == 0 {
                    return None;
                }
                for _ in n..3 {
                    millis *= 10;
                }
            }
        }
        let end_of_day = hour == 24 && minute == 0 && second == 0 && !fraction_nonzero;
        if (hour > 23 && !end_of_day) || minute > 59 || second > 59 {
            return None;
        }
        time_ms = i64::from(hour) * 3_600_000
            + i64::from(minute) * 60_000
            + i64::from(second) * 1000
            + i64::from(millis);
        match c.peek()? {
            b'Z' | b'z' => c.pos += 1,
            sign @ (b'+' | b'-') => {
                c.pos += 1;
                let oh = c.digits(2)?;
                c.eat(b':');
                let om = c.digits(2)?;
                if oh > 23 || om > 59 {
                    return None;
                }
                let off = i64::from(oh * 60 + om) * 60_000;
                offset_ms = if sign == b'+' { off } else { -off };
            }
            _ => return None,
        }
        if c.peek().is_some() {
            return None;
        }
    }
    let days = days_from_civil(year, month, 1) + i64::from(day) - 1;
    let t = days * MS_PER_DAY + time_ms - offset_ms;
    (t.abs() <= MAX_TIME_MS).then_some(t)
}

/// `new Date(ms).toISOString()`: `YYYY-MM-DDTHH:MM:SS.mmmZ`, with a signed
/// 6-digit year outside 0000–9999 (`+010000-…`, `-000001-…`).
///
/// JS throws a `RangeError` beyond ±8.64e15 ms; this function still formats
/// such values with the same rules.
pub fn epoch_ms_to_iso(ms: i64) -> String {
    let days = ms.div_euclid(MS_PER_DAY);
    let in_day = ms.rem_euclid(MS_PER_DAY);
    let (year, month, day) = civil_from_days(days);
    let (h, rest) = (in_day / 3_600_000, in_day % 3_600_000);
    let (m, rest) = (rest / 60_000, rest % 60_000);
    let (s, milli) = (rest / 1000, rest % 1000);
    let year_str = if (0..=9999).contains(&year) {
        format!("{year:04}")
    } else if year < 0 {
        format!("-{:06}", year.unsigned_abs())
    } else {
        format!("+{year:06}")
    };
    format!("{year_str}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}
