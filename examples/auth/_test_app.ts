// Test helper: the app in-process on an in-memory KV, and a browser-like
// client that keeps cookies and does not follow redirects.
import { createApp } from "./app.ts";
import { createSessionStorage, type SessionStorageKind } from "./sessions.ts";
import type { Router, ServeInfo } from "@fetchkit/toolkit/fetch-router";
import type { RateLimitStore } from "@fetchkit/toolkit/rate-limit-middleware";
import { createConsoleMailer, type Mailer } from "./mailer.ts";
import { createKvJobStore } from "@fetchkit/toolkit/jobs";
import {
  createMailJobs,
  type MailJobs,
  type MailJobsOptions,
} from "./mail_jobs.ts";

export const SECRET = "test-secret-0123456789abcdef0123456789";
export const ORIGIN = "http://app.test";

export interface TestApp {
  app: Router;
  kv: Deno.Kv;
  /** The app's mail queue; its worker runs until `close()`. */
  mailJobs: MailJobs;
  close(): void;
}

/** bcrypt cost 4 keeps tests fast where the cost is not what is tested. */
export async function testApp(
  options: {
    kv?: Deno.Kv;
    storage?: SessionStorageKind;
    cost?: number;
    log?: (line: string) => void;
    rateLimitStore?: RateLimitStore;
    loginAddressLimit?: number;
    development?: boolean;
    appUrl?: string;
    mailer?: Mailer;
    resetTtlMs?: number;
    /** Options of the mail queue (a shorter backoff). */
    mail?: Partial<MailJobsOptions>;
    /** Start no mail worker. Default `false`. */
    noMailWorker?: boolean;
  } = {},
): Promise<TestApp> {
  const kv = options.kv ?? await Deno.openKv(":memory:");
  const sessions = createSessionStorage({
    kind: options.storage ?? "kv",
    kv,
    secrets: [SECRET],
    secure: false,
  });
  const mailJobs = createMailJobs({
    store: createKvJobStore(kv),
    mailer: options.mailer ?? createConsoleMailer(() => {}),
    log: () => {},
    ...options.mail,
  });
  const app = await createApp({
    kv,
    sessions,
    bcryptCost: options.cost ?? 4,
    log: options.log ?? null,
    rateLimitStore: options.rateLimitStore,
    loginAddressLimit: options.loginAddressLimit,
    development: options.development,
    appUrl: options.appUrl,
    mailer: options.mailer,
    mailJobs,
    resetTtlMs: options.resetTtlMs,
    admin: { email: "admin@example.com", password: "admin-password" },
  });
  const worker = options.noMailWorker
    ? undefined
    : mailJobs.work({ pollMs: 20 });
  return {
    app,
    kv,
    mailJobs,
    close() {
      // Stops at once when idle; then the database closes.
      void worker?.stop({ graceMs: 0 });
      kv.close();
    },
  };
}

let clients = 0;

/** A new client address for each client: 10.0.0.1, 10.0.0.2, ... */
function nextAddress(): string {
  const n = ++clients;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/**
 * A client with a cookie jar, as a browser on the same origin, from its
 * own address (the per-address login limit counts by it) unless given one.
 */
export class Client {
  cookies = new Map<string, string>();
  readonly info: ServeInfo;
  constructor(readonly app: Router, readonly address: string = nextAddress()) {
    this.info = {
      remoteAddr: { transport: "tcp", hostname: address, port: 50000 },
    };
  }

  async request(
    path: string,
    init: RequestInit & { form?: Record<string, string> } = {},
  ): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) {
      headers.set(
        "cookie",
        [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      );
    }
    let body = init.body;
    if (init.form) {
      body = new URLSearchParams(init.form);
      headers.set("content-type", "application/x-www-form-urlencoded");
    }
    if (!headers.has("sec-fetch-site")) {
      headers.set("sec-fetch-site", "same-origin");
    }
    const response = await this.app.fetch(
      new Request(ORIGIN + path, { ...init, headers, body }),
      this.info,
    );
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const [name, value] = pair.split("=");
      if (attributes.some((a) => a.trim().toLowerCase() === "max-age=0")) {
        this.cookies.delete(name);
      } else this.cookies.set(name, value);
    }
    return response;
  }

  get(path: string): Promise<Response> {
    return this.request(path);
  }

  post(path: string, form: Record<string, string> = {}): Promise<Response> {
    return this.request(path, { method: "POST", form });
  }

  async register(
    email: string,
    password = "correct horse",
    name = "Ada",
  ): Promise<Response> {
    return await this.post("/auth/register", { email, password, name });
  }

  async login(email: string, password: string, query = ""): Promise<Response> {
    return await this.post(`/auth/login${query}`, { email, password });
  }
}

/** The body as text, and the location of a redirect. */
export async function read(
  response: Response,
): Promise<{ status: number; location: string | null; body: string }> {
  return {
    status: response.status,
    location: response.headers.get("location"),
    body: await response.text(),
  };
}
