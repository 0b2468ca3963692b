/**
 * Retry-After (RFC 9110 §10.2.3) as delta-seconds or an HTTP-date, read into milliseconds.
 * Shared by the HTTP adapters; pure, `now` passed in.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
// RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms, all in GMT.
const IMF_FIXDATE = /^[A-Z][a-z]{2}, (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC_850 = /^[A-Z][a-z]+, (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME = /^[A-Z][a-z]{2} ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

function utc(year: number, month: string, day: string, h: string, m: string, s: string): number | null {
  const monthIndex = MONTHS.indexOf(month);
  const [dd, hh, mm, ss] = [Number(day.trim()), Number(h), Number(m), Number(s)];
  if (monthIndex < 0 || dd < 1 || dd > 31 || hh > 23 || mm > 59 || ss > 60) return null;
  const ms = Date.UTC(year, monthIndex, dd, hh, mm, ss);
  // Date.UTC rolls 31 Feb into March; a real HTTP-date never needs that.
  return new Date(ms).getUTCDate() === dd ? ms : null;
}

function parseHttpDate(value: string): number | null {
  const imf = IMF_FIXDATE.exec(value);
  if (imf !== null) {
    const [, day = '', month = '', year = '', h = '', m = '', s = ''] = imf;
    return utc(Number(year), month, day, h, m, s);
  }
  const rfc850 = RFC_850.exec(value);
  if (rfc850 !== null) {
    const [, day = '', month = '', yy = '', h = '', m = '', s = ''] = rfc850;
    // RFC 9110 reads a two-digit year as the nearest past century within 50 years; reading
    // 70-99 as 19xx agrees with that until 2070.
    const year = Number(yy) + (Number(yy) >= 70 ? 1900 : 2000);
    return utc(year, month, day, h, m, s);
  }
  const asctime = ASCTIME.exec(value);
  if (asctime !== null) {
    const [, month = '', day = '', h = '', m = '', s = '', year = ''] = asctime;
    return utc(Number(year), month, day, h, m, s);
  }
  return null;
}

/**
 * Reads Retry-After as delta-seconds or an HTTP-date into milliseconds from `nowMs` (never
 * negative); null when absent or malformed, so garbage never becomes a schedule.
 */
export function parseRetryAfterMs(value: string | null | undefined, nowMs: number): number | null {
  if (value === null || value === undefined) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) {
    const seconds = Number(trimmed);
    return Number.isSafeInteger(seconds * 1000) ? seconds * 1000 : null;
  }
  const at = parseHttpDate(trimmed);
  return at === null ? null : Math.max(0, at - nowMs);
}
