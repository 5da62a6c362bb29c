/** Whether `hostname` is a loopback address (`127.0.0.0/8`, `::1`, `localhost`). */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") ||
    host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * `value` as a URL a client may talk to: `https:`, or `http:` on a
 * loopback address only (a provider on 127.0.0.1 in tests and local
 * development). Anything else is a `TypeError` naming `what`.
 */
export function providerUrl(value: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`OAuth: ${what} is not a URL: "${value}"`);
  }
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:" && isLoopback(url.hostname)) return url;
  throw new TypeError(
    `OAuth: ${what} must be https (plain http only on loopback): "${value}"`,
  );
}

/** The longest `returnTo` kept: longer ones are dropped. */
export const MAX_RETURN_TO = 2048;

/**
 * `value` when it is a path on this origin (`/dashboard?tab=1`), else
 * `undefined`: `//evil.example`, `/\evil.example`, `https://...`,
 * control characters and anything over 2048 characters could leave the
 * origin or the log, so they are dropped.
 */
export function localPath(value: string | undefined): string | undefined {
  if (typeof value !== "string" || value.length > MAX_RETURN_TO) return;
  if (!value.startsWith("/") || value.startsWith("//")) return;
  // deno-lint-ignore no-control-regex -- control characters are refused
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return;
  const base = "http://local.invalid";
  const url = new URL(value, base);
  return url.origin === base ? value : undefined;
}
