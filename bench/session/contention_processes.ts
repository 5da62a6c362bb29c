/**
 * Two server processes sharing one session store, 100 concurrent writers
 * on one session through each (every handler held until the 100 of its
 * process have loaded the session): time from the first request to the
 * last answer, answers other than 200, and names lost, on one Deno KV file
 * and one `redis-server` (when installed). The two processes' saves race
 * each other through the store's compare-and-set.
 *
 * Run: deno run --unstable-kv --allow-all bench/session/contention_processes.ts [rounds]
 */
import { median, quantile } from "../_stats.ts";
import {
  type ServerProcess,
  startServerProcess,
} from "../../_tools/server_process.ts";
import {
  type RedisServer,
  redisServerOrSkip,
  startRedis,
} from "../../_tools/redis.ts";

const rounds = Number(Deno.args[0] ?? 9);
const PER_PROCESS = 100;
const serverScript = new URL("../../session/_test_server.ts", import.meta.url)
  .pathname;

/** Starts session/_test_server.ts on `kind` and `target`; waits for its port. */
function startServer(kind: string, target: string): Promise<ServerProcess> {
  return startServerProcess(serverScript, [kind, target, String(PER_PROCESS)], {
    stderr: "null",
  });
}

/** One round: ms for all writers, answers not 200, names lost. */
async function round(
  kind: string,
  target: string,
): Promise<{ ms: number; failed: number; lost: number }> {
  const servers = [
    await startServer(kind, target),
    await startServer(kind, target),
  ];
  try {
    const login = await fetch(`${servers[0].origin}/set/base/0`, {
      method: "POST",
    });
    await login.body?.cancel();
    const cookie = login.headers.getSetCookie()[0].split(";")[0];
    const names = Array.from({ length: 2 * PER_PROCESS }, (_, i) => `k${i}`);
    const start = performance.now();
    const statuses = await Promise.all(names.map(async (name, i) => {
      const response = await fetch(
        `${servers[i % 2].origin}/set/${name}/${i}?gate=all`,
        { method: "POST", headers: { cookie } },
      );
      await response.body?.cancel();
      return response.status;
    }));
    const ms = performance.now() - start;
    const read = await fetch(`${servers[1].origin}/all?names=${names}`, {
      headers: { cookie },
    });
    const { values } = await read.json();
    return {
      ms,
      failed: statuses.filter((status) => status !== 200).length,
      lost: names.filter((name, i) => values[name] !== String(i)).length,
    };
  } finally {
    for (const server of servers) await server.stop();
  }
}

const dir = await Deno.makeTempDir({ prefix: "session-processes-bench-" });
const redisPath = await redisServerOrSkip();
let redis: RedisServer | undefined;
const results = new Map<
  string,
  { ms: number[]; failed: number; lost: number }
>();
try {
  if (redisPath !== undefined) redis = await startRedis(redisPath);
  for (let i = 0; i < rounds; i++) {
    const cases: [string, string, string][] = [
      ["Deno KV file", "kv", `${dir}/sessions-${i}.sqlite`],
    ];
    if (redis !== undefined) cases.push(["Redis", "redis", redis.url]);
    for (const [name, kind, target] of cases) {
      const result = await round(kind, target);
      const row = results.get(name) ?? { ms: [], failed: 0, lost: 0 };
      row.ms.push(result.ms);
      row.failed += result.failed;
      row.lost += result.lost;
      results.set(name, row);
    }
  }
} finally {
  await redis?.stop();
  await Deno.remove(dir, { recursive: true });
}

console.log(
  `Deno ${Deno.version.deno}, ${rounds} rounds, 2 processes x ${PER_PROCESS} writers on one session\n`,
);
console.log(
  "| store | ms for all, median (quartiles) | not 200, all rounds | names lost, all rounds |",
);
console.log("| --- | ---: | ---: | ---: |");
for (const [name, { ms, failed, lost }] of results) {
  console.log(
    `| ${name} | ${median(ms).toFixed(0)} (${quantile(ms, 0.25).toFixed(0)}-${
      quantile(ms, 0.75).toFixed(0)
    }) | ${failed} | ${lost} |`,
  );
}
