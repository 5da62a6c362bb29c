// The two-factor sign-in step's CPU in the example app, in process on an
// in-memory KV: POST /auth/two-factor with a TOTP code (the pending
// sign-in read, both limiters, verifyTotp, the step stored by
// compare-and-set, the session renewed) against the same step with a
// backup code (PBKDF2-SHA256, 100,000 iterations, then the hash removed
// by compare-and-set). The password step before each (bcrypt, cost 4
// here: not what is measured) is outside the clock. Only Date is faked,
// 30 s on per round, so each round's TOTP code is of a new step. The two
// alternate round by round.
//
//   deno run --unstable-kv --allow-all bench/totp/sign_in_step.ts [rounds]
import FakeTimers from "@sinonjs/fake-timers";
import process from "node:process";
import { totpCode } from "@fetchkit/toolkit/totp";
import { Client, testApp } from "../../examples/auth/_test_app.ts";
import { median, quantile } from "../_stats.ts";

const rounds = Number(Deno.args[0] ?? 40);
const clock = FakeTimers.withGlobal(globalThis).install({
  now: Date.UTC(2026, 0, 1),
  toFake: ["Date"],
});
const { app, close } = await testApp();
const EMAIL = "ada@example.com";
const PASSWORD = "correct horse";

// One user with two-factor authentication on; its backup codes.
const owner = new Client(app);
await owner.register(EMAIL, PASSWORD);
await owner.post("/auth/confirm", { password: PASSWORD });
const setup = await (await owner.get("/profile/two-factor")).text();
const secret = setup.match(/id="totp-secret">([A-Z2-7 ]+)</)![1].replaceAll(
  " ",
  "",
);
const enabled = await (await owner.post("/profile/two-factor", {
  code: await totpCode(secret),
})).text();
const backupCodes = [
  ...enabled.matchAll(/<li>([a-z2-7]{4}-[a-z2-7]{4})<\/li>/g),
]
  .map((match) => match[1]);

function cpuClock() {
  const cpu = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / 1000;
  };
}

async function step(code: () => Promise<string>): Promise<number> {
  clock.tick(30_000);
  const client = new Client(app);
  const login = await client.login(EMAIL, PASSWORD);
  if (login.headers.get("location") !== "/auth/two-factor") {
    throw new Error(`password step: ${login.status}`);
  }
  const form = { code: await code() };
  const stop = cpuClock();
  const response = await client.post("/auth/two-factor", form);
  const took = stop();
  if (response.status !== 303) {
    throw new Error(`code step: ${response.status} ${await response.text()}`);
  }
  return took;
}

let nextBackup = 0;
const totp = () => step(() => totpCode(secret));
const backup = () => {
  if (nextBackup === backupCodes.length) {
    throw new Error("out of backup codes: at most 9 backup rounds");
  }
  return step(() => Promise.resolve(backupCodes[nextBackup++]));
};

const times = { totp: [] as number[], backup: [] as number[] };
await totp(); // warm-up
await backup();
for (let i = 0; i < rounds; i++) {
  times.totp.push(await totp());
  if (nextBackup < backupCodes.length) times.backup.push(await backup());
}
close();
clock.uninstall();

const spread = (values: number[]) =>
  `${median(values).toFixed(2)} (${quantile(values, 0.25).toFixed(2)}-${
    quantile(values, 0.75).toFixed(2)
  })`;
console.log(
  `${times.totp.length} TOTP and ${times.backup.length} backup-code steps; CPU ms per POST /auth/two-factor, median (25th-75th percentile)`,
);
console.log("| second step | CPU time, all threads |");
console.log("| --- | ---: |");
console.log(`| TOTP code | ${spread(times.totp)} |`);
console.log(
  `| backup code (PBKDF2, 100,000 iterations) | ${spread(times.backup)} |`,
);
