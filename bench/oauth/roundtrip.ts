// OIDC sign-in round trip against panva's oidc-provider on 127.0.0.1 (a
// process of its own), and the callback alone (state, iss, code exchange,
// ID token with its JWKS signature, userinfo), for createOAuthClient()
// and the same app on oauth4webapi. Each sign-in is a new browser (a
// cookie jar over fetch) walking the provider's login and consent pages.
// Contenders alternate sign-in by sign-in; medians and the spread.
//
//   deno run -A bench/oauth/roundtrip.ts            (ROUNDS=60 by default)
//
// "CPU" is this process's user+system time during the callback: the
// client library and the app, not the provider (another process). The
// example app's password login (bcrypt cost 12, in process) is measured
// in the same rounds for reference: its "round trip" and "callback" are
// the one POST.
import process from "node:process";
import assert from "node:assert/strict";
import type { Router } from "@fetchkit/toolkit/fetch-router";
import { APP_ORIGIN, oauthApp, REDIRECT_URI } from "../../oauth/_test_app.ts";
import { Agent, signInAtProvider } from "../../oauth/_test_agent.ts";
import {
  CONFIDENTIAL_CLIENT,
  startOidcProvider,
} from "../../oauth/_test_oidc_provider.ts";
import { oauth4webapiApp } from "./_o4w_app.ts";
import { Client, testApp } from "../../examples/auth/_test_app.ts";

const ROUNDS = Number(Deno.env.get("ROUNDS") ?? 60);
const WARMUP = 5;

const provider = await startOidcProvider([REDIRECT_URI]);
const contenders: Record<string, Router> = {
  "createOAuthClient (jose)": oauthApp({
    issuer: provider.issuer,
    ...CONFIDENTIAL_CLIENT,
  }).app,
  oauth4webapi: oauth4webapiApp(
    provider.issuer,
    CONFIDENTIAL_CLIENT.clientId,
    CONFIDENTIAL_CLIENT.clientSecret,
    REDIRECT_URI,
  ),
};

// For reference: the example app's password login at bcrypt cost 12, in
// process (a POST /auth/login with the right password, to its redirect).
const passwordApp = await testApp({ cost: 12, loginAddressLimit: 1_000_000 });
await new Client(passwordApp.app).register(
  "bench@example.com",
  "bench-password",
);

async function passwordSignIn(): Promise<Sample> {
  const client = new Client(passwordApp.app);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const response = await client.login("bench@example.com", "bench-password");
  const total = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  assert.equal(response.headers.get("Location"), "/dashboard");
  return { total, callback: total, cpu: (cpu.user + cpu.system) / 1000 };
}

interface Sample {
  total: number;
  callback: number;
  cpu: number;
}

async function signIn(app: Router): Promise<Sample> {
  const agent = new Agent().route(
    APP_ORIGIN,
    async (request) => await app.fetch(request),
  );
  const started = performance.now();
  const login = await agent.request(`${APP_ORIGIN}/login`);
  const back = await signInAtProvider(
    agent,
    login.headers.get("Location")!,
    APP_ORIGIN,
    "alice",
  );
  const cpuBefore = process.cpuUsage();
  const before = performance.now();
  const response = await agent.request(back);
  const callback = performance.now() - before;
  const cpu = process.cpuUsage(cpuBefore);
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal((await response.json()).claims.email, "alice@example.com");
  return {
    total: performance.now() - started,
    callback,
    cpu: (cpu.user + cpu.system) / 1000,
  };
}

const PASSWORD = "password login, bcrypt 12 (reference)";
const samples = new Map<string, Sample[]>(
  [...Object.keys(contenders), PASSWORD].map((name) => [name, []]),
);
try {
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    const order = Object.entries(contenders);
    if (round % 2) order.reverse();
    for (const [name, app] of order) {
      const sample = await signIn(app);
      if (round >= WARMUP) samples.get(name)!.push(sample);
    }
    const password = await passwordSignIn();
    if (round >= WARMUP) samples.get(PASSWORD)!.push(password);
  }
} finally {
  await provider.stop();
  passwordApp.close();
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const ms = (value: number) => value.toFixed(2);
console.log(
  `${ROUNDS} sign-ins each (after ${WARMUP} warm-up), Deno ${Deno.version.deno}`,
);
console.log(
  "| client | sign-in round trip, median (p10-p90) | callback, median (p10-p90) | CPU per callback, median (p10-p90) |",
);
console.log("| --- | --- | --- | --- |");
for (const [name, list] of samples) {
  const of = (key: keyof Sample) => list.map((sample) => sample[key]);
  console.log(
    `| ${name} | ${ms(quantile(of("total"), 0.5))} ms (${
      ms(quantile(of("total"), 0.1))
    }-${ms(quantile(of("total"), 0.9))}) | ${
      ms(quantile(of("callback"), 0.5))
    } ms (${ms(quantile(of("callback"), 0.1))}-${
      ms(quantile(of("callback"), 0.9))
    }) | ${ms(quantile(of("cpu"), 0.5))} ms (${ms(quantile(of("cpu"), 0.1))}-${
      ms(quantile(of("cpu"), 0.9))
    }) |`,
  );
}
