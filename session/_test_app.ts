// Test helpers: a small app around a session storage, and a cookie jar.

import {
  createContextKey,
  createRouter,
  type Router,
} from "@fetchkit/toolkit/fetch-router";
import {
  type Session,
  session,
  type SessionStorage,
} from "@fetchkit/toolkit/session-middleware";

/** What the test app's handlers report. */
export interface Report {
  id: string;
  value: unknown;
  values: Record<string, unknown>;
}

/** Lets a test hold a handler between reading and saving its session. */
export interface Gate {
  /** Resolves once the handler has loaded the session. */
  loaded: Promise<void>;
  /** Lets the handler return. */
  release(): void;
}

/** Creates a gate; pass it to `app()` under a name used in `?gate=`. */
export function createGate(): Gate & { enter(): Promise<void> } {
  const loaded = Promise.withResolvers<void>();
  const released = Promise.withResolvers<void>();
  return {
    loaded: loaded.promise,
    release: () => released.resolve(),
    enter() {
      loaded.resolve();
      return released.promise;
    },
  };
}

/**
 * A gate that holds every handler until `count` of them have entered it,
 * then lets them all return at once, so that their saves overlap as much
 * as they can.
 */
export function createBarrier(count: number): { enter(): Promise<void> } {
  const released = Promise.withResolvers<void>();
  let entered = 0;
  return {
    enter() {
      if (++entered === count) released.resolve();
      return released.promise;
    },
  };
}

/**
 * Routes: `GET /get/:name`, `GET /all?names=a,b`, `POST /set/:name/:value`,
 * `POST /unset/:name`, `POST /flash/:name/:value`, `POST /regenerate/:delete`,
 * `POST /destroy`, `GET /id`. A `?gate=<name>` query parks the handler on
 * that gate after it ran.
 */
export function app(
  storage: SessionStorage,
  gates: Record<string, { enter(): Promise<void> }> = {},
): Router {
  const Key = createContextKey<Session>();
  const router = createRouter({
    middleware: [session(Key, storage)],
    onError(error) {
      return new Response(String(error), { status: 500 });
    },
  });
  function report(current: Session, value?: unknown): Response {
    const values: Record<string, unknown> = {};
    return Response.json({ id: current.id, value, values } satisfies Report);
  }
  async function wait(url: URL): Promise<void> {
    const gate = url.searchParams.get("gate");
    if (gate !== null) await gates[gate].enter();
  }
  router.get("/id", (context) => report(context.get(Key)!));
  router.get("/get/:name", async (context) => {
    const current = context.get(Key)!;
    await wait(context.url);
    return report(current, current.get(context.params.name!) ?? null);
  });
  router.get("/all", (context) => {
    const current = context.get(Key)!;
    const values: Record<string, unknown> = {};
    for (const name of context.url.searchParams.get("names")!.split(",")) {
      if (current.has(name)) values[name] = current.get(name);
    }
    return Response.json({ id: current.id, value: null, values });
  });
  router.post("/set/:name/:value", async (context) => {
    const current = context.get(Key)!;
    current.set(context.params.name!, context.params.value);
    await wait(context.url);
    return report(current, context.params.value);
  });
  router.post("/unset/:name", (context) => {
    const current = context.get(Key)!;
    current.unset(context.params.name!);
    return report(current);
  });
  router.post("/flash/:name/:value", (context) => {
    const current = context.get(Key)!;
    current.flash(context.params.name!, context.params.value);
    // Not readable in the request that sets it.
    return report(current, current.get(context.params.name!) ?? null);
  });
  router.post("/regenerate/:delete", async (context) => {
    const current = context.get(Key)!;
    current.regenerateId(context.params.delete === "true");
    await wait(context.url);
    return report(current);
  });
  router.post("/destroy", async (context) => {
    const current = context.get(Key)!;
    current.destroy();
    await wait(context.url);
    return new Response("destroyed");
  });
  return router;
}

/** A browser's cookie store for one cookie name, good enough for tests. */
export class Jar {
  cookie: string | undefined;
  constructor(readonly name = "__session") {}

  /** The `Cookie` header to send, if any. */
  headers(): HeadersInit {
    return this.cookie === undefined ? {} : { cookie: this.cookie };
  }

  /** Takes the session cookie from a response, as a browser would. */
  take(response: Response): string | undefined {
    const header = response.headers.getSetCookie().find((line) =>
      line.startsWith(`${this.name}=`)
    );
    if (header === undefined) return undefined;
    const pair = header.split(";")[0];
    this.cookie = /Max-Age=0/.test(header) ? undefined : pair;
    return header;
  }
}

/** Sends a request through `router.fetch` with the jar's cookie. */
export async function send(
  router: Router,
  jar: Jar,
  method: string,
  path: string,
): Promise<{ response: Response; body: Report; setCookie?: string }> {
  const response = await router.fetch(
    new Request(`http://localhost${path}`, { method, headers: jar.headers() }),
  );
  const setCookie = jar.take(response);
  const text = await response.text();
  if (response.status !== 200) {
    throw new Error(`${method} ${path}: ${response.status} ${text}`);
  }
  const body = method === "POST" && path === "/destroy"
    ? { id: "", value: null, values: {} }
    : JSON.parse(text);
  return { response, body, setCookie };
}
