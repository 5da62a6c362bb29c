/**
 * Serves the example: `deno task dev`, then open http://127.0.0.1:8000.
 * Settings come from the environment (see `config.ts`). `serve()` keeps
 * serving through descriptor exhaustion, and on `SIGTERM`/`SIGINT` lets
 * in-flight requests finish before the KV file and Redis are closed.
 *
 * @module
 */
import { createClient } from "redis";
import {
  createKvRateLimitStore,
  createRedisRateLimitStore,
} from "@fetchkit/toolkit/rate-limit-middleware";
import { PortInUseError, serve, type Server } from "@fetchkit/toolkit/serve";
import { portInUseMessage } from "../_port_hint.ts";
import { createApp } from "./app.ts";
import {
  type Config,
  ConfigError,
  loadConfig,
  resolveSecrets,
} from "./config.ts";
import { createSessionStorage } from "./sessions.ts";
import { createKvJobStore, createRedisJobStore } from "@fetchkit/toolkit/jobs";
import { retryWhileLocked } from "@fetchkit/toolkit/store";
import { createMailJobs } from "./mail_jobs.ts";
import { createConsoleMailer, createSmtpMailer } from "./mailer.ts";
import {
  checkNetAccess,
  loadOAuthProviders,
  type OAuthProvider,
  publicUrlOf,
} from "./oauth.ts";

/**
 * The app's database. Its calls wait out SQLite's lock, for when several
 * processes share the file (a rolling restart).
 */
async function openKv(path: string): Promise<Deno.Kv> {
  const slash = path.lastIndexOf("/");
  if (slash > 0) await Deno.mkdir(path.slice(0, slash), { recursive: true });
  return retryWhileLocked(await Deno.openKv(path));
}

async function connectRedis(url: string) {
  const client = createClient({ url });
  client.on(
    "error",
    (error: Error) => console.error(`Redis: ${error.message}`),
  );
  await client.connect();
  return client;
}

/** The settings, or a one-line reason and exit code 1. */
function loadConfigOrExit(): Config {
  try {
    return loadConfig((name) => Deno.env.get(name));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`Cannot start: ${error.message}`);
    Deno.exit(1);
  }
}

/** The sign-in providers configured (see `oauth.ts`), or exit code 1. */
function loadOAuthOrExit(
  config: Config,
): { providers: OAuthProvider[]; publicUrl: string } {
  const env = (name: string) => Deno.env.get(name);
  try {
    const providers = loadOAuthProviders(env);
    checkNetAccess(providers);
    return { providers, publicUrl: publicUrlOf(env, config) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`Cannot start: ${error.message}`);
    Deno.exit(1);
  }
}

const config = loadConfigOrExit();
const oauth = loadOAuthOrExit(config);
const kv = await openKv(config.kvPath);
const { secrets, generated } = await resolveSecrets(kv, config);
if (generated) {
  console.warn(
    `Warning: SESSION_SECRET is not set; using a development secret kept in ${config.kvPath}`,
  );
}
// With SESSION_STORAGE=redis, the login limits live in Redis too, so
// several servers behind a load balancer share them.
const redis = config.storage === "redis"
  ? await connectRedis(config.redisUrl)
  : undefined;
const sessions = createSessionStorage({
  kind: config.storage,
  kv,
  secrets,
  secure: config.production,
  redis,
});
// Mail (password reset links): SMTP when SMTP_URL is set, else printed.
const smtp = config.smtpUrl
  ? await createSmtpMailer({ url: config.smtpUrl, from: config.mailFrom })
  : undefined;
const mailer = smtp ?? createConsoleMailer();
// Every mail is a durable job on the app's store (Redis with
// SESSION_STORAGE=redis, so every server shares the queue).
const mailJobs = createMailJobs({
  store: redis ? createRedisJobStore(redis) : createKvJobStore(kv),
  mailer,
  visibilityTimeoutMs: config.mailVisibilityMs,
});
const app = await createApp({
  kv,
  appUrl: config.appUrl,
  mailer,
  mailJobs,
  sessions,
  rateLimitStore: redis
    ? createRedisRateLimitStore({ client: redis })
    : createKvRateLimitStore({ client: kv }),
  loginAddressLimit: config.loginAddressLimit,
  admin: config.admin,
  announce: console.log,
  development: !config.production,
  oauthProviders: oauth.providers,
  publicUrl: oauth.publicUrl,
});

let server: Server;
try {
  // The connection info gives the router the client address (`%ip` in
  // the log, the per-address login limit).
  server = serve(app.fetch, {
    hostname: config.hostname,
    port: config.port,
    onListen({ hostname, port }) {
      console.log(`Listening on http://${hostname}:${port}/`);
      // Browsers refuse passkeys on an IP address: point at APP_URL.
      if (!config.production) {
        console.log(`Open ${config.appUrl}/ (passkeys need its host name)`);
      }
    },
  });
} catch (error) {
  if (!(error instanceof PortInUseError)) throw error;
  console.error(
    portInUseMessage(config.port, {
      hostname: config.hostname,
      command: "deno task dev",
    }),
  );
  Deno.exit(1);
}
// The worker stops with the server (SIGTERM): it finishes or hands back
// its mails within the shutdown's grace period.
mailJobs.work();
await server.finished;
smtp?.close();
kv.close();
await redis?.quit();
