/**
 * Settings from the environment, checked once at start. A bad setting
 * stops the server with a message that says which and why.
 *
 * | variable          | default                    | meaning                                        |
 * | ----------------- | -------------------------- | ---------------------------------------------- |
 * | `PORT`            | `8000`                     | port to listen on                              |
 * | `HOSTNAME`        | `127.0.0.1`                | address to listen on                           |
 * | `DENO_KV_PATH`    | `.data/auth.sqlite`        | the KV database: users, sessions, limiter      |
 * | `SESSION_SECRET`  | generated in development   | signing secrets, comma-separated, newest first |
 * | `SESSION_STORAGE` | `kv`                       | `kv`, `cookie` or `redis`                      |
 * | `REDIS_URL`       | `redis://127.0.0.1:6379`   | for `SESSION_STORAGE=redis`                    |
 * | `ADMIN_EMAIL`     |                            | with `ADMIN_PASSWORD`: an admin made at start  |
 * | `ADMIN_PASSWORD`  |                            | 8 characters to 72 bytes, as registration asks |
 * | `DENO_ENV`        |                            | `production`: secret needed, `__Host-` cookie  |
 * | `LOGIN_ADDRESS_LIMIT` | `100`                  | failed logins per client address per hour      |
 * | `APP_URL`         | `PUBLIC_URL` if https: or localhost, else `http://localhost:$PORT` | the public origin: passkeys' site, reset links; required in production |
 * | `SMTP_URL`        | (print mail to the console) | `smtps://user:pass@host:465`: send mail by SMTP |
 * | `MAIL_FROM`       | `no-reply@<APP_URL's host>` | the sender of the app's mail                   |
 * | `MAIL_VISIBILITY_MS` | `90000`                 | how long a crashed worker holds a mail before another sends it |
 *
 * @module
 */
import type { SessionStorageKind } from "./sessions.ts";
import { ADDRESS_LIMIT } from "./login_limits.ts";
import {
  fitsBcrypt,
  MAX_PASSWORD_BYTES,
  MIN_PASSWORD_LENGTH,
} from "./passwords.ts";

/** The app's settings. */
export interface Config {
  port: number;
  hostname: string;
  kvPath: string;
  /** From `SESSION_SECRET`; empty when it is not set. */
  secrets: string[];
  storage: SessionStorageKind;
  redisUrl: string;
  admin?: { email: string; password: string };
  production: boolean;
  /**
   * Login attempts per client address per 15 minutes: raise it when many
   * users share one address (an office, a proxy without `trustProxy`).
   */
  loginAddressLimit: number;
  /** The public origin (see `APP_URL`). */
  appUrl: string;
  /** From `SMTP_URL`; without it mail is printed. */
  smtpUrl?: string;
  /** The sender of mail. */
  mailFrom: string;
  /** From `MAIL_VISIBILITY_MS`: a crashed worker's mail waits this long. */
  mailVisibilityMs: number;
}

/** A setting that cannot work; `main.ts` prints it and exits with 1. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** The shortest secret accepted: 32 characters (256 bits of base64 is 43). */
export const MIN_SECRET_LENGTH = 32;

const STORAGES: readonly SessionStorageKind[] = ["kv", "cookie", "redis"];

/** Reads the settings from `env` (a getter such as `Deno.env.get`). */
export function loadConfig(env: (name: string) => string | undefined): Config {
  const production = env("DENO_ENV") === "production";
  const port = Number(env("PORT") ?? 8000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be a port number, not "${env("PORT")}"`);
  }
  const secrets = (env("SESSION_SECRET") ?? "").split(",").map((s) => s.trim())
    .filter((s) => s !== "");
  if (production && secrets.length === 0) {
    throw new ConfigError(
      "SESSION_SECRET is required when DENO_ENV=production. Make one with: " +
        `deno eval "console.log(crypto.randomUUID() + crypto.randomUUID())"`,
    );
  }
  for (const [i, secret] of secrets.entries()) {
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new ConfigError(
        `SESSION_SECRET entry ${i + 1} has ${secret.length} characters; ` +
          `use at least ${MIN_SECRET_LENGTH} random ones`,
      );
    }
  }
  const storage = (env("SESSION_STORAGE") ?? "kv") as SessionStorageKind;
  if (!STORAGES.includes(storage)) {
    throw new ConfigError(
      `SESSION_STORAGE must be one of ${STORAGES.join(", ")}, not "${storage}"`,
    );
  }
  const adminEmail = env("ADMIN_EMAIL");
  const adminPassword = env("ADMIN_PASSWORD");
  if (Boolean(adminEmail) !== Boolean(adminPassword)) {
    throw new ConfigError(
      "Set both ADMIN_EMAIL and ADMIN_PASSWORD, or neither",
    );
  }
  // The admin's password follows the rule registration enforces.
  if (adminPassword && adminPassword.length < MIN_PASSWORD_LENGTH) {
    throw new ConfigError(
      `ADMIN_PASSWORD has ${adminPassword.length} characters; ` +
        `a password needs at least ${MIN_PASSWORD_LENGTH}`,
    );
  }
  if (adminPassword && !fitsBcrypt(adminPassword)) {
    throw new ConfigError(
      `ADMIN_PASSWORD is longer than ${MAX_PASSWORD_BYTES} bytes of UTF-8, ` +
        "more than bcrypt reads",
    );
  }
  const limitText = env("LOGIN_ADDRESS_LIMIT");
  const loginAddressLimit = Number(limitText ?? ADDRESS_LIMIT);
  if (!Number.isSafeInteger(loginAddressLimit) || loginAddressLimit < 1) {
    throw new ConfigError(
      `LOGIN_ADDRESS_LIMIT must be a whole number of at least 1, not "${limitText}"`,
    );
  }
  // One public origin serves passkeys, reset links and the providers'
  // callbacks: without APP_URL, PUBLIC_URL (see oauth.ts) when passkeys
  // can use it (https:, or http: on localhost).
  const publicUrl = env("PUBLIC_URL");
  const appUrlText = env("APP_URL") ??
    (publicUrl &&
        /^(https:\/\/|http:\/\/localhost[:/]|http:\/\/localhost$)/.test(
          publicUrl,
        )
      ? publicUrl
      : undefined);
  if (production && !appUrlText) {
    throw new ConfigError(
      "APP_URL (or an https: PUBLIC_URL) is required when DENO_ENV=production: " +
        "the public origin (https://example.com), for passkeys and password reset links",
    );
  }
  const appUrl = appUrlText ?? `http://localhost:${port}`;
  const parsed = URL.canParse(appUrl) ? new URL(appUrl) : null;
  if (!parsed || parsed.origin !== appUrl.replace(/\/$/, "")) {
    throw new ConfigError(
      `APP_URL must be an origin such as https://example.com, not "${appUrl}"`,
    );
  }
  if (
    parsed.protocol !== "https:" &&
    !(parsed.protocol === "http:" && parsed.hostname === "localhost")
  ) {
    throw new ConfigError(
      `APP_URL must be https: (http: only on localhost, as passkeys need), not "${appUrl}"`,
    );
  }
  const smtpUrl = env("SMTP_URL") || undefined;
  if (smtpUrl && !/^smtps?:\/\//.test(smtpUrl)) {
    throw new ConfigError("SMTP_URL must start with smtp:// or smtps://");
  }
  const visibilityText = env("MAIL_VISIBILITY_MS");
  const mailVisibilityMs = Number(visibilityText ?? 90_000);
  if (!Number.isSafeInteger(mailVisibilityMs) || mailVisibilityMs < 1000) {
    throw new ConfigError(
      `MAIL_VISIBILITY_MS must be a whole number of ms >= 1000, not "${visibilityText}"`,
    );
  }
  return {
    appUrl: parsed.origin,
    mailVisibilityMs,
    smtpUrl,
    mailFrom: env("MAIL_FROM") || `no-reply@${parsed.hostname}`,
    port,
    hostname: env("HOSTNAME") ?? "127.0.0.1",
    kvPath: env("DENO_KV_PATH") ?? ".data/auth.sqlite",
    secrets,
    storage,
    redisUrl: env("REDIS_URL") ?? "redis://127.0.0.1:6379",
    admin: adminEmail && adminPassword
      ? { email: adminEmail, password: adminPassword }
      : undefined,
    production,
    loginAddressLimit,
  };
}

const SECRET_KEY = ["config", "session_secret"];

/**
 * The configured secrets; in development without any, the secret kept in
 * KV (made on first start), so restarts keep everyone signed in.
 */
export async function resolveSecrets(
  kv: Deno.Kv,
  config: Config,
): Promise<{ secrets: string[]; generated: boolean }> {
  if (config.secrets.length > 0) {
    return { secrets: config.secrets, generated: false };
  }
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const fresh = btoa(String.fromCharCode(...bytes));
  // Atomic: two processes starting at once agree on one secret.
  await kv.atomic().check({ key: SECRET_KEY, versionstamp: null })
    .set(SECRET_KEY, fresh).commit();
  const kept = (await kv.get<string>(SECRET_KEY)).value!;
  return { secrets: [kept], generated: true };
}
