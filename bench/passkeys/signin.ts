// Sign-in latency in the example app, in process on an in-memory KV:
// a password sign-in (POST /auth/login, bcrypt at cost 12) against a
// passkey sign-in (POST /passkeys/login: the assertion checked by
// @simplewebauthn/server, the counter stored). Only the server's side is
// timed: the passkey's options request and the software authenticator's
// signature happen before the clock starts. The two alternate, round by
// round, so the machine's noise falls on both alike.
//
//   deno run --unstable-kv --allow-all bench/passkeys/signin.ts [rounds]
import { Client, testApp } from "../../examples/auth/_test_app.ts";
import { SoftAuthenticator } from "../../passkeys/_test_authenticator.ts";
import process from "node:process";
import { median, quantile } from "../_stats.ts";

/** Wall and CPU time (all threads: bcrypt hashes on libuv's pool), ms. */
interface Took {
  wall: number;
  cpu: number;
}

function clock() {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  return (): Took => {
    const used = process.cpuUsage(cpu);
    return {
      wall: performance.now() - wall,
      cpu: (used.user + used.system) / 1000,
    };
  };
}

const rounds = Number(Deno.args[0] ?? 40);
const ORIGIN = "http://localhost:8000";
const { app, close } = await testApp({ cost: 12 });

// One user with a password and a passkey.
const owner = new Client(app);
await owner.register("ada@example.com", "correct horse");
const key = new SoftAuthenticator();
const json = { "content-type": "application/json", accept: "application/json" };
const options = await owner.request("/passkeys/register/options", {
  method: "POST",
  headers: json,
  body: "{}",
});
const created = await key.create(await options.json(), ORIGIN);
const registered = await owner.request("/passkeys/register", {
  method: "POST",
  headers: json,
  body: JSON.stringify({ credential: created }),
});
if (!registered.ok) throw new Error(await registered.text());

async function password(): Promise<Took> {
  const client = new Client(app);
  const stop = clock();
  const response = await client.login("ada@example.com", "correct horse");
  const took = stop();
  if (response.headers.get("location") !== "/dashboard") {
    throw new Error(`password sign-in failed: ${response.status}`);
  }
  return took;
}

async function passkey(): Promise<Took> {
  const client = new Client(app);
  const asked = await client.request("/passkeys/login/options", {
    method: "POST",
    headers: json,
    body: "{}",
  });
  const assertion = await key.get(await asked.json(), ORIGIN);
  const body = JSON.stringify(assertion);
  const stop = clock();
  const response = await client.request("/passkeys/login", {
    method: "POST",
    headers: json,
    body,
  });
  const took = stop();
  if (!response.ok) throw new Error(await response.text());
  return took;
}

const times = { password: [] as Took[], passkey: [] as Took[] };
await password(); // warm-up: JIT, bcrypt's thread pool
await passkey();
for (let i = 0; i < rounds; i++) {
  if (i % 2 === 0) {
    times.password.push(await password());
    times.passkey.push(await passkey());
  } else {
    times.passkey.push(await passkey());
    times.password.push(await password());
  }
}
close();

const spread = (values: number[]) =>
  `${median(values).toFixed(2)} (${quantile(values, 0.25).toFixed(2)}-${
    quantile(values, 0.75).toFixed(2)
  })`;
const line = (name: string, took: Took[]) =>
  `| ${name} | ${spread(took.map((t) => t.wall))} | ${
    spread(took.map((t) => t.cpu))
  } |`;
console.log(
  `${rounds} rounds, interleaved; ms per sign-in request, median (25th-75th percentile)`,
);
console.log("| sign-in | wall time | CPU time, all threads |");
console.log("| --- | ---: | ---: |");
console.log(line("password (bcrypt cost 12)", times.password));
console.log(line("passkey (ES256 assertion)", times.passkey));
