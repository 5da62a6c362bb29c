/**
 * Registration: a route is validated (when it has input schemas), its
 * middleware composed around its handler once, and the result added to
 * the one matcher (and to the list Bun's native routes are made from).
 * Also the checks of a controller against its route map.
 *
 * @module
 */

import { Route } from "../routes/route.ts";
import type { RouteMap } from "../routes/route_map.ts";
import type { RouteSchemas } from "../routes/schemas.ts";
import { Matcher } from "../matcher/matcher.ts";
import { compose, type Recover, type Terminal } from "./_chain.ts";
import type { Registered } from "./_native_routes.ts";
import {
  type InputOptions,
  type InvalidHandler,
  validated,
} from "./_validate.ts";
import type { Handler, Middleware } from "./types.ts";
import type { Controller } from "./router_types.ts";
import { type EarlyAnswer, earlyAnswerOf } from "./early_answer.ts";

/**
 * A route in the matcher: its composed chain and full pattern, and its
 * first middleware's early answer (see `early_answer.ts`).
 */
export interface RouteEntry {
  run: Terminal;
  pattern: string;
  early: EarlyAnswer | undefined;
}

/** Adds one route (see {@linkcode registry}). */
export type AddRoute = (
  method: string,
  pattern: string,
  middleware: readonly Middleware[],
  handler: Handler,
  schemas?: RouteSchemas,
  onInvalid?: InvalidHandler,
) => void;

/** The routes of one router. */
export interface Registry {
  /** Every route, by method and pattern. */
  matcher: Matcher<RouteEntry>;
  /** Every route as added, for Bun's native routes (`_native_routes.ts`). */
  registered: Registered<RouteEntry>[];
  add: AddRoute;
  /** Whether a route has an early answer (see `early_answer.ts`). */
  readonly early: boolean;
}

/**
 * The routes of a router whose errors `recover` answers, whose routes
 * without an `onInvalid` of their own answer invalid input with
 * `onInvalid`, and whose bodies are read within `input`'s limits.
 */
export function registry(
  recover: Recover,
  options: { onInvalid?: InvalidHandler; input?: InputOptions },
): Registry {
  const { onInvalid: routerOnInvalid, input } = options;
  // Each route keeps its full pattern, given to the context on a match.
  const matcher = new Matcher<RouteEntry>();
  const registered: Registered<RouteEntry>[] = [];
  let early = false;

  function add(
    method: string,
    pattern: string,
    middleware: readonly Middleware[],
    handler: Handler,
    schemas?: RouteSchemas,
    onInvalid?: InvalidHandler,
  ): void {
    // Only a route with input schemas pays for validation.
    if (
      schemas !== undefined &&
      (schemas.params !== undefined || schemas.query !== undefined ||
        schemas.body !== undefined)
    ) {
      handler = validated(
        schemas,
        handler,
        onInvalid ?? routerOnInvalid,
        input,
      );
    }
    // The chain is composed here, once, not per request.
    const entry: RouteEntry = {
      run: compose(middleware, handler as Terminal, recover),
      pattern,
      early: earlyAnswerOf(middleware),
    };
    if (entry.early !== undefined) early = true;
    matcher.add(method, pattern, entry);
    registered.push({ method, pattern, value: entry });
  }

  return {
    matcher,
    registered,
    add,
    get early() {
      return early;
    },
  };
}

/** What an action adds: its whole middleware, handler and `onInvalid`. */
export type Target = [Middleware[], Handler, InvalidHandler | undefined];

/**
 * Reads an action (a handler, or `{ middleware, handler, onInvalid }`),
 * its own middleware after `middleware`; a `TypeError` names the route.
 */
export function toTarget(
  action: unknown,
  middleware: Middleware[],
  name: string,
): Target {
  if (typeof action === "function") {
    return [middleware, action as Handler, undefined];
  }
  if (
    typeof action === "object" && action !== null &&
    typeof (action as { handler?: unknown }).handler === "function"
  ) {
    const { middleware: own = [], handler, onInvalid } = action as {
      middleware?: Middleware[];
      handler: Handler;
      onInvalid?: InvalidHandler;
    };
    if (onInvalid !== undefined && typeof onInvalid !== "function") {
      throw new TypeError(
        `The onInvalid of route "${name}" must be a function`,
      );
    }
    return [[...middleware, ...own], handler, onInvalid];
  }
  throw new TypeError(
    `The action for route "${name}" must be a handler or { middleware, handler }`,
  );
}

/**
 * Checks a controller against its routes, collecting what to add into
 * `out`, so a `TypeError` leaves no route half-mapped. `prefix` is the
 * route names' dotted path, for messages.
 */
export function collect(
  routes: RouteMap,
  controller: Controller,
  middleware: Middleware[],
  prefix: string,
  out: [Route, ...Target][],
): void {
  if (
    typeof controller !== "object" || controller === null ||
    typeof controller.actions !== "object"
  ) {
    throw new TypeError(
      `The controller for "${prefix || "routes"}" needs an "actions" object`,
    );
  }
  const chain = [...middleware, ...(controller.middleware ?? [])];
  const actions = controller.actions as Record<string, unknown>;
  for (const name of Object.keys(actions)) {
    if (!Object.hasOwn(routes, name)) {
      throw new TypeError(
        `Unknown route "${prefix}${name}" in actions; the routes here are: ${
          Object.keys(routes).join(", ")
        }`,
      );
    }
  }
  for (const [name, route] of Object.entries(routes)) {
    const action = actions[name];
    if (route instanceof Route) {
      if (action === undefined) {
        throw new TypeError(
          `No action for route "${prefix}${name}" (${String(route)})`,
        );
      }
      out.push([route, ...toTarget(action, chain, prefix + name)]);
    } else if (action !== undefined) {
      collect(route, action as Controller, chain, `${prefix}${name}.`, out);
    }
  }
}
