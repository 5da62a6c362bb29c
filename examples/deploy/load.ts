/**
 * A bounded load through the proxy, for the rolling-restart test and its
 * benchmark: each client registers, then loops over a plain GET, its
 * dashboard (its session must hold), a form post to the live board and,
 * every fifth round, a sign-in; and it keeps one event stream and one
 * WebSocket open on the board, reconnecting with the last id it saw
 * whenever one closes. Every request's time and outcome is recorded;
 * `stop()` ends the loops, and `settle()` waits until every stream has
 * every posted message.
 *
 * @module
 */

/** One request's outcome. */
export interface Sample {
  /** What: `"GET /"`, `"POST /messages"`... */
  what: string;
  /** When it started (performance.now()). */
  at: number;
  ms: number;
  /** `undefined` when it went as expected, else what went wrong. */
  failure?: string;
}

/** A live connection's record. */
export interface LiveRecord {
  client: number;
  kind: "sse" | "ws";
  /** Message ids received, in order. */
  ids: string[];
  /** Times from a close to the first event of the next connection, ms. */
  resumes: number[];
  /** Connections refused or failed (not counting planned closes). */
  failures: string[];
  /** Connections that delivered their first event. */
  connections: number;
}

/** A running load. */
export interface Load {
  samples: Sample[];
  live: LiveRecord[];
  /** Ids of the messages posted (each answered 201). */
  posted: string[];
  /** Ends the request loops (the streams stay open). */
  stop(): Promise<void>;
  /** Waits until every stream and socket has every posted id (or `limitMs`). */
  settle(limitMs: number): Promise<boolean>;
  /** Closes the streams and sockets. */
  close(): Promise<void>;
  /** Sign-ups answered 503 (the shared KV file locked) and tried again. */
  readonly setupRetries: number;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts `clients` clients against `origin` (HAProxy). */
export async function startLoad(
  origin: string,
  options: { clients?: number; pauseMs?: number } = {},
): Promise<Load> {
  const clients = options.clients ?? 4;
  const pauseMs = options.pauseMs ?? 25;
  const samples: Sample[] = [];
  const live: LiveRecord[] = [];
  const posted: string[] = [];
  let running = true;
  let closing = false;
  const closers: (() => void)[] = [];
  const tag = crypto.randomUUID().slice(0, 8);

  let turn = Promise.resolve();
  let setupRetries = 0;
  async function client(n: number): Promise<void> {
    const cookies = new Map<string, string>();
    const email = `client${n}-${tag}@example.com`;
    async function request(
      what: string,
      path: string,
      init: { method?: string; form?: Record<string, string> },
      expect: (response: Response) => boolean,
    ): Promise<Response | undefined> {
      const headers = new Headers({
        "sec-fetch-site": "same-origin",
        accept: "application/json, text/plain, */*",
      });
      if (cookies.size > 0) {
        headers.set(
          "cookie",
          [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
        );
      }
      let body: URLSearchParams | undefined;
      if (init.form) {
        body = new URLSearchParams(init.form);
        headers.set("content-type", "application/x-www-form-urlencoded");
      }
      const at = performance.now();
      try {
        const response = await fetch(origin + path, {
          method: init.method ?? "GET",
          headers,
          body,
          redirect: "manual",
        });
        for (const line of response.headers.getSetCookie()) {
          const [pair] = line.split(";");
          const [name, value] = pair!.split("=");
          cookies.set(name!, value!);
        }
        const ok = expect(response);
        const text = await response.text();
        samples.push({
          what,
          at,
          ms: performance.now() - at,
          failure: ok ? undefined : `${response.status} ${text.slice(0, 120)}`,
        });
        return ok ? new Response(text, response) : undefined;
      } catch (error) {
        samples.push({
          what,
          at,
          ms: performance.now() - at,
          failure: (error as Error).message,
        });
        return undefined;
      }
    }
    const redirectsTo = (location: string) => (response: Response) =>
      response.status === 303 && response.headers.get("location") === location;
    // Sign-up is set-up, not load: one client at a time, since the users
    // live in one Deno KV (SQLite) file that the three processes share,
    // and writes to it from several processes at once can meet its lock
    // (503 with Retry-After); such an answer is tried again.
    async function register(): Promise<void> {
      for (let attempt = 1;; attempt++) {
        const last = attempt === 10;
        const answer = await request("POST /auth/register", "/auth/register", {
          method: "POST",
          form: { email, password: "correct horse", name: `Client ${n}` },
        }, (r) => redirectsTo("/dashboard")(r) || (!last && r.status === 503));
        if (answer === undefined || answer.status !== 503) return;
        samples.pop();
        setupRetries++;
        await delay(300);
      }
    }
    const mine = turn.then(register);
    turn = mine.catch(() => {});

    await mine;
    for (let round = 0; running; round++) {
      await request("GET /", "/", {}, (r) => r.status === 200);
      await request(
        "GET /dashboard",
        "/dashboard",
        {},
        (r) => r.status === 200,
      );
      const answer = await request("POST /messages", "/messages", {
        method: "POST",
        form: { name: `client${n}`, text: `round ${round}` },
      }, (r) => r.status === 201);
      if (answer !== undefined) posted.push((await answer.json()).id);
      if (round % 5 === 4) {
        await request("POST /auth/login", "/auth/login", {
          method: "POST",
          form: { email, password: "correct horse" },
        }, (r) =>
          r.status === 303 &&
          !(r.headers.get("location") ?? "/auth/login").startsWith(
            "/auth/login",
          ));
      }
      await delay(pauseMs);
    }
  }

  /** An event stream that reconnects with Last-Event-ID. */
  async function eventStream(record: LiveRecord): Promise<void> {
    let last: string | undefined;
    let closedAt: number | undefined;
    const abort = new AbortController();
    closers.push(() => abort.abort());
    while (!closing) {
      try {
        const response = await fetch(origin + "/events", {
          headers: last === undefined ? {} : { "last-event-id": last },
          signal: abort.signal,
        });
        if (response.status !== 200) {
          record.failures.push(`GET /events ${response.status}`);
          await response.body?.cancel();
          await delay(200);
          continue;
        }
        const reader = response.body!.pipeThrough(new TextDecoderStream())
          .getReader();
        closers.push(() => reader.cancel().catch(() => {}));
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf("\n\n")) !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let id: string | undefined;
            let event = "message";
            for (const line of block.split("\n")) {
              if (line.startsWith("id:")) id = line.slice(3).trim();
              else if (line.startsWith("event:")) event = line.slice(6).trim();
            }
            if (id === undefined) continue;
            if (last === undefined || closedAt !== undefined) {
              record.connections++;
            }
            if (closedAt !== undefined) {
              record.resumes.push(performance.now() - closedAt);
              closedAt = undefined;
            }
            last = id;
            if (event === "message") record.ids.push(id);
          }
        }
      } catch (error) {
        if (closing) return;
        record.failures.push(`event stream: ${(error as Error).message}`);
      }
      closedAt ??= performance.now();
    }
  }

  /** A WebSocket that reconnects with ?since=. */
  async function socket(record: LiveRecord): Promise<void> {
    let last: string | undefined;
    let closedAt: number | undefined;
    const wsOrigin = origin.replace(/^http/, "ws");
    while (!closing) {
      await new Promise<void>((resolve) => {
        const ws = new WebSocket(
          `${wsOrigin}/ws${
            last === undefined ? "" : `?since=${encodeURIComponent(last)}`
          }`,
        );
        closers.push(() => ws.close());
        let opened = false;
        ws.onopen = () => opened = true;
        ws.onmessage = (event) => {
          const data = JSON.parse(String(event.data));
          if (data.type === "position") record.connections++;
          if (closedAt !== undefined) {
            record.resumes.push(performance.now() - closedAt);
            closedAt = undefined;
          }
          if (data.type === "position" && data.id) last = data.id;
          if (data.type === "message") {
            last = data.id;
            record.ids.push(data.id);
          }
        };
        ws.onerror = () => {
          if (!opened && !closing) record.failures.push("WebSocket refused");
        };
        ws.onclose = () => {
          closedAt ??= performance.now();
          resolve();
        };
      });
      if (!closing) await delay(50);
    }
  }

  const loops: Promise<void>[] = [];
  const streams: Promise<void>[] = [];
  for (let n = 1; n <= clients; n++) {
    const sse: LiveRecord = {
      client: n,
      kind: "sse",
      ids: [],
      resumes: [],
      failures: [],
      connections: 0,
    };
    const ws: LiveRecord = {
      ...sse,
      kind: "ws",
      ids: [],
      resumes: [],
      failures: [],
    };
    live.push(sse, ws);
    streams.push(eventStream(sse), socket(ws));
  }
  // Every stream and socket subscribes before the first post.
  for (let i = 0; i < 300 && live.some((r) => r.connections === 0); i++) {
    await delay(100);
  }
  for (let n = 1; n <= clients; n++) loops.push(client(n));

  return {
    samples,
    live,
    posted,
    get setupRetries() {
      return setupRetries;
    },
    async stop() {
      running = false;
      await Promise.all(loops);
    },
    async settle(limitMs) {
      const deadline = Date.now() + limitMs;
      while (Date.now() < deadline) {
        if (
          live.every((record) => {
            const seen = new Set(record.ids);
            return posted.every((id) => seen.has(id));
          })
        ) return true;
        await delay(100);
      }
      return false;
    },
    async close() {
      closing = true;
      for (const close of closers) close();
      await Promise.race([Promise.all(streams), delay(5000)]);
    },
  };
}

/** The `q` quantile (0..1) of `values`, in their unit. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
