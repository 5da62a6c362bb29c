/**
 * Log formats compiled once per logger: tokens (`%method`, `%status`, ...)
 * to getters, and a renderer for one line per request.
 *
 * @module
 */

import type { RequestContext } from "../router/context.ts";
import { bodySize } from "../response/body_size.ts";
import { formatClfDate } from "./_date.ts";
import { responseStatusText } from "../http_error/status_text.ts";
import { host, hostname, path, pathname, port, search } from "./_url.ts";
import { type Redactor, redactPath, redactUrl } from "./_redact.ts";
import { RequestId } from "../request_id/mod.ts";
import { isSpanContextValid, trace } from "@opentelemetry/api";
import { ServerSpan } from "../tracing/mod.ts";

/** What a log line may say about the response. */
export interface LoggedResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
}

/**
 * Reads one value for a log line. `time` is the request's start (epoch ms),
 * `duration` its length in ms. An empty string means "absent" and prints `-`.
 */
type Getter = (
  context: RequestContext,
  response: LoggedResponse,
  time: number,
  duration: number,
) => string;

/**
 * Builds a token's getter once per logger, so it may keep a cache;
 * `redact` hides the chosen routes' path parameters.
 */
type TokenFactory = (colors: boolean, redact?: Redactor) => Getter;

/** A getter of a path (with its search), redacted when asked. */
function pathToken(getter: Getter, redact: Redactor | undefined): Getter {
  return fromRequest(
    redact === undefined
      ? getter
      : (context, response, time, duration) =>
        redactPath(redact, getter(context, response, time, duration)),
  );
}

/** A getter of an absolute URL, redacted when asked. */
function urlToken(getter: Getter, redact: Redactor | undefined): Getter {
  return fromRequest(
    redact === undefined ? getter : (context, response, time, duration) => {
      const url = getter(context, response, time, duration);
      return url === "" ? url : redactUrl(redact, url);
    },
  );
}

/** A compiled format: renders one line, and says what must be measured. */
export interface CompiledFormat {
  render: Getter;
  usesTime: boolean;
  usesDuration: boolean;
}

const RESET_FG = "\x1b[39m";
const BOLD = "\x1b[1m";
const RESET_BOLD = "\x1b[22m";

function colorStatus(status: number): string {
  const color = status >= 500
    ? "\x1b[31m" // red
    : status >= 400
    ? "\x1b[33m" // yellow
    : status >= 300
    ? "\x1b[36m" // cyan
    : status >= 200
    ? "\x1b[32m" // green
    : "";
  return color === "" ? String(status) : color + status + RESET_FG;
}

function dateToken(): Getter {
  // The text changes once a second; most requests reuse the last one.
  let second = NaN;
  let text = "";
  return (_context, _response, time) => {
    const now = Math.floor(time / 1000);
    if (now !== second) {
      second = now;
      text = formatClfDate(time);
    }
    return text;
  };
}

function isoDateToken(): Getter {
  // toISOString costs about 1 µs; only the milliseconds change within a
  // second, so the rest is cached.
  let second = NaN;
  let prefix = "";
  return (_context, _response, time) => {
    const now = Math.floor(time / 1000);
    if (now !== second) {
      second = now;
      prefix = new Date(now * 1000).toISOString().slice(0, -4);
    }
    const ms = time - now * 1000;
    return prefix + (ms < 10 ? "00" : ms < 100 ? "0" : "") + ms + "Z";
  };
}

// C0 controls, DEL, C1 controls, and the Unicode line/paragraph separators:
// none may reach a log raw (terminal escapes, forged lines).
// deno-lint-ignore no-control-regex -- matching control characters is the point
const CONTROL = /[\x00-\x1f\x7f-\x9f\u2028\u2029]/;
// deno-lint-ignore no-control-regex -- matching control characters is the point
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u2028\u2029]/g;

function hexEscape(char: string): string {
  const code = char.charCodeAt(0);
  return code > 0xff
    ? "\\u" + code.toString(16).padStart(4, "0")
    : "\\x" + code.toString(16).padStart(2, "0");
}

/**
 * Escapes control characters in a value taken from the request, as common
 * log formats do: ESC becomes the text `\x1b`, a newline `\x0a`, so a
 * client can neither drive the terminal nor forge a log line.
 */
export function escapeControls(value: string): string {
  // Most values have none; the test is cheaper than the replace.
  return CONTROL.test(value) ? value.replace(CONTROLS, hexEscape) : value;
}

/** A getter of request data, with its control characters escaped. */
function fromRequest(getter: Getter): Getter {
  return (context, response, time, duration) =>
    escapeControls(getter(context, response, time, duration));
}

const TOKENS: Record<string, TokenFactory> = {
  date: dateToken,
  dateISO: isoDateToken,
  // Rounded to microseconds: enough precision, and a short field.
  duration: () => (_context, _response, _time, duration) =>
    String(Math.round(duration * 1000) / 1000),
  contentLength: () => (_context, response) => bodySize(response),
  contentType: () => (_context, response) =>
    response.headers.get("Content-Type") ?? "",
  host: () => fromRequest(host),
  hostname: () => fromRequest(hostname),
  ip: () => fromRequest((context) => context.remoteAddr?.hostname ?? ""),
  method: (colors) =>
    colors
      ? (context) => BOLD + escapeControls(context.request.method) + RESET_BOLD
      : (context) => escapeControls(context.request.method),
  path: (_colors, redact) => pathToken(path, redact),
  pathname: (_colors, redact) => pathToken(pathname, redact),
  port: () => fromRequest(port),
  query: () => fromRequest(search),
  referer: (_colors, redact) =>
    urlToken(
      (context) => context.request.headers.get("Referer") ?? "",
      redact,
    ),
  requestId: () => fromRequest((context) => context.get(RequestId) ?? ""),
  search: () => fromRequest(search),
  traceId: () => traceId,
  status: (colors) =>
    colors
      ? (_context, response) => colorStatus(response.status)
      : (_context, response) => String(response.status),
  statusText: () => (_context, response) =>
    responseStatusText(response.status, response.statusText),
  url: (_colors, redact) => urlToken((context) => context.request.url, redact),
  userAgent: () =>
    fromRequest((context) => context.request.headers.get("User-Agent") ?? ""),
};

/**
 * The trace id of the request's span: the one `tracing()` made, else the
 * active span (Deno's own server span under `OTEL_DENO=true`).
 */
function traceId(context: RequestContext): string {
  const span = context.get(ServerSpan) ?? trace.getActiveSpan();
  if (span === undefined) return "";
  const spanContext = span.spanContext();
  return isSpanContextValid(spanContext) ? spanContext.traceId : "";
}

const LETTERS = /[A-Za-z]+/y;

/** The names of all tokens, for documentation and tests. */
export const tokenNames: readonly string[] = Object.keys(TOKENS);

/**
 * Compiles a format string once into a function that renders a log line.
 *
 * A token is `%` followed by a token name and no further letter: `%` and
 * all the letters after it must name a token, else it is an unknown token,
 * a `TypeError` (so `%durationms` is refused rather than printed as the
 * duration followed by `ms`). Any other `%` (before a space, a digit,
 * another `%`, or at the end) is literal text.
 */
export function compileFormat(
  format: string,
  colors: boolean,
  redact?: Redactor,
): CompiledFormat {
  const literals: string[] = [];
  const getters: Getter[] = [];
  let usesTime = false;
  let usesDuration = false;
  let literal = "";
  let i = 0;
  while (i < format.length) {
    const percent = format.indexOf("%", i);
    if (percent === -1) {
      literal += format.slice(i);
      break;
    }
    literal += format.slice(i, percent);
    const start = percent + 1;
    LETTERS.lastIndex = start;
    const word = LETTERS.exec(format)?.[0];
    if (word === undefined) {
      literal += "%";
      i = start;
      continue;
    }
    if (!Object.hasOwn(TOKENS, word)) {
      const prefix = tokenNames.filter((name) => word.startsWith(name))
        .sort((a, b) => b.length - a.length)[0];
      throw new TypeError(
        `Unknown logger token "%${word}" in format "${format}"; ` +
          (prefix === undefined
            ? ""
            : `a token cannot be followed by a letter (write "%${prefix} ${
              word.slice(prefix.length)
            }"); `) +
          `known tokens: ${tokenNames.map((n) => "%" + n).join(", ")}`,
      );
    }
    const name = word;
    literals.push(literal);
    literal = "";
    getters.push(TOKENS[name](colors, redact));
    usesTime ||= name === "date" || name === "dateISO";
    usesDuration ||= name === "duration";
    i = start + name.length;
  }
  literals.push(literal);

  const count = getters.length;
  const first = literals[0];
  const render: Getter = count === 0 ? () => first : (
    context,
    response,
    time,
    duration,
  ) => {
    let line = first;
    for (let t = 0; t < count; t++) {
      line += (getters[t](context, response, time, duration) || "-") +
        literals[t + 1];
    }
    return line;
  };
  return { render, usesTime, usesDuration };
}

/** Fields whose JSON value is a number, not a string. */
const NUMERIC: ReadonlySet<string> = new Set([
  "status",
  "duration",
  "contentLength",
]);

/** The fields of `format: "json"` when none are named. */
export const defaultJsonFields: readonly string[] = [
  "dateISO",
  "method",
  "path",
  "status",
  "duration",
  "contentLength",
  "ip",
  "userAgent",
  "referer",
  "requestId",
  "traceId",
];

/**
 * Compiles a JSON line format: one object per request, a property per
 * field named as its token, `null` for an absent value; `status`,
 * `duration` and `contentLength` are numbers.
 */
export function compileJson(
  fields: readonly string[],
  redact?: Redactor,
): CompiledFormat {
  for (const field of fields) {
    if (!Object.hasOwn(TOKENS, field)) {
      throw new TypeError(
        `Unknown logger field "${field}"; known fields: ${
          tokenNames.join(", ")
        }`,
      );
    }
  }
  const names = [...new Set(fields)];
  const getters = names.map((name) => TOKENS[name](false, redact));
  const numeric = names.map((name) => NUMERIC.has(name));
  const render: Getter = (context, response, time, duration) => {
    const line: Record<string, string | number | null> = {};
    for (let i = 0; i < names.length; i++) {
      const value = getters[i](context, response, time, duration);
      line[names[i]] = value === "" ? null : numeric[i] ? Number(value) : value;
    }
    // Values from the request had their control characters escaped as
    // text, so the line holds no raw newline or terminal escape.
    return JSON.stringify(line);
  };
  return {
    render,
    usesTime: names.includes("date") || names.includes("dateISO"),
    usesDuration: names.includes("duration"),
  };
}
