/**
 * The cookie-date algorithm of RFC 6265 section 5.1.1: how a browser reads
 * `Expires`, tolerant of the many formats servers send (`Thu, 17-Apr-2014
 * 02:12:29 GMT`, `Oct 18 2011 07:42:42 GMT`, two-digit years), and strict
 * where the RFC is (no hour past 23, no year before 1601).
 *
 * @module
 */

// delimiter = %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E
function isDelimiter(code: number): boolean {
  return code === 0x09 || (code >= 0x20 && code <= 0x2f) ||
    (code >= 0x3b && code <= 0x40) || (code >= 0x5b && code <= 0x60) ||
    (code >= 0x7b && code <= 0x7e);
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

const MONTHS = [
  "jan",
  "feb",
  "mar",
  "apr",
  "may",
  "jun",
  "jul",
  "aug",
  "sep",
  "oct",
  "nov",
  "dec",
];

/**
 * Leading digits of `token`: between `min` and `max` of them, followed by
 * nothing or (when `trailing`) by a non-digit. `undefined` otherwise.
 */
function digits(
  token: string,
  min: number,
  max: number,
  trailing: boolean,
): number | undefined {
  let count = 0;
  while (count < token.length && isDigit(token.charCodeAt(count))) count++;
  if (count < min || count > max) return undefined;
  if (!trailing && count !== token.length) return undefined;
  return Number(token.slice(0, count));
}

/** time = hms-time [ non-digit *OCTET ]; hms-time = 1*2DIGIT ":" 1*2DIGIT ":" 1*2DIGIT */
function parseTime(token: string): [number, number, number] | undefined {
  const parts = token.split(":");
  if (parts.length !== 3) return undefined;
  const hour = digits(parts[0], 1, 2, false);
  const minute = digits(parts[1], 1, 2, false);
  // The seconds may be followed by anything that starts with a non-digit.
  const second = digits(parts[2], 1, 2, true);
  if (hour === undefined || minute === undefined || second === undefined) {
    return undefined;
  }
  return [hour, minute, second];
}

/**
 * Parses a cookie date; `undefined` when the RFC's algorithm fails (then
 * the `Expires` attribute is ignored, as browsers do).
 */
export function parseCookieDate(text: string): Date | undefined {
  // Long garbage cannot make this slow: tokens are split once, each read once.
  const tokens: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const delimiter = i === text.length || isDelimiter(text.charCodeAt(i));
    if (delimiter) {
      if (start !== -1) tokens.push(text.slice(start, i));
      start = -1;
    } else if (start === -1) start = i;
  }
  let time: [number, number, number] | undefined;
  let day: number | undefined;
  let month: number | undefined;
  let year: number | undefined;
  for (const token of tokens) {
    if (time === undefined) {
      const found = parseTime(token);
      if (found !== undefined) {
        time = found;
        continue;
      }
    }
    if (day === undefined) {
      const found = digits(token, 1, 2, true);
      if (found !== undefined) {
        day = found;
        continue;
      }
    }
    if (month === undefined && token.length >= 3) {
      const index = MONTHS.indexOf(token.slice(0, 3).toLowerCase());
      if (index !== -1) {
        month = index;
        continue;
      }
    }
    if (year === undefined) {
      const found = digits(token, 2, 4, true);
      if (found !== undefined) {
        year = found;
        continue;
      }
    }
  }
  if (
    time === undefined || day === undefined || month === undefined ||
    year === undefined
  ) return undefined;
  if (year >= 70 && year <= 99) year += 1900;
  else if (year >= 0 && year <= 69) year += 2000;
  const [hour, minute, second] = time;
  if (
    day < 1 || day > 31 || year < 1601 || hour > 23 || minute > 59 ||
    second > 59
  ) return undefined;
  const date = new Date(Date.UTC(year, month, day, hour, minute, second));
  // Day 31 of a 30-day month (or Feb 30) would roll over: the RFC fails it.
  if (date.getUTCDate() !== day) return undefined;
  return date;
}
