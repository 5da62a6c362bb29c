/**
 * Dates in the Common Log Format (`10/Oct/2000:13:55:36 +0000`), for the
 * logger's `%t` token.
 *
 * @module
 */

const MONTHS = [
  "Jan",
  "Feb",
  "Mar",
  "Apr",
  "May",
  "Jun",
  "Jul",
  "Aug",
  "Sep",
  "Oct",
  "Nov",
  "Dec",
];

function pad2(n: number): string {
  return n < 10 ? "0" + n : String(n);
}

/**
 * Formats a time as the Apache common log format does,
 * `dd/Mon/yyyy:HH:mm:ss ±zzzz`, in the local time zone.
 */
export function formatClfDate(time: number): string {
  const date = new Date(time);
  // getTimezoneOffset is minutes *behind* UTC: -60 means +0100.
  const offset = -date.getTimezoneOffset();
  const abs = Math.abs(offset);
  return pad2(date.getDate()) + "/" + MONTHS[date.getMonth()] + "/" +
    String(date.getFullYear()).padStart(4, "0") + ":" +
    pad2(date.getHours()) + ":" + pad2(date.getMinutes()) + ":" +
    pad2(date.getSeconds()) + " " + (offset < 0 ? "-" : "+") +
    pad2(Math.floor(abs / 60)) + pad2(abs % 60);
}
