/**
 * Requests per second of the auth example through real HTTP (`wrk`):
 * `GET /dashboard` (KV session read and user load), a failed
 * `POST /auth/login` refused by the limiter (no bcrypt: the sixth attempt
 * is answered before the password is looked at), and the public `GET /`
 * for reference. The real `main.ts` runs in its own process on a temp KV
 * file, with bcrypt at cost 12.
 *
 *   flock /tmp/fetchkit-bench.lock deno run --allow-all bench/examples/auth_load.ts [rounds] [seconds]
 *
 * @module
 */
import { startMain } from "../../examples/auth/_test_server.ts";
import { median } from "../_stats.ts";
import { wrkRun } from "../_load.ts";

const rounds = Number(Deno.args[0] ?? 5);
const seconds = Number(Deno.args[1] ?? 5);

async function wrk(
  url: string,
  script: string,
): Promise<{ rps: number; statuses: string }> {
  const path = await Deno.makeTempFile({ suffix: ".lua" });
  await Deno.writeTextFile(path, script);
  const result = await wrkRun(url, { seconds, script: path });
  await Deno.remove(path);
  return {
    rps: result.rps,
    statuses: `${result.non2xx} of ${result.total} not 2xx/3xx`,
  };
}

const dir = await Deno.makeTempDir({ prefix: "auth-load-" });
const server = await startMain({
  DENO_KV_PATH: `${dir}/auth.sqlite`,
  ADMIN_EMAIL: "admin@example.com",
  ADMIN_PASSWORD: "admin-password",
  SESSION_SECRET: "bench-secret-0123456789abcdef0123456789",
});
const post = (path: string, form: Record<string, string>) =>
  fetch(server.url + path, {
    method: "POST",
    body: new URLSearchParams(form),
    redirect: "manual",
  });

try {
  const login = await post("/auth/login", {
    email: "admin@example.com",
    password: "admin-password",
  });
  await login.body?.cancel();
  const cookie = login.headers.get("set-cookie")!.split(";")[0];
  for (let i = 0; i < 5; i++) {
    await (await post("/auth/login", {
      email: "victim@example.com",
      password: "x",
    }))
      .body?.cancel();
  }

  const scenarios: Record<string, [string, string]> = {
    "GET / (no session)": ["/", ""],
    "GET /dashboard (KV session + user)": [
      "/dashboard",
      `wrk.headers["Cookie"] = "${cookie}"`,
    ],
    "POST /auth/login refused by the limiter (429)": [
      "/auth/login",
      `wrk.method = "POST"
wrk.body = "email=victim%40example.com&password=wrong"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"`,
    ],
  };
  const results: Record<string, number[]> = {};
  for (let round = 0; round < rounds; round++) {
    for (const [name, [path, script]] of Object.entries(scenarios)) {
      const { rps, statuses } = await wrk(server.url + path, script);
      (results[name] ??= []).push(rps);
      console.error(
        `round ${round + 1} ${name}: ${rps.toFixed(0)} req/s (${statuses})`,
      );
    }
  }
  console.log(
    `| scenario | req/s (median of ${rounds} × ${seconds} s) | range |`,
  );
  console.log("| --- | ---: | ---: |");
  for (const [name, values] of Object.entries(results)) {
    const sorted = [...values].sort((a, b) => a - b);
    console.log(
      `| ${name} | ${median(values).toFixed(0)} | ${sorted[0].toFixed(0)}–${
        sorted.at(-1)!.toFixed(0)
      } |`,
    );
  }
} finally {
  await server.stop();
  await Deno.remove(dir, { recursive: true });
}
