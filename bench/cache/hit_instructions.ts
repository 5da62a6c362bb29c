/**
 * A memory-store cache() hit in instructions, which do not depend on what
 * else the machine runs: each contender runs alone in a process under
 * valgrind's callgrind, twice, with `n` and `2n` operations after the same
 * warm-up; the difference of the two counts divided by `n` is the cost of
 * one operation (start-up, warm-up and the JIT's first compiles cancel
 * out). Every thread counts (the GC's and the compilers' too).
 *
 *     deno run --allow-all bench/cache/hit_instructions.ts [n=20000] [only]
 *
 * The contenders are those of hit.ts's memory table: the handler the cache
 * saves (a 4 KiB JSON list) through `router.fetch`, a hit through
 * `router.fetch`, the middleware alone on a hit, and the same `Response`
 * built by hand (its `Headers` and the body copy), the floor of any hit.
 *
 * @module
 */

const n = Number(Deno.args[0] ?? 20000);
const CONTENDERS = ["handler", "hit", "alone", "by-hand"] as const;

if (Deno.args[0] === "--run") {
  await run(Deno.args[1] as typeof CONTENDERS[number], Number(Deno.args[2]));
} else {
  const rows: string[] = [];
  const only = Deno.args[1];
  for (const contender of CONTENDERS) {
    if (only !== undefined && contender !== only) continue;
    const counts: number[] = [];
    for (const count of [n, 2 * n]) {
      counts.push(await instructions(contender, count));
    }
    const perOp = (counts[1] - counts[0]) / n;
    rows.push(`| ${contender} | ${Math.round(perOp).toLocaleString("en")} |`);
    console.error(contender, counts, perOp);
  }
  console.log(
    `n = ${n} (instructions per operation: (count(2n) - count(n)) / n)\n`,
  );
  console.log(
    ["| contender | instructions / op |", "| --- | ---: |", ...rows].join("\n"),
  );
}

async function instructions(contender: string, count: number): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "cache-callgrind-" });
  try {
    const { code, stderr } = await new Deno.Command("valgrind", {
      args: [
        "--tool=callgrind",
        `--callgrind-out-file=${dir}/out.%p`,
        Deno.execPath(),
        "run",
        "--allow-all",
        "--v8-flags=--single-threaded-gc",
        new URL(import.meta.url).pathname,
        "--run",
        contender,
        String(count),
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (code !== 0) {
      throw new Error(new TextDecoder().decode(stderr).slice(-2000));
    }
    let total = 0;
    for await (const entry of Deno.readDir(dir)) {
      const text = await Deno.readTextFile(`${dir}/${entry.name}`);
      const summary = /^summary: (\d+)/m.exec(text) ??
        /^totals: (\d+)/m.exec(text);
      if (summary) total += Number(summary[1]);
    }
    return total;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function run(
  contender: typeof CONTENDERS[number],
  count: number,
): Promise<void> {
  const { createRouter, RequestContext } = await import(
    "@fetchkit/toolkit/fetch-router"
  );
  const { cache, createMemoryCacheStore } = await import(
    "@fetchkit/toolkit/cache-middleware"
  );
  const items = Array.from({ length: 100 }, (_, i) => ({
    id: i,
    name: `item number ${i}`,
    done: i % 3 === 0,
  }));
  const render = () => Response.json({ items });
  const router = createRouter();
  router.get("/handler", render);
  router.get(
    "/hit",
    cache({ store: createMemoryCacheStore(), ttl: 3600 }),
    render,
  );
  await (await router.fetch(new Request("http://localhost/hit"))).arrayBuffer();
  const alone = cache({ store: createMemoryCacheStore(), ttl: 3600 });
  const context = new RequestContext(new Request("http://localhost/alone"));
  await (await alone(context, () => Promise.resolve(render())))!.arrayBuffer();
  const unreached = () => Promise.reject(new Error("not a hit"));
  const sample = render();
  const pairs = [...sample.headers];
  const stored = new Uint8Array(await sample.arrayBuffer());
  const operations: Record<typeof CONTENDERS[number], () => Promise<unknown>> =
    {
      handler: async () =>
        await (await router.fetch(new Request("http://localhost/handler")))
          .arrayBuffer(),
      hit: async () =>
        await (await router.fetch(new Request("http://localhost/hit")))
          .arrayBuffer(),
      alone: () => alone(context, unreached) as Promise<Response>,
      "by-hand": () => {
        const headers = new Headers(pairs);
        headers.set("Age", "0");
        headers.set("X-Cache", "HIT");
        return Promise.resolve(
          new Response(stored as BodyInit, { status: 200, headers }),
        );
      },
    };
  const operation = operations[contender];
  for (let i = 0; i < 5000; i++) await operation();
  for (let i = 0; i < count; i++) await operation();
}
