/**
 * The client's address: what `Deno.serve` (or a Bun or Node adapter)
 * passes as the handler's second argument, and the `trustProxy` setting
 * that reads the client from `X-Forwarded-For` or `Forwarded` when the
 * connection comes from a proxy of the app's own.
 *
 * @module
 */

import {
  formatIp,
  inNetwork,
  type Network,
  parseIp,
  parseNetwork,
} from "./ip_address.ts";

/**
 * The address of the client: `context.remoteAddr`.
 *
 * @example
 * ```ts
 * import type { RemoteAddr } from "@fetchkit/toolkit/fetch-router";
 *
 * const addr: RemoteAddr = { hostname: "192.0.2.1", port: 51234, transport: "tcp" };
 * ```
 */
export interface RemoteAddr {
  /** The IP address, as `"192.0.2.1"` or `"2001:db8::1"` (no brackets). */
  readonly hostname: string;
  /** The client's port; `0` when a proxy named the client without one. */
  readonly port: number;
  /** `"tcp"` (or `"udp"` for HTTP/3). */
  readonly transport: string;
}

/**
 * The second argument of `router.fetch`: `Deno.serve`'s
 * `Deno.ServeHandlerInfo` fits, and so do Bun's `Server` (whose
 * `requestIP()` is used), what `@hono/node-server` passes on Node
 * (`{ incoming }`, the `node:http` request), and an adapter's
 * `{ remoteAddr }`.
 *
 * @example
 * ```ts
 * import type { ServeInfo } from "@fetchkit/toolkit/fetch-router";
 *
 * const info: ServeInfo = {
 *   remoteAddr: { hostname: "127.0.0.1", port: 40000, transport: "tcp" },
 * };
 * ```
 */
export interface ServeInfo {
  /**
   * The peer of the connection. A Unix socket's address has no
   * `hostname`, and gives no `context.remoteAddr`.
   */
  readonly remoteAddr?: {
    readonly hostname?: string;
    readonly port?: number;
    readonly transport: string;
  };
  /** Bun's `server.requestIP(request)`. */
  requestIP?(
    request: Request,
  ): { address: string; port: number; family?: string } | null;
  /** Node through `@hono/node-server`: the `node:http` request. */
  readonly incoming?: {
    readonly socket?: {
      readonly remoteAddress?: string;
      readonly remotePort?: number;
    };
  };
}

/**
 * Which connections come from the app's own proxies, and which header
 * those proxies write: the router option `trustProxy`.
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 *
 * // Behind nginx on the same machine, which appends to X-Forwarded-For.
 * const router = createRouter({ trustProxy: { proxies: ["loopback"] } });
 * router.get("/", ({ remoteAddr }) => new Response(remoteAddr?.hostname ?? "-"));
 * ```
 */
export interface TrustProxyOptions {
  /**
   * The proxies: addresses (`"10.0.0.5"`, `"::1"`), networks
   * (`"10.0.0.0/8"`, `"fd00::/8"`) and the names `"loopback"`
   * (127.0.0.0/8, ::1), `"private"` (10/8, 172.16/12, 192.168/16, fc00::/7)
   * and `"linklocal"` (169.254/16, fe80::/10); or a function that tells
   * whether an address is one of them.
   */
  proxies: readonly string[] | ((address: string) => boolean);
  /**
   * The header the proxies add the client to: `"x-forwarded-for"`
   * (nginx, HAProxy, cloud load balancers) or `"forwarded"` (RFC 7239).
   * Only this one is read: a client can send the other with any value.
   *
   * @default {"x-forwarded-for"}
   */
  header?: "x-forwarded-for" | "forwarded";
}

const NAMED: Record<string, readonly string[]> = {
  loopback: ["127.0.0.0/8", "::1/128"],
  private: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
  linklocal: ["169.254.0.0/16", "fe80::/10"],
};

/** The connection's peer, from what the server passed. */
export function peerOf(
  request: Request,
  info: ServeInfo | undefined,
): RemoteAddr | undefined {
  if (info === undefined || info === null) return undefined;
  const addr = info.remoteAddr;
  if (addr !== undefined) {
    return typeof addr.hostname === "string" && addr.hostname !== ""
      ? addr as RemoteAddr
      : undefined;
  }
  if (typeof info.requestIP === "function") {
    const ip = info.requestIP(request);
    if (ip) return { hostname: ip.address, port: ip.port, transport: "tcp" };
  }
  const socket = info.incoming?.socket;
  if (typeof socket?.remoteAddress === "string") {
    let hostname = socket.remoteAddress;
    // A dual-stack Node socket names IPv4 clients as ::ffff:a.b.c.d.
    if (hostname.startsWith("::ffff:") && hostname.includes(".")) {
      hostname = hostname.slice(7);
    }
    return { hostname, port: socket.remotePort ?? 0, transport: "tcp" };
  }
  return undefined;
}

/** Finds the client of a request, given what the server passed. */
export type RemoteAddrResolver = (
  request: Request,
  info: ServeInfo | undefined,
) => RemoteAddr | undefined;

/** One hop named by a proxy: its address, and its port when given. */
function parseHop(text: string): [Uint16Array, number] | undefined {
  let value = text.trim();
  if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) {
    value = value.slice(1, -1);
  }
  let port = 0;
  if (value.startsWith("[")) {
    const close = value.indexOf("]");
    if (close === -1) return undefined;
    const rest = value.slice(close + 1);
    if (rest.startsWith(":") && /^\d{1,5}$/.test(rest.slice(1))) {
      port = +rest.slice(1);
    } else if (rest !== "") return undefined;
    value = value.slice(1, close);
  } else {
    const colon = value.indexOf(":");
    // One colon: IPv4 with a port. More: IPv6 without brackets.
    if (colon !== -1 && value.indexOf(":", colon + 1) === -1) {
      const digits = value.slice(colon + 1);
      if (!/^\d{1,5}$/.test(digits)) return undefined;
      port = +digits;
      value = value.slice(0, colon);
    }
  }
  if (port > 65535) return undefined;
  const groups = parseIp(value);
  return groups === undefined ? undefined : [groups, port];
}

/** The `for=` values of a `Forwarded` header, nearest hop last. */
function forwardedFor(header: string): (string | undefined)[] {
  return header.split(",").map((element) => {
    for (const pair of element.split(";")) {
      const eq = pair.indexOf("=");
      if (eq !== -1 && pair.slice(0, eq).trim().toLowerCase() === "for") {
        return pair.slice(eq + 1);
      }
    }
    return undefined;
  });
}

/**
 * Builds the resolver for a `trustProxy` setting.
 *
 * The client is found as Express's `trust proxy` does: start from the
 * peer; while the current address is a trusted proxy, step to the hop it
 * names, right to left through the header; stop at the first address
 * that is not a proxy. A hop that is not an address (`unknown`,
 * `_hidden`, garbage) stops the walk at the proxy that wrote it.
 *
 * @throws {TypeError} When a proxy entry is neither an address, a network
 * nor a known name.
 */
export function createRemoteAddrResolver(
  options: TrustProxyOptions | undefined,
): RemoteAddrResolver {
  if (options === undefined) return peerOf;
  if (typeof options !== "object" || options === null) {
    throw new TypeError(
      "createRouter(): trustProxy must be { proxies: [...], header? }",
    );
  }
  const { proxies, header = "x-forwarded-for" } = options;
  if (header !== "x-forwarded-for" && header !== "forwarded") {
    throw new TypeError(
      `createRouter(): trustProxy.header must be "x-forwarded-for" or "forwarded", got ${
        JSON.stringify(header)
      }`,
    );
  }
  let trusted: (groups: Uint16Array, text: string) => boolean;
  if (typeof proxies === "function") {
    trusted = (_groups, text) => proxies(text) === true;
  } else if (Array.isArray(proxies)) {
    const networks: Network[] = [];
    for (const entry of proxies) {
      for (const one of NAMED[entry] ?? [entry]) {
        const network = typeof one === "string" ? parseNetwork(one) : undefined;
        if (network === undefined) {
          throw new TypeError(
            `createRouter(): trustProxy.proxies entry ${
              JSON.stringify(entry)
            } is not an IP address, a network such as "10.0.0.0/8", or one of "loopback", "private", "linklocal"`,
          );
        }
        networks.push(network);
      }
    }
    trusted = (groups) => networks.some((net) => inNetwork(groups, net));
  } else {
    throw new TypeError(
      "createRouter(): trustProxy.proxies must be a list of addresses or networks, or a function",
    );
  }

  return (request, info) => {
    const peer = peerOf(request, info);
    if (peer === undefined) return undefined;
    const peerGroups = parseIp(peer.hostname);
    if (peerGroups === undefined || !trusted(peerGroups, peer.hostname)) {
      return peer;
    }
    const value = request.headers.get(header);
    if (value === null) return peer;
    const hops = header === "forwarded"
      ? forwardedFor(value)
      : value.split(",");
    let client: RemoteAddr = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i] === undefined ? undefined : parseHop(hops[i]!);
      if (hop === undefined) return client;
      const hostname = formatIp(hop[0]);
      client = { hostname, port: hop[1], transport: peer.transport };
      if (!trusted(hop[0], hostname)) return client;
    }
    return client;
  };
}
