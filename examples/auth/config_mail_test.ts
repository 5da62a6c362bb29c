// APP_URL, SMTP_URL and MAIL_FROM: checked once at start.
import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "./config.ts";

const env = (values: Record<string, string>) => (name: string) => values[name];
const PRODUCTION = {
  DENO_ENV: "production",
  SESSION_SECRET: "s".repeat(40),
};

Deno.test("APP_URL: http://localhost:$PORT by default; required in production; an https: origin or http: on localhost", () => {
  assert.equal(loadConfig(env({})).appUrl, "http://localhost:8000");
  assert.equal(
    loadConfig(env({ PORT: "8123" })).appUrl,
    "http://localhost:8123",
  );
  assert.throws(() => loadConfig(env(PRODUCTION)), ConfigError);
  assert.throws(
    () => loadConfig(env(PRODUCTION)),
    /APP_URL \(or an https: PUBLIC_URL\) is required when DENO_ENV=production/,
  );
  assert.equal(
    loadConfig(env({ ...PRODUCTION, APP_URL: "https://example.com/" })).appUrl,
    "https://example.com",
  );
  for (const bad of ["example.com", "https://example.com/app", "ftp://x.io"]) {
    assert.throws(
      () => loadConfig(env({ APP_URL: bad })),
      /APP_URL must be/,
      bad,
    );
  }
  assert.throws(
    () => loadConfig(env({ APP_URL: "http://example.com" })),
    /http: only on localhost/,
  );
});

Deno.test("SMTP_URL must be smtp:// or smtps://; MAIL_FROM defaults to no-reply at APP_URL's host", () => {
  const config = loadConfig(env({ APP_URL: "https://auth.example" }));
  assert.equal(config.smtpUrl, undefined);
  assert.equal(config.mailFrom, "no-reply@auth.example");
  assert.equal(
    loadConfig(env({ SMTP_URL: "smtps://u:p@mail.example:465" })).smtpUrl,
    "smtps://u:p@mail.example:465",
  );
  assert.throws(
    () => loadConfig(env({ SMTP_URL: "http://mail.example" })),
    /SMTP_URL must start with smtp:\/\/ or smtps:\/\//,
  );
  assert.equal(
    loadConfig(env({ MAIL_FROM: "Auth <a@b.example>" })).mailFrom,
    "Auth <a@b.example>",
  );
});

Deno.test("APP_URL falls back to PUBLIC_URL when passkeys can use it (https:, or http: on localhost)", () => {
  assert.equal(
    loadConfig(env({ ...PRODUCTION, PUBLIC_URL: "https://auth.example" }))
      .appUrl,
    "https://auth.example",
  );
  assert.equal(
    loadConfig(env({ PUBLIC_URL: "http://localhost:9000" })).appUrl,
    "http://localhost:9000",
  );
  // An address passkeys refuse (the OAuth tests' 127.0.0.1) is not taken.
  assert.equal(
    loadConfig(env({ PUBLIC_URL: "http://127.0.0.1:9000" })).appUrl,
    "http://localhost:8000",
  );
  assert.equal(
    loadConfig(
      env({ APP_URL: "https://a.example", PUBLIC_URL: "https://b.example" }),
    )
      .appUrl,
    "https://a.example",
  );
});
