/**
 * Table runner for the cases ported from Hono's and Remix's router tests.
 *
 * Hono's routers return every route that matches, in order; ours returns
 * the best one. A case lists what Hono lists (`all`: each route that
 * matches the path when it is the only route, with its params) and, when
 * more than one matches, which one wins here (`best`). Every case runs
 * on the generated matcher and on the interpreter.
 */
import assert from "node:assert/strict";
import { Matcher, setCodegen, SETTLE } from "../matcher/matcher.ts";

/** method (ANY for Hono's ALL), our pattern, the handler's name. */
export type PeerRoute = readonly [
  method: string,
  pattern: string,
  name: string,
];

/** A matching route: its name, or its name and exact params. */
export type PeerHit =
  | string
  | readonly [name: string, params: Readonly<Record<string, string>>];

/** method, path, every route that matches it alone, the one that wins. */
export type PeerRequest =
  | readonly [method: string, path: string, all: readonly PeerHit[]]
  | readonly [
    method: string,
    path: string,
    all: readonly PeerHit[],
    best: string,
  ];

/** One ported `describe`/`it`: routes and the requests made of them. */
export interface PeerCase {
  readonly name: string;
  readonly routes: readonly PeerRoute[];
  readonly requests: readonly PeerRequest[];
}

function build(routes: readonly PeerRoute[]): Matcher<string> {
  const matcher = new Matcher<string>();
  for (const [method, pattern, name] of routes) {
    matcher.add(method, pattern, name);
  }
  // Past SETTLE lookups a table runs its generated code.
  for (let i = 0; i <= SETTLE; i++) {
    for (const method of ["GET", "POST", "HEAD"]) matcher.match(method, "/");
  }
  return matcher;
}

function check(peerCase: PeerCase): number {
  const whole = build(peerCase.routes);
  const alone = peerCase.routes.map((route) => build([route]));
  let count = 0;
  for (const request of peerCase.requests) {
    const [method, path, all] = request;
    const label = `${peerCase.name}: ${method} ${path}`;
    const found: [string, Record<string, string>][] = [];
    for (const matcher of alone) {
      const hit = matcher.match(method, path);
      if (hit !== undefined) found.push([hit.value, { ...hit.params }]);
    }
    assert.deepEqual(
      found.map(([name]) => name).sort(),
      all.map((hit) => typeof hit === "string" ? hit : hit[0]).sort(),
      `${label}: the routes that match`,
    );
    for (const hit of all) {
      if (typeof hit === "string") continue;
      const [name, params] = hit;
      assert.deepEqual(
        found.find(([n]) => n === name)?.[1],
        { ...params },
        `${label}: params of ${name}`,
      );
    }
    if (all.length > 1 && request.length < 4) {
      throw new Error(`${label}: say which route wins`);
    }
    const best = request.length === 4
      ? request[3]
      : all.length === 0
      ? undefined
      : typeof all[0] === "string"
      ? all[0]
      : all[0][0];
    const winner = whole.match(method, path);
    assert.equal(winner?.value, best, `${label}: the route that wins`);
    if (winner !== undefined) {
      assert.deepEqual(
        { ...winner.params },
        found.find(([n]) => n === winner.value)?.[1],
        `${label}: params of the winner`,
      );
    }
    count++;
  }
  return count;
}

/** Registers one `Deno.test` per case, prefixed with `source`. */
export function testPeerCases(
  source: string,
  cases: readonly PeerCase[],
): void {
  for (const peerCase of cases) {
    Deno.test(`${source} › ${peerCase.name}`, () => {
      check(peerCase);
      const previous = setCodegen(false);
      try {
        check(peerCase);
      } finally {
        setCodegen(previous);
      }
    });
  }
}
